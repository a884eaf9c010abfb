//! Task ids.

use std::fmt;
use std::num::NonZeroU64;

/// An opaque ID that uniquely identifies a task relative to all other
/// currently running tasks.
///
/// A task's ID may be re-used for another task only once *both* of the
/// following happen:
/// 1. The task itself exits.
/// 2. There is no active [`JoinHandle`] associated with this task.
///
/// A [`JoinHandle`] is considered active in the following situations:
/// - You are explicitly holding a [`JoinHandle`] or [`AbortHandle`].
/// - The task is being tracked by a `JoinSet`.
///
/// # Notes
///
/// - Task IDs are *not* sequential, and do not indicate the order in which
///   tasks are spawned, what runtime a task is spawned on, or any other data.
/// - The task ID of the currently running task can be obtained from inside
///   the task via the [`task::try_id()`](crate::task::try_id()) and
///   [`task::id()`](crate::task::id()) functions and from outside the task
///   via the [`JoinHandle::id()`](crate::task::JoinHandle::id()) function.
///
/// [`JoinHandle`]: crate::task::JoinHandle
/// [`AbortHandle`]: crate::task::AbortHandle
#[derive(Clone, Copy, Debug, Hash, Eq, PartialEq, PartialOrd, Ord)]
pub struct Id(pub(crate) NonZeroU64);

/// Returns the [`Id`] of the currently running task.
///
/// # Panics
///
/// This function panics if called from outside a task. Please note that calls
/// to `block_on` do not have task IDs, so the method will panic if called from
/// within a call to `block_on`. For a version of this function that doesn't
/// panic, see [`task::try_id()`](crate::task::try_id()).
///
/// # Examples
///
/// ```
/// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
/// let handle = volt_runtime::spawn(async { volt_runtime::task::id() });
/// let id = handle.id();
/// assert_eq!(handle.await.unwrap(), id);
/// # });
/// ```
#[track_caller]
pub fn id() -> Id {
    crate::context::current_task_id().expect("Can't get a task id when not inside a task")
}

/// Returns the [`Id`] of the currently running task, or `None` if called
/// outside of a task.
///
/// This function is similar to [`task::id()`](crate::task::id()), except
/// that it returns `None` rather than panicking if called outside of a task
/// context.
///
/// # Examples
///
/// ```
/// assert!(volt_runtime::task::try_id().is_none());
/// ```
#[track_caller]
pub fn try_id() -> Option<Id> {
    crate::context::current_task_id()
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// How many ids a thread takes from the global counter at a time.
const ID_BATCH: u64 = 256;

impl Id {
    /// A fresh id.
    ///
    /// Each thread takes a batch of ids from one global counter, so spawning
    /// on many cores does not make them all hit the same cache line.
    pub(crate) fn next() -> Id {
        use std::cell::Cell;
        use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

        // Not a loom atomic on purpose: id allocation is no part of any
        // protocol, only uniqueness matters.
        static NEXT_BATCH: AtomicU64 = AtomicU64::new(1);
        std::thread_local! {
            static RANGE: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
        }

        let from_batch = RANGE
            .try_with(|range| {
                let (mut next, mut end) = range.get();
                if next == end {
                    // Relaxed: uniqueness only needs the atomicity of the add.
                    next = NEXT_BATCH.fetch_add(ID_BATCH, Relaxed);
                    end = next + ID_BATCH;
                }
                range.set((next + 1, end));
                next
            })
            // The thread is being torn down: take a single id.
            .unwrap_or_else(|_| NEXT_BATCH.fetch_add(1, Relaxed));
        Id(NonZeroU64::new(from_batch).expect("task id overflow"))
    }

    #[cfg(all(test, not(loom)))]
    pub(crate) fn from_u64(n: u64) -> Id {
        Id(NonZeroU64::new(n).unwrap())
    }

    /// The id as a number (for tracing and metrics).
    pub(crate) fn as_u64(&self) -> u64 {
        self.0.get()
    }
}
