//! `LocalSet` and `spawn_local`: running `!Send` futures on one thread.
//!
//! # Design
//!
//! A `LocalSet` is a small scheduler embedded in a future: its tasks run
//! only while the set is polled (as a future, through `run_until`, or
//! `block_on`), on the thread that polls it, which is the thread that
//! created it (`LocalSet` is `!Send`).
//!
//! * `Shared` (behind an `Arc`, the tasks' scheduler) holds the owned-tasks
//!   list, one run queue under a mutex, and the set's `AtomicWaker`. Wakers
//!   may be used from any thread: scheduling only pushes onto the queue and
//!   wakes the set's waker; polling happens in `tick`, on the owner thread.
//! * The thread-local `CURRENT` names the set being run (or entered with
//!   `enter`), so that `spawn_local` finds it. While the set itself runs
//!   tasks, schedules from inside it do not wake its waker (the tick loop
//!   picks them up).
//! * `tick` runs at most 61 tasks, each with a fresh coop budget; if work
//!   is left, the set wakes itself so other futures of the thread run too.
//! * With `UnhandledPanic::ShutdownRuntime` (`LocalSet::unhandled_panic`),
//!   a task's panic sets the context's `unhandled_panic` flag and cancels
//!   every task; `tick` panics when it finds the flag set.
//! * Dropping the set cancels every task and drops the queued
//!   notifications on the owner thread, so `!Send` futures are never
//!   dropped elsewhere.

use crate::loom::sync::Mutex;
use crate::task::list::OwnedTasks;
use crate::task::{Id, JoinHandle, Notified, Schedule, Task};
use crate::util::atomic_waker::AtomicWaker;

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::thread::ThreadId;

/// Tasks run per tick before yielding to the thread's other futures.
const MAX_TASKS_PER_TICK: usize = 61;

const OUTSIDE_LOCAL_SET: &str =
    "`spawn_local` called from outside of a `task::LocalSet` or `runtime::LocalRuntime`";

const LOCAL_SET_SHUT_DOWN: &str =
    "a spawned task panicked and the LocalSet is configured to shutdown on unhandled panic";

const LOCAL_RUNTIME_OTHER_THREAD: &str =
    "Local tasks can only be spawned on a LocalRuntime from the thread the runtime was created on";

/// A set of tasks which are executed on the same thread.
///
/// In some cases, it is necessary to run one or more futures that do not
/// implement [`Send`] and thus are unsafe to send between threads. In these
/// cases, a local task set may be used to schedule one or more `!Send`
/// futures to run together on the same thread.
///
/// For example, the following code will not compile:
///
/// ```rust,compile_fail
/// use std::rc::Rc;
///
/// #[volt_runtime::main(crate = "volt_runtime")]
/// async fn main() {
///     // `Rc` does not implement `Send`, and thus may not be sent between
///     // threads safely.
///     let nonsend_data = Rc::new("my nonsend data...");
///
///     let nonsend_data = nonsend_data.clone();
///     // Because the `async` block here moves `nonsend_data`, the future is
///     // `!Send`. Since `volt::spawn` requires the spawned future to
///     // implement `Send`, this will not compile.
///     volt_runtime::spawn(async move {
///         println!("{}", nonsend_data);
///     })
///     .await
///     .unwrap();
/// }
/// ```
///
/// # Use with `run_until`
///
/// To spawn `!Send` futures, we can use a local task set to schedule them
/// on the thread calling [`Runtime::block_on`]. When running inside of the
/// local task set, we can use [`task::spawn_local`], which can spawn
/// `!Send` futures.
///
/// ```rust
/// use std::rc::Rc;
/// use volt_runtime::task;
///
/// #[volt_runtime::main(crate = "volt_runtime")]
/// async fn main() {
///     let nonsend_data = Rc::new("my nonsend data...");
///
///     // Construct a local task set that can run `!Send` futures.
///     let local = task::LocalSet::new();
///
///     // Run the local task set.
///     local
///         .run_until(async move {
///             let nonsend_data = nonsend_data.clone();
///             // `spawn_local` ensures that the future is spawned on the
///             // local task set.
///             task::spawn_local(async move {
///                 println!("{}", nonsend_data);
///             })
///             .await
///             .unwrap();
///         })
///         .await;
/// }
/// ```
///
/// # Awaiting a `LocalSet`
///
/// Additionally, a `LocalSet` itself implements `Future`, completing when
/// *all* tasks spawned on the `LocalSet` complete.
///
/// ```rust
/// use volt_runtime::task;
///
/// #[volt_runtime::main(crate = "volt_runtime")]
/// async fn main() {
///     let local = task::LocalSet::new();
///
///     // Spawn a future on the local set. This future will be run when
///     // we call `run_until` to drive the task set.
///     local.spawn_local(async {
///         // ...
///     });
///
///     // Alternatively, the local set itself may be awaited: it completes
///     // when every task on it completes.
///     local.await;
/// }
/// ```
///
/// [`Runtime::block_on`]: crate::runtime::Runtime::block_on
/// [`task::spawn_local`]: fn@spawn_local
pub struct LocalSet {
    /// What `CURRENT` points at while the set runs or is entered.
    context: Rc<LocalContext>,
    _not_send: PhantomData<*const ()>,
}

