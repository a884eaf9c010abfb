//! Asynchronous green-threads.
//!
//! ## What are Tasks?
//!
//! A _task_ is a light weight, non-blocking unit of execution. A task is
//! similar to an OS thread, but rather than being managed by the OS
//! scheduler, they are managed by the volt runtime. Another name for this
//! general pattern is [green threads].
//!
//! Key points about tasks include:
//!
//! * Tasks are **light weight**. Because tasks are scheduled by the volt
//!   runtime rather than the operating system, creating new tasks or
//!   switching between tasks does not require a context switch and has
//!   fairly low overhead. Creating, running, and destroying large numbers of
//!   tasks is quite cheap, especially compared to OS threads.
//!
//! * Tasks are scheduled **cooperatively**. Most operating systems implement
//!   _preemptive multitasking_. With cooperative multitasking, a task is
//!   allowed to run until it _yields_, indicating to the volt runtime's
//!   scheduler that it cannot currently continue executing. When a task
//!   yields, the runtime switches to executing the next task.
//!
//! * Tasks are **non-blocking**. Typically, when an OS thread performs I/O or
//!   must synchronize with another thread, it _blocks_, allowing the OS to
//!   schedule another thread. When a task cannot continue executing, it must
//!   yield instead, allowing the runtime to schedule another task. Tasks
//!   should generally not perform system calls or other operations that
//!   could block a thread, as this would prevent other tasks running on the
//!   same thread from executing as well. Instead, this module provides APIs
//!   for running blocking operations in an asynchronous context.
//!
//! [green threads]: https://en.wikipedia.org/wiki/Green_threads
//!
//! ## Working with Tasks
//!
//! ### Spawning
//!
//! The [`spawn`] function creates a task that runs in the background, and
//! returns a [`JoinHandle`] to await its output:
//!
//! ```
//! # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
//! use volt_runtime::task;
//!
//! let join = task::spawn(async {
//!     // ...
//!     "hello world!"
//! });
//!
//! // Await the result of the spawned task.
//! let result = join.await.unwrap();
//! assert_eq!(result, "hello world!");
//! # });
//! ```
//!
//! If a task panics, its `JoinHandle` returns a [`JoinError`] instead; the
//! panic never takes the worker thread down.
//!
//! ### Cancellation
//!
//! Spawned tasks may be cancelled using the [`JoinHandle::abort`] or
//! [`AbortHandle::abort`] methods. When one of these methods are called, the
//! task is signalled to shut down next time it yields at an `.await` point.
//! If the task is already idle, then it will be shut down as soon as
//! possible without running again before being shut down. Additionally,
//! shutting down a runtime (e.g. by returning from `#[volt::main]`)
//! immediately cancels all tasks on it.
//!
//! When tasks are shut down, it will stop running at whichever `.await` it
//! has yielded at. All local variables are destroyed by running their
//! destructor. Once shutdown has completed, awaiting the [`JoinHandle`] will
//! fail with a [cancelled error](crate::task::JoinError::is_cancelled).
//!
//! Note that aborting a task does not guarantee that it fails with a
//! cancelled error, since it may complete normally first.
//!
//! Be aware that tasks spawned using [`spawn_blocking`] cannot be aborted
//! because they are not async. If you call `abort` on a `spawn_blocking`
//! task, then this *will not have any effect*, and the task will continue
//! running normally. The exception is if the task has not started running
//! yet; in that case, calling `abort` may prevent the task from starting.
//!
//! ### Blocking and Yielding
//!
//! [`spawn_blocking`] runs blocking code on a dedicated thread pool;
//! [`block_in_place`] turns the current worker into a blocking thread (on the
//! multi-thread runtime); [`yield_now`] sends the current task to the back
//! of its scheduler's queue once the scheduler has polled its I/O and timer
//! driver, as tokio does.
//!
//! #### unconstrained
//!
//! Every task has a cooperative [budget](coop); [`unconstrained`] opts a
//! future out of it.
//!
//! # Internals
//!
//! A task is one allocation (`core.rs`) with an atomic state word
//! (`state.rs`). `raw.rs` erases its type behind a vtable, `harness.rs`
//! implements its transitions, `waker.rs` builds wakers on the header, and
//! `list.rs` keeps every live task of a scheduler for shutdown. The handle
//! types that hold a reference:
//!
//! | type           | held by                              |
//! |----------------|--------------------------------------|
//! | `Task`         | the owned-tasks list                 |
//! | `Notified`     | a run queue (at most one per task)   |
//! | `JoinHandle`   | the spawner                          |
//! | `AbortHandle`  | anyone                               |
//! | `Waker`        | whoever will wake the task           |
//! | `UnownedTask`  | the blocking pool (two references)   |

