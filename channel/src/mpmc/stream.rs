//! `Receiver` as a `futures_core::Stream` (feature `futures-core`).
//!
//! `poll_next` has no future of its own to keep a waiting op in, so the
//! receiver keeps one: boxed (a waiting node must not move, and the
//! receiver itself may), allocated on the first `poll_next` and reused
//! after that. Only this receiver handle uses it; clones start without
//! one. Dropping the receiver undoes the op like dropping a `Recv` future
//! (passing on a wake-up it had not used, or giving back a value a small
//! channel handed it).
//!
//! The op is reached only through `&mut Receiver` (`poll_next`, `drop`),
//! never through `&Receiver`: [`StreamOp`] says so to the compiler, which
//! keeps `Receiver` `Sync`.

use super::Receiver;
use super::chan::RecvOp;
use crate::bridge;

use futures_core::Stream;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// The op a `Receiver` polls as a stream (module docs).
pub(super) struct StreamOp<T> {
    op: Option<Pin<Box<RecvOp<T>>>>,
}

// SAFETY: the op is only reached through `&mut StreamOp` (`op_mut`,
// `Drop`): a shared reference gives access to nothing, so sharing one
// between threads is sound whatever the op holds. Sending it needs its
// value type to be `Send`, which `RecvOp<T>`'s own `Send` checks.
unsafe impl<T> Sync for StreamOp<T> {}

impl<T> StreamOp<T> {
    pub(super) fn new() -> Self {
        StreamOp { op: None }
    }

    /// Leaves the receive queue, if in it (the receiver is dropped).
    pub(super) fn leave(&mut self, rx: &Receiver<T>) {
        if let Some(op) = &mut self.op {
            if !op.is_idle() {
                rx.chan.cancel_recv(op.as_mut());
            }
        }
    }
}

impl<T> Stream for Receiver<T> {
    type Item = T;

    /// Receives the next value; `None` once the channel is closed and
    /// empty. Cancel safe, like [`Receiver::recv`].
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let coop = ready!(bridge::poll_proceed(cx));
        let this = self.get_mut();
        let op = this
            .stream
            .op
            .get_or_insert_with(|| Box::pin(RecvOp::new()));
        let res = this.chan.poll_recv(op.as_mut(), cx).map(Result::ok);
        if res.is_ready() {
            coop.made_progress();
        }
        res
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len(), None)
    }
}
