//! A fixed-capacity batch of wakers, woken after a lock is released.
//!
//! Code that finds waiters to wake while it holds a lock (a semaphore's
//! waiter list, a channel's receiver list, the blocking pool) must not call
//! `Waker::wake` under that lock: the wake may run arbitrary code (another
//! executor's waker, a waker that drops the last reference of a task whose
//! drop takes the same lock...). It pushes the wakers here instead, releases
//! the lock, and calls [`WakeList::wake_all`]. When the list is full the
//! caller releases the lock, wakes the batch and re-locks.
//!
//! Wakers that were pushed but never woken are dropped with the list (again
//! after the lock, since the list lives on the caller's stack).

use std::fmt;
use std::mem::MaybeUninit;
use std::task::Waker;

/// How many wakers one batch holds.
pub const NUM_WAKERS: usize = 32;

/// A batch of up to [`NUM_WAKERS`] wakers (no allocation).
pub struct WakeList {
    inner: [MaybeUninit<Waker>; NUM_WAKERS],
    curr: usize,
}

impl WakeList {
    /// An empty batch.
    #[inline]
    pub const fn new() -> Self {
        WakeList {
            inner: [const { MaybeUninit::uninit() }; NUM_WAKERS],
            curr: 0,
        }
    }

    /// Whether another waker fits.
    #[inline]
    pub fn can_push(&self) -> bool {
        self.curr < NUM_WAKERS
    }

    /// Number of wakers held.
    #[inline]
    pub fn len(&self) -> usize {
        self.curr
    }

    /// Whether the batch is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.curr == 0
    }

    /// Adds a waker.
    ///
    /// # Panics
    /// If the batch is full (check [`can_push`](Self::can_push) first).
    #[inline]
    #[track_caller]
    pub fn push(&mut self, waker: Waker) {
        assert!(self.curr < NUM_WAKERS, "WakeList is full");
        self.inner[self.curr].write(waker);
        self.curr += 1;
    }

    /// Wakes every waker in the batch and empties it.
    ///
    /// If a waker panics, the ones not yet woken are still dropped (by the
    /// guard) and the panic continues.
    pub fn wake_all(&mut self) {
        struct Guard<'a> {
            list: &'a mut WakeList,
            start: usize,
        }
        impl Drop for Guard<'_> {
            fn drop(&mut self) {
                let end = self.list.curr;
                self.list.curr = 0;
                for slot in &mut self.list.inner[self.start..end] {
                    // SAFETY: slots `start..end` hold initialized wakers that
                    // nobody else will read (`curr` is already reset).
                    unsafe { slot.assume_init_drop() };
                }
            }
        }
        let mut guard = Guard {
            list: self,
            start: 0,
        };
        while guard.start < guard.list.curr {
            let i = guard.start;
            guard.start += 1;
            // SAFETY: slot `i < curr` is initialized; advancing `start` first
            // hands ownership to this read, so the guard won't drop it again.
            let waker = unsafe { guard.list.inner[i].assume_init_read() };
            waker.wake();
        }
    }
}

impl Default for WakeList {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for WakeList {
    fn drop(&mut self) {
        for slot in &mut self.inner[..self.curr] {
            // SAFETY: slots `..curr` hold initialized wakers.
            unsafe { slot.assume_init_drop() };
        }
    }
}

impl fmt::Debug for WakeList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WakeList").field("len", &self.curr).finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::util::test_waker::Count as Counter;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn wakes_each_once_and_drops_the_rest() {
        let counter = Arc::new(Counter(AtomicUsize::new(0)));
        let mut list = WakeList::new();
        while list.can_push() {
            list.push(Waker::from(counter.clone()));
        }
        assert_eq!(list.len(), NUM_WAKERS);
        list.wake_all();
        assert!(list.is_empty());
        assert_eq!(counter.0.load(Ordering::SeqCst), NUM_WAKERS);
        list.push(Waker::from(counter.clone()));
        drop(list);
        assert_eq!(Arc::strong_count(&counter), 1, "unwoken waker dropped");
    }
}
