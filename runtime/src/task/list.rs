//! `OwnedTasks`: every live task of one scheduler, so that shutdown can find
//! and cancel the idle ones.
//!
//! Tasks are linked through the `owned` pointers in their trailer into one of
//! several shards, each an intrusive list behind its own mutex, picked by task
//! id. Spawning links the task (one uncontended lock in the common case);
//! completion unlinks it. Shutdown sets `closed` and then empties every
//! shard, cancelling each task it pops.
//!
//! # The closed race
//!
//! `bind` checks `closed` *under the shard lock*; `close_and_shutdown_all`
//! sets `closed` *before* it locks each shard. So a task is either linked
//! before shutdown visits its shard (and gets cancelled there) or sees
//! `closed` (and is cancelled by `bind` itself). No task escapes shutdown.

use crate::loom::sync::Mutex;
use crate::loom::sync::atomic::{AtomicBool, Ordering::Relaxed};
use crate::task::core::{Header, Trailer};
use crate::task::{JoinHandle, Notified, RawTask, Schedule, Task};
use crate::util::CachePadded;
use crate::util::linked_list::{Link, LinkedList, Pointers};

use std::future::Future;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::atomic::AtomicU64;

pub(crate) struct OwnedTasks<S: 'static> {
    shards: Box<[CachePadded<Mutex<Shard<S>>>]>,
    shard_mask: usize,
    /// Distinguishes this list from the lists of other schedulers.
    id: u64,
    closed: AtomicBool,
}

struct Shard<S: 'static> {
    list: LinkedList<TaskLink<S>>,
    len: usize,
    /// Tasks ever linked here (`RuntimeMetrics::spawned_tasks_count`).
    added: u64,
}

struct TaskLink<S>(PhantomData<S>);

// SAFETY: the trailer's `owned` pointers belong to this list alone, and a
// task stays allocated while linked (the list holds a reference).
unsafe impl<S: 'static> Link for TaskLink<S> {
    type Handle = Task<S>;
    type Target = Header;

    fn as_raw(handle: &Task<S>) -> NonNull<Header> {
        handle.raw.header_ptr()
    }

    unsafe fn from_raw(ptr: NonNull<Header>) -> Task<S> {
        // SAFETY: the pointer came from a `Task` given to the list.
        Task::from_raw(unsafe { RawTask::from_raw(ptr) })
    }

    unsafe fn pointers(target: NonNull<Header>) -> NonNull<Pointers<Header>> {
        // SAFETY: `target` heads a live task (trait contract).
        unsafe {
            let trailer: NonNull<Trailer> = Header::get_trailer(target);
            NonNull::from(&trailer.as_ref().owned)
        }
    }
}

