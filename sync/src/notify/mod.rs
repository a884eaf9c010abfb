//! `Notify`: wake one task, or every waiting task, without sending data.
//!
//! # State
//!
//! One atomic word holds a counter of `notify_waiters` calls (the high
//! bits) and a two-bit state:
//!
//! * `EMPTY`: no waiter, no stored permit;
//! * `WAITING`: the waiter list is non-empty;
//! * `NOTIFIED`: no waiter, one stored permit (from `notify_one` or
//!   `notify_last` with nobody waiting).
//!
//! Waiters are intrusive nodes inside the `Notified` futures, in a list
//! behind a mutex (newest at the front). Leaving `WAITING` requires the
//! lock; entering or leaving `NOTIFIED` is a CAS that needs no lock.
//!
//! # Protocol
//!
//! * `notify_one` / `notify_last`: if the state is `EMPTY` or `NOTIFIED`,
//!   CAS it to `NOTIFIED` (a permit; at most one is stored). Otherwise take
//!   the lock, unlink the oldest (`notify_one`) or newest (`notify_last`)
//!   waiter, mark it notified and wake it after unlocking.
//! * A `Notified` future's first poll consumes a stored permit with a CAS,
//!   or, under the lock, moves the state to `WAITING` and links itself.
//! * `notify_waiters` bumps the call counter, moves the whole list behind a
//!   guard node on its stack, and wakes those waiters in batches, releasing
//!   the lock between batches. Waiters created before the call see the
//!   counter change and complete even if they were never polled; waiters
//!   created after it are not affected. It stores no permit.
//! * A waiter that was notified by `notify_one` and is dropped before it
//!   saw the notification passes it on to the next waiter (or stores it),
//!   so a notification is never lost to a cancelled waiter.

use crate::bridge::loom::cell::UnsafeCell;
use crate::bridge::loom::sync::Mutex;
use crate::bridge::loom::sync::atomic::{AtomicUsize, Ordering::*};
use crate::bridge::{Link, LinkedList, Pointers, WakeList, WakerSlot};

use pin_project_lite::pin_project;
use std::fmt;
use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::ptr::NonNull;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

/// Notifies a single task to wake up.
///
/// `Notify` provides a basic mechanism to notify a single task of an event.
/// `Notify` itself does not carry any data. Instead, it is to be used to
/// signal another task to perform an operation.
///
/// A `Notify` can be thought of as a [`Semaphore`] starting with 0 permits.
/// The [`notified().await`] method waits for a permit to become available,
/// and [`notify_one()`] sets a permit **if there currently are no available
/// permits**.
///
/// The synchronization details of `Notify` are similar to
/// [`thread::park`][park] and [`Thread::unpark`][unpark] from std. A
/// [`Notify`] value contains a single permit. [`notified().await`] waits
/// for the permit to be made available, consumes the permit, and resumes.
/// [`notify_one()`] sets the permit, waking a pending task if there is one.
///
/// If `notify_one()` is called **before** `notified().await`, then the next
/// call to `notified().await` will complete immediately, consuming the
/// permit. Any subsequent calls to `notified().await` will wait for a new
/// permit.
///
/// If `notify_one()` is called **multiple** times before
/// `notified().await`, only a **single** permit is stored. The next call to
/// `notified().await` will complete immediately, but the one after will
/// wait.
///
/// [`notify_one()`] wakes waiters in the order they started waiting (FIFO);
/// [`notify_last()`] wakes the most recent one.
///
/// # Examples
///
/// Basic usage.
///
/// ```
/// use volt_sync::Notify;
/// use std::sync::Arc;
///
/// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
/// let notify = Arc::new(Notify::new());
/// let notify2 = notify.clone();
///
/// let handle = volt_runtime::spawn(async move {
///     notify2.notified().await;
///     println!("received notification");
/// });
///
/// println!("sending notification");
/// notify.notify_one();
///
/// // Wait for task to receive notification.
/// handle.await.unwrap();
/// # });
/// ```
///
/// [park]: std::thread::park
/// [unpark]: std::thread::Thread::unpark
/// [`notified().await`]: Notify::notified()
/// [`notify_one()`]: Notify::notify_one()
/// [`notify_last()`]: Notify::notify_last()
/// [`Semaphore`]: crate::Semaphore
pub struct Notify {
    state: AtomicUsize,
    waiters: Mutex<LinkedList<WaiterLink>>,
}

