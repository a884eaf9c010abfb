//! The shared state of an mpsc channel, bounded or not.
//!
//! * Values travel through the lock-free block list of `volt::channel`
//!   ([`List`]), which reuses a drained block for the next one needed (a
//!   steady flow allocates nothing, as tokio's mpsc reuses its blocks)
//!   and gives the rest back as it drains. The receiver pops
//!   with the single-consumer [`List::pop_single`]; the methods that pop
//!   are `unsafe` here, and `Rx` calls them from `&mut self`.
//! * A bounded channel's capacity is `bound` permits: a sender (or a
//!   `reserve`) takes one before it may push, the receiver gives one back
//!   for every value it pops. They live in two places (see "Credits"):
//!   the list's *credits*, a count in the same word as its tail position,
//!   and a [`Semaphore`]. Waiting for room is waiting on the semaphore:
//!   FIFO, allocation-free, cancel-safe.
//! * The one receiver waits in `rx_waker`, advertised by `rx_waiting`. The
//!   protocol is the MPMC channel's Dekker pair: the receiver registers its
//!   waker, sets `rx_waiting`, issues `fence(SeqCst)` and looks at the list
//!   again; a sender pushes (its claim of a list position is a `SeqCst`
//!   compare-exchange, which stands in for the notifier's fence, see
//!   [`claimed`]) and wakes the receiver only if a `SeqCst` load finds
//!   `rx_waiting` set. A send that finds nobody waiting touches no waker.
//!
//! # Credits
//!
//! A send that takes a credit claims its list position in the same
//! compare-exchange, so a `try_send` and a `try_recv` cost two locked
//! instructions (that CAS, and the receiver's return of the credit)
//! where a semaphore permit and a claim cost three. A channel whose
//! capacity fits the credit count ([`MAX_CREDITS`]) starts with all of it
//! as credits and an empty semaphore; a larger one never uses credits.
//!
//! 1. **Credits first, then the semaphore.** Taking room tries the
//!    credits, then the semaphore (`try_acquire`, or `acquire`, which
//!    queues the sender in FIFO order).
//! 2. **Queued senders are served first.** Room given back goes to the
//!    semaphore while it may have waiters (its `WAITERS` flag), else back
//!    to the credits. So room freed after a sender queued is that
//!    sender's (tokio's order); only a send racing the return itself may
//!    take it first, as it could have come before the waiter.
//! 3. **No credit is stranded while a sender waits.** A room-giver that
//!    returned a credit (a `SeqCst` CAS) then looks at `WAITERS`; a sender
//!    whose acquire returned `Pending` then looks at the credits. It is
//!    queued, so `WAITERS` was set by the semaphore's `SeqCst` CAS: its
//!    own, or that of an earlier waiter, which looked at the credits after
//!    it too. A Dekker pair without a fence: at least one side sees the
//!    other and moves every credit into the semaphore, which hands them to
//!    the waiters in order (loom:
//!    `credit_return_races_a_queued_sender`,
//!    `reserve_many_gathers_credits_and_returns`; each fails with either
//!    look removed).
//! 4. **Closing closes the credits.** The receiver's close takes every
//!    credit into the semaphore and marks the credits closed in the same
//!    CAS; from then on room goes to the semaphore only, so "no permit
//!    outstanding" is the semaphore holding `bound` again (loom:
//!    `permit_return_races_close`).
//!
//! # Closing
//!
//! The receiver closes the channel (`close()` or drop): `rx_closed` is set,
//! the semaphore is closed (new sends and reservations fail) and senders in
//! `closed()` are woken. Permits reserved before still send. The receiver
//! sees the end (`None`) once the list is empty and either every sender is
//! gone or the channel is closed with no permit outstanding.

use crate::bridge::loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*, fence};
use crate::bridge::{self, AtomicWaker};
use crate::mpmc::list::{List, MAX_CREDITS, SHIFT_CREDITS};
use crate::mpmc::waiters::claimed;
use volt_sync::trace;
use volt_sync::{Notify, Semaphore, TryAcquireError};

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::{Context, Poll, ready};

