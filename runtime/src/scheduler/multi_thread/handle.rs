//! The shared side of the multi-thread scheduler.

use crate::runtime::metrics::{SchedulerMetrics, WorkerMetrics};
use crate::scheduler::multi_thread::worker;
use crate::task::{Id, JoinHandle, Notified, Schedule, SpawnLocation, Task};

use std::fmt;
use std::future::Future;
use std::ptr::NonNull;
use std::sync::Arc;

/// What tasks and runtime handles hold.
pub(crate) struct Handle {
    pub(super) shared: worker::Shared,
    pub(crate) driver: crate::driver::Handle,
    pub(crate) blocking_spawner: crate::blocking::Spawner,
    pub(crate) metrics: SchedulerMetrics,
    pub(crate) name: Option<String>,
}

impl Handle {
    /// Spawns a future onto the thread pool.
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
            me.schedule_task(notified);
        }
        handle
    }

    /// Starts the shutdown: closes the global queue and wakes every worker.
    pub(crate) fn shutdown(&self) {
        if self.shared.inject.close() {
            self.notify_all();
        }
    }

    pub(crate) fn config(&self) -> &crate::scheduler::Config {
        &self.shared.config
    }

    pub(crate) fn owned_id(&self) -> u64 {
        self.shared.owned.id()
    }

    pub(crate) fn num_workers(&self) -> usize {
        self.shared.remotes.len()
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
        &self.shared.worker_metrics[worker]
    }

    /// Read live from the queue, as a stealer would.
    #[track_caller]
    pub(crate) fn worker_local_queue_depth(&self, worker: usize) -> usize {
        self.shared.remotes[worker].steal.len()
    }
}

impl Schedule for Arc<Handle> {
    fn release(&self, task: &Task<Self>) -> Option<Task<Self>> {
        self.shared.owned.remove(task)
    }

    fn terminate_hook(&self) -> Option<&crate::runtime::TaskCallback> {
        self.shared.config.task_hooks.terminate.as_ref()
    }

    fn schedule(&self, task: Notified<Self>) {
        self.schedule_task(task);
    }

    fn owner_id(&self) -> u64 {
        self.shared.owned.id()
    }

    fn here_key(&self) -> Option<NonNull<()>> {
        Some(NonNull::from(&**self).cast())
    }

    fn wake_here<R>(
        key: NonNull<()>,
        transition: impl FnOnce() -> (Option<Notified<Self>>, R),
    ) -> Option<R> {
        Handle::wake_on_current_worker(key.cast(), transition)
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("multi_thread::Handle { ... }").finish()
    }
}