/// A node of the waiter list, inside a `Notified` future.
struct Waiter {
    /// The owner's waker; only touched under the lock.
    /// A `WakerSlot`: every `notified()` builds a waiter and the future is
    /// moved while it is empty (the bridge's `WakerSlot` docs).
    waker: UnsafeCell<WakerSlot>,
    /// How the waiter was notified (`NOTIFICATION_*`); written under the
    /// lock, read by the owner.
    notification: AtomicUsize,
    pointers: Pointers<Waiter>,
    _p: PhantomPinned,
}

const NOTIFICATION_NONE: usize = 0;
const NOTIFICATION_ONE: usize = 1;
const NOTIFICATION_LAST: usize = 2;
const NOTIFICATION_ALL: usize = 3;

/// Which end `notify_one`-like calls take from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Strategy {
    Fifo,
    Lifo,
}

const EMPTY: usize = 0;
const WAITING: usize = 1;
const NOTIFIED: usize = 2;
const STATE_MASK: usize = 0b11;
const CALLS_SHIFT: usize = 2;

fn get_state(data: usize) -> usize {
    data & STATE_MASK
}

fn set_state(data: usize, state: usize) -> usize {
    (data & !STATE_MASK) | state
}

fn get_calls(data: usize) -> usize {
    data >> CALLS_SHIFT
}

fn inc_calls(data: usize) -> usize {
    data.wrapping_add(1 << CALLS_SHIFT)
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
    /// Future returned from [`Notify::notified()`].
    ///
    /// This future is fused, so once it has completed, any future calls to
    /// poll will immediately return `Poll::Ready`.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Notified<'a> {
        notify: &'a Notify,
        state: State,
        notify_waiters_calls: usize,
        #[pin]
        waiter: Waiter,
    }

    impl PinnedDrop for Notified<'_> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            drop_notified(this.notify, this.state, this.waiter.as_ref());
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
        state: State,
        notify_waiters_calls: usize,
        #[pin]
        waiter: Waiter,
    }

    impl PinnedDrop for OwnedNotified {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            drop_notified(this.notify, this.state, this.waiter.as_ref());
        }
    }
}

// SAFETY: the waker cell is only touched under the notify's lock, and a
// shared `&Notified` gives access to nothing.
unsafe impl Sync for Notified<'_> {}
// SAFETY: as above.
unsafe impl Sync for OwnedNotified {}

impl Notify {
    /// Create a new `Notify`, initialized without a permit.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::Notify;
    ///
    /// let notify = Notify::new();
    /// ```
    pub fn new() -> Notify {
        Notify {
            state: AtomicUsize::new(0),
            waiters: Mutex::new(LinkedList::new()),
        }
    }

    /// Create a new `Notify`, initialized without a permit.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::Notify;
    ///
    /// static NOTIFY: Notify = Notify::const_new();
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new() -> Notify {
        Notify {
            state: AtomicUsize::new(0),
            waiters: Mutex::new(LinkedList::new()),
        }
    }

