//! `AsyncWriteExt`: the write helpers (`write_all`, the integer writes,
//! `write_buf`, `flush`, `shutdown`, ...) on every `AsyncWrite`.

use super::AsyncWrite;

use bytes::Buf;

use std::future::{Future, poll_fn};
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// Generates the fixed-size number writes: `to_{be,le}_bytes`, then
/// `write_all` of the array.
macro_rules! write_numbers {
    ($($(#[$doc:meta])* $name:ident $ty:ident $conv:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// # Cancel safety
        ///
        /// Not cancellation safe: if cancelled, part of the number may
        /// have been written.
        fn $name(&mut self, n: $ty) -> impl Future<Output = io::Result<()>> + '_
        where
            Self: Unpin,
        {
            async move { self.write_all(&n.$conv()).await }
        }
    )*};
}

/// Writes bytes to a sink.
///
/// Implemented as an extension trait, adding utility methods to all
/// [`AsyncWrite`] types. Callers will tend to import this trait instead of
/// [`AsyncWrite`].
///
/// # Examples
///
/// ```
/// use volt_runtime::io::AsyncWriteExt;
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> std::io::Result<()> {
/// let mut out = Vec::new();
/// out.write_all(b"hello").await?;
/// assert_eq!(out, b"hello");
/// # Ok(())
/// # }
/// ```
pub trait AsyncWriteExt: AsyncWrite {
    /// Writes a buffer into this writer, returning how many bytes were
    /// written.
    ///
    /// # Cancel safety
    ///
    /// This method is cancellation safe in the sense that if it is used as
    /// the event in a `select!` statement and some other branch completes
    /// first, then it is guaranteed that no data was written to this
    /// `AsyncWrite`.
    fn write<'a>(&'a mut self, src: &'a [u8]) -> impl Future<Output = io::Result<usize>> + 'a
    where
        Self: Unpin,
    {
        poll_fn(move |cx| Pin::new(&mut *self).poll_write(cx, src))
    }

    /// Attempts to write an entire buffer into this writer.
    ///
    /// # Cancel safety
    ///
    /// This method is not cancellation safe. If it is used as the event in
    /// a `select!` statement and some other branch completes first, then
    /// the provided buffer may have been partially written, but future
    /// calls to `write_all` will start over from the beginning of the
    /// buffer.
    fn write_all<'a>(&'a mut self, src: &'a [u8]) -> impl Future<Output = io::Result<()>> + 'a
    where
        Self: Unpin,
    {
        let mut src = src;
        poll_fn(move |cx| {
            while !src.is_empty() {
                match Pin::new(&mut *self).poll_write(cx, src) {
                    Poll::Ready(Ok(0)) => {
                        return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
                    }
                    Poll::Ready(Ok(n)) => src = &src[n..],
                    Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => return Poll::Pending,
                }
            }
            Poll::Ready(Ok(()))
        })
    }

    /// Flushes this output stream, ensuring that all intermediately
    /// buffered contents reach their destination.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: what was flushed stays flushed.
    fn flush(&mut self) -> impl Future<Output = io::Result<()>> + '_
    where
        Self: Unpin,
    {
        poll_fn(move |cx| Pin::new(&mut *self).poll_flush(cx))
    }

    /// Shuts down the output stream, ensuring that the value can be
    /// dropped cleanly (for a TCP stream: the write half is closed, the
    /// peer reads end of stream).
    fn shutdown(&mut self) -> impl Future<Output = io::Result<()>> + '_
    where
        Self: Unpin,
    {
        poll_fn(move |cx| Pin::new(&mut *self).poll_shutdown(cx))
    }
    /// Like [`write`](AsyncWriteExt::write), except that it writes from a
    /// slice of buffers. Returns how many bytes were written.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if cancelled, no data was written.
    fn write_vectored<'a, 'b>(
        &'a mut self,
        bufs: &'a [IoSlice<'b>],
    ) -> impl Future<Output = io::Result<usize>> + 'a
    where
        Self: Unpin,
    {
        poll_fn(move |cx| Pin::new(&mut *self).poll_write_vectored(cx, bufs))
    }

    /// Writes a buffer into this writer, advancing the buffer's internal
    /// cursor by the number of bytes written (one `poll_write`).
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if cancelled, no data was written and the buffer's
    /// cursor did not move.
    fn write_buf<'a, B>(
        &'a mut self,
        src: &'a mut B,
    ) -> impl Future<Output = io::Result<usize>> + 'a
    where
        Self: Sized + Unpin,
        B: Buf,
    {
        poll_fn(move |cx| {
            if !src.has_remaining() {
                return Poll::Ready(Ok(0));
            }
            let n = ready!(poll_write_chunks(Pin::new(&mut *self), cx, src))?;
            src.advance(n);
            Poll::Ready(Ok(n))
        })
    }

    /// Attempts to write an entire buffer into this writer, advancing the
    /// buffer's cursor as bytes are written.
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe in that some bytes may have been written; but the
    /// buffer's cursor says exactly how many, so calling it again with the
    /// same buffer continues where it stopped.
    ///
    /// ```
    /// use volt_runtime::io::AsyncWriteExt;
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime")]
    /// # async fn main() -> std::io::Result<()> {
    /// let mut out = Vec::new();
    /// let mut src = std::io::Cursor::new(b"hello".to_vec());
    /// out.write_all_buf(&mut src).await?;
    /// assert_eq!(out, b"hello");
    /// # Ok(())
    /// # }
    /// ```
    fn write_all_buf<'a, B>(
        &'a mut self,
        src: &'a mut B,
    ) -> impl Future<Output = io::Result<()>> + 'a
    where
        Self: Unpin,
        B: Buf + ?Sized,
    {
        poll_fn(move |cx| {
            while src.has_remaining() {
                let n = ready_retry!(poll_write_chunks(Pin::new(&mut *self), cx, src))?;
                if n == 0 {
                    return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
                }
                src.advance(n);
            }
            Poll::Ready(Ok(()))
        })
    }

    write_numbers! {
        /// Writes an unsigned 8-bit integer to the underlying writer.
        write_u8 u8 to_be_bytes;
        /// Writes a signed 8-bit integer to the underlying writer.
        write_i8 i8 to_be_bytes;
        /// Writes an unsigned 16-bit integer in big-endian order.
        write_u16 u16 to_be_bytes;
        /// Writes a signed 16-bit integer in big-endian order.
        write_i16 i16 to_be_bytes;
        /// Writes an unsigned 32-bit integer in big-endian order.
        write_u32 u32 to_be_bytes;
        /// Writes a signed 32-bit integer in big-endian order.
        write_i32 i32 to_be_bytes;
        /// Writes an unsigned 64-bit integer in big-endian order.
        write_u64 u64 to_be_bytes;
        /// Writes a signed 64-bit integer in big-endian order.
        write_i64 i64 to_be_bytes;
        /// Writes an unsigned 128-bit integer in big-endian order.
        write_u128 u128 to_be_bytes;
        /// Writes a signed 128-bit integer in big-endian order.
        write_i128 i128 to_be_bytes;
        /// Writes a 32-bit floating point number in big-endian order.
        write_f32 f32 to_be_bytes;
        /// Writes a 64-bit floating point number in big-endian order.
        write_f64 f64 to_be_bytes;
        /// Writes an unsigned 16-bit integer in little-endian order.
        write_u16_le u16 to_le_bytes;
        /// Writes a signed 16-bit integer in little-endian order.
        write_i16_le i16 to_le_bytes;
        /// Writes an unsigned 32-bit integer in little-endian order.
        write_u32_le u32 to_le_bytes;
        /// Writes a signed 32-bit integer in little-endian order.
        write_i32_le i32 to_le_bytes;
        /// Writes an unsigned 64-bit integer in little-endian order.
        write_u64_le u64 to_le_bytes;
        /// Writes a signed 64-bit integer in little-endian order.
        write_i64_le i64 to_le_bytes;
        /// Writes an unsigned 128-bit integer in little-endian order.
        write_u128_le u128 to_le_bytes;
        /// Writes a signed 128-bit integer in little-endian order.
        write_i128_le i128 to_le_bytes;
        /// Writes a 32-bit floating point number in little-endian order.
        write_f32_le f32 to_le_bytes;
        /// Writes a 64-bit floating point number in little-endian order.
        write_f64_le f64 to_le_bytes;
    }
}

impl<W: AsyncWrite + ?Sized> AsyncWriteExt for W {}

/// One write of `src`'s next bytes: up to 64 of its chunks in one
/// vectored write if the writer prefers those, else its first chunk.
fn poll_write_chunks<W: AsyncWrite + ?Sized, B: Buf + ?Sized>(
    writer: Pin<&mut W>,
    cx: &mut Context<'_>,
    src: &B,
) -> Poll<io::Result<usize>> {
    const MAX_VECTOR_ELEMENTS: usize = 64;
    if writer.is_write_vectored() {
        let mut slices = [IoSlice::new(&[]); MAX_VECTOR_ELEMENTS];
        let cnt = src.chunks_vectored(&mut slices);
        writer.poll_write_vectored(cx, &slices[..cnt])
    } else {
        writer.poll_write(cx, src.chunk())
    }
}
