//! The small flavor: `bounded(1)` to `bounded(SMALL_MAX_CAP)`.
//!
//! A channel this small is at its full or empty boundary on nearly every
//! operation, so nearly every `send` or `recv` meets a waiter of the other
//! side. The lock-free ring then pays for its wait queues anyway and spins
//! at the boundary. This flavor keeps the values and both waiter lists
//! under one short lock ([`SpinLock`](crate::spin_lock::SpinLock)), and a
//! `send` that finds a receiver waiting *hands* it the value: the value
//! goes straight into the receive future, whose next poll returns it, with
//! no trip through the buffer and no second look by another receiver.
//!
//! Senders are never robbed: a sender's value moves only in its own poll,
//! so a `send` dropped before it completed has not sent, as at every
//! capacity (tokio's `mpsc` promise). A receiver that frees a slot wakes
//! the oldest waiting sender, which sends in its next poll.
//!
//! # State, all under the lock
//!
//! * `buf`: the values, oldest first.
//! * `handed`: values handed to receive futures that have not returned
//!   them yet. They still take room: `buf.len() + handed` is [`len`]
//!   (Flavor::len), never more than `cap`, so a value a dropped `recv`
//!   gives back always has its slot.
//! * `receivers`: receive futures waiting for a value; only while `buf` is
//!   empty (a send hands its value to the oldest one instead of buffering).
//! * `senders`: send futures waiting for room, oldest first.
//! * `woken`: senders unlinked and woken for room that have not polled
//!   since. A freed slot wakes a sender only while the free slots
//!   outnumber them, so a burst of receives does not wake senders that
//!   would find the room taken.
//! * `closed`.
//!
//! A sender that finds room sends, even while others wait (as in the
//! ring): a task with several values to send sends them all in one poll
//! while there is room, instead of one per wake-up. A woken sender that
//! finds the room taken waits again at the front.
//!
//! A waiting future links the [`Node`] of its [`Waiter`] (pinned in the
//! future) into a list, with its waker. The waiter's cell, right after the
//! node, holds a sender's value, or receives the value handed to a
//! receiver. While the node is linked the cell belongs to the lock; whoever
//! unlinks the node takes the waker, moves the value (a hand-off only), and
//! stores the node's state last (Release): `NODE_DONE` (a receiver was
//! handed a value; a sender was woken for room, counted in `woken`) or
//! `NODE_NOTIFIED` (closed). The owner reads the state with Acquire and then owns its cell
//! again. Waiting allocates nothing.
//!
//! # Cancellation
//!
//! * A `send` dropped while linked unlinks itself: not sent. One dropped
//!   after it was woken for room passes the wake-up to the next waiting
//!   sender.
//! * A `recv` dropped while linked unlinks itself. One dropped after it was
//!   handed a value gives the value back: to the next waiting receiver,
//!   else to the *front* of `buf` (it was the oldest value), into the slot
//!   it held, so a dropped `recv` has taken nothing and order is kept.
//!
//! Wakers are woken with the lock released.

use super::chan::{Flavor, RecvOp, SendOp};
use super::errors::{RecvError, SendError, TryRecvError, TrySendError};
use super::waiters::{
    NODE_DONE, NODE_LINKED, Node, NodeLink, Place, RecvWaiter, SendWaiter, Waiter,
};
use crate::bridge::{LinkedList, WakeList};
use crate::spin_lock::SpinLock;

use std::collections::VecDeque;
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{Context, Poll, Waker};

/// The largest capacity of this flavor; larger channels use the ring,
/// whose waits are rarer there (`benches/NOTES.md` has the measurements).
pub(crate) const SMALL_MAX_CAP: usize = 4;

/// A bounded channel of capacity 1 to [`SMALL_MAX_CAP`] (module docs).
pub(crate) struct Small<T> {
    state: SpinLock<State<T>>,
    cap: usize,
}

struct State<T> {
    buf: VecDeque<T>,
    handed: usize,
    woken: usize,
    closed: bool,
    receivers: LinkedList<NodeLink>,
    senders: LinkedList<NodeLink>,
}

// SAFETY: the lists hold pointers to nodes pinned in futures that borrow
// the channel; they are touched only under the lock, and the values (`T:
// Send`) move between threads only through it.
unsafe impl<T: Send> Send for State<T> {}

