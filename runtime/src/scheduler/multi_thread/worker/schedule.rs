//! How a task is queued, and which worker is woken for it.
//!
//! * On a worker of the task's runtime that holds its core: into the LIFO
//!   slot (a woken task) or at the back of the local queue (a yield, or a
//!   wake while the slot is off), as `worker.rs` describes under "The LIFO
//!   slot". A parked worker is woken when the push leaves a second task
//!   waiting here (a displaced LIFO task counts), or for every woken task
//!   when the builder disabled the slot.
//! * Anywhere else: onto the global queue, and a parked worker is woken.
//!
//! Whether a wake-up is sent at all is `idle.rs`'s call: none while a
//! worker is searching already.

use super::{Core, Notified, with_current};
use crate::scheduler::multi_thread::handle::Handle;
use std::ptr::NonNull;

impl Handle {
    /// Queues a woken task: locally (LIFO slot or queue) on a worker of this
    /// runtime that holds its core, else on the global queue.
    pub(in crate::scheduler::multi_thread) fn schedule_task(&self, task: Notified) {
        with_current(|maybe_cx| {
            if let Some(cx) = maybe_cx {
                // Same runtime, and this thread still holds a core?
                if std::ptr::eq(self, &*cx.worker.handle) {
                    if let Some(core) = cx.core.borrow_mut().as_mut() {
                        // A deferred yield goes to the back, like one
                        // handed back by `run`.
                        self.schedule_local(core, task, cx.defer.is_draining());
                        return;
                    }
                }
            }
            self.push_remote_task(task);
            self.notify_parked();
        });
    }

    /// `Schedule::wake_here` for this runtime: on a worker of the handle
    /// at `key` that holds its core, runs `transition` and queues the task
    /// it returns through the worker's own handle (`schedule_task`'s local
    /// path), so nothing of the task's is used once it is queued. `None`
    /// elsewhere, `transition` not run. `key` is only compared: it may be
    /// any handle.
    pub(in crate::scheduler::multi_thread) fn wake_on_current_worker<R>(
        key: NonNull<Handle>,
        transition: impl FnOnce() -> (Option<Notified>, R),
    ) -> Option<R> {
        with_current(|maybe_cx| {
            let cx = maybe_cx?;
            if !std::ptr::eq(key.as_ptr(), &*cx.worker.handle) {
                return None;
            }
            let mut core = cx.core.borrow_mut();
            let core = core.as_mut()?;
            let (task, res) = transition();
            if let Some(task) = task {
                cx.worker
                    .handle
                    .schedule_local(core, task, cx.defer.is_draining());
            }
            Some(res)
        })
    }

    /// Queues a task that woke itself while it ran on this worker (it
    /// yielded; `LocalNotified::run` handed it back): at the back.
    pub(super) fn schedule_yielded(&self, core: &mut Core, task: Notified) {
        self.schedule_local(core, task, true);
    }

    pub(super) fn schedule_local(&self, core: &mut Core, task: Notified, is_yield: bool) {
        core.stats.inc_local_schedule_count();

        let should_notify = if is_yield || !core.lifo_enabled {
            // One waiting task is not worth waking a worker for: it runs
            // here as soon as the current poll ends, as a LIFO task would.
            // A second one is. So is a woken one when the builder disabled
            // the LIFO slot: that is asking for polls that may run long not
            // to hold up the tasks they wake while a worker is idle (as
            // tokio's option does).
            let had_tasks = core.has_tasks();
            core.run_queue
                .push_back_or_overflow(task, &self.shared.inject, &mut core.stats);
            had_tasks || (!is_yield && self.shared.config.disable_lifo_slot)
        } else {
            // The woken task runs next; the one it displaces queues up.
            core.run_queue.push_lifo(
                &mut core.lifo_slot,
                task,
                &self.shared.inject,
                &mut core.stats,
            )
        };

        // `park` is `None` while the worker sleeps (wakes from the driver):
        // they come in batches, and the worker notifies after its sleep.
        if should_notify && core.park.is_some() {
            self.notify_parked();
        }
    }

    pub(super) fn push_remote_task(&self, task: Notified) {
        self.metrics.inc_remote_schedule_count();
        self.shared.inject.push(task);
    }

    pub(in crate::scheduler::multi_thread) fn next_remote_task(&self) -> Option<Notified> {
        self.shared.inject.pop()
    }

    /// Wakes a parked worker if new work may need one (see `idle.rs`).
    pub(in crate::scheduler::multi_thread) fn notify_parked(&self) {
        if let Some(index) = self.shared.idle.worker_to_notify() {
            self.shared.remotes[index].unpark.unpark(&self.driver);
        }
    }

    pub(in crate::scheduler::multi_thread) fn notify_all(&self) {
        for remote in &self.shared.remotes[..] {
            remote.unpark.unpark(&self.driver);
        }
    }

    pub(super) fn notify_if_work_pending(&self) {
        for remote in &self.shared.remotes[..] {
            if !remote.steal.is_empty() {
                self.notify_parked();
                return;
            }
        }
        if !self.shared.inject.is_empty() {
            self.notify_parked();
        }
    }
}
