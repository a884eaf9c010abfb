//! `OnceCell`: a value set once, with async initialization.
//!
//! A semaphore of one permit serializes initializers. Whoever holds the
//! permit may write the value; it then sets `value_set` (Release) and closes
//! the semaphore, so every waiting and later `get_or_init` sees the value
//! (their `acquire` fails with "closed", which means "initialized"). A
//! cancelled or panicking initializer drops its permit and the next one in
//! line tries.

use crate::bridge::loom::cell::UnsafeCell;
use crate::bridge::loom::sync::atomic::{AtomicBool, Ordering};
use crate::{Semaphore, SemaphorePermit, TryAcquireError};

use std::error::Error;
use std::fmt;
use std::future::Future;
use std::mem::MaybeUninit;
use std::ptr;

/// A thread-safe cell that can be written to only once.
///
/// A `OnceCell` is typically used for global variables that need to be
/// initialized once on first use, but need no further changes. The
/// `OnceCell` in volt allows the initialization procedure to be
/// asynchronous.
///
/// # Examples
///
/// ```
/// use volt_sync::OnceCell;
///
/// async fn some_computation() -> u32 {
///     1 + 1
/// }
///
/// static ONCE: OnceCell<u32> = OnceCell::const_new();
///
/// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let result = ONCE.get_or_init(some_computation).await;
/// assert_eq!(*result, 2);
/// # });
/// ```
///
/// It is often useful to write a wrapper method for accessing the value.
///
/// ```
/// use volt_sync::OnceCell;
///
/// static ONCE: OnceCell<u32> = OnceCell::const_new();
///
/// async fn get_global_integer() -> &'static u32 {
///     ONCE.get_or_init(|| async {
///         1 + 1
///     }).await
/// }
///
/// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let result = get_global_integer().await;
/// assert_eq!(*result, 2);
/// # });
/// ```
pub struct OnceCell<T> {
    value_set: AtomicBool,
    value: UnsafeCell<MaybeUninit<T>>,
    semaphore: Semaphore,
}

impl<T> Default for OnceCell<T> {
    fn default() -> OnceCell<T> {
        OnceCell::new()
    }
}

impl<T: fmt::Debug> fmt::Debug for OnceCell<T> {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("OnceCell")
            .field("value", &self.get())
            .finish()
    }
}

impl<T: Clone> Clone for OnceCell<T> {
    fn clone(&self) -> OnceCell<T> {
        OnceCell::new_with(self.get().cloned())
    }
}

impl<T: PartialEq> PartialEq for OnceCell<T> {
    fn eq(&self, other: &OnceCell<T>) -> bool {
        self.get() == other.get()
    }
}

impl<T: Eq> Eq for OnceCell<T> {}

impl<T> Drop for OnceCell<T> {
    fn drop(&mut self) {
        if self.initialized_mut() {
            // SAFETY: `value_set` says the value is initialized, and we own
            // the cell.
            self.value
                .with_mut(|ptr| unsafe { (*ptr).assume_init_drop() });
        }
    }
}

impl<T> From<T> for OnceCell<T> {
    fn from(value: T) -> Self {
        OnceCell {
            value_set: AtomicBool::new(true),
            value: UnsafeCell::new(MaybeUninit::new(value)),
            semaphore: Semaphore::new_closed(),
        }
    }
}

impl<T> OnceCell<T> {
    /// Creates a new empty `OnceCell` instance.
    ///
    /// ```
    /// let cell = volt_sync::OnceCell::<u8>::new();
    /// assert!(!cell.initialized());
    /// ```
    pub fn new() -> Self {
        OnceCell {
            value_set: AtomicBool::new(false),
            value: UnsafeCell::new(MaybeUninit::uninit()),
            semaphore: Semaphore::new(1),
        }
    }

    /// Creates a new empty `OnceCell` instance.
    ///
    /// Equivalent to `OnceCell::new`, except that it can be used in static
    /// variables.
    ///
    /// # Example
    ///
    /// ```
    /// use volt_sync::OnceCell;
    ///
    /// static ONCE: OnceCell<u32> = OnceCell::const_new();
    ///
    /// async fn get_global_integer() -> &'static u32 {
    ///     ONCE.get_or_init(|| async {
    ///         1 + 1
    ///     }).await
    /// }
    ///
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// assert_eq!(*get_global_integer().await, 2);
    /// # });
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new() -> Self {
        OnceCell {
            value_set: AtomicBool::new(false),
            value: UnsafeCell::new(MaybeUninit::uninit()),
            semaphore: Semaphore::const_new(1),
        }
    }

