//! Conversions between instants and the wheel's millisecond ticks.
//!
//! Tick 0 is the instant the runtime's driver was created (on its clock, so
//! a paused clock's instants convert too). A deadline rounds *up* to the
//! next tick (a sleep never fires early); "now" rounds down.

use super::entry::MAX_TICK;
use crate::time::Instant;
use crate::time::clock::Clock;

use std::time::Duration;

/// Converts instants to ticks and back.
#[derive(Debug)]
pub(crate) struct TimeSource {
    start: std::time::Instant,
}

impl TimeSource {
    pub(crate) fn new(clock: &Clock) -> TimeSource {
        TimeSource {
            start: clock.now().into_std(),
        }
    }

    /// The first tick at or after `deadline`.
    pub(crate) fn deadline_to_tick(&self, deadline: Instant) -> u64 {
        let d = deadline.into_std().saturating_duration_since(self.start);
        let round_up = u64::from(d.subsec_nanos() % 1_000_000 != 0);
        millis(d).saturating_add(round_up).min(MAX_TICK)
    }

    /// The tick `t` falls in.
    pub(crate) fn instant_to_tick(&self, t: Instant) -> u64 {
        millis(t.into_std().saturating_duration_since(self.start)).min(MAX_TICK)
    }

    pub(crate) fn tick_to_duration(&self, ticks: u64) -> Duration {
        Duration::from_millis(ticks)
    }

    /// The current tick on `clock`.
    pub(crate) fn now(&self, clock: &Clock) -> u64 {
        self.instant_to_tick(clock.now())
    }
}

/// Whole milliseconds of `d`, saturating (u64 arithmetic: cheaper than
/// `as_millis`'s u128).
fn millis(d: Duration) -> u64 {
    d.as_secs()
        .saturating_mul(1000)
        .saturating_add(u64::from(d.subsec_millis()))
}
