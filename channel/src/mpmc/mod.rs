//! A fast multi-producer, multi-consumer channel: `volt::channel`.
//!
//! tokio has no MPMC channel; this one is volt's own. Every value is
//! received by exactly one receiver. [`bounded`] channels hold at most
//! `cap` values and make senders wait for room; [`bounded(0)`](bounded) is
//! a rendezvous channel, where a send completes only when a receiver takes
//! the value; [`unbounded`] channels never make senders wait.
//!
//! ```
//! # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
//! let (tx, rx) = volt_channel::mpmc::bounded(16);
//! let rx2 = rx.clone();
//! volt_runtime::spawn(async move {
//!     for i in 0..10 {
//!         tx.send(i).await.unwrap();
//!     }
//!     // Dropping the last sender closes the channel.
//! });
//! let mut sum = 0;
//! while let Ok(v) = rx.recv().await {
//!     sum += v;
//! }
//! assert_eq!(sum, 45);
//! assert!(rx2.recv().await.is_err());
//! # });
//! ```
//!
//! # How it works
//!
//! A channel is one of four flavors, picked by its capacity (`chan.rs`):
//! a lock-free ring of slots with per-slot sequence numbers for bounded
//! channels (`bounded`, over `ring`), a linked list of blocks that are
//! freed as soon as they are drained for unbounded ones (`unbounded`, over
//! `list`), so a burst does not pin its memory, a one-slot ring whose
//! senders wait for their value to be taken for `bounded(0)` (`zero`),
//! and, for capacities 1 to 4, values and waiters under one short lock
//! (`small`), where a send hands its value straight to a waiting receive.
//! In the lock-free flavors, tasks that must wait register in a fast
//! waiter slot or an intrusive list (`waiters`), advertised by flags that
//! the data path checks after a `SeqCst` claim: a send or receive that
//! nobody waits for takes no lock. See each module's documentation for its
//! protocol.
//!
//! # Cancellation
//!
//! A [`send`](Sender::send) dropped before it completed has not sent, at
//! every capacity of 1 or more (tokio's `mpsc` promise): a sender's value
//! only ever moves in its own poll. A [`recv`](Receiver::recv) dropped
//! before it completed has taken nothing: a value handed to it goes back,
//! in front of the others. [`len`](Receiver::len) never exceeds the
//! capacity. Only `bounded(0)` differs: there a waiting `send` whose value
//! a receiver has already claimed has sent it.
//!
//! # Closing
//!
//! A channel closes when all its senders or all its receivers are dropped,
//! or when [`Sender::close`] / [`Receiver::close`] is called. After that,
//! sends fail (giving the value back) and receivers get the values that
//! were already sent, then [`RecvError`]. Values never received are dropped
//! with the channel's last handle.
//!
//! # Cooperative scheduling
//!
//! Inside volt's runtime, [`recv`](Receiver::recv) takes part in the task's
//! coop budget, as tokio's `mpsc` does: a task that always finds its
//! channel ready still yields now and then. [`send`](Sender::send) takes no
//! budget, at any capacity, as tokio's `UnboundedSender::send` and every
//! peer channel's send take none: it yields only when it waits (the
//! channel is full). A yield there would only hand the worker to consumers
//! that then find the channel empty and wait, and each such wait costs a
//! wake-up. A producer on a bounded channel cannot starve its worker's
//! other tasks for long: the channel fills unless its consumers keep up,
//! and consumers that keep up find it empty now and then, wait, and leave
//! their workers free to steal those tasks. A task that does nothing but
//! send to an unbounded channel runs until it awaits something else.

mod backoff;
mod bounded;
mod chan;
mod errors;
mod futures;
pub(crate) mod list;
pub(crate) mod ring;
mod small;
#[cfg(feature = "futures-core")]
mod stream;
mod unbounded;
mod wait;
pub(crate) mod waiters;
mod zero;

#[cfg(all(test, loom))]
mod loom_tests;
#[cfg(all(test, not(loom)))]
mod tests;

pub use errors::{RecvError, SendError, TryRecvError, TrySendError};
pub use futures::{Recv, Send};

use crate::bridge;
use crate::bridge::loom::sync::Arc;
use crate::bridge::loom::sync::atomic::Ordering::*;
use chan::Chan;

use std::fmt;

/// Creates a channel that holds at most `cap` values.
///
/// With `cap == 0` the channel is a *rendezvous* channel: [`Sender::send`]
/// completes only once a receiver has taken the value, and
/// [`Sender::try_send`] succeeds only while a receiver is waiting.
///
/// A capacity above 4 is a ring of `cap` slots allocated here, up front
/// (a slot is a value and a word); [`unbounded`] allocates as it fills.
///
/// # Panics
///
/// If the ring cannot be allocated, with a message that says so (not the
/// process abort of a failed allocation).
///
/// ```should_panic
/// let _ = volt_channel::mpmc::bounded::<u64>(isize::MAX as usize);
/// ```
///
/// # Examples
///
/// ```
/// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
/// let (tx, rx) = volt_channel::mpmc::bounded(1);
/// tx.send(1).await.unwrap();
/// assert!(tx.try_send(2).unwrap_err().is_full());
/// assert_eq!(rx.recv().await, Ok(1));
/// # });
/// ```
#[track_caller]
pub fn bounded<T>(cap: usize) -> (Sender<T>, Receiver<T>) {
    handles(Chan::bounded(cap))
}

