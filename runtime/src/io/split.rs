//! `split` (one stream into a read half and a write half), `join` (a
//! reader and a writer into one stream).
//!
//! The halves of `split` share the stream behind an `Arc<Mutex<T>>`; each
//! poll locks it for the length of one `poll_*` call. A reader and a
//! writer on different tasks therefore never block each other for longer
//! than one non-blocking call. (For `TcpStream`, prefer its own
//! `split`/`into_split`, which need no lock.)
//!
//! Pinning: the stream lives in the `Arc`'s allocation and is never moved
//! out while either half exists; `unsplit` moves it out only when `T:
//! Unpin`.

use super::{AsyncBufRead, AsyncRead, AsyncWrite, ReadBuf};

use pin_project_lite::pin_project;
use std::fmt;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

/// The readable half of a value returned from [`split`].
pub struct ReadHalf<T> {
    inner: Arc<Mutex<T>>,
}

/// The writable half of a value returned from [`split`].
pub struct WriteHalf<T> {
    inner: Arc<Mutex<T>>,
}

/// Splits a single value implementing `AsyncRead + AsyncWrite` into
/// separate `AsyncRead` and `AsyncWrite` handles.
///
/// To restore this read/write object from its split parts, use
/// [`ReadHalf::unsplit`].
///
/// # Examples
///
/// ```
/// use volt_runtime::io::{self, AsyncReadExt, AsyncWriteExt};
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> io::Result<()> {
/// let (client, mut server) = io::duplex(64);
/// let (mut rd, mut wr) = io::split(client);
/// wr.write_all(b"hi").await?;
/// let mut buf = [0; 2];
/// server.read_exact(&mut buf).await?;
/// server.write_all(&buf).await?;
/// rd.read_exact(&mut buf).await?;
/// assert_eq!(&buf, b"hi");
/// let _client = rd.unsplit(wr);
/// # Ok(())
/// # }
/// ```
pub fn split<T>(stream: T) -> (ReadHalf<T>, WriteHalf<T>)
where
    T: AsyncRead + AsyncWrite,
{
    let inner = Arc::new(Mutex::new(stream));
    (
        ReadHalf {
            inner: inner.clone(),
        },
        WriteHalf { inner },
    )
}

/// Locks the shared stream and pins it in place for one call.
fn with_pinned<T, R>(inner: &Mutex<T>, f: impl FnOnce(Pin<&mut T>) -> R) -> R {
    // A panic inside a `poll_*` call poisons the mutex; the stream itself
    // is still whatever state the panicking call left it in, as it would
    // be unsplit, so carry on.
    let mut guard: MutexGuard<'_, T> = inner.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: the stream lives in the `Arc` allocation, which never moves;
    // it is only moved out by `unsplit`, which requires `T: Unpin`.
    let pinned = unsafe { Pin::new_unchecked(&mut *guard) };
    f(pinned)
}

impl<T> ReadHalf<T> {
    /// Checks if this `ReadHalf` and some `WriteHalf` were split from the
    /// same stream.
    pub fn is_pair_of(&self, other: &WriteHalf<T>) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Reunites with a previously split `WriteHalf`.
    ///
    /// # Panics
    ///
    /// If this `ReadHalf` and the given `WriteHalf` do not originate from
    /// the same `split` operation this method will panic.
    #[track_caller]
    pub fn unsplit(self, wr: WriteHalf<T>) -> T
    where
        T: Unpin,
    {
        if !self.is_pair_of(&wr) {
            panic!("Unrelated `split::Write` passed to `split::Read::unsplit`.");
        }
        drop(wr);
        let inner = Arc::try_unwrap(self.inner)
            .ok()
            .expect("`Arc::try_unwrap` failed");
        inner.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

impl<T> WriteHalf<T> {
    /// Checks if this `WriteHalf` and some `ReadHalf` were split from the
    /// same stream.
    pub fn is_pair_of(&self, other: &ReadHalf<T>) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl<T: AsyncRead> AsyncRead for ReadHalf<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        with_pinned(&self.inner, |s| s.poll_read(cx, buf))
    }
}

impl<T: AsyncWrite> AsyncWrite for WriteHalf<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        with_pinned(&self.inner, |s| s.poll_write(cx, buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        with_pinned(&self.inner, |s| s.poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        with_pinned(&self.inner, |s| s.is_write_vectored())
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        with_pinned(&self.inner, |s| s.poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        with_pinned(&self.inner, |s| s.poll_shutdown(cx))
    }
}

impl<T> fmt::Debug for ReadHalf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("split::ReadHalf").finish()
    }
}

impl<T> fmt::Debug for WriteHalf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("split::WriteHalf").finish()
    }
}

pin_project! {
    /// Joins two values implementing `AsyncRead` and `AsyncWrite` into a
    /// single handle (from [`join`]).
    #[derive(Debug)]
    pub struct Join<R, W> {
        #[pin]
        reader: R,
        #[pin]
        writer: W,
    }
}

/// Joins two values implementing `AsyncRead` and `AsyncWrite` into a
/// single handle that reads from `reader` and writes to `writer`.
///
/// ```
/// use volt_runtime::io::{self, AsyncReadExt, AsyncWriteExt};
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> io::Result<()> {
/// let mut both = io::join(&b"in"[..], Vec::new());
/// let mut s = String::new();
/// both.read_to_string(&mut s).await?;
/// both.write_all(b"out").await?;
/// assert_eq!((s.as_str(), both.writer().as_slice()), ("in", &b"out"[..]));
/// # Ok(())
/// # }
/// ```
pub fn join<R, W>(reader: R, writer: W) -> Join<R, W>
where
    R: AsyncRead,
    W: AsyncWrite,
{
    Join { reader, writer }
}

impl<R, W> Join<R, W> {
    /// Splits this `Join` back into its `AsyncRead` and `AsyncWrite`
    /// components.
    pub fn into_inner(self) -> (R, W) {
        (self.reader, self.writer)
    }

    /// Returns a reference to the inner reader.
    pub fn reader(&self) -> &R {
        &self.reader
    }

    /// Returns a reference to the inner writer.
    pub fn writer(&self) -> &W {
        &self.writer
    }

    /// Returns a mutable reference to the inner reader.
    pub fn reader_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// Returns a mutable reference to the inner writer.
    pub fn writer_mut(&mut self) -> &mut W {
        &mut self.writer
    }

    /// Returns a pinned mutable reference to the inner reader.
    pub fn reader_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().reader
    }

    /// Returns a pinned mutable reference to the inner writer.
    pub fn writer_pin_mut(self: Pin<&mut Self>) -> Pin<&mut W> {
        self.project().writer
    }
}

impl<R: AsyncRead, W> AsyncRead for Join<R, W> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.project().reader.poll_read(cx, buf)
    }
}

impl<R: AsyncBufRead, W> AsyncBufRead for Join<R, W> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.project().reader.poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.project().reader.consume(amt)
    }
}

impl<R, W: AsyncWrite> AsyncWrite for Join<R, W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.project().writer.poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.project().writer.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.writer.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().writer.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().writer.poll_shutdown(cx)
    }
}
