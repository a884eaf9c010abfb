//! `RngSeed` and `Builder::rng_seed`: a runtime whose random choices
//! (the first branch `select!` polls, the first victim a worker steals
//! from) repeat from one run to the next.
//!
//! tokio has this behind `tokio_unstable`; volt offers it stable.
//!
//! # Protocol
//!
//! The builder holds a generator of seeds (random unless `rng_seed` set
//! one). Building a runtime draws a generator for it; each multi-thread
//! worker draws its stealing generator's seed from that, in worker order.
//! With a seed set by `rng_seed`, each entry into the runtime (`block_on`,
//! and a worker thread's start) draws one seed for the thread's own
//! generator (`context::thread_rng_n`, what `select!` uses) and puts the
//! previous generator back on exit (`context/rt_context.rs`); without one,
//! the thread keeps its own. With a fixed seed, two runtimes built the
//! same way hand out the same sequences to the same entries.

use crate::runtime::Builder;
use crate::util::rand::FastRand;

// A std mutex even under loom: nothing waits while it is held, and loom
// need not explore who draws a seed first.
use std::sync::{Mutex, PoisonError};

/// A seed for random number generation.
///
/// In order to make certain functions within a runtime deterministic, a
/// seed can be specified at the time of creation.
///
/// (tokio has this behind `tokio_unstable`; volt offers it stable.)
///
/// # Examples
///
/// ```
/// use volt_runtime::runtime::{self, RngSeed};
///
/// let seed = RngSeed::from_bytes(b"make me a deterministic runtime");
/// let rt = runtime::Builder::new_current_thread()
///     .rng_seed(seed)
///     .build()
///     .unwrap();
/// # drop(rt);
/// ```
#[derive(Clone, Debug)]
pub struct RngSeed(u64);

impl RngSeed {
    /// A random seed (different in every call and process).
    pub(crate) fn new() -> Self {
        RngSeed(crate::util::rand::seed())
    }

    /// Generates a seed from the provided byte slice.
    ///
    /// The same bytes give the same seed, in every process.
    ///
    /// # Example
    ///
    /// ```
    /// # use volt_runtime::runtime::RngSeed;
    /// let seed = RngSeed::from_bytes(b"make me a seed");
    /// # drop(seed);
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Self {
        // FNV-1a: fixed, unlike std's hashers, which may change between
        // Rust releases.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
        RngSeed(hash)
    }

    /// A generator seeded with this seed.
    pub(crate) fn rng(&self) -> FastRand {
        FastRand::from_seed(self.0)
    }
}

impl Builder {
    /// Specifies the random number generation seed to use within all
    /// threads associated with the runtime being built.
    ///
    /// This option is intended to make certain parts of the runtime
    /// deterministic (e.g. the [`volt::select!`] macro). In the case of
    /// [`volt::select!`] it will ensure that the order that branches are
    /// polled is deterministic.
    ///
    /// In addition to the code specifying `rng_seed` and interacting with
    /// the runtime, the internals of volt and the Rust compiler may affect
    /// the sequences of random numbers. In order to ensure repeatable
    /// results, the version of volt, the versions of all other
    /// dependencies that interact with volt, and the Rust compiler version
    /// should also all remain constant.
    ///
    /// (tokio has this behind `tokio_unstable`; volt offers it stable.)
    ///
    /// # Examples
    ///
    /// ```
    /// # use volt_runtime::runtime::{self, RngSeed};
    /// # pub fn main() {
    /// let seed = RngSeed::from_bytes(b"place your seed here");
    /// let rt = runtime::Builder::new_current_thread()
    ///     .rng_seed(seed)
    ///     .build();
    /// # }
    /// ```
    ///
    /// [`volt::select!`]: https://docs.rs/volt/latest/volt/macro.select.html
    pub fn rng_seed(&mut self, seed: RngSeed) -> &mut Self {
        self.seed_generator = RngSeedGenerator::new(seed);
        self
    }
}

/// Hands out seeds, each different, in an order fixed by its own seed.
pub(crate) struct RngSeedGenerator {
    state: Mutex<FastRand>,
    /// Whether the seed came from `Builder::rng_seed`. Without one, entering
    /// the runtime leaves the thread's generator alone: reseeding it from a
    /// random generator would change nothing anyone can observe, and costs
    /// a lock on every `block_on`.
    fixed: bool,
}

impl RngSeedGenerator {
    pub(crate) fn new(seed: RngSeed) -> Self {
        RngSeedGenerator {
            state: Mutex::new(seed.rng()),
            fixed: true,
        }
    }

    /// The seed for a thread entering the runtime: `None` unless the
    /// builder fixed the seed.
    pub(crate) fn next_entry_seed(&self) -> Option<RngSeed> {
        self.fixed.then(|| self.next_seed())
    }

    /// The next seed.
    pub(crate) fn next_seed(&self) -> RngSeed {
        let mut rng = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let hi = u64::from(rng.fastrand());
        let lo = u64::from(rng.fastrand());
        RngSeed(hi << 32 | lo)
    }

    /// A generator of its own, seeded from the next seed (fixed if this
    /// one is).
    pub(crate) fn next_generator(&self) -> Self {
        RngSeedGenerator {
            fixed: self.fixed,
            ..RngSeedGenerator::new(self.next_seed())
        }
    }
}

impl Default for RngSeedGenerator {
    /// A random seed, not fixed.
    fn default() -> Self {
        RngSeedGenerator {
            fixed: false,
            ..RngSeedGenerator::new(RngSeed::new())
        }
    }
}

impl std::fmt::Debug for RngSeedGenerator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RngSeedGenerator").finish_non_exhaustive()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn the_same_bytes_give_the_same_seeds() {
        let a = RngSeedGenerator::new(RngSeed::from_bytes(b"seed"));
        let b = RngSeedGenerator::new(RngSeed::from_bytes(b"seed"));
        let c = RngSeedGenerator::new(RngSeed::from_bytes(b"other"));
        let (a1, a2) = (a.next_seed().0, a.next_seed().0);
        assert_eq!((a1, a2), (b.next_seed().0, b.next_seed().0));
        assert_ne!(a1, a2);
        assert_ne!(a1, c.next_seed().0);
    }

    #[test]
    fn block_on_puts_the_threads_own_generator_back() {
        let expected: Vec<u32> = {
            let mut rng = FastRand::from_seed(7);
            (0..8).map(|_| rng.fastrand_n(1000)).collect()
        };
        crate::context::set_thread_rng(FastRand::from_seed(7));
        let rt = Builder::new_current_thread()
            .rng_seed(RngSeed::from_bytes(b"seed"))
            .build()
            .unwrap();
        rt.block_on(async { crate::context::thread_rng_n(1000) });
        let after: Vec<u32> = (0..8).map(|_| crate::context::thread_rng_n(1000)).collect();
        assert_eq!(after, expected);
    }

    #[test]
    fn without_a_seed_block_on_keeps_the_threads_generator() {
        let expected: Vec<u32> = {
            let mut rng = FastRand::from_seed(7);
            (0..8).map(|_| rng.fastrand_n(1000)).collect()
        };
        crate::context::set_thread_rng(FastRand::from_seed(7));
        let rt = Builder::new_current_thread().build().unwrap();
        let mut got = vec![rt.block_on(async { crate::context::thread_rng_n(1000) })];
        got.extend((1..8).map(|_| crate::context::thread_rng_n(1000)));
        assert_eq!(got, expected);
    }
}
