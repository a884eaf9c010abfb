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
