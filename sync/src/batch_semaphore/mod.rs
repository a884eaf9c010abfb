//! The batch semaphore every lock in volt-sync is built on.
//!
//! # State
//!
//! * `permits`: available permits, shifted left by two, with the `CLOSED`
//!   flag in bit 0 and the `WAITERS` flag in bit 1. Lock-free `try_acquire`
//!   takes from it with a CAS; while `WAITERS` is clear a release gives back
//!   to it with a CAS, and `close` sets `CLOSED` with one, without the mutex.
//! * `waiters`: a mutex over an intrusive FIFO list of waiting `Acquire`
//!   futures (each future embeds its own list node: waiting allocates
//!   nothing) and the `closed` flag.
//! * the *fast slot* (`fast`, `fast_waker`): room for one waiter outside the
//!   list, which a release can serve with one CAS, without the mutex.
//!
//! # Invariants
//!
//! 1. **No floating permits.** While any waiter is queued (in the fast slot
//!    or the list), `WAITERS` is set and the count in `permits` is zero. A
//!    waiter queues only under the mutex, after draining the count and
//!    setting `WAITERS` in one CAS. While `WAITERS` is set nobody adds to
//!    the count: a release serves the waiters instead, and only a holder of
//!    the mutex that has seen both queues empty clears `WAITERS` (adding the
//!    surplus in the same CAS). So `try_acquire` (and the lock-free fast
//!    path of `acquire`) fail while anyone is queued: strict FIFO, including
//!    head-of-line blocking (a large request at the head is served, permit
//!    by permit, before a smaller one behind it). `WAITERS` may stay set for
//!    a while after the last waiter left (it is a "maybe"); the next release
//!    then takes the mutex once and clears it.
//! 2. **The fast slot holds the oldest waiter.** A waiter takes the slot
//!    only when the slot is empty *and* the list is empty (checked under the
//!    mutex); list waiters never move into the slot. Every release serves
//!    the slot first, then the list from its head.
//! 3. **Permits move by hand-off.** A release assigns permits to waiters
//!    (decrementing what they still need) and only the surplus, if nobody
//!    waits any more, goes back to `permits`.
//!
//! # The fast slot
//!
//! `fast` is one word: `EMPTY`, `DONE`, or `OCCUPIED | needed << 2`. The
//! number of permits the slot's waiter still needs lives in the semaphore,
//! not in the waiter, so a releaser never touches the waiter's memory (which
//! its future may free at any time): it CASes `needed` down, or to `DONE`
//! and then wakes `fast_waker`. Only the owner moves `DONE -> EMPTY` (when
//! it picks its permits up) or `OCCUPIED -> EMPTY` (when it is cancelled,
//! handing back what it had been given). The mutex is only needed to
//! *enter* the slot.
//!
//! # Cancellation
//!
//! Dropping a waiting `Acquire` removes its node (or empties the slot) and
//! releases the permits it had already been assigned, which go to the next
//! waiters in order. A waiter that was fully served and then dropped hands
//! all of its permits on the same way.
//!
//! Wakers are collected in a `WakeList` and woken after the mutex is
//! released; the fast slot's waker is woken without any lock held.

mod acquire;

#[cfg(all(test, loom))]
mod loom_tests;
#[cfg(all(test, not(loom)))]
mod tests;

pub(crate) use acquire::Acquire;

use crate::bridge::loom::sync::atomic::{AtomicUsize, Ordering::*};
use crate::bridge::loom::sync::{Mutex, MutexGuard};
use crate::bridge::{AtomicWaker, Gap, LinkedList, Spaced, WakeList};

use std::fmt;

/// The batch semaphore (see the module docs).
///
/// `#[repr(C)]`, for the gaps (`bridge::Spaced`): the permit word, CASed by
/// every acquire and release, shares no pair of cache lines with what
/// precedes the semaphore (an `Arc`'s counts, another allocation) or with
/// the waiters' fields, written as tasks queue and are served; and those
/// share none with what follows the semaphore (a lock's data). Without the
/// over-alignment of a cache-padded type, so that an `Arc` of a lock is a
/// plain allocation.
#[repr(C)]
pub(crate) struct Semaphore {
    _lead: Gap,
    permits: Spaced<AtomicUsize>,
    fast: AtomicUsize,
    fast_waker: AtomicWaker,
    waiters: Spaced<Mutex<Waitlist>>,
}

