//! The blocking pool: threads for `spawn_blocking`, `block_in_place` and the
//! multi-thread runtime's own workers.
//!
//! * [`pool`]: the thread pool (queue, idle threads, keep-alive, shutdown).
//! * [`mailbox`]: how the pool hands a task to one idle thread and wakes it.
//! * [`task`]: `BlockingTask`, the future wrapper that runs a closure once.
//! * [`schedule`]: the scheduler of blocking tasks (they are never woken).
//! * [`shutdown`]: how shutdown waits, with a timeout, for threads to exit.

mod mailbox;
pub(crate) mod pool;
pub(crate) mod schedule;
pub(crate) mod shutdown;
pub(crate) mod task;

pub(crate) use pool::{BlockingPool, Spawner, spawn_blocking};
