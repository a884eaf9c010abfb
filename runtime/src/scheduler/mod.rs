//! The schedulers: current-thread and multi-thread (work-stealing).
//!
//! [`Handle`] is the shared, cloneable side of a scheduler (what a runtime
//! `Handle` wraps and what every task holds); [`Context`] is the per-thread
//! side, set in the thread-local context while a thread drives the
//! scheduler, so that wakes on that thread can use its local queue.

pub(crate) mod current_thread;
pub(crate) mod defer;
pub(crate) mod inject;
#[cfg(feature = "rt-multi-thread")]
pub(crate) mod multi_thread;
// Only `time::Sleep` looks runtimes up by id.
#[cfg(feature = "time")]
pub(crate) mod registry;

use crate::runtime::RuntimeFlavor;
use crate::task::{Id, JoinHandle, SpawnLocation};
use std::sync::Arc;

use std::future::Future;

/// A handle to whichever scheduler a runtime uses.
#[derive(Debug, Clone)]
pub(crate) enum Handle {
    CurrentThread(Arc<current_thread::Handle>),
    #[cfg(feature = "rt-multi-thread")]
    MultiThread(Arc<multi_thread::Handle>),
}

/// The per-thread state of the scheduler driving this thread.
pub(crate) enum Context {
    CurrentThread(current_thread::Context),
    #[cfg(feature = "rt-multi-thread")]
    MultiThread(multi_thread::Context),
}

/// Configuration shared by both schedulers.
pub(crate) struct Config {
    /// How many ticks between checks of the global queue, if the builder
    /// set it (otherwise the current-thread scheduler uses 31, and the
    /// multi-thread one tunes it: `multi_thread/tuning.rs`).
    pub(crate) global_queue_interval: Option<u32>,
    /// How many ticks between polls of the driver.
    pub(crate) event_interval: u32,
    pub(crate) before_park: Option<crate::runtime::Callback>,
    pub(crate) after_unpark: Option<crate::runtime::Callback>,
    /// Whether the LIFO slot is disabled (multi-thread only).
    #[cfg_attr(not(feature = "rt-multi-thread"), allow(dead_code))]
    pub(crate) disable_lifo_slot: bool,
    /// What a spawned task's panic does (current-thread only: the builder
    /// refuses `ShutdownRuntime` for the multi-thread runtime).
    pub(crate) unhandled_panic: crate::runtime::UnhandledPanic,
    /// Seeds for the threads that enter the runtime and for the workers'
    /// stealing generators (`runtime/rng_seed.rs`).
    pub(crate) seed_generator: crate::runtime::RngSeedGenerator,
    /// The user's task hooks (`runtime/task_hooks.rs`).
    pub(crate) task_hooks: crate::runtime::TaskHooks,
    /// Each worker's poll-time histogram, if enabled
    /// (`runtime/metrics/poll_time.rs`).
    pub(crate) poll_time_histogram: Option<crate::runtime::metrics::histogram::HistogramBuilder>,
    /// Whether a worker leaving the driver to run tasks wakes another to
    /// take it (multi-thread only; `runtime/switches.rs`).
    #[cfg_attr(not(feature = "rt-multi-thread"), allow(dead_code))]
    pub(crate) eager_driver_handoff: bool,
}

impl Handle {
    /// Marks a fresh current-thread runtime as a `LocalRuntime` built on
    /// `thread` (a multi-thread one cannot be local: ignored).
    pub(crate) fn set_local_owner(&self, thread: std::thread::ThreadId) {
        match self {
            Handle::CurrentThread(h) => {
                // A fresh runtime: nobody has set it yet.
                let _ = h.local_owner.set(thread);
            }
            #[cfg(feature = "rt-multi-thread")]
            Handle::MultiThread(_) => {}
        }
    }

    /// The thread a `LocalRuntime` was built on, if this is one's handle.
    pub(crate) fn local_owner(&self) -> Option<std::thread::ThreadId> {
        match self {
            Handle::CurrentThread(h) => h.local_owner.get().copied(),
            #[cfg(feature = "rt-multi-thread")]
            Handle::MultiThread(_) => None,
        }
    }