impl<T> State<T> {
    /// Values in the channel (buffered or handed): the slots in use.
    fn len(&self) -> usize {
        self.buf.len() + self.handed
    }

    /// Puts `value` in the channel, into a free slot: hands it to the
    /// oldest waiting receiver (whose waker is returned, to wake after the
    /// unlock), or buffers it.
    fn place(&mut self, value: T) -> Option<Waker> {
        if let Some(node) = self.receivers.pop_front() {
            self.handed += 1;
            // SAFETY: under the lock, just popped from `receivers`.
            return unsafe { hand(node, value) };
        }
        self.buf.push_back(value);
        None
    }

    /// A slot was freed: wakes the oldest waiting sender, unless the
    /// senders already woken will take all the free slots; returns its
    /// waker.
    fn wake_sender(&mut self, cap: usize) -> Option<Waker> {
        if cap - self.len() <= self.woken {
            return None;
        }
        let node = self.senders.pop_front()?;
        self.woken += 1;
        // SAFETY: under the lock, just popped from `senders`: its future is
        // alive until it sees the state stored here.
        unsafe {
            let node = node.as_ref();
            let waker = node.unlinked();
            node.release(NODE_DONE);
            waker
        }
    }
}

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

/// What [`Small::resume`] found.
enum Resumed {
    /// Still linked: return `Pending`.
    Waiting,
    /// Unlinked `NODE_DONE`: handed a value (receiver) or woken for room
    /// (sender).
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
                handed: 0,
                woken: 0,
                closed: false,
                receivers: LinkedList::new(),
                senders: LinkedList::new(),
            }),
            cap,
        }
    }

    /// Under the lock: sends `value` if there is a free slot, returning
    /// the receiver's waker to wake; gives it back if the channel is
    /// closed (`true`) or full (`false`).
    fn offer(&self, st: &mut State<T>, value: T) -> Result<Option<Waker>, (T, bool)> {
        if st.closed {
            return Err((value, true));
        }
        if st.len() >= self.cap {
            return Err((value, false));
        }
        Ok(st.place(value))
    }

    /// Under the lock: the oldest buffered value, and the waker of the
    /// sender woken for the slot it frees.
    fn take(&self, st: &mut State<T>) -> Option<(T, Option<Waker>)> {
        let value = st.buf.pop_front()?;
        Some((value, st.wake_sender(self.cap)))
    }

    /// A waiter is polled again: still waiting (its waker replaced by
    /// `waker`), done by a peer, or (not linked, or closed) to try again.
    /// Leaves `place` `None` unless still waiting.
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

    /// Under the lock: links `waiter` into `list` with `waker`, at the
    /// back, or at the front (a woken sender that found the room taken:
    /// it is the oldest).
    fn link<C>(
        list: &mut LinkedList<NodeLink>,
        waiter: Pin<&Waiter<C>>,
        waker: &Waker,
        front: bool,
    ) {
        // SAFETY: the caller holds the lock; the node is in no list.
        unsafe { waiter.node().arm(waker) };
        // The list keeps a pointer to the whole waiter (node first), so
        // `hand` reaches its value cell through it.
        let ptr = NonNull::from(waiter.get_ref()).cast();
        if front {
            list.push_front(ptr);
        } else {
            list.push_back(ptr);
        }
    }

    /// A receiver returns the value handed to it: its slot is free.
    fn returned(&self) {
        let mut st = self.state.lock();
        st.handed -= 1;
        let waker = st.wake_sender(self.cap);
        drop(st);
        wake(waker);
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
}

