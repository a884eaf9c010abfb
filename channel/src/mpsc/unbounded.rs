//! The unbounded mpsc channel.

use super::chan::Chan;
use super::error::{SendError, TryRecvError};
use super::handle::{Rx, Tx, WeakTx};
use super::rx_methods::rx_methods;
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

/// An unbounded sender that does not keep the channel open.
pub struct WeakUnboundedSender<T> {
    tx: WeakTx<T>,
}

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

    /// Waits until the receiver is closed or dropped.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe.
    pub async fn closed(&self) {
        self.tx.chan.closed().await
    }

    /// Whether the receiver is closed or dropped.
    pub fn is_closed(&self) -> bool {
        self.tx.chan.is_rx_closed()
    }

    /// A weak sender: it does not keep the channel open.
    pub fn downgrade(&self) -> WeakUnboundedSender<T> {
        WeakUnboundedSender {
            tx: self.tx.downgrade(),
        }
    }

    /// Whether both senders belong to the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.tx.same_channel(&other.tx)
    }

    /// Number of strong senders.
    pub fn strong_count(&self) -> usize {
        self.tx.strong_count()
    }

    /// Number of weak senders.
    pub fn weak_count(&self) -> usize {
        self.tx.weak_count()
    }
}

impl<T> UnboundedReceiver<T> {
    rx_methods!();
}

impl<T> WeakUnboundedSender<T> {
    /// A strong sender, unless every strong sender is gone.
    pub fn upgrade(&self) -> Option<UnboundedSender<T>> {
        self.tx.upgrade().map(|tx| UnboundedSender { tx })
    }

    /// Number of strong senders.
    pub fn strong_count(&self) -> usize {
        self.tx.strong_count()
    }

    /// Number of weak senders.
    pub fn weak_count(&self) -> usize {
        self.tx.weak_count()
    }
}

impl<T> Clone for UnboundedSender<T> {
    fn clone(&self) -> Self {
        UnboundedSender {
            tx: self.tx.clone(),
        }
    }
}

impl<T> Clone for WeakUnboundedSender<T> {
    fn clone(&self) -> Self {
        WeakUnboundedSender {
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
