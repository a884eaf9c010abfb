//! The bounded mpsc channel: `Sender`, `Receiver`, permits, `WeakSender`.

use super::chan::Chan;
#[cfg(feature = "time")]
use super::error::SendTimeoutError;
use super::error::{SendError, TryRecvError, TrySendError};
use super::handle::{Rx, Tx};
use super::methods::{rx_methods, tx_methods, weak_sender};
use crate::bridge::loom::sync::Arc;
use volt_sync::TryAcquireError;

use std::fmt;

/// Creates a bounded mpsc channel holding at most `buffer` values.
///
/// # Panics
///
/// If `buffer` is 0 (tokio's message), or larger than the semaphore's
/// `MAX_PERMITS`.
///
/// # Examples
///
/// ```
/// use volt_channel::mpsc;
///
/// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
/// let (tx, mut rx) = mpsc::channel(100);
/// volt_runtime::spawn(async move {
///     for i in 0..10 {
///         tx.send(i).await.unwrap();
///     }
/// });
/// let mut sum = 0;
/// while let Some(i) = rx.recv().await {
///     sum += i;
/// }
/// assert_eq!(sum, 45);
/// # });
/// ```
#[track_caller]
pub fn channel<T>(buffer: usize) -> (Sender<T>, Receiver<T>) {
    assert!(buffer > 0, "mpsc bounded channel requires buffer > 0");
    let chan = Arc::new(Chan::new(buffer));
    (
        Sender {
            tx: Tx::new(chan.clone()),
        },
        Receiver { rx: Rx { chan } },
    )
}

/// Sends values to the associated [`Receiver`]. Clone it for more senders.
pub struct Sender<T> {
    tx: Tx<T>,
}

weak_sender!(
    /// A sender that does not keep the channel open; see
    /// [`Sender::downgrade`].
    WeakSender,
    Sender
);

/// Receives values from the associated [`Sender`]s.
pub struct Receiver<T> {
    rx: Rx<T>,
}

/// A reserved slot in the channel: [`send`](Permit::send) cannot fail or
/// wait. Dropping it unused gives the slot back.
pub struct Permit<'a, T> {
    chan: &'a Chan<T>,
}

/// An owned [`Permit`], holding its [`Sender`].
pub struct OwnedPermit<T> {
    sender: Option<Sender<T>>,
}

/// `n` reserved slots, from [`Sender::reserve_many`]; yields a [`Permit`]
/// per slot. Slots not taken are given back when it is dropped.
pub struct PermitIterator<'a, T> {
    chan: &'a Chan<T>,
    n: usize,
}

impl<T> Sender<T> {
    /// Sends `value`, waiting for room. Fails (giving the value back) if
    /// the receiver is closed or dropped.
    ///
    /// # Cancel safety
    ///
    /// If the future is dropped before completing, the value was not sent;
    /// the sender loses its place in the queue of senders waiting for room.
    pub async fn send(&self, value: T) -> Result<(), SendError<T>> {
        let mut value = Some(value);
        if self.tx.chan.send_with_credit(&mut value).await {
            return Ok(());
        }
        let value = value.expect("given back");
        let chan = &*self.tx.chan;
        // No credit was there: wait on the semaphore.
        match chan.reserve(1, false).await {
            Ok(()) => {
                Permit { chan }.send(value);
                Ok(())
            }
            Err(()) => Err(SendError(value)),
        }
    }