/// What `CURRENT` points at.
struct LocalContext {
    shared: Arc<Shared>,
    /// A task panicked under `UnhandledPanic::ShutdownRuntime`.
    unhandled_panic: Cell<bool>,
}

/// The scheduler of the set's tasks (reached from any thread by wakers).
struct Shared {
    owner: ThreadId,
    owned: OwnedTasks<Arc<Shared>>,
    /// Woken tasks; `None` once the set is dropped.
    queue: Mutex<Option<VecDeque<Notified<Arc<Shared>>>>>,
    /// The future that polls the set.
    waker: AtomicWaker,
    /// What a task's panic does.
    unhandled_panic: crate::runtime::UnhandledPanic,
    /// Whether this is a `LocalRuntime`'s set: a task's panic then shuts
    /// the runtime down too, and `tick` panics with the runtime's message.
    of_local_runtime: bool,
    /// The runtime's task hooks for a `LocalRuntime`'s set (none for a
    /// plain `LocalSet`, as in tokio).
    hooks: crate::runtime::TaskHooks,
}

struct LocalData {
    ctx: RefCell<Option<Rc<LocalContext>>>,
    /// Whether the set named in `ctx` is running its tick right now (then
    /// scheduling needs no wake-up).
    ticking: Cell<bool>,
}

std::thread_local! {
    static CURRENT: LocalData = const {
        LocalData {
            ctx: RefCell::new(None),
            ticking: Cell::new(false),
        }
    };
}

/// Whether a [`LocalSet`] is running, or entered, on this thread
/// (`block_in_place` refuses to run there, as tokio's).
#[cfg(feature = "rt-multi-thread")]
pub(crate) fn in_local_set() -> bool {
    CURRENT
        .try_with(|data| data.ctx.borrow().is_some())
        .unwrap_or(false)
}

/// Spawns a `!Send` future on the current [`LocalSet`].
///
/// The spawned future will run on the same thread that called
/// `spawn_local`.
///
/// The provided future will start running in the background immediately
/// when `spawn_local` is called, even if you don't await the returned
/// `JoinHandle`.
///
/// # Panics
///
/// This function panics if called outside of a [`LocalSet`].
///
/// Note that if [`spawn_local`] is called in the body of a `LocalSet`'s
/// `run_until`, the `LocalSet` is still running the task.
///
/// # Examples
///
/// ```rust
/// use std::rc::Rc;
/// use volt_runtime::task;
///
/// #[volt_runtime::main(crate = "volt_runtime")]
/// async fn main() {
///     let nonsend_data = Rc::new("my nonsend data...");
///
///     let local = task::LocalSet::new();
///
///     // Run the local task set.
///     local
///         .run_until(async move {
///             let nonsend_data = nonsend_data.clone();
///             task::spawn_local(async move {
///                 println!("{}", nonsend_data);
///                 // ...
///             })
///             .await
///             .unwrap();
///         })
///         .await;
/// }
/// ```
#[track_caller]
pub fn spawn_local<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    let ctx = CURRENT.with(|data| data.ctx.borrow().clone());
    match ctx {
        Some(ctx) => spawn_on(&ctx, future),
        None => {
            // Entered a `LocalRuntime`'s handle on another thread?
            let owner = crate::context::with_current(|h| h.local_owner());
            if matches!(owner, Ok(Some(id)) if id != std::thread::current().id()) {
                panic!("{}", LOCAL_RUNTIME_OTHER_THREAD);
            }
            panic!("{}", OUTSIDE_LOCAL_SET)
        }
    }
}

