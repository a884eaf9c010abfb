//! Per-resource readiness, and the tasks waiting on it.
//!
//! # The readiness word
//!
//! `readiness` packs `Ready` bits (low 16), the driver tick at which they
//! were last set (next 8 bits) and a `SHUTDOWN` bit. The driver ORs in the
//! readiness an event reports and stamps its tick; a task that got
//! `WouldBlock` clears the bits it saw, but only if the tick is still the
//! one it read (`clear_readiness`): an event delivered in between carries
//! a new tick, so a stale clear never erases a newer readiness report.
//!
//! # Waiters
//!
//! Readers and writers are separate: a task waiting to write is never woken
//! by readability. Two kinds of waiters live under one small mutex:
//!
//! * one waker slot per direction, for `poll_read_ready`/`poll_write_ready`
//!   (tokio's contract: one task per direction, the last one wins);
//! * an intrusive list of [`Readiness`] futures (`ready()`, `readable()`,
//!   `writable()`), any number of them, each a node pinned inside its
//!   future: waiting allocates nothing, and a dropped future unlinks
//!   itself under the lock.
//!
//! A waiter is stored, then the readiness re-checked, under the lock; the
//! driver sets readiness before it takes wakers under the same lock, so a
//! wake cannot slip between check and store.

use crate::io::{Interest, Ready};
use crate::loom::sync::Mutex;
use crate::loom::sync::atomic::{AtomicUsize, Ordering::AcqRel, Ordering::Acquire};
use crate::util::linked_list::{self, LinkedList};
use crate::util::wake_list::WakeList;

use std::cell::UnsafeCell;
use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{Context, Poll, Waker};

const READINESS_MASK: usize = 0xFFFF;
const TICK_SHIFT: u32 = 16;
const TICK_MASK: usize = 0xFF << TICK_SHIFT;
const SHUTDOWN: usize = 1 << 24;

/// Which way a task waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    Read,
    Write,
}

impl Direction {
    pub(crate) fn mask(self) -> Ready {
        match self {
            Direction::Read => Ready::READABLE | Ready::READ_CLOSED | Ready::ERROR,
            Direction::Write => Ready::WRITABLE | Ready::WRITE_CLOSED | Ready::ERROR,
        }
    }
}

/// The readiness a task observed, with the tick it was observed at.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadyEvent {
    pub(crate) tick: u8,
    pub(crate) ready: Ready,
    pub(crate) is_shutdown: bool,
}

#[derive(Default)]
struct Waiters {
    reader: Option<Waker>,
    writer: Option<Waker>,
    /// `Readiness` futures waiting (see the module docs).
    list: LinkedList<WaiterLink>,
}

impl std::fmt::Debug for Waiters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Waiters").finish_non_exhaustive()
    }
}

/// A `Readiness` future's node; every field is touched under the
/// `waiters` lock only.
struct Waiter {
    pointers: linked_list::Pointers<Waiter>,
    waker: UnsafeCell<Option<Waker>>,
    interest: Interest,
    /// Set by `wake` when it unlinks the node.
    is_ready: UnsafeCell<bool>,
    _pin: PhantomPinned,
}

// The list's promise (`__pinned_node_link!`): `pointers` returns the node's
// own links; nodes are pinned inside their futures and unlinked (under the
// lock) before they are dropped.
crate::__pinned_node_link!(WaiterLink => Waiter, pointers);

/// One registered I/O resource's readiness (see the module docs).
#[derive(Debug)]
pub(crate) struct ScheduledIo {
    /// The mio token (slab key and generation); immutable.
    token: usize,
    readiness: AtomicUsize,
    waiters: Mutex<Waiters>,
}

impl ScheduledIo {
    pub(crate) fn new(token: usize) -> ScheduledIo {
        ScheduledIo {
            token,
            readiness: AtomicUsize::new(0),
            waiters: Mutex::new(Waiters::default()),
        }
    }

    pub(crate) fn token(&self) -> usize {
        self.token
    }

