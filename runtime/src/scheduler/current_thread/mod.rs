//! The current-thread scheduler: every task runs on the thread that calls
//! `block_on`.
//!
//! # Design
//!
//! The scheduler's state lives in a [`Core`]: a plain `VecDeque` run queue,
//! the global-queue countdown and the driver. Only the thread that holds the
//! core runs tasks. `block_on` takes the core out of an `AtomicCell`; a
//! second thread calling `block_on` at the same time finds the cell empty
//! and waits until either its own future completes (driven by wakes from
//! elsewhere) or the core is put back, then competes for it again.
//!
//! Wakes on the core-holding thread push straight onto the local queue;
//! wakes from any other thread push onto the injector (the global queue)
//! and unpark the driver. The `block_on` future itself is not a task: its
//! waker sets `woken` and unparks the driver, and the loop polls it again
//! when `woken` is set.
//!
//! The loop runs up to `event_interval` tasks between polls of the driver,
//! and takes from the injector first every `global_queue_interval` ticks so
//! that remote wake-ups are not starved by a busy local queue.
//!
//! Yields are deferred (`scheduler/defer.rs`): the context's list is woken
//! after every poll of the driver, and while it is non-empty the loop polls
//! the driver without sleeping. What is left in it when `block_on` ends is
//! woken as the core is put back.
//!
//! With `UnhandledPanic::ShutdownRuntime`, a task's panic sets the core's
//! `unhandled_panic` flag and cancels every task; the loop checks the flag
//! before each task it would run and panics (`runtime/unhandled_panic.rs`).

use crate::driver::{self, Driver};
use crate::loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use crate::runtime::metrics::{MetricsBatch, SchedulerMetrics, WorkerMetrics};
use crate::scheduler::defer::{self, Defer};
use crate::scheduler::inject::Inject;
use crate::scheduler::{self, Config};
use crate::task::list::OwnedTasks;
use crate::task::{Id, JoinHandle, Notified, Schedule, SpawnLocation, Task};
use crate::util::atomic_cell::AtomicCell;
use crate::util::countdown::Countdown;
use crate::{blocking, context, coop};

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::sync::OnceLock;
use std::sync::{Arc, Mutex as StdMutex, Weak};
use std::task::{Poll, Wake, Waker};
use std::thread::ThreadId;
use std::time::Duration;

/// The current-thread scheduler, owned by the `Runtime`.
pub(crate) struct CurrentThread {
    /// The core, when no thread is running it.
    core: AtomicCell<Core>,
    /// Threads waiting in `block_on` for the core.
    notify: CoreNotify,
}

/// The shared side of the scheduler (what tasks and runtime handles hold).
pub(crate) struct Handle {
    shared: Shared,
    pub(crate) driver: driver::Handle,
    pub(crate) blocking_spawner: blocking::Spawner,
    pub(crate) metrics: SchedulerMetrics,
    pub(crate) name: Option<String>,
    /// The `block_on` future's waker (sets `woken`, unparks the driver).
    waker: Waker,
    /// The thread that built it, when it is a `LocalRuntime`'s: local tasks
    /// can be spawned through its handle only there.
    pub(crate) local_owner: OnceLock<ThreadId>,
}

struct Shared {
    inject: Inject<Arc<Handle>>,
    owned: OwnedTasks<Arc<Handle>>,
    /// Set by the `block_on` waker: poll the `block_on` future again.
    woken: AtomicBool,
    config: Config,
    worker_metrics: WorkerMetrics,
}

/// The thread-local side: set while a thread holds the core.
pub(crate) struct Context {
    handle: Arc<Handle>,
    core: RefCell<Option<Box<Core>>>,
    /// Yields waiting for the next poll of the driver.
    defer: Defer,
}

struct Core {
    tasks: VecDeque<Notified<Arc<Handle>>>,
    /// Tasks that yielded (`scheduler/defer.rs`): they join `tasks` after
    /// the next poll of the driver.
    deferred: Vec<Notified<Arc<Handle>>>,
    /// Ticks until the global queue next goes first
    /// (`global_queue_interval` apart).
    global_queue_first_in: Countdown,
    /// `None` while the driver is parked or being shut down.
    driver: Option<Driver>,
    metrics: MetricsBatch,
    /// A spawned task panicked under `UnhandledPanic::ShutdownRuntime`:
    /// every `block_on` still running or to come panics.
    unhandled_panic: bool,
}

