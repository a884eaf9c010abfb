//! volt under tokio's name.
//!
//! This package is named `tokio` and re-exports [volt] at tokio's paths,
//! so that a whole dependency graph moves to volt: the service's own code
//! and every library it uses that was written against `tokio` (axum,
//! hyper, tonic, reqwest, tower, tokio-util, tokio-stream, ...). It is
//! used through `[patch.crates-io]`, never from crates.io (the registry's
//! `tokio` is tokio):
//!
//! ```toml
//! [dependencies]
//! tokio = { version = "1", features = ["full"] }
//!
//! [patch.crates-io]
//! tokio = { git = "https://github.com/volt-rs/volt" }
//! # or, from a checkout: tokio = { path = "../volt/compat/tokio" }
//! ```
//!
//! With an existing `Cargo.lock` that pins an older tokio, cargo ignores
//! the patch ("patch `tokio` ... was not used in the crate graph") until
//! the lock moves to this package's version:
//!
//! ```sh
//! cargo update -p tokio --precise 1.54.1
//! ```
//!
//! # What it is
//!
//! * Everything in `volt`, at the same paths (`tokio::spawn`,
//!   `tokio::sync::Mutex`, `tokio::net::TcpListener`, ...).
//! * `#[tokio::main]` and `#[tokio::test]`: volt's attributes, expanding
//!   to `::tokio::...` paths, so the user's crate needs no `volt`
//!   dependency; their errors name `tokio::main` and `tokio::test`.
//!   `crate = "..."` works as on tokio.
//! * `select!`, `join!`, `try_join!`, `pin!` and `task_local!`: volt's,
//!   which resolve their helpers through `$crate`.
//! * Every feature name of tokio 1.54: tokio's own map to volt's; the
//!   names tokio has for its optional dependencies (`bytes`, `libc`,
//!   `mio`, `parking_lot`, `socket2`, `signal-hook-registry`,
//!   `windows-sys`, `tokio-macros`) and its unstable ones (`taskdump`,
//!   `io-uring`, `schedule-latency`) are accepted and change nothing.
//!   `tracing` turns on volt's task instrumentation.
//!
//! tokio's `tokio_unstable` API is there (volt has it stable), but for the
//! task dumps (`tokio::runtime::dump`): code that uses them does not
//! build. The hidden `tokio::macros::support` path of tokio's macro
//! expansions is there too.
//!
//! # Versions
//!
//! The version is the tokio release volt follows: the `tokio` in volt's
//! `Cargo.lock`, the one `scripts/api_diff.py` checks volt's public API
//! against. Both move together, and volt's CI fails when they differ.

pub use volt::*;

// The glob above brings volt's attributes, which expand to `::volt` paths;
// these shadow them with the same attributes expanding to `::tokio`.
#[cfg(all(feature = "macros", feature = "rt-multi-thread"))]
pub use volt_macros::{tokio_main as main, tokio_test as test};
#[cfg(all(feature = "macros", not(feature = "rt-multi-thread")))]
pub use volt_macros::{tokio_main_rt as main, tokio_test_rt as test};

/// Where tokio's macro expansions find their helpers: hidden and not API,
/// there for code that names the path (tokio's own tests do, for
/// `thread_rng_n` and `poll_fn`).
#[cfg(feature = "macros")]
#[doc(hidden)]
pub mod macros {
    pub mod support {
        pub use volt::__macro_support::*;
    }
}