struct Waitlist {
    queue: LinkedList<acquire::WaiterLink>,
    /// Set by a close that found `WAITERS` (and by the closed
    /// constructors). A close that found it clear sets only `CLOSED`; nobody
    /// queues after that, and this flag is read only where a waiter is or
    /// was queued, so it is never stale where it is read.
    closed: bool,
}

/// Error returned from the [`Semaphore::try_acquire`] function.
///
/// [`Semaphore::try_acquire`]: crate::Semaphore::try_acquire
#[derive(Debug, PartialEq, Eq)]
pub enum TryAcquireError {
    /// The semaphore has been [closed] and cannot issue new permits.
    ///
    /// [closed]: crate::Semaphore::close
    Closed,

    /// The semaphore has no available permits.
    NoPermits,
}

/// Error returned from the [`Semaphore::acquire`] function.
///
/// An `acquire` operation can only fail if the semaphore has been
/// [closed].
///
/// [closed]: crate::Semaphore::close
/// [`Semaphore::acquire`]: crate::Semaphore::acquire
#[derive(Debug)]
pub struct AcquireError(());

/// `permits` bit 0: the semaphore is closed.
const CLOSED: usize = 0b01;
/// `permits` bit 1: waiters may be queued; releases must serve them.
const WAITERS: usize = 0b10;
const FLAGS: usize = CLOSED | WAITERS;
const PERMIT_SHIFT: usize = 2;

/// Fast slot: nobody there.
const FAST_EMPTY: usize = 0;
/// Fast slot: its waiter got every permit and has not picked them up yet.
const FAST_DONE: usize = 0b01;
/// Fast slot: a waiter is there; the permits it still needs are `>> 2`.
const FAST_OCCUPIED: usize = 0b10;
const FAST_SHIFT: usize = 2;

impl Semaphore {
    /// The most permits a semaphore can hold (as tokio).
    pub(crate) const MAX_PERMITS: usize = usize::MAX >> 3;

    #[track_caller]
    pub(crate) fn new(permits: usize) -> Self {
        assert!(
            permits <= Self::MAX_PERMITS,
            "a semaphore may not have more than MAX_PERMITS permits ({})",
            Self::MAX_PERMITS
        );
        Semaphore {
            _lead: Gap::new(),
            permits: Spaced::new(AtomicUsize::new(permits << PERMIT_SHIFT)),
            fast: AtomicUsize::new(FAST_EMPTY),
            fast_waker: AtomicWaker::new(),
            waiters: Spaced::new(Mutex::new(Waitlist {
                queue: LinkedList::new(),
                closed: false,
            })),
        }
    }

    /// `new`, usable in `const` and `static` items.
    #[cfg(not(loom))]
    #[track_caller]
    pub(crate) const fn const_new(permits: usize) -> Self {
        assert!(permits <= Self::MAX_PERMITS);
        Semaphore {
            _lead: Gap::new(),
            permits: Spaced::new(AtomicUsize::new(permits << PERMIT_SHIFT)),
            fast: AtomicUsize::new(FAST_EMPTY),
            fast_waker: AtomicWaker::new(),
            waiters: Spaced::new(Mutex::new(Waitlist {
                queue: LinkedList::new(),
                closed: false,
            })),
        }
    }

    /// A closed semaphore, usable in `const` items.
    #[cfg(not(loom))]
    pub(crate) const fn const_new_closed() -> Self {
        Semaphore {
            _lead: Gap::new(),
            permits: Spaced::new(AtomicUsize::new(CLOSED)),
            fast: AtomicUsize::new(FAST_EMPTY),
            fast_waker: AtomicWaker::new(),
            waiters: Spaced::new(Mutex::new(Waitlist {
                queue: LinkedList::new(),
                closed: true,
            })),
        }
    }

    /// A semaphore that is already closed.
    pub(crate) fn new_closed() -> Self {
        let sem = Semaphore::new(0);
        sem.close();
        sem
    }

