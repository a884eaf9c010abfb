//! The type-erased task pointer and its vtable.
//!
//! Queues, wakers and handles hold a [`RawTask`]: a pointer to the task's
//! [`Header`]. Everything that needs the concrete future type `T` or
//! scheduler type `S` goes through the `&'static Vtable` stored in the
//! header, whose entries are monomorphized per `(T, S)`.
//!
//! A `RawTask` is `Copy` and does not own a reference by itself; the types
//! built on it (`Task`, `Notified`, `JoinHandle`, wakers...) do, and say
//! when they release it.

use crate::task::core::{Cell, Header};
use crate::task::harness::Harness;
use crate::task::state::{Snapshot, TransitionToNotified};
use crate::task::{Id, Schedule, SpawnLocation};

use std::future::Future;
use std::mem::offset_of;
use std::ptr::NonNull;
use std::task::Waker;

#[derive(Clone, Copy)]
pub(crate) struct RawTask {
    ptr: NonNull<Header>,
}

/// The per-`(T, S)` operations of a task.
pub(super) struct Vtable {
    /// Polls the future (consumes the `Notified`'s reference, unless it
    /// returns `true`: the task woke itself and the reference is the new
    /// `Notified` the caller must queue).
    pub(super) poll: unsafe fn(NonNull<Header>) -> bool,
    /// Hands a new `Notified` (reference already counted) to the scheduler.
    pub(super) schedule: unsafe fn(NonNull<Header>),
    /// A wake that consumes a reference (`Waker::wake`).
    pub(super) wake_by_val: unsafe fn(NonNull<Header>),
    /// Frees the allocation.
    pub(super) dealloc: unsafe fn(NonNull<Header>),
    /// Reads the output into `*mut Poll<Result<T::Output, JoinError>>` if
    /// the task is complete, else registers the waker.
    pub(super) try_read_output: unsafe fn(NonNull<Header>, *mut (), &Waker),
    /// The `JoinHandle` is dropped and the fast path failed.
    pub(super) drop_join_handle_slow: unsafe fn(NonNull<Header>),
    /// Runtime shutdown: cancels the task (consumes a reference).
    pub(super) shutdown: unsafe fn(NonNull<Header>),
    /// `Schedule::owner_id` of the task's scheduler.
    pub(super) owner_id: unsafe fn(NonNull<Header>) -> u64,
    /// Offset of the `Trailer` in the `Cell`.
    pub(super) trailer_offset: usize,
    /// Offset of the scheduler `S` in the `Cell`.
    pub(super) scheduler_offset: usize,
}

struct Offsets<T, S>(T, S);

impl<T: Future, S: Schedule> Offsets<T, S> {
    const TRAILER: usize = offset_of!(Cell<T, S>, trailer);
    const SCHEDULER: usize =
        offset_of!(Cell<T, S>, core) + offset_of!(crate::task::core::Core<T, S>, scheduler);
}

/// The vtable for tasks of future `T` on scheduler `S`.
pub(super) fn vtable<T: Future, S: Schedule>() -> &'static Vtable {
    &Vtable {
        poll: poll::<T, S>,
        schedule: schedule::<S>,
        wake_by_val: wake_by_val::<S>,
        dealloc: dealloc::<T, S>,
        try_read_output: try_read_output::<T, S>,
        drop_join_handle_slow: drop_join_handle_slow::<T, S>,
        shutdown: shutdown::<T, S>,
        owner_id: owner_id::<S>,
        trailer_offset: Offsets::<T, S>::TRAILER,
        scheduler_offset: Offsets::<T, S>::SCHEDULER,
    }
}

impl RawTask {
    /// Allocates a task; it starts with three references (see `state.rs`).
    pub(super) fn new<T: Future, S: Schedule>(
        task: T,
        scheduler: S,
        id: Id,
        spawned_at: SpawnLocation,
    ) -> RawTask {
        let cell = Cell::new(task, scheduler, id, spawned_at);
        let ptr = NonNull::from(Box::leak(cell)).cast::<Header>();
        RawTask { ptr }
    }

    /// # Safety
    /// `ptr` must point to the header of a live task.
    pub(crate) unsafe fn from_raw(ptr: NonNull<Header>) -> RawTask {
        RawTask { ptr }
    }

    pub(crate) fn header_ptr(&self) -> NonNull<Header> {
        self.ptr
    }

