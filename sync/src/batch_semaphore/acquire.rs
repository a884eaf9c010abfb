//! The `Acquire` future and its intrusive waiter node.
//!
//! An `Acquire` goes through these states:
//!
//! ```text
//! Idle ──(permits available)──────────────────────────────▶ Done
//!   │
//!   └─(not enough: queue under the lock)─┬─▶ Fast ──(served)──▶ Done
//!                                        └─▶ Listed ─(served)─▶ Done
//!
//! served, but the task's coop budget is spent: Held ──(next poll)──▶ Done
//! ```
//!
//! `Fast` and `Listed` are the two places a waiter can wait (see the parent
//! module). Dropping the future in either of them cancels: it leaves its
//! place and releases the permits it was already assigned. `Done` means the
//! permits belong to the caller (or the acquire failed and gave back what it
//! had); dropping it does nothing.
//!
//! The coop budget. A first poll that finds the permits free checks the
//! budget first: a task out of budget yields without taking them, since
//! holding them across the yield would stall every other task that wants
//! them for a whole scheduling round (a 64-task, 2-permit convoy lost 5x).
//! A first poll that will have to wait queues first, whatever its budget,
//! so FIFO holds (tokio's `mutex_fifo_with_coop_budget`), and the budget
//! is checked once it is served: a waiter served while its task is out of
//! budget keeps the permits (`Held`) until it runs again; dropping it then
//! releases them.

use super::{
    AcquireError, FAST_DONE, FAST_EMPTY, FAST_OCCUPIED, FAST_SHIFT, PERMIT_SHIFT, Semaphore,
};
use super::{CLOSED, FLAGS, WAITERS};
use crate::bridge::loom::cell::UnsafeCell;
use crate::bridge::loom::sync::atomic::{AtomicUsize, Ordering::*};
use crate::bridge::{self, Pointers};

use pin_project_lite::pin_project;
use std::future::Future;
use std::marker::PhantomPinned;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{Context, Poll, Waker, ready};

/// Where an `Acquire` stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Not queued yet.
    Idle,
    /// In the semaphore's fast slot.
    Fast,
    /// In the semaphore's waiter list.
    Listed,
    /// Served while out of coop budget: the future holds the permits
    /// until its next poll hands them over.
    Held,
    /// Finished: the permits are the caller's (or it failed).
    Done,
}

/// A node of the semaphore's waiter list, embedded in an `Acquire`.
pub(super) struct Waiter {
    /// Permits still needed; 0 once fully served. Written only under the
    /// waiters lock; the owner may read it without the lock.
    needed: AtomicUsize,
    /// The owner's waker; read and written only under the waiters lock.
    waker: UnsafeCell<Option<Waker>>,
    pointers: Pointers<Waiter>,
    /// Linked nodes must not move.
    _p: PhantomPinned,
}

pin_project! {
    /// Future of `Semaphore::acquire`.
    ///
    /// The node is written only when the future enters the list (from then
    /// on `node_init` is set and the node stays pinned here until the drop):
    /// the common uncontended acquire never initializes or copies it.
    pub(crate) struct Acquire<'a> {
        node: MaybeUninit<Waiter>,
        semaphore: &'a Semaphore,
        num_permits: usize,
        state: State,
        node_init: bool,
        // A linked node must not move.
        #[pin]
        _p: PhantomPinned,
    }

    impl PinnedDrop for Acquire<'_> {
        #[inline]
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            match *this.state {
                State::Fast => this.semaphore.cancel_fast(*this.num_permits),
                State::Listed => {
                    // SAFETY: a listed future has initialized its node.
                    let node = unsafe { pinned_node(this.node) };
                    this.semaphore.cancel_listed(node, *this.num_permits);
                }
                State::Held => this.semaphore.release(*this.num_permits),
                State::Idle | State::Done => {}
            }
            if *this.node_init {
                // SAFETY: initialized (the flag), and unlinked: by a
                // releaser, by `cancel_listed` above, or by a close.
                unsafe { this.node.assume_init_drop() };
            }
        }
    }
}

/// The node of a future that has initialized it.
///
/// # Safety
/// `node` is initialized, and it is a field of a pinned `Acquire`.
unsafe fn pinned_node(node: &MaybeUninit<Waiter>) -> Pin<&Waiter> {
    // SAFETY: initialized (caller), and pinned with its future.
    unsafe { Pin::new_unchecked(node.assume_init_ref()) }
}

