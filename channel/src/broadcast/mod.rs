//! A multi-producer, multi-consumer channel where every receiver sees
//! every value: tokio's `sync::broadcast`, same API and behaviour.
//!
//! ```
//! use volt_channel::broadcast;
//!
//! # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
//! let (tx, mut rx1) = broadcast::channel(16);
//! let mut rx2 = tx.subscribe();
//! tx.send(10).unwrap();
//! tx.send(20).unwrap();
//! assert_eq!(rx1.recv().await, Ok(10));
//! assert_eq!(rx2.recv().await, Ok(10));
//! assert_eq!(rx2.recv().await, Ok(20));
//! # });
//! ```
//!
//! # Protocol
//!
//! * A ring of `capacity` slots (rounded up to a power of two), each under
//!   its own spin lock (`spin_lock.rs`: held to replace a value, or to
//!   check a position and clone a value, never longer), holding the value,
//!   its position `pos` (the send counter when it was written) and `rem`,
//!   how many receivers still have to read it (the receivers alive when it
//!   was sent). The last reader drops the value. `rem` is an atomic
//!   written only under the slot lock, so `Sender::len` binary-searches the
//!   counters without locking slots.
//! * The tail lock guards the receiver count and the one atomic word
//!   `tail_state` that holds the next position to write and the closed
//!   flag (written only under the lock, so that a receiver with nothing
//!   new learns it with one load, without the lock). A send takes the tail
//!   lock, writes the slot at `pos % capacity` (overwriting the oldest
//!   value when the ring is full) and advances `pos`. It is a spin lock
//!   too: it is held for a send, a subscribe, a receiver's count, or a
//!   binary search in `Sender::len`, never for a walk of the ring (a
//!   dropped receiver walks its unread values under their slot locks).
//! * A receiver keeps the next position it wants. Its slot holds either
//!   that position (read it), an older one (nothing new: empty, or closed),
//!   or a newer one (it was overwritten: the receiver *lagged*; it jumps to
//!   the oldest value still held and reports how many it missed, as
//!   tokio's `RecvError::Lagged`).
//! * Receivers wait on volt-sync's [`Notify`] (enabled before they look,
//!   so a send between the look and the sleep wakes them); every send
//!   and the close wake them all. Senders in `closed()` wait on another
//!   `Notify` for the last receiver to go.

use crate::bridge;
use crate::bridge::loom::sync::Arc;
use crate::bridge::loom::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::*};
use crate::spin_lock::SpinLock;
use volt_sync::Notify;

use std::fmt;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, ready};

pub mod error {
    //! Broadcast error types.

    use std::fmt;

    /// Error returned by [`Sender::send`](super::Sender::send): no receiver
    /// is alive; the value comes back.
    #[derive(Debug)]
    pub struct SendError<T>(pub T);

    impl<T> fmt::Display for SendError<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "channel closed")
        }
    }

    impl<T: fmt::Debug> std::error::Error for SendError<T> {}

    /// Error returned by [`Receiver::recv`](super::Receiver::recv).
    #[derive(Debug, PartialEq, Eq, Clone)]
    pub enum RecvError {
        /// Every sender is gone and every value was received.
        Closed,
        /// The receiver fell behind: this many values were overwritten
        /// before it read them. The next receive returns the oldest value
        /// still held.
        Lagged(u64),
    }

    impl fmt::Display for RecvError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                RecvError::Closed => write!(f, "channel closed"),
                RecvError::Lagged(amt) => write!(f, "channel lagged by {amt}"),
            }
        }
    }

    impl std::error::Error for RecvError {}

    /// Error returned by [`Receiver::try_recv`](super::Receiver::try_recv).
    #[derive(Debug, PartialEq, Eq, Clone)]
    pub enum TryRecvError {
        /// Nothing new yet.
        Empty,
        /// Every sender is gone and every value was received.
        Closed,
        /// The receiver fell behind (see [`RecvError::Lagged`]).
        Lagged(u64),
    }

    impl fmt::Display for TryRecvError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                TryRecvError::Empty => write!(f, "channel empty"),
                TryRecvError::Closed => write!(f, "channel closed"),
                TryRecvError::Lagged(amt) => write!(f, "channel lagged by {amt}"),
            }
        }
    }

    impl std::error::Error for TryRecvError {}
}

use error::{RecvError, SendError, TryRecvError};

