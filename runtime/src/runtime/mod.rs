//! The volt runtime.
//!
//! Unlike other Rust programs, asynchronous applications require runtime
//! support. In particular, the following runtime services are necessary:
//!
//! * An **I/O event loop**, called the driver, which drives I/O resources
//!   and dispatches I/O events to tasks that depend on them.
//! * A **scheduler** to execute [tasks] that use these I/O resources.
//! * A **timer** for scheduling work to run after a set period of time.
//!
//! volt's [`Runtime`] bundles all of these services as a single type,
//! allowing them to be started, shut down, and configured together.
//! However, often it is not required to configure a `Runtime` manually, and
//! a user may just use the `#[volt::main]` attribute macro, which creates a
//! `Runtime` under the hood.
//!
//! # Usage
//!
//! When no fine tuning is required, the `#[volt::main]` attribute macro can
//! be used. A `Runtime` instance can also be created with [`Runtime::new`]
//! or a [`Builder`]:
//!
//! ```
//! use volt_runtime::runtime::Runtime;
//!
//! // Create the runtime
//! let rt = Runtime::new().unwrap();
//!
//! // Spawn a future onto the runtime
//! let handle = rt.spawn(async { 6 * 7 });
//!
//! // Wait for it from outside the runtime
//! assert_eq!(rt.block_on(handle).unwrap(), 42);
//! ```
//!
//! ## Runtime Configurations
//!
//! volt provides multiple task scheduling strategies, suitable for different
//! applications. The [runtime builder] or `#[volt::main]` attribute may be
//! used to select which scheduler to use.
//!
//! #### Multi-Thread Scheduler
//!
//! The multi-thread scheduler executes futures on a _thread pool_, using a
//! work-stealing strategy. By default, it will start a worker thread for
//! each CPU core available on the system. This tends to be the ideal
//! configuration for most applications. The multi-thread scheduler requires
//! the `rt-multi-thread` feature flag, and is selected by default.
//!
//! #### Current-Thread Scheduler
//!
//! The current-thread scheduler provides a _single-threaded_ future
//! executor. All tasks will be created and executed on the current thread.
//! This requires the `rt` feature flag.
//!
//! ```
//! use volt_runtime::runtime;
//!
//! let rt = runtime::Builder::new_current_thread()
//!     .build()
//!     .unwrap();
//! # drop(rt);
//! ```
//!
//! ## Lifetime of spawned threads
//!
//! The runtime may spawn threads depending on its configuration and usage.
//! The multi-thread scheduler spawns threads to schedule tasks and for
//! `spawn_blocking` calls.
//!
//! While the `Runtime` is active, threads may shut down after periods of
//! being idle. Once `Runtime` is dropped, all runtime threads have usually
//! been terminated, but in the presence of unstoppable spawned work are not
//! guaranteed to have been terminated. See the [struct level
//! documentation](Runtime#shutdown) for more details.
//!
//! # Detailed runtime behavior
//!
//! This section describes what the runtime promises, and then how its two
//! schedulers work today. The promise is tokio's; the rest may change
//! between versions, as it may in tokio.
//!
//! ## Fairness
//!
//! If no task blocks its thread, and the number of tasks does not grow
//! without bound, every woken task is polled within some bounded delay.
//! More precisely: if at most `MAX_TASKS` tasks exist at any moment and
//! every poll returns within `MAX_SCHEDULE`, there is a `MAX_DELAY`
//! (which the runtime picks from the other two) within which a woken task
//! is polled.
//!
//! Nothing else about the order of polls is promised. Two ready tasks need
//! not take turns: one may be polled several times before the other, even
//! if it calls [`yield_now`]. And a task may be polled without having been
//! woken (a spurious wake-up), so a future must not assume a poll means a
//! wake.
//!
//! ## I/O and timers
//!
//! The runtime checks for ready I/O resources and expired timers between
//! task polls: whenever it has no task to poll, and otherwise every
//! [`event_interval`] polls (61 unless set). Under the assumptions above, a
//! task waiting on I/O or a timer is woken within a bounded delay of the
//! event.
//!
//! A task that yields, by [`yield_now`] or because it ran out of its
//! [coop budget], is polled again only after the next such check: a task
//! that yields in a loop while it waits for I/O lets the I/O in first.
//!
//! ## Current-thread runtime (today)
//!
//! The runtime keeps two FIFO queues of ready tasks: a local one, for
//! tasks woken on the thread that runs the runtime, and a global one, for
//! tasks woken or spawned from any other thread. It takes the next task
//! from the local queue, except when that is empty, or when it has taken
//! 31 tasks from it in a row; then it looks at the global queue first. The
//! 31 can be changed with [`global_queue_interval`].
//!
//! ## Multi-thread runtime (today)
//!
//! The runtime starts a fixed number of worker threads, one per CPU core
//! unless [`worker_threads`] says otherwise. Each worker has a local queue
//! of at most 256 tasks; when it is full, half of it moves to the one
//! global queue. A task woken or spawned on a worker goes to that worker;
//! from any other thread, to the global queue.
//!
//! A worker takes the next task from its local queue, except when that is
//! empty, or when it has taken [`global_queue_interval`] tasks from it in
//! a row; then it looks at the global queue first. Unless the builder sets
//! that interval, each worker tunes it from the mean time its polls take
//! ([`worker_mean_poll_time`]), so that it looks at the global queue about
//! every 200 µs: between 2 and 127 polls apart, 61 to start with. With
//! both queues empty, a worker steals half of another worker's local queue,
//! and sleeps if there is nothing to steal.
//!
//! Workers use the LIFO slot: a task woken by the task running on a worker
//! goes into that worker's LIFO slot instead of its queue, and runs as soon
//! as the current poll ends, within the same [coop budget]. A task already
//! in the slot moves to the back of the queue. After three LIFO polls in a
//! row the slot is off until the worker polls a task from a queue, so a
//! pair of tasks that keep waking each other cannot starve the rest. Other
//! workers cannot steal from the slot. [`disable_lifo_slot`] turns it off.
//!
//! [tasks]: crate::task
//! [runtime builder]: crate::runtime::Builder
//! [`yield_now`]: crate::task::yield_now
//! [coop budget]: crate::task::coop
//! [`event_interval`]: crate::runtime::Builder::event_interval
//! [`global_queue_interval`]: crate::runtime::Builder::global_queue_interval
//! [`worker_threads`]: crate::runtime::Builder::worker_threads
//! [`disable_lifo_slot`]: crate::runtime::Builder::disable_lifo_slot
//! [`worker_mean_poll_time`]: crate::runtime::RuntimeMetrics::worker_mean_poll_time

