//! The `Send` and `Recv` futures.
//!
//! Both follow one pattern ([`poll_wait`]): try the operation; if it cannot
//! complete, register in the side's [`WaitQueue`] (node embedded in the
//! future, so waiting allocates nothing), issue `fence(SeqCst)`, and try
//! once more before returning `Pending` (the waiter half of the Dekker
//! protocol). A woken future tries again and re-registers if another task
//! got there first. Dropping a future that was notified but had not acted
//! on it passes the notification on to the next waiter.
//!
//! A rendezvous `Send` has a second phase: once its value is in the
//! channel it waits in `handoff_waiters` until a receiver has claimed the
//! value, and takes the value back if it is dropped (or the channel closes)
//! first.
//!
//! # The fast path
//!
//! Nearly every `send`/`recv` completes on its first poll. `poll` is small
//! and inlined into the caller: take a unit of coop budget, and if the
//! future is not registered anywhere (so it holds no notification), make
//! one attempt at the data path ([`Chan::try_push_fast`] /
//! [`Chan::try_pop_fast`], the same claim and the same notification of the
//! other side as the full path). Anything else (full, empty, closed, a
//! lost race, a rendezvous, a future that is waiting) goes to `poll_slow`,
//! out of line, which runs the pattern above from the start. Measured with
//! callgrind, one producer and one consumer on the current-thread runtime:
//! 247 -> 163 instructions per message (kanal: 123); wall time 281 -> 182
//! us per 20,000 messages (kanal: 156). A channel that waits on every
//! operation (`bounded(1)`) pays for the failed attempt: +5% instructions.

use super::chan::{Chan, Queue};
use super::errors::{RecvError, SendError};
use super::ring::{PopError, PushError};
use super::waiters::{Node, Place, Polled, RecvWaiter, SendWaiter, WaitQueue, Waiter};
use crate::bridge;
use crate::bridge::loom::sync::atomic::{Ordering::SeqCst, fence};

use pin_project_lite::pin_project;
use std::fmt;
use std::future::Future;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// Runs `attempt` until it gives a result, waiting in `queue` in between.
///
/// A notification is *used* only when we saw it before our attempt (then
/// the attempt is the one it was for). If we learn that we were notified
/// only while leaving after a success that came from elsewhere (our
/// re-check right after registering), the notification was meant for a
/// value we did not take: we pass it on, or a waiter behind us could sleep
/// next to a value forever.
///
/// `attempt` has one call site (a loop of at most two turns), so the
/// compiler inlines it: this is the path of every `send`/`recv` that does
/// not complete at its first attempt (module docs, "The fast path").
#[inline]
pub(super) fn poll_wait<R>(
    queue: &WaitQueue,
    place: &mut Place,
    node: Pin<&Node>,
    cx: &mut Context<'_>,
    mut attempt: impl FnMut() -> Option<R>,
) -> Poll<R> {
    let mut registered = false;
    if *place != Place::None {
        match queue.poll_registered(*place, node, cx.waker()) {
            // Not notified yet: a spurious poll; keep our place.
            Polled::Waiting => return Poll::Pending,
            // Notified, and out of the queue: this attempt uses it.
            Polled::Notified => *place = Place::None,
            // Still registered, waker replaced: look again as right after
            // registering (Dekker: registered; fence; look again).
            Polled::Recheck => {
                registered = true;
                fence(SeqCst);
            }
        }
    }
    loop {
        if let Some(r) = attempt() {
            if registered {
                // Won by the re-check: the success came from elsewhere.
                leave_passing_on(queue, *place, node);
                *place = Place::None;
            }
            return Poll::Ready(r);
        }
        if registered {
            return Poll::Pending;
        }
        *place = queue.register(node, cx.waker());
        registered = true;
        // Dekker: registered; fence; look again.
        fence(SeqCst);
    }
}

/// Leaves `queue`, passing a notification on if we held one we did not use.
#[inline]
fn leave_passing_on(queue: &WaitQueue, place: Place, node: Pin<&Node>) {
    // Checked here, inline: every completed future that never waited
    // (nearly all of them) drops through this.
    if place != Place::None && queue.leave(place, node) {
        fence(SeqCst);
        queue.notify_one();
    }
}

