//! The waiting side of [`Notify`]: the [`Notified`] and [`OwnedNotified`]
//! futures and the waiter node each one embeds.
//!
//! A future starts in `State::Init`. Its first poll (or `enable`) either
//! consumes a stored permit with a CAS, or, under the notify's lock, links
//! its `Waiter` node into the list and moves to `State::Waiting`. A
//! notifier unlinks the node under the lock, takes its waker and records
//! how it was notified in `notification` (Release); the owner reads that
//! (Acquire) on its next poll and moves to `State::Done`. The node's waker
//! cell and links are touched only under the lock; `notification` is the
//! one field the owner reads without it. A future dropped while linked
//! unlinks itself under the lock and passes an unseen `notify_one` /
//! `notify_last` on (`drop_notified`). The protocol as a whole is described
//! in the [parent module](super).

use super::{
    EMPTY, NOTIFICATION_LAST, NOTIFICATION_NONE, NOTIFICATION_ONE, NOTIFIED, Notify, Strategy,
    WAITING, get_calls, get_state, notify_locked, set_state,
};
use crate::bridge::loom::cell::UnsafeCell;
use crate::bridge::loom::sync::atomic::{AtomicUsize, Ordering::*};
use crate::bridge::{Pointers, WakerSlot};

use pin_project_lite::pin_project;
use std::fmt;
use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::ptr::NonNull;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

/// A node of the waiter list, inside a `Notified` future.
pub(super) struct Waiter {
    /// The owner's waker; only touched under the lock.
    /// A `WakerSlot`: every `notified()` builds a waiter and the future is
    /// moved while it is empty (the bridge's `WakerSlot` docs).
    waker: UnsafeCell<WakerSlot>,
    /// How the waiter was notified (`NOTIFICATION_*`); written under the
    /// lock, read by the owner.
    pub(super) notification: AtomicUsize,
    pointers: Pointers<Waiter>,
    _p: PhantomPinned,
}

/// Where a `Notified` future stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Not yet registered.
    Init,
    /// In the waiter list (or in a `notify_waiters` batch).
    Waiting,
    /// Notified.
    Done,
}

pin_project! {
    /// What both futures hold besides their `Notify`: where they stand, the
    /// `notify_waiters` count at their creation, and their waiter node.
    #[derive(Debug)]
    struct Waiting {
        state: State,
        notify_waiters_calls: usize,
        #[pin]
        waiter: Waiter,
    }
}

impl Waiting {
    /// Not waiting yet; remembers how many `notify_waiters` calls happened
    /// before it.
    fn new(notify: &Notify) -> Waiting {
        // Acquire: pairs with the Release of `notify_waiters`' call count.
        let calls = get_calls(notify.state.load(Acquire));
        Waiting {
            state: State::Init,
            notify_waiters_calls: calls,
            waiter: Waiter::new(),
        }
    }

    /// The poll of both futures (`cx: None` is `enable`).
    fn poll(self: Pin<&mut Self>, notify: &Notify, cx: Option<&mut Context<'_>>) -> Poll<()> {
        let this = self.project();
        poll_notified(
            notify,
            this.state,
            *this.notify_waiters_calls,
            this.waiter.as_ref(),
            cx,
        )
    }

    /// The drop of both futures.
    fn leave(self: Pin<&mut Self>, notify: &Notify) {
        let this = self.project();
        drop_notified(notify, this.state, this.waiter.as_ref());
    }
}

pin_project! {
    /// Future returned from [`Notify::notified()`].
    ///
    /// This future is fused, so once it has completed, any future calls to
    /// poll will immediately return `Poll::Ready`.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Notified<'a> {
        notify: &'a Notify,
        #[pin]
        waiting: Waiting,
    }

    impl PinnedDrop for Notified<'_> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            this.waiting.leave(this.notify);
        }
    }
}

pin_project! {
    /// Future returned from [`Notify::notified_owned()`].
    ///
    /// This future is fused, so once it has completed, any future calls to
    /// poll will immediately return `Poll::Ready`.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct OwnedNotified {
        notify: Arc<Notify>,
        #[pin]
        waiting: Waiting,
    }

    impl PinnedDrop for OwnedNotified {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            this.waiting.leave(this.notify);
        }
    }
}

// SAFETY: the waker cell is only touched under the notify's lock, and a
// shared `&Notified` gives access to nothing.
unsafe impl Sync for Notified<'_> {}
// SAFETY: as above.
unsafe impl Sync for OwnedNotified {}

