//! A small, fast, non-cryptographic random number generator (xorshift64+
//! variant on two 32-bit words), used to pick steal victims and the first
//! branch of `select!`.

/// Fast pseudo-random numbers; one per thread or per worker.
#[derive(Clone, Copy, Debug)]
pub struct FastRand {
    one: u32,
    two: u32,
}

impl FastRand {
    /// A generator seeded from `seed`.
    pub fn from_seed(seed: u64) -> FastRand {
        let one = (seed >> 32) as u32;
        let mut two = seed as u32;
        if two == 0 {
            // The generator must not start from all zeroes.
            two = 1;
        }
        FastRand { one, two }
    }

    /// A generator seeded from the process' hash randomness and a counter.
    pub fn new() -> FastRand {
        FastRand::from_seed(seed())
    }

    /// A number in `0..n` (`n > 0`), with Lemire's multiply-shift reduction.
    #[inline]
    pub fn fastrand_n(&mut self, n: u32) -> u32 {
        let mul = (self.fastrand() as u64).wrapping_mul(n as u64);
        (mul >> 32) as u32
    }

    /// A random 32-bit number.
    #[inline]
    pub fn fastrand(&mut self) -> u32 {
        let mut s1 = self.one;
        let s0 = self.two;
        s1 ^= s1 << 17;
        s1 = s1 ^ s0 ^ (s1 >> 7) ^ (s0 >> 16);
        self.one = s0;
        self.two = s1;
        s0.wrapping_add(s1)
    }
}

impl Default for FastRand {
    fn default() -> Self {
        Self::new()
    }
}

/// A seed that differs between calls and processes.
pub fn seed() -> u64 {
    use std::collections::hash_map::RandomState;
    use std::hash::BuildHasher;
    use std::sync::atomic::{AtomicU64, Ordering};

    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // `RandomState` is randomly keyed per process; hashing a counter through
    // it gives distinct, unpredictable seeds.
    RandomState::new().hash_one(COUNTER.fetch_add(1, Ordering::Relaxed))
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn stays_in_range_and_varies() {
        let mut rng = FastRand::from_seed(42);
        let mut seen = [false; 7];
        for _ in 0..1000 {
            let n = rng.fastrand_n(7);
            seen[n as usize] = true;
        }
        assert!(seen.iter().all(|s| *s));
    }
}
