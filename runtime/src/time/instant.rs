//! `volt::time::Instant`: a `std::time::Instant` that follows the runtime's
//! clock.
//!
//! Without the `test-util` feature `Instant::now()` is exactly
//! `std::time::Instant::now()`. With it, `now()` reads the current runtime's
//! clock, which `time::pause` can freeze and `time::advance` can move
//! (see [`clock`](super::clock)).

use std::fmt;
use std::ops;
use std::time::Duration;

/// A measurement of a monotonically nondecreasing clock. Opaque and useful
/// only with `Duration`.
///
/// Instants are always guaranteed to be no less than any previously
/// measured instant when created, and are often useful for tasks such as
/// measuring benchmarks or timing how long an operation takes.
///
/// `volt::time::Instant` is a wrapper around [`std::time::Instant`] that,
/// with the `test-util` feature, follows the paused clock of
/// `time::pause`. Convert with [`Instant::from_std`],
/// [`Instant::into_std`] or `From`/`Into`.
///
/// # Examples
///
/// ```
/// use volt_runtime::time::{Duration, Instant};
///
/// let start = Instant::now();
/// let later = start + Duration::from_millis(5);
/// assert_eq!(later - start, Duration::from_millis(5));
/// assert_eq!(start.checked_duration_since(later), None);
/// ```
#[derive(Clone, Copy, Eq, PartialEq, PartialOrd, Ord, Hash)]
pub struct Instant {
    std: std::time::Instant,
}

impl Instant {
    /// Returns an instant corresponding to "now".
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::time::Instant;
    ///
    /// let now = Instant::now();
    /// ```
    pub fn now() -> Instant {
        super::clock::now()
    }

    /// Creates a `volt::time::Instant` from a `std::time::Instant`.
    pub fn from_std(std: std::time::Instant) -> Instant {
        Instant { std }
    }

    /// An instant about 30 years from now: what a sleep whose deadline
    /// cannot be represented uses instead (it never fires in practice).
    pub(crate) fn far_future() -> Instant {
        // Roughly 30 years, like tokio: far enough never to fire, close
        // enough never to overflow `std::time::Instant` on any platform.
        Self::now() + Duration::from_secs(86400 * 365 * 30)
    }

    /// Converts the value into a `std::time::Instant`.
    pub fn into_std(self) -> std::time::Instant {
        self.std
    }

    /// Returns the amount of time elapsed from another instant to this one,
    /// or zero duration if that instant is later than this one.
    pub fn duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// Returns the amount of time elapsed from another instant to this one,
    /// or `None` if that instant is later than this one.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::time::{Duration, Instant};
    ///
    /// let now = Instant::now();
    /// let later = now + Duration::from_secs(1);
    /// assert_eq!(later.checked_duration_since(now), Some(Duration::from_secs(1)));
    /// assert_eq!(now.checked_duration_since(later), None);
    /// ```
    pub fn checked_duration_since(&self, earlier: Instant) -> Option<Duration> {
        self.std.checked_duration_since(earlier.std)
    }

    /// Returns the amount of time elapsed from another instant to this one,
    /// or zero duration if that instant is later than this one.
    pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// Returns the amount of time elapsed since this instant was created,
    /// or zero duration if this instant is in the future (which can only
    /// happen under a paused clock moved by hand).
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::time::Instant;
    ///
    /// let start = Instant::now();
    /// let _took = start.elapsed();
    /// ```
    pub fn elapsed(&self) -> Duration {
        Instant::now().saturating_duration_since(*self)
    }

    /// Returns `Some(t)` where `t` is the time `self + duration` if `t` can
    /// be represented, `None` otherwise.
    pub fn checked_add(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_add(duration).map(Instant::from_std)
    }

    /// Returns `Some(t)` where `t` is the time `self - duration` if `t` can
    /// be represented, `None` otherwise.
    pub fn checked_sub(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_sub(duration).map(Instant::from_std)
    }
}

impl From<std::time::Instant> for Instant {
    fn from(time: std::time::Instant) -> Instant {
        Instant::from_std(time)
    }
}

impl From<Instant> for std::time::Instant {
    fn from(value: Instant) -> std::time::Instant {
        value.into_std()
    }
}

impl ops::Add<Duration> for Instant {
    type Output = Instant;

    fn add(self, other: Duration) -> Instant {
        Instant::from_std(self.std + other)
    }
}

impl ops::AddAssign<Duration> for Instant {
    fn add_assign(&mut self, rhs: Duration) {
        *self = *self + rhs;
    }
}

impl ops::Sub for Instant {
    type Output = Duration;

    fn sub(self, rhs: Instant) -> Duration {
        self.std.saturating_duration_since(rhs.std)
    }
}

impl ops::Sub<Duration> for Instant {
    type Output = Instant;

    fn sub(self, rhs: Duration) -> Instant {
        Instant::from_std(std::time::Instant::sub(self.std, rhs))
    }
}

impl ops::SubAssign<Duration> for Instant {
    fn sub_assign(&mut self, rhs: Duration) {
        *self = *self - rhs;
    }
}

impl fmt::Debug for Instant {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.std.fmt(fmt)
    }
}
