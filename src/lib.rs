//! A work-stealing async runtime with tokio's API, and synchronization
//! primitives and channels built to be faster under contention.
//!
//! volt is a drop-in replacement for tokio: change `tokio` to `volt` in
//! `Cargo.toml` and in your source, and the program builds and runs as
//! before. Same module paths, names, signatures, feature flags, error types
//! and panic messages; same documented guarantees (cancel safety, FIFO
//! fairness, drop and shutdown behaviour).
//!
//! ```
//! #[volt::main]
//! async fn main() {
//!     let handle = volt::spawn(async { 6 * 7 });
//!     assert_eq!(handle.await.unwrap(), 42);
//! }
//! ```
//!
//! # What is here
//!
//! * [`runtime`]: the multi-thread (work-stealing) and current-thread
//!   schedulers, `Builder`, `Handle`, metrics.
//! * [`task`]: `spawn`, `spawn_blocking`, `block_in_place`, `JoinHandle`,
//!   `AbortHandle`, `JoinError`, task ids, `yield_now`, the coop budget.
//! * `#[volt::main]`, `#[volt::test]`, [`select!`], [`join!`],
//!   [`try_join!`], [`pin!`].
//! * [`time`]: `sleep`, `timeout`, `interval`, `Instant`, and with
//!   `test-util` the paused clock (`pause`, `advance`, `resume`).
//! * `sync`: semaphores, locks, `Notify`, `Barrier`, `OnceCell`, and
//!   tokio's `mpsc`, `oneshot`, `watch` and `broadcast` channels.
//! * [`channel`]: volt's fast MPMC channel.
//!
//! # Feature flags
//!
//! tokio's names: `full`, `rt`, `rt-multi-thread`, `macros`, `sync`,
//! `time`, `net`, `io-util`, `io-std`, `fs`, `signal`, `process`,
//! `test-util`. Unlike tokio, the default features are `full` (everything
//! but `test-util`), so `volt = "0.1"` needs no feature list; a tokio
//! feature list carries over unchanged. `tracing` adds a span per task.

#![warn(missing_docs)]

#[cfg(feature = "rt")]
pub use volt_runtime::{runtime, spawn, task, task_local};

pub use volt_runtime::pin;

#[cfg(feature = "macros")]
pub use volt_runtime::{join, main, select, test, try_join};
// What the macros' expansions use (not API; the compat crate names it
// `tokio::macros::support`, as tokio does).
#[cfg(feature = "macros")]
#[doc(hidden)]
pub use volt_runtime::__macro_support;

#[cfg(feature = "time")]
pub use volt_runtime::time;

#[cfg(feature = "fs")]
pub use volt_runtime::fs;
pub use volt_runtime::io;
#[cfg(feature = "net")]
pub use volt_runtime::net;
#[cfg(feature = "process")]
pub use volt_runtime::process;
#[cfg(feature = "signal")]
pub use volt_runtime::signal;

/// Streams: empty, as tokio's `stream` module is (the path exists so that
/// code naming it keeps compiling).
///
/// The `Stream` utilities are in the `tokio-stream` and `futures` crates
/// (`Stream` is not in `std` yet); loops of `while let Some(v) =
/// rx.recv().await` cover most uses. volt's own [`channel::Receiver`]
/// implements `futures_core::Stream` with the `stream` feature.
pub mod stream {}

/// A fast multi-producer, multi-consumer channel (volt's own; tokio has
/// none). See [`bounded`](channel::bounded) and
/// [`unbounded`](channel::unbounded).
#[cfg(feature = "sync")]
pub mod channel {
    #[doc(inline)]
    pub use volt_channel::mpmc::*;
}

#[cfg(feature = "sync")]
pub mod sync {
    //! Synchronization primitives for use in asynchronous contexts.
    //!
    //! The locks and the semaphore (`Mutex`, `RwLock`, `Semaphore`,
    //! `Notify`, `Barrier`, `OnceCell`, `SetOnce`) come from the
    //! `volt-sync` crate; the message-passing channels (`mpsc`, `oneshot`,
    //! `watch`, `broadcast`) from `volt-channel`. Both are re-exported here
    //! under tokio's paths. For a multi-producer, multi-consumer channel,
    //! see [`volt::channel`](crate::channel).
    //!
    //! ```
    //! use std::sync::Arc;
    //! use volt::sync::{mpsc, Mutex};
    //!
    //! # #[volt::main(flavor = "current_thread")]
    //! # async fn main() {
    //! let total = Arc::new(Mutex::new(0));
    //! let (tx, mut rx) = mpsc::channel(8);
    //! for i in 1..=3 {
    //!     let (total, tx) = (total.clone(), tx.clone());
    //!     volt::spawn(async move {
    //!         *total.lock().await += i;
    //!         tx.send(i).await.unwrap();
    //!     });
    //! }
    //! drop(tx);
    //! let mut seen = 0;
    //! while rx.recv().await.is_some() {
    //!     seen += 1;
    //! }
    //! assert_eq!((seen, *total.lock().await), (3, 6));
    //! # }
    //! ```
    #[doc(inline)]
    pub use volt_sync::*;

    #[doc(inline)]
    pub use volt_channel::{broadcast, mpsc, oneshot, watch};
}