/// Initial capacity of the local run queue.
const INITIAL_CAPACITY: usize = 64;

/// Ticks between global-queue checks unless the builder sets it (tokio's).
const DEFAULT_GLOBAL_QUEUE_INTERVAL: u32 = 31;

impl CurrentThread {
    pub(crate) fn new(
        driver: Driver,
        driver_handle: driver::Handle,
        blocking_spawner: blocking::Spawner,
        config: Config,
        name: Option<String>,
    ) -> (CurrentThread, Arc<Handle>) {
        let worker_metrics = WorkerMetrics::new(&config);
        let handle = Arc::new_cyclic(|weak: &Weak<Handle>| Handle {
            shared: Shared {
                inject: Inject::new(),
                owned: OwnedTasks::new(4),
                woken: AtomicBool::new(false),
                config,
                worker_metrics,
            },
            driver: driver_handle,
            blocking_spawner,
            metrics: SchedulerMetrics::default(),
            name,
            // A weak reference: the waker must not keep the runtime alive.
            waker: Waker::from(Arc::new(BlockOnWaker {
                handle: weak.clone(),
            })),
            local_owner: OnceLock::new(),
        });

        let core = AtomicCell::new(Some(Box::new(Core {
            tasks: VecDeque::with_capacity(INITIAL_CAPACITY),
            deferred: Vec::new(),
            global_queue_first_in: Countdown::new(
                handle
                    .shared
                    .config
                    .global_queue_interval
                    .unwrap_or(DEFAULT_GLOBAL_QUEUE_INTERVAL),
            ),
            driver: Some(driver),
            metrics: MetricsBatch::new(&handle.shared.worker_metrics),
            unhandled_panic: false,
        })));

        let scheduler = CurrentThread {
            core,
            notify: CoreNotify::new(),
        };
        // The building thread is the runtime's thread until a `block_on`
        // says otherwise (as tokio reports it).
        handle.shared.worker_metrics.set_thread_id();
        (scheduler, handle)
    }

    /// Runs `future` to completion, driving the scheduler's tasks while it
    /// waits.
    #[track_caller]
    pub(crate) fn block_on<F: Future>(&self, handle: &scheduler::Handle, future: F) -> F::Output {
        let mut future = pin!(future);
        context::enter_runtime(handle, false, |blocking| {
            let handle = handle.as_current_thread();
            // Take the core and run, or wait until either the future is
            // done (woken by other threads) or the core is released.
            loop {
                let generation = self.notify.generation();
                if let Some(core) = self.take_core(handle) {
                    handle.shared.worker_metrics.set_thread_id();
                    return core.block_on(future.as_mut());
                }
                let mut notified = pin!(self.notify.notified(generation));
                let out = blocking
                    .block_on(poll_fn(|cx| {
                        if notified.as_mut().poll(cx).is_ready() {
                            return Poll::Ready(None);
                        }
                        if let Poll::Ready(out) = future.as_mut().poll(cx) {
                            return Poll::Ready(Some(out));
                        }
                        Poll::Pending
                    }))
                    .expect("Failed to `Enter::block_on`");
                if let Some(out) = out {
                    return out;
                }
            }
        })
    }

