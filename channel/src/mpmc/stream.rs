//! `Receiver` as a `futures_core::Stream` (feature `futures-core`).
//!
//! `poll_next` has no future of its own to keep a waiter node in, so the
//! receiver keeps one: boxed (a waiting node must not move, and the
//! receiver itself may), allocated on the first `poll_next` that has to
//! wait and reused after that. Only this receiver handle uses it; clones
//! start without one. Dropping the receiver leaves the queue (passing on a
//! wake-up it had not used), like dropping a `Recv` future.

use super::Receiver;
use super::futures::{leave_passing_on, poll_wait};
use super::ring::PopError;
use super::waiters::{Node, Place};
use crate::bridge;

use futures_core::Stream;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// The waiter a `Receiver` uses as a stream.
pub(super) struct StreamWaiter {
    place: Place,
    node: Pin<Box<Node>>,
}

impl StreamWaiter {
    /// Leaves the receive queue, if in it.
    pub(super) fn leave<T>(&mut self, rx: &Receiver<T>) {
        leave_passing_on(&rx.chan.recv_waiters, self.place, self.node.as_ref());
        self.place = Place::None;
    }
}

impl<T> Stream for Receiver<T> {
    type Item = T;

    /// Receives the next value; `None` once the channel is closed and
    /// empty. Cancel safe, like [`Receiver::recv`].
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let coop = ready!(bridge::poll_proceed(cx));
        let this = self.get_mut();
        let waiter = this.stream.get_or_insert_with(|| StreamWaiter {
            place: Place::None,
            node: Box::pin(Node::new()),
        });
        let chan = &*this.chan;
        let res = poll_wait(
            &chan.recv_waiters,
            &mut waiter.place,
            waiter.node.as_ref(),
            cx,
            || match chan.pop_waiting() {
                Ok(v) => Some(Some(v)),
                Err(PopError::Closed) => Some(None),
                Err(PopError::Empty) => None,
            },
        );
        if res.is_ready() {
            coop.made_progress();
        }
        res
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len(), None)
    }
}
