//! `Mutex`: a semaphore of one permit around a value.
//!
//! Locking acquires the permit (lock-free when it is free, FIFO through the
//! semaphore's queue when it is not); dropping a guard releases it, handing
//! it straight to the oldest waiter. The value lives in an `UnsafeCell`
//! that only the holder of the permit touches.

mod guard;

pub use guard::{MappedMutexGuard, MutexGuard, OwnedMappedMutexGuard, OwnedMutexGuard};

use crate::batch_semaphore as semaphore;
use crate::bridge::loom::cell::UnsafeCell;
use crate::trace;

use std::error::Error;
use std::fmt;
use std::sync::Arc;

/// An asynchronous `Mutex`-like type.
///
/// This type acts similarly to [`std::sync::Mutex`], with two major
/// differences: [`lock`] is an async method so does not block, and the lock
/// guard is designed to be held across `.await` points.
///
/// # Which kind of mutex should you use?
///
/// Contrary to popular belief, it is ok and often preferred to use the
/// ordinary [`Mutex`][std] from the standard library in asynchronous code.
///
/// The feature that the async mutex offers over the blocking mutex is the
/// ability to keep it locked across an `.await` point. This makes the async
/// mutex more expensive than the blocking mutex, so the blocking mutex
/// should be preferred in the cases where it can be used. The primary use
/// case for the async mutex is to provide shared mutable access to IO
/// resources such as a database connection.
///
/// # Fairness
///
/// The lock is fair: it is handed to waiters in the order they called
/// `lock`. A task that unlocks and immediately locks again queues behind
/// the tasks already waiting.
///
/// # Examples:
///
/// ```
/// use volt_sync::Mutex;
/// use std::sync::Arc;
///
/// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
/// let data1 = Arc::new(Mutex::new(0));
/// let data2 = Arc::clone(&data1);
///
/// volt_runtime::spawn(async move {
///     let mut lock = data2.lock().await;
///     *lock += 1;
/// }).await.unwrap();
///
/// let mut lock = data1.lock().await;
/// *lock += 1;
/// assert_eq!(*lock, 2);
/// # });
/// ```
///
/// ```
/// use volt_sync::Mutex;
/// use std::sync::Arc;
///
/// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
/// let count = Arc::new(Mutex::new(0));
///
/// let tasks: Vec<_> = (0..5).map(|_| {
///     let my_count = Arc::clone(&count);
///     volt_runtime::spawn(async move {
///         for _ in 0..10 {
///             let mut lock = my_count.lock().await;
///             *lock += 1;
///         }
///     })
/// }).collect();
/// for task in tasks {
///     task.await.unwrap();
/// }
/// assert_eq!(*count.lock().await, 50);
/// # });
/// ```
///
/// [`Mutex`]: struct@Mutex
/// [`MutexGuard`]: struct@MutexGuard
/// [`lock`]: method@Mutex::lock
/// [std]: std::sync::Mutex
pub struct Mutex<T: ?Sized> {
    s: semaphore::Semaphore,
    /// tokio-console's view of it (feature `tracing`; zero-sized without).
    resource: trace::Resource,
    c: UnsafeCell<T>,
}

// SAFETY: as std's Mutex: the value moves with the mutex.
unsafe impl<T> Send for Mutex<T> where T: ?Sized + Send {}
// SAFETY: the permit gives one holder at a time `&mut T`, so sharing the
// mutex only requires `T: Send`.
unsafe impl<T> Sync for Mutex<T> where T: ?Sized + Send {}

/// Error returned from the [`Mutex::try_lock`], [`RwLock::try_read`] and
/// [`RwLock::try_write`] functions.
///
/// `Mutex::try_lock` operation will only fail if the mutex is already
/// locked.
///
/// `RwLock::try_read` operation will only fail if the lock is currently
/// held by an exclusive writer.
///
/// `RwLock::try_write` operation will only fail if the lock is currently
/// held by any reader or by an exclusive writer.
///
/// [`Mutex::try_lock`]: Mutex::try_lock
/// [`RwLock::try_read`]: fn@super::RwLock::try_read
/// [`RwLock::try_write`]: fn@super::RwLock::try_write
#[derive(Debug)]
pub struct TryLockError(pub(crate) ());

impl fmt::Display for TryLockError {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(fmt, "operation would block")
    }
}

impl Error for TryLockError {}

impl<T: ?Sized> Mutex<T> {
    /// Creates a new lock in an unlocked state ready for use.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::Mutex;
    ///
    /// let lock = Mutex::new(5);
    /// ```
    #[track_caller]
    pub fn new(t: T) -> Self
    where
        T: Sized,
    {
        let resource = trace::Resource::new("Mutex", "Sync");
        trace::state!(resource, locked = false);
        Self {
            c: UnsafeCell::new(t),
            s: semaphore::Semaphore::new(1),
            resource,
        }
    }

