//! The "scheduler" of blocking tasks.
//!
//! A blocking task is polled exactly once, by a pool thread, and completes
//! in that poll: it is never woken and never rescheduled. It is in no
//! owned-tasks list either (runtime shutdown does not cancel a closure that
//! already runs; the pool cancels the queued ones).

use crate::task::{Notified, Schedule, Task};

#[derive(Debug)]
pub(crate) struct BlockingSchedule;

impl Schedule for BlockingSchedule {
    fn release(&self, _task: &Task<Self>) -> Option<Task<Self>> {
        None
    }

    fn schedule(&self, _task: Notified<Self>) {
        // `abort()` of a queued blocking task only sets CANCELLED (the task
        // is NOTIFIED while queued); an idle blocking task does not exist.
        unreachable!("blocking tasks are never rescheduled");
    }
}
