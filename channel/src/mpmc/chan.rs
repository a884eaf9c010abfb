//! The shared state of a channel: its flavor, and the handle counts.
//!
//! A channel is one of four flavors, picked by its capacity when it is
//! made, each owning its data and its waiters, and each implementing
//! [`Flavor`], the one interface the handles and futures use (as
//! crossbeam-channel's flavors do):
//!
//! | flavor | capacity | data | waiters |
//! | --- | --- | --- | --- |
//! | [`Bounded`] | 5 and up | lock-free ring | wait queues, Dekker flags |
//! | [`Small`] | 1 to 4 | `VecDeque` under a spin lock | lists under the same lock |
//! | [`Zero`] | 0 (rendezvous) | a one-slot ring | wait queues, and the hand-off queue |
//! | [`Unbounded`] | none | lock-free list of blocks | receivers' wait queue |
//!
//! A future's state between polls is a [`SendOp`] or a [`RecvOp`]: where it
//! waits, its intrusive node, and the cell for its value. Each flavor reads
//! and writes them as its protocol says; the futures only pin them, poll
//! through the flavor, and on drop ask the flavor to undo what is left
//! ([`Flavor::cancel_send`], [`Flavor::cancel_recv`]), which they skip
//! inline when the op never waited.

use super::bounded::Bounded;
use super::errors::{RecvError, SendError, TryRecvError, TrySendError};
use super::small::{SMALL_MAX_CAP, Small};
use super::unbounded::Unbounded;
use super::wait::leave_passing_on;
use super::waiters::{Place, RecvWaiter, SendWaiter, WaitQueue, Waiter};
use super::zero::Zero;
use crate::bridge::Gap;
use crate::bridge::loom::sync::atomic::AtomicUsize;

use pin_project_lite::pin_project;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{Context, Poll};

/// What every flavor implements (module docs).
pub(crate) trait Flavor<T> {
    /// Sends now or fails: `Full` (or, rendezvous, no receiver waiting),
    /// `Closed`.
    fn try_send(&self, value: T) -> Result<(), TrySendError<T>>;
    /// Receives now or fails: `Empty`, `Closed` (and empty).
    fn try_recv(&self) -> Result<T, TryRecvError>;
    /// A `Send` future's poll; `op`'s cell holds the value until it is
    /// sent. A dropped op that had not completed has not sent, except in
    /// the rendezvous flavor (its docs).
    fn poll_send(
        &self,
        op: Pin<&mut SendOp<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), SendError<T>>>;
    /// A `Recv` future's poll.
    fn poll_recv(
        &self,
        op: Pin<&mut RecvOp<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<T, RecvError>>;
    /// A `Send` future is dropped while `op` is not idle: leave, passing on
    /// what it was given and did not use.
    fn cancel_send(&self, op: Pin<&mut SendOp<T>>);
    /// A `Recv` future is dropped while `op` is not idle: leave, passing on
    /// a wake-up or giving back a value it was handed.
    fn cancel_recv(&self, op: Pin<&mut RecvOp<T>>);
    /// Closes the channel and wakes every waiter; true if this call did.
    fn close(&self) -> bool;
    fn is_closed(&self) -> bool;
    /// Values in the channel (at most the capacity).
    fn len(&self) -> usize;
    /// `None` for unbounded.
    fn capacity(&self) -> Option<usize>;
}

/// `SendOp::ticket` of a send whose value is not in a rendezvous ring.
/// Never a ring index: an index's bits below `one_lap` are a position
/// below the capacity, and `usize::MAX` has all of them set (the ring's
/// module docs).
pub(crate) const NO_TICKET: usize = usize::MAX;

pin_project! {
    /// A `send`'s state between polls.
    pub(crate) struct SendOp<T> {
        // Where it waits, if it does.
        pub(crate) place: Place,
        // Rendezvous only: where its value sits until a receiver takes it
        // ([`NO_TICKET`] before; a plain word keeps the future small).
        pub(crate) ticket: usize,
        // The node, and the value until it is sent.
        #[pin]
        pub(crate) waiter: SendWaiter<T>,
    }
}

pin_project! {
    /// A `recv`'s state between polls.
    pub(crate) struct RecvOp<T> {
        // Where it waits, if it does.
        pub(crate) place: Place,
        // The node, and (small channels) the value a sender hands it.
        #[pin]
        pub(crate) waiter: RecvWaiter<T>,
    }
}

impl<T> SendOp<T> {
    pub(crate) fn new(value: T) -> Self {
        SendOp {
            place: Place::None,
            ticket: NO_TICKET,
            waiter: Waiter::new(Some(value)),
        }
    }

    /// Neither waiting nor holding a rendezvous ticket: nothing to undo.
    #[inline(always)]
    pub(crate) fn is_idle(&self) -> bool {
        self.place == Place::None && self.ticket == NO_TICKET
    }

