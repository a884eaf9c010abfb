//! `runtime::Handle`, `EnterGuard`, `TryCurrentError`.

use crate::context::{self, CONTEXT_MISSING_ERROR, SetCurrentGuard, THREAD_LOCAL_DESTROYED_ERROR};
use crate::runtime::{Id, RuntimeFlavor, RuntimeMetrics};
use crate::scheduler;
use crate::task::JoinHandle;

use std::error::Error;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;

/// Handle to the runtime.
///
/// The handle is internally reference-counted and can be freely cloned. A
/// handle can be obtained using the [`Runtime::handle`] method.
///
/// [`Runtime::handle`]: crate::runtime::Runtime::handle()
#[derive(Debug, Clone)]
pub struct Handle {
    pub(crate) inner: scheduler::Handle,
}

/// Runtime context guard.
///
/// Returned by [`Runtime::enter`] and [`Handle::enter`], the context guard
/// exits the runtime context on drop.
///
/// [`Runtime::enter`]: fn@crate::runtime::Runtime::enter
#[derive(Debug)]
#[must_use = "Creating and dropping a guard does nothing"]
pub struct EnterGuard<'a> {
    /// A `LocalRuntime`'s local-task context (left before the runtime's).
    pub(crate) local: Option<crate::task::LocalEnterGuard>,
    _guard: SetCurrentGuard,
    _handle_lifetime: PhantomData<&'a Handle>,
}

// SAFETY: a shared `&EnterGuard` gives access to nothing but `Debug`, which
// reads the `SetCurrentGuard`'s depth (a `usize`) and prints nothing of the
// `LocalEnterGuard`; the thread-bound parts (the saved handle and local
// context, restored on this thread) are touched only by `Drop`, through
// `&mut`. The guard stays `!Send`, as tokio's is (`!Send + Sync`).
unsafe impl Sync for EnterGuard<'_> {}