    fn take_core(&self, handle: &Arc<Handle>) -> Option<CoreGuard<'_>> {
        let core = self.core.take()?;
        Some(CoreGuard {
            context: scheduler::Context::CurrentThread(Context {
                handle: handle.clone(),
                core: RefCell::new(Some(core)),
                defer: Defer::new(),
            }),
            scheduler: self,
        })
    }

    /// Cancels every task and shuts the driver down. Called by the
    /// `Runtime`'s drop on the thread that drops it.
    pub(crate) fn shutdown(&mut self, handle: &scheduler::Handle) {
        let handle = handle.as_current_thread();

        // Avoid a double panic if we are currently panicking.
        let core = match self.take_core(handle) {
            Some(core) => core,
            None if std::thread::panicking() => return,
            None => panic!("Oh no! We never placed the Core back, this is a bug!"),
        };

        // Tasks' destructors may spawn or wake: run the shutdown inside the
        // scheduler context when the thread-local is still available.
        let tls_available = context::with_current(|_| ()).is_ok();
        if tls_available {
            core.enter(|core, _context| {
                let core = shutdown2(core, handle);
                (core, ())
            });
        } else {
            let context = core.context.expect_current_thread();
            let core = context.core.borrow_mut().take().unwrap();
            let core = shutdown2(core, handle);
            *context.core.borrow_mut() = Some(core);
        }
    }
}

fn shutdown2(mut core: Box<Core>, handle: &Handle) -> Box<Core> {
    // Cancel every task; also closes the list so later spawns are
    // cancelled at once.
    handle.shared.owned.close_and_shutdown_all();

    // Every task is cancelled: the queued notifications only need dropping.
    while let Some(task) = core.next_local_task() {
        drop(task);
    }
    core.deferred.clear();
    handle.shared.inject.close();
    while let Some(task) = handle.shared.inject.pop() {
        drop(task);
    }
    assert!(handle.shared.owned.is_empty());

    core.submit_metrics(handle);
    if let Some(driver) = core.driver.as_mut() {
        driver.shutdown(&handle.driver);
    }
    core
}

impl fmt::Debug for CurrentThread {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("CurrentThread").finish()
    }
}

// ----- Core -------------------------------------------------------------------

impl Core {
    fn next_task(&mut self, handle: &Handle) -> Option<Notified<Arc<Handle>>> {
        let task = if self.global_queue_first_in.elapsed() {
            handle.next_remote_task().or_else(|| self.next_local_task())
        } else {
            self.next_local_task().or_else(|| handle.next_remote_task())
        };
        // `RuntimeMetrics::worker_local_queue_depth` is live, as in tokio.
        let depth = &handle.shared.worker_metrics.queue_depth;
        depth.store(self.tasks.len(), Relaxed);
        task
    }

    fn next_local_task(&mut self) -> Option<Notified<Arc<Handle>>> {
        self.tasks.pop_front()
    }

    fn push_task(&mut self, task: Notified<Arc<Handle>>) {
        self.metrics.inc_local_schedule_count();
        self.tasks.push_back(task);
    }

    /// Queues a task that its poll handed back as woken: deferred if it
    /// yielded, else at the back at once.
    fn push_yielded(&mut self, task: Notified<Arc<Handle>>) {
        if defer::is_deferred_yield(&task) {
            self.deferred.push(task);
        } else {
            self.push_task(task);
        }
    }

    /// Moves the tasks that yielded to the back of the queue (the driver
    /// has just been polled).
    fn requeue_deferred(&mut self) {
        for task in self.deferred.drain(..) {
            self.metrics.inc_local_schedule_count();
            self.tasks.push_back(task);
        }
    }

    fn submit_metrics(&mut self, handle: &Handle) {
        let metrics = &handle.shared.worker_metrics;
        self.metrics.submit(metrics);
        metrics.queue_depth.store(self.tasks.len(), Relaxed);
    }
}

// ----- Handle -----------------------------------------------------------------

