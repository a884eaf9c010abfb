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
//! sender's for `closed()`) and a state word with four bits for the
//! protocol (and two for ownership, below):
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
//!   (the channel is smaller than tokio's).
//!
//! The sender writes the cell before setting `COMPLETE` (Release); the
//! receiver reads it only after seeing `COMPLETE` (Acquire). Each side
//! registers its waker and then looks at the state again (the value its
//! `fetch_or` returns), so a change made between its first look and the
//! registration is not missed.
//!
//! # Who frees the block
//!
//! The shared block is a plain allocation, not an `Arc`: its two owners
//! are counted in the same state word, by two more bits. Its memory comes
//! from, and goes back to, a small per-thread cache of freed blocks
//! (`cache.rs`), so a channel made where one was just dropped does not
//! call the allocator.
//!
//! * `TX_GONE` / `RX_GONE`: that side has let go of the block and will not
//!   touch it again. A side lets go with an RMW (AcqRel: its own accesses
//!   happen before the free, the other side's before ours); the side whose
//!   RMW finds the other's bit already set frees the block. A side that
//!   has *seen* the other's bit with an Acquire load owns the block alone
//!   and frees it with no RMW at all.
//! * The sender's completing CAS sets `TX_GONE` in the same step when no
//!   receiver waker is published (nothing left to do after it). Only with
//!   `RX_WAITING` set does it wake the receiver first and let go after.
//!
//! The usual life of a channel (send, then receive) is therefore one CAS:
//! no reference count to increment on creation, none to decrement on
//! either side's drop; the receiver sees `COMPLETE | TX_GONE`, takes the
//! value and frees the block. (`tokio`'s `Arc` costs three more RMWs.)
//! Before `COMPLETE` the receiver lets go only after setting `RX_CLOSED`
//! (its drop, or a result of "closed"), on which the sender's completing
//! CAS fails; it lets go without `RX_CLOSED` only after taking its result,
//! that is after that CAS. After `COMPLETE` the sender does nothing but
//! the wake-up and its let-go. Either way the block is freed only once
//! both bits are set, or by a side that saw the other's.

use crate::bridge;
use crate::bridge::loom::cell::UnsafeCell;
use crate::bridge::loom::sync::atomic::{AtomicUsize, Ordering::*};
use volt_sync::trace;

use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::ptr::NonNull;
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
/// The sender has let go of the block (module docs, "Who frees the block").
const TX_GONE: usize = 0b1_0000;
/// The receiver has let go of the block.
const RX_GONE: usize = 0b10_0000;

struct Inner<T> {
    state: AtomicUsize,
    value: UnsafeCell<Option<T>>,
    /// Guarded by `RX_WAITING` (module docs).
    rx_waker: UnsafeCell<Option<Waker>>,
    /// Guarded by `TX_WAITING` (module docs).
    tx_waker: UnsafeCell<Option<Waker>>,
    /// tokio-console's view of the channel (feature `tracing`; zero-sized
    /// without).
    resource: trace::Resource,
    /// Loom reports a block that no side freed.
    #[cfg(loom)]
    _leak_check: UnsafeCell<Option<loom::alloc::Track<()>>>,
    /// Under loom a freed block is only marked (its memory stays), so an
    /// access after the free panics instead of going unnoticed.
    #[cfg(loom)]
    freed: std::sync::atomic::AtomicBool,
}

// SAFETY: the value moves from the sender's thread to the receiver's
// (`T: Send`); the cell is owned by one side at a time (module docs).
unsafe impl<T: Send> Send for Inner<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Inner<T> {}

