//! The unbounded flavor: the lock-free [`List`] of blocks, and the
//! receivers' wait queue. Senders never wait.
//!
//! Every push claims its position with a `SeqCst` CAS, then looks for a
//! waiting receiver: the notifier half of the Dekker protocol in `waiters`.
//! Receivers wait as `wait` describes; their fast path is one attempt at
//! the list, inlined, as in the bounded flavor.

use super::chan::{Flavor, RecvOp, SendOp};
use super::errors::{RecvError, SendError, TryRecvError, TrySendError};
use super::list::List;
use super::ring::PopError;
use super::wait::{poll_wait, wake_all_after_close};
use super::waiters::{Place, WaitQueue, claimed};
use crate::bridge::Gap;

use std::pin::Pin;
use std::task::{Context, Poll};

/// The flavor's state; `#[repr(C)]`: a gap keeps the waiters apart from
/// the list's parked blocks (the list ends without one).
#[repr(C)]
pub(crate) struct Unbounded<T> {
    list: List<T>,
    _gap: Gap,
    recv_waiters: WaitQueue,
}

impl<T> Unbounded<T> {
    pub(crate) fn new() -> Self {
        Unbounded {
            list: List::new(),
            _gap: Gap::new(),
            recv_waiters: WaitQueue::new(),
        }
    }

    /// Pushes and wakes a receiver; gives the value back if closed.
    #[inline(always)]
    fn push(&self, value: T) -> Result<(), T> {
        self.list.push(value)?;
        // Dekker: position claimed (SeqCst CAS); look for receivers.
        claimed();
        self.recv_waiters.notify_one();
        Ok(())
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
            match self.list.pop() {
                Ok(value) => Some(Ok(value)),
                Err(PopError::Closed) => Some(Err(RecvError)),
                Err(PopError::Empty) => None,
            }
        })
    }
}

impl<T> Flavor<T> for Unbounded<T> {
    fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        self.push(value).map_err(TrySendError::Closed)
    }

    fn try_recv(&self) -> Result<T, TryRecvError> {
        self.list.pop().map_err(|e| match e {
            PopError::Empty => TryRecvError::Empty,
            PopError::Closed => TryRecvError::Closed,
        })
    }

    #[inline(always)]
    fn poll_send(
        &self,
        op: Pin<&mut SendOp<T>>,
        _cx: &mut Context<'_>,
    ) -> Poll<Result<(), SendError<T>>> {
        let this = op.project();
        let cell = this.waiter.as_ref().get_ref().value();
        // SAFETY: a send here never waits: the value is ours alone.
        let value = cell.with_mut(|v| unsafe { (*v).take() });
        let value = value.expect("`Send` polled after completion");
        Poll::Ready(self.push(value).map_err(SendError))
    }

    #[inline(always)]
    fn poll_recv(
        &self,
        op: Pin<&mut RecvOp<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<T, RecvError>> {
        // Fast path: not waiting, and a value is there for the taking.
        if op.place == Place::None {
            if let Ok(value) = self.list.pop() {
                return Poll::Ready(Ok(value));
            }
        }
        self.poll_recv_slow(op, cx)
    }

    fn cancel_send(&self, _op: Pin<&mut SendOp<T>>) {
        // A send never waits here: nothing to undo.
    }

    fn cancel_recv(&self, op: Pin<&mut RecvOp<T>>) {
        op.leave(&self.recv_waiters);
    }

    fn close(&self) -> bool {
        let closed = self.list.close();
        if closed {
            wake_all_after_close(&[&self.recv_waiters]);
        }
        closed
    }

    fn is_closed(&self) -> bool {
        self.list.is_closed()
    }

    fn len(&self) -> usize {
        self.list.len()
    }

    fn capacity(&self) -> Option<usize> {
        None
    }
}

#[cfg(all(test, not(loom)))]
mod layout_tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The list ends with its parked blocks and no gap; the flavor's own
    /// gap keeps the receivers' waiters off them.
    #[test]
    fn the_waiters_are_kept_apart_from_the_list() {
        let gap = size_of::<Gap>();
        assert!(offset_of!(Unbounded<u64>, recv_waiters) >= size_of::<List<u64>>() + gap);
    }
}
