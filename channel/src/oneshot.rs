//! A one-shot channel: one value, from one task to another (tokio's
//! `sync::oneshot`, same API and behaviour).
//!
//! ```
//! use volt_channel::oneshot;
//!
//! # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
//! let (tx, rx) = oneshot::channel();
//! volt_runtime::spawn(async move {
//!     if tx.send(3).is_err() {
//!         println!("the receiver dropped");
//!     }
//! });
//! assert_eq!(rx.await, Ok(3));
//! # });
//! ```
//!
//! # Protocol
//!
//! The shared state is a value cell, two [`AtomicWaker`]s (the receiver's,
//! the sender's for `closed()`) and a state word with four bits:
//!
//! * `COMPLETE`: the sender is done: it stored a value, or was dropped
//!   without one. From then on the cell belongs to the receiver. Set only if
//!   `RX_CLOSED` is not (one CAS), so a value is never handed to a receiver
//!   that has already gone: the sender keeps it and gets it back in
//!   `Err`.
//! * `RX_CLOSED`: the receiver was closed or dropped; the sender's
//!   `closed()` resolves and later sends fail.
//! * `RX_WAITING` / `TX_WAITING`: that side has registered a waker. The
//!   other side touches a waker slot only when the bit is set, so the
//!   common send-before-await costs no waker operation at all. A side sets
//!   its bit with `fetch_or` *after* registering, and the state word's
//!   single modification order decides: either the other side's change is
//!   in the value `fetch_or` returns, or the other side sees the bit and
//!   wakes.
//!
//! The sender writes the cell before setting `COMPLETE` (Release); the
//! receiver reads it only after seeing `COMPLETE` (Acquire). Each side
//! registers its waker and then looks at the state again, so a change made
//! between its first look and the registration is not missed (the waker
//! slot's own protocol makes a wake that races the registration wake the
//! new waker).

use crate::bridge::loom::cell::UnsafeCell;
use crate::bridge::loom::sync::Arc;
use crate::bridge::loom::sync::atomic::{AtomicUsize, Ordering::*};
use crate::bridge::{self, AtomicWaker};

use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

pub mod error {
    //! `Oneshot` error types.

    use std::fmt;

    /// Error returned by the `Future` implementation for `Receiver`: the
    /// sender was dropped without sending.
    #[derive(Debug, Eq, PartialEq, Clone)]
    pub struct RecvError(pub(super) ());

    /// Error returned by [`Receiver::try_recv`](super::Receiver::try_recv).
    #[derive(Debug, Eq, PartialEq, Clone)]
    pub enum TryRecvError {
        /// The send half of the channel has not yet sent a value.
        Empty,
        /// The send half of the channel was dropped without sending a value.
        Closed,
    }

    impl fmt::Display for RecvError {
        fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(fmt, "channel closed")
        }
    }

    impl std::error::Error for RecvError {}

    impl fmt::Display for TryRecvError {
        fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                TryRecvError::Empty => write!(fmt, "channel empty"),
                TryRecvError::Closed => write!(fmt, "channel closed"),
            }
        }
    }

    impl std::error::Error for TryRecvError {}
}

use error::{RecvError, TryRecvError};

/// The sender is done (value stored, or dropped without one).
const COMPLETE: usize = 0b01;
/// The receiver is closed or dropped.
const RX_CLOSED: usize = 0b10;
/// The receiver has registered its waker.
const RX_WAITING: usize = 0b100;
/// The sender has registered its waker (in `closed()`).
const TX_WAITING: usize = 0b1000;

struct Inner<T> {
    state: AtomicUsize,
    value: UnsafeCell<Option<T>>,
    rx_waker: AtomicWaker,
    tx_waker: AtomicWaker,
}

// SAFETY: the value moves from the sender's thread to the receiver's
// (`T: Send`); the cell is owned by one side at a time (module docs).
unsafe impl<T: Send> Send for Inner<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Inner<T> {}

impl<T> Inner<T> {
    /// Sets `COMPLETE` unless the receiver is closed; returns whether it did.
    fn complete(&self) -> bool {
        let mut state = self.state.load(Relaxed);
        loop {
            if state & RX_CLOSED != 0 {
                return false;
            }
            // AcqRel: Release publishes the value to the receiver.
            match self
                .state
                .compare_exchange_weak(state, state | COMPLETE, AcqRel, Relaxed)
            {
                Ok(_) => {
                    if state & RX_WAITING != 0 {
                        self.rx_waker.wake();
                    }
                    return true;
                }
                Err(actual) => state = actual,
            }
        }
    }