pin_project! {
    /// Future returned by [`Receiver::recv`](super::Receiver::recv).
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Recv<'a, T> {
        chan: &'a Chan<T>,
        place: Place,
        // The node, and (small channels) where a sender hands us a value
        // while we wait.
        #[pin]
        waiter: RecvWaiter<T>,
    }

    impl<T> PinnedDrop for Recv<'_, T> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            // Checked inline: a recv that never waited has nothing to undo.
            if *this.place != Place::None {
                cancel_recv(this.chan, *this.place, this.waiter.as_ref());
            }
        }
    }
}

/// A `Recv` dropped while waiting: leaves its queue, passing on a
/// notification it did not use, or (small channels) gives back a value it
/// was handed.
#[inline(never)]
pub(super) fn cancel_recv<T>(chan: &Chan<T>, place: Place, waiter: Pin<&RecvWaiter<T>>) {
    match &chan.queue {
        Queue::Small(small) => small.cancel_recv(place, waiter),
        _ => leave_passing_on(&chan.recv_waiters, place, waiter.node()),
    }
}

// SAFETY: the value cell is touched only through `Pin<&mut Self>` (poll and
// drop) or, while the future waits, by a peer holding the channel's lock; a
// shared `&Recv` reaches nothing of it.
unsafe impl<T: std::marker::Send> Sync for Recv<'_, T> {}

impl<'a, T> Recv<'a, T> {
    pub(super) fn new(chan: &'a Chan<T>) -> Self {
        Recv {
            chan,
            place: Place::None,
            waiter: Waiter::new(MaybeUninit::uninit()),
        }
    }
}

impl<T> Future for Recv<'_, T> {
    type Output = Result<T, RecvError>;

    #[inline]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // Take part in the coop budget: a receiver that always finds values
        // still yields now and then.
        let coop = ready!(bridge::poll_proceed(cx));
        // Fast path: not waiting (so holding no notification) and a value
        // is there for the taking.
        let this = self.as_mut().project();
        if *this.place == Place::None {
            if let Some(value) = this.chan.try_pop_fast() {
                coop.made_progress();
                return Poll::Ready(Ok(value));
            }
        }
        self.poll_slow(cx, coop)
    }
}

impl<T> Recv<'_, T> {
    /// Everything but the fast path: wait for a value, or for the close.
    #[inline(never)]
    fn poll_slow(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        coop: bridge::RestoreOnPending,
    ) -> Poll<Result<T, RecvError>> {
        let this = self.project();
        let chan = *this.chan;
        if let Queue::Small(small) = &chan.queue {
            let res = small.poll_recv(this.place, this.waiter.as_ref(), cx);
            if res.is_ready() {
                coop.made_progress();
            }
            return res;
        }
        let res = poll_wait(
            &chan.recv_waiters,
            this.place,
            this.waiter.as_ref().node(),
            cx,
            || match chan.pop_waiting() {
                Ok(value) => Some(Ok(value)),
                Err(PopError::Closed) => Some(Err(RecvError)),
                Err(PopError::Empty) => None,
            },
        );
        if res.is_ready() {
            coop.made_progress();
        }
        res
    }
}

impl<T> fmt::Debug for Recv<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recv").finish_non_exhaustive()
    }
}

/// `Send::ticket` before the value is in the channel. Never a ring index:
/// an index's bits below `one_lap` are a position below the capacity, and
/// `usize::MAX` has all of them set (the ring's module docs).
const NO_TICKET: usize = usize::MAX;

pin_project! {
    /// Future returned by [`Sender::send`](super::Sender::send).
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Send<'a, T> {
        chan: &'a Chan<T>,
        // Rendezvous: where our value sits until a receiver takes it
        // (`NO_TICKET` before the push; a plain word keeps the future small).
        ticket: usize,
        place: Place,
        // The node, and our value: while we wait in a small channel, a
        // receiver may move it out (`small`'s module docs).
        #[pin]
        waiter: SendWaiter<T>,
    }

    impl<T> PinnedDrop for Send<'_, T> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            // Checked inline: a send that never waited (nearly all) has
            // nothing to undo.
            if *this.ticket != NO_TICKET || *this.place != Place::None {
                undo_send(*this.chan, *this.ticket, *this.place, this.waiter.as_ref().node());
            }
        }
    }
}

// SAFETY: as for `Recv`.
unsafe impl<T: std::marker::Send> Sync for Send<'_, T> {}

