//! The extension traits `AsyncReadExt` and `AsyncWriteExt` (a first set of
//! their methods: the ones every protocol needs).

use super::{AsyncRead, AsyncWrite, ReadBuf};

use std::future::{Future, poll_fn};
use std::io;
use std::pin::Pin;
use std::task::Poll;

/// Reads bytes from a source.
///
/// Implemented as an extension trait, adding utility methods to all
/// [`AsyncRead`] types. Callers will tend to import this trait instead of
/// [`AsyncRead`].
///
/// # Examples
///
/// ```
/// use volt_runtime::io::AsyncReadExt;
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> std::io::Result<()> {
/// let mut reader: &[u8] = b"hello";
/// let mut buf = [0; 5];
/// reader.read_exact(&mut buf).await?;
/// assert_eq!(&buf, b"hello");
/// # Ok(())
/// # }
/// ```
pub trait AsyncReadExt: AsyncRead {
    /// Pulls some bytes from this source into the specified buffer,
    /// returning how many bytes were read. `Ok(0)` means end of stream (or
    /// an empty `buf`).
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If you use it as the event in a
    /// `select!` statement and some other branch completes first, then it
    /// is guaranteed that no data was read.
    fn read<'a>(&'a mut self, buf: &'a mut [u8]) -> impl Future<Output = io::Result<usize>> + 'a
    where
        Self: Unpin,
    {
        poll_fn(move |cx| {
            let mut rb = ReadBuf::new(buf);
            match Pin::new(&mut *self).poll_read(cx, &mut rb) {
                Poll::Ready(Ok(())) => Poll::Ready(Ok(rb.filled().len())),
                Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
                Poll::Pending => Poll::Pending,
            }
        })
    }

    /// Reads the exact number of bytes required to fill `buf`.
    ///
    /// Fails with `ErrorKind::UnexpectedEof` if the stream ends first.
    ///
    /// # Cancel safety
    ///
    /// This method is not cancellation safe. If the method is used as the
    /// event in a `select!` statement and some other branch completes
    /// first, then some data may already have been read into `buf`.
    fn read_exact<'a>(
        &'a mut self,
        buf: &'a mut [u8],
    ) -> impl Future<Output = io::Result<usize>> + 'a
    where
        Self: Unpin,
    {
        let mut filled = 0;
        poll_fn(move |cx| {
            while filled < buf.len() {
                let mut rb = ReadBuf::new(&mut buf[filled..]);
                match Pin::new(&mut *self).poll_read(cx, &mut rb) {
                    Poll::Ready(Ok(())) => {
                        let n = rb.filled().len();
                        if n == 0 {
                            return Poll::Ready(Err(io::ErrorKind::UnexpectedEof.into()));
                        }
                        filled += n;
                    }
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => return Poll::Pending,
                }
            }
            Poll::Ready(Ok(filled))
        })
    }

    /// Reads all bytes until EOF in this source, placing them into `buf`.
    /// Returns the number of bytes read.
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe: bytes read so far stay in `buf`.
    fn read_to_end<'a>(
        &'a mut self,
        buf: &'a mut Vec<u8>,
    ) -> impl Future<Output = io::Result<usize>> + 'a
    where
        Self: Unpin,
    {
        let start = buf.len();
        poll_fn(move |cx| {
            loop {
                if buf.capacity() - buf.len() < 32 {
                    buf.reserve(32.max(buf.capacity()));
                }
                let len = buf.len();
                let spare = buf.spare_capacity_mut();
                let mut rb = ReadBuf::uninit(spare);
                match Pin::new(&mut *self).poll_read(cx, &mut rb) {
                    Poll::Ready(Ok(())) => {
                        let n = rb.filled().len();
                        // SAFETY: `poll_read` initialized and filled `n` bytes
                        // of the spare capacity.
                        unsafe { buf.set_len(len + n) };
                        if n == 0 {
                            return Poll::Ready(Ok(buf.len() - start));
                        }
                    }
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => return Poll::Pending,
                }
            }
        })
    }

    /// Reads all bytes until EOF, appending them to `dst` as UTF-8.
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe.
    fn read_to_string<'a>(
        &'a mut self,
        dst: &'a mut String,
    ) -> impl Future<Output = io::Result<usize>> + 'a
    where
        Self: Unpin,
    {
        async move {
            let mut bytes = Vec::new();
            let n = self.read_to_end(&mut bytes).await?;
            dst.push_str(&utf8(bytes)?);
            Ok(n)
        }
    }
}

impl<R: AsyncRead + ?Sized> AsyncReadExt for R {}

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
}

impl<W: AsyncWrite + ?Sized> AsyncWriteExt for W {}

/// `bytes` as a `String`, or tokio's `InvalidData` error.
pub(super) fn utf8(bytes: Vec<u8>) -> io::Result<String> {
    String::from_utf8(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}
