//! What happens to a task: poll, complete, cancel, join, shut down.
//!
//! `Harness<T, S>` is a typed view of a task allocation. Its methods are the
//! bodies of the vtable entries; each one starts with a state transition that
//! decides who owns what (see `state.rs`), then acts on exactly what it owns.
//!
//! A task that wakes itself while it runs (`yield_now`, an exhausted coop
//! budget) is not queued from in here: `poll` turns the poller's reference
//! into a new `Notified` and returns it to the scheduler loop that ran the
//! task, which queues it at the back with its own handle. Queueing it from
//! inside would go through the scheduler stored in the task, and once the
//! task sits in a queue another worker may run it to completion and free
//! it, scheduler field included, while that call still runs. tokio keeps an
//! extra reference across the call for this (its decrement afterwards is
//! one more atomic operation per yield), and the call finds the worker's
//! queue through a thread-local; the hand-back needs neither.
//!
//! User code (the future's `poll` and `Drop`, the output's `Drop`) runs under
//! `catch_unwind`: a panicking task becomes `JoinError::Panic` and never takes
//! its worker thread down. As in tokio, a future whose `poll` panics is
//! dropped during the unwind (`std::thread::panicking()` is true in its
//! `Drop`), so a panic in that `Drop` aborts.

use crate::task::core::{Cell, Core, Header, Trailer};
use crate::task::error::JoinError;
use crate::task::state::{Snapshot, TransitionToIdle, TransitionToRunning};
use crate::task::waker::waker_ref;
use crate::task::{RawTask, Schedule, Task};

use std::any::Any;
use std::future::Future;
use std::mem::ManuallyDrop;
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;
use std::task::{Context, Poll, Waker};

pub(super) struct Harness<T: Future, S: 'static> {
    cell: NonNull<Cell<T, S>>,
}

impl<T: Future, S: Schedule> Harness<T, S> {
    /// # Safety
    /// `ptr` must head a live `Cell<T, S>`.
    pub(super) unsafe fn from_raw(ptr: NonNull<Header>) -> Harness<T, S> {
        Harness { cell: ptr.cast() }
    }

    fn header_ptr(&self) -> NonNull<Header> {
        self.cell.cast()
    }

    fn header(&self) -> &Header {
        // SAFETY: the cell is live while a harness exists (its creator holds
        // a reference).
        unsafe { &self.cell.as_ref().header }
    }

    fn trailer(&self) -> &Trailer {
        // SAFETY: as `header`.
        unsafe { &self.cell.as_ref().trailer }
    }

    fn core(&self) -> &Core<T, S> {
        // SAFETY: as `header`.
        unsafe { &self.cell.as_ref().core }
    }

    fn raw(&self) -> RawTask {
        // SAFETY: the header is live.
        unsafe { RawTask::from_raw(self.header_ptr()) }
    }

    fn drop_reference(self) {
        self.raw().drop_reference();
    }

    fn dealloc(self) {
        self.raw().dealloc();
    }

    // ----- polling ----------------------------------------------------------

    /// Polls the future once; consumes the `Notified`'s reference.
    ///
    /// Returns `true` if the task woke itself while it ran: the reference
    /// then was not consumed but became a new `Notified`, which the caller
    /// must queue (at the back: the task yielded).
    #[must_use]
    pub(super) fn poll(self) -> bool {
        match self.header().state.transition_to_running() {
            TransitionToRunning::Success => {
                let header_ptr = self.header_ptr();
                let waker = waker_ref(&header_ptr);
                let cx = Context::from_waker(&waker);
                if poll_future(self.core(), self.header().id, cx).is_ready() {
                    self.complete();
                    return false;
                }
                match self.header().state.transition_to_idle() {
                    TransitionToIdle::Ok => {}
                    // Woken while running (e.g. `yield_now`): the caller
                    // queues it (module docs).
                    TransitionToIdle::OkNotified => return true,
                    TransitionToIdle::OkDealloc => self.dealloc(),
                    TransitionToIdle::Cancelled => {
                        cancel_task(self.core(), self.header().id);
                        self.complete();
                    }
                }
            }
            TransitionToRunning::Cancelled => {
                cancel_task(self.core(), self.header().id);
                self.complete();
            }
            TransitionToRunning::Failed => {}
            TransitionToRunning::Dealloc => self.dealloc(),
        }
        false
    }