mod abort;
mod blocking;
mod builder;
pub(crate) mod core;
mod error;
mod harness;
mod id;
mod join;
pub mod join_set;
pub(crate) mod list;
pub(crate) mod local;
mod raw;
mod spawn;
mod state;
mod task_local;
mod waker;
mod yield_now;

#[cfg(all(test, loom))]
mod loom_tests;
#[cfg(test)]
pub(crate) mod test_sched;
#[cfg(all(test, not(loom)))]
mod tests;

pub use abort::AbortHandle;
pub use blocking::{block_in_place, spawn_blocking};
pub use builder::Builder;
pub use error::JoinError;
pub use id::{Id, id, try_id};
pub use join::JoinHandle;
pub use join_set::JoinSet;
pub use local::{LocalEnterGuard, LocalSet, spawn_local};
pub(crate) use spawn::BOX_FUTURE_THRESHOLD;
pub use spawn::spawn;
pub use task_local::{AccessError, LocalKey};
pub(crate) use waker::is_task_of;
pub use yield_now::yield_now;

pub use crate::coop::{Unconstrained, consume_budget, unconstrained};

/// Task-related futures (tokio's `task::futures`).
pub mod futures {
    pub use super::task_local::TaskLocalFuture;
}

/// Utilities for improved cooperative scheduling.
pub mod coop {
    pub use crate::coop::{
        Coop, RestoreOnPending, consume_budget, cooperative, has_budget_remaining, poll_proceed,
    };
    pub use crate::coop::{Unconstrained, unconstrained};
}

pub(crate) use self::core::Header;
pub(crate) use self::raw::RawTask;

use std::future::Future;
use std::marker::PhantomData;
use std::mem;
use std::ptr::NonNull;

/// The output of a task, as its `JoinHandle` returns it.
pub(crate) type Result<T> = std::result::Result<T, JoinError>;

/// What a task needs from the scheduler it runs on.
pub(crate) trait Schedule: Sync + Sized + 'static {
    /// The task completed: remove it from the owned-tasks list, returning
    /// the list's reference if it was still there.
    fn release(&self, task: &Task<Self>) -> Option<Task<Self>>;

    /// Queue a woken task (from any thread).
    fn schedule(&self, task: Notified<Self>);

    /// Id of the owned-tasks list (`OwnedTasks::id`) that every task of this
    /// scheduler is bound into, or 0 if its tasks are in none (the default).
    /// A scheduler whose `release` calls `OwnedTasks::remove` must bind every
    /// one of its tasks into that same list (`remove` relies on it). The
    /// task reads its owner through its scheduler, so the header has no
    /// field for it (the header's size is the spawn path's: see
    /// `core::tests::small_task_fits_malloc_fast_bins`).
    fn owner_id(&self) -> u64 {
        0
    }

    /// This scheduler's identity for [`Schedule::wake_here`], or `None` if
    /// no thread ever queues its tasks through a context of its own (the
    /// default). Only compared, never dereferenced.
    fn here_key(&self) -> Option<NonNull<()>> {
        None
    }

    /// On a thread that can queue tasks of the scheduler named by `key`
    /// through its own context (which keeps that scheduler alive without
    /// the task's help), runs `transition` and queues the `Notified` it
    /// returns, if any, touching neither the task nor the scheduler inside
    /// it once the task is queued (another thread may run and free it at
    /// once); returns `transition`'s other result. Elsewhere returns `None`
    /// without running `transition`. A waker consumed on such a thread
    /// hands its reference to the `Notified` (`raw.rs`, `wake_by_val`).
    /// `transition` must not reenter the scheduler: it runs while the
    /// thread's context is borrowed.
    fn wake_here<R>(
        key: NonNull<()>,
        transition: impl FnOnce() -> (Option<Notified<Self>>, R),
    ) -> Option<R> {
        let _ = (key, transition);
        None
    }

    /// A task panicked.
    fn unhandled_panic(&self) {}

    /// The task completed and its output (or error) is visible to its
    /// `JoinHandle`, whose waker has been woken. Called once, from
    /// `complete`, after `release`.
    fn completed(&self) {}

    /// The user's `on_task_terminate` hook, run by `complete` just before
    /// [`completed`](Self::completed) (`runtime/task_hooks.rs`).
    fn terminate_hook(&self) -> Option<&crate::runtime::TaskCallback> {
        None
    }
}