mod assemble;
mod builder;
mod handle;
mod local_runtime;
pub(crate) mod metrics;
mod rng_seed;
#[allow(clippy::module_inception)]
mod runtime;
mod switches;
pub(crate) mod task_hooks;
mod unhandled_panic;

pub use builder::Builder;
pub use handle::{EnterGuard, Handle, TryCurrentError};
pub use local_runtime::{LocalOptions, LocalRuntime};
pub use metrics::RuntimeMetrics;
pub use metrics::histogram::{
    HistogramConfiguration, HistogramScale, InvalidHistogramConfiguration, LogHistogram,
    LogHistogramBuilder,
};
pub use rng_seed::RngSeed;
pub(crate) use rng_seed::RngSeedGenerator;
pub use runtime::{Runtime, RuntimeFlavor};
pub use task_hooks::TaskMeta;
pub(crate) use task_hooks::{TaskCallback, TaskHooks};
pub(crate) use unhandled_panic::SHUTDOWN_PANIC;
pub use unhandled_panic::UnhandledPanic;

/// Returns the index of the current worker thread, if called from a
/// runtime worker thread.
///
/// The returned value is a 0-based index matching the worker indices used
/// by [`RuntimeMetrics`] methods such as
/// [`worker_total_busy_duration`](RuntimeMetrics::worker_total_busy_duration).
///
/// Returns `None` when called from outside a runtime worker thread (for
/// example, from a blocking thread or a thread that is not the runtime's).
/// On the multi-thread runtime, the thread that calls [`Runtime::block_on`]
/// is not a worker thread, so this also returns `None` there.
///
/// For the current-thread runtime, this returns `Some(0)` when called from
/// the thread that currently owns the runtime driver. If multiple threads
/// call [`Runtime::block_on`] concurrently, calls on threads that do not
/// own the driver return `None`. A [`LocalRuntime`] can only be driven from
/// its owning thread, so calls inside `block_on` always return `Some(0)`.
///
/// Note that the result may change across `.await` points, as the task may
/// be moved to a different worker thread by the scheduler.
///
/// # Examples
///
/// ```
/// #[volt_runtime::main(crate = "volt_runtime", flavor = "multi_thread", worker_threads = 4)]
/// async fn main() {
///     let index = volt_runtime::spawn(async {
///         volt_runtime::runtime::worker_index()
///     }).await.unwrap();
///     assert!(index.is_some_and(|i| i < 4));
/// }
/// ```
pub fn worker_index() -> Option<usize> {
    crate::context::with_scheduler(|cx| cx.map(|cx| cx.worker_index()))
}

