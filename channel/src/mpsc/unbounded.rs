//! The unbounded mpsc channel.

use super::chan::Chan;
use super::error::{SendError, TryRecvError};
use super::handle::{Rx, Tx};
use super::methods::{rx_methods, tx_methods, weak_sender};
use crate::bridge::loom::sync::Arc;

use std::fmt;

/// Creates an unbounded mpsc channel: sending never waits (memory is the
/// only limit; blocks of the queue are freed as they drain).
///
/// # Examples
///
/// ```
/// use volt_channel::mpsc;
///
/// let (tx, mut rx) = mpsc::unbounded_channel();
/// tx.send("a").unwrap();
/// drop(tx);
/// assert_eq!(rx.try_recv(), Ok("a"));
/// assert!(rx.try_recv().is_err());
/// ```
#[track_caller]
pub fn unbounded_channel<T>() -> (UnboundedSender<T>, UnboundedReceiver<T>) {
    let chan = Arc::new(Chan::new(0));
    (
        UnboundedSender {
            tx: Tx::new(chan.clone()),
        },
        UnboundedReceiver { rx: Rx { chan } },
    )
}

/// Sends values to the associated [`UnboundedReceiver`].
pub struct UnboundedSender<T> {
    tx: Tx<T>,
}

weak_sender!(
    /// An unbounded sender that does not keep the channel open; see
    /// [`UnboundedSender::downgrade`].
    WeakUnboundedSender,
    UnboundedSender
);

/// Receives values from the associated [`UnboundedSender`]s.
pub struct UnboundedReceiver<T> {
    rx: Rx<T>,
}

impl<T> UnboundedSender<T> {
    /// Sends `value` without waiting. Fails (giving it back) if the
    /// receiver is closed or dropped.
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        if self.tx.chan.is_rx_closed() {
            return Err(SendError(value));
        }
        self.tx.chan.push(value);
        Ok(())
    }

    tx_methods!(WeakUnboundedSender);
}

impl<T> UnboundedReceiver<T> {
    rx_methods!();
}

impl<T> Clone for UnboundedSender<T> {
    fn clone(&self) -> Self {
        UnboundedSender {
            tx: self.tx.clone(),
        }
    }
}

macro_rules! debug_as {
    ($($ty:ident),*) => {$(
        impl<T> fmt::Debug for $ty<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($ty)).finish_non_exhaustive()
            }
        }
    )*};
}

debug_as!(UnboundedSender, WeakUnboundedSender, UnboundedReceiver);