    /// Takes the value. Caller: the receiver, after seeing `COMPLETE`.
    fn take_value(&self) -> Option<T> {
        // SAFETY: COMPLETE was observed with Acquire: the sender is done with
        // the cell, which now belongs to the receiver.
        self.value.with_mut(|p| unsafe { (*p).take() })
    }

    /// Sets `RX_CLOSED` and wakes a sender in `closed()`; returns the
    /// previous state.
    fn close_rx(&self) -> usize {
        // AcqRel: Acquire for the value if COMPLETE was set before.
        let prev = self.state.fetch_or(RX_CLOSED, AcqRel);
        if prev & (COMPLETE | TX_WAITING) == TX_WAITING {
            self.tx_waker.wake();
        }
        prev
    }
}

/// Creates a one-shot channel.
///
/// # Examples
///
/// ```
/// use volt_channel::oneshot;
///
/// let (tx, mut rx) = oneshot::channel();
/// tx.send("done").unwrap();
/// assert_eq!(rx.try_recv(), Ok("done"));
/// ```
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let inner = Arc::new(Inner {
        state: AtomicUsize::new(0),
        value: UnsafeCell::new(None),
        rx_waker: AtomicWaker::new(),
        tx_waker: AtomicWaker::new(),
    });
    (
        Sender {
            inner: Some(inner.clone()),
        },
        Receiver { inner: Some(inner) },
    )
}

/// Sends a value to the associated [`Receiver`].
pub struct Sender<T> {
    inner: Option<Arc<Inner<T>>>,
}

/// Receives a value from the associated [`Sender`]. Await it (it is a
/// `Future`) or use [`try_recv`](Receiver::try_recv).
///
/// # Cancel safety
///
/// Awaiting `&mut Receiver` is cancel safe: dropping the `&mut` future
/// loses nothing, the value can still be received later.
pub struct Receiver<T> {
    inner: Option<Arc<Inner<T>>>,
}

impl<T> Sender<T> {
    /// Sends `t`, or gives it back if the receiver is closed or dropped.
    /// A successful send does not mean the receiver will read the value: it
    /// may still be dropped first (and the value with it).
    pub fn send(mut self, t: T) -> Result<(), T> {
        let inner = self.inner.take().expect("sender used after send");
        // SAFETY: COMPLETE is not set (only this consumed sender sets it),
        // so the receiver does not touch the cell yet.
        inner.value.with_mut(|p| unsafe { *p = Some(t) });
        if inner.complete() {
            return Ok(());
        }
        // The receiver is gone: the value was never published; take it back.
        // SAFETY: COMPLETE was not set, so the cell is still ours.
        let t = inner.value.with_mut(|p| unsafe { (*p).take() });
        Err(t.expect("value stored above"))
    }

    /// Waits until the receiver is closed or dropped.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe.
    pub async fn closed(&mut self) {
        poll_fn(|cx| self.poll_closed(cx)).await
    }

    /// Whether the receiver is closed or dropped.
    pub fn is_closed(&self) -> bool {
        match &self.inner {
            // Relaxed: a snapshot.
            Some(inner) => inner.state.load(Relaxed) & RX_CLOSED != 0,
            None => true,
        }
    }

    /// Polls for the receiver being closed or dropped (the waker is stored
    /// for the next state change).
    pub fn poll_closed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let coop = ready!(bridge::poll_proceed(cx));
        let inner = self.inner.as_ref().expect("sender used after send");
        // Acquire: pairs with the receiver's close.
        if inner.state.load(Acquire) & RX_CLOSED != 0 {
            coop.made_progress();
            return Poll::Ready(());
        }
        inner.tx_waker.register_by_ref(cx.waker());
        // AcqRel: ordered with the receiver's close on the state word.
        if inner.state.fetch_or(TX_WAITING, AcqRel) & RX_CLOSED != 0 {
            coop.made_progress();
            return Poll::Ready(());
        }
        Poll::Pending
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        // Dropped without sending: complete with no value.
        if let Some(inner) = &self.inner {
            inner.complete();
        }
    }
}

impl<T> Receiver<T> {
    /// Prevents the sender from sending: its `send` fails from now on and
    /// its `closed()` resolves. A value sent before can still be received
    /// with [`try_recv`](Self::try_recv).
    pub fn close(&mut self) {
        if let Some(inner) = &self.inner {
            inner.close_rx();
        }
    }

