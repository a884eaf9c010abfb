//! `LocalRuntime`: a current-thread runtime that also runs `!Send` tasks.
//!
//! Built as a current-thread [`Runtime`] plus a [`LocalSet`] that every
//! `block_on` drives and enters: inside `block_on` (and inside
//! [`LocalRuntime::enter`]), [`spawn_local`](crate::task::spawn_local)
//! puts tasks on this runtime, from the `block_on` future and from the
//! runtime's other tasks alike. Like the set, a `LocalRuntime` is `!Send`:
//! its local tasks run and are dropped on the thread that owns it.

use crate::runtime::{Builder, EnterGuard, Handle, Runtime, RuntimeMetrics, UnhandledPanic};
use crate::task::{JoinHandle, LocalSet};

use std::fmt;
use std::future::Future;
use std::io;
use std::marker::PhantomData;
use std::time::Duration;

/// [`LocalRuntime`]-only config options.
///
/// Currently, there are no such options, but in the future, things like
/// `!Send + !Sync` hooks may be added.
///
/// Use `LocalOptions::default()` to create the default set of options.
#[derive(Default, Debug)]
#[non_exhaustive]
pub struct LocalOptions {
    /// Marker used to make this !Send and !Sync.
    _phantom: PhantomData<*mut u8>,
}

/// A local runtime: a current-thread runtime that can also run `!Send`
/// futures through [`spawn_local`](crate::task::spawn_local) and
/// [`LocalRuntime::spawn_local`].
///
/// It cannot be moved between threads or driven from different threads;
/// for that, use a [`Runtime`].
///
/// # Examples
///
/// ```
/// use std::rc::Rc;
/// use volt_runtime::runtime::LocalRuntime;
///
/// let rt = LocalRuntime::new().unwrap();
/// let shared = Rc::new(5);
/// let out = rt.block_on(async move {
///     let shared2 = shared.clone();
///     volt_runtime::task::spawn_local(async move { *shared2 * 2 })
///         .await
///         .unwrap()
/// });
/// assert_eq!(out, 10);
/// ```
pub struct LocalRuntime {
    /// Dropped first: local tasks are cancelled while the runtime lives.
    local: LocalSet,
    rt: Runtime,
    _not_send: PhantomData<*const ()>,
}

impl LocalRuntime {
    /// Creates a new local runtime instance with default configuration
    /// values (I/O and time drivers enabled).
    ///
    /// To tweak configuration, use
    /// [`Builder::build_local`](crate::runtime::Builder::build_local).
    pub fn new() -> io::Result<LocalRuntime> {
        Builder::new_current_thread()
            .enable_all()
            .build_local(LocalOptions::default())
    }

    pub(crate) fn from_runtime(rt: Runtime, unhandled_panic: UnhandledPanic) -> LocalRuntime {
        rt.handle()
            .inner
            .set_local_owner(std::thread::current().id());
        LocalRuntime {
            local: LocalSet::for_local_runtime(
                unhandled_panic,
                rt.handle().inner.config().task_hooks.clone(),
            ),
            rt,
            _not_send: PhantomData,
        }
    }

    /// Returns a handle to the runtime's spawner.
    ///
    /// The returned handle can be used to spawn tasks that run on this
    /// runtime, and can be cloned to allow moving the `Handle` to other
    /// threads.
    ///
    /// As the handle can be sent to other threads, it can only be used to
    /// spawn tasks that are `Send`.
    pub fn handle(&self) -> &Handle {
        self.rt.handle()
    }

    /// Spawns a task on the runtime.
    ///
    /// This is analogous to the [`spawn`] method on the standard
    /// [`Runtime`], but works even if the task is not thread-safe.
    ///
    /// [`spawn`]: crate::runtime::Runtime::spawn
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.local.spawn_local(future)
    }

    /// Runs the provided function on a thread from a dedicated blocking
    /// thread pool.
    ///
    /// This function _will_ be run on another thread.
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, func: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.rt.spawn_blocking(func)
    }

    /// Runs a future to completion on the local runtime. This is the
    /// runtime's entry point.
    ///
    /// This runs the given future on the current thread, blocking until it
    /// is complete, and yielding its resolved result. Any tasks or timers
    /// which the future spawns internally will be executed on this runtime.
    ///
    /// # Panics
    ///
    /// This function panics if the provided future panics, or if called
    /// within an asynchronous execution context.
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        // The local context stays entered for the whole call, so the
        // runtime's other tasks can `spawn_local` too.
        let _local = self.local.enter();
        self.local.block_on(&self.rt, future)
    }

    /// Enters the runtime context.
    ///
    /// This allows you to construct types that must have an executor
    /// available on creation such as a timer, and to call
    /// [`spawn_local`](crate::task::spawn_local).
    pub fn enter(&self) -> EnterGuard<'_> {
        let mut guard = self.rt.enter();
        guard.local = Some(self.local.enter());
        guard
    }

    /// Shuts down the runtime, waiting for at most `duration` for all
    /// spawned work to stop.
    ///
    /// Note that `spawn_blocking` tasks, and only `spawn_blocking` tasks,
    /// can get left behind if the timeout expires.
    pub fn shutdown_timeout(self, duration: Duration) {
        let LocalRuntime { local, rt, .. } = self;
        drop(local);
        rt.shutdown_timeout(duration);
    }

    /// Shuts down the runtime, without waiting for any spawned work to
    /// stop.
    ///
    /// This can be useful if you want to drop a runtime from within another
    /// runtime.
    pub fn shutdown_background(self) {
        self.shutdown_timeout(Duration::from_nanos(0));
    }

    /// Returns a view that lets you get information about how the runtime
    /// is performing.
    pub fn metrics(&self) -> RuntimeMetrics {
        self.rt.metrics()
    }
}

impl fmt::Debug for LocalRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalRuntime").finish_non_exhaustive()
    }
}

impl std::panic::UnwindSafe for LocalRuntime {}
impl std::panic::RefUnwindSafe for LocalRuntime {}

impl Builder {
    /// Creates the configured [`LocalRuntime`].
    ///
    /// The returned `LocalRuntime` instance is ready to spawn tasks,
    /// including `!Send` ones.
    ///
    /// # Panics
    ///
    /// This will panic if the builder is not a current-thread one
    /// (`multi_thread is not supported for LocalRuntime`).
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::{Builder, LocalOptions};
    ///
    /// let rt = Builder::new_current_thread()
    ///     .enable_all()
    ///     .build_local(LocalOptions::default())
    ///     .unwrap();
    ///
    /// rt.spawn_local(async {
    ///     println!("Hello from the local runtime");
    /// });
    /// rt.block_on(volt_runtime::task::yield_now());
    /// ```
    ///
    /// [`LocalRuntime`]: crate::runtime::LocalRuntime
    #[track_caller]
    pub fn build_local(&mut self, _options: LocalOptions) -> io::Result<LocalRuntime> {
        if !self.is_current_thread() {
            panic!("multi_thread is not supported for LocalRuntime");
        }
        let rt = self.build_current_thread_runtime()?;
        Ok(LocalRuntime::from_runtime(rt, self.unhandled_panic.clone()))
    }
}
