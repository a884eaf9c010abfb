//! Runtime metrics.
//!
//! Workers count events in a plain, thread-owned [`MetricsBatch`] and
//! publish it to the shared [`WorkerMetrics`] atomics when they park or run
//! maintenance, so counting costs no atomic operation on the hot path.
//! Readers ([`RuntimeMetrics`]) see values that lag by at most one batch.

pub(crate) mod histogram;
pub(crate) mod poll_time;
mod unstable;

use crate::runtime::Handle;

use std::sync::PoisonError;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

/// Scheduler-wide counters.
#[derive(Debug, Default)]
pub(crate) struct SchedulerMetrics {
    /// Tasks scheduled from outside the runtime's workers.
    pub(crate) remote_schedule_count: AtomicU64,
    /// Polls that returned `Pending` because the task's budget ran out.
    pub(crate) budget_forced_yield_count: AtomicU64,
}

impl SchedulerMetrics {
    pub(crate) fn inc_remote_schedule_count(&self) {
        self.remote_schedule_count.fetch_add(1, Relaxed);
    }

    pub(crate) fn inc_budget_forced_yield_count(&self) {
        self.budget_forced_yield_count.fetch_add(1, Relaxed);
    }
}

/// Per-worker counters, as last published by the worker.
#[derive(Debug, Default)]
pub(crate) struct WorkerMetrics {
    pub(crate) park_count: AtomicU64,
    pub(crate) park_unpark_count: AtomicU64,
    pub(crate) noop_count: AtomicU64,
    pub(crate) steal_count: AtomicU64,
    pub(crate) steal_operations: AtomicU64,
    pub(crate) poll_count: AtomicU64,
    pub(crate) busy_duration_total: AtomicU64,
    pub(crate) local_schedule_count: AtomicU64,
    pub(crate) overflow_count: AtomicU64,
    pub(crate) lifo_count: AtomicU64,
    pub(crate) injector_pull_count: AtomicU64,
    /// The current-thread runtime's queue depth, stored at each schedule
    /// and each task taken (the multi-thread runtime reads its workers'
    /// queues directly).
    pub(crate) queue_depth: AtomicUsize,
    /// In nanoseconds; the multi-thread workers publish it with the batch.
    pub(crate) mean_poll_time: AtomicU64,
    /// The thread that last started running this worker.
    thread_id: std::sync::Mutex<Option<ThreadId>>,
    /// Task poll times, if the builder enabled them (`poll_time.rs`).
    pub(crate) poll_time_histogram: Option<histogram::Histogram>,
}

impl WorkerMetrics {
    /// A worker's metrics, with the histogram `config` asks for.
    #[track_caller]
    pub(crate) fn new(config: &crate::scheduler::Config) -> WorkerMetrics {
        WorkerMetrics {
            poll_time_histogram: config.poll_time_histogram.as_ref().map(|b| b.build()),
            ..WorkerMetrics::default()
        }
    }

    /// Records the calling thread as the one running this worker.
    pub(crate) fn set_thread_id(&self) {
        let id = std::thread::current().id();
        *self
            .thread_id
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(id);
    }

    fn thread_id(&self) -> Option<ThreadId> {
        *self
            .thread_id
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// The worker-owned batch of counters.
#[derive(Debug)]
pub(crate) struct MetricsBatch {
    park_count: u64,
    park_unpark_count: u64,
    noop_count: u64,
    steal_count: u64,
    steal_operations: u64,
    poll_count: u64,
    poll_count_on_last_park: u64,
    busy_duration_total: u64,
    local_schedule_count: u64,
    overflow_count: u64,
    lifo_count: u64,
    injector_pull_count: u64,
    processing_started_at: Option<Instant>,
    poll_count_at_processing_start: u64,
    /// Times polls into the histogram, if enabled.
    poll_timer: Option<PollTimer>,
}

/// The worker's histogram batch and the start of the poll being timed.
#[derive(Debug)]
struct PollTimer {
    batch: histogram::HistogramBatch,
    poll_started_at: Instant,
}

// Out of line: a worker without the histogram keeps only the test.
impl PollTimer {
    #[inline(never)]
    fn start(&mut self) {
        self.poll_started_at = Instant::now();
    }

    #[inline(never)]
    fn end(&mut self) {
        let elapsed = self.poll_started_at.elapsed();
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        self.batch.measure(nanos);
    }
}

/// A batch of task polls, from `start_processing_scheduled_tasks` to
/// `end_processing_scheduled_tasks` (only the multi-thread workers read
/// it).
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "rt-multi-thread"), allow(dead_code))]
pub(crate) struct ProcessedBatch {
    pub(crate) elapsed: Duration,
    pub(crate) polls: u64,
}

