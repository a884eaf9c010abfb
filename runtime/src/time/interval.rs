//! `Interval`: a stream of ticks at a fixed period, with a policy for
//! ticks missed while the task was busy.

use crate::time::{Duration, Instant, Sleep, sleep_until};

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// Creates new [`Interval`] that yields with interval of `period`. The
/// first tick completes immediately. The default [`MissedTickBehavior`] is
/// [`Burst`](MissedTickBehavior::Burst), but this can be configured by
/// calling [`set_missed_tick_behavior`](Interval::set_missed_tick_behavior).
///
/// An interval will tick indefinitely. At any time, the [`Interval`] value
/// can be dropped. This cancels the interval.
///
/// This function is equivalent to
/// [`interval_at(Instant::now(), period)`](interval_at).
///
/// # Panics
///
/// This function panics if `period` is zero.
///
/// # Examples
///
/// ```
/// use volt_runtime::time::{self, Duration};
///
/// # #[volt_runtime::main(crate = "volt_runtime", flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let mut interval = time::interval(Duration::from_millis(10));
///
/// interval.tick().await; // ticks immediately
/// interval.tick().await; // ticks after 10ms
/// interval.tick().await; // ticks after 10ms
///
/// // approximately 20ms have elapsed.
/// # }
/// ```
#[track_caller]
pub fn interval(period: Duration) -> Interval {
    assert!(period > Duration::new(0, 0), "`period` must be non-zero.");
    internal_interval_at(Instant::now(), period)
}

/// Creates new [`Interval`] that yields with interval of `period` with the
/// first tick completing at `start`. The default [`MissedTickBehavior`] is
/// [`Burst`](MissedTickBehavior::Burst), but this can be configured by
/// calling [`set_missed_tick_behavior`](Interval::set_missed_tick_behavior).
///
/// An interval will tick indefinitely. At any time, the [`Interval`] value
/// can be dropped. This cancels the interval.
///
/// # Panics
///
/// This function panics if `period` is zero.
///
/// # Examples
///
/// ```
/// use volt_runtime::time::{interval_at, Duration, Instant};
///
/// # #[volt_runtime::main(crate = "volt_runtime", flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let start = Instant::now() + Duration::from_millis(50);
/// let mut interval = interval_at(start, Duration::from_millis(10));
///
/// interval.tick().await; // ticks after 50ms
/// interval.tick().await; // ticks after 10ms
/// # }
/// ```
#[track_caller]
pub fn interval_at(start: Instant, period: Duration) -> Interval {
    assert!(period > Duration::new(0, 0), "`period` must be non-zero.");
    internal_interval_at(start, period)
}

#[track_caller]
fn internal_interval_at(start: Instant, period: Duration) -> Interval {
    Interval {
        delay: Box::pin(sleep_until(start)),
        period,
        missed_tick_behavior: MissedTickBehavior::default(),
    }
}

/// Defines the behavior of an [`Interval`] when it misses a tick.
///
/// Sometimes, an [`Interval`]'s tick is missed: the task was busy longer
/// than a period (a tick is "missed" when it is more than 5 ms late). This
/// enum says what the interval does then.
///
/// In the examples below, a period of 50 ms, ticks due at 0, 50, 100, ...
/// and a task busy from 60 to 210 ms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissedTickBehavior {
    /// Ticks as fast as possible until caught up: the missed ticks at 100,
    /// 150 and 200 all fire at once at 210, then 250, 300, ... as planned.
    ///
    /// This is the default.
    #[default]
    Burst,

    /// Ticks at multiples of `period` from when `tick` was called, rather
    /// than from the start: after the late tick at 210, the next ones come
    /// at 260, 310, ...
    Delay,

    /// Skips missed ticks and ticks on the next multiple of `period` from
    /// the start: after the late tick at 210, the next come at 250, 300,
    /// ...
    Skip,
}

impl MissedTickBehavior {
    /// The deadline after a tick that was due at `timeout`, observed at
    /// `now`.
    fn next_timeout(&self, timeout: Instant, now: Instant, period: Duration) -> Instant {
        // A period too long to add (`Duration::MAX`) means never again.
        let after = |t: Instant, d: Duration| t.checked_add(d).unwrap_or_else(Instant::far_future);
        match self {
            Self::Burst => after(timeout, period),
            Self::Delay => after(now, period),
            Self::Skip => {
                let offset = Duration::from_nanos(
                    ((now - timeout).as_nanos() % period.as_nanos())
                        .try_into()
                        // Only reachable after ~584 years of lateness.
                        .expect(
                            "too much time has elapsed since the interval was supposed to tick",
                        ),
                );
                after(now, period - offset)
            }
        }
    }
}

