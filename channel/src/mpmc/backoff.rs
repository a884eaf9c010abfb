//! Exponential backoff for the spin windows of the data path.
//!
//! The lock-free queues spin only while another thread is between two
//! steps of its own operation (a claimed but not yet published slot, a
//! block being installed). `spin` backs off a contended CAS (and, in
//! large rings, a wait at the full or empty boundary; small rings use
//! `spin_short` there, see below); `snooze` waits for the other thread, yielding the CPU
//! after a few rounds so a preempted peer can finish. Under loom every
//! round is one yield, so the model checker can schedule the peer without
//! exploring useless spins.
//!
//! A failed CAS on `head` or `tail` means another core is claiming
//! positions right now. Retrying at once mostly steals the cache line back
//! in the middle of the winner's next claim; staying away long enough for
//! it to finish several claims lets one core at a time work on a line it
//! owns (on the 2-core bench machine, 4p4c bounded(1024): no wait 880 us,
//! 1 to 64 `pause`s 590 us, 16 to 64 425 us). How long is long enough
//! grows with the number of cores that contend: on the 2-core machine
//! every wait from 16 to 256 `pause`s gave the same times, but on a
//! 16-core machine (Intel Xeon, a `pause` about 20 ns there as here),
//! with 16 workers, 20,000 messages, medians of 3 x 30 runs, 16 to 64
//! `pause`s against 128 to 256:
//!
//! | shape, bounded(1024) | 16 to 64 | 128 to 256 |
//! |----------------------|---------:|-----------:|
//! | 2p2c                 | 1,005 us |     596 us |
//! | 4p4c                 | 1,993 us |     742 us |
//! | 16p16c               | 7,284 us |   1,532 us |
//! | 64p64c               | 6,941 us |   2,303 us |
//!
//! Longer waits still (512 `pause`s) were faster again at 16p16c but cost
//! a thread that lost one race 10 us here, and several times that where a
//! `pause` is slower, so the cap stays at 256. With real work between the
//! operations (about 100 ns each) the longer waits were no slower.
//! `bounded(1)` and `unbounded` did not change.
//!
//! The ring's other wait, at the full or empty boundary (a peer has
//! claimed the boundary slot and not finished with it), uses these long
//! waits in large rings and `spin_short` (1 to 64 `pause`s) in rings of
//! 2 to `SHORT_WAIT_MAX_CAP` slots. A small ring is at its boundary on
//! nearly every operation and the peer's step is a few instructions, so
//! a long wait only idles the waiter; in a large ring the boundary means
//! many threads pile up there, and long waits keep them off the lines the
//! peer needs. Same machine, 16 workers, p50 of 2 x 20 runs, long / short:
//!
//! | capacity | 4p4c            | 16p16c            |
//! |---------:|----------------:|------------------:|
//! |        2 | 12,811 / 9,824  | 14,104 / 10,942   |
//! |        3 | 9,283 / 4,979   | 10,632 / 6,594    |
//! |        8 | 4,273 / 3,325   | 5,297 / 4,955     |
//! |       16 | 2,753 / 2,634   | 3,575 / 3,654     |
//! |       32 | 1,927 / 2,181   | 2,517 / 4,244     |
//! |     1024 | 795 / 1,370     | 1,755 / 3,197     |
//!
//! (us per 20,000 messages, first pass; the second agreed.) The first
//! wait of the short schedule made no difference from 1 to 16 `pause`s.
//! On the 2-core VM capacities 2 to 8 were the same or faster (16p16c,
//! 3 x 30 runs, p50: capacity 2 2,571-3,125 -> 2,520-2,842 us). A
//! one-slot ring keeps the long waits: there the short ones cost 16p16c
//! 15% on the 2-core VM (3.3 -> 3.8-3.9 ms, three runs of 30) and gained
//! nothing reliable at 4p4c on 16 cores (5.3 -> 6.6 and 6.6 -> 6.2 ms).

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
        let rounds = if cfg!(loom) {
            1
        } else {
            1u32 << (self.step + first).min(limit)
        };
        for _ in 0..rounds {
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