    /// Creates a new `OnceCell` that contains the provided value, if any.
    ///
    /// If the `Option` is `None`, this is equivalent to `OnceCell::new`.
    ///
    /// [`OnceCell::new`]: crate::OnceCell::new
    ///
    /// ```
    /// let cell = volt_sync::OnceCell::new_with(Some(3));
    /// assert_eq!(cell.get(), Some(&3));
    /// ```
    pub fn new_with(value: Option<T>) -> Self {
        match value {
            Some(value) => OnceCell::from(value),
            None => OnceCell::new(),
        }
    }

    /// Creates a new `OnceCell` that contains the provided value.
    ///
    /// # Example
    ///
    /// When using the `tracing` [unstable feature], a `OnceCell` created
    /// with `const_new_with` will not be instrumented.
    ///
    /// [unstable feature]: https://docs.rs/tokio/latest/tokio/#unstable-features
    ///
    /// ```
    /// use volt_sync::OnceCell;
    ///
    /// static ONCE: OnceCell<u32> = OnceCell::const_new_with(1);
    ///
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// assert_eq!(*ONCE.get_or_init(|| async { 2 }).await, 1);
    /// # });
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new_with(value: T) -> Self {
        OnceCell {
            value_set: AtomicBool::new(true),
            value: UnsafeCell::new(MaybeUninit::new(value)),
            semaphore: Semaphore::const_new_closed(),
        }
    }

    /// Returns `true` if the `OnceCell` currently contains a value, and
    /// `false` otherwise.
    pub fn initialized(&self) -> bool {
        // Acquire: whoever sees `true` sees the value written before it.
        self.value_set.load(Ordering::Acquire)
    }

    /// Returns `true` if the `OnceCell` currently contains a value, and
    /// `false` otherwise.
    fn initialized_mut(&mut self) -> bool {
        // Relaxed: `&mut self` already orders us after every writer.
        self.value_set.load(Ordering::Relaxed)
    }

    /// # Safety
    /// The cell must be initialized.
    unsafe fn get_unchecked(&self) -> &T {
        // SAFETY: initialized (caller's contract); never written again while
        // shared.
        unsafe { &*self.value.with(|ptr| (*ptr).as_ptr()) }
    }

    /// # Safety
    /// The cell must be initialized.
    unsafe fn get_unchecked_mut(&mut self) -> &mut T {
        // SAFETY: initialized (caller's contract); `&mut self` is unique.
        unsafe { &mut *self.value.with_mut(|ptr| (*ptr).as_mut_ptr()) }
    }

