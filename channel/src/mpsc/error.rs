//! Channel error types (tokio's, with its messages).

use std::error::Error;
use std::fmt;

/// Error returned by `send`: the receiver is closed or dropped; the value
/// comes back.
#[derive(PartialEq, Eq, Clone, Copy)]
pub struct SendError<T>(pub T);

impl<T> fmt::Debug for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SendError").finish_non_exhaustive()
    }
}

impl<T> fmt::Display for SendError<T> {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(fmt, "channel closed")
    }
}

impl<T> Error for SendError<T> {}

/// Error returned by [`Sender::send_timeout`](super::Sender::send_timeout).
#[cfg(feature = "time")]
#[derive(PartialEq, Eq, Clone, Copy)]
pub enum SendTimeoutError<T> {
    /// The data could not be sent on the channel because the channel is
    /// full, and the timeout to send has elapsed.
    Timeout(T),
    /// The receive half of the channel was explicitly closed or has been
    /// dropped.
    Closed(T),
}

#[cfg(feature = "time")]
impl<T> SendTimeoutError<T> {
    /// Consumes the `SendTimeoutError`, returning the unsent value.
    pub fn into_inner(self) -> T {
        match self {
            SendTimeoutError::Timeout(val) | SendTimeoutError::Closed(val) => val,
        }
    }
}

#[cfg(feature = "time")]
impl<T> fmt::Debug for SendTimeoutError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // As tokio's, quotes included (it formats a `&str` with `Debug`),
        // so a panic message from `unwrap()` reads the same.
        let name = match self {
            SendTimeoutError::Timeout(..) => "Timeout(..)",
            SendTimeoutError::Closed(..) => "Closed(..)",
        };
        fmt::Debug::fmt(name, f)
    }
}

#[cfg(feature = "time")]
impl<T> fmt::Display for SendTimeoutError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SendTimeoutError::Timeout(..) => "timed out waiting on send operation",
            SendTimeoutError::Closed(..) => "channel closed",
        })
    }
}

#[cfg(feature = "time")]
impl<T> Error for SendTimeoutError<T> {}

/// Error returned by `try_send` and the `try_reserve*` methods.
#[derive(PartialEq, Eq, Clone, Copy)]
pub enum TrySendError<T> {
    /// The channel is full.
    Full(T),
    /// The receiver is closed or dropped.
    Closed(T),
}

impl<T> TrySendError<T> {
    /// The value that was not sent.
    pub fn into_inner(self) -> T {
        match self {
            TrySendError::Full(val) | TrySendError::Closed(val) => val,
        }
    }
}

impl<T> fmt::Debug for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // As tokio's, quotes included (see `SendTimeoutError`).
        let name = match self {
            TrySendError::Full(..) => "Full(..)",
            TrySendError::Closed(..) => "Closed(..)",
        };
        fmt::Debug::fmt(name, f)
    }
}

impl<T> fmt::Display for TrySendError<T> {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.write_str(match self {
            TrySendError::Full(..) => "no available capacity",
            TrySendError::Closed(..) => "channel closed",
        })
    }
}

impl<T> Error for TrySendError<T> {}

impl<T> From<SendError<T>> for TrySendError<T> {
    fn from(src: SendError<T>) -> TrySendError<T> {
        TrySendError::Closed(src.0)
    }
}

/// Error returned by `try_recv`.
#[derive(PartialEq, Eq, Clone, Copy, Debug)]
pub enum TryRecvError {
    /// No value is waiting, and the channel is open.
    Empty,
    /// The channel is closed and empty.
    Disconnected,
}

impl fmt::Display for TryRecvError {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.write_str(match self {
            TryRecvError::Empty => "receiving on an empty channel",
            TryRecvError::Disconnected => "receiving on a closed channel",
        })
    }
}

impl Error for TryRecvError {}

/// Error returned by `Receiver`: never produced, since `recv` returns an
/// `Option`. It exists, deprecated and hidden as in tokio, so that code
/// naming `mpsc::error::RecvError` still compiles after the switch.
#[derive(Debug, Clone)]
#[doc(hidden)]
#[deprecated(note = "This type is unused because recv returns an Option.")]
pub struct RecvError(());

#[allow(deprecated)]
impl fmt::Display for RecvError {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.write_str("channel closed")
    }
}

#[allow(deprecated)]
impl Error for RecvError {}