    pub(crate) fn available_permits(&self) -> usize {
        self.permits.load(Acquire) >> PERMIT_SHIFT
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.permits.load(Acquire) & CLOSED == CLOSED
    }

    /// Whether waiters may be queued (`WAITERS`, a "maybe": invariant 1).
    #[inline]
    pub(crate) fn has_waiters(&self) -> bool {
        // SeqCst: a caller's half of a Dekker pair whose other side sets
        // `WAITERS` (queueing) and then fences (`sync::mpsc`'s credits).
        self.permits.load(SeqCst) & WAITERS != 0
    }

    /// Whether an acquire of `n` permits would take them at once rather
    /// than wait (or fail: closed), by the `permits` word `curr`.
    pub(super) fn free_for(curr: usize, n: usize) -> bool {
        curr & CLOSED == 0 && curr >> PERMIT_SHIFT >= n
    }

    /// Takes `num_permits` if they are available and nobody waits.
    #[inline]
    #[track_caller]
    pub(crate) fn try_acquire(&self, num_permits: usize) -> Result<(), TryAcquireError> {
        assert!(
            num_permits <= Self::MAX_PERMITS,
            "a semaphore may not have more than MAX_PERMITS permits ({})",
            Self::MAX_PERMITS
        );
        let needed = num_permits << PERMIT_SHIFT;
        let mut curr = self.permits.load(Acquire);
        loop {
            if curr & CLOSED == CLOSED {
                return Err(TryAcquireError::Closed);
            }
            // While anyone waits `permits` is zero (invariant 1), so this
            // also refuses to jump the queue.
            if curr < needed {
                return Err(TryAcquireError::NoPermits);
            }
            // AcqRel: acquiring permits synchronizes with their release.
            match self
                .permits
                .compare_exchange_weak(curr, curr - needed, AcqRel, Acquire)
            {
                Ok(_) => return Ok(()),
                Err(actual) => curr = actual,
            }
        }
    }

