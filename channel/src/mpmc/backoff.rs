//! Exponential backoff for the spin windows of the data path.
//!
//! The lock-free queues spin only while another thread is between two
//! steps of its own operation (a claimed but not yet published slot, a
//! block being installed). `spin` backs off a contended CAS (and, in
//! large rings, a wait at the full or empty boundary; small rings use
//! `spin_short` there, see below); `snooze` waits for the other thread, yielding the CPU
//! after a few rounds so a preempted peer can finish. Under loom (where a
//! spin hint is a yield) and Miri (which interprets every round and
//! schedules the peer on its own) every wait is one round: the checker
//! gets to the peer without exploring or interpreting useless spins.
//!
//! A failed CAS on `head` or `tail` means another core is claiming
//! positions right now: retrying at once mostly steals the cache line back
//! in the middle of the winner's next claim, so the loser stays away long
//! enough (128, then 256 `pause`s) for the winner to finish several claims.
//! At the ring's full or empty boundary, rings of 2 to
//! `SHORT_WAIT_MAX_CAP` slots wait with `spin_short` (1 to 64 `pause`s):
//! the peer's step there is a few instructions. The measurements behind
//! these numbers are in `benches/NOTES.md`, "Channel: backoff".

use crate::bridge::loom;

/// The first failed CAS spins `1 << SPIN_FIRST` rounds (module docs).
const SPIN_FIRST: u32 = 7;
/// A failed CAS spins at most `1 << SPIN_LIMIT` rounds.
const SPIN_LIMIT: u32 = 8;
/// Rings of 2 up to this many slots wait at their boundary with
/// `spin_short` (module docs).
pub(crate) const SHORT_WAIT_MAX_CAP: usize = 8;
/// `spin_short` spins at most `1 << SHORT_LIMIT` rounds.
const SHORT_LIMIT: u32 = 6;
/// `snooze` spins at most `1 << SNOOZE_LIMIT` rounds, then yields.
const SNOOZE_LIMIT: u32 = 6;
const YIELD_LIMIT: u32 = 10;

pub(crate) struct Backoff {
    step: u32,
}

impl Backoff {
    pub(crate) fn new() -> Self {
        Backoff { step: 0 }
    }

    /// After a failed CAS: let the winner go on for a while, longer each
    /// time (128, then 256 rounds).
    #[inline]
    pub(crate) fn spin(&mut self) {
        self.spin_growing(SPIN_FIRST, SPIN_LIMIT);
    }

    /// At a small ring's boundary: the peer's step is short, so look
    /// again soon (1, 2, 4, ... 64 rounds).
    #[inline]
    pub(crate) fn spin_short(&mut self) {
        self.spin_growing(0, SHORT_LIMIT);
    }

    /// Spins `1 << (step + first)` rounds, at most `1 << limit`.
    #[inline]
    fn spin_growing(&mut self, first: u32, limit: u32) {
        for _ in 0..rounds(1u32 << (self.step + first).min(limit)) {
            loom::spin_loop();
        }
        if self.step <= limit {
            self.step += 1;
        }
    }

    /// While waiting for another thread to finish a step.
    #[inline]
    pub(crate) fn snooze(&mut self) {
        if self.step <= SNOOZE_LIMIT {
            for _ in 0..rounds(1u32 << self.step) {
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

/// `n` spin rounds, or one under loom and Miri (module docs).
#[inline]
fn rounds(n: u32) -> u32 {
    if cfg!(any(loom, miri)) { 1 } else { n }
}
