//! Task hooks: user callbacks the runtime calls when a task is spawned,
//! before and after each of its polls, and when it terminates.
//!
//! tokio has these behind `tokio_unstable`; volt offers them stable, with
//! tokio's names, signatures and call sites. A service built for
//! tokio-console or its own task metrics moves without change.
//!
//! # Where each hook runs
//!
//! * `on_task_spawn`: on the spawning thread, inside the spawn call,
//!   before the task exists (so it always comes before the task's other
//!   hooks; a hook that panics unwinds out of the spawn call and no task
//!   is made). Tasks of `spawn`, `Handle::spawn`, `Runtime::spawn`,
//!   `JoinSet` and `task::Builder`, and a `LocalRuntime`'s `spawn_local`;
//!   not blocking tasks, and not a `LocalSet`'s tasks, as in tokio.
//! * `on_before_task_poll` / `on_after_task_poll`: on the worker, around
//!   each poll of such a task, within the runtime's context. Not around a
//!   blocking closure (it is not polled by a worker).
//! * `on_task_terminate`: once per task that was bound to the runtime,
//!   blocking tasks included, when it completes, is cancelled, or is
//!   dropped unrun at shutdown: after its output (or error) is visible to
//!   its `JoinHandle`. A panic in a poll or terminate hook is caught (the
//!   panic hook has reported it) and the runtime goes on.
//!
//! # Cost
//!
//! Every task stores its spawn location (8 bytes, in the header, as tokio
//! does under `tokio_unstable`). Without hooks, a poll pays a load of one
//! byte and a branch, a spawn and a completion a load and a branch each.

use crate::runtime::Builder;
use crate::task::{Id, SpawnLocation};

use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, Location, catch_unwind};
use std::sync::Arc;

/// Task metadata supplied to user-provided hooks for task events.
///
/// **Note**: tokio offers this type only under `--cfg tokio_unstable`;
/// volt offers it stable, with the same methods.
///
/// # Examples
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
///
/// let polls = Arc::new(AtomicUsize::new(0));
/// let counter = polls.clone();
/// let rt = volt_runtime::runtime::Builder::new_current_thread()
///     .on_before_task_poll(move |meta| {
///         assert_eq!(meta.spawned_at().file(), file!());
///         counter.fetch_add(1, Ordering::Relaxed);
///     })
///     .build()
///     .unwrap();
/// rt.block_on(async { volt_runtime::spawn(async {}).await.unwrap() });
/// assert_eq!(polls.load(Ordering::Relaxed), 1);
/// ```
#[allow(missing_debug_implementations)]
pub struct TaskMeta<'a> {
    id: Id,
    spawned_at: SpawnLocation,
    _phantom: PhantomData<&'a ()>,
}

impl<'a> TaskMeta<'a> {
    pub(crate) fn new(id: Id, spawned_at: SpawnLocation) -> TaskMeta<'a> {
        TaskMeta {
            id,
            spawned_at,
            _phantom: PhantomData,
        }
    }

    /// Return the opaque ID of the task.
    pub fn id(&self) -> Id {
        self.id
    }

    /// Return the source code location where the task was spawned.
    pub fn spawned_at(&self) -> &'static Location<'static> {
        self.spawned_at
    }
}

