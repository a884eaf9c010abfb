//! The time driver: per-worker timer wheels, and the protocol that lets a
//! parked worker sleep exactly until the next timer.
//!
//! # Shards
//!
//! The driver owns one [`Wheel`] per worker (one in total on the
//! current-thread runtime), each behind its own mutex: a `Sleep` first
//! polled on worker `i` is filed in shard `i`, so workers registering
//! timers do not contend on one lock (tokio's single wheel lock is a known
//! bottleneck on many cores). A `Sleep` polled on a thread that is not a
//! worker picks a shard at random. The entry remembers its shard; a reset or
//! a drop from any thread locks that shard, so entries may move between
//! threads freely.
//!
//! Firing: whichever worker parks on the driver processes every shard whose
//! earliest deadline (`Shard::next_expiration`, an atomic hint, never later
//! than the truth) has passed. Busy workers also process on their regular
//! maintenance tick: all shards if the driver is free, their own otherwise.
//! Wake-ups are collected under a shard's lock and performed after releasing
//! it, 32 at a time.
//!
//! # Sleeping until the next timer (`next_wake`)
//!
//! A parking worker computes the earliest `next_expiration` over the shards,
//! publishes it in `next_wake`, then reads the shards again; it sleeps until
//! that deadline. A task filing an entry updates its shard's
//! `next_expiration` (under the shard lock), then reads `next_wake`; if its
//! deadline is earlier it unparks the driver. Both sides store, then load
//! the other's location with a `fence(SeqCst)` between: either the parker's second read sees
//! the new entry, or the filer sees the parker's `next_wake` and unparks it
//! (the unpark token makes a park that has not started yet return at once).
//! `next_wake` is 0 while no one sleeps in the driver, so timers created by
//! running tasks cost no unpark.

mod entry;
mod source;
mod wheel;

#[cfg(all(test, loom))]
mod loom_tests;
#[cfg(all(test, not(loom)))]
mod tests;

pub(crate) use entry::{STATE_FIRED, TimerShared};
pub(crate) use source::TimeSource;

use crate::loom::sync::Mutex;
use crate::loom::sync::atomic::{
    AtomicBool, AtomicU64,
    Ordering::{Relaxed, SeqCst},
    fence,
};
use crate::util::wake_list::WakeList;
use entry::STATE_UNREGISTERED;
use wheel::Wheel;

use std::fmt;
use std::ptr::NonNull;

/// The time half of a runtime's driver handle.
pub(crate) struct Handle {
    source: TimeSource,
    shards: Box<[Shard]>,
    /// The tick the driver's parker sleeps until, or 0 (module docs).
    next_wake: AtomicU64,
    /// The latest `now` any processing was asked for: a deadline at or
    /// before it has passed, so `file` fires it at once, as tokio fires an
    /// entry whose tick its wheel has processed. The shards' own `elapsed`
    /// can lag (a shard with nothing due is skipped), hence this
    /// driver-wide copy. Only grows; Relaxed everywhere, since a stale
    /// (smaller) value only files an entry that the next processing fires.
    processed: AtomicU64,
    is_shutdown: AtomicBool,
    /// `Builder::enable_alt_timer` (`runtime/switches.rs`): an entry the
    /// shutdown fired polls as elapsed instead of panicking, as tokio's
    /// alternative timer does.
    pub(crate) fired_by_shutdown_elapses: bool,
    /// Set when something unparks the driver: a paused clock must not jump
    /// ahead while a task was woken.
    #[cfg(feature = "test-util")]
    did_wake: AtomicBool,
}

struct Shard {
    wheel: Mutex<Wheel>,
    /// A lower bound of the shard's earliest deadline (`u64::MAX`: none).
    /// Written under the lock; read without it.
    next_expiration: AtomicU64,
}

/// Outcome of filing an entry.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Filed {
    /// In the wheel; nothing else to do.
    Queued,
    /// In the wheel, earlier than the parked driver's wake-up: unpark it.
    QueuedUnpark,
    /// The deadline had passed: the entry is `FIRED` already.
    Fired,
}

impl Handle {
    pub(crate) fn new(shards: usize, source: TimeSource) -> Handle {
        Handle {
            source,
            shards: (0..shards.max(1))
                .map(|_| Shard {
                    wheel: Mutex::new(Wheel::new()),
                    next_expiration: AtomicU64::new(u64::MAX),
                })
                .collect(),
            next_wake: AtomicU64::new(0),
            processed: AtomicU64::new(0),
            is_shutdown: AtomicBool::new(false),
            fired_by_shutdown_elapses: false,
            #[cfg(feature = "test-util")]
            did_wake: AtomicBool::new(false),
        }
    }

    pub(crate) fn source(&self) -> &TimeSource {
        &self.source
    }

    pub(crate) fn num_shards(&self) -> usize {
        self.shards.len()
    }

    pub(crate) fn is_shutdown(&self) -> bool {
        self.is_shutdown.load(SeqCst)
    }