    /// Whether this receiver has already produced its result (a value or
    /// an error) through `await` or `try_recv`.
    pub fn is_terminated(&self) -> bool {
        self.inner.is_none()
    }

    /// Whether there is no value to receive right now.
    pub fn is_empty(&self) -> bool {
        let Some(inner) = &self.inner else {
            return true;
        };
        // Acquire: the value is visible once COMPLETE is.
        if inner.state.load(Acquire) & COMPLETE == 0 {
            return true;
        }
        // SAFETY: COMPLETE: the cell is the receiver's, and we only read.
        inner.value.with(|p| unsafe { (*p).is_none() })
    }

    /// Receives the value if it has been sent.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_channel::oneshot::{self, error::TryRecvError};
    ///
    /// let (tx, mut rx) = oneshot::channel::<u32>();
    /// assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    /// drop(tx);
    /// assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    /// ```
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let inner = self.inner.as_ref().ok_or(TryRecvError::Closed)?;
        // Acquire: pairs with the sender's completion.
        let state = inner.state.load(Acquire);
        let res = if state & COMPLETE != 0 {
            inner.take_value().ok_or(TryRecvError::Closed)
        } else if state & RX_CLOSED != 0 {
            Err(TryRecvError::Closed)
        } else {
            return Err(TryRecvError::Empty);
        };
        self.inner = None;
        res
    }

    /// Blocks the thread until the value arrives.
    ///
    /// # Panics
    ///
    /// When called from a thread that drives a runtime.
    #[track_caller]
    pub fn blocking_recv(self) -> Result<T, RecvError> {
        bridge::block_on(self)
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, RecvError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let inner = this.inner.as_ref().expect("called after complete");
        let coop = ready!(bridge::poll_proceed(cx));
        // Acquire: pairs with the sender's completion.
        let mut state = inner.state.load(Acquire);
        if state & (COMPLETE | RX_CLOSED) == 0 {
            inner.rx_waker.register_by_ref(cx.waker());
            // AcqRel: ordered with the sender's completion on the state
            // word (and Acquire for the value).
            state = inner.state.fetch_or(RX_WAITING, AcqRel);
        }
        let res = if state & COMPLETE != 0 {
            inner.take_value().ok_or(RecvError(()))
        } else if state & RX_CLOSED != 0 {
            Err(RecvError(()))
        } else {
            return Poll::Pending;
        };
        coop.made_progress();
        this.inner = None;
        Poll::Ready(res)
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        if let Some(inner) = &self.inner {
            if inner.close_rx() & COMPLETE != 0 {
                // The value is ours: drop it here, on the receiver's thread.
                drop(inner.take_value());
            }
        }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender")
            .field("is_closed", &self.is_closed())
            .finish()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("is_terminated", &self.is_terminated())
            .finish()
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::future::block_on;
    use loom::thread;

    #[test]
    fn send_races_the_receiver() {
        loom::model(|| {
            let (tx, rx) = channel::<u32>();
            let t = thread::spawn(move || tx.send(1));
            assert_eq!(block_on(rx), Ok(1));
            assert_eq!(t.join().unwrap(), Ok(()));
        });
    }

    #[test]
    fn sender_dropped_without_sending_wakes_the_receiver() {
        loom::model(|| {
            let (tx, rx) = channel::<u32>();
            let t = thread::spawn(move || drop(tx));
            assert_eq!(block_on(rx), Err(RecvError(())));
            t.join().unwrap();
        });
    }

    /// The receiver drops while the sender sends: either the send fails
    /// and returns the value, or it succeeds and the receiver drops it;
    /// never both, never neither.
    #[test]
    fn send_races_receiver_drop() {
        loom::model(|| {
            let (tx, rx) = channel::<Arc<()>>();
            let v = Arc::new(());
            let v2 = v.clone();
            let t = thread::spawn(move || tx.send(v2).is_ok());
            drop(rx);
            let _sent = t.join().unwrap();
            // Either way the clone is gone again.
            assert_eq!(Arc::strong_count(&v), 1);
        });
    }

    #[test]
    fn closed_wakes_on_receiver_drop() {
        loom::model(|| {
            let (mut tx, rx) = channel::<u32>();
            let t = thread::spawn(move || drop(rx));
            block_on(tx.closed());
            assert!(tx.is_closed());
            t.join().unwrap();
        });
    }
}