    /// Sends `value`, waiting for room at most `timeout`.
    ///
    /// Fails with [`SendTimeoutError::Timeout`] (giving the value back) if
    /// no room came up in time, or [`SendTimeoutError::Closed`] if the
    /// receiver is closed or dropped.
    ///
    /// # Panics
    ///
    /// As [`volt::time::timeout`](volt_runtime::time::timeout): outside of
    /// a runtime, or in a runtime without time enabled.
    ///
    /// # Cancel safety
    ///
    /// As [`send`](Self::send): if the future is dropped before completing,
    /// the value was not sent.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_channel::mpsc::{self, error::SendTimeoutError};
    /// use std::time::Duration;
    ///
    /// # let rt = volt_runtime::runtime::Builder::new_current_thread()
    /// #     .enable_time()
    /// #     .build()
    /// #     .unwrap();
    /// # rt.block_on(async {
    /// let (tx, _rx) = mpsc::channel(1);
    /// tx.send_timeout(1, Duration::from_millis(10)).await.unwrap();
    /// // Full: the second send times out and gives the value back.
    /// let err = tx.send_timeout(2, Duration::from_millis(10)).await.unwrap_err();
    /// assert!(matches!(err, SendTimeoutError::Timeout(2)));
    /// # });
    /// ```
    #[cfg(feature = "time")]
    pub async fn send_timeout(
        &self,
        value: T,
        timeout: std::time::Duration,
    ) -> Result<(), SendTimeoutError<T>> {
        let permit = match volt_runtime::time::timeout(timeout, self.reserve()).await {
            Err(_) => return Err(SendTimeoutError::Timeout(value)),
            Ok(Err(_)) => return Err(SendTimeoutError::Closed(value)),
            Ok(Ok(permit)) => permit,
        };
        permit.send(value);
        Ok(())
    }

    /// Sends `value` if there is room now.
    #[inline]
    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        // A credit and a position in one CAS (chan.rs, "Credits"); else
        // room from the semaphore, then a position.
        let Err(value) = self.tx.chan.push_with_credit(value) else {
            return Ok(());
        };
        match self.try_reserve() {
            Ok(permit) => {
                permit.send(value);
                Ok(())
            }
            Err(TrySendError::Full(())) => Err(TrySendError::Full(value)),
            Err(TrySendError::Closed(())) => Err(TrySendError::Closed(value)),
        }
    }

    /// Blocking send, for synchronous code.
    ///
    /// # Panics
    ///
    /// When called from a thread that drives a runtime.
    #[track_caller]
    pub fn blocking_send(&self, value: T) -> Result<(), SendError<T>> {
        crate::bridge::block_on(self.send(value))
    }

    /// Waits for room and reserves one slot.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe, except that the place in the queue is lost.
    pub async fn reserve(&self) -> Result<Permit<'_, T>, SendError<()>> {
        let chan = &*self.tx.chan;
        match chan.reserve(1, true).await {
            Ok(()) => Ok(Permit { chan }),
            Err(()) => Err(SendError(())),
        }
    }

    /// Waits for room and reserves `n` slots. Fails if the receiver is
    /// closed or `n` exceeds the channel's capacity.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe, except that the place in the queue is lost.
    pub async fn reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, SendError<()>> {
        let chan = &*self.tx.chan;
        if n > chan.bound() {
            return Err(SendError(()));
        }
        match chan.reserve(n as u32, true).await {
            Ok(()) => Ok(PermitIterator { chan, n }),
            Err(()) => Err(SendError(())),
        }
    }

    /// Reserves one slot if there is room now.
    pub fn try_reserve(&self) -> Result<Permit<'_, T>, TrySendError<()>> {
        let chan = &*self.tx.chan;
        match chan.try_reserve(1) {
            Ok(()) => Ok(Permit { chan }),
            Err(TryAcquireError::Closed) => Err(TrySendError::Closed(())),
            Err(TryAcquireError::NoPermits) => Err(TrySendError::Full(())),
        }
    }

    /// Reserves `n` slots if there is room now.
    pub fn try_reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, TrySendError<()>> {
        let chan = &*self.tx.chan;
        if n > chan.bound() {
            return Err(TrySendError::Full(()));
        }
        match chan.try_reserve(n) {
            Ok(()) => Ok(PermitIterator { chan, n }),
            Err(TryAcquireError::Closed) => Err(TrySendError::Closed(())),
            Err(TryAcquireError::NoPermits) => Err(TrySendError::Full(())),
        }
    }

    /// [`reserve`](Self::reserve), with the permit owning the sender.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe, except that the place in the queue is lost.
    pub async fn reserve_owned(self) -> Result<OwnedPermit<T>, SendError<()>> {
        if self.tx.chan.reserve(1, true).await.is_err() {
            return Err(SendError(()));
        }
        Ok(OwnedPermit { sender: Some(self) })
    }

    /// [`try_reserve`](Self::try_reserve), with the permit owning the
    /// sender (given back in the error).
    pub fn try_reserve_owned(self) -> Result<OwnedPermit<T>, TrySendError<Self>> {
        match self.tx.chan.try_reserve(1) {
            Ok(()) => Ok(OwnedPermit { sender: Some(self) }),
            Err(TryAcquireError::Closed) => Err(TrySendError::Closed(self)),
            Err(TryAcquireError::NoPermits) => Err(TrySendError::Full(self)),
        }
    }

    /// The room left now (slots neither filled nor reserved).
    pub fn capacity(&self) -> usize {
        self.tx.chan.capacity()
    }

    /// The capacity the channel was created with.
    pub fn max_capacity(&self) -> usize {
        self.tx.chan.bound()
    }

    tx_methods!(WeakSender);
}

