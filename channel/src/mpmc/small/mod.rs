//! The small-capacity path: `bounded(1)` to `bounded(SMALL_MAX_CAP)`.
//!
//! A channel this small is at its full or empty boundary on nearly every
//! operation, so nearly every `send` or `recv` meets a waiter of the other
//! side. The lock-free ring then pays for its waiter queues anyway (their
//! mutex on both sides, a task poll for each side per message) and spins at
//! the boundary. This path keeps the values and both waiter lists under one
//! short lock ([`lock::SpinLock`]) and lets each side finish the other's
//! operation:
//!
//! * a `send` that finds a receiver waiting *hands* it the value: the value
//!   goes straight into the receive future, whose next poll returns it;
//! * a `recv` that frees a slot while a sender waits *pulls* that sender's
//!   value into the buffer: the woken send future finds its send done.
//!
//! So a task drains every waiter of the other side in one poll. On the
//! 2-core VM a `bounded(1)` channel between 4 producers and 4 consumers
//! took about 0.7 task polls per message this way against 2.0 through the
//! ring (kanal, which works the same way: 0.7).
//!
//! # State, all under the lock
//!
//! * `buf`: the values, oldest first; at most `cap` of them, except after
//!   a handed value comes back (below).
//! * `receivers`: receive futures waiting for a value. Only while `buf` is
//!   empty: a push hands its value to the oldest one instead of buffering.
//! * `senders`: send futures waiting for room, with their values. Only
//!   while `buf` is full: a pop pulls the oldest one's value in.
//! * `closed`.
//!
//! A waiting future links the [`Node`] of its [`Waiter`] (pinned in the
//! future) into a list, with its waker. The waiter's value cell, right
//! after the node, holds the sender's value, or receives the value handed
//! to a receiver. While the node is linked the cell belongs to the lock;
//! whoever unlinks the node moves
//! the value, takes the waker, and stores the node's state last (Release):
//! `NODE_DONE` (handed or pulled) or `NODE_NOTIFIED` (closed). The owner
//! reads the state with Acquire and then owns its cell again. Waiting
//! allocates nothing.
//!
//! # Cancellation
//!
//! * A `recv` dropped while linked unlinks itself. One dropped after it
//!   was handed a value, before it returned it, gives the value back: to
//!   the next waiting receiver, else to the *front* of `buf` (it was the
//!   oldest value), so a dropped `recv` has taken nothing and order is
//!   kept. The buffer can then hold one more value than `cap` for a while.
//! * A `send` dropped while linked unlinks itself: not sent. One whose
//!   value was pulled before it was dropped has sent it (as for
//!   `bounded(0)`; the channel's docs say so).
//!
//! Wakers are woken with the lock released.

mod lock;

use super::errors::{RecvError, SendError};
use super::ring::{PopError, PushError};
use super::waiters::{
    NODE_DONE, NODE_LINKED, Node, NodeLink, Place, RecvWaiter, SendWaiter, Waiter,
};
use crate::bridge::{LinkedList, WakeList};
use lock::SpinLock;

use std::collections::VecDeque;
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{Context, Poll, Waker};

/// The largest capacity served by this path; larger channels use the
/// ring. 4 producers and 4 consumers on 2 workers, throughput against
/// kanal's (medians of 5): capacity 1 this path 1.20x, the ring 0.72x;
/// 2: 1.19x and 0.52x; 4: 1.08x and 0.85x; at 8 the ring is level
/// (1.06x) and its waits are rarer, so it keeps them.
pub(crate) const SMALL_MAX_CAP: usize = 4;

/// A bounded channel of capacity 1 to [`SMALL_MAX_CAP`] (module docs).
pub(crate) struct Small<T> {
    state: SpinLock<State<T>>,
    cap: usize,
}

struct State<T> {
    buf: VecDeque<T>,
    closed: bool,
    receivers: LinkedList<NodeLink>,
    senders: LinkedList<NodeLink>,
}

// SAFETY: the lists hold pointers to nodes pinned in futures that borrow
// the channel; they are touched only under the lock, and the values (`T:
// Send`) move between threads only through it.
unsafe impl<T: Send> Send for State<T> {}

