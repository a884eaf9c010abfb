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
//! by readability. Each direction keeps one waker (the `poll_read_ready`/
//! `poll_write_ready` contract, as tokio's: one task per direction), under
//! a small mutex; the waker is stored, then the readiness re-checked under
//! the lock, and the driver takes wakers under the same lock after setting
//! readiness, so a wake cannot slip between check and store.

use crate::io::{Interest, Ready};
use crate::loom::sync::Mutex;
use crate::loom::sync::atomic::{AtomicUsize, Ordering::AcqRel, Ordering::Acquire};

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

#[derive(Debug, Default)]
struct Waiters {
    reader: Option<Waker>,
    writer: Option<Waker>,
}

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
        let (r, w) = {
            let mut waiters = self.waiters.lock();
            let r = if !(ready & Direction::Read.mask()).is_empty() {
                waiters.reader.take()
            } else {
                None
            };
            let w = if !(ready & Direction::Write.mask()).is_empty() {
                waiters.writer.take()
            } else {
                None
            };
            (r, w)
        };
        if let Some(r) = r {
            r.wake();
        }
        if let Some(w) = w {
            w.wake();
        }
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
}
