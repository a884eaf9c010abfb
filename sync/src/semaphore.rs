//! `Semaphore`, `SemaphorePermit`, `OwnedSemaphorePermit`.

use crate::batch_semaphore as ll;
use crate::trace;
use crate::{AcquireError, TryAcquireError};

use std::fmt;
use std::sync::Arc;

/// Counting semaphore performing asynchronous permit acquisition.
///
/// A semaphore maintains a set of permits. Permits are used to synchronize
/// access to a shared resource. A semaphore differs from a mutex in that it
/// can allow more than one concurrent caller to access the shared resource
/// at a time.
///
/// When `acquire` is called and the semaphore has remaining permits, the
/// function immediately returns a permit. However, if no remaining permits
/// are available, `acquire` (asynchronously) waits until an outstanding
/// permit is dropped. At this point, the freed permit is assigned to the
/// caller.
///
/// This `Semaphore` is fair, which means that permits are given out in the
/// order they were requested. This fairness is also applied when
/// `acquire_many` gets involved, so if a call to `acquire_many` at the front
/// of the queue requests more permits than currently available, this can
/// prevent a call to `acquire` from completing, even if the semaphore has
/// enough permits to complete the call to `acquire`.
///
/// To use the `Semaphore` in a poll function, you can use the
/// `PollSemaphore` utility of tokio-util's design.
///
/// # How it works
///
/// Permits are handed from releaser to waiter directly (no permit ever
/// "floats" in the counter while someone waits), the first waiter sits in a
/// lock-free slot so that a single waiter is served with one compare-and-
/// swap, and waiting allocates nothing: the waiter node lives inside the
/// `acquire` future.
///
/// # Examples
///
/// Basic usage:
///
/// ```
/// use volt_sync::{Semaphore, TryAcquireError};
///
/// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let semaphore = Semaphore::new(3);
///
/// let a_permit = semaphore.acquire().await.unwrap();
/// let two_permits = semaphore.acquire_many(2).await.unwrap();
///
/// assert_eq!(semaphore.available_permits(), 0);
///
/// let permit_attempt = semaphore.try_acquire();
/// assert_eq!(permit_attempt.err(), Some(TryAcquireError::NoPermits));
/// # drop((a_permit, two_permits));
/// # });
/// ```
///
/// Limit the number of simultaneously opened files in your program:
///
/// ```
/// use std::sync::Arc;
/// use volt_sync::Semaphore;
///
/// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
/// let semaphore = Arc::new(Semaphore::new(10));
/// let mut handles = Vec::new();
/// for i in 0..50 {
///     let semaphore = semaphore.clone();
///     handles.push(volt_runtime::spawn(async move {
///         let _permit = semaphore.acquire_owned().await.unwrap();
///         // At most 10 of these run at once.
///         i
///     }));
/// }
/// for handle in handles {
///     handle.await.unwrap();
/// }
/// # });
/// ```
pub struct Semaphore {
    /// The low level semaphore
    ll_sem: ll::Semaphore,
    /// tokio-console's view of it (feature `tracing`; zero-sized without).
    resource: trace::Resource,
}

/// A permit from the semaphore.
///
/// This type is created by the [`acquire`] method.
///
/// [`acquire`]: crate::Semaphore::acquire()
#[must_use]
#[clippy::has_significant_drop]
#[derive(Debug)]
pub struct SemaphorePermit<'a> {
    sem: &'a Semaphore,
    permits: usize,
}

/// An owned permit from the semaphore.
///
/// This type is created by the [`acquire_owned`] method.
///
/// [`acquire_owned`]: crate::Semaphore::acquire_owned()
#[must_use]
#[clippy::has_significant_drop]
#[derive(Debug)]
pub struct OwnedSemaphorePermit {
    sem: Arc<Semaphore>,
    permits: usize,
}

impl Semaphore {
    /// The maximum number of permits which a semaphore can hold. It is
    /// `usize::MAX >> 3`.
    ///
    /// Exceeding this limit typically results in a panic.
    pub const MAX_PERMITS: usize = ll::Semaphore::MAX_PERMITS;

