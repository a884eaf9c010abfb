//! A collection of tasks spawned on a runtime.
//!
//! This module provides the [`JoinSet`] type, a collection which stores a
//! set of spawned tasks and allows asynchronously awaiting the output of
//! those tasks as they complete, and [`Builder`], which names the tasks it
//! spawns into a set ([`JoinSet::build_task`]). See the documentation for
//! the [`JoinSet`] type for details.
//!
//! # How completions are found in O(1)
//!
//! Every task in the set gets its own *entry waker* as its `JoinHandle`'s
//! join waker (registered without reading the output). When the task
//! completes, the runtime wakes the entry waker, which pushes the entry's
//! slot index onto the set's `notified` queue (once: a `queued` flag) and
//! wakes whoever waits in `join_next`. `join_next` pops an index and polls
//! that one `JoinHandle`: no scan over the set, whatever its size.
//!
//! Entries live in a slab (`Vec` + free list) owned by the `JoinSet`
//! (`&mut self` methods only). The shared part, reached by entry wakers
//! from any thread, is the `notified` queue and the set's waker, under one
//! mutex. A slot index comes with a generation, so a late wake of a
//! removed entry never disturbs the entry that reused its slot. A set that
//! empties after a burst frees its slab (and starts a new queue, so old
//! indices cannot reach the new slab).

mod builder;

pub use builder::Builder;

use crate::loom::sync::Mutex;
use crate::runtime::Handle;
use crate::task::{AbortHandle, Id, JoinError, JoinHandle};

use std::collections::VecDeque;
use std::fmt;
use std::future::{Future, poll_fn};
use std::panic;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

/// Slab size above which an emptied set frees its storage.
const SHRINK_ABOVE: usize = 64;

/// A collection of tasks spawned on a runtime.
///
/// A `JoinSet` can be used to await the completion of some or all of the
/// tasks in the set. The set is not ordered, and the tasks will be returned
/// in the order they complete.
///
/// All of the tasks must have the same return type `T`.
///
/// When the `JoinSet` is dropped, all tasks in the `JoinSet` are
/// immediately aborted.
///
/// # Examples
///
/// Spawn multiple tasks and wait for them.
///
/// ```
/// use volt_runtime::task::JoinSet;
///
/// #[volt_runtime::main(crate = "volt_runtime")]
/// async fn main() {
///     let mut set = JoinSet::new();
///
///     for i in 0..10 {
///         set.spawn(async move { i });
///     }
///
///     let mut seen = [false; 10];
///     while let Some(res) = set.join_next().await {
///         let idx = res.unwrap();
///         seen[idx] = true;
///     }
///
///     for i in 0..10 {
///         assert!(seen[i]);
///     }
/// }
/// ```
pub struct JoinSet<T> {
    entries: Vec<Slot<T>>,
    free: Vec<usize>,
    len: usize,
    shared: Arc<Shared>,
}

enum Slot<T> {
    Vacant { generation: u64 },
    Occupied(Entry<T>),
}

struct Entry<T> {
    handle: JoinHandle<T>,
    notify: Arc<EntryWaker>,
    /// A `Waker` over `notify` (kept to avoid a refcount bump per poll).
    waker: Waker,
}

/// The part entry wakers touch.
struct Shared {
    state: Mutex<SharedState>,
}

struct SharedState {
    /// Slots whose task woke its entry waker: (index, generation).
    notified: VecDeque<(usize, u64)>,
    /// The task waiting in `join_next`, if the queue was empty.
    waiter: Option<Waker>,
}

struct EntryWaker {
    shared: Arc<Shared>,
    index: usize,
    generation: u64,
    /// Whether the slot is in `notified` already.
    queued: AtomicBool,
}

impl Wake for EntryWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // AcqRel: pairs with the Release store of `false` in `pop`, so the
        // popper's poll of the handle happens before a re-queue.
        if self.queued.swap(true, Ordering::AcqRel) {
            return;
        }
        let waiter = {
            let mut state = self.shared.state.lock();
            state.notified.push_back((self.index, self.generation));
            state.waiter.take()
        };
        if let Some(waiter) = waiter {
            waiter.wake();
        }
    }
}

