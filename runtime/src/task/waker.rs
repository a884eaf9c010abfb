//! Wakers that point straight at a task header.
//!
//! The waker's data pointer is the task's `Header`; its vtable is one static
//! `RawWakerVTable` for every task type (the typed work goes through the
//! header's own vtable). So:
//!
//! * `clone` adds a task reference (one `fetch_add`), no allocation;
//! * `wake` / `wake_by_ref` are one state transition plus, when the task was
//!   idle, a push onto its scheduler's queue;
//! * `drop` drops a task reference;
//! * `Waker::will_wake` is true for two wakers of the same task (same data
//!   pointer and same static vtable).
//!
//! While polling, the harness lends the future a [`WakerRef`] that borrows
//! the poller's reference instead of adding one.

use crate::task::RawTask;
use crate::task::core::Header;

use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::ptr::NonNull;
use std::task::{RawWaker, RawWakerVTable, Waker};

/// A waker borrowed for the duration of one poll (no reference taken).
pub(super) struct WakerRef<'a> {
    waker: ManuallyDrop<Waker>,
    _p: PhantomData<&'a Header>,
}

/// A waker for the task headed by `*header`, valid while the caller keeps
/// its reference to the task.
pub(super) fn waker_ref(header: &NonNull<Header>) -> WakerRef<'_> {
    // SAFETY: the vtable's functions uphold the `RawWaker` contract for a
    // live task header; `ManuallyDrop` makes sure this borrowed waker never
    // drops the reference it did not take.
    let waker = unsafe { Waker::from_raw(raw_waker(*header)) };
    WakerRef {
        waker: ManuallyDrop::new(waker),
        _p: PhantomData,
    }
}

impl Deref for WakerRef<'_> {
    type Target = Waker;

    fn deref(&self) -> &Waker {
        &self.waker
    }
}

fn raw_waker(header: NonNull<Header>) -> RawWaker {
    RawWaker::new(header.as_ptr() as *const (), &WAKER_VTABLE)
}

static WAKER_VTABLE: RawWakerVTable =
    RawWakerVTable::new(clone_waker, wake_by_val, wake_by_ref, drop_waker);

/// # Safety
/// `ptr` is the header of a live task (the waker holds a reference).
unsafe fn task(ptr: *const ()) -> RawTask {
    // SAFETY: the data pointer of our wakers is always a non-null header.
    unsafe { RawTask::from_raw(NonNull::new_unchecked(ptr as *mut Header)) }
}

/// Reports a waker operation to `tracing` (feature `tracing`; a no-op
/// otherwise).
#[inline(always)]
fn trace_op(_task: &RawTask, _op: &'static str) {
    #[cfg(feature = "tracing")]
    crate::util::trace::waker_op(_task.header().tracing_id, _op);
}

unsafe fn clone_waker(ptr: *const ()) -> RawWaker {
    // SAFETY: the waker being cloned holds a reference, so the task is live.
    let task = unsafe { task(ptr) };
    trace_op(&task, "waker.clone");
    task.ref_inc();
    raw_waker(task.header_ptr())
}

unsafe fn drop_waker(ptr: *const ()) {
    // SAFETY: the dropped waker held a reference; we release it.
    let task = unsafe { task(ptr) };
    trace_op(&task, "waker.drop");
    task.drop_reference();
}

unsafe fn wake_by_val(ptr: *const ()) {
    // SAFETY: the consumed waker held a reference; `wake_by_val` releases it.
    let task = unsafe { task(ptr) };
    trace_op(&task, "waker.wake");
    task.wake_by_val();
}

/// Whether `waker` is the waker of a task in the owned-tasks list
/// `owner_id` (a volt task waker whose scheduler says so).
pub(crate) fn is_task_of(waker: &Waker, owner_id: u64) -> bool {
    if !std::ptr::eq(waker.vtable(), &WAKER_VTABLE) {
        return false;
    }
    // SAFETY: a waker with our vtable has a live task header as its data
    // pointer, kept alive by the reference the waker holds or borrows.
    let task = unsafe { task(waker.data()) };
    task.owner_id() == owner_id
}

unsafe fn wake_by_ref(ptr: *const ()) {
    // SAFETY: the borrowed waker holds a reference for the whole call.
    let task = unsafe { task(ptr) };
    trace_op(&task, "waker.wake_by_ref");
    task.wake_by_ref();
}