    /// Creates a new semaphore with the initial number of permits.
    ///
    /// Panics if `permits` exceeds [`Semaphore::MAX_PERMITS`].
    ///
    /// ```
    /// let sem = volt_sync::Semaphore::new(2);
    /// assert_eq!(sem.available_permits(), 2);
    /// ```
    #[track_caller]
    pub fn new(permits: usize) -> Self {
        let resource = trace::Resource::new("Semaphore", "Sync");
        trace::state!(resource, permits = permits, permits.op = "override");
        Self {
            ll_sem: ll::Semaphore::new(permits),
            resource,
        }
    }

    /// Creates a new semaphore with the initial number of permits.
    ///
    /// When using the `tracing` [unstable feature], a `Semaphore` created
    /// with `const_new` will not be instrumented. As such, it will not be
    /// visible in [`tokio-console`]. Instead, [`Semaphore::new`] should be
    /// used to create an instrumented object if that is needed.
    ///
    /// [unstable feature]: https://docs.rs/tokio/latest/tokio/#unstable-features
    /// [`tokio-console`]: https://github.com/tokio-rs/console
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::Semaphore;
    ///
    /// static SEM: Semaphore = Semaphore::const_new(10);
    /// assert_eq!(SEM.available_permits(), 10);
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new(permits: usize) -> Self {
        Self {
            ll_sem: ll::Semaphore::const_new(permits),
            resource: trace::none(),
        }
    }

    /// A closed semaphore, usable in `const` items.
    #[cfg(not(loom))]
    pub(crate) const fn const_new_closed() -> Self {
        Self {
            ll_sem: ll::Semaphore::const_new_closed(),
            resource: trace::none(),
        }
    }

    /// A semaphore that is no resource of its own for tokio-console (the
    /// channels built on it are). Not public API.
    #[doc(hidden)]
    pub fn new_untraced(permits: usize) -> Self {
        Self {
            ll_sem: ll::Semaphore::new(permits),
            resource: trace::none(),
        }
    }

    /// A closed semaphore (for the types built on it).
    pub(crate) fn new_closed() -> Self {
        Self {
            ll_sem: ll::Semaphore::new_closed(),
            resource: trace::none(),
        }
    }