    /// Wait for a notification.
    ///
    /// Equivalent to:
    ///
    /// ```text
    /// async fn notified(&self);
    /// ```
    ///
    /// Each `Notify` value holds a single permit. If a permit is available
    /// from an earlier call to [`notify_one()`], then `notified().await`
    /// will complete immediately, consuming that permit. Otherwise,
    /// `notified().await` waits for a permit to be made available by the
    /// next call to `notify_one()`.
    ///
    /// The `Notified` future is not guaranteed to receive wakeups from calls
    /// to `notify_one()` if it has not yet been polled. See the
    /// documentation for [`Notified::enable()`] for more details.
    ///
    /// The `Notified` future is guaranteed to receive wakeups from
    /// `notify_waiters()` as soon as it has been created, even if it has
    /// not yet been polled.
    ///
    /// [`notify_one()`]: Notify::notify_one
    /// [`Notified::enable()`]: Notified::enable
    ///
    /// # Cancel safety
    ///
    /// This method uses a queue to fairly distribute notifications in the
    /// order they were requested. Cancelling a call to `notified` makes you
    /// lose your place in the queue; a notification it had already received
    /// is passed on to the next waiter.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::Notify;
    /// use std::sync::Arc;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let notify = Arc::new(Notify::new());
    /// let notify2 = notify.clone();
    ///
    /// volt_runtime::spawn(async move {
    ///     notify2.notified().await;
    ///     println!("received notification");
    /// });
    ///
    /// println!("sending notification");
    /// notify.notify_one();
    /// # });
    /// ```
    pub fn notified(&self) -> Notified<'_> {
        // Remember how many `notify_waiters` calls happened before us.
        let state = self.state.load(Acquire);
        Notified {
            notify: self,
            state: State::Init,
            notify_waiters_calls: get_calls(state),
            waiter: Waiter::new(),
        }
    }

    /// Wait for a notification with an owned `Future`.
    ///
    /// Unlike [`Self::notified`] which returns a future tied to the `Notify`'s
    /// lifetime, `notified_owned` creates a self-contained future that owns
    /// its notification state, making it safe to move between threads.
    ///
    /// See [`Self::notified`] for more details.
    ///
    /// # Cancel safety
    ///
    /// This method uses a queue to fairly distribute notifications in the
    /// order they were requested. Cancelling a call to `notified_owned` makes
    /// you lose your place in the queue.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use volt_sync::Notify;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let notify = Arc::new(Notify::new());
    ///
    /// for _ in 0..10 {
    ///     let notified = notify.clone().notified_owned();
    ///     volt_runtime::spawn(async move {
    ///         notified.await;
    ///         println!("received notification");
    ///     });
    /// }
    ///
    /// println!("sending notification");
    /// notify.notify_waiters();
    /// # });
    /// ```
    pub fn notified_owned(self: Arc<Self>) -> OwnedNotified {
        let state = self.state.load(Acquire);
        OwnedNotified {
            notify: self,
            state: State::Init,
            notify_waiters_calls: get_calls(state),
            waiter: Waiter::new(),
        }
    }

    /// Notifies the first waiting task.
    ///
    /// If a task is currently waiting, that task is notified. Otherwise, a
    /// permit is stored in this `Notify` value and the **next** call to
    /// [`notified().await`] will complete immediately consuming the permit
    /// made available by this call to `notify_one()`.
    ///
    /// At most one permit may be stored by `Notify`. Many sequential calls
    /// to `notify_one` will result in a single permit being stored. The next
    /// call to `notified().await` will complete immediately, but the one
    /// after that will wait.
    ///
    /// [`notified().await`]: Notify::notified()
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::Notify;
    /// use std::sync::Arc;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let notify = Arc::new(Notify::new());
    /// let notify2 = notify.clone();
    ///
    /// volt_runtime::spawn(async move {
    ///     notify2.notified().await;
    ///     println!("received notification");
    /// });
    ///
    /// println!("sending notification");
    /// notify.notify_one();
    /// # });
    /// ```
    // Alias for old name in 0.x
    #[doc(alias = "notify")]
    pub fn notify_one(&self) {
        self.notify_with_strategy(Strategy::Fifo);
    }

    /// Notifies the last waiting task.
    ///
    /// This function behaves similar to `notify_one`. The only difference is
    /// that it wakes the most recently added waiter instead of the oldest
    /// waiter.
    ///
    /// Check the [`notify_one()`] documentation for more info and examples.
    ///
    /// [`notify_one()`]: Notify::notify_one
    pub fn notify_last(&self) {
        self.notify_with_strategy(Strategy::Lifo);
    }

    fn notify_with_strategy(&self, strategy: Strategy) {
        let mut curr = self.state.load(Acquire);
        // Nobody waits: store the permit without the lock.
        while let EMPTY | NOTIFIED = get_state(curr) {
            // AcqRel, also for NOTIFIED -> NOTIFIED: the waiter that consumes
            // the permit must see everything before this notification.
            let new = set_state(curr, NOTIFIED);
            match self.state.compare_exchange(curr, new, AcqRel, Acquire) {
                Ok(_) => return,
                Err(actual) => curr = actual,
            }
        }
        // Somebody waits: the lock is needed to leave WAITING.
        let mut waiters = self.waiters.lock();
        let curr = self.state.load(Acquire);
        if let Some(waker) = notify_locked(&mut waiters, &self.state, curr, strategy) {
            drop(waiters);
            waker.wake();
        }
    }

    /// Notifies all waiting tasks.
    ///
    /// If a task is currently waiting, that task is notified. Unlike with
    /// `notify_one()`, no permit is stored to be used by the next call to
    /// `notified().await`. The purpose of this method is to notify all
    /// already registered waiters. Registering for notification is done by
    /// acquiring an instance of the `Notified` future via calling
    /// `notified()`.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::Notify;
    /// use std::sync::Arc;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let notify = Arc::new(Notify::new());
    /// let notify2 = notify.clone();
    ///
    /// let notified1 = notify.notified();
    /// let notified2 = notify.notified();
    ///
    /// let handle = volt_runtime::spawn(async move {
    ///     println!("sending notifications");
    ///     notify2.notify_waiters();
    /// });
    ///
    /// notified1.await;
    /// notified2.await;
    /// println!("received notifications");
    /// # handle.await.unwrap();
    /// # });
    /// ```
    pub fn notify_waiters(&self) {
        let mut waiters = self.waiters.lock();
        let curr = self.state.load(Acquire);

        if matches!(get_state(curr), EMPTY | NOTIFIED) {
            // Nobody waits: only count the call (futures created before it
            // but not yet polled see the count change).
            self.state.fetch_add(1 << CALLS_SHIFT, AcqRel);
            return;
        }

        // Count the call and leave WAITING (the list is about to be moved
        // out; we hold the lock).
        self.state.store(set_state(inc_calls(curr), EMPTY), Release);

        // The guard node closes the ring of detached waiters; it must stay
        // pinned until the ring is empty (ensured by `RingDrain`'s drop).
        let guard = std::pin::pin!(Waiter::new());
        // SAFETY: `guard` is pinned on this stack frame and in no list;
        // `RingDrain` empties the ring before the frame ends, even on panic.
        let ring = unsafe { waiters.take_guarded(NonNull::from(&*guard)) };
        let mut drain = RingDrain { ring, notify: self };

        let mut wakers = WakeList::new();
        loop {
            let mut exhausted = false;
            while wakers.can_push() {
                match drain.ring.pop_back() {
                    Some(waiter) => {
                        // SAFETY: an unlinked node of a live, pinned future;
                        // its fields are ours under the lock.
                        let waiter = unsafe { waiter.as_ref() };
                        // SAFETY: we hold the lock.
                        if let Some(waker) = unsafe { waiter.take_waker() } {
                            wakers.push(waker);
                        }
                        // Release: the owner's Acquire load sees the
                        // notification and everything before it.
                        waiter.notification.store(NOTIFICATION_ALL, Release);
                    }
                    None => {
                        exhausted = true;
                        break;
                    }
                }
            }
            drop(waiters);
            wakers.wake_all();
            if exhausted {
                return;
            }
            waiters = self.waiters.lock();
        }
    }
}

