//! The shared state of an MPMC channel and its non-blocking operations.
//!
//! A `Chan` is a data path (the bounded [`Ring`] or the unbounded [`List`])
//! plus the waiter queues of both sides below. Capacities 1 to
//! `SMALL_MAX_CAP` use [`Small`] instead, which keeps its values and
//! waiters together under its own lock and never uses these queues.
//!
//! * `recv_waiters` (`fast_recv_waiter` + `has_recv_waiters`): receivers
//!   waiting for a value; notified by every successful push.
//! * `send_waiters` (`fast_send_waiter` + `has_send_waiters`): senders
//!   waiting for room in a bounded channel; notified by every pop.
//! * `handoff_waiters` (rendezvous only): the sender whose value sits in
//!   the channel waits there until a receiver has taken it.
//!
//! Every push and pop claims its position with a `SeqCst` CAS and then
//! looks at the other side's queue with `SeqCst` loads: the notifier half
//! of the Dekker protocol described in [`super::waiters`] (no fence needed
//! after a `SeqCst` read-modify-write; see [`super::waiters`]).
//!
//! # Rendezvous (`bounded(0)`)
//!
//! A rendezvous channel is a ring of one slot whose senders do not finish
//! when their value is stored, but when a receiver has claimed it: the
//! sender remembers its ticket (the index it pushed at) and waits in
//! `handoff_waiters` until `head` has moved past it. A sender cancelled
//! before that takes its value back ([`Ring::unpush`]), so a cancelled
//! `send` never delivers. `try_send` succeeds only while a receiver waits.
//!
//! # Closing
//!
//! The channel closes when the last sender or the last receiver is dropped,
//! or on `close()`: the data path's closed bit is set (no push succeeds
//! after it), and every waiter of every queue is woken. Receivers still
//! drain the values sent before the close.

use super::list::List;
use super::ring::{PopError, PushError, Ring};
use super::small::{SMALL_MAX_CAP, Small};
use super::waiters::{WaitQueue, claimed};
use crate::bridge::loom::sync::atomic::{AtomicUsize, Ordering::*, fence};

pub(crate) enum Queue<T> {
    Ring(Ring<T>),
    List(List<T>),
    /// Capacities 1 to `SMALL_MAX_CAP`: values and waiters under one lock,
    /// with hand-off (see [`super::small`]). Its waiters never use the
    /// `WaitQueue`s below.
    Small(Small<T>),
}

pub(crate) struct Chan<T> {
    pub(crate) queue: Queue<T>,
    /// `bounded(0)`.
    pub(crate) rendezvous: bool,
    pub(crate) recv_waiters: WaitQueue,
    pub(crate) send_waiters: WaitQueue,
    pub(crate) handoff_waiters: WaitQueue,
    pub(crate) senders: AtomicUsize,
    pub(crate) receivers: AtomicUsize,
}

impl<T> Chan<T> {
    pub(crate) fn bounded(cap: usize) -> Self {
        if (1..=SMALL_MAX_CAP).contains(&cap) {
            return Chan::with_queue(Queue::Small(Small::new(cap)), false);
        }
        Chan::with_queue(Queue::Ring(Ring::new(cap.max(1))), cap == 0)
    }

    pub(crate) fn unbounded() -> Self {
        Chan::with_queue(Queue::List(List::new()), false)
    }

    fn with_queue(queue: Queue<T>, rendezvous: bool) -> Self {
        Chan {
            queue,
            rendezvous,
            recv_waiters: WaitQueue::new(),
            send_waiters: WaitQueue::new(),
            handoff_waiters: WaitQueue::new(),
            senders: AtomicUsize::new(1),
            receivers: AtomicUsize::new(1),
        }
    }

    /// Pushes `value` and wakes a receiver. Returns the value's ticket (its
    /// index in the ring; 0 for the list).
    #[inline]
    pub(crate) fn push(&self, value: T) -> Result<usize, (T, PushError)> {
        self.push_impl::<true>(value)
    }

    /// [`push`](Self::push) for a sender that waits when the channel is
    /// full (a stale `Full` is possible: [`Ring::push_with`]).
    #[inline]
    pub(crate) fn push_waiting(&self, value: T) -> Result<usize, (T, PushError)> {
        self.push_impl::<false>(value)
    }

    #[inline(always)]
    fn push_impl<const EXACT: bool>(&self, value: T) -> Result<usize, (T, PushError)> {
        let ticket = match &self.queue {
            Queue::Ring(ring) => ring.push_with::<EXACT>(value)?,
            Queue::List(list) => {
                list.push(value).map_err(|v| (v, PushError::Closed))?;
                0
            }
            // It wakes its own receivers.
            Queue::Small(small) => return small.push(value).map(|()| 0),
        };
        // Dekker: position claimed (SeqCst CAS); look for receivers.
        claimed();
        self.recv_waiters.notify_one();
        Ok(ticket)
    }

