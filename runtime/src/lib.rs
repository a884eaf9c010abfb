//! volt's runtime: tasks, wakers, the work-stealing and current-thread
//! schedulers, the blocking pool, and the cooperative budget.
//!
//! Users depend on the [`volt`](https://docs.rs/volt) facade, which
//! re-exports this crate's public API at tokio's paths (`volt::runtime`,
//! `volt::task`, `volt::spawn`, `volt::main`...). The `bridge` module is the
//! narrow, hidden interface that `volt-sync` and `volt-channel` build on.
//!
//! # Crate layout
//!
//! | module       | what it holds                                              |
//! |--------------|------------------------------------------------------------|
//! | `task`       | the task allocation, state machine, wakers, `JoinHandle`   |
//! | `scheduler`  | current-thread and multi-thread (work-stealing) schedulers |
//! | `blocking`   | the blocking pool                                          |
//! | `runtime`    | `Builder`, `Runtime`, `Handle`, metrics                    |
//! | `context`    | the thread-local "where am I running" state                |
//! | `coop`       | the cooperative budget                                     |
//! | `park`       | parking a thread until woken                               |
//! | `driver`     | what idle workers sleep on (time and I/O plug in here)     |
//! | `bridge`     | what the sync and channel crates use                       |
//! | `loom`       | std vs loom primitives, for model checking                 |

#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[doc(hidden)]
pub mod loom;

mod util;

mod context;
pub(crate) mod coop;
mod park;

#[doc(hidden)]
pub mod bridge;

#[cfg(feature = "rt")]
mod blocking;
#[cfg(feature = "rt")]
mod driver;
#[cfg(feature = "rt")]
mod scheduler;

#[cfg(feature = "rt")]
pub mod runtime;
#[cfg(feature = "rt")]
pub mod task;

#[cfg(all(feature = "rt", feature = "time"))]
pub mod time;

#[cfg(all(feature = "rt", feature = "fs"))]
pub mod fs;
pub mod io;
#[cfg(all(feature = "rt", feature = "net"))]
mod io_driver;
#[cfg(all(unix, feature = "rt", feature = "net"))]
pub mod net;
#[cfg(all(unix, feature = "process"))]
pub mod process;
#[cfg(all(unix, feature = "signal"))]
pub mod signal;

#[cfg(feature = "rt")]
pub use task::spawn;

#[macro_use]
mod macros;

/// `tracing`, for the state-update macro of `util::trace` (not public API).
#[cfg(feature = "tracing")]
#[doc(hidden)]
pub use tracing as __tracing;

#[cfg(all(feature = "macros", feature = "rt-multi-thread"))]
pub use volt_macros::{main, test};
#[cfg(all(feature = "macros", not(feature = "rt-multi-thread")))]
pub use volt_macros::{main_rt as main, test_rt as test};

#[cfg(feature = "macros")]
#[doc(hidden)]
pub use macros::support as __macro_support;
