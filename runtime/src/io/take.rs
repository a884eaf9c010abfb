//! `Take`: a reader limited to a number of bytes (from
//! [`AsyncReadExt::take`](super::AsyncReadExt::take)).

use super::{AsyncBufRead, AsyncRead, ReadBuf};

use pin_project_lite::pin_project;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

pin_project! {
    /// Stream for the [`take`](super::AsyncReadExt::take) method: reads at
    /// most `limit` bytes from the inner reader, then reports EOF.
    #[derive(Debug)]
    #[must_use = "streams do nothing unless you `.await` or poll them"]
    pub struct Take<R> {
        #[pin]
        inner: R,
        limit: u64,
    }
}

impl<R: AsyncRead> Take<R> {
    pub(super) fn new(inner: R, limit: u64) -> Self {
        Take { inner, limit }
    }

    /// Returns the remaining number of bytes that can be read before this
    /// instance returns EOF (it may return EOF earlier if the inner reader
    /// does).
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Sets the number of bytes that can be read before this instance
    /// returns EOF. This is the same as constructing a new `Take`: the
    /// amount read so far does not matter.
    pub fn set_limit(&mut self, limit: u64) {
        self.limit = limit;
    }

    /// Gets a reference to the underlying reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// Gets a mutable reference to the underlying reader. Reading through
    /// it bypasses the limit.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// Gets a pinned mutable reference to the underlying reader.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().inner
    }

    /// Consumes the `Take`, returning the wrapped reader.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

/// `limit` as a `usize` no larger than `max`.
fn cap(limit: u64, max: usize) -> usize {
    usize::try_from(limit).map_or(max, |l| l.min(max))
}

impl<R: AsyncRead> AsyncRead for Take<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.limit == 0 {
            return Poll::Ready(Ok(()));
        }
        let me = self.project();
        let mut limited = buf.take(cap(*me.limit, buf.remaining()));
        let ptr = limited.filled().as_ptr();
        ready!(me.inner.poll_read(cx, &mut limited))?;
        assert_eq!(
            ptr,
            limited.filled().as_ptr(),
            "ReadBuf was swapped by poll_read"
        );
        let n = limited.filled().len();
        let initialized = limited.initialized().len();
        // SAFETY: `limited` is a view of `buf`'s unfilled part; the inner
        // reader initialized `initialized` bytes of it (same memory,
        // checked above).
        unsafe { buf.assume_init(initialized) };
        buf.advance(n);
        *me.limit -= n as u64;
        Poll::Ready(Ok(()))
    }
}

impl<R: AsyncBufRead> AsyncBufRead for Take<R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let me = self.project();
        if *me.limit == 0 {
            return Poll::Ready(Ok(&[]));
        }
        let buf = ready!(me.inner.poll_fill_buf(cx))?;
        let n = cap(*me.limit, buf.len());
        Poll::Ready(Ok(&buf[..n]))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let me = self.project();
        let amt = cap(*me.limit, amt);
        *me.limit -= amt as u64;
        me.inner.consume(amt);
    }
}