impl Handle {
    /// Enters the runtime context. This allows you to construct types that
    /// must have an executor available on creation such as a timer or a TCP
    /// socket. It will also allow you to call methods such as
    /// [`volt::spawn`] and [`Handle::current`] without panicking.
    ///
    /// # Panics
    ///
    /// When calling `Handle::enter` multiple times, the returned guards
    /// **must** be dropped in the reverse order that they were acquired.
    /// Failure to do so will result in a panic and possible memory leaks.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::Runtime;
    ///
    /// let rt = Runtime::new().unwrap();
    ///
    /// let _guard = rt.enter();
    /// volt_runtime::spawn(async {
    ///     println!("Hello world!");
    /// });
    /// ```
    ///
    /// Do **not** do the following, this shows a scenario that will result
    /// in a panic and possible memory leak.
    ///
    /// ```should_panic
    /// use volt_runtime::runtime::Runtime;
    ///
    /// let rt1 = Runtime::new().unwrap();
    /// let rt2 = Runtime::new().unwrap();
    ///
    /// let enter1 = rt1.enter();
    /// let enter2 = rt2.enter();
    ///
    /// drop(enter1);
    /// drop(enter2);
    /// ```
    ///
    /// [`volt::spawn`]: fn@crate::spawn
    pub fn enter(&self) -> EnterGuard<'_> {
        EnterGuard {
            local: None,
            _guard: match context::try_set_current(&self.inner) {
                Some(guard) => guard,
                None => panic!("{}", THREAD_LOCAL_DESTROYED_ERROR),
            },
            _handle_lifetime: PhantomData,
        }
    }

    /// Returns a `Handle` view over the currently running `Runtime`.
    ///
    /// # Panics
    ///
    /// This will panic if called outside the context of a volt runtime.
    /// That means that you must call this on one of the threads **being run
    /// by the runtime**, or from a thread with an active `EnterGuard`.
    /// Calling this from within a thread created by `std::thread::spawn`
    /// (for example) will cause a panic unless that thread has an active
    /// `EnterGuard`.
    ///
    /// # Examples
    ///
    /// This can be used to obtain the handle of the surrounding runtime from
    /// an async block or function running on that runtime.
    ///
    /// ```
    /// # use std::thread;
    /// # use volt_runtime::runtime::Runtime;
    /// # fn dox() {
    /// # let rt = Runtime::new().unwrap();
    /// # rt.spawn(async {
    /// use volt_runtime::runtime::Handle;
    ///
    /// // Inside an async block or function.
    /// let handle = Handle::current();
    /// handle.spawn(async {
    ///     println!("now running in the existing Runtime");
    /// });
    ///
    /// # let handle =
    /// thread::spawn(move || {
    ///     // Notice that the handle is created outside of this thread and
    ///     // then moved in
    ///     handle.spawn(async { /* ... */ });
    ///     // This next line would cause a panic because we haven't entered
    ///     // the runtime and created an EnterGuard
    ///     // let handle2 = Handle::current(); // panic
    ///     // So we create a guard here with Handle::enter();
    ///     let _guard = handle.enter();
    ///     // Now we can call Handle::current();
    ///     let handle2 = Handle::current();
    /// });
    /// # handle.join().unwrap();
    /// # });
    /// # }
    /// ```
    #[track_caller]
    pub fn current() -> Self {
        match context::with_current(Clone::clone) {
            Ok(inner) => Handle { inner },
            Err(e) => panic!("{}", e),
        }
    }

    /// Returns a Handle view over the currently running Runtime
    ///
    /// Returns an error if no Runtime has been started
    ///
    /// Contrary to `current`, this never panics
    ///
    /// ```
    /// use volt_runtime::runtime::Handle;
    ///
    /// assert!(Handle::try_current().unwrap_err().is_missing_context());
    /// ```
    pub fn try_current() -> Result<Self, TryCurrentError> {
        context::with_current(|inner| Handle {
            inner: inner.clone(),
        })
    }

    /// Spawns a future onto the volt runtime.
    ///
    /// This spawns the given future onto the runtime's executor, usually a
    /// thread pool. The thread pool is then responsible for polling the
    /// future until it completes.
    ///
    /// The provided future will start running in the background immediately
    /// when `spawn` is called, even if you don't await the returned
    /// `JoinHandle`.
    ///
    /// See [module level][mod] documentation for more details.
    ///
    /// [mod]: index.html
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::Runtime;
    ///
    /// # fn dox() {
    /// // Create the runtime
    /// let rt = Runtime::new().unwrap();
    /// // Get a handle from this runtime
    /// let handle = rt.handle();
    ///
    /// // Spawn a future onto the runtime using the handle
    /// handle.spawn(async {
    ///     println!("now running on a worker thread");
    /// });
    /// # }
    /// ```
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let id = crate::task::Id::next();
        let spawned_at = std::panic::Location::caller();
        let size = std::mem::size_of::<F>();
        if size > crate::task::BOX_FUTURE_THRESHOLD {
            let future = crate::util::trace::task(Box::pin(future), "task", id, Some(size));
            self.inner.spawn(future, id, spawned_at)
        } else {
            let future = crate::util::trace::task(future, "task", id, None);
            self.inner.spawn(future, id, spawned_at)
        }
    }

    /// Runs the provided function on an executor dedicated to blocking
    /// operations.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::Runtime;
    ///
    /// # fn dox() {
    /// // Create the runtime
    /// let rt = Runtime::new().unwrap();
    /// // Get a handle from this runtime
    /// let handle = rt.handle();
    ///
    /// // Spawn a blocking function onto the runtime using the handle
    /// handle.spawn_blocking(|| {
    ///     println!("now running on a worker thread");
    /// });
    /// # }
    /// ```
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, func: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.inner.blocking_spawner().spawn_blocking(self, func)
    }

    /// Runs a future to completion on this `Handle`'s associated `Runtime`.
    ///
    /// This runs the given future on the current thread, blocking until it
    /// is complete, and yielding its resolved result. Any tasks or timers
    /// which the future spawns internally will be executed on the runtime.
    ///
    /// When this is used on a `current_thread` runtime, only the
    /// [`Runtime::block_on`] method can drive the IO and timer drivers, but
    /// the `Handle::block_on` method cannot drive them. This means that, when
    /// using this method on a `current_thread` runtime, anything that relies
    /// on IO or timers will not work unless there is another thread
    /// currently calling [`Runtime::block_on`] on the same runtime.
    ///
    /// # If the runtime has been shut down
    ///
    /// If the `Handle`'s associated `Runtime` has been shut down (through
    /// [`Runtime::shutdown_background`], [`Runtime::shutdown_timeout`], or
    /// by dropping it) and `Handle::block_on` is used it might return an
    /// error or panic, depending on the resources it uses.
    ///
    /// # Panics
    ///
    /// This function panics if the provided future panics, if called within
    /// an asynchronous execution context.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::Runtime;
    ///
    /// // Create the runtime
    /// let rt  = Runtime::new().unwrap();
    ///
    /// // Get a handle from this runtime
    /// let handle = rt.handle();
    ///
    /// // Execute the future, blocking the current thread until completion
    /// handle.block_on(async {
    ///     println!("hello");
    /// });
    /// ```
    ///
    /// Or using `Handle::current`:
    ///
    /// ```
    /// use volt_runtime::runtime::Handle;
    ///
    /// # fn main() {
    /// # let rt = volt_runtime::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// // Get a handle from this runtime
    /// let handle = Handle::current();
    /// std::thread::spawn(move || {
    ///     // Using Handle::block_on to run async code in the new thread.
    ///     handle.block_on(async {
    ///         println!("hello");
    ///     });
    /// }).join().unwrap();
    /// # });
    /// # }
    /// ```
    ///
    /// [`Runtime::block_on`]: fn@crate::runtime::Runtime::block_on
    /// [`Runtime::shutdown_background`]: fn@crate::runtime::Runtime::shutdown_background
    /// [`Runtime::shutdown_timeout`]: fn@crate::runtime::Runtime::shutdown_timeout
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        if std::mem::size_of::<F>() > crate::task::BOX_FUTURE_THRESHOLD {
            self.block_on_inner(Box::pin(future))
        } else {
            self.block_on_inner(future)
        }
    }

    #[track_caller]
    fn block_on_inner<F: Future>(&self, future: F) -> F::Output {
        // Enter the runtime context. This sets the current driver handles
        // and prevents blocking an existing runtime.
        context::enter_runtime(&self.inner, true, |blocking| {
            blocking.block_on(future).expect("failed to park thread")
        })
    }

    /// Returns the flavor of the current `Runtime`.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::{Handle, RuntimeFlavor};
    ///
    /// let rt = volt_runtime::runtime::Builder::new_current_thread().build().unwrap();
    /// assert_eq!(RuntimeFlavor::CurrentThread, rt.handle().runtime_flavor());
    /// ```
    ///
    /// ```
    /// use volt_runtime::runtime::{Handle, RuntimeFlavor};
    ///
    /// let rt = volt_runtime::runtime::Builder::new_multi_thread().worker_threads(4).build().unwrap();
    /// assert_eq!(RuntimeFlavor::MultiThread, rt.handle().runtime_flavor());
    /// ```
    pub fn runtime_flavor(&self) -> RuntimeFlavor {
        self.inner.runtime_flavor()
    }

    /// Returns the [`Id`] of the current `Runtime`.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::Handle;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// println!("Current runtime id: {}", Handle::current().id());
    /// # });
    /// ```
    pub fn id(&self) -> Id {
        Id::new(self.inner.owned_id())
    }

    /// Returns the name of the current `Runtime`, if it was given one with
    /// [`Builder::name`](crate::runtime::Builder::name).
    pub fn name(&self) -> Option<&str> {
        self.inner.name()
    }

    /// Returns a view that lets you get information about how the runtime
    /// is performing.
    pub fn metrics(&self) -> RuntimeMetrics {
        RuntimeMetrics::new(self.clone())
    }
}

