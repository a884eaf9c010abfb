//! The work-stealing workers.
//!
//! # Run loop
//!
//! Each worker thread owns a [`Core`]: its local queue (256 slots), its LIFO
//! slot, tick countdowns and parker. In a loop it
//!
//! 1. every `event_interval` ticks, polls the driver without sleeping and
//!    checks for shutdown ("maintenance");
//! 2. takes a task: from the global queue first every
//!    `global_queue_interval` ticks (fairness for remote work; unless the
//!    builder sets it, tuned from the mean poll time, see `tuning.rs`),
//!    otherwise from its LIFO slot, its local queue, then a batch from the
//!    global queue;
//! 3. if it has none but tasks yielded, polls the driver without sleeping
//!    and runs them: yields are deferred until the driver has been polled
//!    (`scheduler/defer.rs`), and every poll of the driver here wakes them;
//! 4. if still nothing, steals half of a random victim's queue (at most half
//!    the workers search at once, see `idle.rs`), then checks the global
//!    queue once more;
//! 5. if still nothing, parks (see `park.rs`).
//!
//! # The LIFO slot
//!
//! A task woken by the task running on this worker goes into the LIFO slot
//! instead of the back of the queue: message-passing pairs then run back to
//! back while their data is hot in cache. The previous occupant moves to the
//! back of the queue. After running a task, the worker runs the LIFO task
//! within the same coop budget, at most `MAX_LIFO_POLLS_PER_TICK` times in a
//! row; after that the slot is disabled until the next regular task, so a
//! ping-pong pair cannot starve the queue. The slot is not stealable.
//! While it is off for the tick, a woken task queues at the back and a
//! parked worker is woken only once a second task waits here (one runs as
//! soon as the current poll ends). With the builder's `disable_lifo_slot`
//! (polls may run long) every woken task wakes a parked worker, which can
//! steal it, as tokio does.
//!
//! # Handing the core away
//!
//! `block_in_place` (`block_in_place.rs`) gives the core to a fresh thread
//! through the worker's `AtomicCell`. If the core is gone when the task's
//! poll returns, the current task finishes its poll without a core and the
//! thread leaves the worker loop.
//!
//! # Shutdown
//!
//! `Handle::shutdown` closes the global queue and wakes every worker. Each
//! worker notices in maintenance, cancels tasks of the owned list and hands
//! its core to `shutdown_cores`; the last core in drains every queue.

use crate::driver::Driver;
use crate::runtime::TaskHooks;
use crate::runtime::metrics::WorkerMetrics;
use crate::runtime::metrics::{MetricsBatch, ProcessedBatch};
use crate::scheduler::defer::{self, Defer};
use crate::scheduler::inject::Inject;
use crate::scheduler::multi_thread::handle::Handle;
use crate::scheduler::multi_thread::idle::Idle;
use crate::scheduler::multi_thread::park::{Parker, Unparker};
use crate::scheduler::multi_thread::queue;
use crate::scheduler::multi_thread::tuning::{self, PollTime};
use crate::scheduler::{self, Config};
use crate::task::list::OwnedTasks;
use crate::task::{LocalNotified, Notified as TaskNotified};
use crate::util::atomic_cell::AtomicCell;
use crate::util::countdown::Countdown;
use crate::util::rand::FastRand;
use crate::{context, coop};

use std::cell::RefCell;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex};
use std::task::Waker;
use std::time::Duration;

mod schedule;

type Notified = TaskNotified<Arc<Handle>>;

/// At most this many LIFO polls in a row (then the slot is disabled until
/// a regular task runs).
const MAX_LIFO_POLLS_PER_TICK: usize = 3;

/// One worker: a thread (at a time) running a core.
pub(crate) struct Worker {
    pub(super) handle: Arc<Handle>,
    pub(super) index: usize,
    /// The core, while no thread runs it.
    pub(super) core: AtomicCell<Core>,
}