/// The owned-tasks list's reference to a task.
#[repr(transparent)]
pub(crate) struct Task<S: 'static> {
    raw: RawTask,
    _p: PhantomData<S>,
}

// SAFETY: a `Task` only gives access to the header's atomics and to
// operations that run on the task's scheduler (which is `Sync`).
unsafe impl<S> Send for Task<S> {}
// SAFETY: as above.
unsafe impl<S> Sync for Task<S> {}

/// A task that was woken and sits in a run queue.
#[repr(transparent)]
pub(crate) struct Notified<S: 'static>(Task<S>);

// SAFETY: a `Notified` moves between threads in queues; polling it requires
// turning it into a `LocalNotified` through the owning scheduler.
unsafe impl<S: Schedule> Send for Notified<S> {}
// SAFETY: as above.
unsafe impl<S: Schedule> Sync for Notified<S> {}

/// A `Notified` checked to belong to the current thread's scheduler: the
/// only kind that can be run.
pub(crate) struct LocalNotified<S: 'static> {
    task: Task<S>,
    _not_send: PhantomData<*const ()>,
}

/// A task in no owned-tasks list (blocking pool); holds two references.
pub(crate) struct UnownedTask<S: 'static> {
    raw: RawTask,
    _p: PhantomData<S>,
}

// SAFETY: blocking tasks are `Send` (their closure and output are).
unsafe impl<S> Send for UnownedTask<S> {}
// SAFETY: as above.
unsafe impl<S> Sync for UnownedTask<S> {}

/// Where a task was spawned: the user's call, carried down the
/// `#[track_caller]` spawn functions (`runtime::TaskMeta::spawned_at`).
pub(crate) type SpawnLocation = &'static std::panic::Location<'static>;

/// Allocates a task; returns its three references.
pub(crate) fn new_task<T, S>(
    task: T,
    scheduler: S,
    id: Id,
    spawned_at: SpawnLocation,
) -> (Task<S>, Notified<S>, JoinHandle<T::Output>)
where
    S: Schedule,
    T: Future + 'static,
    T::Output: 'static,
{
    let raw = RawTask::new::<T, S>(task, scheduler, id, spawned_at);
    (
        Task::from_raw(raw),
        Notified(Task::from_raw(raw)),
        JoinHandle::new(raw),
    )
}

/// A task for the blocking pool.
pub(crate) fn unowned<T, S>(
    task: T,
    scheduler: S,
    id: Id,
    spawned_at: SpawnLocation,
) -> (UnownedTask<S>, JoinHandle<T::Output>)
where
    S: Schedule,
    T: Send + Future + 'static,
    T::Output: Send + 'static,
{
    let (task, notified, join) = new_task(task, scheduler, id, spawned_at);
    // The unowned task keeps both the list's and the queue's reference.
    let unowned = UnownedTask {
        raw: task.raw,
        _p: PhantomData,
    };
    mem::forget(task);
    mem::forget(notified);
    (unowned, join)
}

impl<S: 'static> Task<S> {
    fn from_raw(raw: RawTask) -> Task<S> {
        Task {
            raw,
            _p: PhantomData,
        }
    }

    pub(crate) fn header(&self) -> &Header {
        self.raw.header()
    }

    pub(crate) fn header_ptr(&self) -> NonNull<Header> {
        self.raw.header_ptr()
    }
}

impl<S: Schedule> Task<S> {
    /// Cancels the task for shutdown; consumes this reference.
    pub(crate) fn shutdown(self) {
        let raw = self.raw;
        mem::forget(self);
        raw.shutdown();
    }
}