struct Slot<T> {
    /// Receivers that still have to read this value. Written only under
    /// `inner`'s lock; read without it by `Sender::len`.
    rem: AtomicUsize,
    inner: SpinLock<SlotInner<T>>,
}

struct SlotInner<T> {
    /// The send position this slot holds.
    pos: u64,
    val: Option<T>,
}

impl<T> Slot<T> {
    /// `rem - 1`, under the slot lock (so a plain load and store suffice:
    /// every writer holds the lock). Returns the new count.
    fn dec_rem(&self, _locked: &SlotInner<T>) -> usize {
        let rem = self.rem.load(Relaxed) - 1;
        self.rem.store(rem, Relaxed);
        rem
    }
}

/// What the tail lock guards besides `tail_state`.
struct Tail {
    rx_cnt: u32,
}

struct Shared<T> {
    buffer: Box<[Slot<T>]>,
    tail: SpinLock<Tail>,
    /// The next position to write and the closed flag, as `pos << 1 |
    /// closed`: written only under the tail lock (so exact there), read
    /// without it by receivers with nothing new. Positions count modulo
    /// 2^63 sends (three centuries at a billion sends a second).
    tail_state: AtomicU64,
    num_tx: AtomicUsize,
    num_weak_tx: AtomicUsize,
    /// Receivers wait here for a send or the close.
    notify_rx: Notify,
    /// Receivers registered (or registering) on `notify_rx`: a send skips
    /// the `Notify` (and its lock) when this is 0.
    rx_waiting: AtomicU32,
    /// Senders in `closed()` wait here for the last receiver to go.
    notify_last_rx: Notify,
}

impl<T> Shared<T> {
    fn slot(&self, pos: u64) -> &Slot<T> {
        &self.buffer[pos as usize & (self.buffer.len() - 1)]
    }

    /// The next position to write and the closed flag: exact with the
    /// tail lock held, a snapshot without.
    fn tail_state(&self) -> (u64, bool) {
        // Acquire: pairs with `publish_tail`'s Release (only the two
        // fields are read through it).
        let state = self.tail_state.load(Acquire);
        (state >> 1, state & 1 == 1)
    }

    /// Stores the tail position and closed flag; `_locked` proves the
    /// tail lock is held.
    fn publish_tail(&self, _locked: &Tail, pos: u64, closed: bool) {
        // Release: pairs with `tail_state`'s Acquire.
        self.tail_state.store((pos << 1) | closed as u64, Release);
    }

    fn capacity(&self) -> u64 {
        self.buffer.len() as u64
    }
}

/// Creates a broadcast channel holding the last `capacity` values (rounded
/// up to a power of two).
///
/// # Panics
///
/// If `capacity` is 0 or above `usize::MAX / 2` (tokio's messages).
#[track_caller]
pub fn channel<T: Clone>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    let tx = Sender::new(capacity);
    let rx = tx.subscribe();
    (tx, rx)
}

/// Sends values to every [`Receiver`]. Clone it for more senders.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// A sender that does not keep the channel open; see
/// [`Sender::downgrade`].
pub struct WeakSender<T> {
    shared: Arc<Shared<T>>,
}

/// Receives every value sent after it subscribed.
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    next: u64,
}

impl<T> Sender<T> {
    /// A sender with no receiver yet (see [`subscribe`](Self::subscribe)).
    ///
    /// # Panics
    ///
    /// If `capacity` is 0 or above `usize::MAX / 2`.
    #[track_caller]
    pub fn new(capacity: usize) -> Self {
        assert!(capacity > 0, "broadcast channel capacity cannot be zero");
        assert!(
            capacity <= usize::MAX >> 1,
            "broadcast channel capacity exceeded `usize::MAX / 2`"
        );
        let capacity = capacity.next_power_of_two();
        let buffer = (0..capacity)
            .map(|i| {
                Slot {
                    rem: AtomicUsize::new(0),
                    inner: SpinLock::new(SlotInner {
                        // A lap behind position `i`: "nothing new" for now.
                        pos: (i as u64).wrapping_sub(capacity as u64),
                        val: None,
                    }),
                }
            })
            .collect();
        Sender {
            shared: Arc::new(Shared {
                buffer,
                tail: SpinLock::new(Tail { rx_cnt: 0 }),
                tail_state: AtomicU64::new(0),
                num_tx: AtomicUsize::new(1),
                num_weak_tx: AtomicUsize::new(0),
                notify_rx: Notify::new(),
                rx_waiting: AtomicU32::new(0),
                notify_last_rx: Notify::new(),
            }),
        }
    }