/// Binds `future` to the set and queues it.
#[track_caller]
fn spawn_on<F>(ctx: &LocalContext, future: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    let shared = &ctx.shared;
    assert_eq!(
        std::thread::current().id(),
        shared.owner,
        "`spawn_local` called from a thread that does not own the `LocalSet`"
    );
    let id = Id::next();
    let future = crate::util::trace::task(future, "local", id, None);
    let spawned_at = std::panic::Location::caller();
    shared.hooks.spawn(id, spawned_at);
    let owned = &shared.owned;
    // The set's tasks are only polled in `tick` and dropped in the set's
    // `Drop`, both on the owner thread (checked above; the set is `!Send`).
    // SAFETY: so the task is only ever polled and dropped on this thread.
    let (handle, notified) = unsafe { owned.bind_local(future, shared.clone(), id, spawned_at) };
    if let Some(notified) = notified {
        shared.schedule(notified);
    }
    handle
}

/// Context guard returned by [`LocalSet::enter`].
pub struct LocalEnterGuard {
    prev: Option<Rc<LocalContext>>,
    prev_ticking: bool,
    _not_send: PhantomData<*const ()>,
}

impl Drop for LocalEnterGuard {
    fn drop(&mut self) {
        // `try_with`: nothing to restore once the thread's locals are gone.
        let _ = CURRENT.try_with(|data| {
            *data.ctx.borrow_mut() = self.prev.take();
            data.ticking.set(self.prev_ticking);
        });
    }
}

impl fmt::Debug for LocalEnterGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalEnterGuard").finish()
    }
}

impl LocalSet {
    /// Returns a new local task set.
    pub fn new() -> LocalSet {
        LocalSet {
            context: Rc::new(LocalContext {
                shared: Arc::new(Shared {
                    owner: std::thread::current().id(),
                    owned: OwnedTasks::new(1),
                    queue: Mutex::new(Some(VecDeque::with_capacity(64))),
                    waker: AtomicWaker::new(),
                    unhandled_panic: crate::runtime::UnhandledPanic::Ignore,
                    of_local_runtime: false,
                    hooks: Default::default(),
                }),
                unhandled_panic: Cell::new(false),
            }),
            _not_send: PhantomData,
        }
    }

    /// Enters the context of this `LocalSet`.
    ///
    /// The [`spawn_local`] method will spawn tasks on the `LocalSet` whose
    /// context you are inside.
    ///
    /// [`spawn_local`]: fn@crate::task::spawn_local
    pub fn enter(&self) -> LocalEnterGuard {
        self.enter_inner(false)
    }

    fn enter_inner(&self, ticking: bool) -> LocalEnterGuard {
        CURRENT.with(|data| {
            let prev = data.ctx.borrow_mut().replace(self.context.clone());
            let prev_ticking = data.ticking.replace(ticking);
            LocalEnterGuard {
                prev,
                prev_ticking,
                _not_send: PhantomData,
            }
        })
    }

