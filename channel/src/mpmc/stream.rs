//! `Receiver` as a `futures_core::Stream` (feature `futures-core`).
//!
//! `poll_next` has no future of its own to keep a waiter node in, so the
//! receiver keeps one: boxed (a waiting node must not move, and the
//! receiver itself may), allocated on the first `poll_next` that has to
//! wait and reused after that. Only this receiver handle uses it; clones
//! start without one. Dropping the receiver leaves the queue (passing on a
//! wake-up it had not used, or giving back a value a small channel handed
//! it), like dropping a `Recv` future.

use super::Receiver;
use super::chan::Queue;
use super::futures::{cancel_recv, poll_wait};
use super::ring::PopError;
use super::waiters::{Place, RecvWaiter, Waiter};
use crate::bridge;

use futures_core::Stream;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// The waiter a `Receiver` uses as a stream.
pub(super) struct StreamWaiter<T> {
    place: Place,
    /// The node, and (small channels) where a sender hands us a value.
    waiter: Pin<Box<RecvWaiter<T>>>,
}

impl<T> StreamWaiter<T> {
    /// Leaves the receive queue, if in it.
    pub(super) fn leave(&mut self, rx: &Receiver<T>) {
        if self.place != Place::None {
            cancel_recv(&rx.chan, self.place, self.waiter.as_ref());
        }
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
            waiter: Box::pin(Waiter::new(std::mem::MaybeUninit::uninit())),
        });
        let chan = &*this.chan;
        if let Queue::Small(small) = &chan.queue {
            let res = small
                .poll_recv(&mut waiter.place, waiter.waiter.as_ref(), cx)
                .map(Result::ok);
            if res.is_ready() {
                coop.made_progress();
            }
            return res;
        }
        let res = poll_wait(
            &chan.recv_waiters,
            &mut waiter.place,
            waiter.waiter.as_ref().node(),
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