/// Empties a `notify_waiters` ring on drop (also when a waker panics), so
/// that no waiter is left pointing at the guard node.
struct RingDrain<'a> {
    ring: crate::bridge::GuardedLinkedList<WaiterLink>,
    notify: &'a Notify,
}

impl Drop for RingDrain<'_> {
    fn drop(&mut self) {
        if self.ring.is_empty() {
            return;
        }
        let _waiters = self.notify.waiters.lock();
        while let Some(waiter) = self.ring.pop_back() {
            // SAFETY: as in `notify_waiters`; we hold the lock.
            unsafe { waiter.as_ref() }
                .notification
                .store(NOTIFICATION_ALL, Release);
        }
    }
}

/// Notifies one waiter, or stores the permit; returns the waker to wake
/// after unlocking. The caller holds the lock and passes the state it
/// loaded under it.
fn notify_locked(
    waiters: &mut LinkedList<WaiterLink>,
    state: &AtomicUsize,
    curr: usize,
    strategy: Strategy,
) -> Option<Waker> {
    match get_state(curr) {
        EMPTY | NOTIFIED => {
            // A permit; the state may change concurrently only between
            // EMPTY and NOTIFIED (lock-free), never to WAITING.
            if let Err(actual) =
                state.compare_exchange(curr, set_state(curr, NOTIFIED), AcqRel, Acquire)
            {
                let actual_state = get_state(actual);
                assert!(actual_state == EMPTY || actual_state == NOTIFIED);
                state.store(set_state(actual, NOTIFIED), Release);
            }
            None
        }
        WAITING => {
            // The list is non-empty and cannot change: we hold the lock.
            let waiter = match strategy {
                Strategy::Fifo => waiters.pop_back(),
                Strategy::Lifo => waiters.pop_front(),
            }
            .expect("WAITING with no waiter");
            // SAFETY: an unlinked node of a live, pinned future; its fields
            // are ours under the lock.
            let waiter = unsafe { waiter.as_ref() };
            // SAFETY: we hold the lock.
            let waker = unsafe { waiter.take_waker() };
            let notification = match strategy {
                Strategy::Fifo => NOTIFICATION_ONE,
                Strategy::Lifo => NOTIFICATION_LAST,
            };
            waiter.notification.store(notification, Release);
            if waiters.is_empty() {
                // The last waiter left: only the lock holder leaves WAITING.
                state.store(set_state(curr, EMPTY), Release);
            }
            waker
        }
        _ => unreachable!("invalid notify state"),
    }
}

