//! The thread pool behind `spawn_blocking`.
//!
//! # Design
//!
//! One mutex protects the pool's state: a FIFO queue of tasks, the number of
//! threads (`num_th`) and of idle ones (`num_idle`), and `num_notify`, the
//! number of wake-ups sent to idle threads and not yet taken.
//!
//! * `spawn_task` queues the task. If a thread is idle it takes one idle
//!   thread off the books (`num_idle -= 1`, `num_notify += 1`) and signals
//!   the condvar; otherwise it starts a new thread, up to `thread_cap`
//!   (`max_blocking_threads` plus the runtime's worker threads). Beyond the
//!   cap, tasks wait in the queue: spawning never fails for lack of threads.
//! * A thread runs queued tasks until the queue is empty, then goes idle and
//!   waits on the condvar. A wake-up counts only if `num_notify > 0` (which
//!   it consumes); otherwise it is spurious. A thread idle for `keep_alive`
//!   exits.
//! * Shutdown sets `shutdown`, wakes every thread, and waits (optionally
//!   with a timeout) until every thread has exited. Queued tasks are
//!   cancelled unless mandatory (the runtime's own worker threads).
//!
//! Threads enter the runtime's handle, so `Handle::current()` works in a
//! blocking closure; they do not *drive* the runtime, so blocking is allowed.

use crate::blocking::schedule::BlockingSchedule;
use crate::blocking::shutdown;
use crate::blocking::task::BlockingTask;
use crate::loom::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use crate::loom::sync::{Arc, Condvar, Mutex};
use crate::runtime::{Builder, Callback, Handle};
use crate::task::{self, JoinHandle};

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::io;
use std::time::Duration;

/// The pool; owned by the `Runtime`, shut down when it drops.
pub(crate) struct BlockingPool {
    spawner: Spawner,
    shutdown_rx: shutdown::Receiver,
}

/// Handle to queue tasks on the pool.
#[derive(Clone)]
pub(crate) struct Spawner {
    inner: Arc<Inner>,
}

/// Whether a task must run even if the pool starts shutting down before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "rt-multi-thread"), allow(dead_code))]
pub(crate) enum Mandatory {
    Mandatory,
    NonMandatory,
}

pub(crate) enum SpawnError {
    /// The pool is shutting down; the task was cancelled.
    ShuttingDown,
    /// No thread exists and the OS refused to start one.
    NoThreads(io::Error),
}

struct Inner {
    shared: Mutex<Shared>,
    condvar: Condvar,
    thread_name: crate::runtime::ThreadNameFn,
    stack_size: Option<usize>,
    after_start: Option<Callback>,
    before_stop: Option<Callback>,
    /// Most threads the pool may hold.
    thread_cap: usize,
    keep_alive: Duration,
    /// Mirrors of the counters, readable without the lock (metrics).
    num_threads: AtomicUsize,
    num_idle_threads: AtomicUsize,
    queue_depth: AtomicUsize,
}

struct Shared {
    queue: VecDeque<Task>,
    num_notify: u32,
    shutdown: bool,
    shutdown_tx: Option<shutdown::Sender>,
    /// The thread that exited on keep-alive last; the next exiting thread
    /// joins it, so exited threads never pile up unjoined.
    last_exiting_thread: Option<std::thread::JoinHandle<()>>,
    worker_threads: HashMap<usize, std::thread::JoinHandle<()>>,
    worker_thread_index: usize,
    num_th: usize,
    num_idle: usize,
}

pub(crate) struct Task {
    task: task::UnownedTask<BlockingSchedule>,
    mandatory: Mandatory,
}

impl Task {
    fn run(self) {
        self.task.run();
    }

    fn shutdown_or_run_if_mandatory(self) {
        match self.mandatory {
            Mandatory::NonMandatory => self.task.shutdown(),
            Mandatory::Mandatory => self.task.run(),
        }
    }
}

/// `spawn_mandatory_blocking` on the current runtime: `None` if its pool
/// already shut down.
#[cfg(feature = "io-std")]
#[track_caller]
pub(crate) fn spawn_mandatory_blocking<F, R>(func: F) -> Option<JoinHandle<R>>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let rt = Handle::current();
    rt.inner
        .blocking_spawner()
        .spawn_mandatory_blocking(&rt, func)
}

/// `spawn_blocking` on the current runtime.
#[track_caller]
pub(crate) fn spawn_blocking<F, R>(func: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let rt = Handle::current();
    rt.inner.blocking_spawner().spawn_blocking(&rt, func)
}

