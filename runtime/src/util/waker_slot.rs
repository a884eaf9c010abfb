//! [`WakerSlot`]: an `Option<Waker>` whose empty state has every byte
//! defined.
//!
//! Futures that embed a waiter (a channel's `send`/`recv`, a `Sleep`'s
//! timer entry) are built empty and then moved, often twice, into their
//! caller's state, and nearly all of them finish without ever storing a
//! waker. `Option<Waker>::None` writes only the vtable word and leaves the
//! data word undefined; copying a struct that is partly undefined let the
//! compiler split the move into odd-sized pieces that re-read bytes just
//! written, and each such read stalls on store forwarding (perf annotate:
//! about 20 ns per channel operation, more than the channel's ring). A
//! `WakerSlot` is a flag plus a zeroed `MaybeUninit<Waker>`: the same
//! `Option`, fully defined, moved with plain word copies. The flag is a
//! whole word, not a `bool`: a `bool` left seven bytes of padding, and
//! padding is undefined too (a `Sleep`'s copy was again split into
//! odd-sized pieces around it).
//!
//! The flag says whether `waker` holds a value; only `replace` sets it and
//! only `take` clears it (moving the value out exactly once), so the value
//! is dropped exactly once: by `take`'s caller or by `Drop`.

use std::fmt;
use std::mem::MaybeUninit;
use std::task::Waker;

const EMPTY: usize = 0;
const SET: usize = 1;

/// An `Option<Waker>` with a fully defined empty state (module docs).
pub struct WakerSlot {
    /// `SET` or `EMPTY`; a word so that the slot has no padding.
    set: usize,
    waker: MaybeUninit<Waker>,
}

impl WakerSlot {
    /// An empty slot.
    pub const fn new() -> WakerSlot {
        WakerSlot {
            set: EMPTY,
            // Zeroed, not uninit: defined bytes are the point (module docs).
            waker: MaybeUninit::zeroed(),
        }
    }

    /// The stored waker, if any.
    #[inline]
    pub fn get(&self) -> Option<&Waker> {
        // SAFETY: `set` says `waker` holds a value.
        (self.set == SET).then(|| unsafe { self.waker.assume_init_ref() })
    }

    /// Takes the stored waker out, leaving the slot empty.
    #[inline]
    pub fn take(&mut self) -> Option<Waker> {
        if self.set == EMPTY {
            return None;
        }
        self.set = EMPTY;
        // SAFETY: `set` said `waker` held a value; clearing the flag first
        // means it is moved out exactly once.
        Some(unsafe { self.waker.assume_init_read() })
    }

    /// Stores `waker`, returning the one it replaces.
    #[inline]
    pub fn replace(&mut self, waker: Waker) -> Option<Waker> {
        let old = self.take();
        self.waker.write(waker);
        self.set = SET;
        old
    }

    /// Stores a clone of `waker` unless the stored one already wakes the
    /// same task; returns the replaced waker (to drop outside any lock).
    #[inline]
    pub fn register(&mut self, waker: &Waker) -> Option<Waker> {
        match self.get() {
            Some(old) if old.will_wake(waker) => None,
            _ => self.replace(waker.clone()),
        }
    }
}

impl Default for WakerSlot {
    fn default() -> Self {
        WakerSlot::new()
    }
}

impl Drop for WakerSlot {
    #[inline]
    fn drop(&mut self) {
        drop(self.take());
    }
}

impl fmt::Debug for WakerSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WakerSlot")
            .field("set", &(self.set == SET))
            .finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::WakerSlot;
    use crate::util::test_waker::Count;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    use std::task::Waker;

    #[test]
    fn holds_replaces_and_drops_each_waker_once() {
        let a = Arc::new(Count(AtomicUsize::new(0)));
        let b = Arc::new(Count(AtomicUsize::new(0)));
        let wa = Waker::from(a.clone());
        let wb = Waker::from(b.clone());
        let mut slot = WakerSlot::new();
        assert!(slot.get().is_none() && slot.take().is_none());
        assert!(slot.register(&wa).is_none());
        assert_eq!(Arc::strong_count(&a), 3);
        // Same task: kept, no clone made. (Miri gives each use of a vtable
        // its own address, so `will_wake` is false there.)
        if !cfg!(miri) {
            assert!(slot.register(&wa).is_none());
            assert_eq!(Arc::strong_count(&a), 3);
        }
        // Another task: the old waker comes back to the caller.
        let old = slot.register(&wb).expect("replaced");
        assert_eq!(old.data(), wa.data());
        drop(old);
        assert_eq!(Arc::strong_count(&a), 2);
        slot.take().expect("stored").wake();
        assert_eq!(b.0.load(SeqCst), 1);
        assert!(slot.get().is_none());
        // A stored waker is dropped with the slot.
        slot.replace(wb.clone());
        assert_eq!(Arc::strong_count(&b), 3);
        drop(slot);
        assert_eq!(Arc::strong_count(&b), 2);
    }
}
