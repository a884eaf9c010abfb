//! `AsyncReadExt`: the read helpers (`read`, `read_exact`, the integer
//! reads, `read_to_end`, `take`, `chain`, ...) on every `AsyncRead`.

use super::{AsyncRead, Chain, ReadBuf, Take};

use bytes::BufMut;

use std::future::{Future, poll_fn};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// Generates the fixed-size number reads: `read_exact` into a stack array,
/// then `from_{be,le}_bytes`.
macro_rules! read_numbers {
    ($($(#[$doc:meta])* $name:ident $ty:ident $conv:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// Fails with `ErrorKind::UnexpectedEof` if the stream ends first.
        ///
        /// # Cancel safety
        ///
        /// This method is not cancellation safe: if it is cancelled after
        /// reading some but not all of the bytes, those bytes are lost.
        fn $name(&mut self) -> impl Future<Output = io::Result<$ty>> + '_
        where
            Self: Unpin,
        {
            async move {
                let mut bytes = [0u8; std::mem::size_of::<$ty>()];
                fill_exact(self, &mut bytes, || io::ErrorKind::UnexpectedEof.into()).await?;
                Ok(<$ty>::$conv(bytes))
            }
        }
    )*};
}

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
        // tokio's message for a short `read_exact` ("early eof"); the
        // number reads say "unexpected end of file", as tokio's do.
        fill_exact(self, buf, || {
            io::Error::new(io::ErrorKind::UnexpectedEof, "early eof")
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
        const PROBE: usize = 32;
        let start = buf.len();
        let start_cap = buf.capacity();
        // Bytes past `len` that the reader initialized in an earlier read
        // of this call (passed on, so it need not zero them again).
        let mut init = 0;
        poll_fn(move |cx| {
            loop {
                if buf.capacity() - buf.len() < PROBE {
                    if buf.capacity() == start_cap && start_cap >= PROBE {
                        // Full at the caller's capacity: probe with a small
                        // stack read first, so that a vector sized for the
                        // data is not grown just to find EOF.
                        let mut probe = [std::mem::MaybeUninit::<u8>::uninit(); PROBE];
                        let mut rb = ReadBuf::uninit(&mut probe);
                        ready_retry!(Pin::new(&mut *self).poll_read(cx, &mut rb))?;
                        if rb.filled().is_empty() {
                            return Poll::Ready(Ok(buf.len() - start));
                        }
                        buf.extend_from_slice(rb.filled());
                        init = 0;
                        continue;
                    }
                    buf.reserve(PROBE.max(buf.capacity()));
                    // A reallocation does not carry the spare bytes over.
                    init = 0;
                }
                let len = buf.len();
                let spare = buf.spare_capacity_mut();
                let mut rb = ReadBuf::uninit(spare);
                // SAFETY: the previous read initialized these `init` bytes
                // of the same allocation past `len`, and nothing has
                // de-initialized them since (the vector did not move).
                unsafe { rb.assume_init(init) };
                let ptr = rb.filled().as_ptr();
                let res = Pin::new(&mut *self).poll_read(cx, &mut rb);
                // The counts below describe our memory only if the reader
                // kept the `ReadBuf` it was given.
                assert_eq!(
                    ptr,
                    rb.filled().as_ptr(),
                    "ReadBuf was swapped by poll_read"
                );
                let n = rb.filled().len();
                init = rb.initialized().len() - n;
                // SAFETY: `poll_read` initialized and filled `n` bytes of the
                // spare capacity.
                unsafe { buf.set_len(len + n) };
                match res {
                    Poll::Ready(Ok(())) if n == 0 => return Poll::Ready(Ok(buf.len() - start)),
                    Poll::Ready(Ok(())) => {}
                    Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
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
            append_utf8(dst, bytes)?;
            Ok(n)
        }
    }
    /// Pulls some bytes from this source into the specified buffer,
    /// advancing the buffer's internal cursor. Returns how many bytes were
    /// read; 0 means end of stream, or that `buf` has no remaining capacity.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If you use it as the event in a
    /// `select!` statement and some other branch completes first, then it
    /// is guaranteed that no data was read.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::io::AsyncReadExt;
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime")]
    /// # async fn main() -> std::io::Result<()> {
    /// let mut reader: &[u8] = b"abc";
    /// let mut buf = Vec::with_capacity(8);
    /// let n = reader.read_buf(&mut buf).await?;
    /// assert_eq!(&buf[..n], b"abc");
    /// # Ok(())
    /// # }
    /// ```
    fn read_buf<'a, B>(&'a mut self, buf: &'a mut B) -> impl Future<Output = io::Result<usize>> + 'a
    where
        Self: Unpin,
        B: BufMut + ?Sized,
    {
        poll_fn(move |cx| poll_read_buf(Pin::new(&mut *self), cx, buf))
    }

    /// Creates an adaptor which reads at most `limit` bytes from it.
    ///
    /// This function returns a new instance of `AsyncRead` which will read
    /// at most `limit` bytes, after which it will always return EOF
    /// (`Ok(0)`).
    ///
    /// ```
    /// use volt_runtime::io::AsyncReadExt;
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime")]
    /// # async fn main() -> std::io::Result<()> {
    /// let mut head = (&b"hello world"[..]).take(5);
    /// let mut s = String::new();
    /// head.read_to_string(&mut s).await?;
    /// assert_eq!(s, "hello");
    /// # Ok(())
    /// # }
    /// ```
    fn take(self, limit: u64) -> Take<Self>
    where
        Self: Sized,
    {
        Take::new(self, limit)
    }

    /// Creates a new `AsyncRead` instance that chains this stream with
    /// `next`: it reads this one to EOF, then `next`.
    ///
    /// ```
    /// use volt_runtime::io::AsyncReadExt;
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime")]
    /// # async fn main() -> std::io::Result<()> {
    /// let mut both = (&b"ab"[..]).chain(&b"cd"[..]);
    /// let mut s = String::new();
    /// both.read_to_string(&mut s).await?;
    /// assert_eq!(s, "abcd");
    /// # Ok(())
    /// # }
    /// ```
    fn chain<R>(self, next: R) -> Chain<Self, R>
    where
        Self: Sized,
        R: AsyncRead,
    {
        Chain::new(self, next)
    }

    read_numbers! {
        /// Reads an unsigned 8 bit integer from the underlying reader.
        read_u8 u8 from_be_bytes;
        /// Reads a signed 8 bit integer from the underlying reader.
        read_i8 i8 from_be_bytes;
        /// Reads an unsigned 16-bit integer in big-endian order.
        read_u16 u16 from_be_bytes;
        /// Reads a signed 16-bit integer in big-endian order.
        read_i16 i16 from_be_bytes;
        /// Reads an unsigned 32-bit integer in big-endian order.
        read_u32 u32 from_be_bytes;
        /// Reads a signed 32-bit integer in big-endian order.
        read_i32 i32 from_be_bytes;
        /// Reads an unsigned 64-bit integer in big-endian order.
        read_u64 u64 from_be_bytes;
        /// Reads a signed 64-bit integer in big-endian order.
        read_i64 i64 from_be_bytes;
        /// Reads an unsigned 128-bit integer in big-endian order.
        read_u128 u128 from_be_bytes;
        /// Reads a signed 128-bit integer in big-endian order.
        read_i128 i128 from_be_bytes;
        /// Reads a 32-bit floating point number in big-endian order.
        read_f32 f32 from_be_bytes;
        /// Reads a 64-bit floating point number in big-endian order.
        read_f64 f64 from_be_bytes;
        /// Reads an unsigned 16-bit integer in little-endian order.
        read_u16_le u16 from_le_bytes;
        /// Reads a signed 16-bit integer in little-endian order.
        read_i16_le i16 from_le_bytes;
        /// Reads an unsigned 32-bit integer in little-endian order.
        read_u32_le u32 from_le_bytes;
        /// Reads a signed 32-bit integer in little-endian order.
        read_i32_le i32 from_le_bytes;
        /// Reads an unsigned 64-bit integer in little-endian order.
        read_u64_le u64 from_le_bytes;
        /// Reads a signed 64-bit integer in little-endian order.
        read_i64_le i64 from_le_bytes;
        /// Reads an unsigned 128-bit integer in little-endian order.
        read_u128_le u128 from_le_bytes;
        /// Reads a signed 128-bit integer in little-endian order.
        read_i128_le i128 from_le_bytes;
        /// Reads a 32-bit floating point number in little-endian order.
        read_f32_le f32 from_le_bytes;
        /// Reads a 64-bit floating point number in little-endian order.
        read_f64_le f64 from_le_bytes;
    }
}

impl<R: AsyncRead + ?Sized> AsyncReadExt for R {}

/// Fills `buf` from `reader`; `eof()` is the error if the stream ends
/// first.
fn fill_exact<'a, R: AsyncRead + Unpin + ?Sized>(
    reader: &'a mut R,
    buf: &'a mut [u8],
    eof: fn() -> io::Error,
) -> impl Future<Output = io::Result<usize>> + 'a {
    let mut filled = 0;
    poll_fn(move |cx| {
        while filled < buf.len() {
            let mut rb = ReadBuf::new(&mut buf[filled..]);
            ready_retry!(Pin::new(&mut *reader).poll_read(cx, &mut rb))?;
            let n = rb.filled().len();
            if n == 0 {
                return Poll::Ready(Err(eof()));
            }
            filled += n;
        }
        Poll::Ready(Ok(filled))
    })
}

/// Appends `bytes` to `dst` if they are UTF-8. If not, `dst` is left
/// unchanged and the error is tokio's: `InvalidData` wrapping the
/// `Utf8Error` of `dst` followed by `bytes` (so its index counts from the
/// start of `dst`, as tokio validates the whole string).
pub(super) fn append_utf8(dst: &mut String, bytes: Vec<u8>) -> io::Result<()> {
    match String::from_utf8(bytes) {
        Ok(s) => {
            dst.push_str(&s);
            Ok(())
        }
        Err(e) => {
            // The error path only: rebuild the whole string's bytes to get
            // the same index and length as tokio's error. `dst` ends on a
            // character boundary, so the invalid sequence stays invalid.
            let mut all = Vec::with_capacity(dst.len() + e.as_bytes().len());
            all.extend_from_slice(dst.as_bytes());
            all.extend_from_slice(e.as_bytes());
            let err = std::str::from_utf8(&all).expect_err("invalid UTF-8 stays invalid");
            Err(io::Error::new(io::ErrorKind::InvalidData, err))
        }
    }
}

/// One `poll_read` into the spare capacity of `buf`, advancing it by what
/// was read.
pub(crate) fn poll_read_buf<R: AsyncRead + ?Sized, B: BufMut + ?Sized>(
    reader: Pin<&mut R>,
    cx: &mut Context<'_>,
    buf: &mut B,
) -> Poll<io::Result<usize>> {
    if !buf.has_remaining_mut() {
        return Poll::Ready(Ok(0));
    }
    let n = {
        let dst = buf.chunk_mut();
        // SAFETY: `UninitSlice` is a `[MaybeUninit<u8>]` view that is only
        // ever written through here (ReadBuf never de-initializes bytes).
        let dst = unsafe { dst.as_uninit_slice_mut() };
        let mut rb = ReadBuf::uninit(dst);
        let ptr = rb.filled().as_ptr();
        ready!(reader.poll_read(cx, &mut rb))?;
        // A reader that swapped the `ReadBuf` for another would make the
        // `advance_mut` below expose uninitialized bytes.
        assert_eq!(
            ptr,
            rb.filled().as_ptr(),
            "ReadBuf was swapped by poll_read"
        );
        rb.filled().len()
    };
    // SAFETY: `poll_read` initialized and filled the first `n` bytes of the
    // chunk (checked to be the same memory above).
    unsafe { buf.advance_mut(n) };
    Poll::Ready(Ok(n))
}
