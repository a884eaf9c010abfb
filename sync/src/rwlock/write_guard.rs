//! Borrowed write guards: each holds all of the lock's permits.

use super::read_guard::RwLockReadGuard;
use crate::batch_semaphore::Semaphore;

use std::fmt;
use std::marker::PhantomData;
use std::mem;
use std::ops;

/// RAII structure used to release the exclusive write access of a lock when
/// dropped.
///
/// This structure is created by the [`write`] method
/// on [`RwLock`].
///
/// [`write`]: method@crate::RwLock::write
/// [`RwLock`]: struct@crate::RwLock
#[clippy::has_significant_drop]
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockWriteGuard<'a, T: ?Sized> {
    permits_acquired: u32,
    s: &'a Semaphore,
    data: *mut T,
    marker: PhantomData<&'a mut T>,
}

/// RAII structure used to release the exclusive write access of a lock when
/// dropped.
///
/// This structure is created by [mapping] an [`RwLockWriteGuard`]. It is a
/// separate type from `RwLockWriteGuard` to disallow downgrading a mapped
/// guard, since doing so can cause undefined behavior.
///
/// [mapping]: method@crate::RwLockWriteGuard::map
/// [`RwLockWriteGuard`]: struct@crate::RwLockWriteGuard
#[clippy::has_significant_drop]
pub struct RwLockMappedWriteGuard<'a, T: ?Sized> {
    permits_acquired: u32,
    s: &'a Semaphore,
    data: *mut T,
    marker: PhantomData<&'a mut T>,
}

// SAFETY: a write guard is an exclusive reference to the data; moving or
// sharing it needs the data to be `Send + Sync` (it came through the lock).
unsafe impl<T> Sync for RwLockWriteGuard<'_, T> where T: ?Sized + Send + Sync {}
// SAFETY: as above.
unsafe impl<T> Sync for RwLockMappedWriteGuard<'_, T> where T: ?Sized + Send + Sync {}
// SAFETY: as above.
unsafe impl<T> Send for RwLockWriteGuard<'_, T> where T: ?Sized + Send + Sync {}
// SAFETY: as above.
unsafe impl<T> Send for RwLockMappedWriteGuard<'_, T> where T: ?Sized + Send + Sync {}

impl<'a, T: ?Sized> RwLockWriteGuard<'a, T> {
    /// # Safety
    /// The caller holds `permits_acquired` (all) permits of `s`, and `data`
    /// points to the lock's value.
    pub(super) unsafe fn new(permits_acquired: u32, s: &'a Semaphore, data: *mut T) -> Self {
        RwLockWriteGuard {
            permits_acquired,
            s,
            data,
            marker: PhantomData,
        }
    }

    /// Makes a new [`RwLockMappedWriteGuard`] for a component of the locked
    /// data.
    ///
    /// This operation cannot fail as the `RwLockWriteGuard` passed in
    /// already locked the data.
    ///
    /// This is an associated function that needs to be used as
    /// `RwLockWriteGuard::map(..)`. A method would interfere with methods of
    /// the same name on the contents of the locked data.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::{RwLock, RwLockWriteGuard};
    ///
    /// #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    /// struct Foo(u32);
    ///
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let lock = RwLock::new(Foo(1));
    ///
    /// {
    ///     let mut mapped = RwLockWriteGuard::map(lock.write().await, |f| &mut f.0);
    ///     *mapped = 2;
    /// }
    ///
    /// assert_eq!(Foo(2), *lock.read().await);
    /// # });
    /// ```
    #[inline]
    pub fn map<F, U: ?Sized>(mut this: Self, f: F) -> RwLockMappedWriteGuard<'a, U>
    where
        F: FnOnce(&mut T) -> &mut U,
    {
        let data = f(&mut *this) as *mut U;
        let (permits_acquired, s) = (this.permits_acquired, this.s);
        mem::forget(this);
        RwLockMappedWriteGuard {
            permits_acquired,
            s,
            data,
            marker: PhantomData,
        }
    }