impl Waiter {
    pub(super) fn new() -> Waiter {
        Waiter {
            waker: UnsafeCell::new(WakerSlot::new()),
            notification: AtomicUsize::new(NOTIFICATION_NONE),
            pointers: Pointers::new(),
            _p: PhantomPinned,
        }
    }

    /// # Safety
    /// The caller holds the notify's lock, or owns the unlinked node.
    pub(super) unsafe fn take_waker(&self) -> Option<Waker> {
        // SAFETY: exclusive access per the caller's contract.
        self.waker.with_mut(|ptr| unsafe { (*ptr).take() })
    }
}

impl fmt::Debug for Waiter {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("Waiter").finish_non_exhaustive()
    }
}

// How the waiter list reaches a node's links.
// The list's promise (`__pinned_node_link!`): `pointers` is a field of the
// node, used by one list at a time; a linked node is pinned inside its
// future, which unlinks it (under the lock) before it goes away.
volt_runtime::__pinned_node_link!(pub(super) WaiterLink => Waiter, pointers);

impl<'a> Notified<'a> {
    /// A future that has not waited yet; it remembers how many
    /// `notify_waiters` calls happened before it.
    pub(super) fn new(notify: &'a Notify) -> Self {
        Notified {
            notify,
            waiting: Waiting::new(notify),
        }
    }

    /// Adds this future to the list of futures that are ready to receive
    /// wakeups from calls to [`notify_one`].
    ///
    /// Polling the future also adds it to the list, so this method should
    /// only be used if you want to add the future to the list before the
    /// first call to `poll`. (In fact, this method is equivalent to calling
    /// `poll` except that no `Waker` is registered.)
    ///
    /// This has no effect on notifications sent using [`notify_waiters`],
    /// which are received as long as they happen after the creation of the
    /// `Notified` regardless of whether `enable` or `poll` has been called.
    ///
    /// This method returns true if the `Notified` is ready. This happens in
    /// the following situations:
    ///
    ///  1. The `notify_waiters` method was called between the creation of
    ///     the `Notified` and the call to this method.
    ///  2. This is the first call to `enable` or `poll` on this future, and
    ///     the `Notify` was holding a permit from a previous call to
    ///     `notify_one`. The call consumes the permit in that case.
    ///  3. The future has previously been enabled or polled, and it has since
    ///     then been marked ready by either consuming a permit from the
    ///     `Notify`, or by a call to `notify_one` or `notify_waiters` that
    ///     removed it from the list of futures ready to receive wakeups.
    ///
    /// If this method returns true, any future calls to poll on the same
    /// future will immediately return `Poll::Ready`.
    ///
    /// # Examples
    ///
    /// Unbound multi-producer multi-consumer (mpmc) channel.
    ///
    /// The call to `enable` is important because otherwise if you have two
    /// calls to `recv` and two calls to `send` in parallel, the following
    /// could happen:
    ///
    ///  1. Both calls to `try_recv` return `None`.
    ///  2. Both new elements are added to the vector.
    ///  3. The `notify_one` method is called twice, adding only a single
    ///     permit to the `Notify`.
    ///  4. Both calls to `recv` reach the `Notified` future. One of them
    ///     consumes the permit, and the other sleeps forever.
    ///
    /// By adding the `Notified` futures to the list by calling `enable`
    /// before `try_recv`, the `notify_one` calls in step three would remove
    /// the futures from the list and mark them notified instead of adding a
    /// permit to the `Notify`. This ensures that both futures are woken.
    ///
    /// ```
    /// use volt_sync::Notify;
    ///
    /// use std::collections::VecDeque;
    /// use std::sync::Mutex;
    ///
    /// struct Channel<T> {
    ///     messages: Mutex<VecDeque<T>>,
    ///     notify_on_sent: Notify,
    /// }
    ///
    /// impl<T> Channel<T> {
    ///     pub fn send(&self, msg: T) {
    ///         let mut locked_queue = self.messages.lock().unwrap();
    ///         locked_queue.push_back(msg);
    ///         drop(locked_queue);
    ///
    ///         // Send a notification to one of the calls currently
    ///         // waiting in a call to `recv`.
    ///         self.notify_on_sent.notify_one();
    ///     }
    ///
    ///     pub fn try_recv(&self) -> Option<T> {
    ///         let mut locked_queue = self.messages.lock().unwrap();
    ///         locked_queue.pop_front()
    ///     }
    ///
    ///     pub async fn recv(&self) -> T {
    ///         let mut future = std::pin::pin!(self.notify_on_sent.notified());
    ///
    ///         loop {
    ///             // Make sure that no wakeup is lost if we get
    ///             // `None` from `try_recv`.
    ///             future.as_mut().enable();
    ///
    ///             if let Some(msg) = self.try_recv() {
    ///                 return msg;
    ///             }
    ///
    ///             // Wait for a call to `notify_one`.
    ///             //
    ///             // This uses `.as_mut()` to avoid consuming the future,
    ///             // which lets us call `Pin::set` below.
    ///             future.as_mut().await;
    ///
    ///             // Reset the future in case another call to
    ///             // `try_recv` got the message before us.
    ///             future.set(self.notify_on_sent.notified());
    ///         }
    ///     }
    /// }
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// # let ch = Channel { messages: Mutex::new(VecDeque::new()), notify_on_sent: Notify::new() };
    /// # ch.send(3);
    /// # assert_eq!(ch.recv().await, 3);
    /// # });
    /// ```
    ///
    /// [`notify_one`]: Notify::notify_one()
    /// [`notify_waiters`]: Notify::notify_waiters()
    pub fn enable(self: Pin<&mut Self>) -> bool {
        let this = self.project();
        this.waiting.poll(this.notify, None).is_ready()
    }
}