impl BlockingPool {
    pub(crate) fn new(builder: &Builder, thread_cap: usize) -> BlockingPool {
        let (shutdown_tx, shutdown_rx) = shutdown::channel();
        let keep_alive = builder.keep_alive.unwrap_or(Duration::from_secs(10));
        BlockingPool {
            spawner: Spawner {
                inner: Arc::new(Inner {
                    shared: Mutex::new(Shared {
                        queue: VecDeque::new(),
                        num_notify: 0,
                        shutdown: false,
                        shutdown_tx: Some(shutdown_tx),
                        last_exiting_thread: None,
                        worker_threads: HashMap::new(),
                        worker_thread_index: 0,
                        num_th: 0,
                        num_idle: 0,
                    }),
                    condvar: Condvar::new(),
                    thread_name: builder.thread_name.clone(),
                    stack_size: builder.thread_stack_size,
                    after_start: builder.after_start.clone(),
                    before_stop: builder.before_stop.clone(),
                    thread_cap,
                    keep_alive,
                    num_threads: AtomicUsize::new(0),
                    num_idle_threads: AtomicUsize::new(0),
                    queue_depth: AtomicUsize::new(0),
                }),
            },
            shutdown_rx,
        }
    }

    pub(crate) fn spawner(&self) -> &Spawner {
        &self.spawner
    }

    /// Stops the pool and waits for its threads (at most `timeout`).
    #[track_caller]
    pub(crate) fn shutdown(&mut self, timeout: Option<Duration>) {
        let mut shared = self.spawner.inner.shared.lock();
        // The function can be called multiple times: first by the runtime
        // (`shutdown_timeout`), then by `Drop`. Only the first one waits.
        if shared.shutdown {
            return;
        }
        shared.shutdown = true;
        shared.shutdown_tx = None;
        self.spawner.inner.condvar.notify_all();
        let last_exited_thread = shared.last_exiting_thread.take();
        let workers = std::mem::take(&mut shared.worker_threads);
        drop(shared);

        if self.shutdown_rx.wait(timeout) {
            // Every thread is done with the pool: join them so their
            // thread-locals are gone too before the runtime drop returns.
            if let Some(handle) = last_exited_thread {
                let _ = handle.join();
            }
            let mut workers: Vec<_> = workers.into_iter().collect();
            workers.sort_by_key(|(id, _)| *id);
            for (_id, handle) in workers {
                let _ = handle.join();
            }
        }
    }
}

impl Drop for BlockingPool {
    fn drop(&mut self) {
        self.shutdown(None);
    }
}

impl fmt::Debug for BlockingPool {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("BlockingPool").finish()
    }
}

impl Spawner {
    /// Spawns `func` as a regular blocking task.
    #[track_caller]
    pub(crate) fn spawn_blocking<F, R>(&self, rt: &Handle, func: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let (join_handle, spawn_result) =
            self.spawn_blocking_inner(func, Mandatory::NonMandatory, rt);
        match spawn_result {
            Ok(()) => join_handle,
            // The task was shut down: the handle resolves to `Cancelled`.
            Err(SpawnError::ShuttingDown) => join_handle,
            Err(SpawnError::NoThreads(e)) => {
                panic!("OS can't spawn worker thread: {e}")
            }
        }
    }

    /// Spawns `func` so that it runs even if shutdown starts first; `None`
    /// if the pool already shut down.
    #[cfg(any(feature = "rt-multi-thread", feature = "io-std"))]
    pub(crate) fn spawn_mandatory_blocking<F, R>(
        &self,
        rt: &Handle,
        func: F,
    ) -> Option<JoinHandle<R>>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let (join_handle, spawn_result) = self.spawn_blocking_inner(func, Mandatory::Mandatory, rt);
        if spawn_result.is_ok() {
            Some(join_handle)
        } else {
            None
        }
    }

    fn spawn_blocking_inner<F, R>(
        &self,
        func: F,
        mandatory: Mandatory,
        rt: &Handle,
    ) -> (JoinHandle<R>, Result<(), SpawnError>)
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let fut = BlockingTask::new(func);
        let id = task::Id::next();
        let (task, handle) = task::unowned(fut, BlockingSchedule::new(rt), id);
        let spawned = self.spawn_task(Task { task, mandatory }, rt);
        (handle, spawned)
    }

    fn spawn_task(&self, task: Task, rt: &Handle) -> Result<(), SpawnError> {
        let mut shared = self.inner.shared.lock();

        if shared.shutdown {
            // Spawned after shutdown began: cancel it, even if mandatory.
            drop(shared);
            task.task.shutdown();
            return Err(SpawnError::ShuttingDown);
        }

        shared.queue.push_back(task);
        self.inner.queue_depth.fetch_add(1, Relaxed);

        if shared.num_idle == 0 {
            // No idle thread: start one, unless at the cap (then the task
            // waits for a busy thread).
            if shared.num_th < self.inner.thread_cap {
                if let Some(shutdown_tx) = shared.shutdown_tx.clone() {
                    let id = shared.worker_thread_index;
                    match self.spawn_thread(shutdown_tx, rt, id) {
                        Ok(handle) => {
                            shared.num_th += 1;
                            shared.worker_thread_index += 1;
                            shared.worker_threads.insert(id, handle);
                            self.inner.num_threads.store(shared.num_th, Relaxed);
                        }
                        Err(ref e) if is_temporary_os_thread_error(e) && shared.num_th > 0 => {
                            // A busy thread will get to the task.
                        }
                        Err(e) => {
                            // The task stays queued for a later thread, but
                            // the caller must know nothing runs it now.
                            if shared.num_th == 0 {
                                let task = shared.queue.pop_back().expect("just pushed");
                                self.inner.queue_depth.fetch_sub(1, Relaxed);
                                drop(shared);
                                task.task.shutdown();
                                return Err(SpawnError::NoThreads(e));
                            }
                        }
                    }
                }
            }
        } else {
            // Hand the task to an idle thread.
            shared.num_idle -= 1;
            shared.num_notify += 1;
            self.inner.num_idle_threads.store(shared.num_idle, Relaxed);
            self.inner.condvar.notify_one();
        }
        Ok(())
    }

    fn spawn_thread(
        &self,
        shutdown_tx: shutdown::Sender,
        rt: &Handle,
        id: usize,
    ) -> io::Result<std::thread::JoinHandle<()>> {
        let mut builder = std::thread::Builder::new().name((self.inner.thread_name)());
        if let Some(stack_size) = self.inner.stack_size {
            builder = builder.stack_size(stack_size);
        }
        let rt = rt.clone();
        builder.spawn(move || {
            // Only the reference to the runtime, not the runtime itself.
            let _enter = rt.enter();
            rt.inner.blocking_spawner().inner.run(id);
            drop(shutdown_tx);
        })
    }

    pub(crate) fn num_threads(&self) -> usize {
        self.inner.num_threads.load(Relaxed)
    }

    pub(crate) fn num_idle_threads(&self) -> usize {
        self.inner.num_idle_threads.load(Relaxed)
    }

    pub(crate) fn queue_depth(&self) -> usize {
        self.inner.queue_depth.load(Relaxed)
    }
}

