//! `task::spawn`.

use crate::task::{Id, JoinHandle};

use std::future::Future;

/// Futures larger than this are boxed before they are moved into a task, so
/// that deeply nested futures do not overflow the stack while being moved.
pub(crate) const BOX_FUTURE_THRESHOLD: usize = if cfg!(debug_assertions) { 2048 } else { 16384 };

/// Spawns a new asynchronous task, returning a
/// [`JoinHandle`](JoinHandle) for it.
///
/// The provided future will start running in the background immediately
/// when `spawn` is called, even if you don't await the returned
/// `JoinHandle`.
///
/// Spawning a task enables the task to execute concurrently to other tasks.
/// The spawned task may execute on the current thread, or it may be sent to a
/// different thread to be executed. The specifics depend on the current
/// [`Runtime`](crate::runtime::Runtime) configuration.
///
/// It is guaranteed that spawn will not synchronously poll the task being
/// spawned. This means that calling spawn while holding a lock does not
/// pose a risk of deadlocking with the spawned task.
///
/// There is no guarantee that a spawned task will execute to completion.
/// When a runtime is shutdown, all outstanding tasks are dropped, regardless
/// of the lifecycle of that task.
///
/// This function must be called from the context of a volt runtime. Tasks
/// running on the volt runtime are always inside its context, but you can
/// also enter the context using the
/// [`Runtime::enter`](crate::runtime::Runtime::enter()) method.
///
/// # Examples
///
/// ```
/// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
/// let handles: Vec<_> = (0..4u64)
///     .map(|i| volt_runtime::spawn(async move { i * i }))
///     .collect();
/// let mut sum = 0;
/// for handle in handles {
///     sum += handle.await.unwrap();
/// }
/// assert_eq!(sum, 0 + 1 + 4 + 9);
/// # });
/// ```
///
/// # Panics
///
/// Panics if called from **outside** of a volt runtime, with tokio's message
/// ("there is no reactor running, must be called from the context of a
/// Tokio 1.x runtime").
///
/// # Using `!Send` values from a task
///
/// The task supplied to `spawn` must implement `Send`. However, it is
/// possible to **use** `!Send` values from the task as long as they only
/// exist between calls to `.await`.
#[track_caller]
pub fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let size = std::mem::size_of::<F>();
    if size > BOX_FUTURE_THRESHOLD {
        spawn_inner(Box::pin(future), Some(size))
    } else {
        spawn_inner(future, None)
    }
}

#[track_caller]
fn spawn_inner<T>(future: T, original_size: Option<usize>) -> JoinHandle<T::Output>
where
    T: Future + Send + 'static,
    T::Output: Send + 'static,
{
    let id = Id::next();
    let spawned_at = std::panic::Location::caller();
    let future = crate::util::trace::task(future, "task", id, original_size);
    match crate::context::with_current(|handle| handle.spawn(future, id, spawned_at)) {
        Ok(join_handle) => join_handle,
        Err(e) => panic!("{}", e),
    }
}