impl Future for Notified<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.project();
        this.waiting.poll(this.notify, Some(cx))
    }
}

impl OwnedNotified {
    /// As [`Notified::new`].
    pub(super) fn new(notify: Arc<Notify>) -> Self {
        let waiting = Waiting::new(&notify);
        OwnedNotified { notify, waiting }
    }

    /// Adds this future to the list of futures that are ready to receive
    /// wakeups from calls to [`notify_one`].
    ///
    /// See [`Notified::enable`] for more details.
    ///
    /// [`notify_one`]: Notify::notify_one()
    pub fn enable(self: Pin<&mut Self>) -> bool {
        let this = self.project();
        this.waiting.poll(this.notify, None).is_ready()
    }
}

impl Future for OwnedNotified {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.project();
        this.waiting.poll(this.notify, Some(cx))
    }
}

/// The poll of both futures (`cx: None` is `enable`).
fn poll_notified(
    notify: &Notify,
    state: &mut State,
    calls: usize,
    waiter: Pin<&Waiter>,
    cx: Option<&mut Context<'_>>,
) -> Poll<()> {
    let res = match *state {
        State::Init => poll_init(notify, calls, waiter, cx),
        State::Waiting => poll_waiting(notify, calls, waiter, cx),
        State::Done => return Poll::Ready(()),
    };
    *state = if res.is_ready() {
        State::Done
    } else {
        State::Waiting
    };
    res
}

/// The first poll: done at once (a broadcast since creation, or a stored
/// permit), or linked into the list (`Pending`).
fn poll_init(
    notify: &Notify,
    calls: usize,
    waiter: Pin<&Waiter>,
    mut cx: Option<&mut Context<'_>>,
) -> Poll<()> {
    let curr = notify.state.load(Acquire);
    // A broadcast since our creation counts for us, and leaves a stored
    // permit to others.
    if get_calls(curr) != calls {
        return Poll::Ready(());
    }
    // Try to consume a stored permit.
    if notify
        .state
        .compare_exchange(
            set_state(curr, NOTIFIED),
            set_state(curr, EMPTY),
            AcqRel,
            Acquire,
        )
        .is_ok()
    {
        return Poll::Ready(());
    }

    // Clone the waker before locking: cloning may run arbitrary code.
    let waker = cx.as_mut().map(|cx| cx.waker().clone());

    let mut waiters = notify.waiters.lock();
    let curr = notify.state.load(Acquire);
    if get_calls(curr) != calls {
        return Poll::Ready(());
    }
    if enter_waiting(&notify.state, curr, calls).is_ready() {
        drop(waiters);
        return Poll::Ready(());
    }

    let old_waker = waker.and_then(|waker| {
        waiter.waker.with_mut(|ptr| {
            // SAFETY: we hold the lock that guards the cell.
            unsafe { (*ptr).replace(waker) }
        })
    });
    waiters.push_front(NonNull::from(&*waiter));
    drop(waiters);
    drop(old_waker);
    Poll::Pending
}