impl<S: 'static> Notified<S> {
    fn from_raw(raw: RawTask) -> Notified<S> {
        Notified(Task::from_raw(raw))
    }

    /// The task's header, as a waker's data pointer.
    pub(crate) fn waker_data(&self) -> *const () {
        self.0.header_ptr().as_ptr() as *const ()
    }

    /// Gives up the handle, keeping its reference in the returned pointer
    /// (for intrusive queues).
    pub(crate) fn into_raw(self) -> NonNull<Header> {
        let ptr = self.0.header_ptr();
        mem::forget(self);
        ptr
    }

    /// # Safety
    /// `ptr` must come from `Notified::into_raw` of a `Notified<S>`.
    pub(crate) unsafe fn from_raw_header(ptr: NonNull<Header>) -> Notified<S> {
        // SAFETY: caller's contract.
        Notified(Task::from_raw(unsafe { RawTask::from_raw(ptr) }))
    }
}

impl<S: 'static> LocalNotified<S> {
    pub(crate) fn new(task: Task<S>) -> Self {
        LocalNotified {
            task,
            _not_send: PhantomData,
        }
    }
}

impl<S: Schedule> LocalNotified<S> {
    /// Polls the task (consumes the queue's reference).
    ///
    /// `Some` if the task woke itself while it ran (it yielded): the caller
    /// must queue the returned `Notified` at the back of its run queue, with
    /// its own handle, never through the task (see `harness.rs`).
    #[must_use = "a yielded task is lost unless it is queued again"]
    pub(crate) fn run(self) -> Option<Notified<S>> {
        let raw = self.task.raw;
        mem::forget(self);
        raw.poll().then(|| Notified::from_raw(raw))
    }

    /// [`run`](Self::run) between the runtime's poll hooks, if it has any
    /// (`runtime/task_hooks.rs`). Without hooks this is `run` after one
    /// test; the hooked poll is out of line, so the scheduler's loop keeps
    /// its registers.
    #[inline(always)]
    #[must_use = "a yielded task is lost unless it is queued again"]
    pub(crate) fn run_hooked(self, hooks: &crate::runtime::TaskHooks) -> Option<Notified<S>> {
        if hooks.has_poll_hooks() {
            return self.run_between_hooks(hooks);
        }
        self.run()
    }

    #[cold]
    #[inline(never)]
    fn run_between_hooks(self, hooks: &crate::runtime::TaskHooks) -> Option<Notified<S>> {
        let header = self.task.header();
        let (id, spawned_at) = (header.id(), header.spawned_at());
        hooks.around_poll(id, spawned_at, || self.run())
    }
}

impl<S: Schedule> UnownedTask<S> {
    /// Runs the task and drops both references.
    pub(crate) fn run(self) {
        let raw = self.raw;
        mem::forget(self);
        // The poll consumes the queue's reference (or, if the task woke
        // itself, turns it into a new `Notified`, queued here through the
        // task's own scheduler: the list's reference keeps the task alive
        // across that call)...
        if raw.poll() {
            raw.schedule();
        }
        // ...and this one is the list's, which nobody else holds.
        raw.drop_reference();
    }

    /// Cancels the task without running it, dropping both references.
    pub(crate) fn shutdown(self) {
        let raw = self.raw;
        mem::forget(self);
        raw.shutdown();
        raw.drop_reference();
    }
}

impl<S: 'static> Drop for Task<S> {
    fn drop(&mut self) {
        self.raw.drop_reference();
    }
}

impl<S: 'static> Drop for UnownedTask<S> {
    fn drop(&mut self) {
        if self.raw.header().state.ref_dec_twice() {
            self.raw.dealloc();
        }
    }
}

impl<S> std::fmt::Debug for Task<S> {
    fn fmt(&self, fmt: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(fmt, "Task({:?})", self.header().id())
    }
}

impl<S> std::fmt::Debug for Notified<S> {
    fn fmt(&self, fmt: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(fmt, "task::Notified({:?})", self.0.header().id())
    }
}

/// Sets the current task id for the guard's lifetime (so `task::id()` works
/// in the future's `poll` and `Drop`).
pub(crate) struct TaskIdGuard {
    parent: Option<Id>,
}

impl TaskIdGuard {
    pub(crate) fn enter(id: Id) -> TaskIdGuard {
        TaskIdGuard {
            parent: crate::context::set_current_task_id(Some(id)),
        }
    }
}

impl Drop for TaskIdGuard {
    fn drop(&mut self) {
        crate::context::set_current_task_id(self.parent);
    }
}
