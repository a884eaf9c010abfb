//! The thread pool behind `spawn_blocking`.
//!
//! # Design
//!
//! One mutex protects the pool's state: a FIFO queue of tasks, the number of
//! threads (`num_th`), the idle threads, each by its
//! [`Mailbox`](super::mailbox), the most recently idle last (`idle`), and
//! `num_notify`, the number of idle threads called to the queue that have
//! not reached it yet.
//!
//! * `spawn_task` queues the task. If threads already called or started for
//!   earlier tasks and not yet at the queue (`num_notify + num_starting`)
//!   are at least as many as the queued tasks, one of them will take it.
//!   Else, if a thread is *finishing* (below), it claims that thread, which
//!   needs no wake-up. Otherwise, if a thread is idle, it takes the most
//!   recently idle one off `idle` (`num_notify += 1`) and posts it a call
//!   to the queue, which wakes that thread alone (after unlocking, so the
//!   woken thread does not run into the lock the spawner still holds; and
//!   only if the thread has gone to sleep). Only when no thread is idle does
//!   it start a new thread, up to `thread_cap` (`max_blocking_threads` plus
//!   the runtime's worker threads). Beyond the cap, tasks wait in the
//!   queue: spawning never fails for lack of threads.
//! * A thread runs queued tasks until the queue is empty, then puts its
//!   mailbox on `idle` and waits on it. A thread idle for `keep_alive`
//!   exits (`mailbox.rs` says how it leaves `idle` without losing a call
//!   posted meanwhile).
//!
//! The task stays in the queue, not in the called thread's mailbox, so
//! whichever thread gets there first runs it: a finishing thread often
//! does, and a called thread that finds the queue empty goes idle again.
//! (Posting the task itself to the mailbox made the 64-task burst 1.6x
//! slower on 2 cores: the task waited for its sleeping thread while others
//! went idle.)
//!
//! Why a mailbox per thread, not one condition variable for all: a shared
//! condition variable wakes whichever waiter the kernel picks, and the
//! wake-up has to be counted for any thread that looks. A thread on its
//! way into the wait (between its unlock and its futex wait) then took the
//! count, and the thread the kernel woke found nothing and slept again:
//! under `ServeDir` with 1 MiB files, 45 futex calls per request, 10 of
//! them failing with EAGAIN (33 and 5 with mailboxes; tokio: 40). A call
//! goes to one thread; the most recently idle one (LIFO) often has not
//! gone to sleep yet, so it needs no futex wake at all, its cache is warm,
//! and the others stay idle long enough to time out, so the pool shrinks
//! to the load.
//!
//! # Finishing threads
//!
//! A blocking call completes in three steps on its pool thread: the closure
//! returns, the task completes and wakes the task awaiting its
//! `JoinHandle`, and the thread locks the pool again to look at the queue.
//! The awaiting task often runs on a worker and calls `spawn_blocking`
//! again between the second and third step, when no thread is idle yet.
//! Starting a thread then is wasted: the finishing one is about to look at
//! the queue. Without this, 64 tasks that each await a stream of tiny
//! blocking calls grew the pool to its 512-thread cap, against about 50
//! threads on tokio, and ran at 0.5x-0.7x tokio's speed.
//!
//! So `BlockingTask` adds a token to `finishing` as soon as its closure
//! returns (before the wake), and a finishing thread removes one token, if
//! any is left, when it relocks. A spawner takes a token before it looks
//! for an idle thread: the finishing thread is awake already, where an
//! idle one costs a futex wake and a context switch, and an idle thread
//! woken for a task a finishing thread then takes is woken for nothing
//! (in bursts, those woken-for-nothing threads piled up until the pool
//! found none idle and started more). Tokens are taken only under the
//! lock (added without it), which keeps `finishing <= (threads between
//! their closure's return and their relock)`: a token taken under the lock
//! means such a thread exists, and it will find the task in the queue when
//! it relocks. A closure that never returns adds no token, so a pool whose
//! threads all block still grows.
//! * Shutdown sets `shutdown`, wakes every thread, and waits (optionally
//!   with a timeout) until every thread has exited. Queued tasks are
//!   cancelled unless mandatory (the runtime's own worker threads).
//!
//! Threads enter the runtime's handle, so `Handle::current()` works in a
//! blocking closure; they do not *drive* the runtime, so blocking is allowed.