impl Handle {
    /// Spawns a future onto the current-thread scheduler.
    pub(crate) fn spawn<F>(
        me: &Arc<Self>,
        future: F,
        id: Id,
        spawned_at: SpawnLocation,
    ) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (handle, notified) = me.shared.owned.bind(future, me.clone(), id, spawned_at);
        if let Some(notified) = notified {
            me.schedule(notified);
        }
        handle
    }

    fn next_remote_task(&self) -> Option<Notified<Arc<Handle>>> {
        self.shared.inject.pop()
    }

    /// Whether the `block_on` future was woken; clears the flag.
    fn reset_woken(&self) -> bool {
        // AcqRel: what the waker's thread did before waking must be visible
        // to the poll that follows.
        self.shared.woken.swap(false, AcqRel)
    }

    pub(crate) fn config(&self) -> &crate::scheduler::Config {
        &self.shared.config
    }

    pub(crate) fn owned_id(&self) -> u64 {
        self.shared.owned_id()
    }

    pub(crate) fn num_alive_tasks(&self) -> usize {
        self.shared.owned.num_alive_tasks()
    }

    pub(crate) fn spawned_tasks_count(&self) -> u64 {
        self.shared.owned.spawned_tasks_count()
    }

    pub(crate) fn injection_queue_depth(&self) -> usize {
        self.shared.inject.len()
    }

    #[track_caller]
    pub(crate) fn worker_metrics(&self, worker: usize) -> &WorkerMetrics {
        assert_eq!(0, worker, "index out of bounds");
        &self.shared.worker_metrics
    }

    /// As last published: the queue belongs to whoever holds the core.
    #[track_caller]
    pub(crate) fn worker_local_queue_depth(&self, worker: usize) -> usize {
        self.worker_metrics(worker).queue_depth.load(Relaxed)
    }
}

/// A `LocalRuntime`'s local task panicked (its tasks live in a `LocalSet`
/// polled inside `block_on`): the runtime this thread is running reacts as
/// to a panic of one of its own tasks.
pub(crate) fn unhandled_panic_of_local_task() {
    let handle = context::with_scheduler(|maybe_cx| match maybe_cx {
        Some(scheduler::Context::CurrentThread(cx)) => Some(cx.handle.clone()),
        _ => None,
    });
    if let Some(handle) = handle {
        handle.unhandled_panic();
    }
}

impl Shared {
    fn owned_id(&self) -> u64 {
        self.owned.id()
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("current_thread::Handle { ... }").finish()
    }
}

impl Schedule for Arc<Handle> {
    fn release(&self, task: &Task<Self>) -> Option<Task<Self>> {
        self.shared.owned.remove(task)
    }

    fn owner_id(&self) -> u64 {
        self.shared.owned_id()
    }

    fn terminate_hook(&self) -> Option<&crate::runtime::TaskCallback> {
        self.shared.config.task_hooks.terminate.as_ref()
    }

    fn schedule(&self, task: Notified<Self>) {
        use scheduler::Context::CurrentThread;

        context::with_scheduler(|maybe_cx| match maybe_cx {
            Some(CurrentThread(cx)) if Arc::ptr_eq(self, &cx.handle) => {
                let mut core = cx.core.borrow_mut();
                // `None`: the runtime is shutting down; the task is dropped.
                if let Some(core) = core.as_mut() {
                    core.push_task(task);
                    // The depth readers see at once, as in tokio.
                    let depth = &self.shared.worker_metrics.queue_depth;
                    depth.store(core.tasks.len(), Relaxed);
                }
                self.driver.unpark_self();
            }
            _ => {
                // From outside the runtime's thread.
                self.metrics.inc_remote_schedule_count();
                self.shared.inject.push(task);
                self.driver.unpark();
            }
        });
    }

    fn unhandled_panic(&self) {
        use crate::runtime::UnhandledPanic;
        use scheduler::Context::CurrentThread;

        if !matches!(
            self.shared.config.unhandled_panic,
            UnhandledPanic::ShutdownRuntime
        ) {
            return;
        }
        // Tasks run only on the thread that holds the core, inside its
        // context, with the core in the context's cell.
        let running = context::with_scheduler(|maybe_cx| match maybe_cx {
            Some(CurrentThread(cx)) if Arc::ptr_eq(self, &cx.handle) => {
                // `None`: the runtime is shutting down already.
                cx.core
                    .borrow_mut()
                    .as_mut()
                    .map(|core| core.unhandled_panic = true)
            }
            _ => None,
        });
        if running.is_some() {
            // Not under the core's borrow: the cancelled tasks' destructors
            // may wake other tasks, which pushes onto the core.
            self.shared.owned.close_and_shutdown_all();
        }
    }
}

/// Waker of the `block_on` future.
struct BlockOnWaker {
    handle: Weak<Handle>,
}

