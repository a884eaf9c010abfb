//! `SetOnce`: a value set once, that tasks can wait for.
//!
//! `state` goes `UNSET -> SETTING -> SET`. The one setter that wins the
//! `UNSET -> SETTING` CAS writes the value, stores `SET` (Release) and wakes
//! every waiter with `Notify::notify_waiters`. A waiter creates its
//! `Notified` future before it checks the state, so a broadcast after the
//! check completes that future: no wake-up is lost.

use crate::Notify;
use crate::bridge::loom::cell::UnsafeCell;
use crate::bridge::loom::sync::atomic::{AtomicU8, Ordering};

use std::error::Error;
use std::fmt;
use std::mem::MaybeUninit;
use std::ptr;

const UNSET: u8 = 0;
const SETTING: u8 = 1;
const SET: u8 = 2;

/// A thread-safe cell that can be written to only once.
///
/// A `SetOnce` is inspired from python's [`asyncio.Event`] type. It can be
/// used to wait until the value of the `SetOnce` is set like an "Event"
/// mechanism.
///
/// # Example
///
/// ```
/// use volt_sync::{SetOnce, SetOnceError};
///
/// static ONCE: SetOnce<u32> = SetOnce::const_new();
///
/// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// // set the value inside a task somewhere...
/// volt_runtime::spawn(async move { ONCE.set(20) });
///
/// // checking with .get doesn't block main thread
/// println!("{:?}", ONCE.get());
///
/// // wait until the value is set, blocks the thread
/// println!("{:?}", ONCE.wait().await);
///
/// assert_eq!(ONCE.set(30), Err(SetOnceError(30)));
/// # });
/// ```
///
/// A `SetOnce` is typically used for global variables that need to be
/// initialized once on first use, but need no further changes.
///
/// [`asyncio.Event`]: https://docs.python.org/3/library/asyncio-sync.html#asyncio.Event
pub struct SetOnce<T> {
    state: AtomicU8,
    value: UnsafeCell<MaybeUninit<T>>,
    notify: Notify,
}

impl<T> Default for SetOnce<T> {
    fn default() -> SetOnce<T> {
        SetOnce::new()
    }
}

impl<T: fmt::Debug> fmt::Debug for SetOnce<T> {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("SetOnce")
            .field("value", &self.get())
            .finish()
    }
}

impl<T: Clone> Clone for SetOnce<T> {
    fn clone(&self) -> SetOnce<T> {
        SetOnce::new_with(self.get().cloned())
    }
}

impl<T: PartialEq> PartialEq for SetOnce<T> {
    fn eq(&self, other: &SetOnce<T>) -> bool {
        self.get() == other.get()
    }
}

impl<T: Eq> Eq for SetOnce<T> {}

impl<T> Drop for SetOnce<T> {
    fn drop(&mut self) {
        // Relaxed: `&mut self` already orders us after every writer.
        if self.state.load(Ordering::Relaxed) == SET {
            // SAFETY: SET means initialized, and we own the cell.
            self.value
                .with_mut(|ptr| unsafe { (*ptr).assume_init_drop() });
        }
    }
}

impl<T> From<T> for SetOnce<T> {
    fn from(value: T) -> Self {
        SetOnce {
            state: AtomicU8::new(SET),
            value: UnsafeCell::new(MaybeUninit::new(value)),
            notify: Notify::new(),
        }
    }
}

impl<T> SetOnce<T> {
    /// Creates a new empty `SetOnce` instance.
    ///
    /// ```
    /// let once = volt_sync::SetOnce::<u8>::new();
    /// assert!(!once.initialized());
    /// ```
    pub fn new() -> Self {
        SetOnce {
            state: AtomicU8::new(UNSET),
            value: UnsafeCell::new(MaybeUninit::uninit()),
            notify: Notify::new(),
        }
    }

    /// Creates a new empty `SetOnce` instance.
    ///
    /// Equivalent to `SetOnce::new`, except that it can be used in static
    /// variables.
    ///
    /// ```
    /// use volt_sync::SetOnce;
    ///
    /// static ONCE: SetOnce<u32> = SetOnce::const_new();
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new() -> Self {
        SetOnce {
            state: AtomicU8::new(UNSET),
            value: UnsafeCell::new(MaybeUninit::uninit()),
            notify: Notify::const_new(),
        }
    }

    /// Creates a new `SetOnce` that contains the provided value, if any.
    ///
    /// If the `Option` is `None`, this is equivalent to `SetOnce::new`.
    ///
    /// [`SetOnce::new`]: crate::SetOnce::new
    ///
    /// ```
    /// let once = volt_sync::SetOnce::new_with(Some(1));
    /// assert_eq!(once.get(), Some(&1));
    /// ```
    pub fn new_with(value: Option<T>) -> Self {
        match value {
            Some(value) => SetOnce::from(value),
            None => SetOnce::new(),
        }
    }

