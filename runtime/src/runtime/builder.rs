//! `runtime::Builder`.

use crate::runtime::{Callback, Runtime, ThreadNameFn};

use std::fmt;
use std::io;
use std::sync::Arc;
use std::time::Duration;

/// Builds volt Runtime with custom configuration values.
///
/// Methods can be chained in order to set the configuration values. The
/// Runtime is constructed by calling [`build`].
///
/// New instances of `Builder` are obtained via [`Builder::new_multi_thread`]
/// or [`Builder::new_current_thread`].
///
/// See function level documentation for details on the various configuration
/// settings.
///
/// [`build`]: method@Self::build
/// [`Builder::new_multi_thread`]: method@Self::new_multi_thread
/// [`Builder::new_current_thread`]: method@Self::new_current_thread
///
/// # Examples
///
/// ```
/// use volt_runtime::runtime::Builder;
///
/// fn main() {
///     // build runtime
///     let runtime = Builder::new_multi_thread()
///         .worker_threads(4)
///         .thread_name("my-custom-name")
///         .thread_stack_size(3 * 1024 * 1024)
///         .build()
///         .unwrap();
///
///     // use runtime ...
/// #   drop(runtime);
/// }
/// ```
pub struct Builder {
    kind: Kind,
    pub(crate) enable_io: bool,
    pub(crate) enable_time: bool,
    pub(crate) start_paused: bool,
    /// `None` means the number of cores (or the worker-threads variable).
    pub(crate) worker_threads: Option<usize>,
    pub(crate) max_blocking_threads: usize,
    pub(crate) thread_name: ThreadNameFn,
    pub(crate) thread_stack_size: Option<usize>,
    pub(crate) after_start: Option<Callback>,
    pub(crate) before_stop: Option<Callback>,
    pub(crate) before_park: Option<Callback>,
    pub(crate) after_unpark: Option<Callback>,
    pub(crate) keep_alive: Option<Duration>,
    pub(crate) global_queue_interval: Option<u32>,
    pub(crate) event_interval: u32,
    pub(crate) disable_lifo_slot: bool,
    pub(crate) name: Option<String>,
    /// I/O events taken per driver poll, and per poll that does not wait
    /// (`None`: the same).
    pub(crate) nevents: usize,
    pub(crate) nevents_busy: Option<usize>,
    /// What a spawned task's panic does (`unhandled_panic.rs`).
    pub(crate) unhandled_panic: crate::runtime::UnhandledPanic,
    /// Where the runtime's seeds come from (`rng_seed.rs`).
    pub(crate) seed_generator: crate::runtime::RngSeedGenerator,
    /// The task hooks (`task_hooks.rs`).
    pub(crate) task_hooks: crate::runtime::TaskHooks,
    /// The poll-time histogram (`metrics/poll_time.rs`).
    pub(crate) poll_time_histogram: crate::runtime::metrics::poll_time::PollTimeHistogram,
    /// `enable_eager_driver_handoff`, `enable_alt_timer` (`switches.rs`).
    pub(crate) eager_driver_handoff: bool,
    pub(crate) alt_timer: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    CurrentThread,
    #[cfg(feature = "rt-multi-thread")]
    MultiThread,
}

/// Default number of ticks between driver polls.
const DEFAULT_EVENT_INTERVAL: u32 = 61;
/// Default cap on blocking threads.
const DEFAULT_MAX_BLOCKING_THREADS: usize = 512;
/// Default number of I/O events taken per driver poll (tokio's).
const DEFAULT_NEVENTS: usize = 1024;

impl Builder {
    /// Returns a new builder with the current thread scheduler selected.
    ///
    /// Configuration methods can be chained on the return value.
    ///
    /// To spawn non-`Send` tasks on the resulting runtime, combine it with a
    /// `LocalSet`.
    pub fn new_current_thread() -> Builder {
        Builder::new(Kind::CurrentThread, DEFAULT_EVENT_INTERVAL)
    }

