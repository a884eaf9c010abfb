//! `Chain`: two readers read one after the other (from
//! [`AsyncReadExt::chain`](super::AsyncReadExt::chain)).

use super::{AsyncBufRead, AsyncRead, ReadBuf};

use pin_project_lite::pin_project;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

pin_project! {
    /// Stream for the [`chain`](super::AsyncReadExt::chain) method: reads
    /// `first` until EOF, then `second`.
    #[derive(Debug)]
    #[must_use = "streams do nothing unless polled"]
    pub struct Chain<T, U> {
        #[pin]
        first: T,
        #[pin]
        second: U,
        done_first: bool,
    }
}

impl<T: AsyncRead, U: AsyncRead> Chain<T, U> {
    pub(super) fn new(first: T, second: U) -> Self {
        Chain {
            first,
            second,
            done_first: false,
        }
    }

    /// Gets references to the underlying readers in this `Chain`.
    pub fn get_ref(&self) -> (&T, &U) {
        (&self.first, &self.second)
    }

    /// Gets mutable references to the underlying readers. Reading through
    /// them may confuse the chain.
    pub fn get_mut(&mut self) -> (&mut T, &mut U) {
        (&mut self.first, &mut self.second)
    }

    /// Gets pinned mutable references to the underlying readers.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> (Pin<&mut T>, Pin<&mut U>) {
        let me = self.project();
        (me.first, me.second)
    }

    /// Consumes the `Chain`, returning the wrapped readers.
    pub fn into_inner(self) -> (T, U) {
        (self.first, self.second)
    }
}

impl<T: AsyncRead, U: AsyncRead> AsyncRead for Chain<T, U> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.project();
        if !*me.done_first {
            let before = buf.filled().len();
            ready!(me.first.poll_read(cx, buf))?;
            // An empty read into a buffer with room is the first's EOF.
            if buf.filled().len() == before && buf.remaining() != 0 {
                *me.done_first = true;
            } else {
                return Poll::Ready(Ok(()));
            }
        }
        me.second.poll_read(cx, buf)
    }
}

impl<T: AsyncBufRead, U: AsyncBufRead> AsyncBufRead for Chain<T, U> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let me = self.project();
        if !*me.done_first {
            match ready!(me.first.poll_fill_buf(cx))? {
                [] => *me.done_first = true,
                buf => return Poll::Ready(Ok(buf)),
            }
        }
        me.second.poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let me = self.project();
        if *me.done_first {
            me.second.consume(amt)
        } else {
            me.first.consume(amt)
        }
    }
}