    /// Creates a new `SetOnce` that contains the provided value.
    ///
    /// ```
    /// use volt_sync::SetOnce;
    ///
    /// static ONCE: SetOnce<u32> = SetOnce::const_new_with(1);
    /// assert_eq!(ONCE.get(), Some(&1));
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new_with(value: T) -> Self {
        SetOnce {
            state: AtomicU8::new(SET),
            value: UnsafeCell::new(MaybeUninit::new(value)),
            notify: Notify::const_new(),
        }
    }

    /// Returns `true` if the `SetOnce` currently contains a value, and
    /// `false` otherwise.
    pub fn initialized(&self) -> bool {
        // Acquire: whoever sees SET sees the value.
        self.state.load(Ordering::Acquire) == SET
    }

    /// # Safety
    /// The cell must be initialized.
    unsafe fn get_unchecked(&self) -> &T {
        // SAFETY: initialized (caller's contract); never written again.
        unsafe { &*self.value.with(|ptr| (*ptr).as_ptr()) }
    }

    /// Returns a reference to the value currently stored in the `SetOnce`,
    /// or `None` if the `SetOnce` is empty.
    ///
    /// ```
    /// let once = volt_sync::SetOnce::new();
    /// assert_eq!(once.get(), None::<&u8>);
    /// ```
    pub fn get(&self) -> Option<&T> {
        if self.initialized() {
            // SAFETY: initialized.
            Some(unsafe { self.get_unchecked() })
        } else {
            None
        }
    }

    /// Sets the value of the `SetOnce` to the given value if the `SetOnce`
    /// is empty.
    ///
    /// If the `SetOnce` already has a value, this call will fail with a
    /// [`SetOnceError`].
    ///
    /// [`SetOnceError`]: crate::SetOnceError
    ///
    /// ```
    /// use volt_sync::{SetOnce, SetOnceError};
    ///
    /// let once = SetOnce::new();
    /// assert_eq!(once.set(1), Ok(()));
    /// assert_eq!(once.set(2), Err(SetOnceError(2)));
    /// ```
    pub fn set(&self, value: T) -> Result<(), SetOnceError<T>> {
        // Acquire on failure: a loser returns only after seeing the winner's
        // claim; AcqRel on success orders the write below after the claim.
        if self
            .state
            .compare_exchange(UNSET, SETTING, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return Err(SetOnceError(value));
        }
        // SAFETY: the CAS made us the only writer; nobody reads before SET.
        self.value
            .with_mut(|ptr| unsafe { (*ptr).as_mut_ptr().write(value) });
        // Release: readers that see SET see the value.
        self.state.store(SET, Ordering::Release);
        self.notify.notify_waiters();
        Ok(())
    }

    /// Takes the value from the cell, destroying the cell in the process.
    /// Returns `None` if the cell is empty.
    ///
    /// ```
    /// let once = volt_sync::SetOnce::from(5);
    /// assert_eq!(once.into_inner(), Some(5));
    /// ```
    pub fn into_inner(self) -> Option<T> {
        // Relaxed: owning `self` orders us after every writer.
        if self.state.load(Ordering::Relaxed) == SET {
            // The destructor must not drop the value we take.
            self.state.store(UNSET, Ordering::Relaxed);
            // SAFETY: initialized, and no longer marked so.
            Some(
                self.value
                    .with(|ptr| unsafe { ptr::read(ptr).assume_init() }),
            )
        } else {
            None
        }
    }

    /// Waits until set is called. The returned future is pending until a
    /// value is set, then returns a reference to it.
    ///
    /// If the state is already set, this returns the value immediately.
    ///
    /// If the `SetOnce` is set more than once, only the first value is
    /// stored.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use volt_sync::SetOnce;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let once = Arc::new(SetOnce::new());
    /// let setter = once.clone();
    /// volt_runtime::spawn(async move { setter.set("ready").unwrap() });
    /// assert_eq!(*once.wait().await, "ready");
    /// # });
    /// ```
    pub async fn wait(&self) -> &T {
        loop {
            if let Some(val) = self.get() {
                return val;
            }
            // Created before the check below: a `set` after the check
            // broadcasts to it.
            let notified = self.notify.notified();
            if let Some(val) = self.get() {
                return val;
            }
            notified.await;
        }
    }
}

// SAFETY: `get` shares `&T` across threads (needs `T: Sync`); `set` moves a
// `T` in from any thread (needs `T: Send`).
unsafe impl<T: Sync + Send> Sync for SetOnce<T> {}

// SAFETY: the value moves with the cell.
unsafe impl<T: Send> Send for SetOnce<T> {}

/// Error that can be returned from [`SetOnce::set`].
///
/// This error means that the `SetOnce` was already initialized when set was
/// called.
///
/// [`SetOnce::set`]: crate::SetOnce::set
#[derive(Debug, PartialEq, Eq)]
pub struct SetOnceError<T>(pub T);

impl<T> fmt::Display for SetOnceError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SetOnceError")
    }
}

impl<T: fmt::Debug> Error for SetOnceError<T> {}
