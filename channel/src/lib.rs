//! volt's channels.
//!
//! * [`mpmc`] (re-exported as `volt::channel`): a fast multi-producer,
//!   multi-consumer channel, volt's own (tokio has none).
//! * [`oneshot`] (re-exported as `volt::sync::oneshot`): tokio's one-shot
//!   channel.
//! * [`mpsc`] (re-exported as `volt::sync::mpsc`): tokio's bounded and
//!   unbounded multi-producer, single-consumer channels.
//! * [`watch`] (re-exported as `volt::sync::watch`): tokio's latest-value
//!   channel.
//! * [`broadcast`] (re-exported as `volt::sync::broadcast`): tokio's
//!   every-receiver-sees-every-value channel.
//!
//! The crate sits above `volt-sync` (runtime ← sync ← channel ← volt) and
//! reaches the runtime only through the waker bridge.

#[doc(hidden)]
pub use volt_sync::__bridge;
use volt_sync::__bridge as bridge;

pub mod broadcast;
pub mod mpmc;
pub mod mpsc;
pub mod oneshot;
pub mod watch;

mod spin_lock;

use bridge::loom::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Increments a strong-handle count unless it is zero (a weak handle's
/// `upgrade`: a channel whose last strong handle is gone stays ended).
fn increment_if_nonzero(count: &AtomicUsize) -> bool {
    // Relaxed: the count is the only shared state the upgrade needs; the
    // handle it makes holds its own `Arc` to the channel.
    count
        .fetch_update(Relaxed, Relaxed, |n| (n != 0).then(|| n + 1))
        .is_ok()
}