/// What a worker thread needs to run tasks.
pub(super) struct Core {
    /// Ticks until the next maintenance (`event_interval` apart).
    maintenance_in: Countdown,
    /// Ticks until the global queue next goes first
    /// (`global_queue_interval` apart).
    global_queue_first_in: Countdown,
    /// The mean task poll time (a metric), which tunes
    /// `global_queue_first_in` unless the builder fixed it.
    poll_time: PollTime,
    tune_global_queue_interval: bool,
    pub(super) lifo_slot: Option<Notified>,
    /// Disabled after too many LIFO polls in a row, or by the builder.
    lifo_enabled: bool,
    /// Tasks of this runtime that yielded (`scheduler/defer.rs`): they join
    /// the run queue after the next poll of the driver.
    deferred: Vec<Notified>,
    pub(super) run_queue: queue::Local<Arc<Handle>>,
    is_searching: bool,
    is_shutdown: bool,
    /// Taken while the worker sleeps, and by shutdown.
    pub(super) park: Option<Parker>,
    pub(super) stats: MetricsBatch,
    rand: FastRand,
}

/// State shared by all workers.
pub(crate) struct Shared {
    pub(super) remotes: Box<[Remote]>,
    pub(super) inject: Inject<Arc<Handle>>,
    pub(super) idle: Idle,
    pub(super) owned: OwnedTasks<Arc<Handle>>,
    /// Cores handed in at shutdown.
    #[allow(clippy::vec_box)] // cores move between threads as boxes
    shutdown_cores: Mutex<Vec<Box<Core>>>,
    pub(super) config: Config,
    pub(super) worker_metrics: Box<[WorkerMetrics]>,
}

/// What other workers see of a worker.
pub(super) struct Remote {
    pub(super) steal: queue::Steal<Arc<Handle>>,
    pub(super) unpark: Unparker,
}

/// The thread-local side of a running worker.
pub(crate) struct Context {
    pub(super) worker: Arc<Worker>,
    /// The core, while a task runs (so its wakes can use the local queue).
    pub(super) core: RefCell<Option<Box<Core>>>,
    /// Yields waiting for the next poll of the driver.
    pub(super) defer: Defer,
}

/// Workers created but not started.
pub(crate) struct Launch(Vec<Arc<Worker>>);

type RunResult = Result<Box<Core>, ()>;

pub(super) fn create(
    size: usize,
    driver: Driver,
    driver_handle: crate::driver::Handle,
    blocking_spawner: crate::blocking::Spawner,
    config: Config,
    name: Option<String>,
) -> (Arc<Handle>, Launch) {
    let mut cores = Vec::with_capacity(size);
    let mut remotes = Vec::with_capacity(size);
    let mut worker_metrics = Vec::with_capacity(size);

    let first_park = Parker::new(driver);
    let mut parks = vec![];
    for i in 0..size {
        parks.push(if i == 0 {
            None
        } else {
            Some(first_park.sibling())
        });
    }
    parks[0] = Some(first_park);

    for park in parks.into_iter().map(Option::unwrap) {
        let (steal, run_queue) = queue::local();
        let unpark = park.unpark();
        let metrics = WorkerMetrics::new(&config);
        let stats = MetricsBatch::new(&metrics);
        cores.push(Box::new(Core {
            maintenance_in: Countdown::new(config.event_interval),
            global_queue_first_in: Countdown::new(
                config
                    .global_queue_interval
                    .unwrap_or(tuning::INITIAL_INTERVAL),
            ),
            poll_time: PollTime::new(),
            tune_global_queue_interval: config.global_queue_interval.is_none(),
            lifo_slot: None,
            lifo_enabled: !config.disable_lifo_slot,
            deferred: Vec::new(),
            run_queue,
            is_searching: false,
            is_shutdown: false,
            park: Some(park),
            stats,
            // Worker by worker, in order: fixed by a fixed `rng_seed`.
            rand: config.seed_generator.next_seed().rng(),
        }));
        remotes.push(Remote { steal, unpark });
        worker_metrics.push(metrics);
    }

    let handle = Arc::new(Handle {
        shared: Shared {
            remotes: remotes.into_boxed_slice(),
            inject: Inject::new(),
            idle: Idle::new(size),
            owned: OwnedTasks::new(size * 4),
            shutdown_cores: Mutex::new(vec![]),
            config,
            worker_metrics: worker_metrics.into_boxed_slice(),
        },
        driver: driver_handle,
        blocking_spawner,
        metrics: Default::default(),
        name,
    });

    let mut launch = Launch(vec![]);
    for (index, core) in cores.drain(..).enumerate() {
        launch.0.push(Arc::new(Worker {
            handle: handle.clone(),
            index,
            core: AtomicCell::new(Some(core)),
        }));
    }
    (handle, launch)
}

