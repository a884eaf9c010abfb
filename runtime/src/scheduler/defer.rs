//! Deferred wake-ups: how a yield lets the driver run first.
//!
//! # Protocol
//!
//! `task::yield_now` and a task out of coop budget do not wake their task
//! at once. They hand its waker to [`defer`], which puts it in the list of
//! the scheduler context driving this thread (a worker, or a current-thread
//! `block_on`). That scheduler wakes the whole list right after its next
//! poll of the driver, and never sleeps while the list is non-empty: it polls
//! the driver without a timeout instead. So a task that yields in a loop,
//! waiting for I/O or a timer that this very thread must notice, sees the
//! driver's events after one yield, where an immediate wake could run it
//! again up to `event_interval` times first (tokio behaves the same way; see
//! its `yield_defers_until_park` tests).
//!
//! Outside a scheduler context (another executor, `block_on` of a
//! multi-thread runtime, a blocking thread), or on a worker whose core is
//! away in `block_in_place`, [`defer`] wakes at once: nobody there would
//! drain the list.
//!
//! # The fast path: a task deferring itself
//!
//! Nearly always the waker is the running task's own, and the task belongs
//! to the scheduler driving this thread. Cloning that waker into the list
//! and waking it later costs two reference counts and a state transition
//! more than a plain yield. Instead, [`defer_own_task`] marks the task in
//! the thread's context (`context::set_yielding`, its header address) and
//! wakes it by reference. A task woken while it runs is handed back by its
//! poll as a `Notified` (see `task/harness.rs`); the scheduler takes the mark
//! ([`is_deferred_yield`]) and, if it names that task, keeps the `Notified`
//! in its core's deferred queue instead of its run queue, and moves it to
//! the run queue after the next poll of the driver. A mark that is not
//! consumed (the waker was another task's) is harmless: at worst it defers
//! a later self-wake of the task it names, and a wake may always come late.
//!
//! Who touches what: the waker list belongs to one scheduler context and
//! so to one thread; it is a `RefCell`. Every place that drops a context
//! drains it first (the worker's exit, `block_in_place` before it gives the
//! core away, the end of a current-thread `block_on`), so a deferred wake is
//! never lost. The deferred queue of `Notified`s lives in the core, which
//! only its holder touches, and travels with it (to `block_in_place`'s new
//! thread, or back into the current-thread scheduler for the next
//! `block_on`); shutdown drops it with the other queues. A wake is always
//! allowed to come early, so draining sooner than the next driver poll is
//! harmless. The multi-thread scheduler queues what it drains at the back
//! of its run queue (a yield), not in its LIFO slot.

use crate::context;
use crate::scheduler;
use crate::task::Notified;

use std::cell::{Cell, RefCell};
use std::task::Waker;

/// A scheduler context's deferred wakers.
#[derive(Default)]
pub(crate) struct Defer {
    deferred: RefCell<Vec<Waker>>,
    /// Set while [`wake`](Self::wake) runs: the multi-thread scheduler then
    /// queues the woken tasks at the back, as yields, not in the LIFO slot.
    draining: Cell<bool>,
}

impl Defer {
    pub(crate) fn new() -> Defer {
        Defer::default()
    }

    /// Keeps `waker` for the next [`wake`](Self::wake).
    pub(crate) fn defer(&self, waker: &Waker) {
        let mut deferred = self.deferred.borrow_mut();
        // A task that yields many times before the next drain (a `select!`
        // over several yielding branches) needs to be woken once.
        if deferred.last().is_some_and(|last| last.will_wake(waker)) {
            return;
        }
        deferred.push(waker.clone());
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.deferred.borrow().is_empty()
    }

    /// Whether the wakes of a [`wake`](Self::wake) are being delivered.
    #[cfg(feature = "rt-multi-thread")]
    pub(crate) fn is_draining(&self) -> bool {
        self.draining.get()
    }

    /// Wakes every deferred waker in the order they were deferred, including
    /// any deferred by the wakes themselves. No borrow is held while a waker
    /// runs.
    pub(crate) fn wake(&self) {
        if self.is_empty() {
            return;
        }
        struct Draining<'a>(&'a Cell<bool>);
        impl Drop for Draining<'_> {
            fn drop(&mut self) {
                self.0.set(false);
            }
        }
        self.draining.set(true);
        let _reset = Draining(&self.draining);
        loop {
            let mut batch = std::mem::take(&mut *self.deferred.borrow_mut());
            if batch.is_empty() {
                return;
            }
            for waker in batch.drain(..) {
                waker.wake();
            }
            // Keep the allocation for the next round of yields.
            let mut deferred = self.deferred.borrow_mut();
            if deferred.is_empty() {
                *deferred = batch;
            }
        }
    }
}

/// The fast path (module docs): if `waker` is that of a task in the
/// owned-tasks list `owner_id`, marks it as yielding and wakes it by
/// reference, so that its poll hands it back to be deferred; `false` (and
/// nothing done) otherwise.
pub(crate) fn defer_own_task(waker: &Waker, owner_id: u64) -> bool {
    if !crate::task::is_task_of(waker, owner_id) {
        return false;
    }
    context::set_yielding(waker.data());
    waker.wake_by_ref();
    true
}

/// Whether `task`, handed back by its poll as woken, yielded through
/// [`defer_own_task`]. Clears the mark either way.
pub(crate) fn is_deferred_yield<S>(task: &Notified<S>) -> bool {
    context::take_yielding(task.waker_data())
}

/// Defers `waker` to the scheduler context driving this thread, or wakes it
/// now if there is none (see the module docs).
pub(crate) fn defer(waker: &Waker) {
    context::with_scheduler(|maybe_cx| match maybe_cx {
        Some(cx) => cx.defer(waker),
        None => waker.wake_by_ref(),
    });
}

impl scheduler::Context {
    fn defer(&self, waker: &Waker) {
        match self {
            scheduler::Context::CurrentThread(cx) => cx.defer(waker),
            #[cfg(feature = "rt-multi-thread")]
            scheduler::Context::MultiThread(cx) => cx.defer(waker),
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::util::test_waker::Count;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

    #[test]
    fn same_waker_twice_in_a_row_is_kept_once() {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let defer = Defer::new();
        defer.defer(&waker);
        defer.defer(&waker);
        assert!(!defer.is_empty());
        defer.wake();
        assert!(defer.is_empty());
        assert_eq!(count.0.load(SeqCst), 1);
    }

    #[test]
    fn outside_a_scheduler_wakes_at_once() {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        defer(&Waker::from(count.clone()));
        assert_eq!(count.0.load(SeqCst), 1);
    }
}