impl Wake for BlockOnWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if let Some(handle) = self.handle.upgrade() {
            // Release: pairs with the AcqRel swap in `reset_woken`.
            handle.shared.woken.store(true, Release);
            handle.driver.unpark();
        }
    }
}

// ----- Context ----------------------------------------------------------------

impl Context {
    /// Runs a task with a fresh coop budget.
    fn run_task<R>(&self, mut core: Box<Core>, f: impl FnOnce() -> R) -> (Box<Core>, R) {
        core.metrics.start_poll();
        let (mut core, out) = self.enter(core, || coop::budget(f));
        core.metrics.end_poll();
        (core, out)
    }

    /// Parks on the driver until woken.
    fn park(&self, mut core: Box<Core>, handle: &Handle) -> Box<Core> {
        let mut driver = core.driver.take().expect("driver missing");

        if let Some(f) = &handle.shared.config.before_park {
            let (c, ()) = self.enter(core, || f());
            core = c;
        }

        // `before_park` may have spawned something to run instead, or
        // deferred a wake (a `yield_now` in it): then only poll the driver,
        // as tokio does, so that its events are not held back either.
        let sleep = core.tasks.is_empty() && self.defer.is_empty();
        if sleep {
            core.metrics.about_to_park();
            core.submit_metrics(handle);
        }
        let (c, ()) = self.enter(core, || {
            if sleep {
                driver.park(&handle.driver);
            } else {
                driver.park_timeout(&handle.driver, Duration::ZERO);
            }
            self.defer.wake();
        });
        core = c;
        if sleep {
            core.metrics.unparked();
            core.submit_metrics(handle);
        }
        core.requeue_deferred();

        if let Some(f) = &handle.shared.config.after_unpark {
            let (c, ()) = self.enter(core, || f());
            core = c;
        }

        core.driver = Some(driver);
        core
    }

    /// Polls the driver without sleeping.
    fn park_yield(&self, mut core: Box<Core>, handle: &Handle) -> Box<Core> {
        let mut driver = core.driver.take().expect("driver missing");
        core.submit_metrics(handle);
        let (mut core, ()) = self.enter(core, || {
            driver.park_timeout(&handle.driver, Duration::ZERO);
            self.defer.wake();
        });
        core.requeue_deferred();
        core.driver = Some(driver);
        core
    }

    /// Keeps a yielding task's waker until the next poll of the driver.
    pub(crate) fn defer(&self, waker: &Waker) {
        if !defer::defer_own_task(waker, self.handle.shared.owned_id()) {
            self.defer.defer(waker);
        }
    }

    /// Makes the core available to wakes on this thread while `f` runs.
    fn enter<R>(&self, core: Box<Core>, f: impl FnOnce() -> R) -> (Box<Core>, R) {
        *self.core.borrow_mut() = Some(core);
        let ret = f();
        let core = self.core.borrow_mut().take().expect("core missing");
        (core, ret)
    }
}

// ----- CoreGuard --------------------------------------------------------------

/// Holds the core while a thread drives the scheduler; puts it back (and
/// tells waiting `block_on` callers) when dropped, also on panic.
struct CoreGuard<'a> {
    context: scheduler::Context,
    scheduler: &'a CurrentThread,
}