impl<T> JoinSet<T> {
    /// Create a new `JoinSet`.
    pub fn new() -> Self {
        JoinSet {
            entries: Vec::new(),
            free: Vec::new(),
            len: 0,
            shared: Arc::new(Shared {
                state: Mutex::new(SharedState {
                    notified: VecDeque::new(),
                    waiter: None,
                }),
            }),
        }
    }

    /// Returns the number of tasks currently in the `JoinSet`.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Returns whether the `JoinSet` is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<T: 'static> JoinSet<T> {
    /// Spawn the provided task on the `JoinSet`, returning an
    /// [`AbortHandle`] that can be used to remotely cancel the task.
    ///
    /// The provided future will start running in the background
    /// immediately when this method is called, even if you don't await
    /// anything on this `JoinSet`.
    ///
    /// # Panics
    ///
    /// This method panics if called outside of a runtime.
    #[track_caller]
    pub fn spawn<F>(&mut self, task: F) -> AbortHandle
    where
        F: Future<Output = T>,
        F: Send + 'static,
        T: Send,
    {
        self.insert(crate::task::spawn(task))
    }

    /// Spawn the provided task on the provided runtime and store it in this
    /// `JoinSet` returning an [`AbortHandle`] that can be used to remotely
    /// cancel the task.
    #[track_caller]
    pub fn spawn_on<F>(&mut self, task: F, handle: &Handle) -> AbortHandle
    where
        F: Future<Output = T>,
        F: Send + 'static,
        T: Send,
    {
        self.insert(handle.spawn(task))
    }

    /// Spawn the provided task on the current [`LocalSet`] and store it in
    /// this `JoinSet`, returning an [`AbortHandle`] that can be used to
    /// remotely cancel the task.
    ///
    /// # Panics
    ///
    /// This method panics if it is called outside of a `LocalSet`.
    ///
    /// [`LocalSet`]: crate::task::LocalSet
    #[track_caller]
    pub fn spawn_local<F>(&mut self, task: F) -> AbortHandle
    where
        F: Future<Output = T>,
        F: 'static,
    {
        self.insert(crate::task::spawn_local(task))
    }

    /// Spawn the provided task on the provided [`LocalSet`] and store it in
    /// this `JoinSet`, returning an [`AbortHandle`] that can be used to
    /// remotely cancel the task.
    ///
    /// Unlike the [`spawn_local`] method, this method may be used to spawn
    /// local tasks on a `LocalSet` that is _not_ currently running.
    ///
    /// [`LocalSet`]: crate::task::LocalSet
    /// [`spawn_local`]: Self::spawn_local
    #[track_caller]
    pub fn spawn_local_on<F>(&mut self, task: F, local_set: &crate::task::LocalSet) -> AbortHandle
    where
        F: Future<Output = T>,
        F: 'static,
    {
        self.insert(local_set.spawn_local(task))
    }

    /// Spawn the blocking code on the blocking threadpool and store it in
    /// this `JoinSet`, returning an [`AbortHandle`] that can be used to
    /// remotely cancel the task.
    ///
    /// # Panics
    ///
    /// This method panics if called outside of a runtime.
    #[track_caller]
    pub fn spawn_blocking<F>(&mut self, f: F) -> AbortHandle
    where
        F: FnOnce() -> T,
        F: Send + 'static,
        T: Send,
    {
        self.insert(crate::task::spawn_blocking(f))
    }

    /// Spawn the blocking code on the blocking threadpool of the provided
    /// runtime and store it in this `JoinSet`, returning an
    /// [`AbortHandle`] that can be used to remotely cancel the task.
    #[track_caller]
    pub fn spawn_blocking_on<F>(&mut self, f: F, handle: &Handle) -> AbortHandle
    where
        F: FnOnce() -> T,
        F: Send + 'static,
        T: Send,
    {
        self.insert(handle.spawn_blocking(f))
    }