use crate::blocking::mailbox::{IdleList, Mail, Mailbox};
use crate::blocking::schedule::BlockingSchedule;
use crate::blocking::shutdown;
use crate::blocking::task::BlockingTask;
use crate::loom::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use crate::loom::sync::{Arc, Mutex, MutexGuard};
use crate::runtime::{Builder, Callback, Handle};
use crate::task::{self, JoinHandle};

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::io;
use std::time::{Duration, Instant};

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
    thread_name: crate::runtime::ThreadNameFn,
    stack_size: Option<usize>,
    after_start: Option<Callback>,
    before_stop: Option<Callback>,
    /// Most threads the pool may hold.
    thread_cap: usize,
    keep_alive: Duration,
    /// Finishing threads not yet claimed (see the module docs). Added to
    /// without the lock, taken from only under it.
    finishing: AtomicUsize,
    /// Mirrors of the counters, readable without the lock (metrics).
    num_threads: AtomicUsize,
    /// `Shared::idle`'s length (kept by the list).
    num_idle_threads: Arc<AtomicUsize>,
    queue_depth: AtomicUsize,
}

struct Shared {
    queue: VecDeque<Task>,
    /// The idle threads' mailboxes, the most recently idle last.
    idle: IdleList,
    /// Threads called to the queue (posted `Mail::Work`) and not yet there.
    num_notify: usize,
    shutdown: bool,
    shutdown_tx: Option<shutdown::Sender>,
    /// The thread that exited on keep-alive last; the next exiting thread
    /// joins it, so exited threads never pile up unjoined.
    last_exiting_thread: Option<std::thread::JoinHandle<()>>,
    worker_threads: HashMap<usize, std::thread::JoinHandle<()>>,
    worker_thread_index: usize,
    num_th: usize,
    /// Threads started and not yet at the queue.
    num_starting: usize,
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
        let idle = IdleList::default();
        let num_idle_threads = idle.len_mirror();
        BlockingPool {
            spawner: Spawner {
                inner: Arc::new(Inner {
                    shared: Mutex::new(Shared {
                        queue: VecDeque::new(),
                        idle,
                        num_notify: 0,
                        shutdown: false,
                        shutdown_tx: Some(shutdown_tx),
                        last_exiting_thread: None,
                        worker_threads: HashMap::new(),
                        worker_thread_index: 0,
                        num_th: 0,
                        num_starting: 0,
                    }),
                    thread_name: builder.thread_name.clone(),
                    stack_size: builder.thread_stack_size,
                    after_start: builder.after_start.clone(),
                    before_stop: builder.before_stop.clone(),
                    thread_cap,
                    keep_alive,
                    finishing: AtomicUsize::new(0),
                    num_threads: AtomicUsize::new(0),
                    num_idle_threads,
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
        let called = shared.idle.call_all_to_shutdown();
        let last_exited_thread = shared.last_exiting_thread.take();
        let workers = std::mem::take(&mut shared.worker_threads);
        drop(shared);
        for thread in called {
            thread.wake();
        }

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
            self.spawn_blocking_inner(func, Mandatory::NonMandatory, rt, true);
        match spawn_result {
            Ok(()) => join_handle,
            // The task was shut down: the handle resolves to `Cancelled`.
            Err(SpawnError::ShuttingDown) => join_handle,
            Err(SpawnError::NoThreads(e)) => {
                panic!("OS can't spawn worker thread: {e}")
            }
        }
    }

    /// Spawns `func` as a regular blocking task; fails if no pool thread
    /// exists and the OS refuses to start one (`task::Builder`).
    #[track_caller]
    pub(crate) fn try_spawn_blocking<F, R>(&self, rt: &Handle, func: F) -> io::Result<JoinHandle<R>>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let (join_handle, spawn_result) =
            self.spawn_blocking_inner(func, Mandatory::NonMandatory, rt, true);
        match spawn_result {
            Ok(()) | Err(SpawnError::ShuttingDown) => Ok(join_handle),
            Err(SpawnError::NoThreads(e)) => Err(e),
        }
    }

    /// Spawns `func` so that it runs even if shutdown starts first; `None`
    /// if the pool already shut down.
    #[cfg(feature = "io-std")]
    #[track_caller]
    pub(crate) fn spawn_mandatory_blocking<F, R>(
        &self,
        rt: &Handle,
        func: F,
    ) -> Option<JoinHandle<R>>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let (join_handle, spawn_result) =
            self.spawn_blocking_inner(func, Mandatory::Mandatory, rt, true);
        if spawn_result.is_ok() {
            Some(join_handle)
        } else {
            None
        }
    }

    /// Runs a worker thread's body on the pool (`launch`, mandatory, and
    /// `block_in_place`): a task of the runtime's own, which the user's
    /// task hooks do not see.
    #[cfg(feature = "rt-multi-thread")]
    pub(crate) fn spawn_worker(
        &self,
        rt: &Handle,
        mandatory: bool,
        func: impl FnOnce() + Send + 'static,
    ) -> Result<(), SpawnError> {
        let mandatory = match mandatory {
            true => Mandatory::Mandatory,
            false => Mandatory::NonMandatory,
        };
        self.spawn_blocking_inner(func, mandatory, rt, false).1
    }

    /// `hooked`: whether the runtime's terminate hook sees the task.
    #[track_caller]
    fn spawn_blocking_inner<F, R>(
        &self,
        func: F,
        mandatory: Mandatory,
        rt: &Handle,
        hooked: bool,
    ) -> (JoinHandle<R>, Result<(), SpawnError>)
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let id = task::Id::next();
        let fut = crate::util::trace::task(BlockingTask::new(func), "blocking", id, None);
        let spawned_at = std::panic::Location::caller();
        let (task, handle) = task::unowned(fut, BlockingSchedule::new(rt, hooked), id, spawned_at);
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

        if shared.queue.len() <= shared.num_notify + shared.num_starting {
            // Threads already called or started, and not yet at the queue,
            // are as many as the tasks in it: one of them takes this task.
        } else if self.inner.take_finishing() {
            // A thread that is finishing a call will find the task when it
            // relocks: no wake-up needed.
        } else if let Some(thread) = shared.idle.call(Mail::Work) {
            // The most recently idle thread is called; wake it once
            // unlocked (if it went to sleep).
            shared.num_notify += 1;
            drop(shared);
            thread.wake();
        } else if shared.num_th < self.inner.thread_cap {
            return self.start_thread(shared, rt);
        }
        // Otherwise, at the cap: the task waits for a busy thread.
        Ok(())
    }