    /// Runtime shutdown; consumes one reference.
    pub(super) fn shutdown(self) {
        if !self.header().state.transition_to_shutdown() {
            // Running or complete elsewhere: its owner sees CANCELLED.
            self.drop_reference();
            return;
        }
        // We hold RUNNING now.
        cancel_task(self.core(), self.header().id);
        self.complete();
    }

    /// RUNNING -> COMPLETE with the output already stored; leaves the
    /// owned-tasks list, notifies the `JoinHandle` and drops the references
    /// of the run (and of the list).
    fn complete(self) {
        // Leave the list first: whoever sees COMPLETE (a `JoinHandle`, a
        // metrics reader after it) sees the task gone from the live count.
        // A running task needs no cancelling, so shutdown may miss it.
        let num_release = self.release();

        let snapshot = self.header().state.transition_to_complete();
        let id = self.header().id;
        // Neither dropping the output nor waking the joiner may unwind
        // through the worker.
        let _ = panic::catch_unwind(AssertUnwindSafe(|| {
            if !snapshot.is_join_interested() {
                // Nobody will read the output: drop it here. We own the stage
                // (COMPLETE without JOIN_INTEREST).
                // SAFETY: exclusive access, as stated.
                unsafe { self.core().stage.drop_future_or_output(id) };
            } else if snapshot.is_join_waker_set() {
                // SAFETY: COMPLETE and JOIN_WAKER are set: the waker field is
                // frozen and ours to read.
                unsafe { self.trailer().wake_join() };
                let snapshot = self.header().state.unset_waker_after_complete();
                if !snapshot.is_join_interested() {
                    // The handle went away while we woke it: the field is
                    // ours and nobody else will drop the waker.
                    // SAFETY: JOIN_WAKER is clear and there is no handle.
                    unsafe { self.trailer().set_waker(None) };
                }
            }
        }));
        if let hook @ Some(_) = self.core().scheduler.terminate_hook() {
            let header = self.header();
            crate::runtime::task_hooks::call(hook, header.id, header.spawned_at);
        }
        self.core().scheduler.completed();

        if self.header().state.transition_to_terminal(num_release) {
            self.dealloc();
        }
    }

    /// Leaves the owned-tasks list; returns how many references to drop (the
    /// run's, plus the list's if the list still held the task).
    fn release(&self) -> usize {
        let me = ManuallyDrop::new(Task::<S>::from_raw(self.raw()));
        match self.core().scheduler.release(&me) {
            Some(task) => {
                // Its reference is dropped by `transition_to_terminal`.
                std::mem::forget(task);
                2
            }
            None => 1,
        }
    }

    // ----- JoinHandle -------------------------------------------------------

    /// # Safety
    /// `dst` points to a `Poll<Result<T::Output, JoinError>>`; the caller is
    /// the `JoinHandle`.
    pub(super) unsafe fn try_read_output(
        self,
        dst: *mut Poll<Result<T::Output, JoinError>>,
        waker: &Waker,
    ) {
        if can_read_output(self.header(), self.trailer(), waker) {
            // SAFETY: COMPLETE with JOIN_INTEREST: the output is the
            // handle's; `dst` is valid (caller's contract).
            unsafe { *dst = Poll::Ready(self.core().stage.take_output()) };
        }
    }

    pub(super) fn drop_join_handle_slow(self) {
        let prev = self.header().state.transition_to_join_handle_dropped();
        if prev.is_complete() {
            // The output is ours and nobody will read it.
            let id = self.header().id;
            let _ = panic::catch_unwind(AssertUnwindSafe(|| {
                // SAFETY: COMPLETE with JOIN_INTEREST (until our transition)
                // makes the stage the handle's.
                unsafe { self.core().stage.drop_future_or_output(id) };
            }));
        } else {
            // We cleared JOIN_WAKER (or it was clear): the waker field is
            // ours, and completion will not look at it.
            // SAFETY: as stated.
            unsafe { self.trailer().set_waker(None) };
        }
        self.drop_reference();
    }
}

/// Whether the output can be read now. If not, the waker is registered.
/// Registers `waker` as the join waker of the task headed by `ptr`, or wakes
/// it at once if the task is complete (the output stays in the task).
/// `JoinSet` uses it to learn of completions without reading outputs.
///
/// # Safety
/// `ptr` heads a live task and the caller is its `JoinHandle`.
pub(super) unsafe fn set_join_waker_or_wake(ptr: std::ptr::NonNull<Header>, waker: &Waker) {
    // SAFETY: live task (caller); the trailer is at the vtable's offset.
    let (header, trailer) = unsafe { (ptr.as_ref(), Header::get_trailer(ptr).as_ref()) };
    if can_read_output(header, trailer, waker) {
        waker.wake_by_ref();
    }
}