    /// Sends `value` to every receiver alive now; returns how many. Fails,
    /// giving the value back, if there is none. Never waits: when the ring
    /// is full the oldest value is overwritten (slow receivers lag).
    pub fn send(&self, value: T) -> Result<usize, SendError<T>> {
        let tail = self.shared.tail.lock();
        if tail.rx_cnt == 0 {
            return Err(SendError(value));
        }
        let (pos, closed) = self.shared.tail_state();
        let rx_cnt = tail.rx_cnt as usize;
        let old = {
            let slot = self.shared.slot(pos);
            let mut inner = slot.inner.lock();
            inner.pos = pos;
            slot.rem.store(rx_cnt, Relaxed);
            inner.val.replace(value)
        };
        self.shared
            .publish_tail(&tail, pos.wrapping_add(1) & (u64::MAX >> 1), closed);
        drop(tail);
        // The overwritten value (if unread by someone) goes outside locks.
        drop(old);
        // Relaxed: a receiver increments `rx_waiting` before it locks the
        // slot for its last look; if that look came after our write it
        // found the value, and if it came before, its unlock happened
        // before our lock of the same slot, so we see the increment.
        if self.shared.rx_waiting.load(Relaxed) > 0 {
            self.shared.notify_rx.notify_waiters();
        }
        Ok(rx_cnt)
    }

    /// A new receiver that gets the values sent from now on.
    pub fn subscribe(&self) -> Receiver<T> {
        new_receiver(self.shared.clone())
    }

    /// A [`WeakSender`]: it does not keep the channel open.
    pub fn downgrade(&self) -> WeakSender<T> {
        self.shared.num_weak_tx.fetch_add(1, Relaxed);
        WeakSender {
            shared: self.shared.clone(),
        }
    }

