//! Utilities for improved cooperative scheduling.
//!
//! ### Cooperative scheduling
//!
//! A single call to [`poll`] on a top-level task may potentially do a lot of
//! work before it returns `Poll::Pending`. If a task runs for a long period
//! of time without yielding back to the executor, it can starve other tasks
//! waiting on that executor to execute them, or drive underlying resources.
//! Since Rust does not have a runtime, it is difficult to forcibly preempt a
//! long-running task. Instead, this module provides an opt-in mechanism for
//! futures to collaborate with the executor to avoid starvation.
//!
//! Consider a future that drains an always-ready stream of values: it never
//! returns `Pending`, so if it is spawned it never yields, and starves every
//! other task and resource on the same worker.
//!
//! To account for this, volt has explicit yield points in a number of
//! library functions, which force tasks to return to the executor
//! periodically.
//!
//! #### Budget
//!
//! Each task is given a budget of 128 "units" every time it is polled by the
//! scheduler. Every leaf future that takes part (`JoinHandle`, volt's locks,
//! semaphores and channels...) consumes one unit when it completes. Once the
//! budget is spent, those futures return `Pending` (after waking the task)
//! until the task yields back to the scheduler, which then refills it.
//!
//! # How the rest of volt uses it
//!
//! The budget lives in the thread-local context. The scheduler calls
//! [`budget`] around every task poll; leaf futures call [`poll_proceed`]
//! before they complete and, if they end up `Pending` after all, the returned
//! [`RestoreOnPending`] gives the unit back. A future polled outside any
//! volt runtime (another executor) runs with an unconstrained budget.
//!
//! [`poll`]: method@std::future::Future::poll

use crate::context;

#[cfg(feature = "rt")]
use pin_project_lite::pin_project;
use std::cell::Cell;
#[cfg(feature = "rt")]
use std::future::Future;
use std::marker::PhantomData;
#[cfg(feature = "rt")]
use std::pin::Pin;
#[cfg(feature = "rt")]
use std::task::ready;
use std::task::{Context, Poll};

/// Opaque type tracking the amount of "work" a task may still do before
/// yielding back to the scheduler.
#[derive(Debug, Copy, Clone)]
pub(crate) struct Budget(Option<u8>);

impl Budget {
    /// Budget assigned to a task on each poll (as tokio).
    const fn initial() -> Budget {
        Budget(Some(128))
    }

    /// No limit: operations never yield for budget reasons.
    pub(crate) const fn unconstrained() -> Budget {
        Budget(None)
    }

    fn has_remaining(self) -> bool {
        self.0.is_none_or(|budget| budget > 0)
    }

    fn is_unconstrained(self) -> bool {
        self.0.is_none()
    }

    /// Takes one unit; `false` if none is left.
    fn decrement(&mut self) -> bool {
        match &mut self.0 {
            Some(0) => false,
            Some(n) => {
                *n -= 1;
                true
            }
            None => true,
        }
    }
}

/// Runs `f` with a fresh task budget, restoring the previous one after.
#[inline(always)]
pub(crate) fn budget<R>(f: impl FnOnce() -> R) -> R {
    with_budget(Budget::initial(), f)
}

/// Runs `f` with an unconstrained budget, restoring the previous one after.
#[cfg(feature = "rt")]
#[inline(always)]
pub(crate) fn with_unconstrained<R>(f: impl FnOnce() -> R) -> R {
    with_budget(Budget::unconstrained(), f)
}

#[inline(always)]
fn with_budget<R>(budget: Budget, f: impl FnOnce() -> R) -> R {
    struct ResetGuard {
        prev: Budget,
    }
    impl Drop for ResetGuard {
        fn drop(&mut self) {
            let _ = context::budget(|cell| cell.set(self.prev));
        }
    }
    let maybe_guard = context::budget(|cell| {
        let prev = cell.get();
        cell.set(budget);
        ResetGuard { prev }
    });
    // The guard resets the budget when `f` returns or unwinds.
    let _guard = maybe_guard.ok();
    f()
}

/// Replaces the current budget (used when a worker steals back its core).
#[cfg(feature = "rt-multi-thread")]
pub(crate) fn set(budget: Budget) {
    let _ = context::budget(|cell| cell.set(budget));
}

/// Makes the budget unconstrained and returns the previous one.
#[cfg(feature = "rt")]
pub(crate) fn stop() -> Budget {
    context::budget(|cell| cell.replace(Budget::unconstrained())).unwrap_or(Budget::unconstrained())
}