impl Launch {
    /// Starts every worker thread (on the blocking pool, so that runtime
    /// shutdown waits for them).
    pub(crate) fn launch(mut self) {
        for worker in self.0.drain(..) {
            let handle = crate::runtime::Handle {
                inner: scheduler::Handle::MultiThread(worker.handle.clone()),
            };
            let spawner = worker.handle.blocking_spawner.clone();
            // An error only if the runtime is already shutting down, or the
            // OS refuses the pool's first thread: the worker is dropped.
            let _ = spawner.spawn_worker(&handle, true, move || run(worker));
        }
    }
}

/// The body of a worker thread.
pub(super) fn run(worker: Arc<Worker>) {
    // Another thread may already run this worker (after block_in_place).
    let core = match worker.core.take() {
        Some(core) => core,
        None => return,
    };
    worker.handle.shared.worker_metrics[worker.index].set_thread_id();

    let handle = scheduler::Handle::MultiThread(worker.handle.clone());

    context::enter_runtime(&handle, true, |_| {
        let cx = scheduler::Context::MultiThread(Context {
            worker,
            core: RefCell::new(None),
            defer: Defer::new(),
        });
        context::set_scheduler(&cx, || {
            let cx = cx.expect_multi_thread();
            // Only ever returns `Err`: the core was handed away or shut down.
            assert!(cx.run(core).is_err());
            // Wakes deferred after the last drain (by tasks run after the
            // maintenance that saw shutdown): delivered, not dropped. With
            // the core gone they go to the global queue.
            cx.defer.wake();
        });
    });
}

impl Context {
    /// This worker's index.
    pub(crate) fn worker_index(&self) -> usize {
        self.worker.index
    }

    /// Keeps a yielding task's waker until the next poll of the driver.
    pub(crate) fn defer(&self, waker: &Waker) {
        // No borrow may be held across a wake (it may queue onto the core).
        let has_core = self.core.borrow().is_some();
        if !has_core {
            // In `block_in_place`: this thread drives no core, and would
            // not drain the list.
            waker.wake_by_ref();
        } else if !defer::defer_own_task(waker, self.worker.handle.shared.owned.id()) {
            self.defer.defer(waker);
        }
    }

    fn run(&self, mut core: Box<Core>) -> RunResult {
        // The core may come from a thread that disabled the LIFO slot.
        core.lifo_enabled = !self.worker.handle.shared.config.disable_lifo_slot;
        core.stats.start_processing_scheduled_tasks();

        while !core.is_shutdown {
            core = self.maintenance(core);

            if let Some(task) = core.next_task(&self.worker) {
                core = self.run_task(task, core)?;
                continue;
            }

            if !core.deferred.is_empty() || !self.defer.is_empty() {
                // Only yielded tasks are left here: poll the driver, then
                // run them. No stealing meanwhile: going through the
                // searching state would wake another worker on the way out.
                core = self.park_timeout(core, Some(Duration::ZERO));
                continue;
            }

            core.end_processing_scheduled_tasks();

            if let Some(task) = core.steal_work(&self.worker) {
                core.stats.start_processing_scheduled_tasks();
                core = self.run_task(task, core)?;
            } else {
                core = self.park(core);
                core.stats.start_processing_scheduled_tasks();
            }
        }

        core.pre_shutdown(&self.worker);
        self.worker.handle.shutdown_core(core);
        Err(())
    }

