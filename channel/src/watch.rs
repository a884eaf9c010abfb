//! A single-value channel whose receivers see the latest value: tokio's
//! `sync::watch`, same API and behaviour.
//!
//! ```
//! use volt_channel::watch;
//!
//! # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
//! let (tx, mut rx) = watch::channel("hello");
//! volt_runtime::spawn(async move {
//!     tx.send("world").unwrap();
//! });
//! rx.changed().await.unwrap();
//! assert_eq!(*rx.borrow_and_update(), "world");
//! # });
//! ```
//!
//! # Protocol
//!
//! * The value sits behind a read-write lock; a [`Ref`] holds a read guard
//!   (keep it short: senders wait for it).
//! * `state` holds a version, counted in steps of 2, and the `CLOSED` bit
//!   (bit 0), set when the last sender goes. A send bumps the version while
//!   it still holds the write lock, so a reader holding the read lock sees
//!   the version that matches the value it reads. Only two parties write
//!   `state`: a sender under the write lock, and the last sender's drop,
//!   which no send overlaps (every other sender is gone). So the bump is a
//!   load and a store, not a read-modify-write.
//! * Each receiver remembers the version it has seen; `changed()` returns
//!   when the version differs, at a first look that takes no lock.
//!   Otherwise the receiver counts itself in `waiting`, enables a
//!   `Notified` of `notify_rx` (a [`Notify`]) and looks again under the
//!   read lock. A send reads `waiting` under the write lock and calls
//!   `notify_waiters` only when it is not zero. The lock orders the two
//!   looks: if the receiver's locked look came first, its count (made
//!   before it) is seen by the send, which then wakes its `Notified`
//!   (enabled before it); if the send came first, the look sees its
//!   version. A send with no receiver waiting touches no waiter list.
//! * The last sender's drop sets `CLOSED` and always calls
//!   `notify_waiters`: a receiver whose `Notified` was created before that
//!   call is woken, one created after it sees `CLOSED`. Senders in
//!   `closed()` sleep on `notify_tx` the same way.

use crate::bridge;
use crate::bridge::loom::sync::atomic::{AtomicUsize, Ordering::*};
use crate::bridge::loom::sync::{Arc, RwLock, RwLockReadGuard};
use volt_sync::Notify;

use std::future::Future;
use std::ops::Deref;
use std::panic::{self, AssertUnwindSafe};
use std::pin::pin;
use std::task::{Context, ready};
use std::{fmt, mem};

pub mod error {
    //! Watch error types.

    use std::fmt;

    /// Error returned by [`Sender::send`](super::Sender::send): no receiver
    /// is left; the value comes back.
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

    impl<T> std::error::Error for SendError<T> {}

    /// Error returned by [`Receiver::changed`](super::Receiver::changed)
    /// and friends: every sender is gone.
    #[derive(Debug, Clone)]
    pub struct RecvError(pub(super) ());

    impl fmt::Display for RecvError {
        fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(fmt, "channel closed")
        }
    }

    impl std::error::Error for RecvError {}
}

use error::{RecvError, SendError};

const CLOSED: usize = 1;
const VERSION_STEP: usize = 2;

struct Shared<T> {
    value: RwLock<T>,
    state: AtomicUsize,
    /// Receivers in `changed()` past its first look (they may sleep).
    waiting: AtomicUsize,
    rx_count: AtomicUsize,
    tx_count: AtomicUsize,
    notify_rx: Notify,
    notify_tx: Notify,
}

impl<T> Shared<T> {
    fn version(&self) -> usize {
        // Acquire: pairs with the sender's Release bump.
        self.state.load(Acquire) & !CLOSED
    }

    fn is_closed(&self) -> bool {
        self.state.load(Acquire) & CLOSED != 0
    }

    /// A new version, under the value's write lock: returns how many
    /// receivers may be waiting for it (`notify_waiters` is due if any).
    #[inline]
    fn publish(&self) -> usize {
        // Under the write lock no other send runs, and the last sender's
        // drop (the one other writer) cannot overlap a send: a load and a
        // store. Release: a receiver that sees the new version (then takes
        // the read lock) reads the new value.
        let state = self.state.load(Relaxed);
        self.state.store(state.wrapping_add(VERSION_STEP), Release);
        // Relaxed: the lock orders a receiver's count before its locked
        // look; a look before this section has its count seen here.
        self.waiting.load(Relaxed)
    }

