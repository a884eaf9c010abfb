//! Utilities for tracking time.
//!
//! This module provides a number of types for executing code after a set
//! period of time.
//!
//! * [`Sleep`] is a future that does no work and completes at a specific
//!   [`Instant`] in time.
//! * [`Interval`] is a stream yielding a value at a fixed period. It is
//!   initialized with a [`Duration`] and repeatedly yields each time the
//!   duration elapses.
//! * [`Timeout`]: Wraps a future or stream, setting an upper bound to the
//!   amount of time it is allowed to execute. If the future or stream does
//!   not complete in time, then it is canceled and an error is returned.
//!
//! These types are sufficient for handling a large number of scenarios
//! involving time. They need a runtime with time enabled
//! ([`Builder::enable_time`](crate::runtime::Builder::enable_time) or
//! `enable_all`; `#[volt::main]` and `#[volt::test]` enable it).
//!
//! # How it works
//!
//! The driver keeps one hierarchical timing wheel (6 levels of 64 slots,
//! 1 ms per tick, about 2 years of range) per worker thread: a `Sleep` is
//! filed in the wheel of the worker that first polls it, so workers never
//! contend on one timer lock. Entries are intrusive: a `Sleep` allocates
//! nothing beyond itself. Whichever worker parks fires due timers; busy
//! workers fire them on their regular maintenance tick.
//!
//! With the `test-util` feature, `pause`, `resume` and `advance`
//! control the clock of a current-thread runtime, and a paused runtime
//! with nothing to do jumps straight to its next timer.
//!
//! # Examples
//!
//! Wait 100ms and print "100 ms have elapsed"
//!
//! ```
//! use volt_runtime::time::{sleep, Duration};
//!
//! #[volt_runtime::main(crate = "volt_runtime")]
//! async fn main() {
//!     sleep(Duration::from_millis(100)).await;
//!     println!("100 ms have elapsed");
//! }
//! ```
//!
//! Require that an operation takes no more than 1s.
//!
//! ```
//! use volt_runtime::time::{timeout, Duration};
//!
//! async fn long_future() {
//!     // do work here
//! }
//!
//! # async fn dox() {
//! let res = timeout(Duration::from_secs(1), long_future()).await;
//!
//! if res.is_err() {
//!     println!("operation timed out");
//! }
//! # }
//! ```

pub(crate) mod clock;
pub(crate) mod driver;
pub mod error;
mod instant;
mod interval;
mod sleep;
mod timeout;

#[cfg(feature = "test-util")]
pub use clock::{advance, pause, resume};
pub use instant::Instant;
pub use interval::{Interval, MissedTickBehavior, interval, interval_at};
pub use sleep::{Sleep, sleep, sleep_until};
pub use timeout::{Timeout, timeout, timeout_at};

// Re-export for convenience.
#[doc(no_inline)]
pub use std::time::Duration;