    /// The initializer's permit; `None` once the value is set (the
    /// semaphore is closed). Tries the lock-free path first, so the first
    /// `get_or_init` of a fresh cell builds no `Acquire` future.
    async fn acquire_permit(&self) -> Option<SemaphorePermit<'_>> {
        match self.semaphore.try_acquire() {
            Ok(permit) => Some(permit),
            Err(TryAcquireError::NoPermits) => self.semaphore.acquire().await.ok(),
            Err(TryAcquireError::Closed) => None,
        }
    }

    fn set_value(&self, value: T, permit: SemaphorePermit<'_>) -> &T {
        // SAFETY: we hold the only permit, so we are the only writer, and no
        // reader reads before `value_set` is true.
        self.value
            .with_mut(|ptr| unsafe { (*ptr).as_mut_ptr().write(value) });
        // Release: readers that see `true` see the value.
        self.value_set.store(true, Ordering::Release);
        // Waiting initializers learn that the value is set.
        self.semaphore.close();
        permit.forget();
        // SAFETY: we just initialized the cell.
        unsafe { self.get_unchecked() }
    }

    /// Returns a reference to the value currently stored in the `OnceCell`,
    /// or `None` if the `OnceCell` is empty.
    ///
    /// ```
    /// let cell = volt_sync::OnceCell::new();
    /// assert!(cell.get().is_none());
    /// cell.set(1).unwrap();
    /// assert_eq!(cell.get(), Some(&1));
    /// ```
    pub fn get(&self) -> Option<&T> {
        if self.initialized() {
            // SAFETY: initialized.
            Some(unsafe { self.get_unchecked() })
        } else {
            None
        }
    }

    /// Returns a mutable reference to the value currently stored in the
    /// `OnceCell`, or `None` if the `OnceCell` is empty.
    ///
    /// Since this call borrows the `OnceCell` mutably, it is safe to mutate
    /// the value inside the `OnceCell` — the mutable borrow statically
    /// guarantees no other references exist.
    pub fn get_mut(&mut self) -> Option<&mut T> {
        if self.initialized_mut() {
            // SAFETY: initialized.
            Some(unsafe { self.get_unchecked_mut() })
        } else {
            None
        }
    }

    /// Sets the value of the `OnceCell` to the given value if the `OnceCell`
    /// is empty.
    ///
    /// If the `OnceCell` already has a value, this call will fail with an
    /// [`SetError::AlreadyInitializedError`].
    ///
    /// If the `OnceCell` is empty, but some other task is currently trying
    /// to set the value, this call will fail with
    /// [`SetError::InitializingError`].
    ///
    /// ```
    /// use volt_sync::OnceCell;
    ///
    /// let cell = OnceCell::new();
    /// assert!(cell.set(1).is_ok());
    /// let err = cell.set(2).unwrap_err();
    /// assert!(err.is_already_init_err());
    /// ```
    ///
    /// [`SetError::AlreadyInitializedError`]: crate::SetError::AlreadyInitializedError
    /// [`SetError::InitializingError`]: crate::SetError::InitializingError
    pub fn set(&self, value: T) -> Result<(), SetError<T>> {
        if self.initialized() {
            return Err(SetError::AlreadyInitializedError(value));
        }
        // Another task may be initializing: then the permit is taken.
        match self.semaphore.try_acquire() {
            Ok(permit) => {
                debug_assert!(!self.initialized());
                self.set_value(value, permit);
                Ok(())
            }
            Err(TryAcquireError::NoPermits) => Err(SetError::InitializingError(value)),
            Err(TryAcquireError::Closed) => Err(SetError::AlreadyInitializedError(value)),
        }
    }

    /// Gets the value currently in the `OnceCell`, or initialize it with the
    /// given asynchronous operation.
    ///
    /// If some other task is currently working on initializing the
    /// `OnceCell`, this call will wait for that other task to finish, then
    /// return the value that the other task produced.
    ///
    /// If the provided operation is cancelled or panics, the initialization
    /// attempt is cancelled. If there are other tasks waiting for the value
    /// to be initialized, one of them will start another attempt at
    /// initializing the value.
    ///
    /// This will deadlock if `f` tries to initialize the cell recursively.
    ///
    /// # Cancel safety
    ///
    /// If the initializer is cancelled, the next waiter (if any) takes over
    /// the initialization; nothing is stored.
    ///
    /// ```
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let cell = volt_sync::OnceCell::new();
    /// assert_eq!(*cell.get_or_init(|| async { 5 }).await, 5);
    /// assert_eq!(*cell.get_or_init(|| async { 6 }).await, 5);
    /// # });
    /// ```
    pub async fn get_or_init<F, Fut>(&self, f: F) -> &T
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = T>,
    {
        if self.initialized() {
            // SAFETY: initialized.
            return unsafe { self.get_unchecked() };
        }
        match self.acquire_permit().await {
            Some(permit) => {
                debug_assert!(!self.initialized());
                // A panic or cancellation in `f` drops the permit: the next
                // waiter tries.
                let value = f().await;
                self.set_value(value, permit)
            }
            None => {
                debug_assert!(self.initialized());
                // SAFETY: the semaphore is closed only once the value is set.
                unsafe { self.get_unchecked() }
            }
        }
    }

    /// Gets the value currently in the `OnceCell`, or initialize it with the
    /// given asynchronous operation.
    ///
    /// If some other task is currently working on initializing the
    /// `OnceCell`, this call will wait for that other task to finish, then
    /// return the value that the other task produced.
    ///
    /// If the provided operation returns an error, is cancelled or panics,
    /// the initialization attempt is cancelled. If there are other tasks
    /// waiting for the value to be initialized, one of them will start
    /// another attempt at initializing the value.
    ///
    /// This will deadlock if `f` tries to initialize the cell recursively.
    ///
    /// # Cancel safety
    ///
    /// As [`get_or_init`](Self::get_or_init).
    ///
    /// ```
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let cell = volt_sync::OnceCell::<u8>::new();
    /// assert_eq!(cell.get_or_try_init(|| async { Err::<u8, _>("no") }).await, Err("no"));
    /// assert_eq!(cell.get_or_try_init(|| async { Ok::<u8, ()>(4) }).await, Ok(&4));
    /// # });
    /// ```
    pub async fn get_or_try_init<E, F, Fut>(&self, f: F) -> Result<&T, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        if self.initialized() {
            // SAFETY: initialized.
            return Ok(unsafe { self.get_unchecked() });
        }
        match self.acquire_permit().await {
            Some(permit) => {
                debug_assert!(!self.initialized());
                match f().await {
                    Ok(value) => Ok(self.set_value(value, permit)),
                    Err(e) => Err(e),
                }
            }
            None => {
                debug_assert!(self.initialized());
                // SAFETY: the semaphore is closed only once the value is set.
                Ok(unsafe { self.get_unchecked() })
            }
        }
    }

    /// Takes the value from the cell, destroying the cell in the process.
    /// Returns `None` if the cell is empty.
    ///
    /// ```
    /// let cell = volt_sync::OnceCell::from(3);
    /// assert_eq!(cell.into_inner(), Some(3));
    /// ```
    pub fn into_inner(mut self) -> Option<T> {
        if self.initialized_mut() {
            // The destructor must not drop the value we take.
            self.value_set.store(false, Ordering::Relaxed);
            // SAFETY: initialized, and no longer marked so.
            Some(
                self.value
                    .with(|ptr| unsafe { ptr::read(ptr).assume_init() }),
            )
        } else {
            None
        }
    }

    /// Takes ownership of the current value, leaving the cell empty. Returns
    /// `None` if the cell is empty.
    ///
    /// ```
    /// let mut cell = volt_sync::OnceCell::from(3);
    /// assert_eq!(cell.take(), Some(3));
    /// assert!(!cell.initialized());
    /// ```
    pub fn take(&mut self) -> Option<T> {
        std::mem::take(self).into_inner()
    }
}