    fn insert(&mut self, mut handle: JoinHandle<T>) -> AbortHandle {
        let abort = handle.abort_handle();
        let (index, generation) = match self.free.pop() {
            Some(index) => match self.entries[index] {
                Slot::Vacant { generation } => (index, generation),
                Slot::Occupied(_) => unreachable!("free list holds an occupied slot"),
            },
            None => {
                self.entries.push(Slot::Vacant { generation: 0 });
                (self.entries.len() - 1, 0)
            }
        };
        let notify = Arc::new(EntryWaker {
            shared: self.shared.clone(),
            index,
            generation,
            queued: AtomicBool::new(false),
        });
        let waker = Waker::from(notify.clone());
        // Completion (or completion already) wakes the entry waker.
        handle.set_join_waker(&waker);
        self.entries[index] = Slot::Occupied(Entry {
            handle,
            notify,
            waker,
        });
        self.len += 1;
        abort
    }

    /// Frees a slot, bumping its generation.
    fn remove(&mut self, index: usize) -> Entry<T> {
        let generation = match &self.entries[index] {
            Slot::Occupied(e) => e.notify.generation.wrapping_add(1),
            Slot::Vacant { .. } => unreachable!("removing a vacant slot"),
        };
        let slot = std::mem::replace(&mut self.entries[index], Slot::Vacant { generation });
        self.free.push(index);
        self.len -= 1;
        if self.len == 0 && self.entries.len() > SHRINK_ABOVE {
            // Give the memory of a burst back once the set is empty.
            self.reset_storage();
        }
        match slot {
            Slot::Occupied(e) => e,
            Slot::Vacant { .. } => unreachable!(),
        }
    }

    /// Fresh, empty storage. Indices queued for the old slab may repeat in
    /// the new one, so the queue (and what entry wakers reach) is new too.
    fn reset_storage(&mut self) {
        self.entries = Vec::new();
        self.free = Vec::new();
        self.shared = Arc::new(Shared {
            state: Mutex::new(SharedState {
                notified: VecDeque::new(),
                waiter: None,
            }),
        });
    }

    /// Pops the next notified slot that still holds its entry; registers
    /// `waiter` if none is queued.
    fn pop_notified(&mut self, waiter: Option<&Waker>) -> Option<usize> {
        loop {
            let (index, generation) = {
                let mut state = self.shared.state.lock();
                match state.notified.pop_front() {
                    Some(n) => n,
                    None => {
                        let replaced = match (waiter, &state.waiter) {
                            (Some(w), Some(old)) if old.will_wake(w) => None,
                            (Some(w), _) => state.waiter.replace(w.clone()),
                            (None, _) => None,
                        };
                        // The old waker is dropped after the lock: its drop
                        // may run code (even a runtime) that completes one
                        // of our tasks, whose wake takes this lock.
                        drop(state);
                        drop(replaced);
                        return None;
                    }
                }
            };
            if let Slot::Occupied(e) = &self.entries[index] {
                if e.notify.generation == generation {
                    // Release: a wake after this re-queues the slot.
                    e.notify.queued.store(false, Ordering::Release);
                    return Some(index);
                }
            }
            // A late wake of a removed entry: skip it.
        }
    }

    /// Polls the handle in `index` with its entry waker.
    fn poll_entry(&mut self, index: usize) -> Poll<Result<T, JoinError>> {
        let Slot::Occupied(e) = &mut self.entries[index] else {
            unreachable!("polling a vacant slot");
        };
        let mut cx = Context::from_waker(&e.waker);
        Pin::new(&mut e.handle).poll(&mut cx)
    }

    /// Waits until one of the tasks in the set completes and returns its
    /// output.
    ///
    /// Returns `None` if the set is empty.
    ///
    /// # Cancel Safety
    ///
    /// This method is cancel safe. If `join_next` is used as the event in
    /// a `volt::select!` statement and some other branch completes first,
    /// it is guaranteed that no tasks were removed from this `JoinSet`.
    pub async fn join_next(&mut self) -> Option<Result<T, JoinError>> {
        poll_fn(|cx| self.poll_join_next(cx)).await
    }

