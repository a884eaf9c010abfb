//! One place that decides whether volt's concurrency primitives come from
//! `std` or from [loom](https://docs.rs/loom).
//!
//! Every lock-free protocol in the workspace imports its atomics, cells,
//! mutexes and threads from here, never from `std` directly. A normal build
//! gets thin wrappers over `std`; a `RUSTFLAGS="--cfg loom"` build gets loom's
//! instrumented versions, so the same code is model-checked.
//!
//! The wrappers keep one API for both worlds:
//!
//! * [`cell::UnsafeCell`] exposes `with`/`with_mut` (loom's API), so loom can
//!   check every access to shared non-atomic data.
//! * [`sync::Mutex::lock`] ignores poisoning: a panic while a volt lock is held
//!   never leaves protected state half-updated (no user code runs under
//!   volt's internal locks), so poisoning carries no information.

#[cfg(not(loom))]
pub mod sync {
    //! `std::sync`, with a poison-free `Mutex`.
    pub use std::sync::Arc;

    pub mod atomic {
        //! Atomics.
        pub use std::sync::atomic::{
            AtomicBool, AtomicPtr, AtomicU8, AtomicU32, AtomicU64, AtomicUsize, Ordering, fence,
        };
    }

    /// A mutex whose `lock` never reports poisoning.
    #[derive(Debug, Default)]
    pub struct Mutex<T: ?Sized>(std::sync::Mutex<T>);

    /// Guard of [`Mutex`].
    pub type MutexGuard<'a, T> = std::sync::MutexGuard<'a, T>;

    impl<T> Mutex<T> {
        /// Creates a mutex (usable in `const`/`static` items).
        pub const fn new(value: T) -> Self {
            Mutex(std::sync::Mutex::new(value))
        }

        /// Consumes the mutex, returning the value.
        pub fn into_inner(self) -> T {
            self.0
                .into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        }
    }

    impl<T: ?Sized> Mutex<T> {
        /// Locks, ignoring poisoning.
        #[inline]
        pub fn lock(&self) -> MutexGuard<'_, T> {
            self.0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        }

        /// Locks if free.
        #[inline]
        pub fn try_lock(&self) -> Option<MutexGuard<'_, T>> {
            match self.0.try_lock() {
                Ok(guard) => Some(guard),
                Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) => None,
            }
        }

        /// Exclusive access without locking.
        pub fn get_mut(&mut self) -> &mut T {
            self.0
                .get_mut()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        }
    }

    /// A read-write lock whose methods never report poisoning.
    #[derive(Debug, Default)]
    pub struct RwLock<T>(std::sync::RwLock<T>);

    /// Read guard of [`RwLock`].
    pub type RwLockReadGuard<'a, T> = std::sync::RwLockReadGuard<'a, T>;
    /// Write guard of [`RwLock`].
    pub type RwLockWriteGuard<'a, T> = std::sync::RwLockWriteGuard<'a, T>;

    impl<T> RwLock<T> {
        /// Creates a lock.
        pub fn new(value: T) -> Self {
            RwLock(std::sync::RwLock::new(value))
        }

        /// Shared access, ignoring poisoning.
        pub fn read(&self) -> RwLockReadGuard<'_, T> {
            self.0
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        }

        /// Exclusive access, ignoring poisoning.
        pub fn write(&self) -> RwLockWriteGuard<'_, T> {
            self.0
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        }
    }

    /// A condition variable paired with [`Mutex`], ignoring poisoning.
    #[derive(Debug, Default)]
    pub struct Condvar(std::sync::Condvar);

    impl Condvar {
        /// Creates a condition variable.
        pub const fn new() -> Self {
            Condvar(std::sync::Condvar::new())
        }

        /// Blocks until notified.
        pub fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
            self.0
                .wait(guard)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        }

        /// Blocks until notified or until `dur` elapsed; `true` on timeout.
        pub fn wait_timeout<'a, T>(
            &self,
            guard: MutexGuard<'a, T>,
            dur: std::time::Duration,
        ) -> (MutexGuard<'a, T>, bool) {
            let (guard, res) = self
                .0
                .wait_timeout(guard, dur)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            (guard, res.timed_out())
        }

        /// Wakes one waiter.
        pub fn notify_one(&self) {
            self.0.notify_one();
        }

        /// Wakes every waiter.
        pub fn notify_all(&self) {
            self.0.notify_all();
        }
    }
}

#[cfg(loom)]
pub mod sync {
    //! loom's `sync`, with a poison-free `Mutex`.
    pub use loom::sync::Arc;

    pub mod atomic {
        //! Atomics.
        pub use loom::sync::atomic::{
            AtomicBool, AtomicPtr, AtomicU8, AtomicU32, AtomicU64, AtomicUsize, Ordering, fence,
        };
    }