    /// Spawns a `!Send` task onto the local task set.
    ///
    /// This task is guaranteed to be run on the current thread.
    ///
    /// Unlike the free function [`spawn_local`], this method may be used to
    /// spawn local tasks when the `LocalSet` is _not_ running. The provided
    /// future will start running once the `LocalSet` is next started, even
    /// if you don't await the returned `JoinHandle`.
    ///
    /// # Examples
    ///
    /// ```rust
    /// use volt_runtime::task;
    ///
    /// #[volt_runtime::main(crate = "volt_runtime")]
    /// async fn main() {
    ///     let local = task::LocalSet::new();
    ///
    ///     // Spawn a future on the local set. This future will be run when
    ///     // we call `run_until` to drive the task set.
    ///     local.spawn_local(async {
    ///         // ...
    ///     });
    ///
    ///     // Run the local task set.
    ///     local.run_until(async move {
    ///         // ...
    ///     }).await;
    /// }
    /// ```
    ///
    /// [`spawn_local`]: fn@spawn_local
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        let handle = spawn_on(&self.context, future);
        self.context.shared.waker.wake();
        handle
    }

    /// Runs a future to completion on the provided runtime, driving any
    /// local futures spawned on this task set on the current thread.
    ///
    /// This runs the given future on the runtime, blocking until it is
    /// complete, and yielding its resolved result. Any tasks or timers
    /// which the future spawns internally will be executed on the runtime.
    /// The future may also call [`spawn_local`] to `spawn_local` additional
    /// local futures on the current thread.
    ///
    /// This method should not be called from an asynchronous context.
    ///
    /// # Panics
    ///
    /// This function panics if the executor is at capacity, if the
    /// provided future panics, or if called within an asynchronous
    /// execution context.
    ///
    /// # Notes
    ///
    /// The local tasks run inside [`Runtime::block_on`] on this thread, so
    /// they cannot block in place: [`block_in_place`] panics there ("can
    /// call blocking only when running on the multi-threaded runtime"),
    /// on either flavor. Move blocking work to [`spawn_blocking`] instead:
    ///
    /// ```should_panic
    /// use volt_runtime::runtime::Runtime;
    /// use volt_runtime::task;
    ///
    /// let rt = Runtime::new().unwrap();
    /// let local = task::LocalSet::new();
    /// local.block_on(&rt, async {
    ///     let join = task::spawn_local(async {
    ///         task::block_in_place(|| {
    ///             // panics: a local task may not block in place
    ///         });
    ///     });
    ///     join.await.unwrap();
    /// })
    /// ```
    ///
    /// # Examples
    ///
    /// ```rust
    /// use volt_runtime::runtime::Runtime;
    /// use volt_runtime::task;
    ///
    /// let rt = Runtime::new().unwrap();
    /// let local = task::LocalSet::new();
    /// local.block_on(&rt, async {
    ///     let join = task::spawn_local(async {
    ///         let blocking_result = task::spawn_blocking(|| {
    ///             // ...
    ///         })
    ///         .await;
    ///         // ...
    ///     });
    ///     join.await.unwrap();
    /// })
    /// ```
    ///
    /// [`Runtime::block_on`]: crate::runtime::Runtime::block_on
    /// [`block_in_place`]: fn@crate::task::block_in_place
    /// [`spawn_blocking`]: fn@crate::task::spawn_blocking
    ///
    /// [`spawn_local`]: fn@spawn_local
    #[track_caller]
    pub fn block_on<F>(&self, rt: &crate::runtime::Runtime, future: F) -> F::Output
    where
        F: Future,
    {
        rt.block_on(self.run_until(future))
    }

    /// Runs a future to completion on the local set, returning its output.
    ///
    /// This returns a future that runs the given future with a local set,
    /// allowing it to call [`spawn_local`] to spawn additional `!Send`
    /// futures. Any local futures spawned on the local set will be driven
    /// in the background until the future passed to `run_until` completes.
    /// When the future passed to `run_until` finishes, any local futures
    /// which have not completed will remain on the local set, and will be
    /// driven on subsequent calls to `run_until` or when awaiting the local
    /// set itself.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe when `future` is cancel safe.
    ///
    /// # Examples
    ///
    /// ```rust
    /// use volt_runtime::task;
    ///
    /// #[volt_runtime::main(crate = "volt_runtime")]
    /// async fn main() {
    ///     task::LocalSet::new().run_until(async {
    ///         task::spawn_local(async move {
    ///             // ...
    ///         }).await.unwrap();
    ///         // ...
    ///     }).await;
    /// }
    /// ```
    ///
    /// [`spawn_local`]: fn@spawn_local
    pub async fn run_until<F>(&self, future: F) -> F::Output
    where
        F: Future,
    {
        RunUntil {
            local_set: self,
            future,
        }
        .await
    }

    /// Returns the [`Id`](crate::runtime::Id) of the current `LocalSet`
    /// runtime.
    pub fn id(&self) -> crate::runtime::Id {
        crate::runtime::Id::new(self.context.shared.owned.id())
    }

    /// Configure how the `LocalSet` responds to an unhandled panic on a
    /// spawned task.
    ///
    /// By default, an unhandled panic (i.e. a panic not caught by
    /// [`std::panic::catch_unwind`]) has no impact on the `LocalSet`'s
    /// execution. The panic's error value is forwarded to the task's
    /// [`JoinHandle`] and all other spawned tasks continue running.
    ///
    /// The `unhandled_panic` option enables configuring this behavior.
    ///
    /// * `UnhandledPanic::Ignore` is the default behavior. Panics on
    ///   spawned tasks have no impact on the `LocalSet`'s execution.
    /// * `UnhandledPanic::ShutdownRuntime` will force the `LocalSet` to
    ///   shutdown immediately when a spawned task panics even if that
    ///   task's `JoinHandle` has not been dropped. All other spawned tasks
    ///   will immediately terminate and further calls to
    ///   [`LocalSet::block_on`] and [`LocalSet::run_until`] will panic.
    ///
    /// (tokio has this behind `tokio_unstable`; volt offers it stable.)
    ///
    /// # Panics
    ///
    /// This method panics if called after the `LocalSet` has started
    /// running.
    ///
    /// # Examples
    ///
    /// The following demonstrates a `LocalSet` configured to shutdown on
    /// panic. The first spawned task panics and results in the `LocalSet`
    /// shutting down. The second spawned task never has a chance to
    /// execute. The call to `run_until` will panic due to the runtime being
    /// forcibly shutdown.
    ///
    /// ```should_panic
    /// use volt_runtime::runtime::UnhandledPanic;
    ///
    /// # #[volt_runtime::main(flavor = "current_thread", crate = "volt_runtime")]
    /// # async fn main() {
    /// volt_runtime::task::LocalSet::new()
    ///     .unhandled_panic(UnhandledPanic::ShutdownRuntime)
    ///     .run_until(async {
    ///         volt_runtime::task::spawn_local(async { panic!("boom"); });
    ///         volt_runtime::task::spawn_local(async {
    ///             // This task never completes
    ///         });
    ///
    ///         // Do some work, but `run_until` will panic before it completes
    /// # loop { volt_runtime::task::yield_now().await; }
    ///     })
    ///     .await;
    /// # }
    /// ```
    ///
    /// [`JoinHandle`]: struct@crate::task::JoinHandle
    #[track_caller]
    pub fn unhandled_panic(&mut self, behavior: crate::runtime::UnhandledPanic) -> &mut Self {
        self.shared_mut()
            .expect("Unhandled Panic behavior modified after starting LocalSet")
            .unhandled_panic = behavior;
        self
    }

    /// The scheduler, if nothing shares it yet (no task, no waker, no
    /// context guard).
    fn shared_mut(&mut self) -> Option<&mut Shared> {
        Rc::get_mut(&mut self.context).and_then(|ctx| Arc::get_mut(&mut ctx.shared))
    }

    /// The set of a `LocalRuntime` built with `behavior` and `hooks`: its
    /// local tasks' panics shut it down as the runtime's own tasks' do,
    /// with the runtime's panic message, and its hooks see them.
    pub(crate) fn for_local_runtime(
        behavior: crate::runtime::UnhandledPanic,
        hooks: crate::runtime::TaskHooks,
    ) -> LocalSet {
        let mut set = LocalSet::new();
        let shared = set.shared_mut().expect("a new set is not shared");
        shared.unhandled_panic = behavior;
        shared.of_local_runtime = true;
        shared.hooks = hooks;
        set
    }

    /// Runs up to `MAX_TASKS_PER_TICK` tasks; `true` if work is left.
    fn tick(&self) -> bool {
        let shared = &self.context.shared;
        for _ in 0..MAX_TASKS_PER_TICK {
            if self.context.unhandled_panic.get() {
                match shared.of_local_runtime {
                    true => panic!("{}", crate::runtime::SHUTDOWN_PANIC),
                    false => panic!("{LOCAL_SET_SHUT_DOWN}"),
                }
            }
            let task = shared.queue.lock().as_mut().and_then(VecDeque::pop_front);
            match task {
                Some(task) => {
                    let task = shared.owned.assert_owner(task);
                    if let Some(yielded) = crate::coop::budget(|| task.run_hooked(&shared.hooks)) {
                        shared.schedule(yielded);
                    }
                }
                None => return false,
            }
        }
        true
    }

    /// Whether every task of the set has completed.
    fn is_idle(&self) -> bool {
        self.context.shared.owned.is_empty()
    }
}