    /// Returns a new builder with the multi thread scheduler selected.
    ///
    /// Configuration methods can be chained on the return value.
    #[cfg(feature = "rt-multi-thread")]
    pub fn new_multi_thread() -> Builder {
        Builder::new(Kind::MultiThread, DEFAULT_EVENT_INTERVAL)
    }

    fn new(kind: Kind, event_interval: u32) -> Builder {
        Builder {
            kind,
            enable_io: false,
            enable_time: false,
            start_paused: false,
            worker_threads: None,
            max_blocking_threads: DEFAULT_MAX_BLOCKING_THREADS,
            thread_name: Arc::new(|| "volt-runtime-worker".into()),
            thread_stack_size: None,
            after_start: None,
            before_stop: None,
            before_park: None,
            after_unpark: None,
            keep_alive: None,
            global_queue_interval: None,
            event_interval,
            disable_lifo_slot: false,
            name: None,
            nevents: DEFAULT_NEVENTS,
            nevents_busy: None,
            unhandled_panic: crate::runtime::UnhandledPanic::Ignore,
            seed_generator: Default::default(),
            task_hooks: Default::default(),
            poll_time_histogram: Default::default(),
            eager_driver_handoff: false,
            alt_timer: false,
        }
    }

    /// Whether this builds a current-thread runtime.
    pub(crate) fn is_current_thread(&self) -> bool {
        self.kind == Kind::CurrentThread
    }

    /// Enables both I/O and time drivers.
    ///
    /// Doing this is a shorthand for calling `enable_io` and `enable_time`
    /// individually. If additional components are added to volt in the
    /// future, `enable_all` will include these future components.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime;
    ///
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .enable_all()
    ///     .build()
    ///     .unwrap();
    /// ```
    pub fn enable_all(&mut self) -> &mut Self {
        self.enable_io = true;
        self.enable_time = true;
        self
    }

    /// Enables the I/O driver.
    ///
    /// Doing this enables using net, process, signal, and some I/O types on
    /// the runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime;
    ///
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .enable_io()
    ///     .build()
    ///     .unwrap();
    /// ```
    pub fn enable_io(&mut self) -> &mut Self {
        self.enable_io = true;
        self
    }

    /// Sets the maximum number of I/O events processed per driver poll
    /// (default 1024). To take a smaller batch on polls that do not wait,
    /// see [`max_io_events_per_busy_tick`](Self::max_io_events_per_busy_tick).
    ///
    /// # Panics
    ///
    /// If `capacity` is zero.
    ///
    /// ```
    /// use volt_runtime::runtime;
    ///
    /// let rt = runtime::Builder::new_current_thread()
    ///     .enable_io()
    ///     .max_io_events_per_tick(1024)
    ///     .build()
    ///     .unwrap();
    /// ```
    #[track_caller]
    pub fn max_io_events_per_tick(&mut self, capacity: usize) -> &mut Self {
        assert!(capacity > 0, "max_io_events_per_tick must be non-zero");
        self.nevents = capacity;
        self
    }

    /// Sets the maximum number of I/O events a worker processes when it
    /// polls the driver while it still has tasks to run (any poll that
    /// does not wait counts as busy). A busy worker polls the driver every
    /// [`event_interval`](Self::event_interval) tasks and queues every
    /// task the poll wakes on itself; a small busy batch leaves the rest in
    /// the kernel instead of overflowing its queue. An idle worker still
    /// takes up to [`max_io_events_per_tick`](Self::max_io_events_per_tick).
    /// The default is the same value as `max_io_events_per_tick`.
    ///
    /// # Panics
    ///
    /// If `capacity` is zero.
    ///
    /// ```
    /// use volt_runtime::runtime;
    ///
    /// let rt = runtime::Builder::new_current_thread()
    ///     .enable_io()
    ///     .max_io_events_per_tick(128)
    ///     .max_io_events_per_busy_tick(8)
    ///     .build()
    ///     .unwrap();
    /// ```
    #[track_caller]
    pub fn max_io_events_per_busy_tick(&mut self, capacity: usize) -> &mut Self {
        assert!(capacity > 0, "max_io_events_per_busy_tick must be non-zero");
        self.nevents_busy = Some(capacity);
        self
    }

