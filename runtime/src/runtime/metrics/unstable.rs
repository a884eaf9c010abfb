//! The `RuntimeMetrics` counters tokio has behind `tokio_unstable`: task
//! spawns, budget-forced yields, the I/O driver's registrations and ready
//! events, and each worker's thread. volt has them always.
//!
//! Who counts: `OwnedTasks::bind` (a per-shard count, under the shard lock
//! it already takes), `coop::poll_proceed` when the budget runs out, the
//! I/O driver on registration, deregistration and once per turn, and each
//! thread that starts running a worker (a multi-thread worker's thread, a
//! thread back from `block_in_place` with its core, a current-thread
//! `block_on` that takes the core).

use super::RuntimeMetrics;

use std::sync::atomic::Ordering::Relaxed;
use std::thread::ThreadId;

impl RuntimeMetrics {
    /// Returns the number of tasks spawned in this runtime since it was
    /// created.
    ///
    /// This count starts at zero when the runtime is created and increases
    /// by one each time a task is spawned. The counter is monotonically
    /// increasing. It is never decremented or reset to zero. Blocking
    /// tasks (`spawn_blocking`) are not counted, as in tokio.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::Handle;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let metrics = Handle::current().metrics();
    ///
    /// let n = metrics.spawned_tasks_count();
    /// println!("Runtime has had {} tasks spawned", n);
    /// # });
    /// ```
    pub fn spawned_tasks_count(&self) -> u64 {
        self.handle.inner.spawned_tasks_count()
    }

    /// Returns the number of alive tasks: renamed [`num_alive_tasks`].
    ///
    /// [`num_alive_tasks`]: RuntimeMetrics::num_alive_tasks
    #[deprecated = "Renamed to num_alive_tasks"]
    pub fn active_tasks_count(&self) -> usize {
        self.num_alive_tasks()
    }

    /// Returns the number of times that tasks have been forced to yield
    /// back to the scheduler after exhausting their task budgets.
    ///
    /// This count starts at zero when the runtime is created and increases
    /// by one each time a task yields due to exhausting its budget.
    ///
    /// The counter is monotonically increasing. It is never decremented or
    /// reset to zero.
    pub fn budget_forced_yield_count(&self) -> u64 {
        self.handle
            .inner
            .metrics()
            .budget_forced_yield_count
            .load(Relaxed)
    }

    /// Returns the thread id of the given worker thread.
    ///
    /// The returned value is `None` if the worker thread has not yet
    /// finished starting up.
    ///
    /// If additional information about the thread, such as its native id,
    /// are required, those can be collected in [`on_thread_start`] and
    /// correlated using the thread id.
    ///
    /// # Panics
    ///
    /// The method panics when `worker` represents an invalid worker, i.e.
    /// is greater than or equal to `num_workers()`.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::Handle;
    ///
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let metrics = Handle::current().metrics();
    ///
    /// let id = metrics.worker_thread_id(0);
    /// assert_eq!(id, Some(std::thread::current().id()));
    /// # });
    /// ```
    ///
    /// [`on_thread_start`]: crate::runtime::Builder::on_thread_start
    #[track_caller]
    pub fn worker_thread_id(&self, worker: usize) -> Option<ThreadId> {
        self.worker(worker).thread_id()
    }
}

#[cfg(feature = "net")]
impl RuntimeMetrics {
    /// Returns the number of file descriptors that have been registered
    /// with the runtime's I/O driver (0 without one).
    pub fn io_driver_fd_registered_count(&self) -> u64 {
        self.io_count(|m| &m.fd_registered_count)
    }

    /// Returns the number of file descriptors that have been deregistered
    /// by the runtime's I/O driver (0 without one).
    pub fn io_driver_fd_deregistered_count(&self) -> u64 {
        self.io_count(|m| &m.fd_deregistered_count)
    }

    /// Returns the number of ready events processed by the runtime's I/O
    /// driver (0 without one).
    pub fn io_driver_ready_count(&self) -> u64 {
        self.io_count(|m| &m.ready_count)
    }

    fn io_count(
        &self,
        f: impl FnOnce(&crate::io_driver::IoDriverMetrics) -> &std::sync::atomic::AtomicU64,
    ) -> u64 {
        self.handle
            .inner
            .driver()
            .io()
            .map_or(0, |io| f(&io.metrics).load(Relaxed))
    }
}
