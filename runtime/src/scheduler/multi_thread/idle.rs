//! Which workers are searching for work and which are asleep, so that new
//! work wakes exactly one sleeper and no wake-up is lost.
//!
//! # State
//!
//! One atomic word packs `num_searching` (low 16 bits) and `num_unparked`
//! (the rest). A mutex-protected list holds the indices of sleeping workers.
//!
//! * A worker that runs out of local work may become *searching* (stealing)
//!   if fewer than half the workers already search.
//! * New work (a spawn, a wake, a steal that found plenty) wakes a sleeper
//!   only if nobody is searching (`num_searching == 0`) and someone sleeps:
//!   a searcher will find the work anyway. The woken worker starts out
//!   searching.
//! * When the last searcher stops searching because it found work, it
//!   wakes a sleeper (there may be more).
//! * A worker that parks while nobody searches any more re-checks all
//!   queues after it counts as parked, and wakes a sleeper (often itself)
//!   if work is left. That is the last searcher parking, and also a worker
//!   that was refused searching (others searched then) whose searchers all
//!   stopped before it counted as parked: their wake-ups, sent while it
//!   still counted as unparked, woke nobody.
//!
//! # Why no wake-up is lost
//!
//! This is a store-buffering (Dekker) pattern. The pusher does `push;
//! fence(SeqCst); load(state)`; the parker does `fetch_sub(SeqCst)` (leave
//! searching and the unparked count), `fence(SeqCst)`, then, if nobody
//! searches, checks the queues. The two fences are ordered in the single
//! SeqCst order: if the pusher's fence comes first, the parker's check sees
//! the pushed task; if the parker's comes first, the pusher's load sees the
//! decrement and wakes a sleeper, unless somebody searches, and then that
//! searcher is the one to find the task or to park and re-check. The
//! sleeper list lock orders parking against notification.
//!
//! The pusher reads the state with a load after a fence rather than with a
//! read-modify-write: every push of every busy worker checks the state, and
//! a load keeps the line shared between cores where an RMW would bounce it.

use crate::loom::sync::Mutex;
use crate::loom::sync::atomic::{AtomicUsize, Ordering::*, fence};

pub(crate) struct Idle {
    /// Packed `num_searching | num_unparked << UNPARK_SHIFT`.
    state: AtomicUsize,
    /// Indices of parked workers.
    sleepers: Mutex<Vec<usize>>,
    num_workers: usize,
}

const UNPARK_SHIFT: usize = 16;
const UNPARK_MASK: usize = !SEARCH_MASK;
const SEARCH_MASK: usize = (1 << UNPARK_SHIFT) - 1;

#[derive(Copy, Clone)]
struct State(usize);

impl Idle {
    pub(crate) fn new(num_workers: usize) -> Idle {
        Idle {
            // Every worker starts unparked and not searching.
            state: AtomicUsize::new(num_workers << UNPARK_SHIFT),
            sleepers: Mutex::new(Vec::with_capacity(num_workers)),
            num_workers,
        }
    }

    /// If a sleeper should be woken for new work, picks it (and counts it
    /// as unparked and searching). The caller unparks it.
    pub(crate) fn worker_to_notify(&self) -> Option<usize> {
        if !self.notify_should_wakeup() {
            return None;
        }
        let mut sleepers = self.sleepers.lock();
        // Check again under the lock: someone else may have woken a worker.
        if !self.notify_should_wakeup() {
            return None;
        }
        // Counted as searching before it runs, so that concurrent pushers
        // don't wake another one.
        self.unpark_one(1);
        let ret = sleepers.pop();
        debug_assert!(ret.is_some());
        ret
    }

    /// A worker parks. Returns `true` if nobody searches any more (then it
    /// must check for work that arrived meanwhile: module docs).
    pub(crate) fn transition_worker_to_parked(&self, worker: usize, is_searching: bool) -> bool {
        let mut sleepers = self.sleepers.lock();
        let nobody_searches = self.dec_num_unparked(is_searching);
        sleepers.push(worker);
        drop(sleepers);
        // Pairs with the pusher's fence (module docs): the caller's re-check
        // of the queues comes after it.
        fence(SeqCst);
        nobody_searches
    }