    /// Number of values not yet read by every receiver that was alive when
    /// they were sent (and not overwritten).
    pub fn len(&self) -> usize {
        // Every receiver reads in order, so `rem` never decreases from the
        // oldest slot to the newest: the unread values are a suffix of the
        // ring, found by binary search over the `rem` counters (no slot
        // lock: each counter is read atomically; like tokio's, the answer
        // is a snapshot while receivers read concurrently).
        let _tail = self.shared.tail.lock();
        let (tail_pos, _) = self.shared.tail_state();
        let cap = self.shared.buffer.len();
        let (mut low, mut high) = (0, cap);
        while low < high {
            let mid = low + (high - low) / 2;
            // Position `tail_pos + mid` (mod capacity) is the mid-th oldest.
            let pos = tail_pos.wrapping_add(mid as u64);
            if self.shared.slot(pos).rem.load(Relaxed) == 0 {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        cap - low
    }

    /// Whether [`len`](Self::len) is 0.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of receivers.
    pub fn receiver_count(&self) -> usize {
        self.shared.tail.lock().rx_cnt as usize
    }

    /// Whether both senders belong to the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// Waits until every receiver is gone.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe.
    pub async fn closed(&self) {
        loop {
            let mut notified = pin!(self.shared.notify_last_rx.notified());
            notified.as_mut().enable();
            if self.shared.tail.lock().rx_cnt == 0 {
                return;
            }
            notified.await;
        }
    }

    /// Number of strong senders.
    pub fn strong_count(&self) -> usize {
        self.shared.num_tx.load(Acquire)
    }

    /// Number of weak senders.
    pub fn weak_count(&self) -> usize {
        self.shared.num_weak_tx.load(Relaxed)
    }
}

fn new_receiver<T>(shared: Arc<Shared<T>>) -> Receiver<T> {
    let mut tail = shared.tail.lock();
    tail.rx_cnt = tail.rx_cnt.checked_add(1).expect("max receivers");
    let (next, _) = shared.tail_state();
    drop(tail);
    Receiver { shared, next }
}

impl<T> WeakSender<T> {
    /// A strong [`Sender`], unless every strong sender is gone.
    pub fn upgrade(&self) -> Option<Sender<T>> {
        crate::increment_if_nonzero(&self.shared.num_tx).then(|| Sender {
            shared: self.shared.clone(),
        })
    }

    /// Number of strong senders.
    pub fn strong_count(&self) -> usize {
        self.shared.num_tx.load(Acquire)
    }

    /// Number of weak senders.
    pub fn weak_count(&self) -> usize {
        self.shared.num_weak_tx.load(Relaxed)
    }
}

impl<T> Receiver<T> {
    /// Number of values sent since this receiver's position (it may exceed
    /// the capacity when the receiver lags).
    pub fn len(&self) -> usize {
        let _tail = self.shared.tail.lock();
        let (pos, _) = self.shared.tail_state();
        pos.wrapping_sub(self.next) as usize
    }

    /// Whether [`len`](Self::len) is 0.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether every strong sender is gone.
    pub fn is_closed(&self) -> bool {
        self.shared.num_tx.load(Acquire) == 0
    }

    /// Whether both receivers belong to the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// Number of strong senders.
    pub fn sender_strong_count(&self) -> usize {
        self.shared.num_tx.load(Acquire)
    }

    /// Number of weak senders.
    pub fn sender_weak_count(&self) -> usize {
        self.shared.num_weak_tx.load(Relaxed)
    }
}

impl<T: Clone> Receiver<T> {
    /// A new receiver that gets the values sent from now on.
    pub fn resubscribe(&self) -> Self {
        new_receiver(self.shared.clone())
    }

    /// Receives the next value if there is one.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        try_recv(&self.shared, &mut self.next)
    }

    /// Receives the next value, waiting for one.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: if the future is dropped before it
    /// completes, no value was taken.
    pub async fn recv(&mut self) -> Result<T, RecvError> {
        let Receiver { shared, next } = self;
        let mut wait = pin!(async {
            let to_result = |r: Result<T, TryRecvError>| match r {
                Ok(v) => Some(Ok(v)),
                Err(TryRecvError::Closed) => Some(Err(RecvError::Closed)),
                Err(TryRecvError::Lagged(n)) => Some(Err(RecvError::Lagged(n))),
                Err(TryRecvError::Empty) => None,
            };
            // Fast path: a value is there; no waiter registration.
            if let Some(res) = to_result(try_recv(shared, next)) {
                return res;
            }
            loop {
                // Counted as waiting (see `Sender::send`) until this
                // iteration ends or the future is dropped.
                let _waiting = WaitingGuard::new(&shared.rx_waiting);
                let mut notified = pin!(shared.notify_rx.notified());
                // Enabled before the look: a send after it wakes us.
                notified.as_mut().enable();
                if let Some(res) = to_result(try_recv(shared, next)) {
                    return res;
                }
                notified.await;
            }
        });
        // Take part in the coop budget, as tokio's broadcast does.
        std::future::poll_fn(|cx: &mut Context<'_>| {
            let coop = ready!(bridge::poll_proceed(cx));
            let res = wait.as_mut().poll(cx);
            if res.is_ready() {
                coop.made_progress();
            }
            res
        })
        .await
    }

    /// Blocking receive, for synchronous code.
    ///
    /// # Panics
    ///
    /// When called from a thread that drives a runtime.
    #[track_caller]
    pub fn blocking_recv(&mut self) -> Result<T, RecvError> {
        bridge::block_on(self.recv())
    }
}

/// Counts a receiver in `rx_waiting` while it lives.
struct WaitingGuard<'a>(&'a AtomicU32);

impl<'a> WaitingGuard<'a> {
    fn new(count: &'a AtomicU32) -> Self {
        // Relaxed: ordered by the slot lock taken next (see `send`).
        count.fetch_add(1, Relaxed);
        WaitingGuard(count)
    }
}

impl Drop for WaitingGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Relaxed);
    }
}

/// `Receiver::try_recv` on the receiver's parts (so `recv` can hold a
/// `Notified` borrowed from `shared` meanwhile).
///
/// The look at our slot is inlined into the caller; the rest (nothing new,
/// lagged, closed) is a call.
#[inline]
fn try_recv<T: Clone>(shared: &Shared<T>, next: &mut u64) -> Result<T, TryRecvError> {
    let pos = *next;
    if let Some(v) = take_if_there(shared, next, pos) {
        return Ok(v);
    }
    try_recv_not_there(shared, next, pos)
}