    pub(crate) fn spawn<F>(
        &self,
        future: F,
        id: Id,
        spawned_at: SpawnLocation,
    ) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        // Before the task exists: its first hook (`runtime/task_hooks.rs`).
        self.config().task_hooks.spawn(id, spawned_at);
        match self {
            Handle::CurrentThread(h) => current_thread::Handle::spawn(h, future, id, spawned_at),
            #[cfg(feature = "rt-multi-thread")]
            Handle::MultiThread(h) => multi_thread::Handle::spawn(h, future, id, spawned_at),
        }
    }

    pub(crate) fn config(&self) -> &Config {
        match self {
            Handle::CurrentThread(h) => h.config(),
            #[cfg(feature = "rt-multi-thread")]
            Handle::MultiThread(h) => h.config(),
        }
    }

    pub(crate) fn blocking_spawner(&self) -> &crate::blocking::Spawner {
        match self {
            Handle::CurrentThread(h) => &h.blocking_spawner,
            #[cfg(feature = "rt-multi-thread")]
            Handle::MultiThread(h) => &h.blocking_spawner,
        }
    }

    #[cfg_attr(not(any(feature = "time", feature = "net")), allow(dead_code))]
    pub(crate) fn driver(&self) -> &crate::driver::Handle {
        match self {
            Handle::CurrentThread(h) => &h.driver,
            #[cfg(feature = "rt-multi-thread")]
            Handle::MultiThread(h) => &h.driver,
        }
    }

    /// Starts shutting the scheduler down (cancels its tasks).
    pub(crate) fn shutdown(&self) {
        match self {
            Handle::CurrentThread(_) => {
                // The current-thread scheduler shuts down in `Runtime`'s
                // drop, on the thread that owns its core.
            }
            #[cfg(feature = "rt-multi-thread")]
            Handle::MultiThread(h) => h.shutdown(),
        }
    }

    pub(crate) fn runtime_flavor(&self) -> RuntimeFlavor {
        match self {
            Handle::CurrentThread(_) => RuntimeFlavor::CurrentThread,
            #[cfg(feature = "rt-multi-thread")]
            Handle::MultiThread(_) => RuntimeFlavor::MultiThread,
        }
    }

    /// An id unique among the runtimes of this process.
    pub(crate) fn owned_id(&self) -> u64 {
        match self {
            Handle::CurrentThread(h) => h.owned_id(),
            #[cfg(feature = "rt-multi-thread")]
            Handle::MultiThread(h) => h.owned_id(),
        }
    }

    pub(crate) fn name(&self) -> Option<&str> {
        match self {
            Handle::CurrentThread(h) => h.name.as_deref(),
            #[cfg(feature = "rt-multi-thread")]
            Handle::MultiThread(h) => h.name.as_deref(),
        }
    }

    pub(crate) fn metrics(&self) -> &crate::runtime::metrics::SchedulerMetrics {
        match self {
            Handle::CurrentThread(h) => &h.metrics,
            #[cfg(feature = "rt-multi-thread")]
            Handle::MultiThread(h) => &h.metrics,
        }
    }

    pub(crate) fn spawned_tasks_count(&self) -> u64 {
        match self {
            Handle::CurrentThread(h) => h.spawned_tasks_count(),
            #[cfg(feature = "rt-multi-thread")]
            Handle::MultiThread(h) => h.spawned_tasks_count(),
        }
    }

    pub(crate) fn num_alive_tasks(&self) -> usize {
        match self {
            Handle::CurrentThread(h) => h.num_alive_tasks(),
            #[cfg(feature = "rt-multi-thread")]
            Handle::MultiThread(h) => h.num_alive_tasks(),
        }
    }

    pub(crate) fn injection_queue_depth(&self) -> usize {
        match self {
            Handle::CurrentThread(h) => h.injection_queue_depth(),
            #[cfg(feature = "rt-multi-thread")]
            Handle::MultiThread(h) => h.injection_queue_depth(),
        }
    }

    pub(crate) fn num_workers(&self) -> usize {
        match self {
            Handle::CurrentThread(_) => 1,
            #[cfg(feature = "rt-multi-thread")]
            Handle::MultiThread(h) => h.num_workers(),
        }
    }

    #[track_caller]
    pub(crate) fn worker_metrics(&self, worker: usize) -> &crate::runtime::metrics::WorkerMetrics {
        match self {
            Handle::CurrentThread(h) => h.worker_metrics(worker),
            #[cfg(feature = "rt-multi-thread")]
            Handle::MultiThread(h) => h.worker_metrics(worker),
        }
    }

    #[track_caller]
    pub(crate) fn worker_local_queue_depth(&self, worker: usize) -> usize {
        match self {
            Handle::CurrentThread(h) => h.worker_local_queue_depth(worker),
            #[cfg(feature = "rt-multi-thread")]
            Handle::MultiThread(h) => h.worker_local_queue_depth(worker),
        }
    }

    /// The runtime's seed generator.
    pub(crate) fn seed_generator(&self) -> &crate::runtime::RngSeedGenerator {
        &self.config().seed_generator
    }

    #[track_caller]
    pub(crate) fn as_current_thread(&self) -> &Arc<current_thread::Handle> {
        match self {
            Handle::CurrentThread(h) => h,
            #[cfg(feature = "rt-multi-thread")]
            _ => panic!("not a CurrentThread handle"),
        }
    }
}

impl Context {
    #[track_caller]
    pub(crate) fn expect_current_thread(&self) -> &current_thread::Context {
        match self {
            Context::CurrentThread(cx) => cx,
            #[cfg(feature = "rt-multi-thread")]
            _ => panic!("expected `CurrentThread::Context`"),
        }
    }

    #[cfg(feature = "rt-multi-thread")]
    #[track_caller]
    pub(crate) fn expect_multi_thread(&self) -> &multi_thread::Context {
        match self {
            Context::MultiThread(cx) => cx,
            _ => panic!("expected `MultiThread::Context`"),
        }
    }
}

impl Context {
    /// The index of the worker this thread runs (0 on the current-thread
    /// scheduler). Picks the timer shard of `Sleep`s polled here.
    pub(crate) fn worker_index(&self) -> usize {
        match self {
            Context::CurrentThread(_) => 0,
            #[cfg(feature = "rt-multi-thread")]
            Context::MultiThread(cx) => cx.worker_index(),
        }
    }
}