    pub(crate) fn header(&self) -> &Header {
        // SAFETY: a RawTask is only made for a live task, and whoever uses it
        // holds a reference that keeps the task alive.
        unsafe { self.ptr.as_ref() }
    }

    pub(super) fn state_snapshot(&self) -> Snapshot {
        self.header().state.load()
    }

    /// Polls the task (consumes the `Notified` reference, unless it returns
    /// `true`: see the vtable's `poll`).
    #[must_use]
    pub(super) fn poll(self) -> bool {
        // SAFETY: the vtable matches the task it is stored in.
        unsafe { (self.header().vtable.poll)(self.ptr) }
    }

    /// Hands a new `Notified` to the scheduler (reference already counted).
    pub(super) fn schedule(self) {
        // SAFETY: the vtable matches the task it is stored in.
        unsafe { (self.header().vtable.schedule)(self.ptr) }
    }

    pub(super) fn dealloc(self) {
        // SAFETY: the vtable matches the task; the caller dropped the last
        // reference, so nobody else can touch the task.
        unsafe { (self.header().vtable.dealloc)(self.ptr) }
    }

    /// # Safety
    /// `dst` must be a valid `*mut Poll<Result<T::Output, JoinError>>` for
    /// the task's `T`, and the caller must be the task's `JoinHandle`.
    pub(super) unsafe fn try_read_output(self, dst: *mut (), waker: &Waker) {
        // SAFETY: forwarded to the caller.
        unsafe { (self.header().vtable.try_read_output)(self.ptr, dst, waker) }
    }

    pub(super) fn drop_join_handle_slow(self) {
        // SAFETY: the vtable matches the task it is stored in.
        unsafe { (self.header().vtable.drop_join_handle_slow)(self.ptr) }
    }

    /// Id of the owned-tasks list the task's scheduler binds its tasks into
    /// (0: none), read through the scheduler inside the task.
    pub(super) fn owner_id(self) -> u64 {
        // SAFETY: the vtable matches the task it is stored in, and `ptr`
        // (not a `&Header`, whose provenance ends with the header) reaches
        // the scheduler in the task's core.
        unsafe { (self.header().vtable.owner_id)(self.ptr) }
    }

    /// Cancels the task for runtime shutdown (consumes a reference).
    pub(super) fn shutdown(self) {
        // SAFETY: the vtable matches the task it is stored in.
        unsafe { (self.header().vtable.shutdown)(self.ptr) }
    }

    /// Drops one reference, freeing the task if it was the last.
    pub(super) fn drop_reference(self) {
        if self.header().state.ref_dec() {
            self.dealloc();
        }
    }

    /// Adds a reference.
    pub(super) fn ref_inc(self) {
        self.header().state.ref_inc();
    }

    /// A wake that consumes a reference (`Waker::wake`).
    pub(super) fn wake_by_val(self) {
        // SAFETY: the caller gives up the reference it holds, as the
        // vtable entry requires.
        unsafe { (self.header().vtable.wake_by_val)(self.ptr) }
    }

    /// `wake_by_val` keeping a reference of its own while `schedule` runs.
    fn wake_by_val_with_reference(self) {
        match self.header().state.transition_to_notified_by_val() {
            TransitionToNotified::Submit => {
                // A reference was added for the `Notified`; ours keeps the
                // task (and its scheduler handle) alive during `schedule`.
                self.schedule();
                self.drop_reference();
            }
            TransitionToNotified::Dealloc => self.dealloc(),
            TransitionToNotified::DoNothing => {}
        }
    }

    /// A wake through a reference (`Waker::wake_by_ref`).
    pub(super) fn wake_by_ref(self) {
        if let TransitionToNotified::Submit = self.header().state.transition_to_notified_by_ref() {
            self.schedule();
        }
    }

    /// `abort()` from a `JoinHandle`/`AbortHandle` (which holds a reference).
    pub(super) fn remote_abort(self) {
        if self.header().state.transition_to_notified_and_cancel() {
            // The task was idle: queue it so its scheduler cancels it on the
            // right thread.
            self.schedule();
        }
    }
}

unsafe fn poll<T: Future, S: Schedule>(ptr: NonNull<Header>) -> bool {
    // SAFETY: `ptr` heads a `Cell<T, S>` (the vtable was built for it).
    let harness = unsafe { Harness::<T, S>::from_raw(ptr) };
    harness.poll()
}