    /// A mutex whose `lock` never reports poisoning.
    #[derive(Debug)]
    pub struct Mutex<T>(loom::sync::Mutex<T>);

    /// Guard of [`Mutex`].
    pub type MutexGuard<'a, T> = loom::sync::MutexGuard<'a, T>;

    impl<T> Mutex<T> {
        /// Creates a mutex.
        pub fn new(value: T) -> Self {
            Mutex(loom::sync::Mutex::new(value))
        }

        /// Consumes the mutex, returning the value.
        pub fn into_inner(self) -> T {
            self.0.into_inner().unwrap()
        }

        /// Locks.
        pub fn lock(&self) -> MutexGuard<'_, T> {
            self.0.lock().unwrap()
        }

        /// Locks if free.
        pub fn try_lock(&self) -> Option<MutexGuard<'_, T>> {
            self.0.try_lock().ok()
        }

        /// Exclusive access without locking.
        pub fn get_mut(&mut self) -> &mut T {
            self.0.get_mut().unwrap()
        }
    }

    impl<T: Default> Default for Mutex<T> {
        fn default() -> Self {
            Mutex::new(T::default())
        }
    }

    /// A read-write lock (loom's).
    #[derive(Debug)]
    pub struct RwLock<T>(loom::sync::RwLock<T>);

    /// Read guard of [`RwLock`].
    pub type RwLockReadGuard<'a, T> = loom::sync::RwLockReadGuard<'a, T>;
    /// Write guard of [`RwLock`].
    pub type RwLockWriteGuard<'a, T> = loom::sync::RwLockWriteGuard<'a, T>;

    impl<T> RwLock<T> {
        /// Creates a lock.
        pub fn new(value: T) -> Self {
            RwLock(loom::sync::RwLock::new(value))
        }

        /// Shared access.
        pub fn read(&self) -> RwLockReadGuard<'_, T> {
            self.0.read().unwrap()
        }

        /// Exclusive access.
        pub fn write(&self) -> RwLockWriteGuard<'_, T> {
            self.0.write().unwrap()
        }
    }

    /// A condition variable paired with [`Mutex`].
    #[derive(Debug, Default)]
    pub struct Condvar(loom::sync::Condvar);

    impl Condvar {
        /// Creates a condition variable.
        pub fn new() -> Self {
            Condvar(loom::sync::Condvar::new())
        }

        /// Blocks until notified.
        pub fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
            self.0.wait(guard).unwrap()
        }

        /// loom has no time: waits until notified and never reports a timeout.
        pub fn wait_timeout<'a, T>(
            &self,
            guard: MutexGuard<'a, T>,
            _dur: std::time::Duration,
        ) -> (MutexGuard<'a, T>, bool) {
            (self.0.wait(guard).unwrap(), false)
        }

        /// Wakes one waiter.
        pub fn notify_one(&self) {
            self.0.notify_one();
        }

        /// Wakes every waiter.
        pub fn notify_all(&self) {
            self.0.notify_all();
        }
    }
}

#[cfg(not(loom))]
pub mod cell {
    //! An `UnsafeCell` with loom's closure-based API.

    /// `std::cell::UnsafeCell` behind loom's `with`/`with_mut` API.
    #[derive(Debug, Default)]
    #[repr(transparent)]
    pub struct UnsafeCell<T: ?Sized>(std::cell::UnsafeCell<T>);

    impl<T> UnsafeCell<T> {
        /// Wraps `data`.
        #[inline]
        pub const fn new(data: T) -> UnsafeCell<T> {
            UnsafeCell(std::cell::UnsafeCell::new(data))
        }

        /// Consumes the cell.
        #[inline]
        pub fn into_inner(self) -> T {
            self.0.into_inner()
        }
    }

    impl<T: ?Sized> UnsafeCell<T> {
        /// Runs `f` with a shared raw pointer to the contents.
        #[inline(always)]
        pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
            f(self.0.get())
        }

        /// Runs `f` with a unique raw pointer to the contents.
        #[inline(always)]
        pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            f(self.0.get())
        }
    }
}

#[cfg(loom)]
pub mod cell {
    //! loom's `UnsafeCell`.
    pub use loom::cell::UnsafeCell;
}

#[cfg(not(loom))]
pub mod thread {
    //! Threads.
    pub use std::thread::{current, park, spawn, yield_now};
}

#[cfg(loom)]
pub mod thread {
    //! loom's threads.
    pub use loom::thread::{current, park, spawn, yield_now};
}

/// Tells the CPU (or loom) that this thread is spinning.
#[inline]
pub fn spin_loop() {
    #[cfg(not(loom))]
    std::hint::spin_loop();
    #[cfg(loom)]
    loom::thread::yield_now();
}

#[cfg(loom)]
pub use loom::model;
