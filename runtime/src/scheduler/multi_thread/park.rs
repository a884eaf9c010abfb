//! How an idle worker sleeps, and how others wake it.
//!
//! Every worker has a `Parker`; the workers share one `Driver` behind a
//! try-lock. A worker that parks either grabs the driver and sleeps in it
//! (so timers and I/O are processed by some sleeping worker) or, if another
//! worker holds the driver, sleeps on its own condvar.
//!
//! # State
//!
//! `EMPTY`, `PARKED_CONDVAR`, `PARKED_DRIVER`, `NOTIFIED`.
//!
//! * `unpark` swaps in `NOTIFIED` and then wakes whatever the worker was
//!   parked on: the condvar (after taking its mutex, so the notify cannot
//!   slip between the parker's state change and its wait) or the driver.
//! * `park` consumes a pending `NOTIFIED` without sleeping (spinning briefly
//!   first, since a notification often follows closely); otherwise it moves
//!   `EMPTY -> PARKED_*` and sleeps until `NOTIFIED`.

use crate::driver::{self, Driver};
use crate::loom::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use crate::loom::sync::{Arc, Condvar, Mutex};

use std::time::Duration;

pub(crate) struct Parker {
    inner: Arc<Inner>,
}

pub(crate) struct Unparker {
    inner: Arc<Inner>,
}

struct Inner {
    state: AtomicUsize,
    mutex: Mutex<()>,
    condvar: Condvar,
    shared: Arc<Shared>,
}

const EMPTY: usize = 0;
const PARKED_CONDVAR: usize = 1;
const PARKED_DRIVER: usize = 2;
const NOTIFIED: usize = 3;

/// State shared by every worker's parker.
struct Shared {
    /// The driver; whoever holds the lock sleeps in it.
    driver: Mutex<Driver>,
}

impl Parker {
    pub(crate) fn new(driver: Driver) -> Parker {
        Parker {
            inner: Arc::new(Inner {
                state: AtomicUsize::new(EMPTY),
                mutex: Mutex::new(()),
                condvar: Condvar::new(),
                shared: Arc::new(Shared {
                    driver: Mutex::new(driver),
                }),
            }),
        }
    }

    /// Another worker's parker sharing this one's driver.
    pub(crate) fn sibling(&self) -> Parker {
        Parker {
            inner: Arc::new(Inner {
                state: AtomicUsize::new(EMPTY),
                mutex: Mutex::new(()),
                condvar: Condvar::new(),
                shared: self.inner.shared.clone(),
            }),
        }
    }

    pub(crate) fn unpark(&self) -> Unparker {
        Unparker {
            inner: self.inner.clone(),
        }
    }

    /// Sleeps until unparked; returns whether it slept in the driver.
    pub(crate) fn park(&mut self, handle: &driver::Handle) -> bool {
        self.inner.park(handle)
    }

    /// Processes driver events without sleeping (if the driver is free).
    /// Returns whether it got the driver.
    pub(crate) fn park_timeout(&mut self, handle: &driver::Handle, duration: Duration) -> bool {
        // Only zero timeouts: used by maintenance to run the driver.
        assert_eq!(duration, Duration::ZERO);
        if let Some(mut driver) = self.inner.shared.driver.try_lock() {
            driver.park_timeout(handle, duration);
            true
        } else {
            // The driver is busy elsewhere.
            false
        }
    }

    pub(crate) fn shutdown(&mut self, handle: &driver::Handle) {
        self.inner.shutdown(handle);
    }
}

impl Unparker {
    pub(crate) fn unpark(&self, driver: &driver::Handle) {
        self.inner.unpark(driver);
    }
}

impl Inner {
    fn park(&self, handle: &driver::Handle) -> bool {
        // A notification often arrives right after we decided to park:
        // spin a little before sleeping.
        for _ in 0..3 {
            if self
                .state
                .compare_exchange(NOTIFIED, EMPTY, SeqCst, SeqCst)
                .is_ok()
            {
                return false;
            }
            crate::loom::spin_loop();
        }
        if let Some(mut driver) = self.shared.driver.try_lock() {
            self.park_driver(&mut driver, handle)
        } else {
            self.park_condvar();
            false
        }
    }

    fn park_condvar(&self) {
        let mut m = self.mutex.lock();
        match self
            .state
            .compare_exchange(EMPTY, PARKED_CONDVAR, SeqCst, SeqCst)
        {
            Ok(_) => {}
            Err(NOTIFIED) => {
                // Notified while we took the lock: consume and return.
                let old = self.state.swap(EMPTY, SeqCst);
                debug_assert_eq!(old, NOTIFIED, "park state changed unexpectedly");
                return;
            }
            Err(actual) => panic!("inconsistent park state; actual = {actual}"),
        }
        loop {
            m = self.condvar.wait(m);
            if self
                .state
                .compare_exchange(NOTIFIED, EMPTY, SeqCst, SeqCst)
                .is_ok()
            {
                return;
            }
            // Spurious wake-up: sleep again.
        }
    }

    /// Returns whether it slept in the driver (not if already notified).
    fn park_driver(&self, driver: &mut Driver, handle: &driver::Handle) -> bool {
        match self
            .state
            .compare_exchange(EMPTY, PARKED_DRIVER, SeqCst, SeqCst)
        {
            Ok(_) => {}
            Err(NOTIFIED) => {
                let old = self.state.swap(EMPTY, SeqCst);
                debug_assert_eq!(old, NOTIFIED, "park state changed unexpectedly");
                return false;
            }
            Err(actual) => panic!("inconsistent park state; actual = {actual}"),
        }
        driver.park(handle);
        match self.state.swap(EMPTY, SeqCst) {
            // Got a notification, or woke for driver events.
            NOTIFIED | PARKED_DRIVER => {}
            n => panic!("inconsistent park_timeout state: {n}"),
        }
        true
    }

    fn unpark(&self, driver: &driver::Handle) {
        match self.state.swap(NOTIFIED, SeqCst) {
            EMPTY | NOTIFIED => {}
            PARKED_CONDVAR => {
                // Order the notify after the parker's wait (module docs).
                drop(self.mutex.lock());
                self.condvar.notify_one();
            }
            PARKED_DRIVER => driver.unpark(),
            actual => panic!("inconsistent state in unpark; actual = {actual}"),
        }
    }

    fn shutdown(&self, handle: &driver::Handle) {
        if let Some(mut driver) = self.shared.driver.try_lock() {
            driver.shutdown(handle);
        }
        self.condvar.notify_all();
    }
}
