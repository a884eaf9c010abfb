//! `Barrier`: tasks wait until `n` of them have arrived.
//!
//! Arrivals are counted under a small mutex. The `n`-th arrival (the
//! leader) resets the count, bumps the generation and wakes everyone with
//! `Notify::notify_waiters`. A waiter creates its `Notified` future while it
//! still holds the mutex, so the leader's broadcast, which needs the mutex
//! first, cannot be missed.

use crate::Notify;
use crate::bridge::loom::sync::Mutex;
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
    state: Mutex<BarrierState>,
    notify: Notify,
    n: usize,
    /// tokio-console's view of it (feature `tracing`; zero-sized without).
    resource: trace::Resource,
}

#[derive(Debug)]
struct BarrierState {
    arrived: usize,
    generation: usize,
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
            state: Mutex::new(BarrierState {
                arrived: 0,
                generation: 1,
            }),
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
        let (generation, notified) = {
            let mut state = self.state.lock();
            let generation = state.generation;
            state.arrived += 1;
            trace::state!(self.resource, arrived = 1usize, arrived.op = "add");
            if state.arrived == self.n {
                state.arrived = 0;
                state.generation += 1;
                trace::state!(self.resource, arrived = 0usize, arrived.op = "override");
                drop(state);
                // The other `n - 1` arrivals of this generation wait (or
                // were cancelled): with `n == 1` there is nobody to wake.
                if self.n > 1 {
                    self.notify.notify_waiters();
                }
                return BarrierWaitResult(true);
            }
            // Created under the lock: the leader's broadcast comes later.
            (generation, self.notify.notified())
        };
        let mut notified = std::pin::pin!(notified);
        loop {
            notified.as_mut().await;
            if self.state.lock().generation > generation {
                return BarrierWaitResult(false);
            }
            // Not ours (cannot happen with a single broadcast per
            // generation, but stay correct if it did): wait again.
            notified.set(self.notify.notified());
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
