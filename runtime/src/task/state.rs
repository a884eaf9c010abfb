//! The task state word.
//!
//! Every task has one `AtomicUsize` that holds its lifecycle flags and its
//! reference count. All transitions are single atomic read-modify-writes, so
//! each one is linearizable and loom can check every interleaving.
//!
//! # Bits
//!
//! | bit | name            | set by                        | cleared by                     |
//! |-----|-----------------|-------------------------------|--------------------------------|
//! | 0   | `RUNNING`       | whoever polls or cancels      | the same thread, when idle     |
//! | 1   | `COMPLETE`      | the poller, once, at the end  | never                          |
//! | 2   | `NOTIFIED`      | a wake, an abort              | the poller, when it starts     |
//! | 3   | `CANCELLED`     | `abort`, runtime shutdown     | never                          |
//! | 4   | `JOIN_INTEREST` | spawn (a `JoinHandle` exists) | dropping the `JoinHandle`      |
//! | 5   | `JOIN_WAKER`    | the `JoinHandle` (see below)  | the `JoinHandle`, or completion|
//! | 6.. | reference count | clones of `Task`, `Notified`, wakers, handles        | |
//!
//! # Ownership rules
//!
//! * `RUNNING` is a lock on the future/output *stage*: only the thread that
//!   set it may touch the stage until it clears it (or sets `COMPLETE`).
//! * A task with `NOTIFIED` set is, or is about to be, in exactly one run
//!   queue. At most one `Notified` exists per task: a wake that finds
//!   `NOTIFIED` already set does nothing, and a wake that finds `RUNNING`
//!   only sets `NOTIFIED`, leaving the re-queue to the poller when it goes
//!   idle: the poller's reference becomes the new `Notified`, which the
//!   poll hands back to the scheduler loop that ran it (see `harness.rs`).
//! * After `COMPLETE`, the output belongs to the `JoinHandle` if
//!   `JOIN_INTEREST` is set; otherwise the completing thread drops it.
//! * `JOIN_WAKER` says who owns the join waker in the trailer: when it is
//!   clear, the `JoinHandle` may write the waker field; when it is set, the
//!   field is frozen and the task (at completion) may read it. The
//!   `JoinHandle` sets the bit after writing; to replace the waker it must
//!   first clear the bit, which fails once `COMPLETE` is set.
//! * The reference count counts `Task` (the owned-tasks list entry),
//!   `Notified` (a queue entry), `JoinHandle`, `AbortHandle` and each
//!   `Waker`. The thread that drops it to zero frees the task.
//!
//! A new task starts with `NOTIFIED | JOIN_INTEREST` and three references:
//! the owned-tasks list, the first `Notified`, and the `JoinHandle`.

use crate::loom::sync::atomic::{AtomicUsize, Ordering::*};
use std::fmt;

pub(super) struct State {
    val: AtomicUsize,
}

/// A copy of the state word at one instant.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(super) struct Snapshot(usize);

const RUNNING: usize = 0b00_0001;
const COMPLETE: usize = 0b00_0010;
const LIFECYCLE_MASK: usize = RUNNING | COMPLETE;
const NOTIFIED: usize = 0b00_0100;
const CANCELLED: usize = 0b00_1000;
const JOIN_INTEREST: usize = 0b01_0000;
const JOIN_WAKER: usize = 0b10_0000;

const REF_COUNT_SHIFT: usize = 6;
const REF_ONE: usize = 1 << REF_COUNT_SHIFT;
const REF_COUNT_MASK: usize = !(REF_ONE - 1);

/// Three references (list, first `Notified`, `JoinHandle`), notified, joined.
const INITIAL_STATE: usize = (REF_ONE * 3) | JOIN_INTEREST | NOTIFIED;

/// What the caller of [`State::transition_to_running`] must do.
#[must_use]
#[derive(Debug, PartialEq, Eq)]
pub(super) enum TransitionToRunning {
    /// Poll the future.
    Success,
    /// The task was cancelled: drop the future instead of polling it.
    Cancelled,
    /// The task is running elsewhere or complete: drop this reference.
    Failed,
    /// As `Failed`, and this was the last reference: free the task.
    Dealloc,
}