    /// Whether a worker may start searching (at most half of them do).
    pub(crate) fn transition_worker_to_searching(&self) -> bool {
        let state = State(self.state.load(SeqCst));
        if 2 * state.num_searching() >= self.num_workers {
            return false;
        }
        // Racy: more than half may end up searching; that only costs a
        // little contention.
        self.state.fetch_add(1, SeqCst);
        true
    }

    /// A worker stops searching. Returns `true` if it was the last searcher
    /// (then it must wake a sleeper in case there is more work).
    pub(crate) fn transition_worker_from_searching(&self) -> bool {
        let prev = State(self.state.fetch_sub(1, SeqCst));
        debug_assert!(prev.num_searching() > 0);
        prev.num_searching() == 1
    }

    /// A worker woke up on its own (driver events, timeout): takes it out of
    /// the sleeper list if it is still there. Returns `true` if it was there
    /// (nobody notified it, so it is not counted as searching).
    pub(crate) fn unpark_worker_by_id(&self, worker_id: usize) -> bool {
        let mut sleepers = self.sleepers.lock();
        for index in 0..sleepers.len() {
            if sleepers[index] == worker_id {
                sleepers.swap_remove(index);
                self.unpark_one(0);
                return true;
            }
        }
        false
    }

    /// Whether the worker is still in the sleeper list (its wake-up was
    /// spurious).
    pub(crate) fn is_parked(&self, worker_id: usize) -> bool {
        let sleepers = self.sleepers.lock();
        sleepers.contains(&worker_id)
    }

    /// Number of workers searching right now (approximate).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn num_searching(&self) -> usize {
        State(self.state.load(SeqCst)).num_searching()
    }

    fn notify_should_wakeup(&self) -> bool {
        // The fence orders the caller's push before this load, against the
        // parker's decrement and fence (module docs).
        fence(SeqCst);
        let state = State(self.state.load(SeqCst));
        state.num_searching() == 0 && state.num_unparked() < self.num_workers
    }

    fn unpark_one(&self, num_searching: usize) {
        self.state
            .fetch_add(num_searching | (1 << UNPARK_SHIFT), SeqCst);
    }

    /// Returns `true` if nobody searches after this decrement.
    fn dec_num_unparked(&self, is_searching: bool) -> bool {
        let mut dec = 1 << UNPARK_SHIFT;
        if is_searching {
            dec += 1;
        }
        let prev = State(self.state.fetch_sub(dec, SeqCst));
        prev.num_searching() == usize::from(is_searching)
    }
}

impl State {
    fn num_searching(self) -> usize {
        self.0 & SEARCH_MASK
    }

    fn num_unparked(self) -> usize {
        (self.0 & UNPARK_MASK) >> UNPARK_SHIFT
    }
}

impl std::fmt::Debug for Idle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = State(self.state.load(Relaxed));
        f.debug_struct("Idle")
            .field("num_searching", &s.num_searching())
            .field("num_unparked", &s.num_unparked())
            .finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn at_most_half_search_and_last_searcher_is_reported() {
        let idle = Idle::new(4);
        assert!(idle.transition_worker_to_searching());
        assert!(idle.transition_worker_to_searching());
        assert!(!idle.transition_worker_to_searching(), "2 of 4 already");
        assert_eq!(idle.num_searching(), 2);
        assert!(!idle.transition_worker_from_searching());
        assert!(idle.transition_worker_from_searching(), "last one");
    }

    #[test]
    fn notify_wakes_a_sleeper_only_when_nobody_searches() {
        let idle = Idle::new(2);
        assert_eq!(idle.worker_to_notify(), None, "nobody sleeps");
        // Nobody searches: the parker must re-check the queues.
        assert!(idle.transition_worker_to_parked(1, false));
        assert!(idle.is_parked(1));
        assert_eq!(idle.worker_to_notify(), Some(1));
        assert!(!idle.is_parked(1));
        // Worker 1 now counts as searching: no second wake-up, and worker
        // 0 parks leaving the re-check to it.
        assert!(!idle.transition_worker_to_parked(0, false));
        assert_eq!(idle.worker_to_notify(), None);
        // Worker 1 parks again as the last searcher.
        assert!(idle.transition_worker_to_parked(1, true));
        assert!(idle.unpark_worker_by_id(0));
        assert!(!idle.unpark_worker_by_id(0));
    }
}
