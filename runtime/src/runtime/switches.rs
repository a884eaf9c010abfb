//! Builder switches that pick an alternative implementation in tokio
//! (there behind `tokio_unstable`), so that code written for them builds
//! on volt and asks for the same behavior:
//!
//! * `enable_alt_timer`: tokio's alternative timer keeps a timer wheel per
//!   worker. volt's timer is built that way always (`time/driver`: an
//!   entry polled on worker `i` is filed in shard `i`, and a busy worker
//!   fires its own shard), so the switch turns the time driver on, as
//!   tokio's does, and brings the one behavior tokio's alternative timer
//!   has apart: a `Sleep` that the runtime's shutdown fired polls as
//!   elapsed, where the default timer panics (tokio's `time_alt` tests).
//! * `enable_eager_driver_handoff`: implemented. A worker that slept in
//!   the I/O and time driver wakes another worker as it comes out to run
//!   tasks, so that one takes the driver (`multi_thread/worker.rs`,
//!   `park_timeout`). Without it the driver waits for the next worker
//!   that runs out of work; a task that blocks its worker until a driver
//!   event can then wait forever.
//! * `enable_sharded_blocking_queue`: tokio shards its blocking pool's one
//!   mutex-protected queue. volt's pool (`blocking/`) keeps one queue; a
//!   thread finishing a call takes the next from it without a wake-up,
//!   which is faster than tokio's pool on bursts of concurrent callers
//!   (`BENCHMARKS.md`, `blocking_burst_*`). The switch is accepted so that
//!   code written for tokio's builds, and changes nothing.

use crate::runtime::Builder;

impl Builder {
    /// Enables the alternative timer implementation, which is disabled by
    /// default.
    ///
    /// In tokio the alternative timer implementation is an unstable
    /// feature that may provide better performance on multi-threaded
    /// runtimes with a large number of worker threads: a timer wheel per
    /// worker. volt's timer always works that way, so on volt this enables
    /// the time driver (as tokio's does), and a `Sleep` fired by the
    /// runtime's shutdown then completes when polled instead of panicking
    /// (what tokio's alternative timer does; its default timer panics).
    ///
    /// This option only applies to multi-threaded runtimes.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime;
    ///
    /// let rt = runtime::Builder::new_multi_thread()
    ///   .enable_alt_timer()
    ///   .build()
    ///   .unwrap();
    /// # rt.block_on(async { volt_runtime::time::sleep(std::time::Duration::from_millis(1)).await });
    /// ```
    #[cfg(all(feature = "time", feature = "rt-multi-thread"))]
    pub fn enable_alt_timer(&mut self) -> &mut Self {
        self.alt_timer = true;
        self.enable_time()
    }

    /// Enable eager hand-off of the I/O and time drivers for
    /// multi-threaded runtimes, which is disabled by default.
    ///
    /// When this option is enabled, a worker thread which has parked on the
    /// I/O or time driver will notify another worker thread once it is
    /// preparing to begin polling a task from the run queue, so that the
    /// notified worker can begin polling the I/O or time driver. This can
    /// reduce the latency with which I/O and timer notifications are
    /// processed, especially when some tasks have polls that take a long
    /// time to complete. In addition, it can reduce the risk of a deadlock
    /// which may occur when a task blocks the worker thread which is
    /// holding the I/O or time driver until some other task, which is
    /// waiting for a notification from *that* driver, unblocks it.
    ///
    /// This option is disabled by default, as enabling it may potentially
    /// increase contention due to extra synchronization in cross-driver
    /// wakeups.
    ///
    /// This option only applies to multi-threaded runtimes. Attempting to
    /// use this option with any other runtime type will have no effect.
    ///
    /// **Note**: tokio offers this only under `--cfg tokio_unstable`; volt
    /// offers it stable.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime;
    ///
    /// let rt = runtime::Builder::new_multi_thread()
    ///   .enable_all()
    ///   .enable_eager_driver_handoff()
    ///   .build()
    ///   .unwrap();
    /// # drop(rt);
    /// ```
    #[cfg(feature = "rt-multi-thread")]
    pub fn enable_eager_driver_handoff(&mut self) -> &mut Self {
        self.eager_driver_handoff = true;
        self
    }

    /// Enables the sharded `spawn_blocking` queue, which is disabled by
    /// default.
    ///
    /// In tokio the blocking pool's task queue is protected by a single
    /// mutex, which can become a point of contention when many threads
    /// spawn blocking tasks concurrently; this option distributes tasks
    /// across several independently-locked queue shards. volt's blocking
    /// pool keeps one queue, which a thread finishing a call drains without
    /// a wake-up (the `blocking_burst_*` rows of `BENCHMARKS.md` compare the
    /// two pools under bursts of concurrent callers): the switch is
    /// accepted so that code written for tokio's builds, and changes
    /// nothing.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime;
    ///
    /// let rt = runtime::Builder::new_multi_thread()
    ///   .enable_sharded_blocking_queue()
    ///   .build()
    ///   .unwrap();
    /// # assert_eq!(rt.block_on(async { volt_runtime::task::spawn_blocking(|| 1).await }).unwrap(), 1);
    /// ```
    pub fn enable_sharded_blocking_queue(&mut self) -> &mut Self {
        self
    }
}