    /// Starts a thread for the task just queued (no thread is idle or
    /// finishing, and the pool is below its cap).
    fn start_thread(
        &self,
        mut shared: MutexGuard<'_, Shared>,
        rt: &Handle,
    ) -> Result<(), SpawnError> {
        let Some(shutdown_tx) = shared.shutdown_tx.clone() else {
            return Ok(());
        };
        let id = shared.worker_thread_index;
        match self.spawn_thread(shutdown_tx, rt, id) {
            Ok(handle) => {
                shared.num_th += 1;
                shared.num_starting += 1;
                shared.worker_thread_index += 1;
                shared.worker_threads.insert(id, handle);
                self.inner.num_threads.store(shared.num_th, Relaxed);
            }
            Err(ref e) if is_temporary_os_thread_error(e) && shared.num_th > 0 => {
                // A busy thread will get to the task.
            }
            Err(e) => {
                // The task stays queued for a later thread, but the caller
                // must know nothing runs it now.
                if shared.num_th == 0 {
                    let task = shared.queue.pop_back().expect("just pushed");
                    self.inner.queue_depth.fetch_sub(1, Relaxed);
                    drop(shared);
                    task.task.shutdown();
                    return Err(SpawnError::NoThreads(e));
                }
            }
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

/// Why a thread stopped waiting for work.
enum Wake<'a> {
    /// A spawner called it to the queue: it holds the pool lock, and is
    /// off the `num_notify` count.
    Work(MutexGuard<'a, Shared>),
    /// Idle for `keep_alive`: the thread exits. It is off the idle list,
    /// holds the pool lock and the thread it must join.
    TimedOut(MutexGuard<'a, Shared>, Option<std::thread::JoinHandle<()>>),
    /// The pool shuts down.
    Shutdown,
}

std::thread_local! {
    /// The pool of the pool thread this is (see [`closure_returned`]).
    static CURRENT: std::cell::Cell<Option<std::ptr::NonNull<Inner>>> =
        const { std::cell::Cell::new(None) };
}

/// Called by `BlockingTask` when its closure has returned, before the
/// task completes and wakes its joiner: the thread counts as finishing.
pub(crate) fn closure_returned() {
    if let Some(inner) = CURRENT.with(std::cell::Cell::get) {
        // SAFETY: `CURRENT` is set only while `Inner::run` runs on this
        // thread, which borrows the `Inner` for that whole time.
        let inner = unsafe { inner.as_ref() };
        // Relaxed: a spawner that misses the token starts a thread, which
        // is safe; the tokens themselves are only taken under the lock.
        inner.finishing.fetch_add(1, Relaxed);
    }
}

impl Inner {
    /// Takes one finishing token, if any. Called with the lock held (the
    /// only place tokens are taken from; see the module docs).
    fn take_finishing(&self) -> bool {
        let n = self.finishing.load(Relaxed);
        // Nobody else takes a token meanwhile (we hold the lock): the
        // subtraction cannot underflow, only race with additions.
        n > 0 && {
            self.finishing.fetch_sub(1, Relaxed);
            true
        }
    }

    /// A pool thread: serve the queue, wait, repeat; exit on keep-alive or
    /// shutdown.
    fn run(&self, worker_thread_id: usize) {
        if let Some(f) = &self.after_start {
            // A panicking start hook must not end the thread: it is already
            // counted in `num_th`, and the task that made the pool start it
            // (a worker, or a `spawn_blocking` closure) is waiting in the
            // queue for it. The panic is reported by the panic hook as
            // usual, then the thread goes on serving.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f()));
        }
        CURRENT.with(|c| c.set(Some(std::ptr::NonNull::from(self))));

        let mailbox = Arc::new(Mailbox::new());
        let mut shared = self.shared.lock();
        shared.num_starting -= 1;
        let (mut shared, join_on_thread) = loop {
            shared = self.run_queued(shared);
            if shared.shutdown {
                break (self.drain_on_shutdown(shared), None);
            }
            // IDLE: on the list until a spawner or shutdown takes us off.
            shared.idle.push(mailbox.clone());
            drop(shared);
            match self.wait_for_work(&mailbox, worker_thread_id) {
                Wake::Work(lock) => shared = lock,
                Wake::TimedOut(lock, join) => break (lock, join),
                Wake::Shutdown => break (self.drain_on_shutdown(self.shared.lock()), None),
            }
        };

        // Thread exit: off the books (already off the idle list).
        CURRENT.with(|c| c.set(None));
        shared.num_th -= 1;
        self.num_threads.store(shared.num_th, Relaxed);
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

    /// BUSY: runs queued tasks until the queue is empty. After each task,
    /// the thread gives back the finishing token its closure added (if no
    /// spawner took it).
    fn run_queued<'a>(&'a self, mut shared: MutexGuard<'a, Shared>) -> MutexGuard<'a, Shared> {
        while let Some(task) = shared.queue.pop_front() {
            self.queue_depth.fetch_sub(1, Relaxed);
            drop(shared);
            task.run();
            shared = self.shared.lock();
            self.take_finishing();
        }
        shared
    }

    /// IDLE: waits on `mailbox` (on the idle list) until called to the
    /// queue, idle for `keep_alive`, or shut down.
    fn wait_for_work(&self, mailbox: &Arc<Mailbox>, worker_thread_id: usize) -> Wake<'_> {
        let (mut shared, mail) = match mailbox.wait_until(Instant::now() + self.keep_alive) {
            Some(mail) => (self.shared.lock(), mail),
            None => {
                let mut shared = self.shared.lock();
                match shared.idle.leave(mailbox) {
                    Some(mail) => (shared, mail),
                    None => {
                        // Idle for `keep_alive`: exit, and join the previous
                        // exiting thread once the lock is dropped.
                        let my_handle = shared.worker_threads.remove(&worker_thread_id);
                        let join = std::mem::replace(&mut shared.last_exiting_thread, my_handle);
                        return Wake::TimedOut(shared, join);
                    }
                }
            }
        };
        match mail {
            Mail::Work => {
                shared.num_notify -= 1;
                Wake::Work(shared)
            }
            Mail::Shutdown => {
                drop(shared);
                Wake::Shutdown
            }
        }
    }

    /// SHUTDOWN: cancels what may be cancelled in the queue and runs the
    /// mandatory tasks.
    fn drain_on_shutdown<'a>(
        &'a self,
        mut shared: MutexGuard<'a, Shared>,
    ) -> MutexGuard<'a, Shared> {
        while let Some(task) = shared.queue.pop_front() {
            self.queue_depth.fetch_sub(1, Relaxed);
            drop(shared);
            task.shutdown_or_run_if_mandatory();
            shared = self.shared.lock();
        }
        shared
    }
}

impl fmt::Debug for Inner {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("blocking::Inner").finish()
    }
}