// SAFETY: a shared `&Acquire` gives access to nothing (every method takes
// `Pin<&mut Self>`); the waker cell inside is only touched under the
// semaphore's lock.
unsafe impl Sync for Acquire<'_> {}

impl<'a> Acquire<'a> {
    #[inline]
    #[track_caller]
    pub(super) fn new(semaphore: &'a Semaphore, num_permits: usize) -> Self {
        assert!(
            num_permits <= Semaphore::MAX_PERMITS,
            "a semaphore may not have more than MAX_PERMITS permits ({})",
            Semaphore::MAX_PERMITS
        );
        Acquire {
            node: MaybeUninit::uninit(),
            semaphore,
            num_permits,
            state: State::Idle,
            node_init: false,
            _p: PhantomPinned,
        }
    }
}

impl Future for Acquire<'_> {
    type Output = Result<(), AcquireError>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let sem = *this.semaphore;
        let n = *this.num_permits;
        let res = match *this.state {
            State::Idle => {
                // One load serves both the budget decision and the first
                // lock-free attempt.
                let curr = sem.permits.load(Acquire);
                if !Semaphore::free_for(curr, n) {
                    // We will (most likely) wait: queue first, so that
                    // FIFO holds even for a task out of budget.
                    sem.poll_idle(cx, n, curr, this.node, this.node_init, this.state)
                } else {
                    // Free permits: check the budget first, so that a task
                    // out of budget does not hold them across its yield.
                    let coop = ready!(bridge::poll_proceed(cx));
                    let res = sem.poll_idle(cx, n, curr, this.node, this.node_init, this.state);
                    // If they were taken meanwhile we queued (or it
                    // closed): unused, `coop` gives the unit back when
                    // dropped.
                    if let Poll::Ready(Ok(())) = res {
                        coop.made_progress();
                    }
                    return res;
                }
            }
            State::Fast => sem.poll_fast(cx, n, this.state),
            State::Listed => {
                // SAFETY: a listed future has initialized its node.
                let node = unsafe { pinned_node(this.node) };
                sem.poll_listed(cx, n, node, this.state)
            }
            State::Held => Poll::Ready(Ok(())),
            State::Done => panic!("`Acquire` polled after completion"),
        };
        if let Poll::Ready(Ok(())) = res {
            // Take part in the coop budget: a task that always finds
            // permits still yields now and then. Out of budget, it keeps
            // the permits it was served until it runs again.
            let Poll::Ready(coop) = bridge::poll_proceed(cx) else {
                *this.state = State::Held;
                return Poll::Pending;
            };
            *this.state = State::Done;
            coop.made_progress();
        }
        res
    }
}

impl Waiter {
    /// How many permits the waiter still needs. Caller holds the waiters
    /// lock.
    pub(super) fn needed_locked(&self) -> usize {
        // Relaxed: only lock holders write `needed`.
        self.needed.load(Relaxed)
    }

    /// Records that the waiter now needs only `needed` permits. When this
    /// stores 0 the owner may complete and free the node at once (it reads
    /// `needed` without the lock), so the caller must be done with the node
    /// (unlinked, waker taken) before storing 0. Caller holds the lock.
    pub(super) fn set_needed(&self, needed: usize) {
        // Release: the owner that reads 0 with Acquire owns the permits
        // (and sees what the releasing code did before releasing them).
        self.needed.store(needed, Release);
    }

    /// # Safety
    /// The caller holds the waiters lock.
    pub(super) unsafe fn take_waker(&self) -> Option<Waker> {
        // SAFETY: the lock gives exclusive access to the field.
        self.waker.with_mut(|ptr| unsafe { (*ptr).take() })
    }

    /// Stores `waker` unless the stored one already wakes the same task.
    ///
    /// # Safety
    /// The caller holds the waiters lock.
    unsafe fn set_waker(&self, waker: &Waker) -> Option<Waker> {
        self.waker.with_mut(|ptr| {
            // SAFETY: the lock gives exclusive access to the field.
            let slot = unsafe { &mut *ptr };
            match slot {
                Some(w) if w.will_wake(waker) => None,
                _ => slot.replace(waker.clone()),
            }
        })
    }
}