    /// The low-level acquire. Without `tracing` it is the semaphore's own
    /// future: an `async fn` here would be one more state machine, which
    /// LLVM does not inline into the four callers (~30 instructions an
    /// acquire).
    #[cfg(not(feature = "tracing"))]
    #[inline]
    fn acquire_traced(&self, n: usize) -> ll::Acquire<'_> {
        self.ll_sem.acquire(n)
    }

    /// The low-level acquire, as tokio-console's async op
    /// `Semaphore::acquire`.
    #[cfg(feature = "tracing")]
    async fn acquire_traced(&self, n: usize) -> Result<(), AcquireError> {
        trace::async_op(
            &self.resource,
            "Semaphore::acquire",
            "poll_acquire",
            self.ll_sem.acquire(n),
        )
        .await?;
        trace::state!(self.resource, permits = n, permits.op = "sub");
        Ok(())
    }

    /// Returns the current number of available permits.
    pub fn available_permits(&self) -> usize {
        self.ll_sem.available_permits()
    }

    /// Adds `n` new permits to the semaphore.
    ///
    /// The maximum number of permits is [`Semaphore::MAX_PERMITS`], and
    /// this function will panic if the limit is exceeded.
    ///
    /// ```
    /// let sem = volt_sync::Semaphore::new(0);
    /// sem.add_permits(2);
    /// assert_eq!(sem.available_permits(), 2);
    /// ```
    #[inline]
    #[track_caller]
    pub fn add_permits(&self, n: usize) {
        self.ll_sem.release(n);
        trace::state!(self.resource, permits = n, permits.op = "add");
    }

    /// Decrease a semaphore's permits by a maximum of `n`.
    ///
    /// If there are insufficient permits and it's not possible to reduce by
    /// `n`, return the number of permits that were actually reduced.
    ///
    /// ```
    /// let sem = volt_sync::Semaphore::new(3);
    /// assert_eq!(sem.forget_permits(5), 3);
    /// assert_eq!(sem.available_permits(), 0);
    /// ```
    pub fn forget_permits(&self, n: usize) -> usize {
        self.ll_sem.forget_permits(n)
    }

    /// Acquires a permit from the semaphore.
    ///
    /// If the semaphore has been closed, this returns an [`AcquireError`].
    /// Otherwise, this returns a [`SemaphorePermit`] representing the
    /// acquired permit.
    ///
    /// # Cancel safety
    ///
    /// This method uses a queue to fairly distribute permits in the order
    /// they were requested. Cancelling a call to `acquire` makes you lose
    /// your place in the queue.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::Semaphore;
    ///
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let semaphore = Semaphore::new(2);
    ///
    /// let permit_1 = semaphore.acquire().await.unwrap();
    /// assert_eq!(semaphore.available_permits(), 1);
    ///
    /// let permit_2 = semaphore.acquire().await.unwrap();
    /// assert_eq!(semaphore.available_permits(), 0);
    ///
    /// drop(permit_1);
    /// assert_eq!(semaphore.available_permits(), 1);
    /// # drop(permit_2);
    /// # });
    /// ```
    #[inline]
    pub async fn acquire(&self) -> Result<SemaphorePermit<'_>, AcquireError> {
        self.acquire_traced(1).await?;
        Ok(SemaphorePermit {
            sem: self,
            permits: 1,
        })
    }

    /// Acquires `n` permits from the semaphore.
    ///
    /// If the semaphore has been closed, this returns an [`AcquireError`].
    /// Otherwise, this returns a [`SemaphorePermit`] representing the
    /// acquired permits.
    ///
    /// # Cancel safety
    ///
    /// This method uses a queue to fairly distribute permits in the order
    /// they were requested. Cancelling a call to `acquire_many` makes you
    /// lose your place in the queue; permits already assigned to it are
    /// passed on to the next waiters.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::Semaphore;
    ///
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let semaphore = Semaphore::new(5);
    ///
    /// let permit = semaphore.acquire_many(3).await.unwrap();
    /// assert_eq!(semaphore.available_permits(), 2);
    /// # drop(permit);
    /// # });
    /// ```
    pub async fn acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, AcquireError> {
        self.acquire_traced(n as usize).await?;
        Ok(SemaphorePermit {
            sem: self,
            permits: n as usize,
        })
    }

    /// Tries to acquire a permit from the semaphore.
    ///
    /// If the semaphore has been closed, this returns a
    /// [`TryAcquireError::Closed`] and a [`TryAcquireError::NoPermits`] if
    /// there are no permits left (or if others are waiting for them: the
    /// queue is never jumped). Otherwise, this returns a
    /// [`SemaphorePermit`] representing the acquired permits.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::{Semaphore, TryAcquireError};
    ///
    /// let semaphore = Semaphore::new(2);
    ///
    /// let permit_1 = semaphore.try_acquire().unwrap();
    /// assert_eq!(semaphore.available_permits(), 1);
    ///
    /// let permit_2 = semaphore.try_acquire().unwrap();
    /// assert_eq!(semaphore.available_permits(), 0);
    ///
    /// let permit_3 = semaphore.try_acquire();
    /// assert_eq!(permit_3.err(), Some(TryAcquireError::NoPermits));
    /// # drop((permit_1, permit_2));
    /// ```
    #[inline]
    pub fn try_acquire(&self) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        match self.ll_sem.try_acquire(1) {
            Ok(()) => Ok(SemaphorePermit {
                sem: self,
                permits: 1,
            }),
            Err(e) => Err(e),
        }
    }

    /// Tries to acquire `n` permits from the semaphore.
    ///
    /// If the semaphore has been closed, this returns a
    /// [`TryAcquireError::Closed`] and a [`TryAcquireError::NoPermits`] if
    /// there are not enough permits left. Otherwise, this returns a
    /// [`SemaphorePermit`] representing the acquired permits.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::{Semaphore, TryAcquireError};
    ///
    /// let semaphore = Semaphore::new(4);
    ///
    /// let permit_1 = semaphore.try_acquire_many(3).unwrap();
    /// assert_eq!(semaphore.available_permits(), 1);
    ///
    /// let permit_2 = semaphore.try_acquire_many(2);
    /// assert_eq!(permit_2.err(), Some(TryAcquireError::NoPermits));
    /// # drop(permit_1);
    /// ```
    pub fn try_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        match self.ll_sem.try_acquire(n as usize) {
            Ok(()) => Ok(SemaphorePermit {
                sem: self,
                permits: n as usize,
            }),
            Err(e) => Err(e),
        }
    }

    /// Acquires a permit from the semaphore, blocking the current thread.
    ///
    /// # Panics
    ///
    /// This function panics if called within an asynchronous execution
    /// context.
    ///
    /// ```
    /// let sem = volt_sync::Semaphore::new(1);
    /// let permit = sem.blocking_acquire().unwrap();
    /// assert_eq!(permit.num_permits(), 1);
    /// ```
    #[track_caller]
    pub fn blocking_acquire(&self) -> Result<SemaphorePermit<'_>, AcquireError> {
        crate::bridge::block_on(self.acquire())
    }

    /// Acquires `n` permits from the semaphore, blocking the current
    /// thread.
    ///
    /// # Panics
    ///
    /// This function panics if called within an asynchronous execution
    /// context.
    #[track_caller]
    pub fn blocking_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, AcquireError> {
        crate::bridge::block_on(self.acquire_many(n))
    }

    /// Acquires a permit from the semaphore.
    ///
    /// The semaphore must be wrapped in an [`Arc`] to call this method. If
    /// the semaphore has been closed, this returns an [`AcquireError`].
    /// Otherwise, this returns a [`OwnedSemaphorePermit`] representing the
    /// acquired permit.
    ///
    /// # Cancel safety
    ///
    /// This method uses a queue to fairly distribute permits in the order
    /// they were requested. Cancelling a call to `acquire_owned` makes you
    /// lose your place in the queue.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use volt_sync::Semaphore;
    ///
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let semaphore = Arc::new(Semaphore::new(3));
    /// let permit = semaphore.clone().acquire_owned().await.unwrap();
    /// assert_eq!(semaphore.available_permits(), 2);
    /// drop(permit);
    /// assert_eq!(semaphore.available_permits(), 3);
    /// # });
    /// ```
    #[inline]
    pub async fn acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, AcquireError> {
        self.acquire_traced(1).await?;
        Ok(OwnedSemaphorePermit {
            sem: self,
            permits: 1,
        })
    }

    /// Acquires `n` permits from the semaphore.
    ///
    /// The semaphore must be wrapped in an [`Arc`] to call this method. If
    /// the semaphore has been closed, this returns an [`AcquireError`].
    /// Otherwise, this returns a [`OwnedSemaphorePermit`] representing the
    /// acquired permits.
    ///
    /// # Cancel safety
    ///
    /// This method uses a queue to fairly distribute permits in the order
    /// they were requested. Cancelling a call to `acquire_many_owned` makes
    /// you lose your place in the queue.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use volt_sync::Semaphore;
    ///
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let semaphore = Arc::new(Semaphore::new(10));
    /// let permit = semaphore.clone().acquire_many_owned(5).await.unwrap();
    /// assert_eq!(permit.num_permits(), 5);
    /// # });
    /// ```
    pub async fn acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, AcquireError> {
        self.acquire_traced(n as usize).await?;
        Ok(OwnedSemaphorePermit {
            sem: self,
            permits: n as usize,
        })
    }

    /// Tries to acquire a permit from the semaphore.
    ///
    /// The semaphore must be wrapped in an [`Arc`] to call this method. If
    /// the semaphore has been closed, this returns a
    /// [`TryAcquireError::Closed`] and a [`TryAcquireError::NoPermits`] if
    /// there are no permits left. Otherwise, this returns a
    /// [`OwnedSemaphorePermit`] representing the acquired permit.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use volt_sync::{Semaphore, TryAcquireError};
    ///
    /// let semaphore = Arc::new(Semaphore::new(1));
    /// let permit = semaphore.clone().try_acquire_owned().unwrap();
    /// assert_eq!(semaphore.clone().try_acquire_owned().err(), Some(TryAcquireError::NoPermits));
    /// # drop(permit);
    /// ```
    #[inline]
    pub fn try_acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, TryAcquireError> {
        match self.ll_sem.try_acquire(1) {
            Ok(()) => Ok(OwnedSemaphorePermit {
                sem: self,
                permits: 1,
            }),
            Err(e) => Err(e),
        }
    }

    /// Tries to acquire `n` permits from the semaphore.
    ///
    /// The semaphore must be wrapped in an [`Arc`] to call this method. If
    /// the semaphore has been closed, this returns a
    /// [`TryAcquireError::Closed`] and a [`TryAcquireError::NoPermits`] if
    /// there are not enough permits left. Otherwise, this returns a
    /// [`OwnedSemaphorePermit`] representing the acquired permits.
    pub fn try_acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, TryAcquireError> {
        match self.ll_sem.try_acquire(n as usize) {
            Ok(()) => Ok(OwnedSemaphorePermit {
                sem: self,
                permits: n as usize,
            }),
            Err(e) => Err(e),
        }
    }

    /// Acquires a permit from the semaphore, blocking the current thread.
    ///
    /// # Panics
    ///
    /// This function panics if called within an asynchronous execution
    /// context.
    #[track_caller]
    pub fn blocking_acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, AcquireError> {
        crate::bridge::block_on(self.acquire_owned())
    }

    /// Acquires `n` permits from the semaphore, blocking the current
    /// thread.
    ///
    /// # Panics
    ///
    /// This function panics if called within an asynchronous execution
    /// context.
    #[track_caller]
    pub fn blocking_acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, AcquireError> {
        crate::bridge::block_on(self.acquire_many_owned(n))
    }

    /// Closes the semaphore.
    ///
    /// This prevents the semaphore from issuing new permits and notifies all
    /// pending waiters.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use volt_sync::{Semaphore, TryAcquireError};
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let semaphore = Arc::new(Semaphore::new(1));
    /// let semaphore2 = semaphore.clone();
    ///
    /// let join = volt_runtime::spawn(async move {
    ///     let permit = semaphore.acquire_many(2).await;
    ///     assert!(permit.is_err());
    ///     println!("waiter received error");
    /// });
    ///
    /// println!("closing semaphore");
    /// semaphore2.close();
    ///
    /// // Cannot obtain more permits
    /// assert_eq!(semaphore2.try_acquire().err(), Some(TryAcquireError::Closed));
    ///
    /// // Wait for the waiter to receive the error
    /// join.await.unwrap();
    /// # });
    /// ```
    pub fn close(&self) {
        self.ll_sem.close();
    }

    /// Returns true if the semaphore is closed
    pub fn is_closed(&self) -> bool {
        self.ll_sem.is_closed()
    }

    /// Whether tasks may be waiting for permits (a "maybe": it can stay
    /// true for a moment after the last one left). For the channels built
    /// on the semaphore; not public API.
    #[doc(hidden)]
    #[inline]
    pub fn has_waiters(&self) -> bool {
        self.ll_sem.has_waiters()
    }
}