    /// Makes a new [`RwLockReadGuard`] for a component of the locked data.
    ///
    /// This operation cannot fail as the `RwLockWriteGuard` passed in
    /// already locked the data.
    ///
    /// This is an associated function that needs to be used as
    /// `RwLockWriteGuard::downgrade_map(..)`. A method would interfere with
    /// methods of the same name on the contents of the locked data.
    ///
    /// This is equivalent to a combination of asynchronous [`downgrade`]
    /// and [`RwLockReadGuard::map`], but done simultaneously: the lock
    /// never becomes free in between.
    ///
    /// [`downgrade`]: RwLockWriteGuard::downgrade
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::{RwLock, RwLockWriteGuard};
    ///
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let lock = RwLock::new((1u32, 2u32));
    /// let mapped = RwLockWriteGuard::downgrade_map(lock.write().await, |f| &f.1);
    /// assert_eq!(*mapped, 2);
    /// // Others may read now.
    /// assert_eq!(lock.try_read().unwrap().0, 1);
    /// # });
    /// ```
    #[inline]
    pub fn downgrade_map<F, U: ?Sized>(this: Self, f: F) -> RwLockReadGuard<'a, U>
    where
        F: FnOnce(&T) -> &U,
    {
        let data = f(&*this) as *const U;
        let (permits_acquired, s) = (this.permits_acquired, this.s);
        mem::forget(this);
        // Keep one permit: the read guard's.
        s.release((permits_acquired - 1) as usize);
        // SAFETY: we hold one read permit, and `data` points into the value.
        unsafe { RwLockReadGuard::new(s, data) }
    }

    /// Attempts to make a new [`RwLockMappedWriteGuard`] for a component of
    /// the locked data. The original guard is returned if the closure
    /// returns `None`.
    ///
    /// This operation cannot fail as the `RwLockWriteGuard` passed in
    /// already locked the data.
    ///
    /// This is an associated function that needs to be used as
    /// `RwLockWriteGuard::try_map(...)`. A method would interfere with
    /// methods of the same name on the contents of the locked data.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::{RwLock, RwLockWriteGuard};
    ///
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let lock = RwLock::new(vec![1]);
    /// let mut first = RwLockWriteGuard::try_map(lock.write().await, |v| v.first_mut()).unwrap();
    /// *first = 5;
    /// drop(first);
    /// assert_eq!(*lock.read().await, vec![5]);
    /// # });
    /// ```
    #[inline]
    pub fn try_map<F, U: ?Sized>(
        mut this: Self,
        f: F,
    ) -> Result<RwLockMappedWriteGuard<'a, U>, Self>
    where
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        let data = match f(&mut *this) {
            Some(data) => data as *mut U,
            None => return Err(this),
        };
        let (permits_acquired, s) = (this.permits_acquired, this.s);
        mem::forget(this);
        Ok(RwLockMappedWriteGuard {
            permits_acquired,
            s,
            data,
            marker: PhantomData,
        })
    }

    /// Attempts to make a new [`RwLockReadGuard`] for a component of the
    /// locked data. The original guard is returned if the closure returns
    /// `None`.
    ///
    /// This operation cannot fail as the `RwLockWriteGuard` passed in
    /// already locked the data.
    ///
    /// This is an associated function that needs to be used as
    /// `RwLockWriteGuard::try_downgrade_map(...)`. A method would interfere
    /// with methods of the same name on the contents of the locked data.
    ///
    /// If this function returns `Err(...)`, the lock is never unlocked nor
    /// downgraded.
    #[inline]
    pub fn try_downgrade_map<F, U: ?Sized>(this: Self, f: F) -> Result<RwLockReadGuard<'a, U>, Self>
    where
        F: FnOnce(&T) -> Option<&U>,
    {
        let data = match f(&*this) {
            Some(data) => data as *const U,
            None => return Err(this),
        };
        let (permits_acquired, s) = (this.permits_acquired, this.s);
        mem::forget(this);
        s.release((permits_acquired - 1) as usize);
        // SAFETY: we hold one read permit, and `data` points into the value.
        Ok(unsafe { RwLockReadGuard::new(s, data) })
    }

    /// Converts this `RwLockWriteGuard` into an `RwLockMappedWriteGuard`.
    /// This method can be used to store a non-mapped guard in a struct
    /// field that expects a mapped guard.
    ///
    /// This is equivalent to calling `RwLockWriteGuard::map(guard, |me|
    /// me)`.
    #[inline]
    pub fn into_mapped(this: Self) -> RwLockMappedWriteGuard<'a, T> {
        RwLockWriteGuard::map(this, |me| me)
    }

    /// Atomically downgrades a write lock into a read lock without allowing
    /// any writers to take exclusive access of the lock in the meantime.
    ///
    /// **Note:** This won't *necessarily* allow any additional readers to
    /// acquire locks, since [`RwLock`] is fair and it is possible that a
    /// writer is next in line.
    ///
    /// Returns an RAII guard which will drop this read access of the
    /// `RwLock` when dropped.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_sync::RwLock;
    /// use std::sync::Arc;
    ///
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let lock = Arc::new(RwLock::new(1));
    ///
    /// let n = lock.write().await;
    ///
    /// let cloned_lock = lock.clone();
    /// let handle = volt_runtime::spawn(async move {
    ///     *cloned_lock.write().await = 2;
    /// });
    ///
    /// let n = n.downgrade();
    /// assert_eq!(*n, 1, "downgrade is atomic");
    ///
    /// drop(n);
    /// handle.await.unwrap();
    /// assert_eq!(*lock.read().await, 2, "second writer obtained write lock");
    /// # });
    /// ```
    ///
    /// [`RwLock`]: struct@crate::RwLock
    pub fn downgrade(self) -> RwLockReadGuard<'a, T> {
        let (permits_acquired, s, data) = (self.permits_acquired, self.s, self.data);
        mem::forget(self);
        // Release all but one of the permits held by the write guard.
        s.release((permits_acquired - 1) as usize);
        // SAFETY: we hold one read permit, and `data` points to the value.
        unsafe { RwLockReadGuard::new(s, data) }
    }
}

