//! `task::yield_now`.

use std::future::poll_fn;
use std::task::Poll;

/// Yields execution back to the volt runtime.
///
/// A task yields by awaiting on `yield_now()`, and may resume when that
/// future completes (with no output.) The current task will be re-added as a
/// pending task at the _back_ of the pending queue. Any other pending tasks
/// will be scheduled. No other waking is required for the task to continue.
///
/// See also the usage example in the [task module](index.html#yield_now).
///
/// ## Non-guarantees
///
/// This function may not yield all the way up to the executor if there are
/// any special combinators above it in the call stack. For example, if a
/// `volt::select!` has another branch complete during the same poll as the
/// `yield_now()`, then the yield is not propagated all the way up to the
/// runtime.
///
/// It is generally not guaranteed that the runtime behaves like you expect
/// it to when deciding which task to schedule next after a call to
/// `yield_now()`. In particular, the runtime may choose to poll the task
/// that just ran `yield_now()` again immediately without polling any other
/// tasks first.
///
/// # Examples
///
/// ```
/// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
/// let other = volt_runtime::spawn(async { "other ran" });
/// volt_runtime::task::yield_now().await;
/// assert_eq!(other.await.unwrap(), "other ran");
/// # });
/// ```
pub async fn yield_now() {
    let mut yielded = false;
    poll_fn(|cx| {
        if yielded {
            return Poll::Ready(());
        }
        yielded = true;
        // The wake waits until the scheduler has polled the driver (see
        // `scheduler/defer.rs`), so a task that yields in a loop lets this
        // thread's I/O and timers in. Outside volt, this is an immediate
        // wake.
        crate::scheduler::defer::defer(cx.waker());
        Poll::Pending
    })
    .await
}
