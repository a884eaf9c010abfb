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
//! behind a mutex (newest at the front). Entering or leaving `WAITING`
//! requires the lock; entering or leaving `NOTIFIED`, and counting a
//! `notify_waiters` call while nobody waits, is a CAS that needs no lock.
//! So while the state is `WAITING` only the lock holder changes the word
//! (it may store it); otherwise every change is a CAS of the whole word.
//!
//! # Protocol
//!
//! * `notify_one` / `notify_last`: if the state is `EMPTY` or `NOTIFIED`,
//!   CAS it to `NOTIFIED` (a permit; at most one is stored). Otherwise take
//!   the lock, unlink the oldest (`notify_one`) or newest (`notify_last`)
//!   waiter, mark it notified and wake it after unlocking.
//! * A `Notified` future's first poll consumes a stored permit with a CAS,
//!   or, under the lock, moves the state to `WAITING` and links itself.
//! * `notify_waiters` with nobody waiting bumps the call counter by CAS.
//!   Otherwise it bumps it under the lock, moves the whole list behind a
//!   guard node on its stack, and wakes those waiters in batches, releasing
//!   the lock between batches. Waiters created before the call see the
//!   counter change and complete even if they were never polled; waiters
//!   created after it are not affected. It stores no permit.
//! * A waiter that was notified by `notify_one` and is dropped before it
//!   saw the notification passes it on to the next waiter (or stores it),
//!   so a notification is never lost to a cancelled waiter.

use crate::bridge::loom::sync::Mutex;
use crate::bridge::loom::sync::atomic::{AtomicUsize, Ordering::*};
use crate::bridge::{LinkedList, WakeList};

use std::fmt;
use std::ptr::NonNull;
use std::sync::Arc;
use std::task::Waker;

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
        Notified::new(self)
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
        OwnedNotified::new(self)
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
    // `notify` is this method's name in tokio 0.2: the alias makes a
    // search of the docs for it land here.
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
        let mut curr = self.state.load(Acquire);
        // Nobody waits: only count the call (futures created before it but
        // not yet polled see the count change), without the lock. The CAS
        // fails if a waiter has entered `WAITING` meanwhile; while the
        // state is `WAITING` only lock holders change the word.
        while let EMPTY | NOTIFIED = get_state(curr) {
            // AcqRel: a waiter that sees the new count sees what came
            // before this call.
            match self
                .state
                .compare_exchange(curr, inc_calls(curr), AcqRel, Acquire)
            {
                Ok(_) => return,
                Err(actual) => curr = actual,
            }
        }

        let mut waiters = self.waiters.lock();
        let curr = self.state.load(Acquire);

        if matches!(get_state(curr), EMPTY | NOTIFIED) {
            // The last waiter left before we locked: as above, but no
            // waiter can enter `WAITING` while we hold the lock.
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
            // A permit. Without the lock the word may change meanwhile
            // between EMPTY and NOTIFIED, and its call count may grow
            // (`notify_waiters`), but it never enters WAITING: a CAS loop
            // keeps both.
            let mut curr = curr;
            while let Err(actual) =
                state.compare_exchange(curr, set_state(curr, NOTIFIED), AcqRel, Acquire)
            {
                let actual_state = get_state(actual);
                assert!(actual_state == EMPTY || actual_state == NOTIFIED);
                curr = actual;
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

mod notified;
pub use notified::{Notified, OwnedNotified};
use notified::{Waiter, WaiterLink};

#[cfg(all(test, loom))]
mod loom_tests;
#[cfg(all(test, not(loom)))]
mod tests;
