//! Owned write guards (they keep the lock alive through an `Arc`).

use super::RwLock;
use super::read_guard::OwnedRwLockReadGuard;

use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops;
use std::sync::Arc;

/// Owned RAII structure used to release the exclusive write access of a
/// lock when dropped.
///
/// This structure is created by the [`write_owned`] method
/// on [`RwLock`].
///
/// [`write_owned`]: method@crate::RwLock::write_owned
/// [`RwLock`]: struct@crate::RwLock
#[clippy::has_significant_drop]
pub struct OwnedRwLockWriteGuard<T: ?Sized> {
    permits_acquired: u32,
    lock: Arc<RwLock<T>>,
    data: *mut T,
    _p: PhantomData<T>,
}

/// Owned RAII structure used to release the exclusive write access of a
/// lock when dropped.
///
/// This structure is created by [mapping] an [`OwnedRwLockWriteGuard`]. It
/// is a separate type from `OwnedRwLockWriteGuard` to disallow downgrading a
/// mapped guard, since doing so can cause undefined behavior.
///
/// [mapping]: method@crate::OwnedRwLockWriteGuard::map
/// [`OwnedRwLockWriteGuard`]: struct@crate::OwnedRwLockWriteGuard
#[clippy::has_significant_drop]
pub struct OwnedRwLockMappedWriteGuard<T: ?Sized, U: ?Sized = T> {
    permits_acquired: u32,
    lock: Arc<RwLock<T>>,
    data: *mut U,
    _p: PhantomData<T>,
}

// SAFETY: an exclusive reference to the data plus the `Arc`: moving or
// sharing it needs the data to be `Send + Sync`.
unsafe impl<T> Sync for OwnedRwLockWriteGuard<T> where T: ?Sized + Send + Sync {}
// SAFETY: as above.
unsafe impl<T> Send for OwnedRwLockWriteGuard<T> where T: ?Sized + Send + Sync {}
// SAFETY: as above.
unsafe impl<T, U> Sync for OwnedRwLockMappedWriteGuard<T, U>
where
    T: ?Sized + Send + Sync,
    U: ?Sized + Send + Sync,
{
}
// SAFETY: as above.
unsafe impl<T, U> Send for OwnedRwLockMappedWriteGuard<T, U>
where
    T: ?Sized + Send + Sync,
    U: ?Sized + Send + Sync,
{
}

impl<T: ?Sized> OwnedRwLockWriteGuard<T> {
    pub(super) fn new(lock: Arc<RwLock<T>>) -> Self {
        let data = lock.c.with_mut(|p| p);
        OwnedRwLockWriteGuard {
            permits_acquired: lock.mr,
            lock,
            data,
            _p: PhantomData,
        }
    }

    /// Takes the `Arc` out without releasing the permits.
    fn into_parts(self) -> (u32, Arc<RwLock<T>>) {
        let me = ManuallyDrop::new(self);
        // SAFETY: `me` is never used again nor dropped.
        (me.permits_acquired, unsafe { std::ptr::read(&me.lock) })
    }

    /// Makes a new [`OwnedRwLockMappedWriteGuard`] for a component of the
    /// locked data.
    ///
    /// This operation cannot fail as the `OwnedRwLockWriteGuard` passed in
    /// already locked the data.
    ///
    /// This is an associated function that needs to be used as
    /// `OwnedRwLockWriteGuard::map(..)`. A method would interfere with
    /// methods of the same name on the contents of the locked data.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use volt_sync::{RwLock, OwnedRwLockWriteGuard};
    ///
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let lock = Arc::new(RwLock::new((1u32, 2u32)));
    /// {
    ///     let mut mapped = OwnedRwLockWriteGuard::map(lock.clone().write_owned().await, |f| &mut f.0);
    ///     *mapped = 5;
    /// }
    /// assert_eq!(*lock.read().await, (5, 2));
    /// # });
    /// ```
    #[inline]
    pub fn map<F, U: ?Sized>(mut this: Self, f: F) -> OwnedRwLockMappedWriteGuard<T, U>
    where
        F: FnOnce(&mut T) -> &mut U,
    {
        let data = f(&mut *this) as *mut U;
        let (permits_acquired, lock) = this.into_parts();
        OwnedRwLockMappedWriteGuard {
            permits_acquired,
            lock,
            data,
            _p: PhantomData,
        }
    }