// How the waiter list reaches a node's links.
// The list's promise (`__pinned_node_link!`): `pointers` is a field of the
// node and belongs to the semaphore's list only; a node stays pinned inside
// its `Acquire` while linked, and the `Acquire` unlinks it (under the lock)
// before it is dropped.
volt_runtime::__pinned_node_link!(pub(super) WaiterLink => Waiter, pointers);

impl Semaphore {
    /// First poll: take the permits, or queue. `curr` is the caller's
    /// fresh (Acquire) load of `permits`.
    #[inline]
    fn poll_idle(
        &self,
        cx: &mut Context<'_>,
        n: usize,
        mut curr: usize,
        node: &mut MaybeUninit<Waiter>,
        node_init: &mut bool,
        state: &mut State,
    ) -> Poll<Result<(), AcquireError>> {
        let needed = n << PERMIT_SHIFT;

        // Lock-free attempt for the whole amount. It can only succeed when
        // nobody waits (invariant 1), so it never jumps the queue.
        loop {
            if curr & CLOSED == CLOSED {
                *state = State::Done;
                return Poll::Ready(Err(AcquireError::closed()));
            }
            if curr < needed {
                break;
            }
            match self
                .permits
                .compare_exchange_weak(curr, curr - needed, AcqRel, Acquire)
            {
                Ok(_) => {
                    *state = State::Done;
                    return Poll::Ready(Ok(()));
                }
                Err(actual) => curr = actual,
            }
        }

        self.poll_idle_slow(cx, n, node, node_init, state)
    }

    /// First poll, when the lock-free attempt failed.
    #[inline(never)]
    fn poll_idle_slow(
        &self,
        cx: &mut Context<'_>,
        n: usize,
        node: &mut MaybeUninit<Waiter>,
        node_init: &mut bool,
        state: &mut State,
    ) -> Poll<Result<(), AcquireError>> {
        let needed = n << PERMIT_SHIFT;
        // Slow path: under the lock. We take what there is and, if that is
        // not enough, set WAITERS in the same CAS, so that from then on no
        // release adds to the counter: it serves the queues instead, which
        // we enter before unlocking (invariant 1).
        let mut waiters = self.waiters.lock();
        let mut curr = self.permits.load(Acquire);
        let acquired = loop {
            if curr & CLOSED == CLOSED {
                drop(waiters);
                *state = State::Done;
                return Poll::Ready(Err(AcquireError::closed()));
            }
            let avail = curr >> PERMIT_SHIFT;
            let (next, took) = if avail >= n {
                (curr - needed, n)
            } else {
                (curr & FLAGS | WAITERS, avail)
            };
            if took < n && next == curr {
                // Nothing to take and WAITERS already set (the convoy's
                // common case). With the lock held nobody can change that
                // (invariant 1: only a lock holder clears WAITERS, nobody
                // adds while it is set), so skip the CAS: writing the line
                // anyway would take it from every core that reads it.
                break 0;
            }
            // AcqRel: Acquire for the permits we take, Release so that a
            // releaser that sees WAITERS comes to this lock after us.
            // SeqCst: a Dekker half for a channel built on the semaphore,
            // which keeps room of its own beside it and looks at that
            // room (`SeqCst`) after we queue; its room-givers look at
            // WAITERS after adding to it (`sync::mpsc`'s credits).
            match self
                .permits
                .compare_exchange_weak(curr, next, SeqCst, Acquire)
            {
                Ok(_) if took == n => {
                    *state = State::Done;
                    return Poll::Ready(Ok(()));
                }
                Ok(_) => break took,
                Err(actual) => curr = actual,
            }
        };

        let remaining = n - acquired;
        // The fast slot only while nobody else waits (invariant 2). Only
        // this lock's holder can fill an empty slot, so a plain store does.
        if waiters.queue.is_empty() && self.fast.load(Acquire) == FAST_EMPTY {
            // Release: a releaser that serves us sees our request.
            self.fast
                .store(FAST_OCCUPIED | remaining << FAST_SHIFT, Release);
            *state = State::Fast;
            drop(waiters);
            // Register the waker outside the lock (registering may wake),
            // then look again: a serve that came first is seen there.
            return self.poll_fast(cx, n, state);
        } else {
            // The node is written in place (our future is pinned) and
            // published to the releasers by the lock.
            let node: &Waiter = node.write(Waiter {
                needed: AtomicUsize::new(remaining),
                waker: UnsafeCell::new(Some(cx.waker().clone())),
                pointers: Pointers::new(),
                _p: PhantomPinned,
            });
            *node_init = true;
            waiters.queue.push_back(NonNull::from(node));
            *state = State::Listed;
            drop(waiters);
        }
        Poll::Pending
    }