/// What the poller must do after the future returned `Pending`.
#[must_use]
#[derive(Debug, PartialEq, Eq)]
pub(super) enum TransitionToIdle {
    /// Nothing: the task waits for a wake-up. The poller's reference is gone.
    Ok,
    /// The task was woken while it ran: queue it again. The poller's
    /// reference is not dropped: it becomes the new `Notified`.
    OkNotified,
    /// As `Ok`, and that was the last reference: free the task.
    OkDealloc,
    /// The task was aborted while it ran: cancel it now (the task stays
    /// `RUNNING`, owned by the caller).
    Cancelled,
}

/// What a wake must do.
#[must_use]
#[derive(Debug, PartialEq, Eq)]
pub(super) enum TransitionToNotified {
    /// Nothing more.
    DoNothing,
    /// Hand a new `Notified` to the scheduler (a reference was added for it).
    Submit,
    /// Free the task (by-value wake that dropped the last reference).
    Dealloc,
}

impl State {
    pub(super) fn new() -> State {
        State {
            val: AtomicUsize::new(INITIAL_STATE),
        }
    }

    pub(super) fn load(&self) -> Snapshot {
        // Acquire: pairs with the Release of the transition that set the
        // bits we are about to act on (notably COMPLETE, which publishes the
        // output).
        Snapshot(self.val.load(Acquire))
    }

    /// Runs `f` in a CAS loop until it returns `(result, Some(next))` that
    /// sticks, or `(result, None)` (no change wanted).
    ///
    /// AcqRel: each transition both publishes what the caller wrote before
    /// (stage, waker field) and acquires what the previous owner wrote.
    fn fetch_update_action<T>(&self, mut f: impl FnMut(Snapshot) -> (T, Option<Snapshot>)) -> T {
        let mut curr = self.load();
        loop {
            let (output, next) = f(curr);
            let Some(next) = next else { return output };
            match self
                .val
                .compare_exchange_weak(curr.0, next.0, AcqRel, Acquire)
            {
                Ok(_) => return output,
                Err(actual) => curr = Snapshot(actual),
            }
        }
    }

    /// A queued `Notified` starts running: NOTIFIED -> RUNNING.
    ///
    /// The `Notified`'s reference becomes the poller's reference.
    pub(super) fn transition_to_running(&self) -> TransitionToRunning {
        self.fetch_update_action(|mut next| {
            assert!(next.is_notified());
            if !next.is_idle() {
                // Running elsewhere (a stray notification) or complete: this
                // `Notified` is stale, drop its reference.
                next.ref_dec();
                let action = if next.ref_count() == 0 {
                    TransitionToRunning::Dealloc
                } else {
                    TransitionToRunning::Failed
                };
                return (action, Some(next));
            }
            next.set_running();
            next.unset_notified();
            let action = if next.is_cancelled() {
                TransitionToRunning::Cancelled
            } else {
                TransitionToRunning::Success
            };
            (action, Some(next))
        })
    }

    /// The future returned `Pending`: RUNNING -> idle.
    pub(super) fn transition_to_idle(&self) -> TransitionToIdle {
        self.fetch_update_action(|curr| {
            assert!(curr.is_running());
            if curr.is_cancelled() {
                return (TransitionToIdle::Cancelled, None);
            }
            let mut next = curr;
            next.unset_running();
            let action = if next.is_notified() {
                // Woken while running: the poller's reference carries over
                // to the new `Notified` the caller will queue.
                TransitionToIdle::OkNotified
            } else {
                next.ref_dec();
                if next.ref_count() == 0 {
                    TransitionToIdle::OkDealloc
                } else {
                    TransitionToIdle::Ok
                }
            };
            (action, Some(next))
        })
    }

    /// The future returned `Ready` (or was dropped): RUNNING -> COMPLETE.
    ///
    /// Returns the state after the transition.
    pub(super) fn transition_to_complete(&self) -> Snapshot {
        const DELTA: usize = RUNNING | COMPLETE;
        // AcqRel: Release publishes the output stored in the stage to the
        // `JoinHandle`, which reads it after an Acquire load of COMPLETE;
        // Acquire sees a concurrent JoinHandle's JOIN_INTEREST/JOIN_WAKER
        // updates and the waker it wrote.
        let prev = Snapshot(self.val.fetch_xor(DELTA, AcqRel));
        assert!(prev.is_running());
        assert!(!prev.is_complete());
        Snapshot(prev.0 ^ DELTA)
    }

