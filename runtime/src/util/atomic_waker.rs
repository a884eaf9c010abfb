//! A waker slot that one task registers in and any thread wakes, without a
//! lock.
//!
//! # Protocol
//!
//! `state` is a small bit set:
//!
//! * `REGISTERING`: the registrant is writing the waker field.
//! * `WAKING`: a waker is taking the waker field out.
//!
//! Exactly one side owns the field at a time:
//!
//! * `register` moves `0 -> REGISTERING` (it owns the field), writes the
//!   waker, then moves `REGISTERING -> 0`. If that last step fails, a
//!   `wake` arrived meanwhile (it set `WAKING` and backed off): the
//!   registrant takes the waker back out and wakes it itself.
//! * `wake` sets `WAKING` with `fetch_or`. If the state was `0`, it owns the
//!   field: it takes the waker, clears `WAKING` and wakes it. Otherwise the
//!   registrant (or another waker) is in charge, and this call is done: the
//!   wake-up is not lost because the registrant sees `WAKING`.
//!
//! A `register` that finds `WAKING` (a wake in progress) wakes the new waker
//! at once: the caller's future will be polled again.
//!
//! Only one thread may call `register` at a time (the task owning the
//! slot); any number may call `wake`.

use crate::loom::cell::UnsafeCell;
use crate::loom::sync::atomic::{AtomicUsize, Ordering::*};

use crate::util::waker_slot::WakerSlot;
use std::fmt;
use std::task::Waker;

const WAITING: usize = 0;
const REGISTERING: usize = 0b01;
const WAKING: usize = 0b10;

/// A lock-free waker cell (see the module docs).
pub struct AtomicWaker {
    state: AtomicUsize,
    // A `WakerSlot`, not an `Option<Waker>`: futures embed an
    // `AtomicWaker` and are moved while it is empty (see `waker_slot`).
    waker: UnsafeCell<WakerSlot>,
}

// SAFETY: the waker field is only touched by the side that owns it per the
// state protocol; `Waker` is `Send + Sync`.
unsafe impl Send for AtomicWaker {}
// SAFETY: as above.
unsafe impl Sync for AtomicWaker {}

impl AtomicWaker {
    /// An empty slot.
    #[cfg(not(loom))]
    pub const fn new() -> AtomicWaker {
        AtomicWaker {
            state: AtomicUsize::new(WAITING),
            waker: UnsafeCell::new(WakerSlot::new()),
        }
    }

    /// An empty slot.
    #[cfg(loom)]
    pub fn new() -> AtomicWaker {
        AtomicWaker {
            state: AtomicUsize::new(WAITING),
            waker: UnsafeCell::new(WakerSlot::new()),
        }
    }

    /// Stores `waker` to be woken by the next [`wake`](Self::wake). Only one
    /// thread may register at a time.
    pub fn register_by_ref(&self, waker: &Waker) {
        // Acquire: see the waker field as the last owner left it.
        match self
            .state
            .compare_exchange(WAITING, REGISTERING, Acquire, Acquire)
        {
            Ok(_) => {
                // We own the field.
                let old = self.waker.with_mut(|ptr| {
                    // SAFETY: REGISTERING gives us exclusive access to the
                    // field (module docs).
                    unsafe { (*ptr).register(waker) }
                });
                // AcqRel: Release publishes the waker to the next `wake`.
                match self
                    .state
                    .compare_exchange(REGISTERING, WAITING, AcqRel, Acquire)
                {
                    Ok(_) => drop(old),
                    Err(actual) => {
                        // A wake came in while we wrote: it left the waker
                        // to us. Take it and wake it.
                        debug_assert_eq!(actual, REGISTERING | WAKING);
                        let waker = self.waker.with_mut(|ptr| {
                            // SAFETY: still REGISTERING: the field is ours.
                            unsafe { (*ptr).take() }
                        });
                        // AcqRel: the next owner sees the emptied field.
                        self.state.swap(WAITING, AcqRel);
                        drop(old);
                        if let Some(waker) = waker {
                            waker.wake();
                        }
                    }
                }
            }
            Err(WAKING) => {
                // A wake is taking the old waker right now: it would miss
                // this one, so wake it ourselves.
                waker.wake_by_ref();
                crate::loom::spin_loop();
            }
            Err(state) => {
                // Concurrent `register` calls break the contract.
                debug_assert!(state == REGISTERING || state == REGISTERING | WAKING);
            }
        }
    }

    /// Wakes the registered waker, if any.
    pub fn wake(&self) {
        if let Some(waker) = self.take() {
            waker.wake();
        }
    }

    /// Takes the registered waker out, if the slot is not being written.
    pub fn take(&self) -> Option<Waker> {
        // AcqRel: Acquire sees the registrant's waker; Release tells a
        // registrant in progress that a wake happened.
        match self.state.fetch_or(WAKING, AcqRel) {
            WAITING => {
                let waker = self.waker.with_mut(|ptr| {
                    // SAFETY: we moved WAITING -> WAKING: the field is ours.
                    unsafe { (*ptr).take() }
                });
                // Release: hand the field back.
                self.state.fetch_and(!WAKING, Release);
                waker
            }
            // A registrant or another waker is in charge (module docs).
            _ => None,
        }
    }
}

impl Default for AtomicWaker {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for AtomicWaker {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(fmt, "AtomicWaker")
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::util::test_waker::Count;
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize as StdAtomic;

    #[test]
    fn wakes_the_last_registered_waker_once() {
        let (a, b) = (
            Arc::new(Count(StdAtomic::new(0))),
            Arc::new(Count(StdAtomic::new(0))),
        );
        let slot = AtomicWaker::new();
        slot.wake();
        slot.register_by_ref(&Waker::from(a.clone()));
        slot.register_by_ref(&Waker::from(b.clone()));
        slot.wake();
        slot.wake();
        assert_eq!(a.0.load(SeqCst), 0);
        assert_eq!(b.0.load(SeqCst), 1);
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::loom::sync::Arc;
    use crate::loom::sync::atomic::AtomicBool;
    use loom::future::block_on;
    use std::future::poll_fn;
    use std::task::Poll;

    /// A flag set on one thread is seen by a task waiting on another: the
    /// wake-up racing the registration is never lost.
    #[test]
    fn wake_racing_register_is_not_lost() {
        loom::model(|| {
            let slot = Arc::new(AtomicWaker::new());
            let flag = Arc::new(AtomicBool::new(false));
            let (s, f) = (slot.clone(), flag.clone());
            let th = loom::thread::spawn(move || {
                f.store(true, SeqCst);
                s.wake();
            });
            block_on(poll_fn(|cx| {
                slot.register_by_ref(cx.waker());
                if flag.load(SeqCst) {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                }
            }));
            th.join().unwrap();
        });
    }
}