impl Default for Notify {
    fn default() -> Notify {
        Notify::new()
    }
}

impl fmt::Debug for Notify {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("Notify").finish_non_exhaustive()
    }
}

impl std::panic::UnwindSafe for Notify {}
impl std::panic::RefUnwindSafe for Notify {}

impl Waiter {
    fn new() -> Waiter {
        Waiter {
            waker: UnsafeCell::new(WakerSlot::new()),
            notification: AtomicUsize::new(NOTIFICATION_NONE),
            pointers: Pointers::new(),
            _p: PhantomPinned,
        }
    }

    /// # Safety
    /// The caller holds the notify's lock, or owns the unlinked node.
    unsafe fn take_waker(&self) -> Option<Waker> {
        // SAFETY: exclusive access per the caller's contract.
        self.waker.with_mut(|ptr| unsafe { (*ptr).take() })
    }
}

impl fmt::Debug for Waiter {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("Waiter").finish_non_exhaustive()
    }
}

/// How the waiter list reaches a node's links.
struct WaiterLink;

// SAFETY: `pointers` is a field of the node, used by one list at a time; a
// linked node is pinned inside its future, which unlinks it (under the
// lock) before it goes away.
unsafe impl Link for WaiterLink {
    type Handle = NonNull<Waiter>;
    type Target = Waiter;

    fn as_raw(handle: &NonNull<Waiter>) -> NonNull<Waiter> {
        *handle
    }

    unsafe fn from_raw(ptr: NonNull<Waiter>) -> NonNull<Waiter> {
        ptr
    }

    unsafe fn pointers(target: NonNull<Waiter>) -> NonNull<Pointers<Waiter>> {
        // SAFETY: `target` is live; we only take the field's address.
        unsafe { NonNull::new_unchecked(&raw mut (*target.as_ptr()).pointers) }
    }
}

// ===== Notified / OwnedNotified =====

impl Notified<'_> {
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
        poll_notified(
            this.notify,
            this.state,
            *this.notify_waiters_calls,
            this.waiter.as_ref(),
            None,
        )
        .is_ready()
    }
}

impl Future for Notified<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.project();
        poll_notified(
            this.notify,
            this.state,
            *this.notify_waiters_calls,
            this.waiter.as_ref(),
            Some(cx),
        )
    }
}