    /// Drops `count` references at the end of completion. Returns `true` if
    /// the task must be freed.
    pub(super) fn transition_to_terminal(&self, count: usize) -> bool {
        // AcqRel: the thread that frees the task must see every other
        // thread's last accesses (Acquire), and ours must be visible to it
        // (Release).
        let prev = Snapshot(self.val.fetch_sub(count * REF_ONE, AcqRel));
        assert!(
            prev.ref_count() >= count,
            "current: {}, sub: {}",
            prev.ref_count(),
            count
        );
        prev.ref_count() == count
    }

    /// A wake through a `&Waker` (the caller keeps its reference).
    pub(super) fn transition_to_notified_by_ref(&self) -> TransitionToNotified {
        self.fetch_update_action(|mut curr| {
            if curr.is_complete() || curr.is_notified() {
                // Done, or already queued: nothing to do.
                (TransitionToNotified::DoNothing, None)
            } else if curr.is_running() {
                // The poller will queue it again when it goes idle.
                curr.set_notified();
                (TransitionToNotified::DoNothing, Some(curr))
            } else {
                curr.set_notified();
                curr.ref_inc();
                (TransitionToNotified::Submit, Some(curr))
            }
        })
    }

    /// A wake that consumes a `Waker` (and its reference).
    ///
    /// When the task must be queued, the returned `Submit` has added a
    /// reference for the `Notified`; the caller still drops the waker's
    /// reference afterwards (it keeps the task alive while the scheduler
    /// handle, which lives inside the task, is in use).
    pub(super) fn transition_to_notified_by_val(&self) -> TransitionToNotified {
        self.notify_by_val(true)
    }

    /// A wake that consumes a `Waker` whose reference becomes the
    /// `Notified`'s: `Submit` adds no reference, and the caller drops none.
    /// For a caller that queues the task without touching it afterwards
    /// (`raw.rs`, `wake_by_val`): one atomic operation fewer per wake.
    pub(super) fn transition_to_notified_by_val_handing_over(&self) -> TransitionToNotified {
        self.notify_by_val(false)
    }

    /// `transition_to_notified_by_val`, with (`add_ref`) or without a new
    /// reference for the `Notified` of an idle task.
    #[inline(always)]
    fn notify_by_val(&self, add_ref: bool) -> TransitionToNotified {
        self.fetch_update_action(|mut curr| {
            let action;
            if curr.is_running() {
                curr.set_notified();
                curr.ref_dec();
                // The poller holds a reference, so this is not the last one.
                assert!(curr.ref_count() > 0);
                action = TransitionToNotified::DoNothing;
            } else if curr.is_complete() || curr.is_notified() {
                curr.ref_dec();
                action = if curr.ref_count() == 0 {
                    TransitionToNotified::Dealloc
                } else {
                    TransitionToNotified::DoNothing
                };
            } else {
                // Idle: one reference for the `Notified`, and the caller
                // drops the waker's after scheduling; or the waker's
                // becomes the `Notified`'s.
                curr.set_notified();
                if add_ref {
                    curr.ref_inc();
                }
                action = TransitionToNotified::Submit;
            }
            (action, Some(curr))
        })
    }

    /// `abort()`: marks the task cancelled and makes sure it gets polled
    /// once more so it can be cancelled on its scheduler.
    ///
    /// Returns `true` if the caller must submit a new `Notified` (a
    /// reference was added for it).
    pub(super) fn transition_to_notified_and_cancel(&self) -> bool {
        self.fetch_update_action(|mut curr| {
            if curr.is_cancelled() || curr.is_complete() {
                (false, None)
            } else if curr.is_running() {
                // The poller sees CANCELLED when it goes idle.
                curr.set_notified();
                curr.set_cancelled();
                (false, Some(curr))
            } else if curr.is_notified() {
                // Queued: cancelled when it is taken off the queue.
                curr.set_cancelled();
                (false, Some(curr))
            } else {
                curr.set_cancelled();
                curr.set_notified();
                curr.ref_inc();
                (true, Some(curr))
            }
        })
    }

