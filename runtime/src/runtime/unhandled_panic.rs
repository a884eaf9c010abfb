//! `UnhandledPanic`: what a current-thread runtime (or a `LocalSet`) does
//! when one of its spawned tasks panics.
//!
//! tokio has this behind `tokio_unstable`; volt offers it stable, as it
//! does `task::Builder`, with tokio's semantics and panic messages.
//!
//! # Protocol
//!
//! A task's panic is caught by the task harness, which calls its
//! scheduler's `Schedule::unhandled_panic` before storing the panic for
//! the `JoinHandle`. With `ShutdownRuntime`, the current-thread scheduler
//! sets a flag in its `Core` and closes its owned-tasks list, cancelling
//! every task (later spawns are cancelled at once); its `block_on` loop
//! looks at the flag before each task it would run and panics with
//! [`SHUTDOWN_PANIC`]. The flag stays set: every later `block_on` whose
//! future is not ready on its first poll panics the same way. A
//! `LocalSet` does the same with a flag in its thread-local context.

use crate::runtime::Builder;

/// `block_on`'s panic once a spawned task panicked under `ShutdownRuntime`
/// (tokio's words).
pub(crate) const SHUTDOWN_PANIC: &str =
    "a spawned task panicked and the runtime is configured to shut down on unhandled panic";

/// How the runtime should respond to unhandled panics.
///
/// Instances of `UnhandledPanic` are passed to `Builder::unhandled_panic`
/// to configure the runtime behavior when a spawned task panics.
///
/// See [`Builder::unhandled_panic`] for more details.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub enum UnhandledPanic {
    /// The runtime should ignore panics on spawned tasks.
    ///
    /// The panic is forwarded to the task's [`JoinHandle`] and all spawned
    /// tasks continue running normally.
    ///
    /// This is the default behavior.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::runtime::{self, UnhandledPanic};
    ///
    /// let rt = runtime::Builder::new_current_thread()
    ///     .unhandled_panic(UnhandledPanic::Ignore)
    ///     .build()
    ///     .unwrap();
    ///
    /// let task1 = rt.spawn(async { panic!("boom"); });
    /// let task2 = rt.spawn(async {
    ///     // This task completes normally
    ///     "done"
    /// });
    ///
    /// rt.block_on(async {
    ///     // The panic on the first task is forwarded to the `JoinHandle`
    ///     assert!(task1.await.is_err());
    ///
    ///     // The second task completes normally
    ///     assert!(task2.await.is_ok());
    /// })
    /// ```
    ///
    /// [`JoinHandle`]: struct@crate::task::JoinHandle
    #[default]
    Ignore,

    /// The runtime should immediately shutdown if a spawned task panics.
    ///
    /// The runtime will immediately shutdown even if the panicked task's
    /// [`JoinHandle`] is still available. All further spawned tasks will be
    /// immediately dropped and call to [`Runtime::block_on`] will panic.
    ///
    /// # Examples
    ///
    /// ```should_panic
    /// use volt_runtime::runtime::{self, UnhandledPanic};
    ///
    /// let rt = runtime::Builder::new_current_thread()
    ///     .unhandled_panic(UnhandledPanic::ShutdownRuntime)
    ///     .build()
    ///     .unwrap();
    ///
    /// rt.spawn(async { panic!("boom"); });
    /// rt.spawn(async {
    ///     // This task never completes.
    /// });
    ///
    /// rt.block_on(async {
    ///     // Do some work
    /// # loop { volt_runtime::task::yield_now().await; }
    /// })
    /// ```
    ///
    /// [`JoinHandle`]: struct@crate::task::JoinHandle
    /// [`Runtime::block_on`]: crate::runtime::Runtime::block_on
    ShutdownRuntime,
}

impl Builder {
    /// Configure how the runtime responds to an unhandled panic on a
    /// spawned task.
    ///
    /// By default, an unhandled panic (i.e. a panic not caught by
    /// [`std::panic::catch_unwind`]) has no impact on the runtime's
    /// execution. The panic's error value is forwarded to the task's
    /// [`JoinHandle`] and all other spawned tasks continue running.
    ///
    /// The `unhandled_panic` option enables configuring this behavior.
    ///
    /// * `UnhandledPanic::Ignore` is the default behavior. Panics on
    ///   spawned tasks have no impact on the runtime's execution.
    /// * `UnhandledPanic::ShutdownRuntime` will force the runtime to
    ///   shutdown immediately when a spawned task panics even if that
    ///   task's `JoinHandle` has not been dropped. All other spawned tasks
    ///   will immediately terminate and further calls to
    ///   [`Runtime::block_on`] will panic.
    ///
    /// (tokio has this behind `tokio_unstable`; volt offers it stable.)
    ///
    /// # Panics
    ///
    /// This method panics if called with [`UnhandledPanic::ShutdownRuntime`]
    /// on a runtime other than the current thread runtime.
    ///
    /// # Examples
    ///
    /// The following demonstrates a runtime configured to shutdown on
    /// panic. The first spawned task panics and results in the runtime
    /// shutting down. The second spawned task never has a chance to
    /// execute. The call to `block_on` will panic due to the runtime being
    /// forcibly shutdown.
    ///
    /// ```should_panic
    /// use volt_runtime::runtime::{self, UnhandledPanic};
    ///
    /// let rt = runtime::Builder::new_current_thread()
    ///     .unhandled_panic(UnhandledPanic::ShutdownRuntime)
    ///     .build()
    ///     .unwrap();
    ///
    /// rt.spawn(async { panic!("boom"); });
    /// rt.spawn(async {
    ///     // This task never completes.
    /// });
    ///
    /// rt.block_on(async {
    ///     // Do some work
    /// # loop { volt_runtime::task::yield_now().await; }
    /// })
    /// ```
    ///
    /// [`JoinHandle`]: struct@crate::task::JoinHandle
    /// [`Runtime::block_on`]: crate::runtime::Runtime::block_on
    #[track_caller]
    pub fn unhandled_panic(&mut self, behavior: UnhandledPanic) -> &mut Self {
        if !self.is_current_thread() && matches!(behavior, UnhandledPanic::ShutdownRuntime) {
            panic!("UnhandledPanic::ShutdownRuntime is only supported in current thread runtime");
        }
        self.unhandled_panic = behavior;
        self
    }
}
