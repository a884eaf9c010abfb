//! Small building blocks shared by the runtime and the sync/channel crates.

pub mod atomic_waker;
pub mod linked_list;
pub mod rand;
pub mod wake_list;
pub mod waker_slot;

#[cfg(feature = "rt")]
pub(crate) mod atomic_cell;
#[cfg(feature = "rt")]
pub(crate) mod sync_wrapper;
#[cfg(feature = "rt")]
pub(crate) mod trace;

/// Pads and aligns a value to a cache line, so that two hot atomics written
/// by different cores do not share a line.
pub use crossbeam_utils::CachePadded;