/// A task hook as the builder stores it.
pub(crate) type TaskCallback = Arc<dyn Fn(&TaskMeta<'_>) + Send + Sync>;

/// The hooks a runtime was built with (all `None` by default).
#[derive(Clone, Default)]
pub(crate) struct TaskHooks {
    pub(crate) spawn: Option<TaskCallback>,
    pub(crate) terminate: Option<TaskCallback>,
    pub(crate) before_poll: Option<TaskCallback>,
    pub(crate) after_poll: Option<TaskCallback>,
    /// Whether either poll hook is set: the one byte a poll looks at.
    has_poll_hooks: bool,
}

impl TaskHooks {
    /// Runs the spawn hook, if any; its panic unwinds into the spawn call.
    #[inline]
    pub(crate) fn spawn(&self, id: Id, spawned_at: SpawnLocation) {
        if let Some(f) = &self.spawn {
            f(&TaskMeta::new(id, spawned_at));
        }
    }

    /// Whether a poll must go through [`around_poll`](Self::around_poll).
    #[inline(always)]
    pub(crate) fn has_poll_hooks(&self) -> bool {
        self.has_poll_hooks
    }

    /// Runs `poll` (of the task `id`) between the poll hooks. The caller
    /// reads the task's metadata before the poll: the task may be freed by
    /// the time it ends.
    #[inline(always)]
    pub(crate) fn around_poll<R>(
        &self,
        id: Id,
        spawned_at: SpawnLocation,
        poll: impl FnOnce() -> R,
    ) -> R {
        call(self.before_poll.as_ref(), id, spawned_at);
        let out = poll();
        call(self.after_poll.as_ref(), id, spawned_at);
        out
    }
}

/// Calls `hook` with the task's metadata, catching its panic.
#[cold]
#[inline(never)]
pub(crate) fn call(hook: Option<&TaskCallback>, id: Id, spawned_at: SpawnLocation) {
    if let Some(f) = hook {
        // The default panic hook has reported the panic; a hook's failure
        // must not take a worker (or a completing task) down with it.
        let _ = catch_unwind(AssertUnwindSafe(|| f(&TaskMeta::new(id, spawned_at))));
    }
}

impl Builder {
    /// Executes function `f` just before a task is spawned.
    ///
    /// `f` is called within the runtime's context, so functions like
    /// [`spawn`](crate::spawn) can be called, and may result in this
    /// callback being invoked immediately.
    ///
    /// This can be used for bookkeeping or monitoring purposes.
    ///
    /// Note: There can only be one spawn callback for a runtime; calling
    /// this function more than once replaces the last callback defined,
    /// rather than adding to it.
    ///
    /// This *does not* support [`LocalSet`](crate::task::LocalSet) at this
    /// time (a [`LocalRuntime`](crate::runtime::LocalRuntime)'s
    /// `spawn_local` is supported), nor blocking tasks.
    ///
    /// **Note**: tokio offers this only under `--cfg tokio_unstable`; volt
    /// offers it stable. The hook runs before the task exists, so it comes
    /// before every other hook of the task.
    ///
    /// # Examples
    ///
    /// ```
    /// # use volt_runtime::runtime;
    /// # pub fn main() {
    /// let runtime = runtime::Builder::new_current_thread()
    ///     .on_task_spawn(|_| {
    ///         println!("spawning task");
    ///     })
    ///     .build()
    ///     .unwrap();
    ///
    /// runtime.block_on(async {
    ///     volt_runtime::task::spawn(std::future::ready(()));
    ///
    ///     for _ in 0..64 {
    ///         volt_runtime::task::yield_now().await;
    ///     }
    /// })
    /// # }
    /// ```
    pub fn on_task_spawn<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn(&TaskMeta<'_>) + Send + Sync + 'static,
    {
        self.task_hooks.spawn = Some(Arc::new(f));
        self
    }

    /// Executes function `f` just before a task is polled.
    ///
    /// `f` is called within the runtime's context, so functions like
    /// [`spawn`](crate::spawn) can be called, and may result in this
    /// callback being invoked immediately.
    ///
    /// **Note**: tokio offers this only under `--cfg tokio_unstable`; volt
    /// offers it stable.
    ///
    /// # Examples
    ///
    /// ```
    /// # use volt_runtime::task::yield_now;
    /// # pub fn main() {
    /// let rt = volt_runtime::runtime::Builder::new_multi_thread()
    ///     .enable_all()
    ///     .on_before_task_poll(move |meta| {
    ///         println!("task {} is about to be polled", meta.id())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let task = rt.spawn(async {
    ///     yield_now().await;
    /// });
    /// let _ = rt.block_on(task);
    /// # }
    /// ```
    pub fn on_before_task_poll<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn(&TaskMeta<'_>) + Send + Sync + 'static,
    {
        self.task_hooks.before_poll = Some(Arc::new(f));
        self.task_hooks.has_poll_hooks = true;
        self
    }

    /// Executes function `f` just after a task is polled.
    ///
    /// `f` is called within the runtime's context, so functions like
    /// [`spawn`](crate::spawn) can be called, and may result in this
    /// callback being invoked immediately.
    ///
    /// **Note**: tokio offers this only under `--cfg tokio_unstable`; volt
    /// offers it stable.
    ///
    /// # Examples
    ///
    /// ```
    /// # use volt_runtime::task::yield_now;
    /// # pub fn main() {
    /// let rt = volt_runtime::runtime::Builder::new_multi_thread()
    ///     .enable_all()
    ///     .on_after_task_poll(move |meta| {
    ///         println!("task {} completed polling", meta.id());
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let task = rt.spawn(async {
    ///     yield_now().await;
    /// });
    /// let _ = rt.block_on(task);
    /// # }
    /// ```
    pub fn on_after_task_poll<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn(&TaskMeta<'_>) + Send + Sync + 'static,
    {
        self.task_hooks.after_poll = Some(Arc::new(f));
        self.task_hooks.has_poll_hooks = true;
        self
    }

    /// Executes function `f` just after a task is terminated.
    ///
    /// `f` is called within the runtime's context, so functions like
    /// [`spawn`](crate::spawn) can be called.
    ///
    /// This can be used for bookkeeping or monitoring purposes.
    ///
    /// Note: There can only be one task termination callback for a runtime;
    /// calling this function more than once replaces the last callback
    /// defined, rather than adding to it.
    ///
    /// This *does not* support [`LocalSet`](crate::task::LocalSet) at this
    /// time (a [`LocalRuntime`](crate::runtime::LocalRuntime)'s
    /// `spawn_local` is supported).
    ///
    /// **Note**: tokio offers this only under `--cfg tokio_unstable`; volt
    /// offers it stable.
    ///
    /// # Examples
    ///
    /// ```
    /// # use volt_runtime::runtime;
    /// # pub fn main() {
    /// let runtime = runtime::Builder::new_current_thread()
    ///     .on_task_terminate(|_| {
    ///         println!("killing task");
    ///     })
    ///     .build()
    ///     .unwrap();
    ///
    /// runtime.block_on(async {
    ///     volt_runtime::task::spawn(std::future::ready(()));
    ///
    ///     for _ in 0..64 {
    ///         volt_runtime::task::yield_now().await;
    ///     }
    /// })
    /// # }
    /// ```
    pub fn on_task_terminate<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn(&TaskMeta<'_>) + Send + Sync + 'static,
    {
        self.task_hooks.terminate = Some(Arc::new(f));
        self
    }
}