impl<T> Flavor<T> for Small<T> {
    fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        let mut st = self.state.lock();
        match self.offer(&mut st, value) {
            Ok(waker) => {
                drop(st);
                wake(waker);
                Ok(())
            }
            Err((v, true)) => Err(TrySendError::Closed(v)),
            Err((v, false)) => Err(TrySendError::Full(v)),
        }
    }

    fn try_recv(&self) -> Result<T, TryRecvError> {
        let mut st = self.state.lock();
        if let Some((value, waker)) = self.take(&mut st) {
            drop(st);
            wake(waker);
            return Ok(value);
        }
        Err(if st.closed {
            TryRecvError::Closed
        } else {
            TryRecvError::Empty
        })
    }

    fn poll_send(
        &self,
        op: Pin<&mut SendOp<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), SendError<T>>> {
        let this = op.project();
        let waiter: Pin<&SendWaiter<T>> = this.waiter.as_ref();
        let woken = match self.resume(this.place, waiter.node(), cx.waker()) {
            Resumed::Waiting => return Poll::Pending,
            Resumed::Done => true,
            Resumed::Retry => false,
        };
        let cell = waiter.get_ref().value();
        // SAFETY: not linked: the cell is ours.
        let value = cell.with_mut(|v| unsafe { (*v).take() });
        let value = value.expect("`Send` polled after completion");
        let mut st = self.state.lock();
        if woken {
            st.woken -= 1;
        }
        match self.offer(&mut st, value) {
            Ok(waker) => {
                drop(st);
                wake(waker);
                Poll::Ready(Ok(()))
            }
            Err((value, true)) => Poll::Ready(Err(SendError(value))),
            Err((value, false)) => {
                // SAFETY: not linked yet: the cell is ours.
                cell.with_mut(|v| unsafe { *v = Some(value) });
                Self::link(&mut st.senders, waiter, cx.waker(), woken);
                *this.place = Place::List;
                Poll::Pending
            }
        }
    }

    fn poll_recv(
        &self,
        op: Pin<&mut RecvOp<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<T, RecvError>> {
        let this = op.project();
        let waiter: Pin<&RecvWaiter<T>> = this.waiter.as_ref();
        match self.resume(this.place, waiter.node(), cx.waker()) {
            Resumed::Waiting => return Poll::Pending,
            Resumed::Done => {
                // Read once: our place is `None` now, so the drop will not.
                let cell = waiter.get_ref().value();
                // SAFETY: unlinked `NODE_DONE`: the cell holds the value handed to us.
                let value = cell.with_mut(|v| unsafe { (*v).assume_init_read() });
                self.returned();
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
        Self::link(&mut st.receivers, waiter, cx.waker(), false);
        *this.place = Place::List;
        Poll::Pending
    }

    fn cancel_send(&self, op: Pin<&mut SendOp<T>>) {
        let this = op.project();
        let node = this.waiter.as_ref().node();
        if *this.place != Place::List {
            return;
        }
        *this.place = Place::None;
        if node.state() == NODE_LINKED && self.unlink(|st| &mut st.senders, node) {
            return;
        }
        if node.state() == NODE_DONE {
            // Woken for room it will not use: pass the wake-up on.
            let mut st = self.state.lock();
            st.woken -= 1;
            let waker = st.wake_sender(self.cap);
            drop(st);
            wake(waker);
        }
        // Else closed: nothing to undo. The value, still in its cell, is
        // dropped with the future (not sent).
    }

    fn cancel_recv(&self, op: Pin<&mut RecvOp<T>>) {
        let this = op.project();
        if *this.place != Place::List {
            return;
        }
        *this.place = Place::None;
        let waiter = this.waiter.as_ref();
        let node = waiter.node();
        if node.state() == NODE_LINKED && self.unlink(|st| &mut st.receivers, node) {
            return;
        }
        if node.state() != NODE_DONE {
            return;
        }
        // Handed a value it never returned: give it back, in its slot.
        let cell = waiter.get_ref().value();
        // SAFETY: unlinked `NODE_DONE` (Acquire): the cell holds the value handed to us.
        let value = cell.with_mut(|v| unsafe { (*v).assume_init_read() });
        let mut st = self.state.lock();
        st.handed -= 1;
        let waker = st.place_front(value);
        drop(st);
        wake(waker);
    }

    fn close(&self) -> bool {
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

    fn is_closed(&self) -> bool {
        self.state.lock().closed
    }

    fn len(&self) -> usize {
        self.state.lock().len()
    }

    fn capacity(&self) -> Option<usize> {
        Some(self.cap)
    }
}

impl<T> State<T> {
    /// A value given back by a dropped receiver, into the slot it held:
    /// to the next waiting receiver, else to the front of `buf`.
    fn place_front(&mut self, value: T) -> Option<Waker> {
        if let Some(node) = self.receivers.pop_front() {
            self.handed += 1;
            // SAFETY: under the lock, just popped from `receivers`.
            return unsafe { hand(node, value) };
        }
        self.buf.push_front(value);
        None
    }
}

impl<T> Drop for Small<T> {
    fn drop(&mut self) {
        // Futures borrow the channel, so none can be linked now.
        let st = self.state.get_mut();
        debug_assert!(st.receivers.is_empty() && st.senders.is_empty());
    }
}
