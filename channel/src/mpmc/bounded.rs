//! The bounded flavor (capacity above `SMALL_MAX_CAP`): the lock-free
//! [`Ring`] and the two wait queues.
//!
//! * `recv_waiters`: receivers waiting for a value; notified by every
//!   successful push.
//! * `send_waiters`: senders waiting for room; notified by every pop.
//!
//! Every push and pop claims its position with a `SeqCst` CAS and then
//! looks at the other side's queue with `SeqCst` loads: the notifier half
//! of the Dekker protocol described in `waiters` (no fence needed after a
//! `SeqCst` read-modify-write). Futures wait as `wait` describes.
//!
//! # The fast path
//!
//! Nearly every `send`/`recv` completes on its first poll. Its `poll` is
//! small and inlined into the caller: if the op is not waiting (so it
//! holds no notification), make one attempt at the ring ([`Ring::try_push`]
//! / [`Ring::try_pop`], the same claim and the same notification of the
//! other side as the full path). Anything else (full, empty, closed, a
//! lost race, a future that is waiting) goes to the out-of-line slow path,
//! which runs the wait pattern from the start.
//!
//! # Cancellation
//!
//! A sender's value moves only in its own poll, so a dropped `send` has not
//! sent; a dropped `recv` has taken nothing. Either passes on a
//! notification it held and did not use.

use super::chan::{Flavor, RecvOp, SendOp};
use super::errors::{RecvError, SendError, TryRecvError, TrySendError};
use super::ring::{PopError, PushError, Ring};
use super::wait::{poll_wait, wake_all_after_close};
use super::waiters::{Place, WaitQueue, claimed};
use crate::bridge::Spaced;

use std::pin::Pin;
use std::task::{Context, Poll};

/// The flavor's state; `#[repr(C)]`, so that the waiters lie after the
/// ring's last gap.
#[repr(C)]
pub(crate) struct Bounded<T> {
    ring: Ring<T>,
    recv_waiters: Spaced<WaitQueue>,
    send_waiters: WaitQueue,
}

impl<T> Bounded<T> {
    #[track_caller]
    pub(crate) fn new(cap: usize) -> Self {
        Bounded {
            ring: Ring::new(cap),
            recv_waiters: Spaced::new(WaitQueue::new()),
            send_waiters: WaitQueue::new(),
        }
    }

    /// After a push: a value is there for a waiting receiver.
    #[inline(always)]
    fn pushed(&self) {
        // Dekker: position claimed (SeqCst CAS); look for receivers.
        claimed();
        self.recv_waiters.notify_one();
    }

    /// After a pop: a slot is free for a waiting sender.
    #[inline(always)]
    fn popped(&self) {
        // Dekker: slot claimed (SeqCst CAS); look for senders.
        claimed();
        self.send_waiters.notify_one();
    }

    #[inline(never)]
    fn poll_send_slow(
        &self,
        op: Pin<&mut SendOp<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), SendError<T>>> {
        let this = op.project();
        let waiter = this.waiter.as_ref();
        let cell = waiter.get_ref().value();
        poll_wait(&self.send_waiters, this.place, waiter.node(), cx, || {
            // SAFETY: the ring's waiters never touch our value.
            cell.with_mut(|value| unsafe {
                let v = (*value).take().expect("`Send` polled after completion");
                match self.ring.push_with::<false>(v) {
                    Ok(_) => {
                        self.pushed();
                        Some(Ok(()))
                    }
                    Err((v, PushError::Closed)) => Some(Err(SendError(v))),
                    Err((v, PushError::Full)) => {
                        *value = Some(v);
                        None
                    }
                }
            })
        })
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

impl<T> Flavor<T> for Bounded<T> {
    fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
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

    #[inline(always)]
    fn poll_send(
        &self,
        mut op: Pin<&mut SendOp<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), SendError<T>>> {
        // Fast path: not waiting (so holding no notification), and room.
        let this = op.as_mut().project();
        if *this.place == Place::None {
            let cell = this.waiter.as_ref().get_ref().value();
            // SAFETY: not waiting: the value is ours alone.
            let value = cell.with_mut(|v| unsafe { (*v).take() });
            match self
                .ring
                .try_push(value.expect("`Send` polled after completion"))
            {
                Ok(_) => {
                    self.pushed();
                    return Poll::Ready(Ok(()));
                }
                // SAFETY: as above.
                Err(value) => cell.with_mut(|v| unsafe { *v = Some(value) }),
            }
        }
        self.poll_send_slow(op, cx)
    }

    #[inline(always)]
    fn poll_recv(
        &self,
        op: Pin<&mut RecvOp<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<T, RecvError>> {
        // Fast path: not waiting, and a value is there for the taking.
        if op.place == Place::None {
            if let Some(value) = self.ring.try_pop() {
                self.popped();
                return Poll::Ready(Ok(value));
            }
        }
        self.poll_recv_slow(op, cx)
    }

    fn cancel_send(&self, op: Pin<&mut SendOp<T>>) {
        op.leave(&self.send_waiters);
    }

    fn cancel_recv(&self, op: Pin<&mut RecvOp<T>>) {
        op.leave(&self.recv_waiters);
    }

    fn close(&self) -> bool {
        let closed = self.ring.close();
        if closed {
            wake_all_after_close(&[&self.recv_waiters, &self.send_waiters]);
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
        Some(self.ring.capacity())
    }
}

#[cfg(all(test, not(loom)))]
mod layout_tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The ring ends with a gap; the receivers' waiters end with one, so
    /// the two sides' waiters share no pair of lines.
    #[test]
    fn the_two_sides_waiters_are_kept_apart() {
        let recv = offset_of!(Bounded<u64>, recv_waiters);
        assert!(recv >= size_of::<Ring<u64>>());
        let gap = size_of::<crate::bridge::Gap>();
        assert!(offset_of!(Bounded<u64>, send_waiters) >= recv + size_of::<WaitQueue>() + gap);
    }
}
