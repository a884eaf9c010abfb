//! `RwLock`: a semaphore of `max_readers` permits around a value.
//!
//! A reader acquires one permit, a writer all `max_readers` of them, in the
//! semaphore's FIFO order. A writer waiting at the head of the queue holds
//! on to the permits released by departing readers until it has them all,
//! and later readers queue behind it: writers are never starved.

mod owned_write_guard;
mod read_guard;
mod write_guard;

#[cfg(all(test, loom))]
mod loom_tests;

pub use owned_write_guard::{OwnedRwLockMappedWriteGuard, OwnedRwLockWriteGuard};
pub use read_guard::{OwnedRwLockReadGuard, RwLockReadGuard};
pub use write_guard::{RwLockMappedWriteGuard, RwLockWriteGuard};

use crate::TryLockError;
use crate::batch_semaphore::{Semaphore, TryAcquireError};
use crate::bridge::loom::cell::UnsafeCell;
use crate::trace;

use std::sync::Arc;

/// The most readers an `RwLock` can have at once.
#[cfg(not(loom))]
const MAX_READS: u32 = u32::MAX >> 3;
/// Fewer under loom, so that a writer's acquisition is small.
#[cfg(loom)]
const MAX_READS: u32 = 10;

/// An asynchronous reader-writer lock.
///
/// This type of lock allows a number of readers or at most one writer at
/// any point in time. The write portion of this lock typically allows
/// modification of the underlying data (exclusive access) and the read
/// portion of this lock typically allows for read-only access (shared
/// access).
///
/// In comparison, a [`Mutex`] does not distinguish between readers or
/// writers that acquire the lock, therefore causing any tasks waiting for
/// the lock to become available to yield. An `RwLock` will allow any number
/// of readers to acquire the lock as long as a writer is not holding the
/// lock.
///
/// The priority policy of this lock is fair (or [_write-preferring_]), in
/// order to ensure that readers cannot starve writers. Fairness is ensured
/// using a first-in, first-out queue for the tasks awaiting the lock; if a
/// task that wishes to acquire the write lock is at the head of the queue,
/// read locks will not be given out until the write lock has been released.
/// This is in contrast to the Rust standard library's
/// `std::sync::RwLock`, where the priority policy is dependent on the
/// operating system's implementation.
///
/// The type parameter `T` represents the data that this lock protects. It
/// is required that `T` satisfies [`Send`] to be shared across threads. The
/// RAII guards returned from the locking methods implement [`Deref`] (and
/// [`DerefMut`] for the `write` methods) to allow access to the content of
/// the lock.
///
/// # Examples
///
/// ```
/// use volt_sync::RwLock;
///
/// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let lock = RwLock::new(5);
///
/// // many reader locks can be held at once
/// {
///     let r1 = lock.read().await;
///     let r2 = lock.read().await;
///     assert_eq!(*r1, 5);
///     assert_eq!(*r2, 5);
/// } // read locks are dropped at this point
///
/// // only one write lock may be held, however
/// {
///     let mut w = lock.write().await;
///     *w += 1;
///     assert_eq!(*w, 6);
/// } // write lock is dropped here
/// # });
/// ```
///
/// [`Mutex`]: struct@super::Mutex
/// [`RwLock`]: struct@RwLock
/// [`Deref`]: trait@std::ops::Deref
/// [`DerefMut`]: trait@std::ops::DerefMut
/// [`Send`]: trait@std::marker::Send
/// [_write-preferring_]: https://en.wikipedia.org/wiki/Readers%E2%80%93writer_lock#Priority_policies
pub struct RwLock<T: ?Sized> {
    /// The maximum number of concurrent readers (and permits of a writer).
    mr: u32,
    s: Semaphore,
    /// tokio-console's view of it (feature `tracing`; zero-sized without).
    resource: trace::Resource,
    c: UnsafeCell<T>,
}

/// A new lock's resource (feature `tracing`).
#[track_caller]
fn resource(max_readers: u32) -> trace::Resource {
    let resource = trace::Resource::new("RwLock", "Sync");
    trace::state!(resource, max_readers = max_readers);
    resource
}