    /// Pops a value and wakes a sender waiting for room (bounded only).
    #[inline]
    pub(crate) fn pop(&self) -> Result<T, PopError> {
        self.pop_impl::<true>()
    }

    /// [`pop`](Self::pop) for a receiver that waits when the channel is
    /// empty (a stale `Empty` is possible: [`Ring::pop_with`]).
    #[inline]
    pub(crate) fn pop_waiting(&self) -> Result<T, PopError> {
        self.pop_impl::<false>()
    }

    #[inline(always)]
    fn pop_impl<const EXACT: bool>(&self) -> Result<T, PopError> {
        match &self.queue {
            Queue::Ring(ring) => {
                let value = ring.pop_with::<EXACT>()?;
                self.popped_from_ring();
                Ok(value)
            }
            Queue::List(list) => list.pop(),
            Queue::Small(small) => small.pop(),
        }
    }

    /// The common case of a `send` future, small enough to inline: one
    /// attempt at the ring (or the list's push, which never waits), then
    /// the receivers' check, exactly as [`push`](Self::push) does. `Err`
    /// gives the value back for the full path (full, closed, contended, or
    /// rendezvous, whose sends wait for a receiver).
    #[inline(always)]
    pub(crate) fn try_push_fast(&self, value: T) -> Result<(), T> {
        match &self.queue {
            Queue::Ring(ring) if !self.rendezvous => {
                ring.try_push(value)?;
            }
            Queue::List(list) => list.push(value)?,
            Queue::Ring(_) | Queue::Small(_) => return Err(value),
        }
        // Dekker: position claimed (SeqCst CAS); look for receivers.
        claimed();
        self.recv_waiters.notify_one();
        Ok(())
    }

    /// The common case of a `recv` future, as [`try_push_fast`]
    /// (Self::try_push_fast): `None` sends the receiver down the full path.
    #[inline(always)]
    pub(crate) fn try_pop_fast(&self) -> Option<T> {
        match &self.queue {
            Queue::Ring(ring) => {
                let value = ring.try_pop()?;
                self.popped_from_ring();
                Some(value)
            }
            Queue::List(list) => list.pop().ok(),
            Queue::Small(_) => None,
        }
    }

    /// After a pop from the ring: a slot is free, and (rendezvous) a value
    /// was taken from its sender.
    #[inline(always)]
    fn popped_from_ring(&self) {
        // Dekker: slot claimed (SeqCst CAS); look for senders.
        claimed();
        self.send_waiters.notify_one();
        if self.rendezvous {
            // `notify_all`'s failed CAS is only a relaxed load: this one
            // needs the fence.
            fence(SeqCst);
            self.handoff_waiters.notify_all();
        }
    }

    /// Whether a receiver is waiting (for a rendezvous `try_send`).
    pub(crate) fn has_waiting_receiver(&self) -> bool {
        // The fence orders our look after whatever we did before.
        fence(SeqCst);
        self.recv_waiters.has_waiters()
    }

    /// Closes the channel; true if this call closed it.
    pub(crate) fn close(&self) -> bool {
        let closed = match &self.queue {
            Queue::Ring(ring) => ring.close(),
            Queue::List(list) => list.close(),
            // It wakes its own waiters.
            Queue::Small(small) => return small.close(),
        };
        if closed {
            // Dekker, as for a push: the closed bit is published; fence;
            // then look at the waiters (the CASes of `notify_all` are not
            // enough on their own: a failed CAS is only a relaxed load).
            fence(SeqCst);
            self.recv_waiters.notify_all();
            self.send_waiters.notify_all();
            self.handoff_waiters.notify_all();
        }
        closed
    }

    pub(crate) fn is_closed(&self) -> bool {
        match &self.queue {
            Queue::Ring(ring) => ring.is_closed(),
            Queue::List(list) => list.is_closed(),
            Queue::Small(small) => small.is_closed(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        match &self.queue {
            Queue::Ring(ring) => ring.len(),
            Queue::List(list) => list.len(),
            Queue::Small(small) => small.len(),
        }
    }

    /// Whether a send would have to wait (a rendezvous channel always is).
    pub(crate) fn is_full(&self) -> bool {
        self.capacity().is_some_and(|cap| self.len() >= cap)
    }

    /// `None` for unbounded.
    pub(crate) fn capacity(&self) -> Option<usize> {
        match &self.queue {
            Queue::Ring(_) if self.rendezvous => Some(0),
            Queue::Ring(ring) => Some(ring.capacity()),
            Queue::Small(small) => Some(small.capacity()),
            Queue::List(_) => None,
        }
    }

    pub(crate) fn ring(&self) -> &Ring<T> {
        match &self.queue {
            Queue::Ring(ring) => ring,
            Queue::List(_) | Queue::Small(_) => unreachable!("rendezvous channels use the ring"),
        }
    }
}