    /// `Some` once `version` is stale (marking it seen) or the channel is
    /// closed.
    fn maybe_changed(&self, version: &mut usize) -> Option<Result<(), RecvError>> {
        let state = self.state.load(Acquire);
        if state & !CLOSED != *version {
            *version = state & !CLOSED;
            return Some(Ok(()));
        }
        if state & CLOSED != 0 {
            return Some(Err(RecvError(())));
        }
        None
    }

    async fn changed(&self, version: &mut usize) -> Result<(), RecvError> {
        // First look, no lock: a value not seen yet, or closed.
        if let Some(res) = self.maybe_changed(version) {
            return res;
        }
        let _waiting = Waiting::count(&self.waiting);
        loop {
            let mut notified = pin!(self.notify_rx.notified());
            // Enabled before the locked look: a send whose locked section
            // follows the look sees `waiting` and wakes it.
            notified.as_mut().enable();
            let res = {
                let _order = self.value.read();
                self.maybe_changed(version)
            };
            if let Some(res) = res {
                return res;
            }
            notified.await;
        }
    }
}

/// A receiver counted in `Shared::waiting` while it lives.
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn count(waiting: &'a AtomicUsize) -> Self {
        // Relaxed: the read lock taken after it (its release) orders it
        // before the next send's locked read of `waiting`.
        waiting.fetch_add(1, Relaxed);
        Waiting(waiting)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        // Relaxed: a send that still sees this count only wakes in vain.
        self.0.fetch_sub(1, Relaxed);
    }
}

/// Runs `fut` under the coop budget, as tokio's `watch` does.
async fn cooperative<F: Future>(fut: F) -> F::Output {
    let mut fut = pin!(fut);
    std::future::poll_fn(|cx: &mut Context<'_>| {
        let coop = ready!(bridge::poll_proceed(cx));
        let res = fut.as_mut().poll(cx);
        if res.is_ready() {
            coop.made_progress();
        }
        res
    })
    .await
}

/// Creates a watch channel holding `init`.
pub fn channel<T>(init: T) -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Shared {
        value: RwLock::new(init),
        state: AtomicUsize::new(0),
        waiting: AtomicUsize::new(0),
        rx_count: AtomicUsize::new(1),
        tx_count: AtomicUsize::new(1),
        notify_rx: Notify::new(),
        notify_tx: Notify::new(),
    });
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver { shared, version: 0 },
    )
}

/// Sends values to the associated [`Receiver`]s. Clone it for more
/// senders; the channel closes when the last one goes.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// Receives values from the associated [`Sender`]s. Clone it (or
/// [`subscribe`](Sender::subscribe)) for more receivers; each keeps its own
/// notion of what it has seen.
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    version: usize,
}

/// A borrowed value, holding the channel's read lock: keep it short, and
/// never across an `.await`.
pub struct Ref<'a, T> {
    inner: RwLockReadGuard<'a, T>,
    has_changed: bool,
}

impl<T> Ref<'_, T> {
    /// Whether the value had changed since the receiver last marked it
    /// seen (always `false` for [`Sender::borrow`]).
    pub fn has_changed(&self) -> bool {
        self.has_changed
    }
}