impl<T> Receiver<T> {
    rx_methods!();

    /// The room left now (slots neither filled nor reserved).
    pub fn capacity(&self) -> usize {
        self.rx.chan.capacity()
    }

    /// The capacity the channel was created with.
    pub fn max_capacity(&self) -> usize {
        self.rx.chan.bound()
    }
}

impl<T> Permit<'_, T> {
    /// Sends `value` into the reserved slot.
    pub fn send(self, value: T) {
        let chan = self.chan;
        // The slot is now the value's: no give-back on drop, even if waking
        // the receiver panics after the value is in.
        std::mem::forget(self);
        chan.push(value);
    }
}

impl<T> Drop for Permit<'_, T> {
    fn drop(&mut self) {
        self.chan.release_permit();
    }
}

impl<T> OwnedPermit<T> {
    /// Sends `value` into the reserved slot and returns the sender.
    pub fn send(mut self, value: T) -> Sender<T> {
        let sender = self.sender.take().expect("sender is present");
        sender.tx.chan.push(value);
        sender
    }

    /// Gives the slot back unused and returns the sender.
    pub fn release(mut self) -> Sender<T> {
        let sender = self.sender.take().expect("sender is present");
        sender.tx.chan.release_permit();
        sender
    }

    /// Whether both belong to the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        match (&self.sender, &other.sender) {
            (Some(a), Some(b)) => a.same_channel(b),
            _ => false,
        }
    }

    /// Whether this permit belongs to the same channel as `sender`.
    ///
    /// ```
    /// use volt_channel::mpsc;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let (tx, _rx) = mpsc::channel::<()>(1);
    /// let permit = tx.clone().reserve_owned().await.unwrap();
    /// assert!(permit.same_channel_as_sender(&tx));
    ///
    /// let (other, _other_rx) = mpsc::channel::<()>(1);
    /// assert!(!permit.same_channel_as_sender(&other));
    /// # });
    /// ```
    pub fn same_channel_as_sender(&self, sender: &Sender<T>) -> bool {
        self.sender.as_ref().is_some_and(|s| s.same_channel(sender))
    }
}

impl<T> Drop for OwnedPermit<T> {
    fn drop(&mut self) {
        if let Some(sender) = &self.sender {
            sender.tx.chan.release_permit();
        }
    }
}

impl<'a, T> Iterator for PermitIterator<'a, T> {
    type Item = Permit<'a, T>;

    fn next(&mut self) -> Option<Permit<'a, T>> {
        if self.n == 0 {
            return None;
        }
        self.n -= 1;
        Some(Permit { chan: self.chan })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.n, Some(self.n))
    }
}

impl<T> ExactSizeIterator for PermitIterator<'_, T> {}

// Once `n` reaches zero it stays there.
impl<T> std::iter::FusedIterator for PermitIterator<'_, T> {}

impl<T> Drop for PermitIterator<'_, T> {
    fn drop(&mut self) {
        for _ in 0..self.n {
            self.chan.release_permit();
        }
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        Sender {
            tx: self.tx.clone(),
        }
    }
}

macro_rules! debug_as {
    ($($ty:ident $(<$lt:lifetime>)?),*) => {$(
        impl<T> fmt::Debug for $ty<$($lt,)? T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($ty)).finish_non_exhaustive()
            }
        }
    )*};
}

debug_as!(Sender, WeakSender, Receiver, OwnedPermit);
debug_as!(Permit<'_>, PermitIterator<'_>);