/// `#[repr(C)]`, for the gaps (`bridge::Spaced`): the list starts with
/// one and the semaphore starts and ends with one, so the positions, the
/// list's parked blocks, the permits, and the receiver's waker, flags and
/// the handle counts after them share no pair of cache lines. The list
/// ends without a gap because the semaphore starts with one.
#[repr(C)]
pub(super) struct Chan<T> {
    /// The values, and the credits (module docs).
    list: List<T, SHIFT_CREDITS>,
    /// The capacity that is not in credits (bounded channels only; an
    /// unbounded channel never touches it).
    semaphore: Semaphore,
    /// 0: unbounded.
    bound: usize,
    rx_waker: AtomicWaker,
    rx_waiting: AtomicBool,
    rx_closed: AtomicBool,
    /// Wakes senders in `closed()`.
    closed_notify: Notify,
    pub(super) tx_count: AtomicUsize,
    pub(super) tx_weak_count: AtomicUsize,
    /// tokio-console's view of the channel (feature `tracing`; zero-sized
    /// without).
    pub(super) resource: trace::Resource,
}

// Every handle (senders, receiver, permits) reaches the channel through
// here. A panic in user code (a `Drop` of `T`, a waker) leaves the list
// and counters consistent: each operation commits with one atomic step.
// As tokio, so the handles can cross `catch_unwind` whatever `T` is.
impl<T> std::panic::UnwindSafe for Chan<T> {}
impl<T> std::panic::RefUnwindSafe for Chan<T> {}

impl<T> Chan<T> {
    /// `bound == 0`: unbounded.
    #[track_caller]
    pub(super) fn new(bound: usize) -> Self {
        let resource = trace::Resource::new("mpsc::Sender|Receiver", "Sync");
        trace::state!(resource, capacity = bound);
        let credits = (bound > 0 && bound <= MAX_CREDITS).then_some(bound);
        Chan {
            resource,
            list: List::with_credits(credits),
            // Not a resource of its own: the channel is. A subscriber that
            // sends through an mpsc channel while it registers a callsite
            // (console-subscriber does) must not meet a first-time event
            // in there: tracing would re-enter its callsite registry and
            // deadlock.
            semaphore: Semaphore::new_untraced(if credits.is_some() { 0 } else { bound }),
            bound,
            rx_waker: AtomicWaker::new(),
            rx_waiting: AtomicBool::new(false),
            rx_closed: AtomicBool::new(false),
            closed_notify: Notify::new(),
            tx_count: AtomicUsize::new(1),
            tx_weak_count: AtomicUsize::new(0),
        }
    }

    /// Room for one more value now: credits and semaphore permits.
    pub(super) fn capacity(&self) -> usize {
        self.list.credits() + self.semaphore.available_permits()
    }

    pub(super) fn bound(&self) -> usize {
        self.bound
    }

    /// Pushes a value the caller is entitled to send (it holds a permit, or
    /// the channel is unbounded) and wakes the receiver if it waits.
    pub(super) fn push(&self, value: T) {
        // The list is never closed: permits reserved before a close still
        // send, and an unbounded send checks `rx_closed` itself.
        if self.list.push(value).is_err() {
            unreachable!("the mpsc list is never closed");
        }
        // Dekker: position claimed (SeqCst CAS); look for the receiver.
        claimed();
        self.wake_rx();
    }

    /// `try_send`'s first try: a credit and a position in one CAS, then
    /// the receiver woken if it waits. The value comes back if there is no
    /// credit.
    #[inline]
    pub(super) fn push_with_credit(&self, value: T) -> Result<(), T> {
        self.list.push_with_credit(value)?;
        // Dekker: position claimed (SeqCst CAS); look for the receiver.
        claimed();
        self.wake_rx();
        Ok(())
    }

    /// Takes room for `n` values if there is some now (module docs, rule
    /// 1).
    pub(super) fn try_reserve(&self, n: usize) -> Result<(), TryAcquireError> {
        if n == 1 && self.list.take_credit() {
            return Ok(());
        }
        let n = u32::try_from(n).map_err(|_| TryAcquireError::NoPermits)?;
        match self.semaphore.try_acquire_many(n) {
            Err(TryAcquireError::NoPermits) if self.list.credits() > 0 => {
                // Room is there, some of it in credits: move them over.
                self.credits_to_semaphore();
                self.semaphore.try_acquire_many(n).map(|p| p.forget())
            }
            res => res.map(|p| p.forget()),
        }
    }