impl fmt::Debug for Spawner {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("blocking::Spawner").finish()
    }
}

/// `EAGAIN`: the OS may have room for a thread again later.
fn is_temporary_os_thread_error(error: &io::Error) -> bool {
    matches!(error.kind(), io::ErrorKind::WouldBlock)
}

impl Inner {
    fn run(&self, worker_thread_id: usize) {
        if let Some(f) = &self.after_start {
            // A panicking start hook must not end the thread: it is already
            // counted in `num_th`, and the task that made the pool start it
            // (a worker, or a `spawn_blocking` closure) is waiting in the
            // queue for it. The panic is reported by the panic hook as
            // usual, then the thread goes on serving.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f()));
        }

        let mut shared = self.shared.lock();
        let mut join_on_thread = None;
        // Whether this thread is counted in `num_idle` right now.
        let mut is_counted_idle;

        'main: loop {
            // BUSY
            while let Some(task) = shared.queue.pop_front() {
                self.queue_depth.fetch_sub(1, Relaxed);
                drop(shared);
                task.run();
                shared = self.shared.lock();
            }

            // IDLE
            shared.num_idle += 1;
            is_counted_idle = true;
            self.num_idle_threads.store(shared.num_idle, Relaxed);

            while !shared.shutdown {
                let (lock, timed_out) = self.condvar.wait_timeout(shared, self.keep_alive);
                shared = lock;

                if shared.num_notify != 0 {
                    // A real wake-up: the spawner already took us off the
                    // idle count.
                    shared.num_notify -= 1;
                    is_counted_idle = false;
                    break;
                }

                if !shared.shutdown && timed_out {
                    // Idle for `keep_alive`: exit. Join the previous exiting
                    // thread once we've dropped the lock.
                    let my_handle = shared.worker_threads.remove(&worker_thread_id);
                    join_on_thread = std::mem::replace(&mut shared.last_exiting_thread, my_handle);
                    break 'main;
                }

                // Spurious wake-up: go back to sleep.
            }

            if shared.shutdown {
                // Drain the queue: cancel what may be cancelled, run the
                // mandatory tasks.
                while let Some(task) = shared.queue.pop_front() {
                    self.queue_depth.fetch_sub(1, Relaxed);
                    drop(shared);
                    task.shutdown_or_run_if_mandatory();
                    shared = self.shared.lock();
                }

                break;
            }
        }

        // Thread exit.
        shared.num_th -= 1;
        if is_counted_idle {
            shared.num_idle = shared
                .num_idle
                .checked_sub(1)
                .expect("num_idle underflowed on thread exit");
        }
        self.num_threads.store(shared.num_th, Relaxed);
        self.num_idle_threads.store(shared.num_idle, Relaxed);

        if shared.shutdown && shared.num_th == 0 {
            self.condvar.notify_one();
        }
        drop(shared);

        if let Some(f) = &self.before_stop {
            // As above: the thread's exit (and the join below) happens
            // whether or not the hook panics.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f()));
        }

        if let Some(handle) = join_on_thread {
            let _ = handle.join();
        }
    }
}

impl fmt::Debug for Inner {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("blocking::Inner").finish()
    }
}
