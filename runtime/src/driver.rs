//! The resource driver a scheduler parks on.
//!
//! A worker with nothing to run parks "on the driver": the driver is where
//! timers and I/O readiness will be processed (issues for `volt::time` and
//! `volt::net` plug them in here), and its `Handle::unpark` is how other
//! threads wake a parked worker. Today the driver is a thread parker: it
//! sleeps until unparked or until the timeout passes.
//!
//! Exactly one thread at a time owns the `Driver` (the current-thread
//! scheduler's core, or the one multi-thread worker that grabbed it when it
//! parked); the `Handle` is shared.

use crate::park::{ParkThread, UnparkThread};

use std::io;
use std::time::Duration;

/// What the runtime was built with (read by the time and I/O drivers once
/// they exist; the builder already accepts the settings).
#[allow(dead_code)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cfg {
    pub(crate) enable_io: bool,
    pub(crate) enable_time: bool,
    pub(crate) start_paused: bool,
}

#[derive(Debug)]
pub(crate) struct Driver {
    park: ParkThread,
}

#[derive(Debug)]
pub(crate) struct Handle {
    unpark: UnparkThread,
    #[allow(dead_code)]
    cfg: Cfg,
}

impl Driver {
    pub(crate) fn new(cfg: Cfg) -> io::Result<(Driver, Handle)> {
        let park = ParkThread::new();
        let unpark = park.unpark();
        Ok((Driver { park }, Handle { unpark, cfg }))
    }

    /// Sleeps until unparked.
    pub(crate) fn park(&mut self, _handle: &Handle) {
        self.park.park();
    }

    /// Processes ready events and sleeps at most `duration` (zero: only
    /// process what is ready).
    pub(crate) fn park_timeout(&mut self, _handle: &Handle, duration: Duration) {
        self.park.park_timeout(duration);
    }

    /// Wakes everything parked on the driver for good.
    pub(crate) fn shutdown(&mut self, _handle: &Handle) {
        self.park.shutdown();
    }
}

impl Handle {
    /// Wakes the thread parked on the driver (or makes its next park return
    /// at once).
    pub(crate) fn unpark(&self) {
        self.unpark.unpark();
    }
}