    /// Driver: ORs in `ready`, stamped with `tick`.
    pub(crate) fn set_readiness(&self, tick: u8, ready: Ready) {
        // AcqRel: Release publishes the readiness to the task that reads it
        // (Acquire) before doing I/O; Acquire orders after earlier clears.
        let _ = self.readiness.fetch_update(AcqRel, Acquire, |curr| {
            let bits = (curr & READINESS_MASK) | ready.as_usize();
            Some((curr & SHUTDOWN) | (usize::from(tick) << TICK_SHIFT) | bits)
        });
    }

    /// Marks the resource ready for `ready` without an event from the
    /// driver (a socket whose state is known when it is made). A false
    /// guess costs one `WouldBlock`, which clears it as usual. The tick is
    /// left alone; nothing changes after shutdown.
    pub(crate) fn assume_ready(&self, ready: Ready) {
        // AcqRel/Acquire as `set_readiness`: the bits are published to the
        // task that reads them.
        let _ = self.readiness.fetch_update(AcqRel, Acquire, |curr| {
            (curr & SHUTDOWN == 0).then_some(curr | ready.as_usize())
        });
    }

    /// Task: clears what `event` reported, unless newer readiness arrived.
    pub(crate) fn clear_readiness(&self, event: ReadyEvent) {
        // Closed states are final: never cleared.
        let clear = event.ready - Ready::READ_CLOSED - Ready::WRITE_CLOSED;
        let _ = self.readiness.fetch_update(AcqRel, Acquire, |curr| {
            if ((curr & TICK_MASK) >> TICK_SHIFT) as u8 != event.tick {
                // A newer event: keep it.
                return None;
            }
            Some(curr & !clear.as_usize())
        });
    }

    /// Marks the resource shut down (driver gone) and wakes both sides.
    pub(crate) fn shutdown(&self) {
        self.readiness.fetch_or(SHUTDOWN, AcqRel);
        self.wake(Ready::ALL);
    }

    /// Wakes the waiters interested in `ready`.
    pub(crate) fn wake(&self, ready: Ready) {
        let mut wakes = WakeList::new();
        let mut waiters = self.waiters.lock();
        if !(ready & Direction::Read.mask()).is_empty() {
            if let Some(w) = waiters.reader.take() {
                wakes.push(w);
            }
        }
        if !(ready & Direction::Write.mask()).is_empty() {
            if let Some(w) = waiters.writer.take() {
                wakes.push(w);
            }
        }
        'list: loop {
            // Walk the list, unlinking the waiters `ready` concerns.
            let mut cursor = waiters.list.front();
            while let Some(node) = cursor {
                // SAFETY: `node` is linked in this list, so live; we hold
                // the lock that guards its fields.
                let (next, waiter) = unsafe { (waiters.list.next(node), node.as_ref()) };
                cursor = next;
                if (ready & waiter.interest.mask()).is_empty() {
                    continue;
                }
                // SAFETY: linked in this list.
                unsafe { waiters.list.remove(node) };
                // SAFETY: the lock guards the node's cells.
                let waker = unsafe {
                    *waiter.is_ready.get() = true;
                    (*waiter.waker.get()).take()
                };
                if let Some(w) = waker {
                    wakes.push(w);
                    if !wakes.can_push() {
                        // Wake a batch outside the lock, then go on.
                        drop(waiters);
                        wakes.wake_all();
                        waiters = self.waiters.lock();
                        continue 'list;
                    }
                }
            }
            break;
        }
        drop(waiters);
        wakes.wake_all();
    }

    fn event(&self, curr: usize, mask: Ready) -> ReadyEvent {
        ReadyEvent {
            tick: ((curr & TICK_MASK) >> TICK_SHIFT) as u8,
            ready: Ready::from_usize(curr & READINESS_MASK) & mask,
            is_shutdown: curr & SHUTDOWN != 0,
        }
    }

    /// The current readiness for `interest`, without waiting.
    pub(crate) fn ready_event(&self, interest: Interest) -> ReadyEvent {
        let curr = self.readiness.load(Acquire);
        self.event(curr, interest.mask())
    }

    /// Ready when the resource is ready for `direction` (or shut down);
    /// otherwise stores the task's waker for that direction.
    pub(crate) fn poll_readiness(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<ReadyEvent> {
        let mask = direction.mask();
        let curr = self.readiness.load(Acquire);
        let ev = self.event(curr, mask);
        if !ev.ready.is_empty() || ev.is_shutdown {
            return Poll::Ready(ev);
        }
        let mut waiters = self.waiters.lock();
        let slot = match direction {
            Direction::Read => &mut waiters.reader,
            Direction::Write => &mut waiters.writer,
        };
        match slot {
            Some(w) if w.will_wake(cx.waker()) => {}
            _ => *slot = Some(cx.waker().clone()),
        }
        // Re-check under the lock: the driver sets readiness before it takes
        // wakers under this lock, so either we see it now or it sees us.
        let curr = self.readiness.load(Acquire);
        let ev = self.event(curr, mask);
        if !ev.ready.is_empty() || ev.is_shutdown {
            Poll::Ready(ev)
        } else {
            Poll::Pending
        }
    }

    /// Drops stored wakers (the resource is being deregistered).
    pub(crate) fn clear_wakers(&self) {
        let mut waiters = self.waiters.lock();
        waiters.reader.take();
        waiters.writer.take();
    }

    /// A future that is ready when the resource is ready for any of
    /// `interest` (any number may wait at once).
    pub(crate) fn readiness(&self, interest: Interest) -> Readiness<'_> {
        Readiness {
            io: self,
            state: State::Init,
            waiter: Waiter {
                pointers: linked_list::Pointers::new(),
                waker: UnsafeCell::new(None),
                interest,
                is_ready: UnsafeCell::new(false),
                _pin: PhantomPinned,
            },
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Init,
    Waiting,
    Done,
}

/// See [`ScheduledIo::readiness`].
pub(crate) struct Readiness<'a> {
    io: &'a ScheduledIo,
    state: State,
    waiter: Waiter,
}

