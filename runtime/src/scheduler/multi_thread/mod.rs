//! The multi-thread, work-stealing scheduler.
//!
//! * [`worker`]: the workers' run loop, LIFO slot, stealing, parking and
//!   shutdown.
//! * [`block_in_place`](mod@block_in_place): handing a worker's core to a
//!   new thread.
//! * [`queue`]: each worker's 256-slot local queue (lock-free, steal-half).
//! * [`idle`]: which workers search or sleep; the no-lost-wake-up protocol.
//! * [`park`]: how a worker sleeps (on the shared driver or its condvar).
//! * [`handle`]: the shared handle tasks and runtime handles hold.
//! * [`tuning`]: the global queue interval, tuned from the mean poll time.

pub(crate) mod block_in_place;
pub(crate) mod handle;
pub(crate) mod idle;
pub(crate) mod park;
pub(crate) mod queue;
pub(crate) mod tuning;
pub(crate) mod worker;

#[cfg(all(test, loom))]
mod loom_tests;

pub(crate) use block_in_place::block_in_place;
pub(crate) use handle::Handle;
pub(crate) use worker::{Context, Launch};

use crate::driver::Driver;
use crate::scheduler::{self, Config};

use std::fmt;
use std::future::Future;
use std::sync::Arc;

/// The multi-thread scheduler, owned by the `Runtime`.
pub(crate) struct MultiThread;

impl MultiThread {
    pub(crate) fn new(
        size: usize,
        driver: Driver,
        driver_handle: crate::driver::Handle,
        blocking_spawner: crate::blocking::Spawner,
        config: Config,
        name: Option<String>,
    ) -> (MultiThread, Arc<Handle>, Launch) {
        let (handle, launch) =
            worker::create(size, driver, driver_handle, blocking_spawner, config, name);
        (MultiThread, handle, launch)
    }

    /// Blocks the current thread on `future` (the workers run the tasks).
    #[track_caller]
    pub(crate) fn block_on<F: Future>(&self, handle: &scheduler::Handle, future: F) -> F::Output {
        crate::context::enter_runtime(handle, true, |blocking| {
            blocking.block_on(future).expect("failed to park thread")
        })
    }

    pub(crate) fn shutdown(&mut self, handle: &scheduler::Handle) {
        match handle {
            scheduler::Handle::MultiThread(handle) => handle.shutdown(),
            _ => panic!("expected MultiThread scheduler"),
        }
    }
}

impl fmt::Debug for MultiThread {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("MultiThread").finish()
    }
}
