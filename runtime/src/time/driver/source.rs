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
        let ms = d.as_millis() + u128::from(d.subsec_nanos() % 1_000_000 != 0);
        ms.min(u128::from(MAX_TICK)) as u64
    }

    /// The tick `t` falls in.
    pub(crate) fn instant_to_tick(&self, t: Instant) -> u64 {
        let ms = t.into_std().saturating_duration_since(self.start).as_millis();
        ms.min(u128::from(MAX_TICK)) as u64
    }

    pub(crate) fn tick_to_duration(&self, ticks: u64) -> Duration {
        Duration::from_millis(ticks)
    }

    /// The current tick on `clock`.
    pub(crate) fn now(&self, clock: &Clock) -> u64 {
        self.instant_to_tick(clock.now())
    }
}
