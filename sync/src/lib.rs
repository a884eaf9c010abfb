//! Synchronization primitives for use in asynchronous contexts
//! (`volt::sync`).
//!
//! Everything here has tokio's API (`tokio::sync::Mutex` becomes
//! `volt::sync::Mutex` and so on) and keeps tokio's guarantees: fair, FIFO
//! acquisition; cancel safety as documented on each method; waiting
//! futures that work on any executor.
//!
//! What differs is the inside. Every lock is built on one batch semaphore
//! ([`Semaphore`]; a [`Mutex`] is a semaphore of one permit, an [`RwLock`]
//! a semaphore of `max_readers` permits where a writer takes them all),
//! whose waiters are intrusive nodes inside the waiting futures (waiting
//! allocates nothing), and whose first waiter sits in a lock-free slot that
//! a release serves with a single compare-and-swap.
//!
//! # Overview
//!
//! * [`Semaphore`]: limit the amount of concurrency; permits are handed out
//!   in the order they were requested.
//! * [`Mutex`]: mutual exclusion, with a guard that may be held across
//!   `.await` points.
//! * [`RwLock`]: many readers or one writer; writers are not starved
//!   (a queued writer blocks later readers).
//! * [`Notify`]: notify one task (or all waiting ones) of an event.
//! * [`Barrier`]: wait until a number of tasks reach a point.
//! * [`OnceCell`], [`SetOnce`]: values initialized once.

mod barrier;
mod batch_semaphore;
mod mutex;
mod notify;
mod once_cell;
mod rwlock;
mod semaphore;
mod set_once;
#[doc(hidden)]
pub mod trace;

/// `tracing`, for `__trace_state!` (not public API).
#[cfg(feature = "tracing")]
#[doc(hidden)]
pub use volt_runtime::__tracing as __bridge_tracing;

#[doc(hidden)]
pub use volt_runtime::bridge as __bridge;
use volt_runtime::bridge;

pub use barrier::{Barrier, BarrierWaitResult};
pub use batch_semaphore::{AcquireError, TryAcquireError};
pub use notify::Notify;

pub mod futures {
    //! Named future types.
    pub use crate::notify::{Notified, OwnedNotified};
}
pub use mutex::{
    MappedMutexGuard, Mutex, MutexGuard, OwnedMappedMutexGuard, OwnedMutexGuard, TryLockError,
};
pub use once_cell::{OnceCell, SetError};
pub use rwlock::{
    OwnedRwLockMappedWriteGuard, OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock,
    RwLockMappedWriteGuard, RwLockReadGuard, RwLockWriteGuard,
};
pub use semaphore::{OwnedSemaphorePermit, Semaphore, SemaphorePermit};
pub use set_once::{SetOnce, SetOnceError};
