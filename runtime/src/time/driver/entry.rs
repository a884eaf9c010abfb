//! Timer entries: the intrusive node a `Sleep` owns, and its state.
//!
//! # Parts
//!
//! A [`TimerShared`] is embedded in every [`TimerEntry`] (and so in every
//! `Sleep`): it is the node the shard's wheel links, without allocating.
//! The entry is pinned inside its future, so its address is stable while
//! it is registered.
//!
//! # State
//!
//! `state` (an `AtomicU64`) is the only field read without a lock:
//!
//! | value                | meaning                                         |
//! |----------------------|-------------------------------------------------|
//! | `0..=MAX_TICK`       | filed in a shard's wheel, due at that tick      |
//! | `STATE_FIRED`        | fired: the deadline passed                      |
//! | `STATE_UNREGISTERED` | in no wheel, never fired (new, or reset)        |
//!
//! Transitions, and who makes them:
//!
//! * owner, under the shard lock: `UNREGISTERED`/`FIRED` -> `tick` (register
//!   or reset; or straight to `FIRED` when the tick has already passed);
//!   `tick` -> `UNREGISTERED` (cancel on drop or reset);
//! * driver, under the shard lock: `tick` -> `FIRED` (it then takes the
//!   waker out of `waker`, still under the lock, and wakes it after
//!   unlocking).
//!
//! So every change of `state` and every touch of the links and `position`
//! happens under the lock of the shard the entry is registered with, and
//! the owner never frees a registered entry without taking that lock first
//! (`TimerEntry::drop`): the driver cannot be inside an entry that is being
//! freed.
//!
//! The lock-free part is `poll`: the owner registers its waker in the
//! [`AtomicWaker`], then reads `state` (Acquire, pairing with the driver's
//! Release store of `FIRED`). The driver stores `FIRED` before taking the
//! waker; `AtomicWaker`'s protocol makes sure that either the driver takes
//! the new waker, or the registration sees the wake in progress and wakes
//! itself, so a fire racing a poll is never lost (loom model below).

use crate::loom::sync::atomic::{AtomicU64, Ordering};
use crate::util::atomic_waker::AtomicWaker;
use crate::util::linked_list::{self, LinkedList};

use std::cell::UnsafeCell;
use std::marker::PhantomPinned;

use std::task::Waker;

/// The largest tick an entry may be due at.
pub(crate) const MAX_TICK: u64 = u64::MAX - 2;
/// The entry fired.
pub(crate) const STATE_FIRED: u64 = u64::MAX;
/// The entry is in no wheel and has not fired.
pub(crate) const STATE_UNREGISTERED: u64 = u64::MAX - 1;

/// Which list of the wheel holds the entry (read and written under the
/// shard lock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Position {
    None,
    Slot { level: u8, slot: u8 },
    Pending,
}

impl Position {
    /// The entry keeps its position as one whole word, not as this
    /// three-byte enum: a `Sleep` is moved (into its task, into
    /// `black_box`) right after it is built, and a copy whose wide loads
    /// straddle the narrow stores of an odd-sized field stalls on store
    /// forwarding (the same reason as `WakerSlot`).
    const fn encode(self) -> u64 {
        match self {
            Position::None => 0,
            Position::Pending => 1,
            Position::Slot { level, slot } => 2 | (level as u64) << 8 | (slot as u64) << 16,
        }
    }

    fn decode(word: u64) -> Position {
        match word {
            0 => Position::None,
            1 => Position::Pending,
            _ => Position::Slot {
                level: (word >> 8) as u8,
                slot: (word >> 16) as u8,
            },
        }
    }
}

/// The part of a timer the driver sees (see the module docs).
pub(crate) struct TimerShared {
    /// Links of the wheel list holding the entry; shard lock.
    pointers: linked_list::Pointers<TimerShared>,
    /// Which list (`Position::encode`); shard lock.
    position: UnsafeCell<u64>,
    /// The tick the entry is filed at; shard lock.
    when: UnsafeCell<u64>,
    /// See the module docs.
    state: AtomicU64,
    /// The owner's waker.
    waker: AtomicWaker,
    _pin: PhantomPinned,
}

// SAFETY: the cells are only touched under the owning shard's lock, the
// rest is atomic (module docs).
unsafe impl Send for TimerShared {}
// SAFETY: as above.
unsafe impl Sync for TimerShared {}

impl TimerShared {
    pub(crate) fn new() -> TimerShared {
        TimerShared {
            pointers: linked_list::Pointers::new(),
            position: UnsafeCell::new(Position::None.encode()),
            when: UnsafeCell::new(0),
            state: AtomicU64::new(STATE_UNREGISTERED),
            waker: AtomicWaker::new(),
            _pin: PhantomPinned,
        }
    }

    /// The current state (Acquire: a `FIRED` seen here comes after the
    /// driver's processing of the entry).
    pub(crate) fn state(&self) -> u64 {
        self.state.load(Ordering::Acquire)
    }

    /// Sets the state. Callers hold the shard lock (module docs); Release
    /// publishes `FIRED` to a lock-free `poll`.
    pub(crate) fn set_state(&self, state: u64) {
        self.state.store(state, Ordering::Release);
    }

    /// Whether the entry is filed in a wheel (only stable under the lock).
    pub(crate) fn is_filed(&self) -> bool {
        self.state() <= MAX_TICK
    }

    /// Registers the owner's waker (one registrant at a time: the owner).
    pub(crate) fn register_waker(&self, waker: &Waker) {
        self.waker.register_by_ref(waker);
    }

    /// Takes the waker out to wake it (driver, after storing `FIRED`).
    pub(crate) fn take_waker(&self) -> Option<Waker> {
        self.waker.take()
    }

    /// # Safety
    /// The caller holds the lock of the shard the entry is registered with.
    pub(crate) unsafe fn position(&self) -> Position {
        // SAFETY: the lock serializes every access (caller).
        Position::decode(unsafe { *self.position.get() })
    }

    /// # Safety
    /// As [`position`](Self::position).
    pub(crate) unsafe fn set_position(&self, pos: Position) {
        // SAFETY: as above.
        unsafe { *self.position.get() = pos.encode() }
    }

    /// # Safety
    /// As [`position`](Self::position).
    pub(crate) unsafe fn cached_when(&self) -> u64 {
        // SAFETY: as above.
        unsafe { *self.when.get() }
    }

    /// # Safety
    /// As [`position`](Self::position).
    pub(crate) unsafe fn set_cached_when(&self, when: u64) {
        // SAFETY: as above.
        unsafe { *self.when.get() = when }
    }
}

/// The wheels' list type.
pub(crate) type EntryList = LinkedList<TimerLink>;

// How wheel lists reach an entry's links.
// The list's promise (`__pinned_node_link!`): `pointers` returns the entry's
// own links, used only by the list of the wheel it is filed in; entries are
// pinned while filed.
crate::__pinned_node_link!(pub(crate) TimerLink => TimerShared, pointers);

impl std::fmt::Debug for TimerShared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TimerShared")
            .field("state", &self.state())
            .finish()
    }
}