impl<T> Deref for Ref<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T> Receiver<T> {
    /// The current value, without marking it seen.
    pub fn borrow(&self) -> Ref<'_, T> {
        let inner = self.shared.value.read();
        // Under the read lock no send completes, so this version is the
        // value's.
        let has_changed = self.shared.version() != self.version;
        Ref { inner, has_changed }
    }

    /// The current value, marking it seen.
    pub fn borrow_and_update(&mut self) -> Ref<'_, T> {
        let inner = self.shared.value.read();
        let version = self.shared.version();
        let has_changed = version != self.version;
        self.version = version;
        Ref { inner, has_changed }
    }

    /// Whether a value not seen yet is there. Fails once every sender is
    /// gone.
    pub fn has_changed(&self) -> Result<bool, RecvError> {
        if self.shared.is_closed() {
            return Err(RecvError(()));
        }
        Ok(self.shared.version() != self.version)
    }

    /// Whether every sender is gone.
    pub fn is_closed(&self) -> bool {
        self.shared.is_closed()
    }

    /// Makes the current value count as not seen.
    pub fn mark_changed(&mut self) {
        self.version = self.version.wrapping_sub(VERSION_STEP);
    }

    /// Makes the current value count as seen.
    pub fn mark_unchanged(&mut self) {
        self.version = self.shared.version();
    }

    /// Waits for a value not seen yet and marks it seen. Fails once every
    /// sender is gone (and the latest value was already seen).
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe.
    pub async fn changed(&mut self) -> Result<(), RecvError> {
        cooperative(self.shared.changed(&mut self.version)).await
    }

    /// Waits until the value satisfies `f` (checking the current value
    /// first) and returns it, marked seen. Fails if every sender is gone
    /// before that.
    ///
    /// # Panics
    ///
    /// If `f` panics (the panic is passed on; the lock is released first).
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe.
    pub async fn wait_for(
        &mut self,
        mut f: impl FnMut(&T) -> bool,
    ) -> Result<Ref<'_, T>, RecvError> {
        let shared = &*self.shared;
        let version = &mut self.version;
        cooperative(async move {
            let mut closed = false;
            loop {
                {
                    // The read guard lives in this block only, never across
                    // the `.await` below.
                    let inner = shared.value.read();
                    let new_version = shared.version();
                    let has_changed = *version != new_version;
                    *version = new_version;
                    if !closed || has_changed {
                        match panic::catch_unwind(AssertUnwindSafe(|| f(&inner))) {
                            Ok(true) => return Ok(Ref { inner, has_changed }),
                            Ok(false) => {}
                            Err(payload) => {
                                drop(inner);
                                panic::resume_unwind(payload);
                            }
                        }
                    }
                }
                if closed {
                    return Err(RecvError(()));
                }
                closed = shared.changed(version).await.is_err();
            }
        })
        .await
    }

    /// Whether both receivers belong to the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl<T: Default> Default for Sender<T> {
    /// A sender of `T::default()` with no receiver yet.
    fn default() -> Self {
        Sender::new(T::default())
    }
}

impl<T> Sender<T> {
    /// A sender with no receiver yet (see [`subscribe`](Self::subscribe)).
    pub fn new(init: T) -> Self {
        channel(init).0
    }

