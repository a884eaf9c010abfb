//! `Barrier`: tasks wait until `n` of them have arrived.
//!
//! `arrivals` counts every arrival the barrier has ever had (a `u64`:
//! at one arrival per nanosecond it lasts five centuries). An arrival
//! takes its number `i` with one `fetch_add`; its generation is `i / n`,
//! and arrival `i` with `i % n == n - 1` is that generation's leader,
//! which returns at once and wakes the others with
//! `Notify::notify_waiters`. A waiter's generation is over once
//! `arrivals` reaches `(i / n + 1) * n`.
//!
//! A waiter creates its `Notified` *before* its `fetch_add`. The leader's
//! `fetch_add` comes after every other arrival of its generation in the
//! counter's order and reads their writes (Acquire, through the chain of
//! read-modify-writes), so each waiter's `Notified` exists before the
//! leader's `notify_waiters` and is woken by it. A waiter woken by an
//! earlier generation's leader (its `Notified` was created just before
//! that call) finds its generation not over and waits again, with a new
//! `Notified` created before it looks. (The loom models below do not
//! reach that case: it takes a third task arriving between a leader's
//! count and its broadcast.)

use crate::Notify;
use crate::bridge::loom::sync::atomic::{AtomicU64, Ordering::*};
use crate::trace;

use std::fmt;

/// A barrier enables multiple tasks to synchronize the beginning of some
/// computation.
///
/// ```
/// use volt_sync::Barrier;
/// use std::sync::Arc;
///
/// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
/// let mut handles = Vec::with_capacity(10);
/// let barrier = Arc::new(Barrier::new(10));
/// for _ in 0..10 {
///     let c = barrier.clone();
///     // The same messages will be printed together.
///     // You will NOT see any interleaving.
///     handles.push(volt_runtime::spawn(async move {
///         println!("before wait");
///         let wait_result = c.wait().await;
///         println!("after wait");
///         wait_result
///     }));
/// }
///
/// // Will not resolve until all "after wait" messages have been printed
/// let mut num_leaders = 0;
/// for handle in handles {
///     let wait_result = handle.await.unwrap();
///     if wait_result.is_leader() {
///         num_leaders += 1;
///     }
/// }
///
/// // Exactly one barrier will resolve as the "leader"
/// assert_eq!(num_leaders, 1);
/// # });
/// ```
pub struct Barrier {
    /// Arrivals since the barrier was created (module docs).
    arrivals: AtomicU64,
    notify: Notify,
    n: usize,
    /// tokio-console's view of it (feature `tracing`; zero-sized without).
    resource: trace::Resource,
}

impl Barrier {
    /// Creates a new barrier that can block a given number of tasks.
    ///
    /// A barrier will block `n`-1 tasks which call [`Barrier::wait`] and
    /// then wake up all tasks at once when the `n`th task calls `wait`.
    ///
    /// A barrier of `n == 0` behaves like one of `n == 1`.
    ///
    /// ```
    /// let barrier = volt_sync::Barrier::new(3);
    /// ```
    #[track_caller]
    pub fn new(mut n: usize) -> Barrier {
        if n == 0 {
            // A barrier of 0 would never release anyone: treat it as 1.
            n = 1;
        }
        let resource = trace::Resource::new("Barrier", "Sync");
        trace::state!(resource, size = n, arrived = 0usize);
        Barrier {
            resource,
            arrivals: AtomicU64::new(0),
            notify: Notify::new(),
            n,
        }
    }

    /// Does not resolve until all tasks have rendezvoused here.
    ///
    /// Barriers are re-usable after all tasks have rendezvoused once, and
    /// can be used continuously.
    ///
    /// A single (arbitrary) future will receive a [`BarrierWaitResult`]
    /// that returns `true` from [`BarrierWaitResult::is_leader`] when
    /// returning from this function, and all other tasks will receive a
    /// result that will return `false` from `is_leader`.
    ///
    /// # Cancel safety
    ///
    /// This method is not cancel safe.
    ///
    /// ```
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let barrier = volt_sync::Barrier::new(1);
    /// assert!(barrier.wait().await.is_leader());
    /// # });
    /// ```
    pub async fn wait(&self) -> BarrierWaitResult {
        trace::async_op(
            &self.resource,
            "Barrier::wait",
            "poll_wait",
            self.wait_inner(),
        )
        .await
    }