/// `try_recv` when the slot does not hold position `pos`.
#[inline(never)]
fn try_recv_not_there<T: Clone>(
    shared: &Shared<T>,
    next: &mut u64,
    pos: u64,
) -> Result<T, TryRecvError> {
    // Not our position: nothing new, or overwritten. "Nothing new" is the
    // common case of a waiting receiver: the published tail says so
    // without the tail lock. (No wake-up is lost by not locking: the slot
    // look above came first, and a send that writes the slot after it sees
    // this receiver in `rx_waiting`; see `Sender::send`.)
    let nothing_new = |(tail_pos, closed): (u64, bool)| {
        (tail_pos == pos).then_some(if closed {
            TryRecvError::Closed
        } else {
            TryRecvError::Empty
        })
    };
    if let Some(err) = nothing_new(shared.tail_state()) {
        return Err(err);
    }
    // The tail decides; under its lock no send is half done, so look at
    // the slot again (a send may have written it since our first look).
    let _tail = shared.tail.lock();
    let (tail_pos, closed) = shared.tail_state();
    if let Some(err) = nothing_new((tail_pos, closed)) {
        return Err(err);
    }
    if let Some(v) = take_if_there(shared, next, pos) {
        return Ok(v);
    }
    // Lagged: jump to the oldest value still held.
    let oldest = tail_pos.wrapping_sub(shared.capacity()) & (u64::MAX >> 1);
    *next = oldest;
    Err(TryRecvError::Lagged(oldest.wrapping_sub(pos)))
}

/// Reads position `pos` if its slot holds it.
///
/// Every reader gets a clone, the last one included, which then drops the
/// stored value: `Clone` is observable (it may count, or panic), and tokio
/// clones for each receiver. A panicking `Clone` reaches the caller with
/// the position consumed and the slot's count already taken, so the
/// receiver goes on with the next value and the stored one is still
/// dropped by its last reader (the unwind drops it here).
#[inline]
fn take_if_there<T: Clone>(shared: &Shared<T>, next: &mut u64, pos: u64) -> Option<T> {
    let slot = shared.slot(pos);
    let mut inner = slot.inner.lock();
    if inner.pos != pos {
        return None;
    }
    *next = pos.wrapping_add(1);
    const HELD: &str = "a slot being read holds its value";
    Some(if slot.dec_rem(&inner) == 0 {
        inner.val.take().expect(HELD).clone()
    } else {
        inner.val.as_ref().expect(HELD).clone()
    })
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.shared.num_tx.fetch_add(1, Relaxed);
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        // AcqRel: the last sender closes after every send.
        if self.shared.num_tx.fetch_sub(1, AcqRel) == 1 {
            let tail = self.shared.tail.lock();
            let (pos, _) = self.shared.tail_state();
            self.shared.publish_tail(&tail, pos, true);
            drop(tail);
            self.shared.notify_rx.notify_waiters();
        }
    }
}

impl<T> Clone for WeakSender<T> {
    fn clone(&self) -> Self {
        self.shared.num_weak_tx.fetch_add(1, Relaxed);
        WeakSender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for WeakSender<T> {
    fn drop(&mut self) {
        self.shared.num_weak_tx.fetch_sub(1, Relaxed);
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let mut tail = self.shared.tail.lock();
        tail.rx_cnt -= 1;
        let last = tail.rx_cnt == 0;
        let (end, _) = self.shared.tail_state();
        drop(tail);
        // Give up our share of every value we were counted for and did not
        // read (those still in the ring), so the last reader drops them.
        // Sends from now on do not count us, and each lands on a position
        // at or after `end`, so a slot that still holds position `pos`
        // holds the value we were counted for: the walk needs only the
        // slot locks, and the tail lock stays a short one.
        let start = self.next.max(end.saturating_sub(self.shared.capacity()));
        let mut pos = start;
        while pos != end {
            let slot = self.shared.slot(pos);
            let mut inner = slot.inner.lock();
            let unread =
                if inner.pos == pos && slot.rem.load(Relaxed) > 0 && slot.dec_rem(&inner) == 0 {
                    inner.val.take()
                } else {
                    None
                };
            drop(inner);
            // Dropped outside the slot lock.
            drop(unread);
            pos = pos.wrapping_add(1);
        }
        if last {
            self.shared.notify_last_rx.notify_waiters();
        }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(fmt, "broadcast::Sender")
    }
}

impl<T> fmt::Debug for WeakSender<T> {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(fmt, "broadcast::WeakSender")
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(fmt, "broadcast::Receiver")
    }
}

#[cfg(all(test, loom))]
mod loom_tests;