    /// Replaces the value and notifies the receivers. Fails, giving the
    /// value back, if there is no receiver.
    #[inline]
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        if self.shared.rx_count.load(Acquire) == 0 {
            return Err(SendError(value));
        }
        self.send_replace(value);
        Ok(())
    }

    /// Modifies the value in place and notifies the receivers (even if
    /// there is none).
    pub fn send_modify<F: FnOnce(&mut T)>(&self, modify: F) {
        self.send_if_modified(|v| {
            modify(v);
            true
        });
    }

    /// Modifies the value in place; notifies the receivers only if
    /// `modify` returns `true`. If `modify` panics, the change does not
    /// count as a new version (the panic is passed on).
    pub fn send_if_modified<F: FnOnce(&mut T) -> bool>(&self, modify: F) -> bool {
        let shared = &*self.shared;
        let waiting = {
            let mut lock = shared.value.write();
            match panic::catch_unwind(AssertUnwindSafe(|| modify(&mut lock))) {
                Ok(false) => return false,
                Ok(true) => shared.publish(),
                Err(payload) => {
                    drop(lock);
                    panic::resume_unwind(payload);
                }
            }
        };
        if waiting != 0 {
            shared.notify_rx.notify_waiters();
        }
        true
    }

    /// Replaces the value, returning the old one, and notifies the
    /// receivers (even if there is none).
    #[inline]
    pub fn send_replace(&self, mut value: T) -> T {
        let shared = &*self.shared;
        // A swap cannot panic: no `catch_unwind` here, unlike
        // `send_if_modified`. The old value is dropped by the caller,
        // after the lock is released.
        let waiting = {
            let mut lock = shared.value.write();
            mem::swap(&mut *lock, &mut value);
            shared.publish()
        };
        if waiting != 0 {
            shared.notify_rx.notify_waiters();
        }
        value
    }

    /// The current value.
    pub fn borrow(&self) -> Ref<'_, T> {
        Ref {
            inner: self.shared.value.read(),
            has_changed: false,
        }
    }

    /// Whether every receiver is gone.
    pub fn is_closed(&self) -> bool {
        self.receiver_count() == 0
    }

    /// Waits until every receiver is gone.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe.
    pub async fn closed(&self) {
        cooperative(async {
            loop {
                let mut notified = pin!(self.shared.notify_tx.notified());
                notified.as_mut().enable();
                if self.is_closed() {
                    return;
                }
                notified.await;
            }
        })
        .await
    }

    /// A new receiver that has seen the current value.
    pub fn subscribe(&self) -> Receiver<T> {
        // Relaxed: we hold a handle, the shared state lives.
        self.shared.rx_count.fetch_add(1, Relaxed);
        Receiver {
            shared: self.shared.clone(),
            version: self.shared.version(),
        }
    }

    /// Number of receivers.
    pub fn receiver_count(&self) -> usize {
        self.shared.rx_count.load(Acquire)
    }

    /// Number of senders.
    pub fn sender_count(&self) -> usize {
        self.shared.tx_count.load(Acquire)
    }

    /// Whether both senders belong to the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.shared.tx_count.fetch_add(1, Relaxed);
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        // AcqRel: the last sender's close follows every send.
        if self.shared.tx_count.fetch_sub(1, AcqRel) == 1 {
            self.shared.state.fetch_or(CLOSED, Release);
            self.shared.notify_rx.notify_waiters();
        }
    }
}

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Self {
        self.shared.rx_count.fetch_add(1, Relaxed);
        Receiver {
            shared: self.shared.clone(),
            version: self.version,
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        if self.shared.rx_count.fetch_sub(1, AcqRel) == 1 {
            self.shared.notify_tx.notify_waiters();
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for Ref<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: fmt::Debug> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender")
            .field("value", &*self.borrow())
            .finish()
    }
}

impl<T: fmt::Debug> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("value", &*self.borrow())
            .finish()
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::future::block_on;
    use loom::thread;

    /// A send races a receiver going to sleep in `changed()`.
    #[test]
    fn send_races_changed() {
        loom::model(|| {
            let (tx, mut rx) = channel(0u32);
            let t = thread::spawn(move || {
                tx.send(1).unwrap();
            });
            // The close comes after the send, so the change is seen first.
            block_on(rx.changed()).unwrap();
            assert_eq!(*rx.borrow_and_update(), 1);
            t.join().unwrap();
            assert!(block_on(rx.changed()).is_err());
            assert_eq!(*rx.borrow(), 1);
        });
    }

    /// A receiver that saw the first of two sends waits for the second:
    /// the second send's locked section either follows the receiver's
    /// locked look (and sees it counted) or precedes it (and the look
    /// sees its version).
    #[test]
    fn second_send_wakes_a_receiver_that_saw_the_first() {
        loom::model(|| {
            let (tx, mut rx) = channel(0u32);
            let t = thread::spawn(move || {
                tx.send(1).unwrap();
                tx.send(2).unwrap();
                // Kept until the receiver is done: no close to wake it.
                tx
            });
            block_on(rx.changed()).unwrap();
            if *rx.borrow_and_update() == 1 {
                block_on(rx.changed()).unwrap();
            }
            assert_eq!(*rx.borrow_and_update(), 2);
            drop(t.join().unwrap());
        });
    }

    /// Two receivers waiting at once are both woken by one send, the
    /// sender holding on so that no close wakes them instead.
    #[test]
    fn one_send_wakes_two_waiting_receivers() {
        loom::model(|| {
            let (tx, rx1) = channel(0u32);
            let mut rx2 = rx1.clone();
            let t = thread::spawn(move || {
                let mut rx1 = rx1;
                block_on(rx1.changed()).unwrap();
                assert_eq!(*rx1.borrow(), 1);
            });
            let s = thread::spawn(move || {
                tx.send(1).unwrap();
                tx
            });
            block_on(rx2.changed()).unwrap();
            assert_eq!(*rx2.borrow(), 1);
            t.join().unwrap();
            drop(s.join().unwrap());
        });
    }

    /// The last receiver leaving wakes a sender in `closed()`.
    #[test]
    fn receiver_drop_wakes_closed() {
        loom::model(|| {
            let (tx, rx) = channel(0u32);
            let t = thread::spawn(move || drop(rx));
            block_on(tx.closed());
            t.join().unwrap();
        });
    }
}