    /// Runtime shutdown: sets CANCELLED, and RUNNING if the task is idle.
    ///
    /// Returns `true` if the caller now owns the task (it was idle) and must
    /// cancel it; `false` if it is running or complete elsewhere (the owner
    /// will see CANCELLED).
    pub(super) fn transition_to_shutdown(&self) -> bool {
        let mut prev = Snapshot(0);
        let _ = self.val.fetch_update(AcqRel, Acquire, |curr| {
            prev = Snapshot(curr);
            let mut next = prev;
            if prev.is_idle() {
                next.set_running();
            }
            next.set_cancelled();
            Some(next.0)
        });
        prev.is_idle()
    }

    /// Fast path of dropping a `JoinHandle` right after spawn: nothing has
    /// happened to the task yet except that it may be queued.
    pub(super) fn drop_join_handle_fast(&self) -> Result<(), ()> {
        // Relaxed on success is enough: the handle only gives up interest
        // and a reference, and publishes nothing (the task is neither
        // complete nor carrying a join waker).
        self.val
            .compare_exchange_weak(
                INITIAL_STATE,
                (INITIAL_STATE - REF_ONE) & !JOIN_INTEREST,
                Release,
                Relaxed,
            )
            .map(|_| ())
            .map_err(|_| ())
    }

    /// The `JoinHandle` is dropped: clears JOIN_INTEREST, and JOIN_WAKER too
    /// if the task is not complete (the handle takes the waker back).
    ///
    /// Returns the state before the transition: the caller drops the output
    /// if it was COMPLETE, and drops the join waker if it was not COMPLETE.
    pub(super) fn transition_to_join_handle_dropped(&self) -> Snapshot {
        let mut prev = Snapshot(0);
        let _ = self.val.fetch_update(AcqRel, Acquire, |curr| {
            prev = Snapshot(curr);
            assert!(prev.is_join_interested());
            let mut next = prev;
            next.unset_join_interested();
            if !prev.is_complete() {
                next.unset_join_waker();
            }
            Some(next.0)
        });
        prev
    }

    /// The `JoinHandle` stored a waker in the trailer and publishes it.
    ///
    /// Fails (returning the state) if the task completed meanwhile; then the
    /// waker field still belongs to the handle.
    pub(super) fn set_join_waker(&self) -> Result<Snapshot, Snapshot> {
        self.fetch_update(|curr| {
            assert!(curr.is_join_interested());
            assert!(!curr.is_join_waker_set());
            if curr.is_complete() {
                return None;
            }
            let mut next = curr;
            next.set_join_waker();
            Some(next)
        })
    }

    /// The `JoinHandle` takes the waker field back to replace the waker.
    ///
    /// Fails if the task completed (then the field is the task's to read).
    pub(super) fn unset_waker(&self) -> Result<Snapshot, Snapshot> {
        self.fetch_update(|curr| {
            assert!(curr.is_join_interested());
            if curr.is_complete() {
                return None;
            }
            assert!(curr.is_join_waker_set());
            let mut next = curr;
            next.unset_join_waker();
            Some(next)
        })
    }

    /// After completion has woken the join waker: gives the field back.
    /// Returns the new state; if JOIN_INTEREST is gone the caller drops the
    /// waker (the handle was dropped meanwhile and won't).
    pub(super) fn unset_waker_after_complete(&self) -> Snapshot {
        // AcqRel: we must see whether the handle went away (Acquire) and
        // our reads of the field must happen before it reuses it (Release).
        let prev = Snapshot(self.val.fetch_and(!JOIN_WAKER, AcqRel));
        assert!(prev.is_complete());
        assert!(prev.is_join_waker_set());
        Snapshot(prev.0 & !JOIN_WAKER)
    }

    fn fetch_update(
        &self,
        mut f: impl FnMut(Snapshot) -> Option<Snapshot>,
    ) -> Result<Snapshot, Snapshot> {
        let mut curr = self.load();
        loop {
            let Some(next) = f(curr) else {
                return Err(curr);
            };
            match self
                .val
                .compare_exchange_weak(curr.0, next.0, AcqRel, Acquire)
            {
                Ok(_) => return Ok(next),
                Err(actual) => curr = Snapshot(actual),
            }
        }
    }

