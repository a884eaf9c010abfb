//! A multi-producer, single-consumer queue for sending values between
//! asynchronous tasks: tokio's `sync::mpsc`, same API and behaviour.
//!
//! [`channel`] is bounded (senders wait for room, which gives
//! backpressure); [`unbounded_channel`] never makes senders wait. The
//! receiver sees `None` once every sender is dropped (or the channel is
//! closed) and every value sent before has been received.
//!
//! Not yet here: `Sender::send_timeout` (it needs `volt::time`).
//!
//! # How it works
//!
//! See `chan.rs`: values go through `volt::channel`'s lock-free block
//! list, which the one receiver pops without claims or marks (its methods
//! take `&mut self`, which is what makes it the only consumer); capacity
//! is a volt-sync `Semaphore`, so senders waiting for room queue FIFO
//! without allocating; the receiver waits behind a Dekker flag, so a send
//! with nobody waiting touches no waker.

mod bounded;
mod chan;
pub mod error;
mod handle;
#[cfg(all(test, loom))]
mod loom_tests;
mod methods;
mod unbounded;

pub use bounded::{OwnedPermit, Permit, PermitIterator, Receiver, Sender, WeakSender, channel};
pub use unbounded::{UnboundedReceiver, UnboundedSender, WeakUnboundedSender, unbounded_channel};