/// Creates a channel with no capacity limit.
///
/// Sending never waits, and takes no coop budget (module docs). Memory
/// is taken in blocks of 31 values and given back as soon as a block has
/// been received.
///
/// # Examples
///
/// ```
/// let (tx, rx) = volt_channel::mpmc::unbounded();
/// for i in 0..1000 {
///     tx.try_send(i).unwrap();
/// }
/// assert_eq!(rx.len(), 1000);
/// assert_eq!(rx.try_recv(), Ok(0));
/// ```
pub fn unbounded<T>() -> (Sender<T>, Receiver<T>) {
    handles(Chan::unbounded())
}

fn handles<T>(chan: Chan<T>) -> (Sender<T>, Receiver<T>) {
    let chan = Arc::new(chan);
    (Sender { chan: chan.clone() }, Receiver::new(chan))
}

/// The sending side of a [`volt::channel`](self). Clone it for more
/// senders; the channel closes when the last one is dropped.
pub struct Sender<T> {
    chan: Arc<Chan<T>>,
}

/// The receiving side of a [`volt::channel`](self). Clone it for more
/// receivers (each value goes to exactly one of them); the channel closes
/// when the last one is dropped.
///
/// With the `futures-core` feature, `Receiver` is also a
/// `futures_core::Stream` of the values.
pub struct Receiver<T> {
    chan: Arc<Chan<T>>,
    /// Where `poll_next` waits (see the `stream` module).
    #[cfg(feature = "futures-core")]
    stream: stream::StreamOp<T>,
}

impl<T> Sender<T> {
    /// Sends `value`, waiting for room if the channel is full (for a
    /// rendezvous channel: until a receiver takes it).
    ///
    /// Fails with the value if the channel is closed.
    ///
    /// # Cancel safety
    ///
    /// If the future is dropped before it completes, the value was not
    /// sent (it is dropped with the future), at every capacity of 1 or
    /// more. Waiting senders are served in the order they started waiting;
    /// a dropped one loses its place.
    ///
    /// The exception is the rendezvous channel (`bounded(0)`): there a
    /// `send` dropped while waiting for a receiver either still holds its
    /// value (not sent) or finds it already taken by a receiver (sent).
    ///
    /// # Examples
    ///
    /// ```
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let (tx, rx) = volt_channel::mpmc::bounded(1);
    /// tx.send("hi").await.unwrap();
    /// drop(rx);
    /// assert_eq!(tx.send("bye").await.unwrap_err().into_inner(), "bye");
    /// # });
    /// ```
    pub fn send(&self, value: T) -> Send<'_, T> {
        Send::new(&self.chan, value)
    }

    /// Sends `value` if there is room now.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_channel::mpmc::TrySendError;
    ///
    /// let (tx, rx) = volt_channel::mpmc::bounded(1);
    /// assert_eq!(tx.try_send(1), Ok(()));
    /// assert_eq!(tx.try_send(2), Err(TrySendError::Full(2)));
    /// rx.close();
    /// assert_eq!(tx.try_send(3), Err(TrySendError::Closed(3)));
    /// ```
    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        self.chan.try_send(value)
    }

    /// Sends `value`, blocking the thread while the channel is full.
    ///
    /// # Panics
    ///
    /// When called from a thread that drives a runtime (as tokio's
    /// `blocking_*` methods do).
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = volt_channel::mpmc::bounded(1);
    /// let t = std::thread::spawn(move || tx.send_blocking(7).unwrap());
    /// assert_eq!(rx.recv_blocking(), Ok(7));
    /// t.join().unwrap();
    /// ```
    #[track_caller]
    pub fn send_blocking(&self, value: T) -> Result<(), SendError<T>> {
        bridge::block_on(self.send(value))
    }

    /// Closes the channel, waking every waiting task. Returns `true` if this
    /// call closed it.
    pub fn close(&self) -> bool {
        self.chan.close()
    }

    /// Whether the channel is closed.
    pub fn is_closed(&self) -> bool {
        self.chan.is_closed()
    }

    /// Number of values in the channel (never more than the capacity).
    pub fn len(&self) -> usize {
        self.chan.len()
    }

    /// Whether the channel holds no value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the channel is full (a rendezvous channel always is).
    pub fn is_full(&self) -> bool {
        self.chan.is_full()
    }

    /// The capacity: `None` for an unbounded channel.
    pub fn capacity(&self) -> Option<usize> {
        self.chan.capacity()
    }

    /// Number of senders.
    pub fn sender_count(&self) -> usize {
        self.chan.senders.load(Relaxed)
    }

    /// Number of receivers.
    pub fn receiver_count(&self) -> usize {
        self.chan.receivers.load(Relaxed)
    }

    /// Whether `self` and `other` belong to the same channel.
    pub fn same_channel(&self, other: &Sender<T>) -> bool {
        Arc::ptr_eq(&self.chan, &other.chan)
    }
}

