//! `task::spawn_blocking` and `task::block_in_place`.

use crate::task::JoinHandle;

/// Runs the provided blocking function on the current thread without
/// blocking the executor.
///
/// In general, issuing a blocking call or performing a lot of compute in a
/// future without yielding is problematic, as it may prevent the executor
/// from driving other tasks forward. Calling this function informs the
/// executor that the currently executing task is about to block the thread,
/// so the executor is able to hand off any other tasks it has to a new
/// worker thread before that happens. See the [CPU-bound tasks and blocking
/// code][blocking] section for more information.
///
/// Be aware that although this function avoids starving other independently
/// spawned tasks, any other code running concurrently in the same task will
/// be suspended during the call to `block_in_place`. This can happen e.g.
/// when using the `join!` macro. To avoid this issue, use
/// [`spawn_blocking`] instead of `block_in_place`.
///
/// Note that this function cannot be used within a `current_thread` runtime
/// because in this case there are no other worker threads to hand off tasks
/// to. On the other hand, calling the function outside a runtime is allowed.
/// In this case, `block_in_place` just calls the provided closure normally.
///
/// # Examples
///
/// ```
/// use volt_runtime::task;
///
/// # async fn docs() {
/// task::block_in_place(move || {
///     // do some compute-heavy work or call synchronous code
/// });
/// # }
/// # volt_runtime::runtime::Runtime::new().unwrap().block_on(docs());
/// ```
///
/// Code running inside `block_in_place` may use `block_on` to reenter the
/// async context.
///
/// ```
/// use volt_runtime::task;
/// use volt_runtime::runtime::Handle;
///
/// # async fn docs() {
/// task::block_in_place(move || {
///     Handle::current().block_on(async move {
///         // do something async
///     });
/// });
/// # }
/// # volt_runtime::runtime::Runtime::new().unwrap().block_on(docs());
/// ```
///
/// # Panics
///
/// This function panics if called from a [`current_thread`] runtime, with
/// tokio's message ("can call blocking only when running on the
/// multi-threaded runtime").
///
/// [blocking]: crate::task#blocking-and-yielding
/// [`current_thread`]: fn@crate::runtime::Builder::new_current_thread
#[track_caller]
pub fn block_in_place<F, R>(f: F) -> R
where
    F: FnOnce() -> R,
{
    #[cfg(feature = "rt-multi-thread")]
    {
        crate::scheduler::multi_thread::block_in_place(f)
    }
    #[cfg(not(feature = "rt-multi-thread"))]
    {
        if crate::context::current_enter_context().is_entered() {
            panic!("can call blocking only when running on the multi-threaded runtime");
        }
        f()
    }
}

/// Runs the provided closure on a thread where blocking is acceptable.
///
/// In general, issuing a blocking call or performing a lot of compute in a
/// future without yielding is problematic, as it may prevent the executor
/// from driving other futures forward. This function runs the provided
/// closure on a thread dedicated to blocking operations. See the [CPU-bound
/// tasks and blocking code][blocking] section for more information.
///
/// volt will spawn more blocking threads when they are requested through
/// this function until the upper limit configured on the
/// [`Builder`](crate::runtime::Builder) is reached. After reaching the upper
/// limit, the tasks are put in a queue. The thread limit is very large by
/// default, because `spawn_blocking` is often used for various kinds of IO
/// operations that cannot be performed asynchronously. When you run
/// CPU-bound code using `spawn_blocking`, you should keep this large upper
/// limit in mind.
///
/// This function is intended for non-async operations that eventually
/// finish on their own. Closures spawned using `spawn_blocking` cannot be
/// cancelled abruptly; there is no standard low level API to cause a thread
/// to stop running. However, a useful pattern is to pass some form of
/// "cancellation token" into the thread. This could be an `AtomicBool` that
/// the task checks periodically.
///
/// When you shut down the executor, it will wait indefinitely for all
/// blocking operations to finish. You can use
/// [`shutdown_timeout`](crate::runtime::Runtime::shutdown_timeout) to stop
/// waiting for them after a certain timeout. Be aware that this will still
/// not cancel the tasks — they are simply allowed to keep running after the
/// method returns. It is possible for a blocking task to be cancelled if it
/// has not yet started running, but this is not guaranteed.
///
/// # Examples
///
/// ```
/// use volt_runtime::task;
///
/// # async fn docs() -> Result<(), Box<dyn std::error::Error>>{
/// let res = task::spawn_blocking(move || {
///     // do some compute-heavy work or call synchronous code
///     "done computing"
/// }).await?;
///
/// assert_eq!(res, "done computing");
/// # Ok(())
/// # }
/// # volt_runtime::runtime::Runtime::new().unwrap().block_on(docs()).unwrap();
/// ```
///
/// # Panics
///
/// Panics if called outside a runtime, with tokio's message.
///
/// [blocking]: crate::task#blocking-and-yielding
#[track_caller]
pub fn spawn_blocking<F, R>(f: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    crate::blocking::spawn_blocking(f)
}