    /// Moves every credit into the semaphore (which hands them to its
    /// waiters in order).
    fn credits_to_semaphore(&self) {
        let n = self.list.drain_credits(false);
        if n > 0 {
            self.semaphore.add_permits(n);
        }
    }

    /// The notifier half of the Dekker pair (see the module docs): after a
    /// `SeqCst` claim, or after `fence(SeqCst)`.
    fn wake_rx(&self) {
        // SeqCst: after a `SeqCst` claim this load is the notifier's half
        // of Dekker (the receiver re-checks the list after its fence); a
        // plain load on x86. The swap decides who wakes.
        if self.rx_waiting.load(SeqCst) && self.rx_waiting.swap(false, Relaxed) {
            self.rx_waker.wake();
        }
    }

    /// Gives back one unit of capacity (a received value or an unused
    /// permit). After a close, the receiver may be waiting for the last
    /// outstanding permit to come back.
    #[inline]
    pub(super) fn release_permit(&self) {
        if self.bound > 0 {
            // Module docs, rules 2 and 3.
            if self.semaphore.has_waiters() || !self.list.return_credit() {
                self.semaphore.add_permits(1);
                self.wake_rx_if_idle();
            } else {
                // A credit taken back cannot make a closed channel idle:
                // the CAS that returned it found the credits open, so the
                // close's drain comes after it and takes it.
                // Dekker: credit returned (SeqCst CAS); look for waiters.
                claimed();
                if self.semaphore.has_waiters() {
                    self.credits_to_semaphore();
                }
            }
        }
    }

    /// After room came back to the semaphore: if the receiver closed the
    /// channel and no reservation is outstanding any more, the receiver is
    /// done waiting (it sees `None` once the list is drained). Only then is
    /// it woken: of several concurrent returns, the last in the count's
    /// order sees the full count.
    ///
    /// The close is read from the semaphore's word, not `rx_closed`: read
    /// after our own return to that word, it shows a close ordered before
    /// the return (coherence), where a load of `rx_closed` could still
    /// miss it. A close ordered after the return is the receiver's own, and
    /// the receiver then counts the returned room itself.
    fn wake_rx_if_idle(&self) {
        if self.semaphore.is_closed() && self.semaphore.available_permits() == self.bound {
            // Dekker: permit returned; fence; look for the receiver (the
            // permit count is not a `SeqCst` claim).
            fence(SeqCst);
            self.wake_rx();
        }
    }