    /// Waits until one of the tasks in the set completes and returns its
    /// output, along with the [task ID] of the completed task.
    ///
    /// Returns `None` if the set is empty.
    ///
    /// When this method returns an error, then the id of the task that
    /// failed can be accessed using the [`JoinError::id`] method.
    ///
    /// # Cancel Safety
    ///
    /// This method is cancel safe. If `join_next_with_id` is used as the
    /// event in a `volt::select!` statement and some other branch completes
    /// first, it is guaranteed that no tasks were removed from this
    /// `JoinSet`.
    ///
    /// [task ID]: crate::task::Id
    pub async fn join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        poll_fn(|cx| self.poll_join_next_with_id(cx)).await
    }

    /// Tries to join one of the tasks in the set that has completed and
    /// return its output.
    ///
    /// Returns `None` if there are no completed tasks, or if the set is
    /// empty.
    pub fn try_join_next(&mut self) -> Option<Result<T, JoinError>> {
        self.try_join_next_with_id()
            .map(|res| res.map(|(_id, output)| output))
    }

    /// Tries to join one of the tasks in the set that has completed and
    /// return its output, along with the [task ID] of the completed task.
    ///
    /// Returns `None` if there are no completed tasks, or if the set is
    /// empty.
    ///
    /// [task ID]: crate::task::Id
    pub fn try_join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        loop {
            let index = self.pop_notified(None)?;
            let res = crate::coop::with_unconstrained(|| self.poll_entry(index));
            if let Poll::Ready(res) = res {
                let entry = self.remove(index);
                return Some(res.map(|output| (entry.handle.id(), output)));
            }
        }
    }

    /// Aborts all tasks and waits for them to finish shutting down.
    ///
    /// Calling this method is equivalent to calling [`abort_all`] and then
    /// calling [`join_next`] in a loop until it returns `None`.
    ///
    /// This method ignores any panics in the tasks shutting down. When this
    /// call returns, the `JoinSet` will be empty.
    ///
    /// [`abort_all`]: fn@Self::abort_all
    /// [`join_next`]: fn@Self::join_next
    pub async fn shutdown(&mut self) {
        self.abort_all();
        while self.join_next().await.is_some() {}
    }

    /// Awaits the completion of all tasks in this `JoinSet`, returning a
    /// vector of their results.
    ///
    /// The results will be stored in the order they completed not the
    /// order they were spawned. This is a convenience method that is
    /// equivalent to calling [`join_next`] in a loop. If any tasks on the
    /// `JoinSet` fail with an [`JoinError`], then this call to `join_all`
    /// will panic and all remaining tasks on the `JoinSet` are cancelled.
    /// To handle errors in any other way, manually call [`join_next`] in a
    /// loop.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::task::JoinSet;
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime")]
    /// # async fn main() {
    /// let mut set = JoinSet::new();
    /// for i in 0..3 {
    ///     set.spawn(async move { i });
    /// }
    /// let mut output = set.join_all().await;
    /// output.sort();
    /// assert_eq!(output, vec![0, 1, 2]);
    /// # }
    /// ```
    ///
    /// [`join_next`]: fn@Self::join_next
    /// [`JoinError::id`]: fn@crate::task::JoinError::id
    pub async fn join_all(mut self) -> Vec<T> {
        let mut output = Vec::with_capacity(self.len());
        while let Some(res) = self.join_next().await {
            match res {
                Ok(t) => output.push(t),
                Err(err) if err.is_panic() => panic::resume_unwind(err.into_panic()),
                Err(err) => panic!("{err}"),
            }
        }
        output
    }

    /// Aborts all tasks on this `JoinSet`.
    ///
    /// This does not remove the tasks from the `JoinSet`. To wait for the
    /// tasks to complete cancellation, you should call `join_next` in a
    /// loop until the `JoinSet` is empty.
    pub fn abort_all(&mut self) {
        for slot in &self.entries {
            if let Slot::Occupied(e) = slot {
                e.handle.abort();
            }
        }
    }

    /// Removes all tasks from this `JoinSet` without aborting them.
    ///
    /// The tasks removed by this call will continue to run in the
    /// background even if the `JoinSet` is dropped.
    pub fn detach_all(&mut self) {
        // Dropping the handles detaches the tasks.
        self.entries.clear();
        self.len = 0;
        self.reset_storage();
    }

    /// Polls for one of the tasks in the set to complete.
    ///
    /// If this returns `Poll::Ready(Some(_))`, then the task that completed
    /// is removed from the set.
    ///
    /// When the method returns `Poll::Pending`, the `Waker` in the provided
    /// `Context` is scheduled to receive a wakeup when a task in the
    /// `JoinSet` completes. Note that on multiple calls to
    /// `poll_join_next`, only the `Waker` from the `Context` passed to the
    /// most recent call is scheduled to receive a wakeup.
    ///
    /// # Returns
    ///
    /// This function returns:
    ///
    ///  * `Poll::Pending` if the `JoinSet` is not empty but there is no
    ///    task whose output is available right now.
    ///  * `Poll::Ready(Some(Ok(value)))` if one of the tasks in this
    ///    `JoinSet` has completed. The `value` is the return value of one
    ///    of the tasks that completed.
    ///  * `Poll::Ready(Some(Err(err)))` if one of the tasks in this
    ///    `JoinSet` has panicked or been aborted. The `err` is the
    ///    `JoinError` from the panicked/aborted task.
    ///  * `Poll::Ready(None)` if the `JoinSet` is empty.
    ///
    /// Note that this method may return `Poll::Pending` even if one of the
    /// tasks has completed. This can happen if the [coop budget] is
    /// reached.
    ///
    /// [coop budget]: crate::task::coop
    pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>> {
        self.poll_join_next_with_id(cx)
            .map(|opt| opt.map(|res| res.map(|(_id, output)| output)))
    }

    /// Polls for one of the tasks in the set to complete, returning its
    /// [task ID] with the output (see [`poll_join_next`]).
    ///
    /// [task ID]: crate::task::Id
    /// [`poll_join_next`]: Self::poll_join_next
    pub fn poll_join_next_with_id(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<(Id, T), JoinError>>> {
        if self.len == 0 {
            return Poll::Ready(None);
        }
        let Some(index) = self.pop_notified(Some(cx.waker())) else {
            return Poll::Pending;
        };
        // The handle's poll spends the task's coop budget; out of budget,
        // it returns `Pending` and wakes the entry waker, which queues the
        // entry again (so nothing popped here is ever lost).
        match self.poll_entry(index) {
            Poll::Ready(res) => {
                let entry = self.remove(index);
                Poll::Ready(Some(res.map(|output| (entry.handle.id(), output))))
            }
            Poll::Pending => {
                // Out of budget, or a spurious wake: the entry is queued
                // again or its waker registered; let others run meanwhile.
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }
}

impl<T> Drop for JoinSet<T> {
    fn drop(&mut self) {
        for slot in &self.entries {
            if let Slot::Occupied(e) = slot {
                e.handle.abort();
            }
        }
    }
}

impl<T> fmt::Debug for JoinSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinSet").field("len", &self.len()).finish()
    }
}