fn next_list_id() -> u64 {
    // Not a loom atomic: only uniqueness matters.
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl<S: 'static> OwnedTasks<S> {
    /// A list with at least `shards` shards (rounded up to a power of two).
    pub(crate) fn new(shards: usize) -> Self {
        let n = shards.max(1).next_power_of_two();
        let shards = (0..n)
            .map(|_| {
                CachePadded::new(Mutex::new(Shard {
                    list: LinkedList::new(),
                    len: 0,
                    added: 0,
                }))
            })
            .collect::<Vec<_>>()
            .into_boxed_slice();
        OwnedTasks {
            shards,
            shard_mask: n - 1,
            id: next_list_id(),
            closed: AtomicBool::new(false),
        }
    }

    fn shard(&self, header: &Header) -> &Mutex<Shard<S>> {
        &self.shards[header.id().as_u64() as usize & self.shard_mask]
    }

    /// Creates a task for `future`, links it, and returns its handle and the
    /// first `Notified` to queue (`None` if the list is closed: then the task
    /// is already cancelled).
    pub(crate) fn bind<T>(
        &self,
        future: T,
        scheduler: S,
        id: crate::task::Id,
        spawned_at: crate::task::SpawnLocation,
    ) -> (JoinHandle<T::Output>, Option<Notified<S>>)
    where
        S: Schedule,
        T: Future + Send + 'static,
        T::Output: Send + 'static,
    {
        let (task, notified, join) = crate::task::new_task(future, scheduler, id, spawned_at);
        let notified = self.bind_inner(task, notified);
        (join, notified)
    }

    /// As [`bind`](Self::bind) for `!Send` futures; the caller guarantees the
    /// task is only ever polled on the current thread.
    ///
    /// # Safety
    /// The task must only be polled and dropped on this thread.
    pub(crate) unsafe fn bind_local<T>(
        &self,
        future: T,
        scheduler: S,
        id: crate::task::Id,
        spawned_at: crate::task::SpawnLocation,
    ) -> (JoinHandle<T::Output>, Option<Notified<S>>)
    where
        S: Schedule,
        T: Future + 'static,
        T::Output: 'static,
    {
        let (task, notified, join) = crate::task::new_task(future, scheduler, id, spawned_at);
        let notified = self.bind_inner(task, notified);
        (join, notified)
    }

    fn bind_inner(&self, task: Task<S>, notified: Notified<S>) -> Option<Notified<S>>
    where
        S: Schedule,
    {
        // The task names its owner through its scheduler (`Schedule::owner_id`),
        // which must name this list.
        debug_assert_eq!(task.raw.owner_id(), self.id);
        let mut shard = self.shard(task.header()).lock();
        // Relaxed is enough: see "The closed race" in the module docs (the
        // shard lock orders us after the closer's store).
        if self.closed.load(Relaxed) {
            drop(shard);
            drop(notified);
            task.shutdown();
            return None;
        }
        shard.list.push_front(task);
        shard.len += 1;
        shard.added += 1;
        Some(notified)
    }

    /// Checks that `task` belongs to this list, and lets the caller poll it.
    #[inline]
    pub(crate) fn assert_owner(&self, task: Notified<S>) -> crate::task::LocalNotified<S> {
        debug_assert_eq!(task.0.raw.owner_id(), self.id);
        crate::task::LocalNotified::new(task.0)
    }

    /// Unlinks `task` if it is still linked, giving back the list's reference.
    pub(crate) fn remove(&self, task: &Task<S>) -> Option<Task<S>> {
        // Only the task's own scheduler releases it, into the list its
        // `Schedule::owner_id` names, which `bind` checked is this one.
        debug_assert_eq!(task.raw.owner_id(), self.id);
        let mut shard = self.shard(task.header()).lock();
        // SAFETY: the task is live (the caller holds a reference) and was
        // bound into this list (above), so it is in this shard (picked by
        // its id, as `bind` did) or, unlinked already or never linked
        // because the list was closed, in no list.
        let removed = unsafe { shard.list.remove(task.header_ptr()) };
        if removed.is_some() {
            shard.len -= 1;
        }
        removed
    }

    /// Closes the list and cancels every task in it. Tasks bound afterwards
    /// are cancelled by `bind`.
    pub(crate) fn close_and_shutdown_all(&self)
    where
        S: Schedule,
    {
        // Relaxed is enough: the shard locks below order this store before
        // any later `bind` of each shard (module docs).
        self.closed.store(true, Relaxed);
        for shard in self.shards.iter() {
            loop {
                let task = {
                    let mut shard = shard.lock();
                    let task = shard.list.pop_back();
                    if task.is_some() {
                        shard.len -= 1;
                    }
                    task
                };
                match task {
                    // Cancelling runs user destructors: not under the lock.
                    Some(task) => task.shutdown(),
                    None => break,
                }
            }
        }
    }

    /// The list's id, unique among the lists of this process.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// Number of tasks linked right now (locks each shard in turn).
    pub(crate) fn num_alive_tasks(&self) -> usize {
        self.shards.iter().map(|s| s.lock().len).sum()
    }

    /// How many tasks were ever linked into the list.
    pub(crate) fn spawned_tasks_count(&self) -> u64 {
        self.shards.iter().map(|s| s.lock().added).sum()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.shards.iter().all(|s| s.lock().list.is_empty())
    }
}

impl<S: 'static> std::fmt::Debug for OwnedTasks<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnedTasks").field("id", &self.id).finish()
    }
}