impl std::panic::UnwindSafe for Handle {}
impl std::panic::RefUnwindSafe for Handle {}

/// Error returned by `try_current` when no Runtime has been started
#[derive(Debug, PartialEq, Eq)]
pub struct TryCurrentError {
    kind: TryCurrentErrorKind,
}

impl TryCurrentError {
    pub(crate) fn new_no_context() -> Self {
        Self {
            kind: TryCurrentErrorKind::NoContext,
        }
    }

    pub(crate) fn new_thread_local_destroyed() -> Self {
        Self {
            kind: TryCurrentErrorKind::ThreadLocalDestroyed,
        }
    }

    /// Returns true if the call failed because there is currently no runtime
    /// in the volt context.
    pub fn is_missing_context(&self) -> bool {
        matches!(self.kind, TryCurrentErrorKind::NoContext)
    }

    /// Returns true if the call failed because the volt context thread-local
    /// had been destroyed. This can usually only happen if in the destructor
    /// of other thread-locals.
    pub fn is_thread_local_destroyed(&self) -> bool {
        matches!(self.kind, TryCurrentErrorKind::ThreadLocalDestroyed)
    }
}

#[derive(Debug, PartialEq, Eq)]
enum TryCurrentErrorKind {
    NoContext,
    ThreadLocalDestroyed,
}

impl fmt::Display for TryCurrentErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryCurrentErrorKind::NoContext => f.write_str(CONTEXT_MISSING_ERROR),
            TryCurrentErrorKind::ThreadLocalDestroyed => f.write_str(THREAD_LOCAL_DESTROYED_ERROR),
        }
    }
}

impl fmt::Display for TryCurrentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.kind, f)
    }
}

impl Error for TryCurrentError {}