impl OwnedNotified {
    /// Adds this future to the list of futures that are ready to receive
    /// wakeups from calls to [`notify_one`].
    ///
    /// See [`Notified::enable`] for more details.
    ///
    /// [`notify_one`]: Notify::notify_one()
    pub fn enable(self: Pin<&mut Self>) -> bool {
        let this = self.project();
        poll_notified(
            this.notify,
            this.state,
            *this.notify_waiters_calls,
            this.waiter.as_ref(),
            None,
        )
        .is_ready()
    }
}

impl Future for OwnedNotified {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.project();
        poll_notified(
            this.notify,
            this.state,
            *this.notify_waiters_calls,
            this.waiter.as_ref(),
            Some(cx),
        )
    }
}

/// The poll of both `Notified` flavors (`cx: None` is `enable`).
fn poll_notified(
    notify: &Notify,
    state: &mut State,
    calls: usize,
    waiter: Pin<&Waiter>,
    mut cx: Option<&mut Context<'_>>,
) -> Poll<()> {
    loop {
        match *state {
            State::Init => {
                let curr = notify.state.load(Acquire);

                // A broadcast since our creation counts for us, and leaves a
                // stored permit to others.
                if get_calls(curr) != calls {
                    *state = State::Done;
                    continue;
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
                    *state = State::Done;
                    continue;
                }

                // Clone the waker before locking: cloning may run arbitrary
                // code.
                let waker = cx.as_mut().map(|cx| cx.waker().clone());

                let mut waiters = notify.waiters.lock();
                let mut curr = notify.state.load(Acquire);
                if get_calls(curr) != calls {
                    *state = State::Done;
                    continue;
                }

                // Move to WAITING, unless a permit appeared meanwhile.
                loop {
                    match get_state(curr) {
                        EMPTY => match notify.state.compare_exchange(
                            set_state(curr, EMPTY),
                            set_state(curr, WAITING),
                            AcqRel,
                            Acquire,
                        ) {
                            Ok(_) => break,
                            Err(actual) => {
                                assert_eq!(get_state(actual), NOTIFIED);
                                curr = actual;
                            }
                        },
                        WAITING => break,
                        NOTIFIED => match notify.state.compare_exchange(
                            set_state(curr, NOTIFIED),
                            set_state(curr, EMPTY),
                            AcqRel,
                            Acquire,
                        ) {
                            Ok(_) => {
                                *state = State::Done;
                                drop(waiters);
                                return Poll::Ready(());
                            }
                            Err(actual) => {
                                assert_eq!(get_state(actual), EMPTY);
                                curr = actual;
                            }
                        },
                        _ => unreachable!("invalid notify state"),
                    }
                }

                let old_waker = waker.and_then(|waker| {
                    // SAFETY: we hold the lock.
                    waiter
                        .waker
                        .with_mut(|ptr| unsafe { (*ptr).replace(waker) })
                });
                waiters.push_front(NonNull::from(&*waiter));
                *state = State::Waiting;
                drop(waiters);
                drop(old_waker);
                return Poll::Pending;
            }
            State::Waiting => {
                // Acquire: pairs with the notifier's Release store.
                if waiter.notification.load(Acquire) != NOTIFICATION_NONE {
                    // Unlinked by the notifier: the node is ours again.
                    // SAFETY: an unlinked node is only touched by its owner.
                    drop(unsafe { waiter.take_waker() });
                    waiter.notification.store(NOTIFICATION_NONE, Relaxed);
                    *state = State::Done;
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
                    *state = State::Done;
                    return Poll::Ready(());
                }

                let curr = notify.state.load(Acquire);
                if get_calls(curr) != calls {
                    // A `notify_waiters` is under way and we are in its ring:
                    // take ourselves out; it counts as notified.
                    // SAFETY: we hold the lock.
                    let old = unsafe { waiter.take_waker() };
                    // SAFETY: the node is in this list or in the ring, whose
                    // nodes this list's `remove` unlinks correctly.
                    unsafe { waiters.remove(NonNull::from(&*waiter)) };
                    drop(waiters);
                    drop(old);
                    *state = State::Done;
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
                return Poll::Pending;
            }
            State::Done => return Poll::Ready(()),
        }
    }
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

#[cfg(all(test, loom))]
mod loom_tests;
#[cfg(all(test, not(loom)))]
mod tests;