    /// Reserves `n` slots; from the credits first if `credit` (a caller
    /// that has just found none passes false). A reservation that fails
    /// (the receiver closed) or is cancelled gives back the slots it was
    /// already assigned, which may leave a closed channel idle: the
    /// receiver is then woken (the guard's drop, after the acquire
    /// future's, which returns them).
    pub(super) async fn reserve(&self, n: u32, credit: bool) -> Result<(), ()> {
        struct Returned<'a, T>(&'a Chan<T>);
        impl<T> Drop for Returned<'_, T> {
            fn drop(&mut self) {
                self.0.wake_rx_if_idle();
            }
        }
        if credit && n == 1 && self.take_credit().await {
            return Ok(());
        }
        let returned = Returned(self);
        // The semaphore's acquire, then the Dekker look of rule 3 (module
        // docs) whenever it is pending.
        let mut acquire = pin!(self.semaphore.acquire_many(n));
        let acquire = poll_fn(|cx| {
            let res = acquire.as_mut().poll(cx);
            if res.is_pending() {
                // Dekker: queued (`WAITERS` set by the semaphore's `SeqCst`
                // CAS, ours or an earlier waiter's, which looked too);
                // look for credits.
                claimed();
                if self.list.credits() > 0 {
                    self.credits_to_semaphore();
                }
            }
            res
        });
        let res = trace::async_op(&self.resource, "Sender::reserve", "poll_reserve", acquire).await;
        match res {
            Ok(permit) => {
                permit.forget();
                std::mem::forget(returned);
                Ok(())
            }
            Err(_) => Err(()),
        }
    }

    /// Takes a credit, within the task's coop budget (as an acquire that
    /// finds permits free does).
    async fn take_credit(&self) -> bool {
        poll_fn(|cx| {
            if !self.list.has_credit_now() {
                return Poll::Ready(false);
            }
            let coop = ready!(bridge::poll_proceed(cx));
            if self.list.take_credit() {
                coop.made_progress();
                return Poll::Ready(true);
            }
            Poll::Ready(false)
        })
        .await
    }

    /// `send`'s first try: [`push_with_credit`](Self::push_with_credit)
    /// within the task's coop budget. The value comes back in `value` if
    /// there is no credit.
    pub(super) async fn send_with_credit(&self, value: &mut Option<T>) -> bool {
        poll_fn(|cx| {
            if !self.list.has_credit_now() {
                return Poll::Ready(false);
            }
            let coop = ready!(bridge::poll_proceed(cx));
            let v = value.take().expect("a value to send");
            match self.push_with_credit(v) {
                Ok(()) => {
                    coop.made_progress();
                    Poll::Ready(true)
                }
                Err(v) => {
                    *value = Some(v);
                    Poll::Ready(false)
                }
            }
        })
        .await
    }

    /// Whether the receiver closed the channel.
    pub(super) fn is_rx_closed(&self) -> bool {
        self.rx_closed.load(Acquire)
    }

    /// Waits until the receiver closes the channel.
    pub(super) async fn closed(&self) {
        loop {
            let notified = self.closed_notify.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            if self.is_rx_closed() {
                return;
            }
            notified.await;
        }
    }

    /// Closes the channel from the receiver's side.
    pub(super) fn close(&self) {
        self.rx_closed.store(true, Release);
        if self.bound > 0 {
            // Module docs, rule 4.
            let n = self.list.drain_credits(true);
            if n > 0 {
                self.semaphore.add_permits(n);
            }
            self.semaphore.close();
        }
        self.closed_notify.notify_waiters();
    }

    /// Called when the last strong sender is dropped.
    pub(super) fn last_sender_dropped(&self) {
        self.rx_waker.wake();
        // `closed()` does not resolve for this: only the receiver closes.
    }

    /// Whether no more values can come: every sender is gone, or the
    /// channel is closed and no reserved permit is outstanding.
    fn is_finished(&self) -> bool {
        // Acquire: pairs with the last sender's AcqRel decrement, so its
        // pushes are visible to the pop that follows.
        if self.tx_count.load(Acquire) == 0 {
            return true;
        }
        self.is_rx_closed() && (self.bound == 0 || self.semaphore.available_permits() == self.bound)
    }

    /// Pops a value (giving its capacity back).
    ///
    /// # Safety
    ///
    /// Receiver side: the caller holds the one receiver by `&mut` (or drops
    /// it), so no two pops run at once. The same holds for every method
    /// below marked `unsafe`.
    pub(super) unsafe fn try_pop(&self) -> Option<T> {
        // SAFETY: one consumer, by this function's contract.
        let value = unsafe { self.list.pop_single() }.ok()?;
        self.release_permit();
        Some(value)
    }

    /// `try_recv`: `Err(true)` when the channel is finished and empty.
    ///
    /// # Safety
    ///
    /// Receiver side (see [`try_pop`](Self::try_pop)).
    #[inline]
    pub(super) unsafe fn try_recv(&self) -> Result<T, bool> {
        // The common case inlined into the caller (a value there); the
        // rest is a call of its own.
        // SAFETY: one consumer, by our contract.
        if let Ok(value) = unsafe { self.list.pop_single() } {
            self.release_permit();
            return Ok(value);
        }
        // SAFETY: receiver side, by our contract.
        unsafe { self.try_recv_slow() }
    }

    /// `try_recv` once its first look found nothing.
    ///
    /// # Safety
    ///
    /// Receiver side (see [`try_pop`](Self::try_pop)).
    #[inline(never)]
    unsafe fn try_recv_slow(&self) -> Result<T, bool> {
        // SAFETY: receiver side, by our contract.
        if let Some(v) = unsafe { self.try_pop() } {
            return Ok(v);
        }
        if self.is_finished() {
            // A last push may have landed just before the end was seen.
            // SAFETY: as above.
            return unsafe { self.try_pop() }.ok_or(true);
        }
        Err(false)
    }

    /// The receiver's poll.
    ///
    /// # Safety
    ///
    /// Receiver side (see [`try_pop`](Self::try_pop)).
    pub(super) unsafe fn poll_recv(&self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let coop = ready!(bridge::poll_proceed(cx));
        for attempt in 0..2 {
            // SAFETY: receiver side, by our contract.
            match unsafe { self.try_recv() } {
                Ok(v) => {
                    coop.made_progress();
                    return Poll::Ready(Some(v));
                }
                Err(true) => {
                    coop.made_progress();
                    return Poll::Ready(None);
                }
                Err(false) => {}
            }
            if attempt == 0 {
                // Dekker: register, advertise, fence, look again.
                self.rx_waker.register_by_ref(cx.waker());
                self.rx_waiting.store(true, Relaxed);
                fence(SeqCst);
            }
        }
        Poll::Pending
    }

    /// `recv_many`: waits for one value, then takes what is there, up to
    /// `limit` in all.
    ///
    /// # Safety
    ///
    /// Receiver side (see [`try_pop`](Self::try_pop)).
    pub(super) unsafe fn poll_recv_many(
        &self,
        cx: &mut Context<'_>,
        buffer: &mut Vec<T>,
        limit: usize,
    ) -> Poll<usize> {
        if limit == 0 {
            return Poll::Ready(0);
        }
        // SAFETY: receiver side, by our contract.
        let Some(first) = ready!(unsafe { self.poll_recv(cx) }) else {
            return Poll::Ready(0);
        };
        buffer.reserve(limit.min(self.len() + 1));
        buffer.push(first);
        let mut n = 1;
        while n < limit {
            // SAFETY: as above.
            match unsafe { self.try_pop() } {
                Some(v) => {
                    buffer.push(v);
                    n += 1;
                }
                None => break,
            }
        }
        Poll::Ready(n)
    }

    pub(super) fn len(&self) -> usize {
        self.list.len()
    }

    /// The receiver is dropped: close (if `close`: not when the receiver
    /// is the channel's last handle, with nobody left to tell), let go of
    /// its waker (it may keep a task's memory alive), and drop what is
    /// left, every value even if one's `Drop` panics.
    ///
    /// # Safety
    ///
    /// Receiver side (see [`try_pop`](Self::try_pop)), once.
    pub(super) unsafe fn rx_drop(&self, close: bool) {
        struct Drain<'a, T>(&'a Chan<T>);
        impl<T> Drop for Drain<'_, T> {
            fn drop(&mut self) {
                // SAFETY: the receiver is being dropped: the only consumer.
                while unsafe { self.0.try_pop() }.is_some() {}
            }
        }
        if close {
            self.close();
            drop(self.rx_waker.take());
        }
        // If a value's `Drop` panics, the guard drains the rest while the
        // panic unwinds (a second panic then aborts, as any panic during
        // unwinding does).
        let guard = Drain(self);
        // SAFETY: receiver side, by our contract.
        while unsafe { self.try_pop() }.is_some() {}
        std::mem::forget(guard);
    }

    /// Whether the receiver reports the channel closed.
    pub(super) fn rx_is_closed(&self) -> bool {
        self.is_rx_closed() || self.tx_count.load(Acquire) == 0
    }
}

#[cfg(all(test, not(loom)))]
mod layout_tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The semaphore, whose permit word has a gap before it (the test
    /// `the_permit_word_is_kept_apart` in volt-sync), comes right after
    /// the list, which ends without one; no other gap is needed between.
    #[test]
    fn the_semaphore_follows_the_list() {
        assert_eq!(
            offset_of!(Chan<u64>, semaphore),
            size_of::<List<u64, SHIFT_CREDITS>>()
        );
        assert!(
            offset_of!(Chan<u64>, rx_waker)
                >= offset_of!(Chan<u64>, semaphore) + size_of::<Semaphore>()
        );
    }
}