impl MetricsBatch {
    pub(crate) fn new(worker: &WorkerMetrics) -> MetricsBatch {
        MetricsBatch {
            park_count: worker.park_count.load(Relaxed),
            park_unpark_count: worker.park_unpark_count.load(Relaxed),
            noop_count: worker.noop_count.load(Relaxed),
            steal_count: worker.steal_count.load(Relaxed),
            steal_operations: worker.steal_operations.load(Relaxed),
            poll_count: worker.poll_count.load(Relaxed),
            poll_count_on_last_park: worker.poll_count.load(Relaxed),
            busy_duration_total: worker.busy_duration_total.load(Relaxed),
            local_schedule_count: worker.local_schedule_count.load(Relaxed),
            overflow_count: worker.overflow_count.load(Relaxed),
            lifo_count: worker.lifo_count.load(Relaxed),
            injector_pull_count: worker.injector_pull_count.load(Relaxed),
            processing_started_at: None,
            poll_count_at_processing_start: 0,
            poll_timer: worker.poll_time_histogram.as_ref().map(|h| PollTimer {
                batch: histogram::HistogramBatch::from_histogram(h),
                poll_started_at: Instant::now(),
            }),
        }
    }

    /// Publishes the batch.
    pub(crate) fn submit(&mut self, worker: &WorkerMetrics) {
        worker.park_count.store(self.park_count, Relaxed);
        worker
            .park_unpark_count
            .store(self.park_unpark_count, Relaxed);
        worker.noop_count.store(self.noop_count, Relaxed);
        worker.steal_count.store(self.steal_count, Relaxed);
        worker
            .steal_operations
            .store(self.steal_operations, Relaxed);
        worker.poll_count.store(self.poll_count, Relaxed);
        worker
            .busy_duration_total
            .store(self.busy_duration_total, Relaxed);
        worker
            .local_schedule_count
            .store(self.local_schedule_count, Relaxed);
        worker.overflow_count.store(self.overflow_count, Relaxed);
        worker.lifo_count.store(self.lifo_count, Relaxed);
        worker
            .injector_pull_count
            .store(self.injector_pull_count, Relaxed);
        if let (Some(timer), Some(histogram)) = (&self.poll_timer, &worker.poll_time_histogram) {
            timer.batch.submit(histogram);
        }
    }

    /// The worker is about to park.
    pub(crate) fn about_to_park(&mut self) {
        self.park_count += 1;
        self.park_unpark_count += 1;
        if self.poll_count_on_last_park == self.poll_count {
            self.noop_count += 1;
        } else {
            self.poll_count_on_last_park = self.poll_count;
        }
    }

    /// The worker woke up.
    pub(crate) fn unparked(&mut self) {
        self.park_unpark_count += 1;
    }

    pub(crate) fn start_processing_scheduled_tasks(&mut self) {
        self.processing_started_at = Some(Instant::now());
        self.poll_count_at_processing_start = self.poll_count;
    }

    /// Ends the batch started last; `None` if none was open. The
    /// multi-thread workers tune their global queue interval from it.
    pub(crate) fn end_processing_scheduled_tasks(&mut self) -> Option<ProcessedBatch> {
        let started = self.processing_started_at.take()?;
        let elapsed = started.elapsed();
        self.busy_duration_total += elapsed.as_nanos() as u64;
        Some(ProcessedBatch {
            elapsed,
            polls: self.poll_count - self.poll_count_at_processing_start,
        })
    }

    #[inline]
    pub(crate) fn start_poll(&mut self) {
        self.poll_count += 1;
        if let Some(timer) = &mut self.poll_timer {
            timer.start();
        }
    }

    /// The poll `start_poll` began returned: times it, if timing.
    #[inline]
    pub(crate) fn end_poll(&mut self) {
        if let Some(timer) = &mut self.poll_timer {
            timer.end();
        }
    }