    /// Adds a reference (`Waker::clone`, new handles).
    pub(super) fn ref_inc(&self) {
        // Relaxed: a new reference can only be made from an existing one, so
        // the task is alive and no ordering is needed (as `Arc::clone`).
        let prev = self.val.fetch_add(REF_ONE, Relaxed);
        // Overflow of the count would be a use-after-free later: abort.
        if prev > isize::MAX as usize {
            std::process::abort();
        }
    }

    /// Drops a reference. Returns `true` if it was the last one.
    pub(super) fn ref_dec(&self) -> bool {
        // AcqRel: as `Arc::drop`, the freeing thread must see all accesses.
        let prev = Snapshot(self.val.fetch_sub(REF_ONE, AcqRel));
        assert!(prev.ref_count() >= 1);
        prev.ref_count() == 1
    }

    /// Drops two references (a `Notified` that is also the last run).
    pub(super) fn ref_dec_twice(&self) -> bool {
        let prev = Snapshot(self.val.fetch_sub(2 * REF_ONE, AcqRel));
        assert!(prev.ref_count() >= 2);
        prev.ref_count() == 2
    }
}

impl Snapshot {
    pub(super) fn is_idle(self) -> bool {
        self.0 & LIFECYCLE_MASK == 0
    }
    pub(super) fn is_notified(self) -> bool {
        self.0 & NOTIFIED == NOTIFIED
    }
    fn unset_notified(&mut self) {
        self.0 &= !NOTIFIED
    }
    fn set_notified(&mut self) {
        self.0 |= NOTIFIED
    }
    pub(super) fn is_running(self) -> bool {
        self.0 & RUNNING == RUNNING
    }
    fn set_running(&mut self) {
        self.0 |= RUNNING;
    }
    fn unset_running(&mut self) {
        self.0 &= !RUNNING;
    }
    pub(super) fn is_cancelled(self) -> bool {
        self.0 & CANCELLED == CANCELLED
    }
    fn set_cancelled(&mut self) {
        self.0 |= CANCELLED;
    }
    pub(super) fn is_complete(self) -> bool {
        self.0 & COMPLETE == COMPLETE
    }
    pub(super) fn is_join_interested(self) -> bool {
        self.0 & JOIN_INTEREST == JOIN_INTEREST
    }
    fn unset_join_interested(&mut self) {
        self.0 &= !JOIN_INTEREST
    }
    pub(super) fn is_join_waker_set(self) -> bool {
        self.0 & JOIN_WAKER == JOIN_WAKER
    }
    fn set_join_waker(&mut self) {
        self.0 |= JOIN_WAKER;
    }
    fn unset_join_waker(&mut self) {
        self.0 &= !JOIN_WAKER
    }
    pub(super) fn ref_count(self) -> usize {
        (self.0 & REF_COUNT_MASK) >> REF_COUNT_SHIFT
    }
    fn ref_inc(&mut self) {
        assert!(self.0 <= isize::MAX as usize);
        self.0 += REF_ONE;
    }
    pub(super) fn ref_dec(&mut self) {
        assert!(self.ref_count() > 0);
        self.0 -= REF_ONE
    }
}

impl fmt::Debug for State {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.load().fmt(fmt)
    }
}

impl fmt::Debug for Snapshot {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("Snapshot")
            .field("is_running", &self.is_running())
            .field("is_complete", &self.is_complete())
            .field("is_notified", &self.is_notified())
            .field("is_cancelled", &self.is_cancelled())
            .field("is_join_interested", &self.is_join_interested())
            .field("is_join_waker_set", &self.is_join_waker_set())
            .field("ref_count", &self.ref_count())
            .finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn lifecycle_of_a_task_polled_twice() {
        let s = State::new();
        assert_eq!(s.load().ref_count(), 3);
        assert_eq!(s.transition_to_running(), TransitionToRunning::Success);
        // Woken by reference while running: only NOTIFIED is set.
        assert_eq!(
            s.transition_to_notified_by_ref(),
            TransitionToNotified::DoNothing
        );
        assert!(s.load().is_notified());
        assert_eq!(s.transition_to_idle(), TransitionToIdle::OkNotified);
        assert_eq!(
            s.load().ref_count(),
            3,
            "the poller's reference became the new Notified"
        );
        assert_eq!(s.transition_to_running(), TransitionToRunning::Success);
        let snap = s.transition_to_complete();
        assert!(snap.is_complete() && !snap.is_running());
        // The list's and the poller's references go; the JoinHandle remains.
        assert!(!s.transition_to_terminal(2));
        assert!(s.load().is_complete());
        let prev = s.transition_to_join_handle_dropped();
        assert!(prev.is_complete());
        assert!(s.ref_dec());
    }