/// Returns `true` if there is still budget left on the task.
///
/// # Examples
///
/// This example defines a `Timeout` future that requires a given `future`
/// to complete before the specified duration elapses. If it does, its result
/// is returned; otherwise, an error is returned and the future is canceled.
///
/// Note that the future could exhaust the budget before we evaluate the
/// timeout. Using `has_budget_remaining`, we can detect this scenario and
/// ensure the timeout is always checked.
///
/// ```
/// # use std::future::Future;
/// # use std::pin::Pin;
/// # use std::task::{Context, Poll};
/// use volt_runtime::task::coop;
///
/// pub struct Guarded<F> {
///     future: F,
/// }
///
/// impl<F: Future + Unpin> Future for Guarded<F> {
///     type Output = Option<F::Output>;
///
///     fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
///         if let Poll::Ready(v) = Pin::new(&mut self.future).poll(cx) {
///             return Poll::Ready(Some(v));
///         }
///         if !coop::has_budget_remaining() {
///             // The inner future used up the budget: give up this round.
///             return Poll::Ready(None);
///         }
///         Poll::Pending
///     }
/// }
/// ```
#[inline(always)]
pub fn has_budget_remaining() -> bool {
    // A destroyed thread-local counts as budget remaining.
    context::budget(|cell| cell.get().has_remaining()).unwrap_or(true)
}

/// Returns `Poll::Pending` if the current task has exceeded its budget and
/// should yield.
///
/// When you call this method, the current budget is decremented. However, to
/// ensure that progress is made every time a task is polled, the budget is
/// automatically restored to its former value if the returned
/// `RestoreOnPending` is dropped. It is the caller's responsibility to call
/// `RestoreOnPending::made_progress` if it made progress, to ensure that the
/// budget empties appropriately.
///
/// Note that `RestoreOnPending` restores the budget **as it was before
/// `poll_proceed`**. Therefore, if the budget is _further_ adjusted between
/// when `poll_proceed` returns and when `RestoreOnPending` is dropped, those
/// adjustments are erased unless the caller indicates that progress was made.
///
/// # Examples
///
/// This example wraps the `futures::channel::mpsc::UnboundedReceiver` to
/// cooperate with the volt scheduler. Each time a value is received, task
/// budget is consumed. If no budget is available, the task yields to the
/// scheduler.
///
/// ```
/// use std::pin::Pin;
/// use std::task::{ready, Context, Poll};
/// use volt_runtime::task::coop;
///
/// struct CoopCounter(u32);
///
/// impl std::future::Future for CoopCounter {
///     type Output = u32;
///
///     fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
///         // Check the budget before doing the work.
///         let coop = ready!(coop::poll_proceed(cx));
///         self.0 += 1;
///         // We made progress: the consumed unit stays consumed.
///         coop.made_progress();
///         Poll::Ready(self.0)
///     }
/// }
/// ```
#[inline]
pub fn poll_proceed(cx: &mut Context<'_>) -> Poll<RestoreOnPending> {
    context::budget(|cell| {
        let mut budget = cell.get();
        if budget.decrement() {
            let restore = RestoreOnPending::new(cell.get());
            cell.set(budget);
            if budget.0 == Some(0) {
                // Counted once per exhaustion, when the last unit goes (as
                // tokio does), not at every `Pending` that follows.
                count_forced_yield();
            }
            Poll::Ready(restore)
        } else {
            register_waker(cx);
            Poll::Pending
        }
    })
    .unwrap_or(Poll::Ready(RestoreOnPending::new(Budget::unconstrained())))
}

/// Counts a budget run dry, which forces the task's next resource poll to
/// yield (`RuntimeMetrics::budget_forced_yield_count`), on the runtime
/// this thread is in.
#[cold]
fn count_forced_yield() {
    #[cfg(feature = "rt")]
    let _ = context::with_current(|handle| handle.metrics().inc_budget_forced_yield_count());
}

/// `Ready` if the task has budget left (without consuming any), else wakes
/// the task and returns `Pending`. `select!` uses it before polling.
#[inline]
pub fn poll_budget_available(cx: &mut Context<'_>) -> Poll<()> {
    if has_budget_remaining() {
        Poll::Ready(())
    } else {
        register_waker(cx);
        Poll::Pending
    }
}

/// The task yields: its wake waits until the scheduler has polled the
/// driver (`scheduler/defer.rs`).
fn register_waker(cx: &mut Context<'_>) {
    #[cfg(feature = "rt")]
    crate::scheduler::defer::defer(cx.waker());
    // Without `rt` no budget is ever set, so nothing runs out of it; a
    // plain wake keeps the contract anyway.
    #[cfg(not(feature = "rt"))]
    cx.waker().wake_by_ref();
}

/// Value returned by the [`poll_proceed`] method.
#[derive(Debug)]
#[must_use]
pub struct RestoreOnPending(Cell<Budget>, PhantomData<*mut ()>);

impl RestoreOnPending {
    #[inline]
    fn new(budget: Budget) -> Self {
        RestoreOnPending(Cell::new(budget), PhantomData)
    }

    /// Signals that the task that obtained this `RestoreOnPending` was able
    /// to make progress. This prevents the task budget from being restored
    /// to the value it had prior to obtaining this instance when it is
    /// dropped.
    #[inline]
    pub fn made_progress(&self) {
        self.0.set(Budget::unconstrained());
    }
}

impl Drop for RestoreOnPending {
    #[inline]
    fn drop(&mut self) {
        // Don't reset if budget was unconstrained or if we made progress.
        // They are both represented as the remembered budget being
        // unconstrained.
        let budget = self.0.get();
        if !budget.is_unconstrained() {
            let _ = context::budget(|cell| cell.set(budget));
        }
    }
}