/// Moves `value` into the unlinked receiver `node`'s cell and hands the
/// node back `NODE_DONE`; returns its waker, to wake after the unlock.
///
/// # Safety
///
/// Under the lock, `node` just popped from `receivers` of a `Small<T>`. A
/// linked receiver node is the node of a pinned `RecvWaiter<T>` whose
/// future is alive until it sees the state stored here last, and whose
/// cell is empty (nothing was handed to it yet) and, unlinked under the
/// lock, ours until then.
unsafe fn hand<T>(node: NonNull<Node>, value: T) -> Option<Waker> {
    // SAFETY: the function's contract (above).
    unsafe {
        let waiter = RecvWaiter::<T>::of(node);
        let waker = node.as_ref().unlinked();
        waiter.value().with_mut(|v| (*v).write(value));
        node.as_ref().release(NODE_DONE);
        waker
    }
}

/// Takes the value out of the unlinked sender `node`'s cell and hands the
/// node back `NODE_DONE` (its send is done); returns the value and the
/// sender's waker, to wake after the unlock.
///
/// # Safety
///
/// Under the lock, `node` just popped from `senders` of a `Small<T>`: as
/// for [`hand`], for a sender's `SendWaiter<T>`, whose cell holds its value.
unsafe fn pull<T>(node: NonNull<Node>) -> (T, Option<Waker>) {
    // SAFETY: the function's contract (above).
    unsafe {
        let waiter = SendWaiter::<T>::of(node);
        let waker = node.as_ref().unlinked();
        let value = waiter.value().with_mut(|v| (*v).take());
        node.as_ref().release(NODE_DONE);
        (value.expect("a waiting sender holds its value"), waker)
    }
}

/// What [`Small::resume`] found.
enum Resumed {
    /// Still linked: return `Pending`.
    Waiting,
    /// A peer handed us a value, or took ours: done.
    Done,
    /// Not waiting, or woken by the close: try the operation.
    Retry,
}

fn wake(waker: Option<Waker>) {
    if let Some(waker) = waker {
        waker.wake();
    }
}

impl<T> Small<T> {
    pub(crate) fn new(cap: usize) -> Self {
        debug_assert!((1..=SMALL_MAX_CAP).contains(&cap));
        Small {
            state: SpinLock::new(State {
                buf: VecDeque::with_capacity(cap),
                closed: false,
                receivers: LinkedList::new(),
                senders: LinkedList::new(),
            }),
            cap,
        }
    }

    pub(crate) fn capacity(&self) -> usize {
        self.cap
    }

    pub(crate) fn len(&self) -> usize {
        self.state.lock().buf.len()
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.state.lock().closed
    }

    /// `try_send`: hands `value` to a waiting receiver, or buffers it.
    pub(crate) fn push(&self, value: T) -> Result<(), (T, PushError)> {
        let mut st = self.state.lock();
        let waker = self.offer(&mut st, value)?;
        drop(st);
        wake(waker);
        Ok(())
    }

    /// Under the lock: hands `value` to the oldest waiting receiver (whose
    /// waker is returned, to wake after the unlock) or buffers it; gives it
    /// back if the channel is closed or full.
    fn offer(&self, st: &mut State<T>, value: T) -> Result<Option<Waker>, (T, PushError)> {
        if st.closed {
            return Err((value, PushError::Closed));
        }
        if let Some(node) = st.receivers.pop_front() {
            // SAFETY: under the lock, just popped from `receivers`.
            return Ok(unsafe { hand(node, value) });
        }
        if st.buf.len() < self.cap {
            st.buf.push_back(value);
            return Ok(None);
        }
        Err((value, PushError::Full))
    }

    /// `try_recv`: the oldest value, if any.
    pub(crate) fn pop(&self) -> Result<T, PopError> {
        let mut st = self.state.lock();
        if let Some((value, waker)) = self.take(&mut st) {
            drop(st);
            wake(waker);
            return Ok(value);
        }
        Err(if st.closed {
            PopError::Closed
        } else {
            PopError::Empty
        })
    }