    #[test]
    fn wake_of_idle_task_submits_and_abort_of_queued_task_only_flags() {
        let s = State::new();
        assert_eq!(s.transition_to_running(), TransitionToRunning::Success);
        assert_eq!(s.transition_to_idle(), TransitionToIdle::Ok);
        assert_eq!(s.load().ref_count(), 2);
        assert_eq!(
            s.transition_to_notified_by_ref(),
            TransitionToNotified::Submit
        );
        assert_eq!(s.load().ref_count(), 3);
        // Already queued: abort only sets CANCELLED.
        assert!(!s.transition_to_notified_and_cancel());
        assert_eq!(s.transition_to_running(), TransitionToRunning::Cancelled);
    }

    #[test]
    fn wake_by_val_adds_a_reference_or_hands_the_wakers_over() {
        for handing_over in [false, true] {
            let s = State::new();
            assert_eq!(s.transition_to_running(), TransitionToRunning::Success);
            assert_eq!(s.transition_to_idle(), TransitionToIdle::Ok);
            s.ref_inc(); // a waker
            assert_eq!(s.load().ref_count(), 3);
            let wake = if handing_over {
                s.transition_to_notified_by_val_handing_over()
            } else {
                s.transition_to_notified_by_val()
            };
            assert_eq!(wake, TransitionToNotified::Submit);
            assert!(s.load().is_notified());
            // Handing over: the waker's reference is the `Notified`'s. Else
            // one more, which the caller drops after scheduling.
            assert_eq!(s.load().ref_count(), if handing_over { 3 } else { 4 });
            // A second wake of the queued task only drops its waker's
            // reference, either way.
            s.ref_inc();
            let again = if handing_over {
                s.transition_to_notified_by_val_handing_over()
            } else {
                s.transition_to_notified_by_val()
            };
            assert_eq!(again, TransitionToNotified::DoNothing);
            assert_eq!(s.load().ref_count(), if handing_over { 3 } else { 4 });
        }
    }

    #[test]
    fn join_handle_fast_drop_only_from_initial_state() {
        let s = State::new();
        // A weak CAS may fail spuriously (Miri makes it do so): the caller
        // then takes the slow path, so only eventual success is required.
        assert!((0..100).any(|_| s.drop_join_handle_fast().is_ok()));
        assert!(!s.load().is_join_interested());
        assert_eq!(s.load().ref_count(), 2);
        let s = State::new();
        assert_eq!(s.transition_to_running(), TransitionToRunning::Success);
        assert!(s.drop_join_handle_fast().is_err());
    }

    #[test]
    fn join_waker_cannot_be_set_after_complete() {
        let s = State::new();
        assert_eq!(s.transition_to_running(), TransitionToRunning::Success);
        let _ = s.transition_to_complete();
        assert!(s.set_join_waker().is_err());
    }

    #[test]
    fn shutdown_takes_an_idle_task_but_not_a_running_one() {
        let s = State::new();
        assert_eq!(s.transition_to_running(), TransitionToRunning::Success);
        assert!(!s.transition_to_shutdown());
        assert_eq!(s.transition_to_idle(), TransitionToIdle::Cancelled);

        let s = State::new();
        assert_eq!(s.transition_to_running(), TransitionToRunning::Success);
        assert_eq!(s.transition_to_idle(), TransitionToIdle::Ok);
        assert!(s.transition_to_shutdown());
        assert!(s.load().is_running() && s.load().is_cancelled());
    }
}