    /// Enables the time driver.
    ///
    /// Doing this enables using `volt::time` on the runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime;
    ///
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .enable_time()
    ///     .build()
    ///     .unwrap();
    /// ```
    pub fn enable_time(&mut self) -> &mut Self {
        self.enable_time = true;
        self
    }

    /// Controls if the runtime's clock starts paused or advancing.
    ///
    /// Pausing time requires the current-thread runtime; construction of
    /// the runtime will panic otherwise.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime;
    ///
    /// let rt = runtime::Builder::new_current_thread()
    ///     .enable_time()
    ///     .start_paused(true)
    ///     .build()
    ///     .unwrap();
    /// ```
    #[cfg(feature = "test-util")]
    pub fn start_paused(&mut self, start_paused: bool) -> &mut Self {
        self.start_paused = start_paused;
        self
    }

    /// Sets the number of worker threads the `Runtime` will use.
    ///
    /// This can be any number above 0 though it is advised to keep this
    /// value on the smaller side. This will override the value read from
    /// environment variable `VOLT_WORKER_THREADS` (or `TOKIO_WORKER_THREADS`,
    /// honoured for drop-in compatibility).
    ///
    /// # Default
    ///
    /// The default value is the number of cores available to the system.
    ///
    /// When using the `current_thread` runtime this method has no effect.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime;
    ///
    /// // This will spawn a work-stealing runtime with 4 worker threads.
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .worker_threads(4)
    ///     .build()
    ///     .unwrap();
    ///
    /// rt.spawn(async move {});
    /// ```
    ///
    /// # Panics
    ///
    /// This will panic if `val` is not larger than `0`.
    #[track_caller]
    pub fn worker_threads(&mut self, val: usize) -> &mut Self {
        assert!(val > 0, "Worker threads cannot be set to 0");
        self.worker_threads = Some(val);
        self
    }

    /// Specifies the limit for additional threads spawned by the Runtime.
    ///
    /// These threads are used for blocking operations like tasks spawned
    /// through [`spawn_blocking`], this includes but is not limited to:
    /// - [`fs`] operations
    /// - dns resolution through `ToSocketAddrs`
    /// - writing to `Stdout` or `Stderr`
    /// - reading from `Stdin`
    ///
    /// Unlike the [`worker_threads`], they are not always active and will
    /// exit if left idle for too long. You can change this timeout duration
    /// with [`thread_keep_alive`].
    ///
    /// It's recommended to not set this limit too low in order to avoid
    /// hanging on operations requiring [`spawn_blocking`].
    ///
    /// The default value is 512.
    ///
    /// # Queue Behavior
    ///
    /// When a blocking task is submitted, it will be inserted into a queue.
    /// If available, one of the idle threads will be notified to run the
    /// task. Otherwise, if the threshold set by this method has not been
    /// reached, a new thread will be spawned. If no idle thread is available
    /// and no more threads are allowed to be spawned, the task will remain
    /// in the queue until one of the busy threads pick it up. Note that
    /// since the queue does not apply any backpressure, it could potentially
    /// grow unbounded.
    ///
    /// # Panics
    ///
    /// This will panic if `val` is not larger than `0`.
    ///
    /// # What it counts
    ///
    /// Blocking threads only: the async worker threads
    /// ([`worker_threads`]) are not part of the count, as in tokio 1.x
    /// (tokio 0.2's `max_threads` counted both).
    ///
    /// [`fs`]: https://docs.rs/volt/latest/volt/fs/index.html
    /// [`spawn_blocking`]: fn@crate::task::spawn_blocking
    /// [`worker_threads`]: Self::worker_threads
    /// [`thread_keep_alive`]: Self::thread_keep_alive
    #[track_caller]
    pub fn max_blocking_threads(&mut self, val: usize) -> &mut Self {
        assert!(val > 0, "Max blocking threads cannot be set to 0");
        self.max_blocking_threads = val;
        self
    }