    fn run_task(&self, task: Notified, mut core: Box<Core>) -> RunResult {
        let task = self.worker.handle.shared.owned.assert_owner(task);

        // Not searching any more: lets another idle worker search.
        core.transition_from_searching(&self.worker);

        // A regular task re-enables the LIFO slot.
        core.lifo_enabled = !self.worker.handle.shared.config.disable_lifo_slot;

        core.stats.start_poll();
        *self.core.borrow_mut() = Some(core);

        let hooks = &self.worker.handle.shared.config.task_hooks;
        coop::budget(|| {
            let mut yielded = task.run_hooked(hooks);
            let mut lifo_polls = 0;

            // Run LIFO tasks while the budget lasts.
            loop {
                let mut core = match self.core.borrow_mut().take() {
                    Some(core) => core,
                    // `block_in_place` handed the core to another thread.
                    None => {
                        if let Some(task) = yielded {
                            // No core to defer it in: an early wake.
                            let _ = defer::is_deferred_yield(&task);
                            self.worker.handle.push_remote_task(task);
                            self.worker.handle.notify_parked();
                        }
                        return Err(());
                    }
                };
                // The poll just run (the first task's, or a LIFO task's).
                core.stats.end_poll();

                if let Some(task) = yielded {
                    if defer::is_deferred_yield(&task) {
                        core.deferred.push(task);
                    } else {
                        self.worker.handle.schedule_yielded(&mut core, task);
                    }
                }

                let task = match core.lifo_slot.take() {
                    Some(task) => task,
                    None => return Ok(core),
                };

                if !coop::has_budget_remaining() {
                    // Out of budget: the LIFO task waits its turn in the
                    // queue, where it can also be stolen.
                    core.run_queue.push_back_or_overflow(
                        task,
                        &self.worker.handle.shared.inject,
                        &mut core.stats,
                    );
                    // Others may be idle while we hold work.
                    self.worker.handle.notify_parked();
                    return Ok(core);
                }

                lifo_polls += 1;
                if lifo_polls >= MAX_LIFO_POLLS_PER_TICK {
                    core.lifo_enabled = false;
                }

                core.stats.inc_lifo_count();
                core.stats.start_poll();
                *self.core.borrow_mut() = Some(core);
                let task = self.worker.handle.shared.owned.assert_owner(task);
                yielded = run_lifo(task, hooks);
            }
        })
    }

    fn maintenance(&self, mut core: Box<Core>) -> Box<Core> {
        if core.maintenance_in.elapsed() {
            // A busy worker's batch ends here at the latest: the tuning
            // gets a measurement every `event_interval` ticks.
            core.end_processing_scheduled_tasks();
            // Poll the driver without sleeping.
            core = self.park_timeout(core, Some(Duration::ZERO));
            core.maintenance(&self.worker);
            core.stats.start_processing_scheduled_tasks();
        }
        core
    }

    fn park(&self, mut core: Box<Core>) -> Box<Core> {
        if let Some(f) = &self.worker.handle.shared.config.before_park {
            f();
        }

        if core.transition_to_parked(&self.worker) {
            while !core.is_shutdown {
                core.stats.about_to_park();
                core.submit_metrics(&self.worker);
                core = self.park_timeout(core, None);
                core.stats.unparked();
                core.maintenance(&self.worker);
                if core.transition_from_parked(&self.worker) {
                    break;
                }
            }
        }

        if let Some(f) = &self.worker.handle.shared.config.after_unpark {
            f();
        }
        core
    }