    /// Leaves `queue` (if it waits there), passing on a notification it
    /// did not use.
    #[inline]
    pub(crate) fn leave(self: Pin<&mut Self>, queue: &WaitQueue) {
        let this = self.project();
        leave_passing_on(queue, *this.place, this.waiter.as_ref().node());
        *this.place = Place::None;
    }
}

impl<T> RecvOp<T> {
    pub(crate) fn new() -> Self {
        RecvOp {
            place: Place::None,
            waiter: Waiter::new(MaybeUninit::uninit()),
        }
    }

    /// Not waiting: nothing to undo.
    #[inline(always)]
    pub(crate) fn is_idle(&self) -> bool {
        self.place == Place::None
    }

    /// Leaves `queue` (if it waits there), passing on a notification it
    /// did not use.
    #[inline]
    pub(crate) fn leave(self: Pin<&mut Self>, queue: &WaitQueue) {
        let this = self.project();
        leave_passing_on(queue, *this.place, this.waiter.as_ref().node());
        *this.place = Place::None;
    }
}

/// The flavors (module docs).
pub(crate) enum Flavors<T> {
    Bounded(Bounded<T>),
    Small(Small<T>),
    Zero(Zero<T>),
    Unbounded(Unbounded<T>),
}

/// `#[repr(C)]`, for the gaps (`bridge::Spaced`): the flavor's tag, read by
/// every operation, shares no pair of cache lines with what precedes the
/// channel (the `Arc`'s counts, another allocation); the flavors keep their
/// hot words apart from the tag and from each other (the ring puts the
/// fields that nothing writes beside the tag, which nothing writes
/// either); the handle counts, written as handles come and go, come last.
#[repr(C)]
pub(crate) struct Chan<T> {
    _lead: Gap,
    flavor: Flavors<T>,
    pub(crate) senders: AtomicUsize,
    pub(crate) receivers: AtomicUsize,
}

/// Runs `$f` on whichever flavor `$chan` is.
macro_rules! dispatch {
    ($chan:expr, |$f:ident| $body:expr) => {
        match &$chan.flavor {
            Flavors::Bounded($f) => $body,
            Flavors::Small($f) => $body,
            Flavors::Zero($f) => $body,
            Flavors::Unbounded($f) => $body,
        }
    };
}

impl<T> Chan<T> {
    #[track_caller]
    pub(crate) fn bounded(cap: usize) -> Self {
        Chan::with(match cap {
            0 => Flavors::Zero(Zero::new()),
            _ if cap <= SMALL_MAX_CAP => Flavors::Small(Small::new(cap)),
            _ => Flavors::Bounded(Bounded::new(cap)),
        })
    }

    pub(crate) fn unbounded() -> Self {
        Chan::with(Flavors::Unbounded(Unbounded::new()))
    }

    fn with(flavor: Flavors<T>) -> Self {
        Chan {
            _lead: Gap::new(),
            flavor,
            senders: AtomicUsize::new(1),
            receivers: AtomicUsize::new(1),
        }
    }

    pub(crate) fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        dispatch!(self, |f| f.try_send(value))
    }

    pub(crate) fn try_recv(&self) -> Result<T, TryRecvError> {
        dispatch!(self, |f| f.try_recv())
    }

    #[inline(always)]
    pub(crate) fn poll_send(
        &self,
        op: Pin<&mut SendOp<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), SendError<T>>> {
        dispatch!(self, |f| f.poll_send(op, cx))
    }

    #[inline(always)]
    pub(crate) fn poll_recv(
        &self,
        op: Pin<&mut RecvOp<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<T, RecvError>> {
        dispatch!(self, |f| f.poll_recv(op, cx))
    }

    /// Undoes a dropped `send`; the caller checked [`SendOp::is_idle`].
    #[inline(never)]
    pub(crate) fn cancel_send(&self, op: Pin<&mut SendOp<T>>) {
        dispatch!(self, |f| f.cancel_send(op))
    }

    /// Undoes a dropped `recv`; the caller checked [`RecvOp::is_idle`].
    #[inline(never)]
    pub(crate) fn cancel_recv(&self, op: Pin<&mut RecvOp<T>>) {
        dispatch!(self, |f| f.cancel_recv(op))
    }

    pub(crate) fn close(&self) -> bool {
        dispatch!(self, |f| f.close())
    }

    pub(crate) fn is_closed(&self) -> bool {
        dispatch!(self, |f| f.is_closed())
    }

    pub(crate) fn len(&self) -> usize {
        dispatch!(self, |f| f.len())
    }

    pub(crate) fn capacity(&self) -> Option<usize> {
        dispatch!(self, |f| f.capacity())
    }

    /// Whether a send would have to wait (a rendezvous channel always is).
    pub(crate) fn is_full(&self) -> bool {
        self.capacity().is_some_and(|cap| self.len() >= cap)
    }
}