#[cfg(feature = "rt")]
pin_project! {
    /// Future wrapper to ensure cooperative scheduling created by
    /// [`cooperative`].
    #[must_use = "futures do nothing unless polled"]
    #[derive(Debug)]
    pub struct Coop<F: Future> {
        #[pin]
        fut: F,
    }
}

#[cfg(feature = "rt")]
impl<F: Future> Future for Coop<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let coop = ready!(poll_proceed(cx));
        let me = self.project();
        if let Poll::Ready(ret) = me.fut.poll(cx) {
            coop.made_progress();
            Poll::Ready(ret)
        } else {
            Poll::Pending
        }
    }
}

/// Creates a wrapper future that makes the inner future cooperate with the
/// volt scheduler.
///
/// When polled, the wrapper will first call [`poll_proceed`] to consume task
/// budget, and immediately yield if the budget has been depleted. If budget
/// was available, the inner future is polled. The budget consumption will be
/// made final using [`RestoreOnPending::made_progress`] if the inner future
/// resolves to its final value.
///
/// # Examples
///
/// ```
/// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
/// use volt_runtime::task::coop::cooperative;
///
/// let value = cooperative(async { 42 }).await;
/// assert_eq!(value, 42);
/// # });
/// ```
#[cfg(feature = "rt")]
#[inline]
pub fn cooperative<F: Future>(fut: F) -> Coop<F> {
    Coop { fut }
}

#[cfg(feature = "rt")]
mod rt_only {
    use pin_project_lite::pin_project;
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    /// Consumes a unit of budget and returns the execution back to the volt
    /// runtime *if* the task's coop budget was exhausted.
    ///
    /// The task will only yield if its entire coop budget has been exhausted.
    /// This function can be used in order to insert optional yield points
    /// into long computations that do not use volt resources like sockets or
    /// semaphores, without redundantly yielding to the runtime each time.
    ///
    /// # Examples
    ///
    /// Make sure that a function which returns a sum of (potentially lots
    /// of) iterated values is cooperative.
    ///
    /// ```
    /// async fn sum_iterator(input: &mut impl std::iter::Iterator<Item = i64>) -> i64 {
    ///     let mut sum: i64 = 0;
    ///     while let Some(i) = input.next() {
    ///         sum += i;
    ///         volt_runtime::task::consume_budget().await
    ///     }
    ///     sum
    /// }
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// assert_eq!(sum_iterator(&mut (1..=1000)).await, 500500);
    /// # });
    /// ```
    pub async fn consume_budget() {
        let mut status = Poll::Pending;
        std::future::poll_fn(move |cx| {
            if status.is_ready() {
                return status;
            }
            status = super::poll_proceed(cx).map(|restore| {
                restore.made_progress();
            });
            status
        })
        .await
    }

    pin_project! {
        /// Future for the [`unconstrained`](crate::task::unconstrained) method.
        #[must_use = "Unconstrained does nothing unless polled"]
        #[derive(Debug)]
        pub struct Unconstrained<F> {
            #[pin]
            inner: F,
        }
    }

    impl<F> Future for Unconstrained<F>
    where
        F: Future,
    {
        type Output = <F as Future>::Output;

        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
            let inner = self.project().inner;
            super::with_unconstrained(|| inner.poll(cx))
        }
    }

    /// Turn off cooperative scheduling for a future. The future will never be
    /// forced to yield by volt. Using this exposes your service to starvation
    /// if the unconstrained future never yields otherwise.
    ///
    /// See also the usage example in the [task module](crate::task#unconstrained).
    ///
    /// ```
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let n = volt_runtime::task::unconstrained(async { 1 + 1 }).await;
    /// assert_eq!(n, 2);
    /// # });
    /// ```
    pub fn unconstrained<F>(inner: F) -> Unconstrained<F> {
        Unconstrained { inner }
    }
}

#[cfg(feature = "rt")]
pub use rt_only::{Unconstrained, consume_budget, unconstrained};

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::task::Waker;

    fn get() -> Budget {
        context::budget(|cell| cell.get()).unwrap_or(Budget::unconstrained())
    }

    #[test]
    fn budget_is_spent_restored_and_exhausted() {
        let waker = Waker::noop();
        let mut cx = Context::from_waker(waker);
        assert!(get().0.is_none());
        budget(|| {
            assert_eq!(get().0, Some(128));
            // Dropping without progress restores the unit.
            let coop = match poll_proceed(&mut cx) {
                Poll::Ready(c) => c,
                Poll::Pending => panic!("budget available"),
            };
            assert_eq!(get().0, Some(127));
            drop(coop);
            assert_eq!(get().0, Some(128));
            for _ in 0..128 {
                match poll_proceed(&mut cx) {
                    Poll::Ready(c) => c.made_progress(),
                    Poll::Pending => panic!("budget available"),
                }
            }
            assert!(!has_budget_remaining());
            assert!(poll_proceed(&mut cx).is_pending());
            assert!(poll_budget_available(&mut cx).is_pending());
            with_unconstrained(|| assert!(poll_proceed(&mut cx).is_ready()));
        });
        assert!(get().0.is_none(), "previous budget restored");
    }
}
