//! Exponential backoff for the short spin windows of the data path.
//!
//! The lock-free queues spin only while another thread is between two
//! steps of its own operation (a claimed but not yet published slot, a
//! block being installed). `spin` backs off a contended CAS; `snooze` waits
//! for the other thread, yielding the CPU after a few rounds so a
//! preempted peer can finish. Under loom every round yields, so the model
//! checker can schedule the peer.

use crate::bridge::loom;

const SPIN_LIMIT: u32 = 6;
const YIELD_LIMIT: u32 = 10;

pub(crate) struct Backoff {
    step: u32,
}

impl Backoff {
    pub(crate) fn new() -> Self {
        Backoff { step: 0 }
    }

    /// After a failed CAS: spin a little, more each time.
    #[inline]
    pub(crate) fn spin(&mut self) {
        for _ in 0..1u32 << self.step.min(SPIN_LIMIT) {
            loom::spin_loop();
        }
        if self.step <= SPIN_LIMIT {
            self.step += 1;
        }
    }

    /// While waiting for another thread to finish a step.
    #[inline]
    pub(crate) fn snooze(&mut self) {
        if self.step <= SPIN_LIMIT {
            for _ in 0..1u32 << self.step {
                loom::spin_loop();
            }
        } else {
            loom::thread::yield_now();
        }
        if self.step <= YIELD_LIMIT {
            self.step += 1;
        }
    }
}