impl<T> Default for JoinSet<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Collect an iterator of futures into a [`JoinSet`].
///
/// This is equivalent to calling [`JoinSet::spawn`] on each element of the
/// iterator.
///
/// # Examples
///
/// ```
/// use volt_runtime::task::JoinSet;
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() {
/// let set: JoinSet<_> = (0..5).map(|i| async move { i * 2 }).collect();
/// let mut results = set.join_all().await;
/// results.sort();
/// assert_eq!(results, [0, 2, 4, 6, 8]);
/// # }
/// ```
impl<T, F> std::iter::FromIterator<F> for JoinSet<T>
where
    F: Future<Output = T>,
    F: Send + 'static,
    T: Send + 'static,
{
    #[track_caller]
    fn from_iter<I: IntoIterator<Item = F>>(iter: I) -> Self {
        let mut set = Self::new();
        set.extend(iter);
        set
    }
}

/// Extend a [`JoinSet`] with futures from an iterator.
///
/// This is equivalent to calling [`JoinSet::spawn`] on each element of the
/// iterator.
impl<T, F> std::iter::Extend<F> for JoinSet<T>
where
    F: Future<Output = T>,
    F: Send + 'static,
    T: Send + 'static,
{
    #[track_caller]
    fn extend<I: IntoIterator<Item = F>>(&mut self, iter: I) {
        for task in iter {
            self.spawn(task);
        }
    }
}