/// The scheduler inside the task at `ptr`.
///
/// # Safety
///
/// `ptr` heads a live task of scheduler `S`, alive for `'a`.
unsafe fn scheduler<'a, S: Schedule>(ptr: NonNull<Header>) -> &'a S {
    // SAFETY: `S` sits at `scheduler_offset` in the task, which the caller
    // keeps alive.
    unsafe {
        ptr.cast::<u8>()
            .add(ptr.as_ref().vtable.scheduler_offset)
            .cast::<S>()
            .as_ref()
    }
}

/// A wake that consumes a reference. Where the task's scheduler can queue
/// it through the current thread's own context (a worker of its runtime,
/// see `Schedule::wake_here`), that reference becomes the `Notified`'s: the
/// queueing touches nothing of the task's once it is queued, so nothing
/// needs to keep the task alive meanwhile. Elsewhere (a foreign thread, a
/// pool thread, another runtime's worker) the scheduler handle used by
/// `schedule` lives inside the task, which another thread may run and free
/// once it is queued: there the wake adds a reference for the `Notified`
/// and drops its own after `schedule` returns, as tokio does.
unsafe fn wake_by_val<S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the caller's reference keeps the task alive until the
    // transition below.
    let key = unsafe { scheduler::<S>(ptr) }.here_key();
    // SAFETY: as above.
    let raw = unsafe { RawTask::from_raw(ptr) };
    let here = key.and_then(|key| {
        // Runs only where the scheduler is here; the `Notified` gets the
        // waker's reference, and the wake decides alone whether to free.
        S::wake_here(key, || {
            match raw
                .header()
                .state
                .transition_to_notified_by_val_handing_over()
            {
                TransitionToNotified::Submit => {
                    (Some(crate::task::Notified::<S>::from_raw(raw)), false)
                }
                TransitionToNotified::Dealloc => (None, true),
                TransitionToNotified::DoNothing => (None, false),
            }
        })
    });
    match here {
        // Freed outside `wake_here`: dropping the output may use the
        // scheduler's context.
        Some(true) => raw.dealloc(),
        Some(false) => {}
        None => raw.wake_by_val_with_reference(),
    }
}

unsafe fn owner_id<S: Schedule>(ptr: NonNull<Header>) -> u64 {
    // SAFETY: the caller holds or borrows a reference that keeps the task,
    // and the scheduler inside it, alive for the call.
    unsafe { scheduler::<S>(ptr) }.owner_id()
}

unsafe fn schedule<S: Schedule>(ptr: NonNull<Header>) {
    use crate::task::Notified;
    // SAFETY: `ptr` heads a live task whose scheduler `S` sits at
    // `scheduler_offset`; the caller holds a reference for the `Notified`
    // (given away here) and one more that keeps the task alive.
    unsafe {
        let scheduler = ptr
            .cast::<u8>()
            .add(ptr.as_ref().vtable.scheduler_offset)
            .cast::<S>();
        scheduler
            .as_ref()
            .schedule(Notified::from_raw(RawTask::from_raw(ptr)));
    }
}

unsafe fn dealloc<T: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the last reference is gone; `ptr` came from `Box::leak` of a
    // `Cell<T, S>`.
    unsafe { drop(Box::from_raw(ptr.cast::<Cell<T, S>>().as_ptr())) };
}

unsafe fn try_read_output<T: Future, S: Schedule>(
    ptr: NonNull<Header>,
    dst: *mut (),
    waker: &Waker,
) {
    // SAFETY: `ptr` heads a `Cell<T, S>`; `dst` has the matching type
    // (caller's contract of `RawTask::try_read_output`).
    unsafe {
        let harness = Harness::<T, S>::from_raw(ptr);
        harness.try_read_output(dst.cast(), waker);
    }
}

unsafe fn drop_join_handle_slow<T: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: `ptr` heads a `Cell<T, S>`.
    let harness = unsafe { Harness::<T, S>::from_raw(ptr) };
    harness.drop_join_handle_slow();
}

unsafe fn shutdown<T: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: `ptr` heads a `Cell<T, S>`.
    let harness = unsafe { Harness::<T, S>::from_raw(ptr) };
    harness.shutdown();
}
