//! Unix-specific types for signal handling: [`signal`], [`SignalKind`],
//! [`Signal`].

use super::registry::{Listener, globals};

use std::future::poll_fn;
use std::io;
use std::task::{Context, Poll};

/// Represents the specific kind of signal to listen for.
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
pub struct SignalKind(libc::c_int);

impl SignalKind {
    /// Allows for listening to any valid OS signal.
    ///
    /// For example, this can be used for listening for platform-specific
    /// signals. Signals that cannot be handled (`SIGKILL`, `SIGSTOP`,
    /// `SIGILL`, `SIGFPE`, `SIGSEGV`) make [`signal`] fail.
    pub const fn from_raw(signum: std::os::raw::c_int) -> Self {
        Self(signum as libc::c_int)
    }

    /// Get the signal's numeric value.
    pub const fn as_raw_value(&self) -> std::os::raw::c_int {
        self.0
    }

    /// Represents the `SIGALRM` signal (a real-time timer expired).
    pub const fn alarm() -> Self {
        Self(libc::SIGALRM)
    }

    /// Represents the `SIGCHLD` signal (a child process changed state).
    pub const fn child() -> Self {
        Self(libc::SIGCHLD)
    }

    /// Represents the `SIGHUP` signal (the terminal is disconnected;
    /// daemons often reload their configuration on it).
    pub const fn hangup() -> Self {
        Self(libc::SIGHUP)
    }

    /// Represents the `SIGIO` signal (I/O is possible on a descriptor).
    pub const fn io() -> Self {
        Self(libc::SIGIO)
    }

    /// Represents the `SIGINT` signal (interrupt, Ctrl-C).
    pub const fn interrupt() -> Self {
        Self(libc::SIGINT)
    }

    /// Represents the `SIGPIPE` signal (a write to a pipe with no reader).
    pub const fn pipe() -> Self {
        Self(libc::SIGPIPE)
    }

    /// Represents the `SIGQUIT` signal (quit, with a core dump by default).
    pub const fn quit() -> Self {
        Self(libc::SIGQUIT)
    }

    /// Represents the `SIGTERM` signal (a request to terminate).
    pub const fn terminate() -> Self {
        Self(libc::SIGTERM)
    }

    /// Represents the `SIGUSR1` signal (user defined).
    pub const fn user_defined1() -> Self {
        Self(libc::SIGUSR1)
    }

    /// Represents the `SIGUSR2` signal (user defined).
    pub const fn user_defined2() -> Self {
        Self(libc::SIGUSR2)
    }

    /// Represents the `SIGWINCH` signal (the terminal window was resized).
    pub const fn window_change() -> Self {
        Self(libc::SIGWINCH)
    }
}

impl From<std::os::raw::c_int> for SignalKind {
    fn from(signum: std::os::raw::c_int) -> Self {
        Self::from_raw(signum)
    }
}

impl From<SignalKind> for std::os::raw::c_int {
    fn from(kind: SignalKind) -> Self {
        kind.as_raw_value()
    }
}

/// A listener for receiving a particular type of OS signal.
///
/// Signals delivered while nobody is polling are not queued one by one:
/// any number of deliveries between two `recv`s make one notification.
/// A listener created after a delivery does not see it.
///
/// ```no_run
/// use volt_runtime::signal::unix::{SignalKind, signal};
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> std::io::Result<()> {
/// // An infinite stream of hangup signals.
/// let mut sig = signal(SignalKind::hangup())?;
/// loop {
///     sig.recv().await;
///     println!("got signal HUP");
/// }
/// # }
/// ```
#[must_use = "streams do nothing unless polled"]
#[derive(Debug)]
pub struct Signal {
    listener: Listener,
}

/// Creates a new listener which will receive notifications when the
/// current process receives the specified signal `kind`.
///
/// # Errors
///
/// * `Refusing to register signal N` for a signal that cannot be handled
///   (`SIGKILL`, `SIGSTOP`, `SIGILL`, `SIGFPE`, `SIGSEGV`) or a
///   non-positive number; `signal too large` beyond the supported range.
/// * The OS's error if the handler cannot be installed.
///
/// # Panics
///
/// Outside a runtime, or in one without I/O enabled, with tokio's
/// messages.
#[track_caller]
pub fn signal(kind: SignalKind) -> io::Result<Signal> {
    let handle = match crate::context::with_current(Clone::clone) {
        Ok(h) => h,
        Err(e) => panic!("{}", e),
    };
    let io = handle.driver().io().expect(
        "A Tokio 1.x context was found, but IO is disabled. \
         Call `enable_io` on the runtime builder to enable IO.",
    );
    let g = globals();
    g.enable(kind.0)?;
    io.enable_signals(g.pipe_fd())?;
    Ok(Signal {
        listener: Listener::new(kind.0),
    })
}

impl Signal {
    /// Receives the next signal notification event.
    ///
    /// Returns `None` if no more events can be received (never, in this
    /// implementation: the handler stays installed).
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If you use it as a branch in `select!`
    /// and another branch completes first, then it is guaranteed that no
    /// signal is lost.
    pub async fn recv(&mut self) -> Option<()> {
        poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// Polls to receive the next signal notification event, outside of an
    /// `async` context.
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<()>> {
        self.listener.poll(cx).map(Some)
    }
}