    /// A future that acquires `num_permits` in FIFO order.
    #[inline]
    #[track_caller]
    pub(crate) fn acquire(&self, num_permits: usize) -> Acquire<'_> {
        Acquire::new(self, num_permits)
    }

    /// Returns `added` permits: to the waiters first, in order, then to the
    /// counter.
    #[inline]
    #[track_caller]
    pub(crate) fn release(&self, added: usize) {
        if added == 0 {
            return;
        }
        // Nobody waits: straight back to the counter, without the mutex.
        // Relaxed: the CAS below re-reads the value it replaces.
        let mut curr = self.permits.load(Relaxed);
        while curr & WAITERS == 0 {
            let Some(next) = Self::add_to_count(curr, added) else {
                Self::overflow(added)
            };
            // Release: pairs with the Acquire of the CAS that takes these
            // permits. A waiter setting WAITERS concurrently makes this CAS
            // fail, and we serve it below.
            match self
                .permits
                .compare_exchange_weak(curr, next, Release, Relaxed)
            {
                Ok(_) => return,
                Err(actual) => curr = actual,
            }
        }
        self.release_to_waiters(added, curr & CLOSED != 0);
    }

    /// `release` when waiters may be queued.
    #[inline(never)]
    #[track_caller]
    fn release_to_waiters(&self, added: usize, closed: bool) {
        // The fast slot's waiter is the oldest: serve it without the lock.
        let rem = self.release_to_fast_slot(added, closed);
        if rem == 0 {
            return;
        }
        self.add_permits_locked(rem, self.waiters.lock());
    }

    /// `curr` with `added` more permits, or `None` past `MAX_PERMITS`.
    fn add_to_count(curr: usize, added: usize) -> Option<usize> {
        let avail = curr >> PERMIT_SHIFT;
        (added <= Self::MAX_PERMITS - avail).then(|| curr + (added << PERMIT_SHIFT))
    }

    /// tokio's panic for a release past `MAX_PERMITS`.
    #[track_caller]
    #[cold]
    fn overflow(added: usize) -> ! {
        panic!(
            "number of added permits ({}) would overflow MAX_PERMITS ({})",
            added,
            Self::MAX_PERMITS
        );
    }

    /// Serves the fast slot's waiter, if any; returns the permits left.
    /// `closed`: the caller saw `CLOSED` (a stale "open" only means the
    /// waiter is served and hands the permits back when it fails).
    fn release_to_fast_slot(&self, mut n: usize, closed: bool) -> usize {
        if closed {
            // Its waiter will fail: the permits stay available (as tokio's,
            // whose close empties the queue).
            return n;
        }
        // Acquire: see the slot as its owner published it.
        let mut curr = self.fast.load(Acquire);
        loop {
            if curr & FAST_OCCUPIED == 0 {
                // Empty, or served and not picked up yet.
                return n;
            }
            let needed = curr >> FAST_SHIFT;
            let (next, assigned) = if n >= needed {
                (FAST_DONE, needed)
            } else {
                (FAST_OCCUPIED | (needed - n) << FAST_SHIFT, n)
            };
            // AcqRel: Release hands our permits (and what we wrote before
            // releasing them) to the owner, who reads `fast` with Acquire.
            match self.fast.compare_exchange_weak(curr, next, AcqRel, Acquire) {
                Ok(_) => {
                    n -= assigned;
                    if next == FAST_DONE {
                        self.fast_waker.wake();
                    }
                    return n;
                }
                Err(actual) => curr = actual,
            }
        }
    }

    /// Hands `rem` permits out under the waiters lock: fast slot first, then
    /// the list in order, then the counter. Wakes after unlocking.
    #[track_caller]
    fn add_permits_locked(&self, mut rem: usize, waiters: MutexGuard<'_, Waitlist>) {
        let mut wakers = WakeList::new();
        let mut lock = Some(waiters);

        while rem > 0 {
            let mut waiters = lock.take().unwrap_or_else(|| self.waiters.lock());

            // A waiter may have entered the slot since our lock-free look;
            // under the lock no new one can (invariant 2).
            // `waiters.closed`, not the `permits` word: no extra miss on
            // that contended line inside the critical section.
            rem = self.release_to_fast_slot(rem, waiters.closed);

            let mut is_empty = false;
            while rem > 0 && wakers.can_push() {
                let Some(head) = waiters.queue.front() else {
                    is_empty = true;
                    break;
                };
                // SAFETY: a linked node is alive (its future unlinks it,
                // under this lock, before it goes away).
                let node = unsafe { head.as_ref() };
                let needed = node.needed_locked();
                if rem < needed {
                    // Head-of-line: it keeps what it got; nobody behind it
                    // is served first.
                    node.set_needed(needed - rem);
                    rem = 0;
                    break;
                }
                rem -= needed;
                // Fully served: unlink it and take its waker *before*
                // publishing `needed == 0`, after which its owner may free
                // the node without taking the lock.
                let waiter = waiters.queue.pop_front().expect("head exists");
                // SAFETY: we hold the lock and just unlinked the node; its
                // waker field is read only under this lock.
                if let Some(waker) = unsafe { waiter.as_ref().take_waker() } {
                    wakers.push(waker);
                }
                // Last touch of the node.
                node.set_needed(0);
            }

            if is_empty || waiters.queue.is_empty() {
                // Nobody waits (the slot cannot be refilled while we hold
                // the lock): clear WAITERS and return the surplus to the
                // counter in one CAS, still under the lock (invariant 1).
                // After a close the slot's waiter will fail: it is not
                // served (`release_to_fast_slot`) and does not hold the
                // surplus back either.
                if self.fast.load(Acquire) & FAST_OCCUPIED == 0 || waiters.closed {
                    if !self.return_surplus(rem) {
                        // Nothing changed; unlock and wake before panicking.
                        drop(waiters);
                        wakers.wake_all();
                        Self::overflow(rem);
                    }
                    rem = 0;
                }
            }

            drop(waiters);
            wakers.wake_all();
        }
    }

    /// Clears `WAITERS` and adds `rem` permits to the counter; `false` (and
    /// nothing changed) past `MAX_PERMITS`. Caller holds the lock and has
    /// seen both queues empty.
    fn return_surplus(&self, rem: usize) -> bool {
        // Relaxed: the CAS re-reads the value it replaces.
        let mut curr = self.permits.load(Relaxed);
        loop {
            let Some(next) = Self::add_to_count(curr & !WAITERS, rem) else {
                return false;
            };
            if next == curr {
                return true;
            }
            // Release: pairs with the Acquire of the CAS that takes these
            // permits.
            match self
                .permits
                .compare_exchange_weak(curr, next, Release, Relaxed)
            {
                Ok(_) => return true,
                Err(actual) => curr = actual,
            }
        }
    }

    /// Removes up to `n` available permits; returns how many.
    pub(crate) fn forget_permits(&self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        let mut curr_bits = self.permits.load(Acquire);
        loop {
            let curr = curr_bits >> PERMIT_SHIFT;
            let new = curr.saturating_sub(n);
            match self.permits.compare_exchange_weak(
                curr_bits,
                (new << PERMIT_SHIFT) | (curr_bits & FLAGS),
                AcqRel,
                Acquire,
            ) {
                Ok(_) => return curr.min(n),
                Err(actual) => curr_bits = actual,
            }
        }
    }

    /// Closes the semaphore: every waiting and future `acquire` fails.
    pub(crate) fn close(&self) {
        // Nobody queued: set `CLOSED` without the mutex. `WAITERS` clear in
        // the word this CAS replaces means nobody was queued (invariant 1),
        // and nobody queues after it: a queuer sets `WAITERS` with a CAS,
        // under the mutex, on a word it has just seen without `CLOSED`, so
        // it either comes first (and this CAS fails) or sees `CLOSED`
        // (`Waitlist::closed` stays false: see its docs).
        let mut curr = self.permits.load(Acquire);
        while curr & WAITERS == 0 {
            // AcqRel, as the word's other read-modify-writes; the Release
            // half is what matters: whoever sees CLOSED sees everything
            // before the close (a `OnceCell`'s value).
            match self
                .permits
                .compare_exchange_weak(curr, curr | CLOSED, AcqRel, Acquire)
            {
                Ok(_) => return,
                Err(actual) => curr = actual,
            }
        }
        self.close_queued();
    }

    /// `close` when waiters may be queued: under the mutex, waking them.
    #[inline(never)]
    fn close_queued(&self) {
        let mut waiters = self.waiters.lock();
        // Release: waiters that see CLOSED see everything before the close.
        let prev = self.permits.fetch_or(CLOSED, Release);
        waiters.closed = true;
        if prev & WAITERS == 0 {
            // Invariant 1: the last waiter left since `close` looked, and
            // whoever queues from now on does so under this mutex and sees
            // `CLOSED`. Nothing to wake.
            return;
        }

        let mut wakers = WakeList::new();
        loop {
            while wakers.can_push() {
                let Some(waiter) = waiters.queue.pop_front() else {
                    break;
                };
                // SAFETY: we hold the lock and just unlinked the node.
                if let Some(waker) = unsafe { waiter.as_ref().take_waker() } {
                    wakers.push(waker);
                }
            }
            let more = !wakers.can_push();
            drop(waiters);
            wakers.wake_all();
            if !more {
                break;
            }
            waiters = self.waiters.lock();
        }
        // The slot's waiter sees CLOSED when it is polled. Woken without
        // the lock, like the others: a waker may be user code that touches
        // this semaphore (it set CLOSED before, so a waiter registering
        // now sees it).
        self.fast_waker.wake();
    }
}

impl fmt::Debug for Semaphore {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("Semaphore")
            .field("permits", &self.available_permits())
            .finish()
    }
}

impl AcquireError {
    fn closed() -> AcquireError {
        AcquireError(())
    }
}

impl fmt::Display for AcquireError {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(fmt, "semaphore closed")
    }
}

impl std::error::Error for AcquireError {}

impl fmt::Display for TryAcquireError {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryAcquireError::Closed => write!(fmt, "semaphore closed"),
            TryAcquireError::NoPermits => write!(fmt, "no permits available"),
        }
    }
}

impl std::error::Error for TryAcquireError {}