    /// Makes a new [`OwnedRwLockReadGuard`] for a component of the locked
    /// data, atomically downgrading the lock.
    ///
    /// This is an associated function that needs to be used as
    /// `OwnedRwLockWriteGuard::downgrade_map(..)`. A method would interfere
    /// with methods of the same name on the contents of the locked data.
    #[inline]
    pub fn downgrade_map<F, U: ?Sized>(this: Self, f: F) -> OwnedRwLockReadGuard<T, U>
    where
        F: FnOnce(&T) -> &U,
    {
        let data = f(&*this) as *const U;
        let (permits_acquired, lock) = this.into_parts();
        lock.s.release((permits_acquired - 1) as usize);
        OwnedRwLockReadGuard::from_parts(lock, data)
    }

    /// Attempts to make a new [`OwnedRwLockMappedWriteGuard`] for a
    /// component of the locked data. The original guard is returned if the
    /// closure returns `None`.
    ///
    /// This is an associated function that needs to be used as
    /// `OwnedRwLockWriteGuard::try_map(...)`. A method would interfere with
    /// methods of the same name on the contents of the locked data.
    #[inline]
    pub fn try_map<F, U: ?Sized>(
        mut this: Self,
        f: F,
    ) -> Result<OwnedRwLockMappedWriteGuard<T, U>, Self>
    where
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        let data = match f(&mut *this) {
            Some(data) => data as *mut U,
            None => return Err(this),
        };
        let (permits_acquired, lock) = this.into_parts();
        Ok(OwnedRwLockMappedWriteGuard {
            permits_acquired,
            lock,
            data,
            _p: PhantomData,
        })
    }

    /// Attempts to make a new [`OwnedRwLockReadGuard`] for a component of
    /// the locked data, atomically downgrading the lock. The original guard
    /// is returned if the closure returns `None`.
    ///
    /// If this function returns `Err(...)`, the lock is never unlocked nor
    /// downgraded.
    #[inline]
    pub fn try_downgrade_map<F, U: ?Sized>(
        this: Self,
        f: F,
    ) -> Result<OwnedRwLockReadGuard<T, U>, Self>
    where
        F: FnOnce(&T) -> Option<&U>,
    {
        let data = match f(&*this) {
            Some(data) => data as *const U,
            None => return Err(this),
        };
        let (permits_acquired, lock) = this.into_parts();
        lock.s.release((permits_acquired - 1) as usize);
        Ok(OwnedRwLockReadGuard::from_parts(lock, data))
    }

    /// Converts this `OwnedRwLockWriteGuard` into an
    /// `OwnedRwLockMappedWriteGuard`. This method can be used to store a
    /// non-mapped guard in a struct field that expects a mapped guard.
    ///
    /// This is equivalent to calling `OwnedRwLockWriteGuard::map(guard,
    /// |me| me)`.
    #[inline]
    pub fn into_mapped(this: Self) -> OwnedRwLockMappedWriteGuard<T> {
        Self::map(this, |me| me)
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
    /// ```
    /// use std::sync::Arc;
    /// use volt_sync::RwLock;
    ///
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let lock = Arc::new(RwLock::new(1));
    /// let w = lock.clone().write_owned().await;
    /// let r = w.downgrade();
    /// assert_eq!(*r, 1);
    /// assert!(lock.try_read().is_ok());
    /// assert!(lock.try_write().is_err());
    /// # });
    /// ```
    ///
    /// [`RwLock`]: struct@crate::RwLock
    pub fn downgrade(self) -> OwnedRwLockReadGuard<T> {
        let data = self.data as *const T;
        let (permits_acquired, lock) = self.into_parts();
        lock.s.release((permits_acquired - 1) as usize);
        OwnedRwLockReadGuard::from_parts(lock, data)
    }

    /// Returns a reference to the original `Arc<RwLock>`.
    pub fn rwlock(this: &Self) -> &Arc<RwLock<T>> {
        &this.lock
    }
}