    /// Creates a new lock in an unlocked state ready for use.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::Mutex;
    ///
    /// static LOCK: Mutex<i32> = Mutex::const_new(5);
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new(t: T) -> Self
    where
        T: Sized,
    {
        Self {
            c: UnsafeCell::new(t),
            s: semaphore::Semaphore::const_new(1),
            resource: trace::none(),
        }
    }

    /// Locks this mutex, causing the current task to yield until the lock
    /// has been acquired. When the lock has been acquired, function returns
    /// a [`MutexGuard`].
    ///
    /// If the mutex is available to be acquired immediately, then this call
    /// will typically not yield to the runtime. However, this is not
    /// guaranteed under all circumstances.
    ///
    /// # Cancel safety
    ///
    /// This method uses a queue to fairly distribute locks in the order they
    /// were requested. Cancelling a call to `lock` makes you lose your place
    /// in the queue.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::Mutex;
    ///
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let mutex = Mutex::new(1);
    ///
    /// let mut n = mutex.lock().await;
    /// *n = 2;
    /// # });
    /// ```
    pub async fn lock(&self) -> MutexGuard<'_, T> {
        self.acquire().await;
        MutexGuard::new(self)
    }

    /// Blockingly locks this `Mutex`. When the lock has been acquired,
    /// function returns a [`MutexGuard`].
    ///
    /// This method is intended for use cases where you need to use this
    /// mutex in asynchronous code as well as in synchronous code.
    ///
    /// # Panics
    ///
    /// This function panics if called within an asynchronous execution
    /// context.
    ///
    ///   - If you find yourself in an asynchronous execution context and
    ///     needing to call some (synchronous) function which performs one
    ///     of these `blocking_` operations, then consider wrapping that call
    ///     inside `spawn_blocking()`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use volt_sync::Mutex;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let mutex = Arc::new(Mutex::new(1));
    /// let lock = mutex.lock().await;
    ///
    /// let mutex1 = Arc::clone(&mutex);
    /// let blocking_task = volt_runtime::task::spawn_blocking(move || {
    ///     // This shall block until the `lock` is released.
    ///     let mut n = mutex1.blocking_lock();
    ///     *n = 2;
    /// });
    ///
    /// assert_eq!(*lock, 1);
    /// // Release the lock.
    /// drop(lock);
    ///
    /// // Await the completion of the blocking task.
    /// blocking_task.await.unwrap();
    ///
    /// // Assert uncontended.
    /// let n = mutex.try_lock().unwrap();
    /// assert_eq!(*n, 2);
    /// # });
    /// ```
    #[track_caller]
    pub fn blocking_lock(&self) -> MutexGuard<'_, T> {
        crate::bridge::block_on(self.lock())
    }

    /// Blockingly locks this `Mutex`. When the lock has been acquired,
    /// function returns an [`OwnedMutexGuard`].
    ///
    /// This method is identical to [`Mutex::blocking_lock`], except that
    /// the returned guard references the `Mutex` with an [`Arc`] rather
    /// than by borrowing it. Therefore, the `Mutex` must be wrapped in an
    /// `Arc` to call this method, and the guard will live for the `'static`
    /// lifetime, as it keeps the `Mutex` alive by holding an `Arc`.
    ///
    /// # Panics
    ///
    /// This function panics if called within an asynchronous execution
    /// context.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use volt_sync::Mutex;
    ///
    /// let mutex = Arc::new(Mutex::new(1));
    /// let mut guard = mutex.clone().blocking_lock_owned();
    /// *guard += 1;
    /// drop(guard);
    /// assert_eq!(*mutex.try_lock().unwrap(), 2);
    /// ```
    #[track_caller]
    pub fn blocking_lock_owned(self: Arc<Self>) -> OwnedMutexGuard<T> {
        crate::bridge::block_on(self.lock_owned())
    }

    /// Locks this mutex, causing the current task to yield until the lock
    /// has been acquired. When the lock has been acquired, this returns an
    /// [`OwnedMutexGuard`].
    ///
    /// If the mutex is available to be acquired immediately, then this call
    /// will typically not yield to the runtime. However, this is not
    /// guaranteed under all circumstances.
    ///
    /// This method is identical to [`Mutex::lock`], except that the returned
    /// guard references the `Mutex` with an [`Arc`] rather than by
    /// borrowing it. Therefore, the `Mutex` must be wrapped in an `Arc` to
    /// call this method, and the guard will live for the `'static`
    /// lifetime, as it keeps the `Mutex` alive by holding an `Arc`.
    ///
    /// # Cancel safety
    ///
    /// This method uses a queue to fairly distribute locks in the order they
    /// were requested. Cancelling a call to `lock_owned` makes you lose your
    /// place in the queue.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::Mutex;
    /// use std::sync::Arc;
    ///
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let mutex = Arc::new(Mutex::new(1));
    ///
    /// let mut n = mutex.clone().lock_owned().await;
    /// *n = 2;
    /// # });
    /// ```
    pub async fn lock_owned(self: Arc<Self>) -> OwnedMutexGuard<T> {
        self.acquire().await;
        OwnedMutexGuard::new(self)
    }

    async fn acquire(&self) {
        let acquire = self.s.acquire(1);
        trace::async_op(&self.resource, "Mutex::lock", "poll_lock", acquire)
            .await
            .unwrap_or_else(|_| {
                // The semaphore was closed. but, we never explicitly close it,
                // and we own it exclusively, which means that this can never
                // happen.
                unreachable!()
            });
        trace::state!(self.resource, locked = true);
    }

    /// Attempts to acquire the lock, and returns [`TryLockError`] if the
    /// lock is currently held somewhere else.
    ///
    /// [`TryLockError`]: TryLockError
    /// # Examples
    ///
    /// ```
    /// use volt_sync::Mutex;
    ///
    /// let mutex = Mutex::new(1);
    ///
    /// let n = mutex.try_lock().unwrap();
    /// assert_eq!(*n, 1);
    /// assert!(mutex.try_lock().is_err());
    /// ```
    pub fn try_lock(&self) -> Result<MutexGuard<'_, T>, TryLockError> {
        match self.s.try_acquire(1) {
            Ok(()) => {
                trace::state!(self.resource, locked = true);
                Ok(MutexGuard::new(self))
            }
            Err(_) => Err(TryLockError(())),
        }
    }

    /// Returns a mutable reference to the underlying data.
    ///
    /// Since this call borrows the `Mutex` mutably, no actual locking needs
    /// to take place -- the mutable borrow statically guarantees no locks
    /// exist.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::Mutex;
    ///
    /// let mut mutex = Mutex::new(1);
    ///
    /// let n = mutex.get_mut();
    /// *n = 2;
    /// assert_eq!(mutex.into_inner(), 2);
    /// ```
    pub fn get_mut(&mut self) -> &mut T {
        // SAFETY: `&mut self` proves no guard exists.
        self.c.with_mut(|ptr| unsafe { &mut *ptr })
    }

    /// Attempts to acquire the lock, and returns [`TryLockError`] if the
    /// lock is currently held somewhere else.
    ///
    /// This method is identical to [`Mutex::try_lock`], except that the
    /// returned guard references the `Mutex` with an [`Arc`] rather than by
    /// borrowing it. Therefore, the `Mutex` must be wrapped in an `Arc` to
    /// call this method, and the guard will live for the `'static`
    /// lifetime, as it keeps the `Mutex` alive by holding an `Arc`.
    ///
    /// [`TryLockError`]: TryLockError
    /// # Examples
    ///
    /// ```
    /// use volt_sync::Mutex;
    /// use std::sync::Arc;
    ///
    /// let mutex = Arc::new(Mutex::new(1));
    ///
    /// let n = mutex.clone().try_lock_owned().unwrap();
    /// assert_eq!(*n, 1);
    /// ```
    pub fn try_lock_owned(self: Arc<Self>) -> Result<OwnedMutexGuard<T>, TryLockError> {
        match self.s.try_acquire(1) {
            Ok(()) => {
                trace::state!(self.resource, locked = true);
                Ok(OwnedMutexGuard::new(self))
            }
            Err(_) => Err(TryLockError(())),
        }
    }

    /// Consumes the mutex, returning the underlying data.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::Mutex;
    ///
    /// let mutex = Mutex::new(1);
    ///
    /// let n = mutex.into_inner();
    /// assert_eq!(n, 1);
    /// ```
    pub fn into_inner(self) -> T
    where
        T: Sized,
    {
        self.c.into_inner()
    }

    /// The data, for the guards.
    ///
    /// # Safety
    /// The caller holds the permit.
    pub(crate) unsafe fn data_ptr(&self) -> *mut T {
        self.c.with_mut(|ptr| ptr)
    }

    /// Gives the permit back (the guards' drop).
    pub(crate) fn unlock(&self) {
        self.s.release(1);
        trace::state!(self.resource, locked = false);
    }
}

impl<T> From<T> for Mutex<T> {
    fn from(s: T) -> Self {
        Self::new(s)
    }
}

impl<T> Default for Mutex<T>
where
    T: Default,
{
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T: ?Sized> std::fmt::Debug for Mutex<T>
where
    T: std::fmt::Debug,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Mutex");
        match self.try_lock() {
            Ok(inner) => d.field("data", &&*inner),
            Err(_) => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}