    fn park_timeout(&self, mut core: Box<Core>, duration: Option<Duration>) -> Box<Core> {
        let mut park = core.park.take().expect("park missing");

        // Wakes from the driver on this thread may use the local queue.
        *self.core.borrow_mut() = Some(core);

        let mut slept_in_driver = false;
        match duration {
            Some(timeout) => {
                if !park.park_timeout(&self.worker.handle.driver, timeout) {
                    // Another thread holds the driver: fire this worker's
                    // own due timers, so a busy runtime's timers fire even
                    // when nobody parks.
                    self.worker
                        .handle
                        .driver
                        .process_timer_shard(self.worker.index);
                }
            }
            // `before_park` deferred a wake (a `yield_now` in it): no sleep.
            None if !self.defer.is_empty() => {
                park.park_timeout(&self.worker.handle.driver, Duration::ZERO);
            }
            None => slept_in_driver = park.park(&self.worker.handle.driver),
        }
        // The driver has been polled: the yields run now.
        self.defer.wake();

        let mut core = self.core.borrow_mut().take().expect("core missing");
        core.park = Some(park);
        core.requeue_deferred(&self.worker.handle);

        // Eager hand-off (`runtime/switches.rs`): leaving the driver to run
        // tasks, wake a worker to take it.
        let hand_off = slept_in_driver
            && self.worker.handle.shared.config.eager_driver_handoff
            && (core.has_tasks() || !self.worker.handle.shared.inject.is_empty());
        if hand_off || core.should_notify_others() {
            self.worker.handle.notify_parked();
        }
        core
    }
}

/// Runs a LIFO task (kept out of line for clearer profiles).
#[inline(never)]
fn run_lifo(task: LocalNotified<Arc<Handle>>, hooks: &TaskHooks) -> Option<Notified> {
    task.run_hooked(hooks)
}

impl Core {
    fn next_task(&mut self, worker: &Worker) -> Option<Notified> {
        if self.global_queue_first_in.elapsed() {
            worker
                .handle
                .next_remote_task()
                .or_else(|| self.next_local_task())
        } else {
            let maybe_task = self.next_local_task();
            if maybe_task.is_some() {
                return maybe_task;
            }

            let inject = &worker.handle.shared.inject;
            if inject.is_empty() {
                return None;
            }

            // Pull a batch from the global queue: our share, bounded by the
            // room in the local queue (which only stealers can shrink).
            let cap = usize::min(
                self.run_queue.remaining_slots(),
                self.run_queue.max_capacity() / 2,
            );
            let n = usize::min(inject.len() / worker.handle.shared.remotes.len() + 1, cap);
            let n = usize::max(1, n);

            let mut first = None;
            let run_queue = &mut self.run_queue;
            let taken = inject.pop_n(n, |task| {
                if first.is_none() {
                    first = Some(task);
                } else {
                    run_queue.push_back(std::iter::once(task));
                }
            });
            self.stats.inc_injector_pull_count(taken);
            first
        }
    }

    /// Ends the batch of polls started last, and tunes the global queue
    /// interval from it.
    fn end_processing_scheduled_tasks(&mut self) {
        let Some(ProcessedBatch { elapsed, polls }) = self.stats.end_processing_scheduled_tasks()
        else {
            return;
        };
        self.poll_time.record_batch(elapsed, polls);
        if self.tune_global_queue_interval {
            if let Some(next) = self.poll_time.retune(self.global_queue_first_in.every()) {
                self.global_queue_first_in.set_every(next);
            }
        }
    }

    fn next_local_task(&mut self) -> Option<Notified> {
        self.lifo_slot.take().or_else(|| self.run_queue.pop())
    }

    /// Moves the tasks that yielded to the back of the run queue (the
    /// driver has just been polled).
    fn requeue_deferred(&mut self, handle: &Handle) {
        for task in self.deferred.drain(..) {
            self.stats.inc_local_schedule_count();
            self.run_queue
                .push_back_or_overflow(task, &handle.shared.inject, &mut self.stats);
        }
    }

    /// Steals from another worker, or takes from the global queue.
    fn steal_work(&mut self, worker: &Worker) -> Option<Notified> {
        if !self.transition_to_searching(worker) {
            return None;
        }

        let num = worker.handle.shared.remotes.len();
        // Start from a random victim so that thieves spread out.
        let start = self.rand.fastrand_n(num as u32) as usize;

        for i in 0..num {
            let i = (start + i) % num;
            if i == worker.index {
                continue;
            }
            let target = &worker.handle.shared.remotes[i];
            if let Some(task) = target
                .steal
                .steal_into(&mut self.run_queue, &mut self.stats)
            {
                return Some(task);
            }
        }

        // Nothing to steal: the global queue, once more.
        worker.handle.next_remote_task()
    }