    /// Sets name of threads spawned by the `Runtime`'s thread pool.
    ///
    /// The default name is "volt-runtime-worker".
    ///
    /// # Examples
    ///
    /// ```
    /// # use volt_runtime::runtime;
    /// # pub fn main() {
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .thread_name("my-pool")
    ///     .build();
    /// # }
    /// ```
    pub fn thread_name(&mut self, val: impl Into<String>) -> &mut Self {
        let val = val.into();
        self.thread_name = Arc::new(move || val.clone());
        self
    }

    /// Sets the name of the runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// # use volt_runtime::runtime;
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .name("my-runtime")
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(rt.handle().name(), Some("my-runtime"));
    /// ```
    ///
    /// # Panics
    ///
    /// This function will panic if an empty value is passed as an argument.
    #[track_caller]
    pub fn name(&mut self, val: impl Into<String>) -> &mut Self {
        let val = val.into();
        assert!(!val.trim().is_empty(), "runtime name shouldn't be empty");
        self.name = Some(val);
        self
    }

    /// Sets a function used to generate the name of threads spawned by the
    /// `Runtime`'s thread pool.
    ///
    /// The default name fn is `|| "volt-runtime-worker".into()`.
    ///
    /// # Examples
    ///
    /// ```
    /// # use volt_runtime::runtime;
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # pub fn main() {
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .thread_name_fn(|| {
    ///        static ATOMIC_ID: AtomicUsize = AtomicUsize::new(0);
    ///        let id = ATOMIC_ID.fetch_add(1, Ordering::SeqCst);
    ///        format!("my-pool-{}", id)
    ///     })
    ///     .build();
    /// # }
    /// ```
    pub fn thread_name_fn<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() -> String + Send + Sync + 'static,
    {
        self.thread_name = Arc::new(f);
        self
    }

    /// Sets the stack size (in bytes) for worker threads.
    ///
    /// The actual stack size may be greater than this value if the platform
    /// specifies minimal stack size.
    ///
    /// The default stack size for spawned threads is 2 MiB, though this
    /// particular stack size is subject to change in the future.
    ///
    /// # Examples
    ///
    /// ```
    /// # use volt_runtime::runtime;
    /// # pub fn main() {
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .thread_stack_size(32 * 1024)
    ///     .build();
    /// # }
    /// ```
    pub fn thread_stack_size(&mut self, val: usize) -> &mut Self {
        self.thread_stack_size = Some(val);
        self
    }

    /// Executes function `f` after each thread is started but before it
    /// starts doing work.
    ///
    /// This is intended for bookkeeping and monitoring use cases.
    ///
    /// # Examples
    ///
    /// ```
    /// # use volt_runtime::runtime;
    /// # pub fn main() {
    /// let runtime = runtime::Builder::new_multi_thread()
    ///     .on_thread_start(|| {
    ///         println!("thread started");
    ///     })
    ///     .build();
    /// # }
    /// ```
    pub fn on_thread_start<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.after_start = Some(Arc::new(f));
        self
    }

    /// Executes function `f` before each thread stops.
    ///
    /// This is intended for bookkeeping and monitoring use cases.
    ///
    /// # Examples
    ///
    /// ```
    /// # use volt_runtime::runtime;
    /// # pub fn main() {
    /// let runtime = runtime::Builder::new_multi_thread()
    ///     .on_thread_stop(|| {
    ///         println!("thread stopping");
    ///     })
    ///     .build();
    /// # }
    /// ```
    pub fn on_thread_stop<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.before_stop = Some(Arc::new(f));
        self
    }