impl fmt::Debug for Semaphore {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("Semaphore")
            .field("ll_sem", &self.ll_sem)
            .finish()
    }
}

impl<'a> SemaphorePermit<'a> {
    /// Forgets the permit **without** releasing it back to the semaphore.
    /// This can be used to reduce the amount of permits available from a
    /// semaphore.
    ///
    /// # Examples
    ///
    /// ```
    /// let sem = volt_sync::Semaphore::new(2);
    /// let permit = sem.try_acquire().unwrap();
    /// permit.forget();
    /// assert_eq!(sem.available_permits(), 1);
    /// ```
    #[inline]
    pub fn forget(mut self) {
        self.permits = 0;
    }

    /// Merge two [`SemaphorePermit`] instances together, consuming `other`
    /// without releasing the permits it holds.
    ///
    /// Permits held by both `self` and `other` are released when `self`
    /// drops.
    ///
    /// # Panics
    ///
    /// This function panics if permits from different [`Semaphore`]
    /// instances are merged.
    ///
    /// ```
    /// let sem = volt_sync::Semaphore::new(3);
    /// let mut a = sem.try_acquire().unwrap();
    /// a.merge(sem.try_acquire_many(2).unwrap());
    /// assert_eq!(a.num_permits(), 3);
    /// ```
    #[track_caller]
    pub fn merge(&mut self, mut other: Self) {
        assert!(
            std::ptr::eq(self.sem, other.sem),
            "merging permits from different semaphore instances"
        );
        self.permits = self
            .permits
            .checked_add(other.permits)
            .expect("number of permits overflowed");
        other.permits = 0;
    }

