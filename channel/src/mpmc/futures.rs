//! The `Send` and `Recv` futures.
//!
//! Each holds its op ([`SendOp`] / [`RecvOp`]: where it waits, its node,
//! its value) pinned, and polls it through the channel's flavor
//! (`chan.rs`); all the protocol is there. A `Recv` takes a unit of the
//! coop budget first, so a task that always finds its channel ready still
//! yields now and then; a `Send` takes none and yields only when it waits
//! (the module docs of `mpmc`). Dropped before it completed, a future asks
//! the flavor to undo what its op holds, a check that is inline and skips
//! the call for an op that never waited (nearly all of them).

use super::chan::{Chan, RecvOp, SendOp};
use super::errors::{RecvError, SendError};
use crate::bridge;

use pin_project_lite::pin_project;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

pin_project! {
    /// Future returned by [`Receiver::recv`](super::Receiver::recv).
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Recv<'a, T> {
        chan: &'a Chan<T>,
        #[pin]
        op: RecvOp<T>,
    }

    impl<T> PinnedDrop for Recv<'_, T> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            if !this.op.is_idle() {
                this.chan.cancel_recv(this.op);
            }
        }
    }
}

// SAFETY: the op's cells are touched only through `Pin<&mut Self>` (poll
// and drop) or, while the future waits, by a peer under the flavor's lock;
// a shared `&Recv` reaches nothing of it.
unsafe impl<T: std::marker::Send> Sync for Recv<'_, T> {}

impl<'a, T> Recv<'a, T> {
    pub(super) fn new(chan: &'a Chan<T>) -> Self {
        Recv {
            chan,
            op: RecvOp::new(),
        }
    }
}

impl<T> Future for Recv<'_, T> {
    type Output = Result<T, RecvError>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let coop = ready!(bridge::poll_proceed(cx));
        let this = self.project();
        let res = this.chan.poll_recv(this.op, cx);
        if res.is_ready() {
            coop.made_progress();
        }
        res
    }
}

impl<T> fmt::Debug for Recv<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recv").finish_non_exhaustive()
    }
}

pin_project! {
    /// Future returned by [`Sender::send`](super::Sender::send).
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Send<'a, T> {
        chan: &'a Chan<T>,
        #[pin]
        op: SendOp<T>,
    }

    impl<T> PinnedDrop for Send<'_, T> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            if !this.op.is_idle() {
                this.chan.cancel_send(this.op);
            }
        }
    }
}

// SAFETY: as for `Recv`.
unsafe impl<T: std::marker::Send> Sync for Send<'_, T> {}

impl<'a, T> Send<'a, T> {
    pub(super) fn new(chan: &'a Chan<T>, value: T) -> Self {
        Send {
            chan,
            op: SendOp::new(value),
        }
    }
}

impl<T> Future for Send<'_, T> {
    type Output = Result<(), SendError<T>>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // No coop budget: a send yields only when it waits (module docs of
        // `mpmc`, "Cooperative scheduling").
        let this = self.project();
        this.chan.poll_send(this.op, cx)
    }
}

impl<T> fmt::Debug for Send<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Send").finish_non_exhaustive()
    }
}