/// Checks whether `err` is the error the runtime gives I/O resources when
/// it shuts down (its message is tokio's: "A Tokio 1.x context was found,
/// but it is being shutdown.").
///
/// ```
/// use volt_runtime::net::TcpListener;
/// use volt_runtime::runtime::Runtime;
///
/// let rt1 = Runtime::new().unwrap();
/// let rt2 = Runtime::new().unwrap();
/// let listener = rt1.block_on(async { TcpListener::bind("127.0.0.1:0").await.unwrap() });
/// drop(rt1);
///
/// rt2.block_on(async {
///     let err = listener.accept().await.unwrap_err();
///     assert!(volt_runtime::runtime::is_rt_shutdown_err(&err));
///     let other = std::io::Error::other("something else");
///     assert!(!volt_runtime::runtime::is_rt_shutdown_err(&other));
/// });
/// ```
pub fn is_rt_shutdown_err(err: &std::io::Error) -> bool {
    err.kind() == std::io::ErrorKind::Other
        && err.get_ref().is_some_and(|inner| {
            inner.source().is_none()
                && inner.to_string() == crate::context::RUNTIME_SHUTTING_DOWN_ERROR
        })
}

pub(crate) mod scheduler {
    //! Which scheduler a `Runtime` owns.
    pub(crate) enum Scheduler {
        CurrentThread(crate::scheduler::current_thread::CurrentThread),
        #[cfg(feature = "rt-multi-thread")]
        MultiThread(crate::scheduler::multi_thread::MultiThread),
    }
}

/// A thread lifecycle hook.
pub(crate) type Callback = std::sync::Arc<dyn Fn() + Send + Sync>;
/// Generates thread names.
pub(crate) type ThreadNameFn = std::sync::Arc<dyn Fn() -> String + Send + Sync + 'static>;

/// An opaque ID that uniquely identifies a runtime relative to all other
/// currently running runtimes.
///
/// # Notes
///
/// - Runtime IDs are unique relative to other *currently running*
///   runtimes. When a runtime completes, the same ID may be used for
///   another runtime.
/// - Runtime IDs are *not* sequential, and do not indicate the order in
///   which runtimes are started or any other data.
/// - The runtime ID of the currently running task can be obtained from the
///   Handle.
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
#[derive(Clone, Copy, Debug, Hash, Eq, PartialEq)]
pub struct Id(std::num::NonZeroU64);

impl Id {
    pub(crate) fn new(integer: u64) -> Self {
        Self(std::num::NonZeroU64::new(integer).expect("runtime id is never zero"))
    }
}

impl std::fmt::Display for Id {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}