// SAFETY: the waiter's cells are only touched under the resource's lock;
// `Waker` is `Send + Sync`.
unsafe impl Send for Readiness<'_> {}
// SAFETY: as above.
unsafe impl Sync for Readiness<'_> {}

impl Future for Readiness<'_> {
    type Output = ReadyEvent;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ReadyEvent> {
        // SAFETY: the waiter is never moved out; it is unlinked before the
        // future is dropped (see `Drop`).
        let me = unsafe { self.get_unchecked_mut() };
        let io = me.io;
        let mask = me.waiter.interest.mask();
        loop {
            match me.state {
                State::Init => {
                    let ev = io.event(io.readiness.load(Acquire), mask);
                    if !ev.ready.is_empty() || ev.is_shutdown {
                        me.state = State::Done;
                        return Poll::Ready(ev);
                    }
                    let mut waiters = io.waiters.lock();
                    // Re-check under the lock (module docs).
                    let ev = io.event(io.readiness.load(Acquire), mask);
                    if !ev.ready.is_empty() || ev.is_shutdown {
                        me.state = State::Done;
                        return Poll::Ready(ev);
                    }
                    // SAFETY: lock held; the node is ours and unlinked.
                    unsafe {
                        *me.waiter.waker.get() = Some(cx.waker().clone());
                        *me.waiter.is_ready.get() = false;
                    }
                    waiters.list.push_back(NonNull::from(&me.waiter));
                    me.state = State::Waiting;
                    return Poll::Pending;
                }
                State::Waiting => {
                    let waiters = io.waiters.lock();
                    // SAFETY: lock held.
                    let is_ready = unsafe { *me.waiter.is_ready.get() };
                    if !is_ready {
                        // Still linked: refresh the waker if it changed.
                        // SAFETY: lock held.
                        let slot = unsafe { &mut *me.waiter.waker.get() };
                        match slot {
                            Some(w) if w.will_wake(cx.waker()) => {}
                            _ => *slot = Some(cx.waker().clone()),
                        }
                        return Poll::Pending;
                    }
                    drop(waiters);
                    // Woken and unlinked: report, or (if another task
                    // consumed the readiness meanwhile) wait again.
                    me.state = State::Init;
                }
                State::Done => panic!("`Readiness` polled after completion"),
            }
        }
    }
}

impl Drop for Readiness<'_> {
    fn drop(&mut self) {
        if self.state == State::Waiting {
            let mut waiters = self.io.waiters.lock();
            // SAFETY: lock held; the node is linked in this list or (woken)
            // in none.
            unsafe { waiters.list.remove(NonNull::from(&self.waiter)) };
        }
    }
}