    async fn wait_inner(&self) -> BarrierWaitResult {
        // `usize` fits in `u64` on every target Rust supports.
        let n = self.n as u64;
        if n == 1 {
            // Every arrival leads its own generation; nobody waits.
            // AcqRel: as below.
            self.arrivals.fetch_add(1, AcqRel);
            trace::state!(self.resource, arrived = 0usize, arrived.op = "override");
            return BarrierWaitResult(true);
        }
        // Created before this arrival counts: the leader's broadcast,
        // after its own count, reaches it (module docs).
        let mut notified = std::pin::pin!(self.notify.notified());
        // AcqRel: the leader reads every earlier arrival's write (Acquire);
        // waiters read the leader's (their Acquire load below).
        let i = self.arrivals.fetch_add(1, AcqRel);
        if i % n == n - 1 {
            trace::state!(self.resource, arrived = 0usize, arrived.op = "override");
            self.notify.notify_waiters();
            return BarrierWaitResult(true);
        }
        trace::state!(self.resource, arrived = 1usize, arrived.op = "add");
        let over = (i / n + 1) * n;
        loop {
            notified.as_mut().await;
            // Acquire: pairs with the leader's `fetch_add`.
            if self.arrivals.load(Acquire) >= over {
                return BarrierWaitResult(false);
            }
            // Woken by an earlier generation's leader: wait again, the
            // new `Notified` created before the look.
            notified.set(self.notify.notified());
            if self.arrivals.load(Acquire) >= over {
                return BarrierWaitResult(false);
            }
        }
    }
}

impl fmt::Debug for Barrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Barrier")
            .field("n", &self.n)
            .finish_non_exhaustive()
    }
}

/// A `BarrierWaitResult` is returned by `wait` when all tasks in the
/// `Barrier` have rendezvoused.
#[derive(Debug, Clone)]
pub struct BarrierWaitResult(bool);

impl BarrierWaitResult {
    /// Returns `true` if this task from wait is the "leader task".
    ///
    /// Only one task will have `true` returned from their result, all other
    /// tasks will have `false` returned.
    ///
    /// ```
    /// # volt_runtime::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let barrier = volt_sync::Barrier::new(1);
    /// assert!(barrier.wait().await.is_leader());
    /// # });
    /// ```
    pub fn is_leader(&self) -> bool {
        self.0
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::bridge::loom::sync::Arc;
    use loom::future::block_on;
    use loom::thread;

    /// Two arrivals: one leads, the other is woken.
    #[test]
    fn two_arrivals_one_leader() {
        loom::model(|| {
            let barrier = Arc::new(Barrier::new(2));
            let b = barrier.clone();
            let t = thread::spawn(move || block_on(b.wait()).is_leader());
            let here = block_on(barrier.wait()).is_leader();
            assert!(here ^ t.join().unwrap());
        });
    }

    /// Two generations back to back: a waiter of the second may be woken
    /// by the first's leader and must wait again; nobody leaves the second
    /// before both have arrived at it.
    #[test]
    fn two_generations_one_leader_each() {
        use crate::bridge::loom::sync::atomic::AtomicUsize;
        loom::model(|| {
            let barrier = Arc::new(Barrier::new(2));
            let second_arrivals = Arc::new(AtomicUsize::new(0));
            let run = {
                let (barrier, second_arrivals) = (barrier.clone(), second_arrivals.clone());
                move || {
                    let first = block_on(barrier.wait()).is_leader();
                    second_arrivals.fetch_add(1, Relaxed);
                    let second = block_on(barrier.wait()).is_leader();
                    // Relaxed: the barrier's own ordering must make it 2.
                    assert_eq!(second_arrivals.load(Relaxed), 2);
                    u8::from(first) + u8::from(second)
                }
            };
            let t = thread::spawn(run.clone());
            let here = run();
            assert_eq!(here + t.join().unwrap(), 2);
        });
    }
}
