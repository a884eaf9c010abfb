//! The rendezvous flavor (`bounded(0)`): a send completes only once a
//! receiver has taken its value.
//!
//! It is a ring of one slot whose senders do not finish when their value
//! is stored, but when a receiver has claimed it: the sender remembers its
//! ticket (the index it pushed at) and waits in `handoff_waiters` until
//! the ring's `head` has moved past it. A sender cancelled before that
//! takes its value back ([`Ring::unpush`]), so a cancelled `send` never
//! delivers, unless a receiver claimed the value in the meantime: the one
//! exception to `send`'s cancel guarantee, documented on `Sender::send`.
//! `try_send` succeeds only while a receiver waits.
//!
//! The queues and the Dekker protocol are the bounded flavor's; every pop
//! also wakes the senders waiting for their value to be taken.

use super::chan::{Flavor, NO_TICKET, RecvOp, SendOp};
use super::errors::{RecvError, SendError, TryRecvError, TrySendError};
use super::ring::{PopError, PushError, Ring};
use super::wait::{leave_passing_on, poll_wait, wake_all_after_close};
use super::waiters::{Place, WaitQueue, claimed};
use crate::bridge::Spaced;
use crate::bridge::loom::sync::atomic::{Ordering::SeqCst, fence};

use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// The flavor's state; `#[repr(C)]`, so that the waiters lie after the
/// ring's last gap.
#[repr(C)]
pub(crate) struct Zero<T> {
    ring: Ring<T>,
    recv_waiters: Spaced<WaitQueue>,
    /// Beside `handoff_waiters`: both are the senders' side.
    send_waiters: WaitQueue,
    /// Senders whose value is in the ring, waiting for a receiver to take
    /// it.
    handoff_waiters: WaitQueue,
}

impl<T> Zero<T> {
    pub(crate) fn new() -> Self {
        Zero {
            ring: Ring::new(1),
            recv_waiters: Spaced::new(WaitQueue::new()),
            send_waiters: WaitQueue::new(),
            handoff_waiters: WaitQueue::new(),
        }
    }

    fn pushed(&self) {
        // Dekker: position claimed (SeqCst CAS); look for receivers.
        claimed();
        self.recv_waiters.notify_one();
    }

    /// After a pop: the slot is free, and a value was taken from its sender.
    #[inline(always)]
    fn popped(&self) {
        // Dekker: slot claimed (SeqCst CAS); look for senders, and for
        // the hand-off's waiters (both looks start with the `SeqCst` loads
        // of `has_waiters`, which the claim orders without a fence).
        claimed();
        self.send_waiters.notify_one();
        self.handoff_waiters.notify_all();
    }

    #[inline(never)]
    fn poll_recv_slow(
        &self,
        op: Pin<&mut RecvOp<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<T, RecvError>> {
        let this = op.project();
        let node = this.waiter.as_ref().node();
        poll_wait(&self.recv_waiters, this.place, node, cx, || {
            match self.ring.pop_with::<false>() {
                Ok(value) => {
                    self.popped();
                    Some(Ok(value))
                }
                Err(PopError::Closed) => Some(Err(RecvError)),
                Err(PopError::Empty) => None,
            }
        })
    }
}

impl<T> Flavor<T> for Zero<T> {
    fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        // The fence orders our look at the receivers after whatever we did
        // before.
        fence(SeqCst);
        if !self.ring.is_closed() && !self.recv_waiters.has_waiters() {
            return Err(TrySendError::Full(value));
        }
        match self.ring.push_with::<true>(value) {
            Ok(_) => {
                self.pushed();
                Ok(())
            }
            Err((v, PushError::Full)) => Err(TrySendError::Full(v)),
            Err((v, PushError::Closed)) => Err(TrySendError::Closed(v)),
        }
    }

    fn try_recv(&self) -> Result<T, TryRecvError> {
        match self.ring.pop_with::<true>() {
            Ok(value) => {
                self.popped();
                Ok(value)
            }
            Err(PopError::Empty) => Err(TryRecvError::Empty),
            Err(PopError::Closed) => Err(TryRecvError::Closed),
        }
    }

    fn poll_send(
        &self,
        op: Pin<&mut SendOp<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), SendError<T>>> {
        let this = op.project();
        let waiter = this.waiter.as_ref();
        let node = waiter.node();
        let cell = waiter.get_ref().value();

        if *this.ticket == NO_TICKET {
            // Wait for the slot, then put our value in it.
            let pushed = ready!(poll_wait(&self.send_waiters, this.place, node, cx, || {
                // SAFETY: the queues never touch our value.
                cell.with_mut(|value| unsafe {
                    let v = (*value).take().expect("`Send` polled after completion");
                    match self.ring.push_with::<false>(v) {
                        Ok(ticket) => {
                            self.pushed();
                            Some(Ok(ticket))
                        }
                        Err((v, PushError::Closed)) => Some(Err(SendError(v))),
                        Err((v, PushError::Full)) => {
                            *value = Some(v);
                            None
                        }
                    }
                })
            }));
            *this.ticket = pushed?;
        }

        // Wait for a receiver to claim our value.
        let ticket = *this.ticket;
        let res = ready!(poll_wait(
            &self.handoff_waiters,
            this.place,
            node,
            cx,
            || {
                if self.ring.is_taken(ticket) {
                    return Some(Ok(()));
                }
                if self.ring.is_closed() {
                    // Nobody will take it: take it back, unless a receiver
                    // claimed it meanwhile.
                    return Some(match self.ring.unpush(ticket) {
                        Some(v) => Err(SendError(v)),
                        None => Ok(()),
                    });
                }
                None
            }
        ));
        *this.ticket = NO_TICKET;
        Poll::Ready(res)
    }

    #[inline(always)]
    fn poll_recv(
        &self,
        op: Pin<&mut RecvOp<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<T, RecvError>> {
        if op.place == Place::None {
            if let Some(value) = self.ring.try_pop() {
                self.popped();
                return Poll::Ready(Ok(value));
            }
        }
        self.poll_recv_slow(op, cx)
    }

    fn cancel_send(&self, op: Pin<&mut SendOp<T>>) {
        let this = op.project();
        let node = this.waiter.as_ref().node();
        if *this.ticket == NO_TICKET {
            leave_passing_on(&self.send_waiters, *this.place, node);
        } else {
            // Every hand-off wakes all of these: nothing to pass on.
            self.handoff_waiters.leave(*this.place, node);
            // Cancelled before a receiver took it: it is not sent.
            drop(self.ring.unpush(*this.ticket));
            *this.ticket = NO_TICKET;
        }
        *this.place = Place::None;
    }

    fn cancel_recv(&self, op: Pin<&mut RecvOp<T>>) {
        op.leave(&self.recv_waiters);
    }

    fn close(&self) -> bool {
        let closed = self.ring.close();
        if closed {
            wake_all_after_close(&[
                &self.recv_waiters,
                &self.send_waiters,
                &self.handoff_waiters,
            ]);
        }
        closed
    }

    fn is_closed(&self) -> bool {
        self.ring.is_closed()
    }

    fn len(&self) -> usize {
        self.ring.len()
    }

    fn capacity(&self) -> Option<usize> {
        Some(0)
    }
}