impl<T: ?Sized> ops::Deref for RwLockWriteGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: the guard holds every permit: it is the only accessor.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> ops::DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as `deref`, and `&mut self` is unique.
        unsafe { &mut *self.data }
    }
}

impl<'a, T> fmt::Debug for RwLockWriteGuard<'a, T>
where
    T: fmt::Debug + ?Sized,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<'a, T> fmt::Display for RwLockWriteGuard<'a, T>
where
    T: fmt::Display + ?Sized,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl<'a, T: ?Sized> Drop for RwLockWriteGuard<'a, T> {
    fn drop(&mut self) {
        self.s.release(self.permits_acquired as usize);
    }
}

impl<'a, T: ?Sized> RwLockMappedWriteGuard<'a, T> {
    /// Makes a new `RwLockMappedWriteGuard` for a component of the locked
    /// data.
    ///
    /// This operation cannot fail as the `RwLockMappedWriteGuard` passed in
    /// already locked the data.
    ///
    /// This is an associated function that needs to be used as
    /// `RwLockMappedWriteGuard::map(..)`. A method would interfere with
    /// methods of the same name on the contents of the locked data.
    ///
    /// ```
    /// use volt_sync::{RwLock, RwLockWriteGuard, RwLockMappedWriteGuard};
    ///
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let lock = RwLock::new(((1u8, 2u8), 3u8));
    /// let outer = RwLockWriteGuard::map(lock.write().await, |f| &mut f.0);
    /// let mut inner = RwLockMappedWriteGuard::map(outer, |f| &mut f.1);
    /// *inner = 9;
    /// drop(inner);
    /// assert_eq!(*lock.read().await, ((1, 9), 3));
    /// # });
    /// ```
    #[inline]
    pub fn map<F, U: ?Sized>(mut this: Self, f: F) -> RwLockMappedWriteGuard<'a, U>
    where
        F: FnOnce(&mut T) -> &mut U,
    {
        let data = f(&mut *this) as *mut U;
        let (permits_acquired, s) = (this.permits_acquired, this.s);
        mem::forget(this);
        RwLockMappedWriteGuard {
            permits_acquired,
            s,
            data,
            marker: PhantomData,
        }
    }

    /// Attempts to make a new [`RwLockMappedWriteGuard`] for a component of
    /// the locked data. The original guard is returned if the closure
    /// returns `None`.
    ///
    /// This is an associated function that needs to be used as
    /// `RwLockMappedWriteGuard::try_map(...)`. A method would interfere with
    /// methods of the same name on the contents of the locked data.
    #[inline]
    pub fn try_map<F, U: ?Sized>(
        mut this: Self,
        f: F,
    ) -> Result<RwLockMappedWriteGuard<'a, U>, Self>
    where
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        let data = match f(&mut *this) {
            Some(data) => data as *mut U,
            None => return Err(this),
        };
        let (permits_acquired, s) = (this.permits_acquired, this.s);
        mem::forget(this);
        Ok(RwLockMappedWriteGuard {
            permits_acquired,
            s,
            data,
            marker: PhantomData,
        })
    }
}

impl<T: ?Sized> ops::Deref for RwLockMappedWriteGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: the guard holds every permit: it is the only accessor.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> ops::DerefMut for RwLockMappedWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as `deref`, and `&mut self` is unique.
        unsafe { &mut *self.data }
    }
}

impl<'a, T> fmt::Debug for RwLockMappedWriteGuard<'a, T>
where
    T: fmt::Debug + ?Sized,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<'a, T> fmt::Display for RwLockMappedWriteGuard<'a, T>
where
    T: fmt::Display + ?Sized,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl<'a, T: ?Sized> Drop for RwLockMappedWriteGuard<'a, T> {
    fn drop(&mut self) {
        self.s.release(self.permits_acquired as usize);
    }
}