    /// Under the lock: the oldest value, and the waker of the sender whose
    /// value was pulled into the slot it freed.
    fn take(&self, st: &mut State<T>) -> Option<(T, Option<Waker>)> {
        let Some(value) = st.buf.pop_front() else {
            // Senders wait only while the buffer is full, and every pop
            // refills it from them; this serves one left behind all the
            // same (after values handed back overfilled the buffer).
            let node = st.senders.pop_front()?;
            // SAFETY: under the lock, just popped from `senders`.
            return Some(unsafe { pull(node) });
        };
        let mut waker = None;
        if st.buf.len() < self.cap {
            if let Some(node) = st.senders.pop_front() {
                // SAFETY: under the lock, just popped from `senders`.
                let (pulled, w) = unsafe { pull(node) };
                st.buf.push_back(pulled);
                waker = w;
            }
        }
        Some((value, waker))
    }

    /// A waiter is polled again: still waiting (its waker replaced by
    /// `waker`), its operation done by a peer, or (not linked, or closed)
    /// to try again. Leaves `place` `None` unless still waiting.
    fn resume(&self, place: &mut Place, node: Pin<&Node>, waker: &Waker) -> Resumed {
        if *place != Place::List {
            return Resumed::Retry;
        }
        let mut state = node.state();
        if state == NODE_LINKED {
            let st = self.state.lock();
            state = node.state();
            if state == NODE_LINKED {
                // SAFETY: we hold the lock of the list the node is linked in.
                let old = unsafe { node.set_waker(waker) };
                drop(st);
                drop(old);
                return Resumed::Waiting;
            }
        }
        // Unlinked by a peer (Acquire in `state`): the cell is ours again.
        *place = Place::None;
        if state == NODE_DONE {
            Resumed::Done
        } else {
            Resumed::Retry
        }
    }

    /// Under the lock: links `waiter` at the back of `list` with `waker`.
    fn link<C>(list: &mut LinkedList<NodeLink>, waiter: Pin<&Waiter<C>>, waker: &Waker) {
        // SAFETY: the caller holds the lock; the node is in no list.
        unsafe { waiter.node().arm(waker) };
        // The list keeps a pointer to the whole waiter (node first), so
        // `hand`/`pull` reach its value cell through it.
        list.push_back(NonNull::from(waiter.get_ref()).cast());
    }

    /// The `Send` future's poll; `waiter`'s cell holds its value.
    pub(crate) fn poll_send(
        &self,
        place: &mut Place,
        waiter: Pin<&SendWaiter<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), SendError<T>>> {
        match self.resume(place, waiter.node(), cx.waker()) {
            Resumed::Waiting => return Poll::Pending,
            // Pulled: a receiver moved our value in.
            Resumed::Done => return Poll::Ready(Ok(())),
            // Closed: try again, and fail.
            Resumed::Retry => {}
        }
        let cell = waiter.get_ref().value();
        // SAFETY: not linked: the cell is ours.
        let value = cell.with_mut(|v| unsafe { (*v).take() });
        let value = value.expect("`Send` polled after completion");
        let mut st = self.state.lock();
        match self.offer(&mut st, value) {
            Ok(waker) => {
                drop(st);
                wake(waker);
                Poll::Ready(Ok(()))
            }
            Err((value, PushError::Closed)) => Poll::Ready(Err(SendError(value))),
            Err((value, PushError::Full)) => {
                // SAFETY: not linked yet: the cell is ours.
                cell.with_mut(|v| unsafe { *v = Some(value) });
                Self::link(&mut st.senders, waiter, cx.waker());
                *place = Place::List;
                Poll::Pending
            }
        }
    }

