//! Asynchronous signal handling.
//!
//! [`ctrl_c`] waits for `SIGINT` (Ctrl-C); [`unix::signal`] listens for
//! any Unix signal. As in tokio, listening for a signal installs a
//! process-wide handler that stays installed for the life of the process:
//! once any listener for `SIGINT` was created, Ctrl-C no longer terminates
//! the process by default.
//!
//! Deliveries reach listeners through a self-pipe that the runtime's I/O
//! driver polls (`registry` explains the protocol), so the runtime must
//! have I/O enabled.
//!
//! ```no_run
//! # #[volt_runtime::main(crate = "volt_runtime")]
//! # async fn main() {
//! volt_runtime::signal::ctrl_c().await.expect("failed to listen for event");
//! println!("received ctrl-c event");
//! # }
//! ```

pub(crate) mod registry;
pub mod unix;

use std::io;

/// Completes when a "ctrl-c" notification is sent to the process.
///
/// The first call installs the `SIGINT` handler (for the rest of the
/// process: Ctrl-C then no longer terminates it by default).
///
/// # Errors
///
/// If the handler cannot be installed.
///
/// # Panics
///
/// Outside a runtime, or in one without I/O enabled, with tokio's
/// messages.
///
/// # Cancel safety
///
/// Cancel safe in the sense that a signal delivered while the future is
/// alive wakes it; a new call only sees signals delivered after it was
/// first polled.
pub async fn ctrl_c() -> io::Result<()> {
    unix::signal(unix::SignalKind::interrupt())?.recv().await;
    Ok(())
}