impl<T: ?Sized> ops::Deref for OwnedRwLockWriteGuard<T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: the guard holds every permit: it is the only accessor.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> ops::DerefMut for OwnedRwLockWriteGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as `deref`, and `&mut self` is unique.
        unsafe { &mut *self.data }
    }
}

impl<T> fmt::Debug for OwnedRwLockWriteGuard<T>
where
    T: fmt::Debug + ?Sized,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T> fmt::Display for OwnedRwLockWriteGuard<T>
where
    T: fmt::Display + ?Sized,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl<T: ?Sized> Drop for OwnedRwLockWriteGuard<T> {
    fn drop(&mut self) {
        self.lock.s.release(self.permits_acquired as usize);
    }
}

impl<T: ?Sized, U: ?Sized> OwnedRwLockMappedWriteGuard<T, U> {
    /// Takes the `Arc` out without releasing the permits.
    fn into_parts(self) -> (u32, Arc<RwLock<T>>) {
        let me = ManuallyDrop::new(self);
        // SAFETY: `me` is never used again nor dropped.
        (me.permits_acquired, unsafe { std::ptr::read(&me.lock) })
    }

    /// Makes a new `OwnedRwLockMappedWriteGuard` for a component of the
    /// locked data.
    ///
    /// This is an associated function that needs to be used as
    /// `OwnedRwLockMappedWriteGuard::map(..)`. A method would interfere with
    /// methods of the same name on the contents of the locked data.
    #[inline]
    pub fn map<F, V: ?Sized>(mut this: Self, f: F) -> OwnedRwLockMappedWriteGuard<T, V>
    where
        F: FnOnce(&mut U) -> &mut V,
    {
        let data = f(&mut *this) as *mut V;
        let (permits_acquired, lock) = this.into_parts();
        OwnedRwLockMappedWriteGuard {
            permits_acquired,
            lock,
            data,
            _p: PhantomData,
        }
    }

    /// Attempts to make a new `OwnedRwLockMappedWriteGuard` for a component
    /// of the locked data. The original guard is returned if the closure
    /// returns `None`.
    ///
    /// This is an associated function that needs to be used as
    /// `OwnedRwLockMappedWriteGuard::try_map(...)`. A method would interfere
    /// with methods of the same name on the contents of the locked data.
    #[inline]
    pub fn try_map<F, V: ?Sized>(
        mut this: Self,
        f: F,
    ) -> Result<OwnedRwLockMappedWriteGuard<T, V>, Self>
    where
        F: FnOnce(&mut U) -> Option<&mut V>,
    {
        let data = match f(&mut *this) {
            Some(data) => data as *mut V,
            None => return Err(this),
        };
        let (permits_acquired, lock) = this.into_parts();
        Ok(OwnedRwLockMappedWriteGuard {
            permits_acquired,
            lock,
            data,
            _p: PhantomData,
        })
    }

    /// Returns a reference to the original `Arc<RwLock>`.
    pub fn rwlock(this: &Self) -> &Arc<RwLock<T>> {
        &this.lock
    }
}

impl<T: ?Sized, U: ?Sized> ops::Deref for OwnedRwLockMappedWriteGuard<T, U> {
    type Target = U;

    fn deref(&self) -> &U {
        // SAFETY: the guard holds every permit: it is the only accessor.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized, U: ?Sized> ops::DerefMut for OwnedRwLockMappedWriteGuard<T, U> {
    fn deref_mut(&mut self) -> &mut U {
        // SAFETY: as `deref`, and `&mut self` is unique.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized, U: ?Sized> fmt::Debug for OwnedRwLockMappedWriteGuard<T, U>
where
    U: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized, U: ?Sized> fmt::Display for OwnedRwLockMappedWriteGuard<T, U>
where
    U: fmt::Display,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl<T: ?Sized, U: ?Sized> Drop for OwnedRwLockMappedWriteGuard<T, U> {
    fn drop(&mut self) {
        self.lock.s.release(self.permits_acquired as usize);
    }
}