// SAFETY: as std's RwLock: the value moves with the lock.
unsafe impl<T> Send for RwLock<T> where T: ?Sized + Send {}
// SAFETY: readers share `&T` across threads (needs `Sync`), a writer gets
// `&mut T` (needs `Send`).
unsafe impl<T> Sync for RwLock<T> where T: ?Sized + Send + Sync {}

impl<T: ?Sized> RwLock<T> {
    /// The semaphore's acquire, as tokio-console's async op `source`.
    #[inline]
    fn acquire_traced(
        &self,
        n: usize,
        source: &'static str,
        poll_op: &'static str,
    ) -> impl std::future::Future<Output = Result<(), crate::AcquireError>> + '_ {
        trace::async_op(&self.resource, source, poll_op, self.s.acquire(n))
    }

    /// Creates a new instance of an `RwLock<T>` which is unlocked.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::RwLock;
    ///
    /// let lock = RwLock::new(5);
    /// ```
    #[track_caller]
    pub fn new(value: T) -> RwLock<T>
    where
        T: Sized,
    {
        RwLock {
            mr: MAX_READS,
            c: UnsafeCell::new(value),
            s: Semaphore::new(MAX_READS as usize),
            resource: resource(MAX_READS),
        }
    }

    /// Creates a new instance of an `RwLock<T>` which is unlocked and allows
    /// a maximum of `max_reads` concurrent readers.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::RwLock;
    ///
    /// let lock = RwLock::with_max_readers(5, 1024);
    /// ```
    ///
    /// # Panics
    ///
    /// Panics if `max_reads` is more than `u32::MAX >> 3`, or 0.
    #[track_caller]
    pub fn with_max_readers(value: T, max_reads: u32) -> RwLock<T>
    where
        T: Sized,
    {
        assert_ne!(max_reads, 0, "a RwLock may not be created with 0 readers");
        assert!(
            max_reads <= MAX_READS,
            "a RwLock may not be created with more than {MAX_READS} readers"
        );
        RwLock {
            mr: max_reads,
            c: UnsafeCell::new(value),
            s: Semaphore::new(max_reads as usize),
            resource: resource(max_reads),
        }
    }

    /// Creates a new instance of an `RwLock<T>` which is unlocked.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::RwLock;
    ///
    /// static LOCK: RwLock<i32> = RwLock::const_new(5);
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new(value: T) -> RwLock<T>
    where
        T: Sized,
    {
        RwLock {
            mr: MAX_READS,
            c: UnsafeCell::new(value),
            s: Semaphore::const_new(MAX_READS as usize),
            resource: trace::none(),
        }
    }

    /// Creates a new instance of an `RwLock<T>` which is unlocked and allows
    /// a maximum of `max_reads` concurrent readers.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::RwLock;
    ///
    /// static LOCK: RwLock<i32> = RwLock::const_with_max_readers(5, 1024);
    /// ```
    #[cfg(not(loom))]
    pub const fn const_with_max_readers(value: T, max_reads: u32) -> RwLock<T>
    where
        T: Sized,
    {
        assert!(max_reads != 0, "a RwLock may not be created with 0 readers");
        assert!(max_reads <= MAX_READS);
        RwLock {
            mr: max_reads,
            c: UnsafeCell::new(value),
            s: Semaphore::const_new(max_reads as usize),
            resource: trace::none(),
        }
    }

    /// Locks this `RwLock` with shared read access, causing the current task
    /// to yield until the lock has been acquired.
    ///
    /// The calling task will yield until there are no writers which hold the
    /// lock. There may be other readers inside the lock when the task
    /// resumes.
    ///
    /// Note that under the priority policy of [`RwLock`], read locks are not
    /// granted until prior write locks, to prevent starvation. Therefore
    /// deadlock may occur if a read lock is held by the current task, a
    /// write lock attempt is made, and then a subsequent read lock attempt
    /// is made by the current task.
    ///
    /// Returns an RAII guard which will drop this read access of the
    /// `RwLock` when dropped.
    ///
    /// # Cancel safety
    ///
    /// This method uses a queue to fairly distribute locks in the order they
    /// were requested. Cancelling a call to `read` makes you lose your place
    /// in the queue.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use volt_sync::RwLock;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let lock = Arc::new(RwLock::new(1));
    /// let c_lock = lock.clone();
    ///
    /// let n = lock.read().await;
    /// assert_eq!(*n, 1);
    ///
    /// volt_runtime::spawn(async move {
    ///     // While main has an active read lock, we acquire one too.
    ///     let r = c_lock.read().await;
    ///     assert_eq!(*r, 1);
    /// }).await.expect("The spawned task has panicked");
    ///
    /// // Drop the guard after the spawned task finishes.
    /// drop(n);
    /// # });
    /// ```
    pub async fn read(&self) -> RwLockReadGuard<'_, T> {
        self.acquire_traced(1, "RwLock::read", "poll_read")
            .await
            .unwrap_or_else(|_| {
                // The semaphore was closed. but, we never explicitly close it,
                // and we have a handle to it through the Arc, which means that
                // this can never happen.
                unreachable!()
            });
        // SAFETY: we hold a read permit.
        unsafe { RwLockReadGuard::new(&self.s, self.c.with(|p| p)) }
    }

    /// Blockingly locks this `RwLock` with shared read access.
    ///
    /// This method is intended for use cases where you need to use this
    /// rwlock in asynchronous code as well as in synchronous code.
    ///
    /// Returns an RAII guard which will drop the read access of this
    /// `RwLock` when dropped.
    ///
    /// # Panics
    ///
    /// This function panics if called within an asynchronous execution
    /// context.
    ///
    ///   - If you find yourself in an asynchronous execution context and
    ///     needing to call some (synchronous) function which performs one of
    ///     these `blocking_` operations, then consider wrapping that call
    ///     inside `spawn_blocking()`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use volt_sync::RwLock;
    ///
    /// let rwlock = Arc::new(RwLock::new(1));
    /// let read = rwlock.blocking_read();
    /// assert_eq!(*read, 1);
    /// ```
    #[track_caller]
    pub fn blocking_read(&self) -> RwLockReadGuard<'_, T> {
        crate::bridge::block_on(self.read())
    }

    /// Locks this `RwLock` with shared read access, causing the current task
    /// to yield until the lock has been acquired.
    ///
    /// The calling task will yield until there are no writers which hold the
    /// lock. There may be other readers inside the lock when the task
    /// resumes.
    ///
    /// This method is identical to [`RwLock::read`], except that the
    /// returned guard references the `RwLock` with an [`Arc`] rather than by
    /// borrowing it. Therefore, the `RwLock` must be wrapped in an `Arc` to
    /// call this method, and the guard will live for the `'static` lifetime,
    /// as it keeps the `RwLock` alive by holding an `Arc`.
    ///
    /// Note that under the priority policy of [`RwLock`], read locks are not
    /// granted until prior write locks, to prevent starvation. Therefore
    /// deadlock may occur if a read lock is held by the current task, a
    /// write lock attempt is made, and then a subsequent read lock attempt
    /// is made by the current task.
    ///
    /// Returns an RAII guard which will drop this read access of the
    /// `RwLock` when dropped.
    ///
    /// # Cancel safety
    ///
    /// This method uses a queue to fairly distribute locks in the order they
    /// were requested. Cancelling a call to `read_owned` makes you lose your
    /// place in the queue.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use volt_sync::RwLock;
    ///
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let lock = Arc::new(RwLock::new(1));
    /// let n = lock.clone().read_owned().await;
    /// assert_eq!(*n, 1);
    /// # });
    /// ```
    pub async fn read_owned(self: Arc<Self>) -> OwnedRwLockReadGuard<T> {
        self.acquire_traced(1, "RwLock::read", "poll_read")
            .await
            .unwrap_or_else(|_| unreachable!());
        OwnedRwLockReadGuard::new(self)
    }

    /// Attempts to acquire this `RwLock` with shared read access.
    ///
    /// If the access couldn't be acquired immediately, returns
    /// [`TryLockError`]. Otherwise, an RAII guard is returned which will
    /// release read access when dropped.
    ///
    /// [`TryLockError`]: TryLockError
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::RwLock;
    ///
    /// let lock = RwLock::new(1);
    /// let v = lock.try_read().unwrap();
    /// assert_eq!(*v, 1);
    /// let w = lock.try_write();
    /// assert!(w.is_err());
    /// ```
    pub fn try_read(&self) -> Result<RwLockReadGuard<'_, T>, TryLockError> {
        match self.s.try_acquire(1) {
            Ok(()) => {}
            Err(TryAcquireError::NoPermits) => return Err(TryLockError(())),
            Err(TryAcquireError::Closed) => unreachable!(),
        }
        // SAFETY: we hold a read permit.
        Ok(unsafe { RwLockReadGuard::new(&self.s, self.c.with(|p| p)) })
    }

    /// Attempts to acquire this `RwLock` with shared read access.
    ///
    /// If the access couldn't be acquired immediately, returns
    /// [`TryLockError`]. Otherwise, an RAII guard is returned which will
    /// release read access when dropped.
    ///
    /// This method is identical to [`RwLock::try_read`], except that the
    /// returned guard references the `RwLock` with an [`Arc`] rather than by
    /// borrowing it. Therefore, the `RwLock` must be wrapped in an `Arc` to
    /// call this method, and the guard will live for the `'static` lifetime,
    /// as it keeps the `RwLock` alive by holding an `Arc`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use volt_sync::RwLock;
    ///
    /// let lock = Arc::new(RwLock::new(1));
    /// let v = lock.clone().try_read_owned().unwrap();
    /// assert_eq!(*v, 1);
    /// ```
    pub fn try_read_owned(self: Arc<Self>) -> Result<OwnedRwLockReadGuard<T>, TryLockError> {
        match self.s.try_acquire(1) {
            Ok(()) => {}
            Err(TryAcquireError::NoPermits) => return Err(TryLockError(())),
            Err(TryAcquireError::Closed) => unreachable!(),
        }
        Ok(OwnedRwLockReadGuard::new(self))
    }

    /// Locks this `RwLock` with exclusive write access, causing the current
    /// task to yield until the lock has been acquired.
    ///
    /// The calling task will yield while other writers or readers currently
    /// have access to the lock.
    ///
    /// Returns an RAII guard which will drop the write access of this
    /// `RwLock` when dropped.
    ///
    /// # Cancel safety
    ///
    /// This method uses a queue to fairly distribute locks in the order they
    /// were requested. Cancelling a call to `write` makes you lose your place
    /// in the queue (and hands on the reader permits it had already
    /// gathered).
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::RwLock;
    ///
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let lock = RwLock::new(1);
    ///
    /// let mut n = lock.write().await;
    /// *n = 2;
    /// # });
    /// ```
    pub async fn write(&self) -> RwLockWriteGuard<'_, T> {
        self.acquire_traced(self.mr as usize, "RwLock::write", "poll_write")
            .await
            .unwrap_or_else(|_| unreachable!());
        // SAFETY: we hold all the permits.
        unsafe { RwLockWriteGuard::new(self.mr, &self.s, self.c.with_mut(|p| p)) }
    }

    /// Blockingly locks this `RwLock` with exclusive write access.
    ///
    /// This method is intended for use cases where you need to use this
    /// rwlock in asynchronous code as well as in synchronous code.
    ///
    /// Returns an RAII guard which will drop the write access of this
    /// `RwLock` when dropped.
    ///
    /// # Panics
    ///
    /// This function panics if called within an asynchronous execution
    /// context.
    ///
    /// ```
    /// use volt_sync::RwLock;
    ///
    /// let rwlock = RwLock::new(1);
    /// *rwlock.blocking_write() += 1;
    /// assert_eq!(*rwlock.blocking_read(), 2);
    /// ```
    #[track_caller]
    pub fn blocking_write(&self) -> RwLockWriteGuard<'_, T> {
        crate::bridge::block_on(self.write())
    }

    /// Locks this `RwLock` with exclusive write access, causing the current
    /// task to yield until the lock has been acquired.
    ///
    /// The calling task will yield while other writers or readers currently
    /// have access to the lock.
    ///
    /// This method is identical to [`RwLock::write`], except that the
    /// returned guard references the `RwLock` with an [`Arc`] rather than by
    /// borrowing it. Therefore, the `RwLock` must be wrapped in an `Arc` to
    /// call this method, and the guard will live for the `'static` lifetime,
    /// as it keeps the `RwLock` alive by holding an `Arc`.
    ///
    /// Returns an RAII guard which will drop the write access of this
    /// `RwLock` when dropped.
    ///
    /// # Cancel safety
    ///
    /// This method uses a queue to fairly distribute locks in the order they
    /// were requested. Cancelling a call to `write_owned` makes you lose
    /// your place in the queue.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use volt_sync::RwLock;
    ///
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let lock = Arc::new(RwLock::new(1));
    /// let mut n = lock.write_owned().await;
    /// *n = 2;
    /// # });
    /// ```
    pub async fn write_owned(self: Arc<Self>) -> OwnedRwLockWriteGuard<T> {
        self.acquire_traced(self.mr as usize, "RwLock::write", "poll_write")
            .await
            .unwrap_or_else(|_| unreachable!());
        OwnedRwLockWriteGuard::new(self)
    }

    /// Attempts to acquire this `RwLock` with exclusive write access.
    ///
    /// If the access couldn't be acquired immediately, returns
    /// [`TryLockError`]. Otherwise, an RAII guard is returned which will
    /// release write access when dropped.
    ///
    /// [`TryLockError`]: TryLockError
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::RwLock;
    ///
    /// let rw = RwLock::new(1);
    /// let v = rw.try_read().unwrap();
    /// assert_eq!(*v, 1);
    /// assert!(rw.try_write().is_err());
    /// ```
    pub fn try_write(&self) -> Result<RwLockWriteGuard<'_, T>, TryLockError> {
        match self.s.try_acquire(self.mr as usize) {
            Ok(()) => {}
            Err(TryAcquireError::NoPermits) => return Err(TryLockError(())),
            Err(TryAcquireError::Closed) => unreachable!(),
        }
        // SAFETY: we hold all the permits.
        Ok(unsafe { RwLockWriteGuard::new(self.mr, &self.s, self.c.with_mut(|p| p)) })
    }

    /// Attempts to acquire this `RwLock` with exclusive write access.
    ///
    /// If the access couldn't be acquired immediately, returns
    /// [`TryLockError`]. Otherwise, an RAII guard is returned which will
    /// release write access when dropped.
    ///
    /// This method is identical to [`RwLock::try_write`], except that the
    /// returned guard references the `RwLock` with an [`Arc`] rather than by
    /// borrowing it. Therefore, the `RwLock` must be wrapped in an `Arc` to
    /// call this method, and the guard will live for the `'static` lifetime,
    /// as it keeps the `RwLock` alive by holding an `Arc`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use volt_sync::RwLock;
    ///
    /// let rw = Arc::new(RwLock::new(1));
    /// let v = Arc::clone(&rw).try_read_owned().unwrap();
    /// assert_eq!(*v, 1);
    /// assert!(rw.try_write_owned().is_err());
    /// ```
    pub fn try_write_owned(self: Arc<Self>) -> Result<OwnedRwLockWriteGuard<T>, TryLockError> {
        match self.s.try_acquire(self.mr as usize) {
            Ok(()) => {}
            Err(TryAcquireError::NoPermits) => return Err(TryLockError(())),
            Err(TryAcquireError::Closed) => unreachable!(),
        }
        Ok(OwnedRwLockWriteGuard::new(self))
    }

    /// Returns a mutable reference to the underlying data.
    ///
    /// Since this call borrows the `RwLock` mutably, no actual locking needs
    /// to take place -- the mutable borrow statically guarantees no locks
    /// exist.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::RwLock;
    ///
    /// let mut lock = RwLock::new(1);
    ///
    /// let n = lock.get_mut();
    /// *n = 2;
    /// assert_eq!(lock.into_inner(), 2);
    /// ```
    pub fn get_mut(&mut self) -> &mut T {
        // SAFETY: `&mut self` proves no guard exists.
        self.c.with_mut(|p| unsafe { &mut *p })
    }

    /// Consumes the lock, returning the underlying data.
    ///
    /// ```
    /// let lock = volt_sync::RwLock::new(7);
    /// assert_eq!(lock.into_inner(), 7);
    /// ```
    pub fn into_inner(self) -> T
    where
        T: Sized,
    {
        self.c.into_inner()
    }
}

impl<T> From<T> for RwLock<T> {
    fn from(s: T) -> Self {
        Self::new(s)
    }
}

impl<T> Default for RwLock<T>
where
    T: Default,
{
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T: ?Sized> std::fmt::Debug for RwLock<T>
where
    T: std::fmt::Debug,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("RwLock");
        match self.try_read() {
            Ok(inner) => d.field("data", &&*inner),
            Err(_) => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}
