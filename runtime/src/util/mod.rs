//! Small building blocks shared by the runtime and the sync/channel crates.

pub mod atomic_waker;
pub mod linked_list;
pub mod rand;
pub mod spaced;
pub mod wake_list;
pub mod waker_slot;

/// A waker that counts its wake-ups, for the unit tests of the waker cells.
#[cfg(all(test, not(loom)))]
pub(crate) mod test_waker {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    use std::task::Wake;

    pub(crate) struct Count(pub(crate) AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, SeqCst);
        }
    }
}

#[cfg(feature = "rt")]
pub(crate) mod atomic_cell;
#[cfg(feature = "rt")]
pub(crate) mod countdown;
#[cfg(feature = "rt")]
pub(crate) mod sync_wrapper;
#[cfg(feature = "rt")]
pub(crate) mod trace;

/// Pads and aligns a value to a cache line, so that two hot atomics written
/// by different cores do not share a line.
pub use crossbeam_utils::CachePadded;