// SAFETY: `get` hands out `&T` to any thread (needs `T: Sync`), and `set`
// moves a `T` in from any thread (needs `T: Send`).
unsafe impl<T: Sync + Send> Sync for OnceCell<T> {}

// SAFETY: the value moves with the cell.
unsafe impl<T: Send> Send for OnceCell<T> {}

/// Errors that can be returned from [`OnceCell::set`].
///
/// [`OnceCell::set`]: crate::OnceCell::set
#[derive(Debug, PartialEq, Eq)]
pub enum SetError<T> {
    /// The cell was already initialized when [`OnceCell::set`] was called.
    ///
    /// [`OnceCell::set`]: crate::OnceCell::set
    AlreadyInitializedError(T),

    /// The cell is currently being initialized.
    InitializingError(T),
}

impl<T> fmt::Display for SetError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetError::AlreadyInitializedError(_) => write!(f, "AlreadyInitializedError"),
            SetError::InitializingError(_) => write!(f, "InitializingError"),
        }
    }
}

impl<T: fmt::Debug> Error for SetError<T> {}

impl<T> SetError<T> {
    /// Whether `SetError` is `SetError::AlreadyInitializedError`.
    pub fn is_already_init_err(&self) -> bool {
        match self {
            SetError::AlreadyInitializedError(_) => true,
            SetError::InitializingError(_) => false,
        }
    }

    /// Whether `SetError` is `SetError::InitializingError`
    pub fn is_initializing_err(&self) -> bool {
        match self {
            SetError::AlreadyInitializedError(_) => false,
            SetError::InitializingError(_) => true,
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::OnceCell;
    use crate::bridge::loom::sync::Arc;
    use loom::future::block_on;
    use loom::thread;

    /// Two initializers race: one runs, the other waits (or finds the
    /// value), and both return the same value.
    #[test]
    fn racing_initializers_agree() {
        loom::model(|| {
            let cell = Arc::new(OnceCell::new());
            let c = cell.clone();
            let other = thread::spawn(move || *block_on(c.get_or_init(|| async { 1 })));
            let mine = *block_on(cell.get_or_init(|| async { 2 }));
            assert_eq!(mine, other.join().unwrap());
        });
    }
}