    /// Splits `n` permits from `self` and returns a new [`SemaphorePermit`]
    /// instance that holds `n` permits.
    ///
    /// If there are insufficient permits and it's not possible to reduce by
    /// `n`, returns `None`.
    ///
    /// ```
    /// let sem = volt_sync::Semaphore::new(3);
    /// let mut a = sem.try_acquire_many(3).unwrap();
    /// let b = a.split(1).unwrap();
    /// assert_eq!((a.num_permits(), b.num_permits()), (2, 1));
    /// assert!(a.split(5).is_none());
    /// ```
    pub fn split(&mut self, n: usize) -> Option<Self> {
        if n > self.permits {
            return None;
        }
        self.permits -= n;
        Some(Self {
            sem: self.sem,
            permits: n,
        })
    }

    /// Returns the [`Semaphore`] from which this permit was acquired.
    pub fn semaphore(&self) -> &'a Semaphore {
        self.sem
    }

    /// Returns the number of permits held by `self`.
    pub fn num_permits(&self) -> usize {
        self.permits
    }
}

impl OwnedSemaphorePermit {
    /// Forgets the permit **without** releasing it back to the semaphore.
    /// This can be used to reduce the amount of permits available from a
    /// semaphore.
    ///
    /// ```
    /// use std::sync::Arc;
    /// let sem = Arc::new(volt_sync::Semaphore::new(2));
    /// sem.clone().try_acquire_owned().unwrap().forget();
    /// assert_eq!(sem.available_permits(), 1);
    /// ```
    #[inline]
    pub fn forget(mut self) {
        self.permits = 0;
    }