/// The sender's last step: sets `COMPLETE` unless the receiver is closed,
/// and lets go of the block. Returns `false` (having let go of nothing) if
/// the receiver is closed: the caller takes its value back, if any, and
/// then calls [`release`].
///
/// # Safety
///
/// `ptr` is the sender's block, and the sender has not let go of it.
#[inline]
unsafe fn complete<T>(ptr: NonNull<Inner<T>>) -> bool {
    // SAFETY: the sender has not let go, so the block is alive.
    let inner = unsafe { ptr.as_ref() }.live();
    let mut state = inner.state.load(Relaxed);
    loop {
        if state & RX_CLOSED != 0 {
            return false;
        }
        // No receiver waker to wake: let go in the same step.
        let next = if state & RX_WAITING == 0 {
            state | COMPLETE | TX_GONE
        } else {
            state | COMPLETE
        };
        // AcqRel: Release publishes the value (and, with TX_GONE, every
        // access of ours) to the receiver; Acquire for its waker.
        match inner
            .state
            .compare_exchange_weak(state, next, AcqRel, Relaxed)
        {
            Ok(_) => {
                if state & RX_WAITING != 0 {
                    // SAFETY: RX_WAITING was set when our RMW set
                    // COMPLETE: the cell is published and the receiver no
                    // longer writes it. The block lives until we let go.
                    unsafe { wake_cell(&inner.live().rx_waker) };
                    // SAFETY: we have not let go yet, and touch nothing after.
                    unsafe { release(ptr, TX_GONE) };
                }
                return true;
            }
            Err(actual) => state = actual,
        }
    }
}

/// Lets go of the block for one side (`gone`: `TX_GONE` or `RX_GONE`),
/// freeing it if the other side already has.
///
/// # Safety
///
/// `ptr` is live, the caller's side has not let go before, and it does not
/// touch the block after this call.
unsafe fn release<T>(ptr: NonNull<Inner<T>>, gone: usize) {
    let other = (TX_GONE | RX_GONE) & !gone;
    // SAFETY: the caller has not let go, so the block is alive.
    let inner = unsafe { ptr.as_ref() }.live();
    // AcqRel: Release orders our accesses before the other side's free;
    // Acquire orders the other side's accesses before ours.
    let state = inner.state.fetch_or(gone, AcqRel);
    if state & other != 0 {
        // SAFETY: both sides have let go; we were last, and alone.
        unsafe { free(ptr) };
    }
}