    /// Executes function `f` just before a thread is parked (goes idle).
    /// `f` is called within the volt context, so functions like
    /// [`volt::spawn`](crate::spawn) can be called, and may result in this
    /// thread being unparked immediately.
    ///
    /// This can be used to start work only when the executor is idle, or for
    /// bookkeeping and monitoring purposes.
    ///
    /// Note: There can only be one park callback for a runtime; calling this
    /// function more than once replaces the last callback defined, rather
    /// than adding to it.
    ///
    /// # Examples
    ///
    /// ```
    /// # use volt_runtime::runtime;
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # pub fn main() {
    /// let parks = std::sync::Arc::new(AtomicUsize::new(0));
    /// let p = parks.clone();
    /// let rt = runtime::Builder::new_current_thread()
    ///     .on_thread_park(move || {
    ///         p.fetch_add(1, Ordering::Relaxed);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// # }
    /// ```
    pub fn on_thread_park<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.before_park = Some(Arc::new(f));
        self
    }

    /// Executes function `f` just after a thread unparks (starts executing
    /// tasks).
    ///
    /// This is intended for bookkeeping and monitoring use cases; note that
    /// work in this callback will increase latencies when the application
    /// has allowed one or more runtime threads to go idle.
    ///
    /// Note: There can only be one unpark callback for a runtime; calling
    /// this function more than once replaces the last callback defined,
    /// rather than adding to it.
    ///
    /// # Examples
    ///
    /// ```
    /// # use volt_runtime::runtime;
    /// # pub fn main() {
    /// let runtime = runtime::Builder::new_multi_thread()
    ///     .on_thread_unpark(|| {
    ///         println!("thread unparking");
    ///     })
    ///     .build();
    /// # }
    /// ```
    pub fn on_thread_unpark<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.after_unpark = Some(Arc::new(f));
        self
    }

    /// Creates the configured `Runtime`.
    ///
    /// The returned `Runtime` instance is ready to spawn tasks.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::Builder;
    ///
    /// let rt  = Builder::new_multi_thread().build().unwrap();
    ///
    /// rt.block_on(async {
    ///     println!("Hello from the volt runtime");
    /// });
    /// ```
    pub fn build(&mut self) -> io::Result<Runtime> {
        let rt = match &self.kind {
            Kind::CurrentThread => self.build_current_thread_runtime(),
            #[cfg(feature = "rt-multi-thread")]
            Kind::MultiThread => self.build_threaded_runtime(),
        }?;
        crate::util::trace::runtime_event(rt.handle(), "runtime started");
        Ok(rt)
    }

    /// Sets a custom timeout for a thread in the blocking pool.
    ///
    /// By default, the timeout for a thread is set to 10 seconds. This can
    /// be overridden using `.thread_keep_alive()`.
    ///
    /// # Example
    ///
    /// ```
    /// # use volt_runtime::runtime;
    /// # use std::time::Duration;
    /// # pub fn main() {
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .thread_keep_alive(Duration::from_millis(100))
    ///     .build();
    /// # }
    /// ```
    pub fn thread_keep_alive(&mut self, duration: Duration) -> &mut Self {
        self.keep_alive = Some(duration);
        self
    }

    /// Sets the number of scheduler ticks after which the scheduler will
    /// poll the global task queue.
    ///
    /// A scheduler "tick" roughly corresponds to one `poll` invocation on a
    /// task.
    ///
    /// By default the global queue interval is 31 for the current-thread
    /// scheduler. The multi-thread scheduler, unless this is set, tunes it
    /// on each worker from the mean time its task polls take: it aims at a
    /// check of the global queue every 200 µs, between 2 and 127 ticks
    /// apart, starting at 61 (tokio's heuristic). An interval set here is
    /// never tuned.
    ///
    /// Schedulers have a local queue of already-claimed tasks, and a global
    /// queue of incoming tasks. Setting the interval to a smaller value
    /// increases the fairness of the scheduler, at the cost of more
    /// synchronization overhead. That can be beneficial for prioritizing
    /// getting started on new work, especially if tasks frequently yield
    /// rather than complete or await on further I/O. Setting the interval to
    /// `1` will prioritize the global queue and tasks from the local queue
    /// will be executed only if the global queue is empty. Conversely, a
    /// higher value prioritizes existing work, and is a good choice when
    /// most tasks quickly complete polling.
    ///
    /// # Panics
    ///
    /// This function will panic if 0 is passed as an argument.
    ///
    /// # Examples
    ///
    /// ```
    /// # use volt_runtime::runtime;
    /// # pub fn main() {
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .global_queue_interval(31)
    ///     .build();
    /// # }
    /// ```
    #[track_caller]
    pub fn global_queue_interval(&mut self, val: u32) -> &mut Self {
        assert!(val > 0, "global_queue_interval must be greater than 0");
        self.global_queue_interval = Some(val);
        self
    }

    /// Sets the number of scheduler ticks after which the scheduler will
    /// poll for external events (timers, I/O, and so on).
    ///
    /// A scheduler "tick" roughly corresponds to one `poll` invocation on a
    /// task.
    ///
    /// By default, the event interval is `61` for all scheduler types.
    ///
    /// Setting the event interval determines the effective "priority" of
    /// delivering these external events (which may wake up additional
    /// tasks), compared to executing tasks that are currently ready to run.
    /// A smaller value is useful when tasks frequently spend a long time in
    /// polling, or frequently yield, which can result in overly long delays
    /// picking up I/O events. Conversely, picking up new events requires
    /// extra synchronization and syscall overhead, so if tasks generally
    /// complete their polling quickly, a higher event interval will minimize
    /// that overhead while still keeping the scheduler responsive to events.
    ///
    /// # Panics
    ///
    /// This function will panic if 0 is passed as an argument.
    ///
    /// # Examples
    ///
    /// ```
    /// # use volt_runtime::runtime;
    /// # pub fn main() {
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .event_interval(31)
    ///     .build();
    /// # }
    /// ```
    #[track_caller]
    pub fn event_interval(&mut self, val: u32) -> &mut Self {
        assert!(val > 0, "event_interval must be greater than 0");
        self.event_interval = val;
        self
    }

    /// Disables the LIFO task scheduler heuristic.
    ///
    /// The multi-threaded scheduler includes a heuristic for optimizing
    /// message-passing patterns. This heuristic results in the **last**
    /// scheduled task being polled first.
    ///
    /// To implement this heuristic, each worker thread has a slot which
    /// holds the task that should be polled next. However, this slot cannot
    /// be stolen by other worker threads, which can result in lower total
    /// throughput when tasks tend to have longer poll times.
    ///
    /// This configuration option will disable this heuristic resulting in
    /// all scheduled tasks being pushed into the worker-local queue, which
    /// is stealable. Each such push wakes an idle worker, so a task woken by
    /// a poll that then runs long is taken by another worker instead of
    /// waiting for that poll to end.
    ///
    /// (tokio has this behind `tokio_unstable`; volt offers it stable.)
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime;
    ///
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .disable_lifo_slot()
    ///     .build()
    ///     .unwrap();
    /// ```
    pub fn disable_lifo_slot(&mut self) -> &mut Self {
        self.disable_lifo_slot = true;
        self
    }
}

impl fmt::Debug for Builder {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("Builder")
            .field("worker_threads", &self.worker_threads)
            .field("max_blocking_threads", &self.max_blocking_threads)
            .field(
                "thread_name",
                &"<dyn Fn() -> String + Send + Sync + 'static>",
            )
            .field("thread_stack_size", &self.thread_stack_size)
            .field("after_start", &self.after_start.as_ref().map(|_| "..."))
            .field("before_stop", &self.before_stop.as_ref().map(|_| "..."))
            .field("before_park", &self.before_park.as_ref().map(|_| "..."))
            .field("after_unpark", &self.after_unpark.as_ref().map(|_| "..."))
            .finish()
    }
}