    pub(crate) fn inc_local_schedule_count(&mut self) {
        self.local_schedule_count += 1;
    }

    #[cfg_attr(not(feature = "rt-multi-thread"), allow(dead_code))]
    pub(crate) fn incr_overflow_count(&mut self) {
        self.overflow_count += 1;
    }

    #[cfg_attr(not(feature = "rt-multi-thread"), allow(dead_code))]
    pub(crate) fn incr_steal_count(&mut self, by: u16) {
        self.steal_count += by as u64;
    }

    #[cfg_attr(not(feature = "rt-multi-thread"), allow(dead_code))]
    pub(crate) fn incr_steal_operations(&mut self) {
        self.steal_operations += 1;
    }

    #[cfg_attr(not(feature = "rt-multi-thread"), allow(dead_code))]
    pub(crate) fn inc_lifo_count(&mut self) {
        self.lifo_count += 1;
    }

    #[cfg_attr(not(feature = "rt-multi-thread"), allow(dead_code))]
    pub(crate) fn inc_injector_pull_count(&mut self, by: usize) {
        self.injector_pull_count += by as u64;
    }
}

/// Handle to the runtime's metrics.
///
/// This handle is internally reference-counted and can be freely cloned. A
/// `RuntimeMetrics` handle is obtained using the [`Runtime::metrics`]
/// method.
///
/// Methods marked *volt-only* have no stable counterpart in tokio (tokio
/// has some of them behind `tokio_unstable`).
///
/// [`Runtime::metrics`]: crate::runtime::Runtime::metrics()
#[derive(Clone, Debug)]
pub struct RuntimeMetrics {
    handle: Handle,
}

impl RuntimeMetrics {
    pub(crate) fn new(handle: Handle) -> Self {
        Self { handle }
    }

    /// Returns the number of worker threads used by the runtime.
    ///
    /// The number of workers is set by configuring `worker_threads` on
    /// `runtime::Builder`. When using the `current_thread` runtime, the
    /// return value is always `1`.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::Handle;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let metrics = Handle::current().metrics();
    ///
    /// let n = metrics.num_workers();
    /// println!("Runtime is using {} workers", n);
    /// # });
    /// ```
    pub fn num_workers(&self) -> usize {
        self.handle.inner.num_workers()
    }

    /// Returns the current number of alive tasks in the runtime.
    ///
    /// This counter increases when a task is spawned and decreases when a
    /// task exits.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::Handle;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let metrics = Handle::current().metrics();
    ///
    /// let n = metrics.num_alive_tasks();
    /// println!("Runtime has {} alive tasks", n);
    /// # });
    /// ```
    pub fn num_alive_tasks(&self) -> usize {
        self.handle.inner.num_alive_tasks()
    }

    /// Returns the number of tasks currently scheduled in the runtime's
    /// global queue.
    ///
    /// Tasks that are spawned or notified from a non-runtime thread are
    /// scheduled using the runtime's global queue. This metric returns the
    /// **current** number of tasks pending in the global queue. As such, the
    /// returned value may increase or decrease as new tasks are scheduled
    /// and processed.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::Handle;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let metrics = Handle::current().metrics();
    ///
    /// let n = metrics.global_queue_depth();
    /// println!("{} tasks currently pending in the runtime's global queue", n);
    /// # });
    /// ```
    pub fn global_queue_depth(&self) -> usize {
        self.handle.inner.injection_queue_depth()
    }

    /// Returns the amount of time the given worker thread has been busy.
    ///
    /// The worker busy duration starts at zero when the runtime is created
    /// and increases whenever the worker is spending time processing work.
    /// Using this value can indicate the load of the given worker. If a lot
    /// of time is spent busy, then the worker is under load and will check
    /// for inbound events less often.
    ///
    /// The timer is monotonically increasing. It is never decremented or
    /// reset to zero.
    ///
    /// # Arguments
    ///
    /// `worker` is the index of the worker being queried. The given value
    /// must be between 0 and `num_workers()`. The index uniquely identifies
    /// a single worker and will continue to identify the worker throughout
    /// the lifetime of the runtime instance.
    ///
    /// # Panics
    ///
    /// The method panics when `worker` represents an invalid worker, i.e. is
    /// greater than or equal to `num_workers()`.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::Handle;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let metrics = Handle::current().metrics();
    ///
    /// let n = metrics.worker_total_busy_duration(0);
    /// println!("worker 0 was busy for a total of {:?}", n);
    /// # });
    /// ```
    #[track_caller]
    pub fn worker_total_busy_duration(&self, worker: usize) -> Duration {
        let nanos = self
            .handle
            .inner
            .worker_metrics(worker)
            .busy_duration_total
            .load(Relaxed);
        Duration::from_nanos(nanos)
    }