    /// The `Recv` future's poll; `waiter`'s cell is where a sender may
    /// hand it a value while it waits.
    pub(crate) fn poll_recv(
        &self,
        place: &mut Place,
        waiter: Pin<&RecvWaiter<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<T, RecvError>> {
        match self.resume(place, waiter.node(), cx.waker()) {
            Resumed::Waiting => return Poll::Pending,
            Resumed::Done => {
                // Read once: our place is `None` now, so the drop will not.
                let cell = waiter.get_ref().value();
                // SAFETY: unlinked `NODE_DONE`: the cell holds the value handed to us.
                let value = cell.with_mut(|v| unsafe { (*v).assume_init_read() });
                return Poll::Ready(Ok(value));
            }
            // Closed: look again (values sent before still count).
            Resumed::Retry => {}
        }
        let mut st = self.state.lock();
        if let Some((value, waker)) = self.take(&mut st) {
            drop(st);
            wake(waker);
            return Poll::Ready(Ok(value));
        }
        if st.closed {
            return Poll::Ready(Err(RecvError));
        }
        Self::link(&mut st.receivers, waiter, cx.waker());
        *place = Place::List;
        Poll::Pending
    }

    /// A `Send` future is dropped while `place` says it may be linked.
    pub(crate) fn cancel_send(&self, place: Place, node: Pin<&Node>) {
        // Pulled (sent) or closed: nothing to undo; its value, if still in
        // its cell, is dropped with the future (not sent).
        if place == Place::List && node.state() == NODE_LINKED {
            self.unlink(|st| &mut st.senders, node);
        }
    }

    /// A `Recv` future is dropped while `place` says it may be linked; a
    /// value handed to it goes back (module docs, "Cancellation").
    pub(crate) fn cancel_recv(&self, place: Place, waiter: Pin<&RecvWaiter<T>>) {
        if place != Place::List {
            return;
        }
        let node = waiter.node();
        let cell = waiter.get_ref().value();
        if node.state() == NODE_LINKED && self.unlink(|st| &mut st.receivers, node) {
            return;
        }
        if node.state() != NODE_DONE {
            return;
        }
        // Never read: the future is dropped instead of returning it.
        // SAFETY: unlinked `NODE_DONE` (Acquire): the cell holds the value handed to us.
        let value = cell.with_mut(|v| unsafe { (*v).assume_init_read() });
        let mut st = self.state.lock();
        if let Some(receiver) = st.receivers.pop_front() {
            // SAFETY: under the lock, just popped from `receivers`.
            let waker = unsafe { hand(receiver, value) };
            drop(st);
            wake(waker);
        } else {
            st.buf.push_front(value);
        }
    }

    /// Unlinks `node` from the list `list` picks, if it is still linked
    /// there; returns whether it was.
    fn unlink(
        &self,
        list: impl FnOnce(&mut State<T>) -> &mut LinkedList<NodeLink>,
        node: Pin<&Node>,
    ) -> bool {
        let mut st = self.state.lock();
        if node.state() != NODE_LINKED {
            return false;
        }
        // SAFETY: pinned in the caller's future, still linked in this list (under the lock).
        let waker = unsafe {
            list(&mut st).remove(NonNull::from(&*node));
            node.unlinked()
        };
        drop(st);
        drop(waker);
        true
    }

    /// Closes the channel, waking every waiter; true if this call closed it.
    /// Waiting senders keep their values (not sent); values already in the
    /// buffer can still be received.
    pub(crate) fn close(&self) -> bool {
        let mut st = self.state.lock();
        if st.closed {
            return false;
        }
        st.closed = true;
        let mut wakers = WakeList::new();
        loop {
            let next = match st.senders.pop_front() {
                Some(node) => Some(node),
                None => st.receivers.pop_front(),
            };
            let Some(node) = next else {
                break;
            };
            // SAFETY: under the lock, just unlinked; alive until `notify`'s store.
            if let Some(waker) = unsafe { Node::notify(node) } {
                wakers.push(waker);
            }
            if !wakers.can_push() {
                // Wake a full batch with the lock released.
                drop(st);
                wakers.wake_all();
                st = self.state.lock();
            }
        }
        drop(st);
        wakers.wake_all();
        true
    }
}

impl<T> Drop for Small<T> {
    fn drop(&mut self) {
        // Futures borrow the channel, so none can be linked now.
        let st = self.state.get_mut();
        debug_assert!(st.receivers.is_empty() && st.senders.is_empty());
    }
}
