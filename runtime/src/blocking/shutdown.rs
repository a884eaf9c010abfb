//! Waiting for the pool's threads at shutdown.
//!
//! Every pool thread holds a [`Sender`]; the pool holds the [`Receiver`].
//! Dropping the last sender (the last thread exits) releases the receiver.
//! The receiver can wait with a timeout (`Runtime::shutdown_timeout`).

use crate::loom::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug)]
struct Shared {
    live: Mutex<usize>,
    condvar: Condvar,
}

#[derive(Debug)]
pub(crate) struct Sender {
    shared: Arc<Shared>,
}

#[derive(Debug)]
pub(crate) struct Receiver {
    shared: Arc<Shared>,
}

pub(crate) fn channel() -> (Sender, Receiver) {
    let shared = Arc::new(Shared {
        live: Mutex::new(1),
        condvar: Condvar::new(),
    });
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver { shared },
    )
}

impl Clone for Sender {
    fn clone(&self) -> Sender {
        *self.shared.live.lock() += 1;
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl Drop for Sender {
    fn drop(&mut self) {
        let mut live = self.shared.live.lock();
        *live -= 1;
        if *live == 0 {
            self.shared.condvar.notify_all();
        }
    }
}

impl Receiver {
    /// Blocks until every sender is gone, or `timeout` passed. Returns `true`
    /// if every sender is gone.
    ///
    /// # Panics
    /// With tokio's message if called where blocking is not allowed (inside
    /// an asynchronous context) and `timeout` is not zero.
    #[track_caller]
    pub(crate) fn wait(&mut self, timeout: Option<Duration>) -> bool {
        if timeout == Some(Duration::ZERO) {
            return *self.shared.live.lock() == 0;
        }
        if crate::context::try_enter_blocking_region().is_none() {
            if std::thread::panicking() {
                // Don't panic in a panic.
                return false;
            }
            panic!(
                "Cannot drop a runtime in a context where blocking is not allowed. \
                 This happens when a runtime is dropped from within an asynchronous context."
            );
        }
        // A timeout too long to add (`Duration::MAX`) waits for good.
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let mut live = self.shared.live.lock();
        while *live > 0 {
            match deadline {
                None => live = self.shared.condvar.wait(live),
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return false;
                    }
                    live = self.shared.condvar.wait_timeout(live, deadline - now).0;
                }
            }
        }
        true
    }
}