    /// Returns the total number of times the given worker thread has parked.
    ///
    /// The worker park count starts at zero when the runtime is created and
    /// increases by one each time the worker parks the thread waiting for
    /// new inbound events to process. This usually means the worker has
    /// processed all pending work and is currently idle.
    ///
    /// The counter is monotonically increasing. It is never decremented or
    /// reset to zero.
    ///
    /// # Panics
    ///
    /// The method panics when `worker` represents an invalid worker, i.e. is
    /// greater than or equal to `num_workers()`.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::Handle;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let metrics = Handle::current().metrics();
    ///
    /// let n = metrics.worker_park_count(0);
    /// println!("worker 0 parked {} times", n);
    /// # });
    /// ```
    #[track_caller]
    pub fn worker_park_count(&self, worker: usize) -> u64 {
        self.worker(worker).park_count.load(Relaxed)
    }

    /// Returns the total number of times the given worker thread has parked
    /// and unparked.
    ///
    /// The worker park/unpark count starts at zero when the runtime is
    /// created and increases by one each time the worker parks the thread
    /// waiting for new inbound events to process, and by one again each
    /// time it wakes up. An odd count means the worker is parked right now.
    ///
    /// # Panics
    ///
    /// The method panics when `worker` represents an invalid worker, i.e. is
    /// greater than or equal to `num_workers()`.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::Handle;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let metrics = Handle::current().metrics();
    /// let n = metrics.worker_park_unpark_count(0);
    ///
    /// println!("worker 0 parked and unparked {} times", n);
    ///
    /// if n % 2 == 0 {
    ///     println!("worker 0 is active");
    /// } else {
    ///     println!("worker 0 is parked");
    /// }
    /// # });
    /// ```
    #[track_caller]
    pub fn worker_park_unpark_count(&self, worker: usize) -> u64 {
        self.worker(worker).park_unpark_count.load(Relaxed)
    }

    /// *volt-only.* Returns the number of tasks the given worker stole from
    /// other workers' queues.
    ///
    /// # Panics
    ///
    /// If `worker >= num_workers()`.
    #[track_caller]
    pub fn worker_steal_count(&self, worker: usize) -> u64 {
        self.worker(worker).steal_count.load(Relaxed)
    }

    /// *volt-only.* Returns the number of successful steal operations of the
    /// given worker (each moves up to half of a victim's queue).
    ///
    /// # Panics
    ///
    /// If `worker >= num_workers()`.
    #[track_caller]
    pub fn worker_steal_operations(&self, worker: usize) -> u64 {
        self.worker(worker).steal_operations.load(Relaxed)
    }

    /// *volt-only.* Returns the number of tasks the given worker polled.
    ///
    /// # Panics
    ///
    /// If `worker >= num_workers()`.
    #[track_caller]
    pub fn worker_poll_count(&self, worker: usize) -> u64 {
        self.worker(worker).poll_count.load(Relaxed)
    }

    /// *volt-only.* Returns the mean duration of task polls on the given
    /// worker.
    ///
    /// This is an exponentially weighted moving average, updated each time
    /// the worker finishes a batch of polls (at the latest every
    /// `event_interval` ticks), and published with the worker's other
    /// metrics. It is what the multi-thread scheduler tunes its global
    /// queue interval from. Currently, this metric is only provided by the
    /// multi-threaded runtime: it is zero on the current-thread one.
    ///
    /// # Panics
    ///
    /// The method panics when `worker` represents an invalid worker, i.e. is
    /// greater than or equal to `num_workers()`.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::Handle;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let metrics = Handle::current().metrics();
    ///
    /// let n = metrics.worker_mean_poll_time(0);
    /// println!("worker 0 has a mean poll time of {:?}", n);
    /// # });
    /// ```
    #[track_caller]
    pub fn worker_mean_poll_time(&self, worker: usize) -> Duration {
        Duration::from_nanos(self.worker(worker).mean_poll_time.load(Relaxed))
    }

