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
//! The shared state is a value cell, two waker cells (the receiver's, the
//! sender's for `closed()`) and a state word with four bits:
//!
//! * `COMPLETE`: the sender is done: it stored a value, or was dropped
//!   without one. From then on the cell belongs to the receiver. Set only if
//!   `RX_CLOSED` is not (one CAS), so a value is never handed to a receiver
//!   that has already gone: the sender keeps it and gets it back in
//!   `Err`.
//! * `RX_CLOSED`: the receiver was closed or dropped; the sender's
//!   `closed()` resolves and later sends fail.
//! * `RX_WAITING` / `TX_WAITING`: that side's waker cell is published.
//!   While the bit is clear the cell belongs to its side alone; while it
//!   is set, the other side may read it (to wake it, by reference) once it
//!   has set its own "done" bit (`COMPLETE` for the sender, `RX_CLOSED` for
//!   the receiver) in an RMW that saw the bit. A side writes its cell and
//!   then sets its bit with `fetch_or`; the state word's single
//!   modification order decides: either the other side's change is in the
//!   value `fetch_or` returns, or the other side sees the bit and wakes.
//!   To register a different waker, a side first takes its cell back by
//!   clearing the bit with a CAS that fails if the other side is done (then
//!   it is ready and does not touch the cell). The common send-before-await
//!   costs no waker operation at all, and no per-cell state word is needed
//!   (the channel is as small as tokio's).
//!
//! The sender writes the cell before setting `COMPLETE` (Release); the
//! receiver reads it only after seeing `COMPLETE` (Acquire). Each side
//! registers its waker and then looks at the state again (the value its
//! `fetch_or` returns), so a change made between its first look and the
//! registration is not missed.

use crate::bridge;
use crate::bridge::loom::cell::UnsafeCell;
use crate::bridge::loom::sync::Arc;
use crate::bridge::loom::sync::atomic::{AtomicUsize, Ordering::*};

use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::{Context, Poll, Waker, ready};

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
    /// Guarded by `RX_WAITING` (module docs).
    rx_waker: UnsafeCell<Option<Waker>>,
    /// Guarded by `TX_WAITING` (module docs).
    tx_waker: UnsafeCell<Option<Waker>>,
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
                        // SAFETY: RX_WAITING was set when our RMW set
                        // COMPLETE: the cell is published and the receiver
                        // no longer writes it.
                        unsafe { wake_cell(&self.rx_waker) };
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
            // SAFETY: TX_WAITING was set when our RMW set RX_CLOSED: the
            // cell is published and the sender no longer writes it.
            unsafe { wake_cell(&self.tx_waker) };
        }
        prev
    }

    /// Registers `waker` in `cell`, published by the `waiting` bit, unless
    /// a bit of `done` is set. Returns `Err(state)` with the state that
    /// has `done` set (the caller is ready), `Ok(())` once registered.
    fn register(
        &self,
        cell: &UnsafeCell<Option<Waker>>,
        waiting: usize,
        done: usize,
        waker: &Waker,
    ) -> Result<(), usize> {
        // Acquire: pairs with the other side's RMW that set `done`.
        let mut state = self.state.load(Acquire);
        if state & done != 0 {
            return Err(state);
        }
        if state & waiting != 0 {
            // SAFETY: published: the other side may read it at the same
            // time, but nobody writes it (we are its only writer).
            let same = cell.with(|p| unsafe { (*p).as_ref().is_some_and(|w| w.will_wake(waker)) });
            if same {
                return Ok(());
            }
            // Take the cell back: clear `waiting` unless `done` came first
            // (then the other side may be reading the cell: leave it).
            loop {
                // Acquire: on failure, for the value if `done` is set now.
                match self
                    .state
                    .compare_exchange_weak(state, state & !waiting, Acquire, Acquire)
                {
                    Ok(_) => break,
                    Err(actual) if actual & done != 0 => return Err(actual),
                    Err(actual) => state = actual,
                }
            }
        }
        // SAFETY: `waiting` is clear: the cell is ours alone (an RMW of the
        // other side that sets `done` from now on sees the bit clear and
        // leaves the cell alone).
        cell.with_mut(|p| unsafe { *p = Some(waker.clone()) });
        // AcqRel: Release publishes the waker to the other side's RMW that
        // sets `done`; Acquire for the value if `done` is in `prev`.
        let prev = self.state.fetch_or(waiting, AcqRel);
        if prev & done != 0 {
            return Err(prev);
        }
        Ok(())
    }
}

/// Wakes the waker in a published cell (it stays there: the channel drops
/// it).
///
/// # Safety
///
/// The cell's `*_WAITING` bit must have been seen set by the caller's RMW
/// that set the other side's "done" bit (so the owner no longer writes it).
unsafe fn wake_cell(cell: &UnsafeCell<Option<Waker>>) {
    // SAFETY: the caller's contract: only shared reads from now on.
    cell.with(|p| unsafe {
        if let Some(waker) = &*p {
            waker.wake_by_ref();
        }
    });
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
        rx_waker: UnsafeCell::new(None),
        tx_waker: UnsafeCell::new(None),
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
        match inner.register(&inner.tx_waker, TX_WAITING, RX_CLOSED, cx.waker()) {
            Ok(()) => Poll::Pending,
            Err(_) => {
                coop.made_progress();
                Poll::Ready(())
            }
        }
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
        let state = match inner.register(
            &inner.rx_waker,
            RX_WAITING,
            COMPLETE | RX_CLOSED,
            cx.waker(),
        ) {
            Ok(()) => return Poll::Pending,
            Err(state) => state,
        };
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

    /// The receiver re-registers with a different waker (it moved to
    /// another task) while the sender completes: the second waker is woken,
    /// or the second poll sees the value; the cell is never written while
    /// the sender reads it (loom checks the cell accesses).
    #[test]
    fn reregistration_races_the_send() {
        loom::model(|| {
            let (tx, mut rx) = channel::<u32>();
            let t = thread::spawn(move || tx.send(1));
            let mut rx_ref = std::pin::pin!(&mut rx);
            let first = rx_ref
                .as_mut()
                .poll(&mut Context::from_waker(std::task::Waker::noop()));
            if first.is_pending() {
                // A different waker: the cell is taken back and rewritten.
                assert_eq!(block_on(rx_ref), Ok(1));
            } else {
                assert_eq!(first, Poll::Ready(Ok(1)));
            }
            assert_eq!(t.join().unwrap(), Ok(()));
        });
    }

    /// The sender's `closed()` re-registers while the receiver drops.
    #[test]
    fn closed_reregistration_races_receiver_drop() {
        loom::model(|| {
            let (mut tx, rx) = channel::<u32>();
            let t = thread::spawn(move || drop(rx));
            let first = tx.poll_closed(&mut Context::from_waker(std::task::Waker::noop()));
            if first.is_pending() {
                block_on(tx.closed());
            }
            assert!(tx.is_closed());
            t.join().unwrap();
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
