//! `BufReader`: adds buffering to any reader.

use super::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

use pin_project_lite::pin_project;
use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::{cmp, fmt};

/// Default buffer capacity (tokio's).
pub(crate) const DEFAULT_BUF_SIZE: usize = 8 * 1024;

pin_project! {
    /// The `BufReader` struct adds buffering to any reader.
    ///
    /// It can be excessively inefficient to work directly with a
    /// [`AsyncRead`] instance. A `BufReader` performs large, infrequent
    /// reads on the underlying [`AsyncRead`] and maintains an in-memory
    /// buffer of the results.
    ///
    /// `BufReader` can improve the speed of programs that make *small* and
    /// *repeated* read calls to the same file or network socket. It does
    /// not help when reading very large amounts at once, or reading just
    /// one or a few times. It also provides no advantage when reading from
    /// a source that is already in memory, like a `Vec<u8>`.
    ///
    /// When the `BufReader` is dropped, the contents of its buffer will be
    /// discarded. Creating multiple instances of a `BufReader` on the same
    /// stream can cause data loss.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::io::{AsyncBufReadExt, BufReader};
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime")]
    /// # async fn main() -> std::io::Result<()> {
    /// let mut reader = BufReader::new(&b"first line\nsecond line\n"[..]);
    /// let mut line = String::new();
    /// reader.read_line(&mut line).await?;
    /// assert_eq!(line, "first line\n");
    /// # Ok(())
    /// # }
    /// ```
    pub struct BufReader<R> {
        #[pin]
        inner: R,
        buf: Box<[u8]>,
        pos: usize,
        cap: usize,
        // The second half of a relative seek whose offset minus the
        // buffered bytes overflowed `i64`: sought once the first completes.
        seek_rest: Option<i64>,
    }
}

impl<R> BufReader<R> {
    /// Puts `inner` in place of the wrapped reader, keeping the buffered
    /// input, and returns the old reader (how a `BufWriter<BufReader<RW>>`
    /// becomes a `BufStream` without losing either buffer).
    pub(crate) fn replace_inner<R2>(self, inner: R2) -> (BufReader<R2>, R) {
        let reader = BufReader {
            inner,
            buf: self.buf,
            pos: self.pos,
            cap: self.cap,
            seek_rest: self.seek_rest,
        };
        (reader, self.inner)
    }
}

impl<R: AsyncRead> BufReader<R> {
    /// Creates a new `BufReader` with a default buffer capacity. The
    /// default is currently 8 KB, but may change in the future.
    pub fn new(inner: R) -> Self {
        Self::with_capacity(DEFAULT_BUF_SIZE, inner)
    }

    /// Creates a new `BufReader` with the specified buffer capacity.
    ///
    /// # Panics
    ///
    /// If `capacity` is 0 (tokio's message).
    #[track_caller]
    pub fn with_capacity(capacity: usize, inner: R) -> Self {
        assert!(capacity > 0, "capacity must be greater than zero");
        Self {
            inner,
            buf: vec![0; capacity].into_boxed_slice(),
            pos: 0,
            cap: 0,
            seek_rest: None,
        }
    }

    /// Gets a reference to the underlying reader.
    ///
    /// It is inadvisable to directly read from the underlying reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// Gets a mutable reference to the underlying reader.
    ///
    /// It is inadvisable to directly read from the underlying reader.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// Gets a pinned mutable reference to the underlying reader.
    ///
    /// It is inadvisable to directly read from the underlying reader.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().inner
    }

    /// Consumes this `BufReader`, returning the underlying reader.
    ///
    /// Note that any leftover data in the internal buffer is lost.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Returns a reference to the internally buffered data.
    ///
    /// Unlike `fill_buf`, this will not attempt to fill the buffer if it is
    /// empty.
    pub fn buffer(&self) -> &[u8] {
        &self.buf[self.pos..self.cap]
    }

    /// Invalidates all data in the internal buffer.
    #[inline]
    fn discard_buffer(self: Pin<&mut Self>) {
        let me = self.project();
        *me.pos = 0;
        *me.cap = 0;
    }
}

impl<R: AsyncRead> AsyncRead for BufReader<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        // If we don't have any buffered data and we're doing a massive
        // read (larger than our internal buffer), bypass our internal
        // buffer entirely.
        if self.pos == self.cap && buf.remaining() >= self.buf.len() {
            let res = ready!(self.as_mut().get_pin_mut().poll_read(cx, buf));
            self.discard_buffer();
            return Poll::Ready(res);
        }
        let rem = ready!(self.as_mut().poll_fill_buf(cx))?;
        let amt = cmp::min(rem.len(), buf.remaining());
        buf.put_slice(&rem[..amt]);
        self.consume(amt);
        Poll::Ready(Ok(()))
    }
}

impl<R: AsyncRead> AsyncBufRead for BufReader<R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let me = self.project();

        // If we've reached the end of our internal buffer then we need to
        // fetch some more data from the underlying reader.
        if *me.pos >= *me.cap {
            debug_assert!(*me.pos == *me.cap);
            let mut buf = ReadBuf::new(me.buf);
            ready!(me.inner.poll_read(cx, &mut buf))?;
            *me.cap = buf.filled().len();
            *me.pos = 0;
        }
        Poll::Ready(Ok(&me.buf[*me.pos..*me.cap]))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let me = self.project();
        *me.pos = cmp::min(*me.pos + amt, *me.cap);
    }
}

/// A `BufReader` of a stream passes writes through.
impl<R: AsyncRead + AsyncWrite> AsyncWrite for BufReader<R> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_pin_mut().poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_pin_mut().poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.get_ref().is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_pin_mut().poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_pin_mut().poll_shutdown(cx)
    }
}

impl<R: fmt::Debug> fmt::Debug for BufReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BufReader")
            .field("reader", &self.inner)
            .field(
                "buffer",
                &format_args!("{}/{}", self.cap - self.pos, self.buf.len()),
            )
            .finish()
    }
}

/// Seeking discards the buffer; `SeekFrom::Current` is relative to the
/// reader's logical position (the buffered bytes not yet consumed are
/// accounted for), as tokio's.
impl<R: AsyncRead + AsyncSeek> AsyncSeek for BufReader<R> {
    fn start_seek(self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        let me = self.project();
        let pos = match pos {
            SeekFrom::Current(n) => {
                let remainder = (*me.cap - *me.pos) as i64;
                match n.checked_sub(remainder) {
                    Some(offset) => SeekFrom::Current(offset),
                    // Underflow: back up over the buffered bytes first,
                    // then seek by `n` (in `poll_complete`), as std's.
                    None => {
                        *me.seek_rest = Some(n);
                        SeekFrom::Current(-remainder)
                    }
                }
            }
            other => other,
        };
        *me.pos = 0;
        *me.cap = 0;
        me.inner.start_seek(pos)
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let mut me = self.project();
        if let Some(n) = *me.seek_rest {
            let res = ready!(me.inner.as_mut().poll_complete(cx));
            *me.seek_rest = None;
            res?;
            me.inner.as_mut().start_seek(SeekFrom::Current(n))?;
        }
        me.inner.poll_complete(cx)
    }
}