    /// *volt-only.* Returns the number of tasks currently queued in the
    /// given worker's local queue (the LIFO slot not included).
    ///
    /// On the multi-thread runtime this is read from the queue itself, so
    /// it may change right after. On the current-thread runtime it is the
    /// depth the runtime last published (when it parks or polls the
    /// driver).
    ///
    /// # Panics
    ///
    /// If `worker >= num_workers()`.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::Handle;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let metrics = Handle::current().metrics();
    ///
    /// let n = metrics.worker_local_queue_depth(0);
    /// println!("{} tasks currently pending in worker 0's local queue", n);
    /// # });
    /// ```
    #[track_caller]
    pub fn worker_local_queue_depth(&self, worker: usize) -> usize {
        self.handle.inner.worker_local_queue_depth(worker)
    }

    /// *volt-only.* Returns the number of times the given worker woke up
    /// and found nothing to do, and went back to sleep (a false-positive
    /// wake-up).
    ///
    /// # Panics
    ///
    /// If `worker >= num_workers()`.
    #[track_caller]
    pub fn worker_noop_count(&self, worker: usize) -> u64 {
        self.worker(worker).noop_count.load(Relaxed)
    }

    /// *volt-only.* Returns the number of tasks the given worker scheduled
    /// onto its own queue or LIFO slot (woken or spawned from a task it
    /// ran).
    ///
    /// # Panics
    ///
    /// If `worker >= num_workers()`.
    #[track_caller]
    pub fn worker_local_schedule_count(&self, worker: usize) -> u64 {
        self.worker(worker).local_schedule_count.load(Relaxed)
    }

    /// *volt-only.* Returns the number of tasks the given worker ran from its
    /// LIFO slot (a task woken by the task that ran just before it).
    ///
    /// # Panics
    ///
    /// If `worker >= num_workers()`.
    #[track_caller]
    pub fn worker_lifo_count(&self, worker: usize) -> u64 {
        self.worker(worker).lifo_count.load(Relaxed)
    }

    /// *volt-only.* Returns the number of tasks the given worker took from
    /// the global injection queue.
    ///
    /// # Panics
    ///
    /// If `worker >= num_workers()`.
    #[track_caller]
    pub fn worker_injector_pull_count(&self, worker: usize) -> u64 {
        self.worker(worker).injector_pull_count.load(Relaxed)
    }

    /// *volt-only.* Returns the number of times the given worker's local
    /// queue overflowed into the global queue.
    ///
    /// # Panics
    ///
    /// If `worker >= num_workers()`.
    #[track_caller]
    pub fn worker_overflow_count(&self, worker: usize) -> u64 {
        self.worker(worker).overflow_count.load(Relaxed)
    }

    /// *volt-only.* Returns the number of tasks scheduled from outside the
    /// runtime's worker threads (they go through the global queue).
    pub fn remote_schedule_count(&self) -> u64 {
        self.handle
            .inner
            .metrics()
            .remote_schedule_count
            .load(Relaxed)
    }

    /// Returns the number of additional threads spawned by the runtime.
    ///
    /// The number of workers is not included in this count (the
    /// multi-thread runtime's workers run on the blocking pool's threads;
    /// they are subtracted, as tokio does).
    pub fn num_blocking_threads(&self) -> usize {
        let threads = self.handle.inner.blocking_spawner().num_threads();
        match self.handle.runtime_flavor() {
            crate::runtime::RuntimeFlavor::CurrentThread => threads,
            _ => threads.saturating_sub(self.num_workers()),
        }
    }

    /// *volt-only.* Returns the number of idle threads in the blocking pool.
    pub fn num_idle_blocking_threads(&self) -> usize {
        self.handle.inner.blocking_spawner().num_idle_threads()
    }

    /// *volt-only.* Returns the number of tasks waiting in the blocking
    /// pool's queue.
    pub fn blocking_queue_depth(&self) -> usize {
        self.handle.inner.blocking_spawner().queue_depth()
    }

    #[track_caller]
    fn worker(&self, worker: usize) -> &WorkerMetrics {
        self.handle.inner.worker_metrics(worker)
    }
}
