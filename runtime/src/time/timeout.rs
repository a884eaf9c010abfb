//! `timeout` and `timeout_at`: a future with a deadline.
//!
//! `Timeout` polls the inner future first and only then the `Sleep`, so an
//! inner future that is ready at once (the common case in services) never
//! files a timer: creating and completing such a `Timeout` touches no lock.

use crate::coop;
use crate::time::error::Elapsed;
use crate::time::{Duration, Instant, Sleep};

use pin_project_lite::pin_project;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::task::{self, Poll};

/// Requires a `Future` to complete before the specified duration has
/// elapsed.
///
/// If the future completes before the duration has elapsed, then the
/// completed value is returned. Otherwise, an error is returned and the
/// future is canceled.
///
/// Note that the timeout is checked before polling the future, so if the
/// future does not yield during execution then it is possible for the
/// future to complete and exceed the timeout _without_ returning an error.
///
/// This function returns a future whose return type is [`Result`]`<T,`[`Elapsed`]`>`,
/// where `T` is the return type of the provided future.
///
/// If the provided future completes immediately, then the future returned
/// from this function is guaranteed to complete immediately with an
/// [`Ok`] variant no matter the provided duration.
///
/// A duration too large to represent never times out.
///
/// # Cancellation
///
/// Cancelling a timeout is done by dropping the future. No additional
/// cleanup or other work is required.
///
/// The original future may be obtained by calling [`Timeout::into_inner`].
/// This consumes the `Timeout`.
///
/// # Examples
///
/// ```
/// use volt_runtime::time::{self, Duration};
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() {
/// // A reply that never comes.
/// let reply = std::future::pending::<()>();
///
/// // Wrap the future with a `Timeout` set to expire in 10 milliseconds.
/// if let Err(_) = time::timeout(Duration::from_millis(10), reply).await {
///     println!("did not receive value within 10 ms");
/// }
/// # }
/// ```
///
/// # Panics
///
/// This function panics if there is no current timer set: outside of a
/// runtime, or in a runtime without time enabled
/// ([`Builder::enable_time`](crate::runtime::Builder::enable_time)).
#[track_caller]
#[inline]
pub fn timeout<F>(duration: Duration, future: F) -> Timeout<F::IntoFuture>
where
    F: IntoFuture,
{
    // A `match`, not `map`: closures lose `#[track_caller]`.
    #[allow(clippy::manual_map)]
    let delay = match Instant::now().checked_add(duration) {
        Some(deadline) => Some(Sleep::new_timeout(deadline)),
        None => None,
    };
    Timeout {
        value: future.into_future(),
        delay,
    }
}

/// Requires a `Future` to complete before the specified instant in time.
///
/// If the future completes before the instant is reached, then the
/// completed value is returned. Otherwise, an error is returned.
///
/// This function returns a future whose return type is [`Result`]`<T,`[`Elapsed`]`>`,
/// where `T` is the return type of the provided future.
///
/// If the provided future completes immediately, then the future returned
/// from this function is guaranteed to complete immediately with an
/// [`Ok`] variant no matter the provided deadline.
///
/// # Cancellation
///
/// Cancelling a timeout is done by dropping the future. No additional
/// cleanup or other work is required.
///
/// # Examples
///
/// ```
/// use volt_runtime::time::{Duration, Instant, timeout_at};
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() {
/// let reply = std::future::pending::<()>();
///
/// if let Err(_) = timeout_at(Instant::now() + Duration::from_millis(10), reply).await {
///     println!("did not receive value within 10 ms");
/// }
/// # }
/// ```
///
/// # Panics
///
/// As [`timeout`].
#[track_caller]
#[inline]
pub fn timeout_at<F>(deadline: Instant, future: F) -> Timeout<F::IntoFuture>
where
    F: IntoFuture,
{
    Timeout {
        value: future.into_future(),
        delay: Some(Sleep::new_timeout(deadline)),
    }
}

pin_project! {
    /// Future returned by [`timeout`](timeout) and [`timeout_at`](timeout_at).
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    #[derive(Debug)]
    pub struct Timeout<T> {
        #[pin]
        value: T,
        // `None`: the deadline cannot be represented; never times out.
        #[pin]
        delay: Option<Sleep>,
    }
}

impl<T> Timeout<T> {
    /// Gets a reference to the underlying value in this timeout.
    pub fn get_ref(&self) -> &T {
        &self.value
    }

    /// Gets a mutable reference to the underlying value in this timeout.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.value
    }

    /// Consumes this timeout, returning the underlying value.
    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T> Future for Timeout<T>
where
    T: Future,
{
    type Output = Result<T::Output, Elapsed>;

    fn poll(self: Pin<&mut Self>, cx: &mut task::Context<'_>) -> Poll<Self::Output> {
        let me = self.project();
        let had_budget_before = coop::has_budget_remaining();

        // First, try polling the future.
        if let Poll::Ready(v) = me.value.poll(cx) {
            return Poll::Ready(Ok(v));
        }

        match me.delay.as_pin_mut() {
            Some(delay) => poll_delay(had_budget_before, delay, cx).map(Err),
            None => Poll::Pending,
        }
    }
}

/// The `T`-independent half of `Timeout::poll` (less code per `T`).
fn poll_delay(
    had_budget_before: bool,
    delay: Pin<&mut Sleep>,
    cx: &mut task::Context<'_>,
) -> Poll<Elapsed> {
    let poll = || delay.poll(cx).map(|()| Elapsed::new());
    if had_budget_before && !coop::has_budget_remaining() {
        // The inner future used up the budget: still check the deadline,
        // or a future that always exhausts the budget would never time
        // out.
        coop::with_unconstrained(poll)
    } else {
        poll()
    }
}
