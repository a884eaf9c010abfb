//! A lock that spins, then yields: for critical sections of a few dozen
//! instructions, where parking in the kernel never pays off.
//!
//! Users: the small-capacity MPMC flavor (every operation takes its lock)
//! and broadcast's slots (a send replaces a slot's value; a receiver checks
//! the slot's position and clones its value) and tail (a send claims a
//! position; a receiver subscribes or goes). Taking it is one
//! compare-exchange and giving it back one plain store (a `std` mutex
//! gives it back with a swap, to learn whether to wake a parked thread,
//! and checks for poisoning on both sides).
//!
//! A waiter pauses 64 to 191 times (a different count each round, so two
//! waiters do not retry in step), then tries the lock 8 times back to
//! back, doubling the tries each round; after 16 rounds it also yields its
//! thread, so a preempted holder gets the CPU back (kanal's schedule;
//! `benches/NOTES.md`, "Capacities 1 to 4: the small flavor", has why).
//! Nothing is ever held across an `await` or a waker call. Under loom this
//! is loom's `Mutex`, so the models explore every interleaving of the
//! critical sections.

#[cfg(not(loom))]
pub(crate) use spin::SpinLock;

#[cfg(loom)]
pub(crate) use crate::bridge::loom::sync::Mutex as SpinLock;

#[cfg(not(loom))]
mod spin {
    use std::cell::UnsafeCell;
    use std::ops::{Deref, DerefMut};
    use std::sync::atomic::{AtomicBool, Ordering::*};

    /// A lock that spins, then yields (module docs).
    pub(crate) struct SpinLock<T> {
        locked: AtomicBool,
        value: UnsafeCell<T>,
    }

    // SAFETY: the value is reached only through a guard, and one guard at a
    // time exists (the `locked` flag); `T: Send` lets it move between the
    // threads that take the lock.
    unsafe impl<T: Send> Sync for SpinLock<T> {}

    /// Holds a [`SpinLock`]; unlocks on drop.
    pub(crate) struct Guard<'a, T> {
        lock: &'a SpinLock<T>,
    }

    /// Back-to-back attempts after the first pause, doubling each round.
    const FIRST_TRIES: u32 = 8;
    const MAX_TRIES: u32 = 1 << 10;
    /// Rounds of pauses and attempts before a waiter also yields its thread.
    const YIELD_AFTER: u32 = 16;

    impl<T> SpinLock<T> {
        pub(crate) fn new(value: T) -> Self {
            SpinLock {
                locked: AtomicBool::new(false),
                value: UnsafeCell::new(value),
            }
        }

        #[inline]
        pub(crate) fn lock(&self) -> Guard<'_, T> {
            // Acquire: everything the last holder did is visible to us.
            if self
                .locked
                .compare_exchange_weak(false, true, Acquire, Relaxed)
                .is_err()
            {
                self.lock_contended();
            }
            Guard { lock: self }
        }

        #[cold]
        fn lock_contended(&self) {
            let try_lock = || {
                // Acquire: as in `lock`.
                self.locked
                    .compare_exchange(false, true, Acquire, Relaxed)
                    .is_ok()
            };
            // A seed for the pause counts, different per waiter and round.
            let mut seed = (self as *const Self as usize as u32) | 1;
            let mut tries = FIRST_TRIES;
            for round in 0.. {
                // xorshift: 64 to 191 pauses, so two waiters do not retry
                // in step.
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                // Miri interprets every pause and schedules the holder on
                // its own: one is enough there.
                let pauses = if cfg!(miri) { 1 } else { 64 + (seed >> 25) };
                for _ in 0..pauses {
                    std::hint::spin_loop();
                }
                for _ in 0..tries {
                    if try_lock() {
                        return;
                    }
                }
                tries = (tries * 2).min(MAX_TRIES);
                if round >= YIELD_AFTER {
                    // The holder may have been preempted: give it the CPU.
                    std::thread::yield_now();
                }
            }
        }

        pub(crate) fn get_mut(&mut self) -> &mut T {
            self.value.get_mut()
        }
    }

    impl<T> Deref for Guard<'_, T> {
        type Target = T;

        fn deref(&self) -> &T {
            // SAFETY: we hold the lock: no other guard exists.
            unsafe { &*self.lock.value.get() }
        }
    }

    impl<T> DerefMut for Guard<'_, T> {
        fn deref_mut(&mut self) -> &mut T {
            // SAFETY: as in `deref`, and `&mut self` is unique.
            unsafe { &mut *self.lock.value.get() }
        }
    }

    impl<T> Drop for Guard<'_, T> {
        fn drop(&mut self) {
            // Release: the next holder sees what we did.
            self.lock.locked.store(false, Release);
        }
    }
}