impl fmt::Debug for LocalSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalSet").finish()
    }
}

impl Default for LocalSet {
    fn default() -> LocalSet {
        LocalSet::new()
    }
}

/// Awaiting a `LocalSet` runs its tasks until all of them complete.
impl Future for LocalSet {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.context.shared.waker.register_by_ref(cx.waker());
        let more = {
            let _guard = self.enter_inner(true);
            self.tick()
        };
        if more {
            // Let the thread's other futures run; come back soon.
            cx.waker().wake_by_ref();
            Poll::Pending
        } else if self.is_idle() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl Drop for LocalSet {
    fn drop(&mut self) {
        // A set kept in a thread-local may be dropped after this thread's
        // `CURRENT` is gone: its tasks are then dropped without the set
        // entered (entering would panic, and a panic there aborts).
        let _guard = CURRENT
            .try_with(|_| ())
            .is_ok()
            .then(|| self.enter_inner(true));
        let shared = &self.context.shared;
        // Cancel every task (drops the futures here, on the owner thread),
        // then the queued notifications.
        shared.owned.close_and_shutdown_all();
        let queue = shared.queue.lock().take();
        drop(queue);
        debug_assert!(shared.owned.is_empty());
    }
}

struct RunUntil<'a, F> {
    local_set: &'a LocalSet,
    future: F,
}

