//! The "scheduler" of blocking tasks.
//!
//! A blocking task is polled exactly once, by a pool thread, and completes
//! in that poll: it is never woken and never rescheduled. It is in no
//! owned-tasks list either (runtime shutdown does not cancel a closure that
//! already runs; the pool cancels the queued ones).
//!
//! With `test-util`, the schedule also holds a paused current-thread
//! runtime's clock back from auto-advancing while the task is pending (the
//! runtime's idle tasks may be waiting for it), as tokio does. It lets go
//! once the task's output is visible to its `JoinHandle` and the joiner
//! is woken ([`Schedule::completed`]), or when the task is dropped unrun.
//! Earlier would be too early: a closure that panics drops what it owns
//! while it unwinds, before the `JoinError` is stored, and a runtime
//! woken then found nothing to do and jumped its clock to the next timer.

use crate::runtime::{Handle, TaskCallback};
use crate::task::{Notified, Schedule, Task};

pub(crate) struct BlockingSchedule {
    /// The runtime's `on_task_terminate` hook (`runtime/task_hooks.rs`).
    terminate_hook: Option<TaskCallback>,
    #[cfg(feature = "test-util")]
    auto_advance: AutoAdvanceGuard,
}

impl BlockingSchedule {
    /// `hooked`: whether the runtime's terminate hook sees the task (not
    /// for a worker thread's body).
    pub(crate) fn new(rt: &Handle, hooked: bool) -> BlockingSchedule {
        BlockingSchedule {
            terminate_hook: match hooked {
                true => rt.inner.config().task_hooks.terminate.clone(),
                false => None,
            },
            #[cfg(feature = "test-util")]
            auto_advance: AutoAdvanceGuard::new(rt),
        }
    }
}

impl Schedule for BlockingSchedule {
    fn release(&self, _task: &Task<Self>) -> Option<Task<Self>> {
        None
    }

    fn schedule(&self, _task: Notified<Self>) {
        // `abort()` of a queued blocking task only sets CANCELLED (the task
        // is NOTIFIED while queued); an idle blocking task does not exist.
        unreachable!("blocking tasks are never rescheduled");
    }

    fn completed(&self) {
        #[cfg(feature = "test-util")]
        self.auto_advance.release();
    }

    fn terminate_hook(&self) -> Option<&TaskCallback> {
        self.terminate_hook.as_ref()
    }
}

/// Holds a paused current-thread runtime's clock back from auto-advancing
/// until released (or dropped). Releasing unparks the driver, as tokio's
/// does: a runtime that parked for real while auto-advance was held off
/// (for the next timer, say 15 s) must get the chance to advance now, even
/// if nobody awaits the blocking task.
#[cfg(feature = "test-util")]
#[derive(Debug)]
struct AutoAdvanceGuard {
    /// Only a current-thread runtime auto-advances.
    handle: Option<crate::scheduler::Handle>,
    released: std::sync::atomic::AtomicBool,
}

#[cfg(feature = "test-util")]
impl AutoAdvanceGuard {
    fn new(rt: &Handle) -> AutoAdvanceGuard {
        let handle = match &rt.inner {
            h @ crate::scheduler::Handle::CurrentThread(_) => {
                h.driver().clock().inhibit_auto_advance();
                Some(h.clone())
            }
            #[cfg(feature = "rt-multi-thread")]
            _ => None,
        };
        AutoAdvanceGuard {
            handle,
            released: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Lets the clock advance again; the first call only.
    fn release(&self) {
        if let Some(h) = &self.handle {
            // Relaxed: the swap only picks which call releases; the clock
            // has its own synchronization.
            if !self
                .released
                .swap(true, std::sync::atomic::Ordering::Relaxed)
            {
                h.driver().clock().allow_auto_advance();
                h.driver().unpark();
            }
        }
    }
}

#[cfg(feature = "test-util")]
impl Drop for AutoAdvanceGuard {
    fn drop(&mut self) {
        self.release();
    }
}