impl CoreGuard<'_> {
    #[track_caller]
    fn block_on<F: Future>(self, future: std::pin::Pin<&mut F>) -> F::Output {
        let ret = self.enter(|mut core, context| {
            let handle = &context.handle;
            let waker = handle.waker.clone();
            let mut cx = std::task::Context::from_waker(&waker);
            let mut future = future;
            // The first poll happens at once.
            handle.shared.woken.store(true, Relaxed);

            core.metrics.start_processing_scheduled_tasks();

            'outer: loop {
                if handle.reset_woken() {
                    let (c, res) =
                        context.enter(core, || coop::budget(|| future.as_mut().poll(&mut cx)));
                    core = c;
                    if let Poll::Ready(v) = res {
                        core.metrics.end_processing_scheduled_tasks();
                        return (core, Some(v));
                    }
                }

                for _ in 0..handle.shared.config.event_interval {
                    if core.unhandled_panic {
                        return (core, None);
                    }
                    let task = match core.next_task(handle) {
                        Some(task) => task,
                        None => {
                            core.metrics.end_processing_scheduled_tasks();
                            core = if handle.shared.woken.load(Acquire)
                                || !context.defer.is_empty()
                                || !core.deferred.is_empty()
                            {
                                // The future was woken meanwhile, or a task
                                // yielded: don't sleep.
                                context.park_yield(core, handle)
                            } else {
                                context.park(core, handle)
                            };
                            core.metrics.start_processing_scheduled_tasks();
                            continue 'outer;
                        }
                    };
                    let task = handle.shared.owned.assert_owner(task);
                    let hooks = &handle.shared.config.task_hooks;
                    let (c, yielded) = context.run_task(core, || task.run_hooked(hooks));
                    core = c;
                    if let Some(task) = yielded {
                        core.push_yielded(task);
                    }
                }

                // Yield to the driver: timers and I/O get their turn.
                core.metrics.end_processing_scheduled_tasks();
                core = context.park_yield(core, handle);
                core.metrics.start_processing_scheduled_tasks();
            }
        });
        match ret {
            Some(ret) => ret,
            None => panic!("{}", crate::runtime::SHUTDOWN_PANIC),
        }
    }

    /// Runs `f` with the core and this guard's context set as the thread's
    /// scheduler.
    fn enter<F, R>(self, f: F) -> R
    where
        F: FnOnce(Box<Core>, &Context) -> (Box<Core>, R),
    {
        let context = self.context.expect_current_thread();
        let core = context.core.borrow_mut().take().expect("core missing");
        let (core, ret) = context::set_scheduler(&self.context, || f(core, context));
        *context.core.borrow_mut() = Some(core);
        ret
    }
}

impl Drop for CoreGuard<'_> {
    fn drop(&mut self) {
        let context = self.context.expect_current_thread();
        if let Some(core) = context.core.borrow_mut().take() {
            // Give the core back so another `block_on` can drive it.
            self.scheduler.core.set(core);
            self.scheduler.notify.notify_all();
        }
        // Yields deferred by the `block_on` future's last poll (a local
        // task of a `LocalSet` it drove, say). No scheduler context is set
        // any more: these wakes go to the global queue, for whoever drives
        // the runtime next.
        context.defer.wake();
    }
}

// ----- CoreNotify ---------------------------------------------------------------

/// Wakes `block_on` callers waiting for the core.
///
/// A waiter reads the generation *before* it tries to take the core; a
/// release bumps the generation and wakes every registered waiter. A waiter
/// whose generation is stale is done waiting, so a release that happens
/// between a failed take and the registration is not lost.
struct CoreNotify {
    generation: AtomicUsize,
    waiters: StdMutex<Vec<Waker>>,
}

impl CoreNotify {
    fn new() -> Self {
        CoreNotify {
            generation: AtomicUsize::new(0),
            waiters: StdMutex::new(Vec::new()),
        }
    }

    fn generation(&self) -> usize {
        self.generation.load(SeqCst)
    }

    fn notify_all(&self) {
        // SeqCst: the bump must be ordered with the waiters' load after
        // registration (both sides use the `waiters` lock as well).
        let wakers = {
            let mut waiters = self.waiters.lock().unwrap();
            self.generation.fetch_add(1, SeqCst);
            std::mem::take(&mut *waiters)
        };
        for waker in wakers {
            waker.wake();
        }
    }

    fn notified(&self, generation: usize) -> impl Future<Output = ()> + '_ {
        poll_fn(move |cx| {
            if self.generation.load(SeqCst) != generation {
                return Poll::Ready(());
            }
            let mut waiters = self.waiters.lock().unwrap();
            // Re-check under the lock that `notify_all` also takes.
            if self.generation.load(SeqCst) != generation {
                return Poll::Ready(());
            }
            if !waiters.iter().any(|w| w.will_wake(cx.waker())) {
                waiters.push(cx.waker().clone());
            }
            Poll::Pending
        })
    }
}