    /// Files `entry` in `shard` to fire at `tick`, taking it out of the
    /// wheel first if it was filed. A tick the driver has already
    /// processed (`processed`) fires at once; a tick between that and the
    /// real "now" is filed and fires on the next processing, which is never
    /// later than the next park or maintenance tick (no clock read on this
    /// path).
    ///
    /// # Safety
    ///
    /// `entry` is pinned and stays live until it is cancelled under the same
    /// shard's lock; it is registered with no other shard.
    pub(crate) unsafe fn file(
        &self,
        shard: usize,
        entry: NonNull<TimerShared>,
        tick: u64,
    ) -> Filed {
        let shard = &self.shards[shard];
        let mut wheel = shard.wheel.lock();
        // SAFETY: live (caller's contract).
        let e = unsafe { entry.as_ref() };
        if e.is_filed() {
            // SAFETY: filed in this shard's wheel (caller's contract).
            unsafe { wheel.remove(entry) };
        }
        // Relaxed would do (the lock orders it); `shutdown` sets the flag
        // before draining this shard under the same lock.
        if self.is_shutdown.load(SeqCst) || tick <= self.processed.load(Relaxed) {
            e.set_state(STATE_FIRED);
            return Filed::Fired;
        }
        // SAFETY: live, pinned, unlinked, ours under the lock.
        match unsafe { wheel.insert(entry, tick) } {
            Ok(()) => {
                e.set_state(tick);
                if tick >= shard.next_expiration.load(SeqCst) {
                    // Not the shard's earliest: whoever sleeps until the
                    // shard's earliest deadline (or the filer that set it,
                    // who unparked the driver if needed) wakes no later
                    // than that, and then sees this entry too.
                    return Filed::Queued;
                }
                // First half of the `next_wake` handshake.
                shard.next_expiration.store(tick, SeqCst);
                drop(wheel);
                // Second half (module docs): a full fence between the
                // store above and this load, paired with the one in
                // `prepare_park` (SeqCst accesses alone are not enough
                // under loom's model).
                fence(SeqCst);
                if tick < self.next_wake.load(SeqCst) {
                    Filed::QueuedUnpark
                } else {
                    Filed::Queued
                }
            }
            Err(wheel::AlreadyElapsed) => {
                e.set_state(STATE_FIRED);
                Filed::Fired
            }
        }
    }

    /// Takes `entry` out of `shard`'s wheel if it is there.
    ///
    /// # Safety
    ///
    /// `entry` is live and registered with `shard` (or with none).
    pub(crate) unsafe fn cancel(&self, shard: usize, entry: NonNull<TimerShared>) {
        let mut wheel = self.shards[shard].wheel.lock();
        // SAFETY: live (caller).
        let e = unsafe { entry.as_ref() };
        if e.is_filed() {
            // SAFETY: filed in this shard (caller).
            unsafe { wheel.remove(entry) };
            e.set_state(STATE_UNREGISTERED);
        }
    }

    /// Fires every due entry of every shard.
    pub(crate) fn process(&self, now: u64) {
        self.processed.fetch_max(now, Relaxed);
        for i in 0..self.shards.len() {
            self.fire_due(i, now);
        }
    }

    /// Fires the due entries of one shard.
    pub(crate) fn process_shard(&self, index: usize, now: u64) {
        self.processed.fetch_max(now, Relaxed);
        self.fire_due(index, now);
    }

    fn fire_due(&self, index: usize, now: u64) {
        let shard = &self.shards[index];
        if shard.next_expiration.load(SeqCst) > now {
            return;
        }
        fire_until(shard, now);
    }

    /// The earliest tick any shard may fire at, published in `next_wake`
    /// before the caller sleeps (module docs). `None`: no timer at all.
    pub(crate) fn prepare_park(&self) -> Option<u64> {
        let earliest = || {
            self.shards
                .iter()
                .map(|s| s.next_expiration.load(SeqCst))
                .min()
                .unwrap_or(u64::MAX)
        };
        let mut when = earliest();
        loop {
            // 0 is "nobody sleeps": a deadline of tick 0 is due anyway.
            self.next_wake.store(when.max(1), SeqCst);
            // Store-fence-load, paired with the fence in `file`.
            fence(SeqCst);
            let again = earliest();
            if again >= when {
                break;
            }
            when = again;
        }
        (when != u64::MAX).then_some(when)
    }

    /// The parker is awake again: timers filed now need no unpark.
    pub(crate) fn after_park(&self) {
        self.next_wake.store(0, SeqCst);
    }

    /// Fires every entry and refuses new ones. Returns `false` if it was
    /// shut down already.
    pub(crate) fn shutdown(&self) -> bool {
        if self.is_shutdown.swap(true, SeqCst) {
            return false;
        }
        for shard in self.shards.iter() {
            // Everything, due or not: the entries report the shutdown.
            fire_until(shard, u64::MAX);
        }
        true
    }

    /// Records that the driver was unparked (test-util auto-advance).
    #[cfg(feature = "test-util")]
    pub(crate) fn note_unpark(&self) {
        self.did_wake.store(true, SeqCst);
    }

    /// Whether the driver was unparked since the last call.
    #[cfg(feature = "test-util")]
    pub(crate) fn take_did_wake(&self) -> bool {
        self.did_wake.swap(false, SeqCst)
    }
}

/// Fires every entry of `shard` due at or before `now`: marks it `FIRED`
/// and takes its waker under the lock, and wakes outside it, 32 at a time
/// (the rest stays filed, and cancellable, meanwhile). Then publishes the
/// shard's next expiration.
fn fire_until(shard: &Shard, now: u64) {
    let mut wakes = WakeList::new();
    let mut wheel = shard.wheel.lock();
    while let Some(entry) = wheel.poll(now) {
        // SAFETY: a filed entry is live until its owner cancels it under
        // this lock, which we hold.
        let e = unsafe { entry.as_ref() };
        // Release (in `set_state`): the owner's `poll` sees `FIRED`.
        e.set_state(STATE_FIRED);
        if let Some(waker) = e.take_waker() {
            wakes.push(waker);
            if !wakes.can_push() {
                drop(wheel);
                wakes.wake_all();
                wheel = shard.wheel.lock();
            }
        }
    }
    shard
        .next_expiration
        .store(wheel.next_expiration_time().unwrap_or(u64::MAX), SeqCst);
    drop(wheel);
    wakes.wake_all();
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("time::Handle")
            .field("shards", &self.shards.len())
            .finish()
    }
}