impl<T> Receiver<T> {
    fn new(chan: Arc<Chan<T>>) -> Self {
        Receiver {
            chan,
            #[cfg(feature = "futures-core")]
            stream: stream::StreamOp::new(),
        }
    }

    /// Receives a value, waiting while the channel is empty. Fails once the
    /// channel is closed and empty.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: if the future is dropped before it
    /// completes, no value was taken from the channel. A future that was
    /// woken for a value and is dropped passes the wake-up to the next
    /// waiting receiver; in a channel of capacity 1 to 4, where the value
    /// itself was handed to it, it gives the value to the next waiting
    /// receiver or back to the front of the channel.
    ///
    /// # Examples
    ///
    /// ```
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let (tx, rx) = volt_channel::mpmc::unbounded();
    /// tx.send(1).await.unwrap();
    /// drop(tx);
    /// assert_eq!(rx.recv().await, Ok(1));
    /// assert!(rx.recv().await.is_err());
    /// # });
    /// ```
    pub fn recv(&self) -> Recv<'_, T> {
        Recv::new(&self.chan)
    }

    /// Receives a value if one is there now.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_channel::mpmc::TryRecvError;
    ///
    /// let (tx, rx) = volt_channel::mpmc::bounded(4);
    /// assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    /// tx.try_send(5).unwrap();
    /// drop(tx);
    /// assert_eq!(rx.try_recv(), Ok(5));
    /// assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    /// ```
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        self.chan.try_recv()
    }

    /// Receives a value, blocking the thread while the channel is empty.
    ///
    /// # Panics
    ///
    /// When called from a thread that drives a runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = volt_channel::mpmc::unbounded();
    /// std::thread::spawn(move || tx.send_blocking("x").unwrap());
    /// assert_eq!(rx.recv_blocking(), Ok("x"));
    /// ```
    #[track_caller]
    pub fn recv_blocking(&self) -> Result<T, RecvError> {
        bridge::block_on(self.recv())
    }

    /// Closes the channel, waking every waiting task. Returns `true` if this
    /// call closed it. Values already sent can still be received.
    pub fn close(&self) -> bool {
        self.chan.close()
    }

    /// Whether the channel is closed.
    pub fn is_closed(&self) -> bool {
        self.chan.is_closed()
    }

    /// Number of values in the channel (never more than the capacity).
    pub fn len(&self) -> usize {
        self.chan.len()
    }

    /// Whether the channel holds no value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the channel is full (a rendezvous channel always is).
    pub fn is_full(&self) -> bool {
        self.chan.is_full()
    }

    /// The capacity: `None` for an unbounded channel.
    pub fn capacity(&self) -> Option<usize> {
        self.chan.capacity()
    }

    /// Number of senders.
    pub fn sender_count(&self) -> usize {
        self.chan.senders.load(Relaxed)
    }

    /// Number of receivers.
    pub fn receiver_count(&self) -> usize {
        self.chan.receivers.load(Relaxed)
    }

    /// Whether `self` and `other` belong to the same channel.
    pub fn same_channel(&self, other: &Receiver<T>) -> bool {
        Arc::ptr_eq(&self.chan, &other.chan)
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        // Relaxed: a new handle is made from an existing one, which keeps
        // the count above zero meanwhile.
        self.chan.senders.fetch_add(1, Relaxed);
        Sender {
            chan: self.chan.clone(),
        }
    }
}

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Self {
        // Relaxed: as for `Sender`.
        self.chan.receivers.fetch_add(1, Relaxed);
        Receiver::new(self.chan.clone())
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        // AcqRel: the last handle sees every other handle's work.
        if self.chan.senders.fetch_sub(1, AcqRel) == 1 {
            self.chan.close();
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        #[cfg(feature = "futures-core")]
        {
            let mut stream = std::mem::replace(&mut self.stream, stream::StreamOp::new());
            stream.leave(self);
        }
        // AcqRel: as for `Sender`.
        if self.chan.receivers.fetch_sub(1, AcqRel) == 1 {
            self.chan.close();
        }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender")
            .field("len", &self.len())
            .field("capacity", &self.capacity())
            .field("is_closed", &self.is_closed())
            .finish()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("len", &self.len())
            .field("capacity", &self.capacity())
            .field("is_closed", &self.is_closed())
            .finish()
    }
}