    /// Merge two [`OwnedSemaphorePermit`] instances together, consuming
    /// `other` without releasing the permits it holds.
    ///
    /// Permits held by both `self` and `other` are released when `self`
    /// drops.
    ///
    /// # Panics
    ///
    /// This function panics if permits from different [`Semaphore`]
    /// instances are merged.
    #[track_caller]
    pub fn merge(&mut self, mut other: Self) {
        assert!(
            Arc::ptr_eq(&self.sem, &other.sem),
            "merging permits from different semaphore instances"
        );
        self.permits = self
            .permits
            .checked_add(other.permits)
            .expect("number of permits overflowed");
        other.permits = 0;
    }

    /// Splits `n` permits from `self` and returns a new
    /// [`OwnedSemaphorePermit`] instance that holds `n` permits.
    ///
    /// If there are insufficient permits and it's not possible to reduce by
    /// `n`, returns `None`.
    ///
    /// # Note
    ///
    /// It will clone the owned `Arc<Semaphore>` to construct the new
    /// instance.
    pub fn split(&mut self, n: usize) -> Option<Self> {
        if n > self.permits {
            return None;
        }
        self.permits -= n;
        Some(Self {
            sem: self.sem.clone(),
            permits: n,
        })
    }

    /// Returns the [`Semaphore`] from which this permit was acquired.
    pub fn semaphore(&self) -> &Arc<Semaphore> {
        &self.sem
    }

    /// Returns the number of permits held by `self`.
    pub fn num_permits(&self) -> usize {
        self.permits
    }
}

impl Drop for SemaphorePermit<'_> {
    #[inline]
    fn drop(&mut self) {
        // A forgotten (or merged-away) permit gives nothing back.
        if self.permits > 0 {
            self.sem.add_permits(self.permits);
        }
    }
}

impl Drop for OwnedSemaphorePermit {
    #[inline]
    fn drop(&mut self) {
        if self.permits > 0 {
            self.sem.add_permits(self.permits);
        }
    }
}