/// Frees the block.
///
/// # Safety
///
/// Both sides have let go of the block, or the caller's side has not and
/// has seen (Acquire) the other side's `*_GONE` bit: nobody else touches it.
unsafe fn free<T>(ptr: NonNull<Inner<T>>) {
    #[cfg(not(loom))]
    // SAFETY: allocated by `cache::alloc` and written in `channel`;
    // exclusive (contract), so dropped and given back exactly once.
    unsafe {
        std::ptr::drop_in_place(ptr.as_ptr());
        cache::free(ptr);
    }
    #[cfg(loom)]
    {
        // SAFETY: exclusive (contract): nobody else touches the cells.
        // Loom: drop the contents (and the leak tracker), keep the memory
        // marked as freed (see `Inner::freed`).
        unsafe {
            let inner = ptr.as_ref().live();
            inner.value.with_mut(|p| *p = None);
            inner.rx_waker.with_mut(|p| *p = None);
            inner.tx_waker.with_mut(|p| *p = None);
            inner._leak_check.with_mut(|p| *p = None);
            inner
                .freed
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

impl<T> Inner<T> {
    /// `self`, checked (under loom) not to be freed yet.
    #[inline(always)]
    fn live(&self) -> &Self {
        #[cfg(loom)]
        assert!(
            !self.freed.load(std::sync::atomic::Ordering::Relaxed),
            "oneshot block used after it was freed"
        );
        self
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
            unsafe { wake_cell(&self.live().tx_waker) };
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
#[track_caller]
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let resource = trace::Resource::new("Sender|Receiver", "Sync");
    trace::state!(
        resource,
        tx_dropped = false,
        rx_dropped = false,
        value_sent = false,
        value_received = false
    );
    let op = resource.async_op("Receiver::await");
    let inner = Inner {
        resource,
        state: AtomicUsize::new(0),
        value: UnsafeCell::new(None),
        rx_waker: UnsafeCell::new(None),
        tx_waker: UnsafeCell::new(None),
        #[cfg(loom)]
        _leak_check: UnsafeCell::new(Some(loom::alloc::Track::new(()))),
        #[cfg(loom)]
        freed: std::sync::atomic::AtomicBool::new(false),
    };
    #[cfg(not(loom))]
    let ptr = {
        let ptr = cache::alloc::<Inner<T>>();
        // SAFETY: fresh memory for an `Inner<T>`, ours alone.
        unsafe { ptr.as_ptr().write(inner) };
        ptr
    };
    // Loom: a `Box`, so that its leak check sees the block.
    #[cfg(loom)]
    let ptr = NonNull::from(Box::leak(Box::new(inner)));
    (
        Sender { inner: Some(ptr) },
        Receiver {
            inner: Some(ptr),
            op,
        },
    )
}

/// Sends a value to the associated [`Receiver`].
pub struct Sender<T> {
    /// The shared block; `None` once this side has let go of it.
    inner: Option<NonNull<Inner<T>>>,
}

/// Receives a value from the associated [`Sender`]. Await it (it is a
/// `Future`) or use [`try_recv`](Receiver::try_recv).
///
/// # Cancel safety
///
/// Awaiting `&mut Receiver` is cancel safe: dropping the `&mut` future
/// loses nothing, the value can still be received later.
pub struct Receiver<T> {
    /// The shared block; `None` once this side has let go of it (it has
    /// produced its result).
    inner: Option<NonNull<Inner<T>>>,
    /// Its await as tokio-console's async op (feature `tracing`;
    /// zero-sized without).
    op: trace::AsyncOp,
}

// SAFETY: the handles are what an `Arc<Inner<T>>` would be: the block is
// shared between two threads at most, and `Inner<T>` is `Send + Sync` for
// `T: Send` (the value only moves from one side to the other).
unsafe impl<T: Send> Send for Sender<T> {}
// SAFETY: as above; `&Sender` only reads the state word.
unsafe impl<T: Send> Sync for Sender<T> {}
// SAFETY: as for `Sender`.
unsafe impl<T: Send> Send for Receiver<T> {}
// SAFETY: as above; `&Receiver` only reads the state word and, after
// `COMPLETE`, checks the value cell that belongs to the receiver.
unsafe impl<T: Send> Sync for Receiver<T> {}

impl<T> Sender<T> {
    fn inner(&self) -> Option<&Inner<T>> {
        // SAFETY: `Some` until this side lets go, and the block lives until
        // both have.
        self.inner.map(|ptr| unsafe { &*ptr.as_ptr() }.live())
    }

    /// Sends `t`, or gives it back if the receiver is closed or dropped.
    /// A successful send does not mean the receiver will read the value: it
    /// may still be dropped first (and the value with it).
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_channel::oneshot;
    ///
    /// let (tx, rx) = oneshot::channel();
    /// drop(rx);
    /// assert_eq!(tx.send(7), Err(7));
    /// ```
    #[inline]
    pub fn send(mut self, t: T) -> Result<(), T> {
        let ptr = self.inner.take().expect("sender used after send");
        // `inner` is `None`: dropping `self` would do nothing.
        std::mem::forget(self);
        // SAFETY: we have not let go; the block is alive.
        let inner = unsafe { ptr.as_ref() };
        trace::state!(inner.resource, value_sent = true);
        // SAFETY: COMPLETE is not set (only this consumed sender sets it),
        // so the receiver does not touch the cell yet.
        inner.value.with_mut(|p| unsafe { *p = Some(t) });
        // SAFETY: our block, not let go of yet (`self` is forgotten, so its
        // drop will not complete it a second time).
        if unsafe { complete(ptr) } {
            return Ok(());
        }
        // SAFETY: COMPLETE was not set, so the cell is still ours. (The
        // receiver is gone: the value was never published; take it back.)
        let t = inner.value.with_mut(|p| unsafe { (*p).take() });
        // SAFETY: `complete` let go of nothing; we touch nothing after.
        unsafe { release(ptr, TX_GONE) };
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
        match self.inner() {
            // Relaxed: a snapshot.
            Some(inner) => inner.state.load(Relaxed) & RX_CLOSED != 0,
            None => true,
        }
    }

    /// Polls for the receiver being closed or dropped (the waker is stored
    /// for the next state change).
    pub fn poll_closed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let coop = ready!(bridge::poll_proceed(cx));
        let inner = self.inner().expect("sender used after send");
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
        if let Some(ptr) = self.inner.take() {
            // SAFETY: our block, not let go of yet.
            trace::state!(unsafe { ptr.as_ref() }.resource, tx_dropped = true);
            // SAFETY: our block, not let go of yet; nothing touches it after.
            unsafe {
                if !complete(ptr) {
                    release(ptr, TX_GONE);
                }
            }
        }
    }
}

impl<T> Receiver<T> {
    fn inner(&self) -> Option<&Inner<T>> {
        // SAFETY: as in `Sender::inner`.
        self.inner.map(|ptr| unsafe { &*ptr.as_ptr() }.live())
    }

    /// Lets go of the block after producing the result; `seen` is a state
    /// this side loaded with Acquire (or an AcqRel RMW).
    #[inline]
    fn let_go(&mut self, seen: usize) {
        let Some(ptr) = self.inner.take() else {
            return;
        };
        if seen & TX_GONE != 0 {
            // SAFETY: the sender let go before our Acquire look: the block
            // is ours alone.
            unsafe { free(ptr) };
        } else {
            // SAFETY: not let go before (`inner` was `Some`); `None` now.
            unsafe { release(ptr, RX_GONE) };
        }
    }

    /// Prevents the sender from sending: its `send` fails from now on and
    /// its `closed()` resolves. A value sent before can still be received
    /// with [`try_recv`](Self::try_recv).
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_channel::oneshot;
    ///
    /// let (tx, mut rx) = oneshot::channel::<u32>();
    /// rx.close();
    /// assert!(tx.is_closed());
    /// assert_eq!(tx.send(1), Err(1));
    /// ```
    pub fn close(&mut self) {
        if let Some(inner) = self.inner() {
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
        let Some(inner) = self.inner() else {
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
        let inner = self.inner().ok_or(TryRecvError::Closed)?;
        // Acquire: pairs with the sender's completion (and its let-go).
        let state = inner.state.load(Acquire);
        let res = if state & COMPLETE != 0 {
            inner.take_value().ok_or(TryRecvError::Closed)
        } else if state & RX_CLOSED != 0 {
            Err(TryRecvError::Closed)
        } else {
            return Err(TryRecvError::Empty);
        };
        self.let_go(state);
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

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        // Owned guards (span clones, as tokio's receiver takes them):
        // `poll_recv` borrows the whole receiver.
        let scope = this.op.enter_poll("poll_recv");
        scope.done(this.poll_recv(cx))
    }
}

impl<T> Receiver<T> {
    #[inline]
    fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Result<T, RecvError>> {
        let this = self;
        let inner = this.inner().expect("called after complete");
        let coop = ready!(bridge::poll_proceed(cx));
        // `register` returns the state with Acquire (or AcqRel) ordering.
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
            let value = inner.take_value();
            trace::state!(inner.resource, value_received = value.is_some());
            value.ok_or(RecvError(()))
        } else if state & RX_CLOSED != 0 {
            Err(RecvError(()))
        } else {
            return Poll::Pending;
        };
        coop.made_progress();
        this.let_go(state);
        Poll::Ready(res)
    }
}

impl<T> Drop for Receiver<T> {
    #[inline]
    fn drop(&mut self) {
        // Inline check: a receiver that produced its result (the usual
        // case) has nothing left to do.
        if self.inner.is_some() {
            self.drop_slow();
        }
    }
}

impl<T> Receiver<T> {
    #[inline(never)]
    fn drop_slow(&mut self) {
        let Some(inner) = self.inner() else {
            return;
        };
        trace::state!(inner.resource, rx_dropped = true);
        // AcqRel (in `close_rx`): the state it returns may be trusted for
        // the value and for TX_GONE.
        let state = inner.close_rx();
        // The value is ours: drop it here, on the receiver's thread, but
        // only after letting go (the block may be freed meanwhile).
        let value = if state & COMPLETE != 0 {
            inner.take_value()
        } else {
            None
        };
        self.let_go(state);
        drop(value);
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

#[cfg(not(loom))]
mod cache;

#[cfg(all(test, not(loom)))]
mod tests;

#[cfg(all(test, loom))]
mod loom_tests;