    /// Poll of a waiter in the fast slot.
    fn poll_fast(
        &self,
        cx: &mut Context<'_>,
        n: usize,
        state: &mut State,
    ) -> Poll<Result<(), AcquireError>> {
        for attempt in 0..2 {
            if self.is_closed() {
                self.cancel_fast(n);
                *state = State::Done;
                return Poll::Ready(Err(AcquireError::closed()));
            }
            // Acquire: pairs with the releaser's Release CAS to DONE.
            if self.fast.load(Acquire) == FAST_DONE {
                // Only the owner leaves DONE. Our waker goes with us (a
                // stale waker would keep our task alive).
                drop(self.fast_waker.take());
                self.fast.store(FAST_EMPTY, Release);
                *state = State::Done;
                return Poll::Ready(Ok(()));
            }
            if attempt == 0 {
                // Register, then look again: a serve between the first look
                // and the registration is seen by the second.
                self.fast_waker.register_by_ref(cx.waker());
            }
        }
        Poll::Pending
    }

    /// Poll of a waiter in the list.
    fn poll_listed(
        &self,
        cx: &mut Context<'_>,
        n: usize,
        node: Pin<&Waiter>,
        state: &mut State,
    ) -> Poll<Result<(), AcquireError>> {
        if self.is_closed() {
            self.cancel_listed(node, n);
            *state = State::Done;
            return Poll::Ready(Err(AcquireError::closed()));
        }
        // Acquire: pairs with the Release store in `assign_permits`.
        if node.needed.load(Acquire) == 0 {
            *state = State::Done;
            return Poll::Ready(Ok(()));
        }
        // The waker is shared with releasers under the lock.
        let waiters = self.waiters.lock();
        if node.needed.load(Acquire) == 0 {
            *state = State::Done;
            return Poll::Ready(Ok(()));
        }
        if waiters.closed {
            drop(waiters);
            self.cancel_listed(node, n);
            *state = State::Done;
            return Poll::Ready(Err(AcquireError::closed()));
        }
        // SAFETY: we hold the lock.
        let old = unsafe { node.set_waker(cx.waker()) };
        drop(waiters);
        drop(old);
        Poll::Pending
    }

    /// Leaves the fast slot, handing back what was assigned.
    fn cancel_fast(&self, n: usize) {
        // Our waker must not outlive us in the slot. (A releaser waking it
        // concurrently wakes us spuriously, which is harmless.)
        drop(self.fast_waker.take());
        let mut curr = self.fast.load(Acquire);
        let acquired = loop {
            if curr == FAST_DONE {
                // Fully served: all `n` permits are ours to hand back.
                self.fast.store(FAST_EMPTY, Release);
                break n;
            }
            debug_assert_ne!(curr & FAST_OCCUPIED, 0, "fast slot owner lost its slot");
            let needed = curr >> FAST_SHIFT;
            // AcqRel: races releasers' CASes; whoever wins decides.
            match self
                .fast
                .compare_exchange_weak(curr, FAST_EMPTY, AcqRel, Acquire)
            {
                Ok(_) => break n - needed,
                Err(actual) => curr = actual,
            }
        };
        // Passes them on to the next waiters in order.
        self.release(acquired);
    }

    /// Leaves the list, handing back what was assigned.
    fn cancel_listed(&self, node: Pin<&Waiter>, n: usize) {
        let mut waiters = self.waiters.lock();
        // SAFETY: the node is alive (pinned in our future) and either in
        // this list or already unlinked by a releaser.
        unsafe { waiters.queue.remove(NonNull::from(&*node)) };
        let acquired = n - node.needed.load(Acquire);
        if acquired > 0 {
            self.add_permits_locked(acquired, waiters);
        }
    }
}
