//! `JoinHandle`: an owned permission to await a task's output.

use crate::task::{AbortHandle, Id, RawTask};

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll, Waker, ready};

/// An owned permission to join on a task (await its termination).
///
/// This can be thought of as the equivalent of [`std::thread::JoinHandle`]
/// for a volt task rather than a thread. You do not need to `.await` the
/// `JoinHandle` to make the task execute — it will start running in the
/// background immediately.
///
/// A `JoinHandle` *detaches* the associated task when it is dropped, which
/// means that there is no longer any handle to the task, and no way to `join`
/// on it.
///
/// This `struct` is created by the [`task::spawn`] and
/// [`task::spawn_blocking`] functions.
///
/// # Cancel safety
///
/// The `&mut JoinHandle<T>` type is cancel safe. If it is used as the event
/// in a `volt::select!` statement and some other branch completes first,
/// then it is guaranteed that the output of the task is not lost.
///
/// If a `JoinHandle` is dropped, then the task continues running in the
/// background and its return value is lost.
///
/// # Examples
///
/// Creation from [`task::spawn`]:
///
/// ```
/// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
/// use volt_runtime::task;
///
/// let join_handle: task::JoinHandle<_> = task::spawn(async {
///     // some work here
///     1 + 1
/// });
/// assert_eq!(join_handle.await.unwrap(), 2);
/// # });
/// ```
///
/// The output of a panicking task comes back as a
/// [`JoinError`](crate::task::JoinError):
///
/// ```
/// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
/// let err = volt_runtime::spawn(async { panic!("something bad happened!") })
///     .await
///     .unwrap_err();
/// assert!(err.is_panic());
/// # });
/// ```
///
/// [`task::spawn`]: crate::task::spawn()
/// [`task::spawn_blocking`]: crate::task::spawn_blocking
pub struct JoinHandle<T> {
    raw: RawTask,
    _p: PhantomData<T>,
}

// SAFETY: the handle only hands out `T` by value, so it can move to another
// thread when `T` can.
unsafe impl<T: Send> Send for JoinHandle<T> {}
// SAFETY: `&JoinHandle` gives no access to `T` at all (only abort/id/
// is_finished, which are atomic operations on the header).
unsafe impl<T: Send> Sync for JoinHandle<T> {}

impl<T> UnwindSafe for JoinHandle<T> {}
impl<T> RefUnwindSafe for JoinHandle<T> {}

impl<T> JoinHandle<T> {
    pub(super) fn new(raw: RawTask) -> JoinHandle<T> {
        JoinHandle {
            raw,
            _p: PhantomData,
        }
    }

    /// Abort the task associated with the handle.
    ///
    /// Awaiting a cancelled task might complete as usual if the task was
    /// already completed at the time it was cancelled, but most likely it
    /// will fail with a [cancelled] `JoinError`.
    ///
    /// Be aware that tasks spawned using [`spawn_blocking`] cannot be aborted
    /// because they are not async. If you call `abort` on a `spawn_blocking`
    /// task, then this *will not have any effect*, and the task will continue
    /// running normally. The exception is if the task has not started running
    /// yet; in that case, calling `abort` may prevent the task from starting.
    ///
    /// See also [the module level docs] for more information on cancellation.
    ///
    /// ```
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let handle = volt_runtime::spawn(std::future::pending::<()>());
    /// handle.abort();
    /// assert!(handle.await.unwrap_err().is_cancelled());
    /// # });
    /// ```
    ///
    /// [cancelled]: method@super::error::JoinError::is_cancelled
    /// [the module level docs]: crate::task#cancellation
    /// [`spawn_blocking`]: crate::task::spawn_blocking
    pub fn abort(&self) {
        self.raw.remote_abort();
    }

    /// Checks if the task associated with this `JoinHandle` has finished.
    ///
    /// Please note that this method can return `false` even if [`abort`] has
    /// been called on the task. This is because the cancellation process may
    /// take some time, and this method does not return `true` until it has
    /// completed.
    ///
    /// ```
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let handle = volt_runtime::spawn(std::future::pending::<()>());
    /// assert!(!handle.is_finished());
    /// handle.abort();
    /// let _ = (&mut { handle }).await;
    /// # });
    /// ```
    ///
    /// [`abort`]: method@JoinHandle::abort
    pub fn is_finished(&self) -> bool {
        self.raw.state_snapshot().is_complete()
    }

    /// Returns a new `AbortHandle` that can be used to remotely abort this
    /// task.
    ///
    /// Awaiting a task cancelled by the `AbortHandle` might complete as usual
    /// if the task was already completed at the time it was cancelled, but
    /// most likely it will fail with a [cancelled] `JoinError`.
    ///
    /// ```
    /// # volt_runtime::runtime::Runtime::new().unwrap().block_on(async {
    /// let handle = volt_runtime::spawn(std::future::pending::<()>());
    /// let abort = handle.abort_handle();
    /// abort.abort();
    /// assert!(handle.await.unwrap_err().is_cancelled());
    /// # });
    /// ```
    ///
    /// [cancelled]: method@super::error::JoinError::is_cancelled
    #[must_use = "abort handles do nothing unless `.abort` is called"]
    pub fn abort_handle(&self) -> AbortHandle {
        self.raw.ref_inc();
        AbortHandle::new(self.raw)
    }

    /// Returns a [task ID] that uniquely identifies this task relative to
    /// other currently spawned tasks.
    ///
    /// [task ID]: crate::task::Id
    pub fn id(&self) -> Id {
        self.raw.header().id()
    }

    /// Makes `waker` the one woken when the task completes (at once if it
    /// already has), without reading the output.
    #[cfg_attr(not(feature = "rt"), allow(dead_code))]
    pub(crate) fn set_join_waker(&mut self, waker: &Waker) {
        // SAFETY: the task is live while its handle exists, and we are its
        // handle.
        unsafe { super::harness::set_join_waker_or_wake(self.raw.header_ptr(), waker) };
    }
}

impl<T> Unpin for JoinHandle<T> {}

impl<T> Future for JoinHandle<T> {
    type Output = super::Result<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut ret = Poll::Pending;

        // Keep track of task budget.
        let coop = ready!(crate::coop::poll_proceed(cx));

        // SAFETY: `ret` has the type the vtable expects (the task's output
        // type `T`), and we are the task's only `JoinHandle`.
        unsafe {
            self.raw
                .try_read_output(&mut ret as *mut _ as *mut (), cx.waker());
        }

        if ret.is_ready() {
            coop.made_progress();
        }

        ret
    }
}

impl<T> Drop for JoinHandle<T> {
    fn drop(&mut self) {
        if self.raw.header().state.drop_join_handle_fast().is_ok() {
            return;
        }
        self.raw.drop_join_handle_slow();
    }
}

impl<T> fmt::Debug for JoinHandle<T>
where
    T: fmt::Debug,
{
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("JoinHandle")
            .field("id", &self.id())
            .finish()
    }
}