/// Interval returned by [`interval`] and [`interval_at`].
///
/// This type allows you to wait on a sequence of instants with a certain
/// duration between each instant. Unlike calling [`sleep`] in a loop, this
/// lets you count the time spent between the calls to [`sleep`] as well.
///
/// An `Interval` can be turned into a `Stream` with `IntervalStream` of
/// `tokio-stream` style wrappers.
///
/// [`sleep`]: crate::time::sleep()
#[derive(Debug)]
pub struct Interval {
    /// Future that completes the next time the `Interval` should yield.
    delay: Pin<Box<Sleep>>,
    period: Duration,
    missed_tick_behavior: MissedTickBehavior,
}

impl Interval {
    /// Completes when the next instant in the interval has been reached.
    ///
    /// # Cancel safety
    ///
    /// This method is cancellation safe. If `tick` is used as the branch in
    /// a `volt_runtime::select!` and another branch completes first, then no tick
    /// has been consumed.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::time::{self, Duration, Instant};
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime", flavor = "current_thread", start_paused = true)]
    /// # async fn main() {
    /// let mut interval = time::interval(Duration::from_millis(10));
    ///
    /// let start = Instant::now();
    /// interval.tick().await;
    /// interval.tick().await;
    /// interval.tick().await;
    /// assert!(start.elapsed() >= Duration::from_millis(20));
    /// # }
    /// ```
    pub async fn tick(&mut self) -> Instant {
        poll_fn(|cx| self.poll_tick(cx)).await
    }

    /// Polls for the next instant in the interval to be reached.
    ///
    /// This method can return the following values:
    ///
    ///  * `Poll::Pending` if the next instant has not yet been reached.
    ///  * `Poll::Ready(instant)` if the next instant has been reached.
    ///
    /// When this method returns `Poll::Pending`, the current task is
    /// scheduled to receive a wakeup when the instant has elapsed. Note
    /// that on multiple calls to `poll_tick`, only the `Waker` from the
    /// `Context` passed to the most recent call is scheduled to receive a
    /// wakeup.
    pub fn poll_tick(&mut self, cx: &mut Context<'_>) -> Poll<Instant> {
        // Wait for the delay to be done.
        ready!(Pin::new(&mut self.delay).poll(cx));

        // The instant this tick was due at.
        let timeout = self.delay.deadline();
        let now = Instant::now();

        // A tick more than 5 ms late counts as missed.
        let next = if now > timeout + Duration::from_millis(5) {
            self.missed_tick_behavior
                .next_timeout(timeout, now, self.period)
        } else {
            timeout
                .checked_add(self.period)
                .unwrap_or_else(Instant::far_future)
        };

        // The next poll files the timer (the deadline may be in the past:
        // then it completes at once, which is what `Burst` wants).
        self.delay.as_mut().reset_without_reregister(next);

        Poll::Ready(timeout)
    }

    /// Resets the interval to complete one period after the current time.
    ///
    /// This method ignores [`MissedTickBehavior`] strategy.
    ///
    /// This is equivalent to calling `reset_at(Instant::now() + period)`.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::time::{self, Duration};
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime", flavor = "current_thread", start_paused = true)]
    /// # async fn main() {
    /// let mut interval = time::interval(Duration::from_millis(100));
    /// interval.tick().await;
    ///
    /// time::sleep(Duration::from_millis(50)).await;
    /// interval.reset();
    ///
    /// interval.tick().await; // 100 ms after the reset
    /// # }
    /// ```
    pub fn reset(&mut self) {
        self.reset_after(self.period);
    }

    /// Resets the interval immediately.
    ///
    /// This method ignores [`MissedTickBehavior`] strategy.
    ///
    /// This is equivalent to calling `reset_at(Instant::now())`.
    pub fn reset_immediately(&mut self) {
        self.delay.as_mut().reset(Instant::now());
    }

    /// Resets the interval after the specified [`std::time::Duration`].
    ///
    /// This method ignores [`MissedTickBehavior`] strategy.
    ///
    /// This is equivalent to calling `reset_at(Instant::now() + after)`;
    /// a duration too large to represent resets to the far future.
    pub fn reset_after(&mut self, after: Duration) {
        let deadline = Instant::now()
            .checked_add(after)
            .unwrap_or_else(Instant::far_future);
        self.delay.as_mut().reset(deadline);
    }

    /// Resets the interval to a [`crate::time::Instant`] deadline.
    ///
    /// Sets the next tick to expire at the given instant. If the instant is
    /// in the past, then the [`MissedTickBehavior`] strategy will be used
    /// to catch up. If the instant is in the future, then the next tick
    /// will complete at the given instant, even if that means that it will
    /// sleep for longer than the duration of this [`Interval`].
    pub fn reset_at(&mut self, deadline: Instant) {
        self.delay.as_mut().reset(deadline);
    }

    /// Returns the [`MissedTickBehavior`] strategy currently being used.
    pub fn missed_tick_behavior(&self) -> MissedTickBehavior {
        self.missed_tick_behavior
    }

    /// Sets the [`MissedTickBehavior`] strategy that should be used.
    pub fn set_missed_tick_behavior(&mut self, behavior: MissedTickBehavior) {
        self.missed_tick_behavior = behavior;
    }

    /// Returns the period of the interval.
    pub fn period(&self) -> Duration {
        self.period
    }
}