impl<F: Future> Future for RunUntil<'_, F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `future` is never moved out of the pinned `RunUntil`.
        let me = unsafe { self.get_unchecked_mut() };
        let local_set = me.local_set;
        // SAFETY: structural pinning of `future` (see above).
        let future = unsafe { Pin::new_unchecked(&mut me.future) };
        local_set.context.shared.waker.register_by_ref(cx.waker());
        let _guard = local_set.enter_inner(true);
        if let Poll::Ready(output) = future.poll(cx) {
            return Poll::Ready(output);
        }
        if local_set.tick() {
            cx.waker().wake_by_ref();
        }
        Poll::Pending
    }
}

impl Shared {
    fn schedule(self: &Arc<Self>, task: Notified<Arc<Shared>>) {
        let mut queue = self.queue.lock();
        let Some(q) = queue.as_mut() else {
            // The set is gone: dropping the notification is all there is.
            drop(queue);
            drop(task);
            return;
        };
        q.push_back(task);
        drop(queue);
        // A schedule from inside the running tick is picked up by the tick
        // loop itself; anything else wakes the future polling the set.
        let running_here = CURRENT
            .try_with(|data| {
                data.ticking.get()
                    && data
                        .ctx
                        .borrow()
                        .as_ref()
                        .is_some_and(|c| Arc::ptr_eq(&c.shared, self))
            })
            .unwrap_or(false);
        if !running_here {
            self.waker.wake();
        }
    }
}

impl Schedule for Arc<Shared> {
    fn release(&self, task: &Task<Self>) -> Option<Task<Self>> {
        self.owned.remove(task)
    }

    fn owner_id(&self) -> u64 {
        self.owned.id()
    }

    fn terminate_hook(&self) -> Option<&crate::runtime::TaskCallback> {
        self.hooks.terminate.as_ref()
    }

    fn schedule(&self, task: Notified<Self>) {
        Shared::schedule(self, task);
    }

    fn unhandled_panic(&self) {
        if !matches!(
            self.unhandled_panic,
            crate::runtime::UnhandledPanic::ShutdownRuntime
        ) {
            return;
        }
        // The set's tasks run only inside its `tick`, with `CURRENT` naming
        // the set, on the owner thread.
        let ours = CURRENT
            .try_with(|data| {
                let ctx = data.ctx.borrow();
                match ctx.as_ref() {
                    Some(cx) if Arc::ptr_eq(self, &cx.shared) => {
                        cx.unhandled_panic.set(true);
                        true
                    }
                    _ => false,
                }
            })
            .unwrap_or(false);
        if ours {
            // Cancels every task here, on the owner thread (the futures
            // are `!Send`), outside the `CURRENT` borrow: their destructors
            // may spawn or wake.
            self.owned.close_and_shutdown_all();
            if self.of_local_runtime {
                crate::scheduler::current_thread::unhandled_panic_of_local_task();
            }
        }
    }
}