    fn transition_to_searching(&mut self, worker: &Worker) -> bool {
        if !self.is_searching {
            self.is_searching = worker.handle.shared.idle.transition_worker_to_searching();
        }
        self.is_searching
    }

    fn transition_from_searching(&mut self, worker: &Worker) {
        if !self.is_searching {
            return;
        }
        self.is_searching = false;
        if worker.handle.shared.idle.transition_worker_from_searching() {
            // We were the last searcher: wake another worker in case more
            // work than we take is queued.
            worker.handle.notify_parked();
        }
    }

    fn has_tasks(&self) -> bool {
        self.lifo_slot.is_some() || self.run_queue.has_tasks()
    }

    fn should_notify_others(&self) -> bool {
        // A searcher will find the work anyway; otherwise, with more than
        // one task here, someone else could help.
        if self.is_searching {
            return false;
        }
        self.lifo_slot.is_some() as usize + self.run_queue.len() > 1
    }

    /// Prepares to park. Returns `false` if there is work after all.
    fn transition_to_parked(&mut self, worker: &Worker) -> bool {
        if self.has_tasks() {
            return false;
        }
        let nobody_searches = worker
            .handle
            .shared
            .idle
            .transition_worker_to_parked(worker.index, self.is_searching);
        self.is_searching = false;
        if nobody_searches {
            // Work may have arrived after our last look, and its wake-up
            // found us still unparked (idle.rs).
            worker.handle.notify_if_work_pending();
        }
        true
    }

    /// After waking up: `true` if the worker should run.
    fn transition_from_parked(&mut self, worker: &Worker) -> bool {
        // Local work (e.g. from the driver) means running, notified or not.
        if self.has_tasks() {
            // Searching only if somebody notified us (and so counted us).
            self.is_searching = !worker.handle.shared.idle.unpark_worker_by_id(worker.index);
            return true;
        }
        if worker.handle.shared.idle.is_parked(worker.index) {
            // Nobody notified us: spurious wake-up.
            return false;
        }
        // Notified workers start out searching.
        self.is_searching = true;
        true
    }

    /// Checks for shutdown and publishes metrics.
    fn maintenance(&mut self, worker: &Worker) {
        self.submit_metrics(worker);
        if !self.is_shutdown {
            self.is_shutdown = worker.handle.shared.inject.is_closed();
        }
    }

    /// Cancels tasks before the core is handed in.
    fn pre_shutdown(&mut self, worker: &Worker) {
        worker.handle.shared.owned.close_and_shutdown_all();
        self.submit_metrics(worker);
    }

    /// Publishes the metrics batch, and the mean poll time.
    fn submit_metrics(&mut self, worker: &Worker) {
        let metrics = &worker.handle.shared.worker_metrics[worker.index];
        self.stats.submit(metrics);
        metrics
            .mean_poll_time
            .store(self.poll_time.mean_nanos(), Relaxed);
    }

    /// Empties the core's queues (their tasks are cancelled already).
    fn shutdown(&mut self, handle: &Handle) {
        let mut park = self.park.take().expect("park missing");
        while self.next_local_task().is_some() {}
        self.deferred.clear();
        park.shutdown(&handle.driver);
    }
}

impl Handle {
    /// Takes a shut-down core; the last one finishes the shutdown.
    fn shutdown_core(&self, core: Box<Core>) {
        let mut cores = self.shared.shutdown_cores.lock().unwrap();
        cores.push(core);
        if cores.len() != self.shared.remotes.len() {
            return;
        }
        debug_assert!(self.shared.owned.is_empty());
        for mut core in cores.drain(..) {
            core.shutdown(self);
        }
        // Every task is cancelled: the queued notifications only need
        // dropping.
        while let Some(task) = self.next_remote_task() {
            drop(task);
        }
    }
}

/// Runs `f` with the current worker context, if this thread is a worker.
pub(super) fn with_current<R>(f: impl FnOnce(Option<&Context>) -> R) -> R {
    use scheduler::Context::MultiThread;
    context::with_scheduler(|ctx| match ctx {
        Some(MultiThread(ctx)) => f(Some(ctx)),
        _ => f(None),
    })
}