/// Under the waiters' lock: moves the state to `WAITING` (`Pending`), or
/// is done because a permit or a `notify_waiters` call (the count moved
/// past `calls`, the waiter's creation) appeared meanwhile (`Ready`). Only
/// `EMPTY` and `NOTIFIED`, and the count, change without the lock.
fn enter_waiting(state: &AtomicUsize, mut curr: usize, calls: usize) -> Poll<()> {
    loop {
        if get_calls(curr) != calls {
            return Poll::Ready(());
        }
        match get_state(curr) {
            EMPTY => match state.compare_exchange(
                set_state(curr, EMPTY),
                set_state(curr, WAITING),
                AcqRel,
                Acquire,
            ) {
                Ok(_) => return Poll::Pending,
                Err(actual) => {
                    assert_ne!(get_state(actual), WAITING);
                    curr = actual;
                }
            },
            WAITING => return Poll::Pending,
            NOTIFIED => match state.compare_exchange(
                set_state(curr, NOTIFIED),
                set_state(curr, EMPTY),
                AcqRel,
                Acquire,
            ) {
                Ok(_) => return Poll::Ready(()),
                Err(actual) => {
                    assert_ne!(get_state(actual), WAITING);
                    curr = actual;
                }
            },
            _ => unreachable!("invalid notify state"),
        }
    }
}

/// A linked waiter polled again: notified (`Ready`, out of the list), or
/// still waiting with its waker refreshed.
fn poll_waiting(
    notify: &Notify,
    calls: usize,
    waiter: Pin<&Waiter>,
    mut cx: Option<&mut Context<'_>>,
) -> Poll<()> {
    // Acquire: pairs with the notifier's Release store.
    if waiter.notification.load(Acquire) != NOTIFICATION_NONE {
        // Unlinked by the notifier: the node is ours again.
        // SAFETY: an unlinked node is only touched by its owner.
        drop(unsafe { waiter.take_waker() });
        waiter.notification.store(NOTIFICATION_NONE, Relaxed);
        return Poll::Ready(());
    }

    let mut waiters = notify.waiters.lock();
    // Relaxed: notifications are written under this lock.
    if waiter.notification.load(Relaxed) != NOTIFICATION_NONE {
        // SAFETY: unlinked; we also hold the lock.
        let old = unsafe { waiter.take_waker() };
        waiter.notification.store(NOTIFICATION_NONE, Relaxed);
        drop(waiters);
        drop(old);
        return Poll::Ready(());
    }

    let curr = notify.state.load(Acquire);
    if get_calls(curr) != calls {
        // A `notify_waiters` is under way and we are in its ring: take
        // ourselves out; it counts as notified.
        // SAFETY: we hold the lock.
        let old = unsafe { waiter.take_waker() };
        // SAFETY: the node is in this list or in the ring, whose nodes
        // this list's `remove` unlinks correctly.
        unsafe { waiters.remove(NonNull::from(&*waiter)) };
        drop(waiters);
        drop(old);
        return Poll::Ready(());
    }

    // Still waiting: refresh the waker if it changed.
    let old = cx.as_mut().and_then(|cx| {
        let new = cx.waker();
        // SAFETY: we hold the lock.
        waiter.waker.with_mut(|ptr| unsafe { (*ptr).register(new) })
    });
    drop(waiters);
    drop(old);
    Poll::Pending
}

/// A dropped `Notified` leaves the list; a `notify_one` it received but did
/// not see goes to the next waiter.
fn drop_notified(notify: &Notify, state: &mut State, waiter: Pin<&Waiter>) {
    if *state != State::Waiting {
        return;
    }
    let mut waiters = notify.waiters.lock();
    let mut notify_state = notify.state.load(Acquire);
    // Relaxed: notifications are written under this lock.
    let notification = waiter.notification.load(Relaxed);

    // SAFETY: we hold the lock; the node is in this list, in a
    // `notify_waiters` ring (unlinked correctly by this list's `remove`),
    // or in no list.
    unsafe { waiters.remove(NonNull::from(&*waiter)) };

    if waiters.is_empty() && get_state(notify_state) == WAITING {
        notify_state = set_state(notify_state, EMPTY);
        notify.state.store(notify_state, Release);
    }

    // Pass an unseen `notify_one` / `notify_last` on.
    let strategy = match notification {
        NOTIFICATION_ONE => Some(Strategy::Fifo),
        NOTIFICATION_LAST => Some(Strategy::Lifo),
        _ => None,
    };
    if let Some(strategy) = strategy {
        if let Some(waker) = notify_locked(&mut waiters, &notify.state, notify_state, strategy) {
            drop(waiters);
            waker.wake();
        }
    }
}