fn can_read_output(header: &Header, trailer: &Trailer, waker: &Waker) -> bool {
    let snapshot = header.state.load();
    debug_assert!(snapshot.is_join_interested());
    if snapshot.is_complete() {
        return true;
    }
    let res = if snapshot.is_join_waker_set() {
        // SAFETY: JOIN_WAKER is set, so the field is frozen: reading is fine
        // (completion may read it concurrently, nobody writes).
        if unsafe { trailer.will_wake(waker) } {
            return false;
        }
        // Take the field back, then store the new waker.
        header
            .state
            .unset_waker()
            .and_then(|_| set_join_waker(header, trailer, waker.clone()))
    } else {
        set_join_waker(header, trailer, waker.clone())
    };
    match res {
        Ok(_) => false,
        Err(snapshot) => {
            assert!(snapshot.is_complete());
            true
        }
    }
}

fn set_join_waker(header: &Header, trailer: &Trailer, waker: Waker) -> Result<Snapshot, Snapshot> {
    // SAFETY: JOIN_WAKER is clear and we are the only `JoinHandle`: the
    // field is ours until `set_join_waker` publishes it.
    unsafe { trailer.set_waker(Some(waker)) };
    let res = header.state.set_join_waker();
    if res.is_err() {
        // Completed meanwhile: the field is still ours; clear it.
        // SAFETY: as above.
        unsafe { trailer.set_waker(None) };
    }
    res
}

/// Drops the future and stores `Cancelled` (or the panic its drop raised).
fn cancel_task<T: Future, S>(core: &Core<T, S>, id: crate::task::Id) {
    let res = panic::catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the caller holds RUNNING.
        unsafe { core.stage.drop_future_or_output(id) };
    }));
    let err = match res {
        Ok(()) => JoinError::cancelled(id),
        Err(panic) => JoinError::panic(id, panic),
    };
    // SAFETY: the caller holds RUNNING.
    unsafe { core.stage.store_output(id, Err(err)) };
}

/// Polls the future; on `Ready` (or panic) stores the output.
fn poll_future<T: Future, S: Schedule>(
    core: &Core<T, S>,
    id: crate::task::Id,
    cx: Context<'_>,
) -> Poll<()> {
    // A future whose `poll` panics is dropped while the panic unwinds, as
    // tokio does: its destructor sees `std::thread::panicking()`, and a
    // second panic there aborts the process (Rust's rule for a panic
    // during unwinding).
    struct DropOnUnwind<'a, T: Future, S> {
        core: &'a Core<T, S>,
        id: crate::task::Id,
    }
    impl<T: Future, S> Drop for DropOnUnwind<'_, T, S> {
        fn drop(&mut self) {
            // SAFETY: the caller of `poll_future` holds RUNNING. Only
            // reached while unwinding out of `Stage::poll`; if the future
            // already became `Consumed` there, this drops nothing.
            unsafe { self.core.stage.drop_future_or_output(self.id) };
        }
    }
    let res = panic::catch_unwind(AssertUnwindSafe(|| {
        let guard = DropOnUnwind { core, id };
        // SAFETY: the caller holds RUNNING.
        let res = unsafe { core.stage.poll(id, cx) };
        std::mem::forget(guard);
        res
    }));
    let output = match res {
        Ok(Poll::Pending) => return Poll::Pending,
        Ok(Poll::Ready(output)) => Ok(output),
        Err(panic) => Err(panic_to_error(core, id, panic)),
    };
    // SAFETY: still RUNNING. Storing over `Consumed` drops nothing, so it
    // cannot panic.
    unsafe { core.stage.store_output(id, output) };
    Poll::Ready(())
}

fn panic_to_error<T: Future, S: Schedule>(
    core: &Core<T, S>,
    id: crate::task::Id,
    panic: Box<dyn Any + Send>,
) -> JoinError {
    // The future panicked in `poll` or in its destructor after `Ready`;
    // either way `poll_future`'s guard has left the stage `Consumed`.
    core.scheduler.unhandled_panic();
    JoinError::panic(id, panic)
}