/// A `Send` dropped while registered, or (rendezvous) with its value
/// still offered: leaves its queue and takes the value back.
#[inline(never)]
fn undo_send<T>(chan: &Chan<T>, ticket: usize, place: Place, node: Pin<&Node>) {
    match ticket {
        NO_TICKET => match &chan.queue {
            Queue::Small(small) => small.cancel_send(place, node),
            _ => leave_passing_on(&chan.send_waiters, place, node),
        },
        ticket => {
            chan.handoff_waiters.leave(place, node);
            // Cancelled before a receiver took it: it is not sent.
            drop(chan.ring().unpush(ticket));
        }
    }
}

impl<'a, T> Send<'a, T> {
    pub(super) fn new(chan: &'a Chan<T>, value: T) -> Self {
        Send {
            chan,
            ticket: NO_TICKET,
            place: Place::None,
            waiter: Waiter::new(Some(value)),
        }
    }
}

impl<T> Future for Send<'_, T> {
    type Output = Result<(), SendError<T>>;

    #[inline]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let coop = ready!(bridge::poll_proceed(cx));
        // Fast path: not waiting (so holding no notification), not a
        // rendezvous handoff, and room in the channel.
        let this = self.as_mut().project();
        if *this.ticket == NO_TICKET && *this.place == Place::None {
            let cell = this.waiter.as_ref().get_ref().value();
            // SAFETY: not waiting: the value is ours alone.
            let value = cell.with_mut(|v| unsafe { (*v).take() });
            match this
                .chan
                .try_push_fast(value.expect("`Send` polled after completion"))
            {
                Ok(()) => {
                    coop.made_progress();
                    return Poll::Ready(Ok(()));
                }
                // SAFETY: as above.
                Err(value) => cell.with_mut(|v| unsafe { *v = Some(value) }),
            }
        }
        self.poll_slow(cx, coop)
    }
}

impl<T> Send<'_, T> {
    /// Everything but the fast path: wait for room, and (rendezvous) for a
    /// receiver to take the value.
    #[inline(never)]
    fn poll_slow(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        coop: bridge::RestoreOnPending,
    ) -> Poll<Result<(), SendError<T>>> {
        let this = self.project();
        let chan = *this.chan;
        let waiter = this.waiter.as_ref();
        let node = waiter.node();
        let cell = waiter.get_ref().value();

        if let Queue::Small(small) = &chan.queue {
            let res = small.poll_send(this.place, waiter, cx);
            if res.is_ready() {
                coop.made_progress();
            }
            return res;
        }

        if *this.ticket == NO_TICKET {
            let pushed = ready!(poll_wait(&chan.send_waiters, this.place, node, cx, || {
                // SAFETY: the ring's waiters never touch our value.
                cell.with_mut(|value| unsafe {
                    let v = (*value).take().expect("`Send` polled after completion");
                    match chan.push_waiting(v) {
                        Ok(ticket) => Some(Ok(ticket)),
                        Err((v, PushError::Closed)) => Some(Err(SendError(v))),
                        Err((v, PushError::Full)) => {
                            *value = Some(v);
                            None
                        }
                    }
                })
            }));
            match pushed {
                Err(e) => return Poll::Ready(Err(e)),
                Ok(_) if !chan.rendezvous => {
                    coop.made_progress();
                    return Poll::Ready(Ok(()));
                }
                Ok(ticket) => *this.ticket = ticket,
            }
        }

        // Rendezvous: wait for a receiver to claim our value.
        let ticket = *this.ticket;
        let ring = chan.ring();
        let res = ready!(poll_wait(
            &chan.handoff_waiters,
            this.place,
            node,
            cx,
            || {
                if ring.is_taken(ticket) {
                    return Some(Ok(()));
                }
                if chan.is_closed() {
                    // Nobody will take it: take it back, unless a receiver
                    // claimed it meanwhile.
                    return Some(match ring.unpush(ticket) {
                        Some(v) => Err(SendError(v)),
                        None => Ok(()),
                    });
                }
                None
            }
        ));
        *this.ticket = NO_TICKET;
        coop.made_progress();
        Poll::Ready(res)
    }
}

impl<T> fmt::Debug for Send<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Send").finish_non_exhaustive()
    }
}
