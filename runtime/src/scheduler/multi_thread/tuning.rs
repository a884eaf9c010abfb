//! Self-tuning of the global queue interval, as tokio's multi-thread
//! scheduler does when the builder sets none. The mean poll time it tunes
//! from is also a metric (`RuntimeMetrics::worker_mean_poll_time`).
//!
//! A worker takes from the global queue first every `global_queue_interval`
//! ticks, so remote work (spawns from outside the runtime, wakes from other
//! threads) waits at most that many task polls while the worker is busy. A
//! fixed interval is a count, not a time: with tasks that poll for 100 µs
//! each, 61 ticks keep a remote task waiting for 6 ms. The worker therefore
//! aims at a *time* between checks, [`TARGET_INTERVAL_NS`] (200 µs, tokio's
//! target), and derives the count from the mean time a poll takes:
//!
//! ```text
//! interval = clamp(TARGET_INTERVAL_NS / mean poll time, 2, 127)
//! ```
//!
//! # Measuring
//!
//! The worker already times its *batches* (`MetricsBatch`: from the moment
//! it starts running tasks until it runs out or stops for maintenance), and
//! counts the polls in each. A batch of `n` polls that took `t` updates an
//! exponentially weighted moving average of the poll time, weighted as `n`
//! samples of `t / n`:
//!
//! ```text
//! alpha = 1 - (1 - ALPHA)^n
//! mean  = alpha * (t / n) + (1 - alpha) * mean
//! ```
//!
//! So a long batch nearly replaces the average, a one-poll batch nudges it.
//! Nothing is measured per poll: two clock reads per batch, and a batch
//! ends at the latest at maintenance (`event_interval` ticks).
//!
//! # Applying
//!
//! The worker moves its interval to the tuned value only when they differ
//! by more than 2 (tokio's hysteresis), so jitter in the average does not
//! reset the countdown all the time. An interval set with
//! `Builder::global_queue_interval` is never tuned. The floor of 2 keeps
//! the local queue running: an interval of 1 would always take from the
//! global queue first.

use std::time::Duration;

/// Weight of one poll's time in the moving average (tokio's).
const ALPHA: f64 = 0.1;

/// The time a worker aims to let pass between checks of the global queue.
const TARGET_INTERVAL_NS: f64 = 200_000.0;

/// The interval is never tuned below this (see the module docs).
const MIN_INTERVAL: u32 = 2;

/// Nor above this: twice the fixed default of old.
const MAX_INTERVAL: u32 = 127;

/// The interval a worker starts with, before any measurement.
pub(super) const INITIAL_INTERVAL: u32 = 61;

/// The moving average of a worker's task poll time.
#[derive(Debug)]
pub(super) struct PollTime {
    mean_ns: f64,
}

impl PollTime {
    /// Seeded with the poll time that gives [`INITIAL_INTERVAL`].
    pub(super) fn new() -> PollTime {
        PollTime {
            mean_ns: TARGET_INTERVAL_NS / INITIAL_INTERVAL as f64,
        }
    }

    /// Folds in a batch of `polls` task polls that took `elapsed` in all.
    pub(super) fn record_batch(&mut self, elapsed: Duration, polls: u64) {
        if polls == 0 {
            return;
        }
        // `powi`, not `powf`: a few multiplications instead of a call to
        // libm's `pow` (~100 instructions), paid once per batch, and a
        // worker that wakes for one task runs a batch per task.
        let weight = (1.0 - ALPHA).powi(i32::try_from(polls).unwrap_or(i32::MAX));
        let alpha = 1.0 - weight;
        let mean_of_batch = elapsed.as_nanos() as f64 / polls as f64;
        self.mean_ns = alpha * mean_of_batch + (1.0 - alpha) * self.mean_ns;
    }

    /// The current average, in nanoseconds.
    pub(super) fn mean_nanos(&self) -> u64 {
        self.mean_ns as u64
    }

    /// The global queue interval the current average calls for.
    pub(super) fn interval(&self) -> u32 {
        // `f64 as u32` saturates (and maps NaN to 0): a zero mean gives
        // `u32::MAX`, clamped like any other.
        let ticks = (TARGET_INTERVAL_NS / self.mean_ns) as u32;
        ticks.clamp(MIN_INTERVAL, MAX_INTERVAL)
    }

    /// `next` if it differs enough from `current` to be worth a change.
    pub(super) fn retune(&self, current: u32) -> Option<u32> {
        let next = self.interval();
        (current.abs_diff(next) > 2).then_some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn micros(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    #[test]
    fn starts_at_the_old_fixed_interval() {
        assert_eq!(PollTime::new().interval(), INITIAL_INTERVAL);
        assert_eq!(PollTime::new().retune(INITIAL_INTERVAL), None);
    }

    #[test]
    fn slow_polls_shorten_the_interval_to_the_target_time() {
        let mut t = PollTime::new();
        // 61 polls of 50 µs: the batch nearly replaces the average.
        t.record_batch(micros(61 * 50), 61);
        assert_eq!(t.interval(), 4);
        assert_eq!(t.retune(61), Some(4));
        // Polls far longer than the target: never below 2.
        t.record_batch(micros(61 * 10_000), 61);
        assert_eq!(t.interval(), MIN_INTERVAL);
    }

    #[test]
    fn fast_polls_lengthen_it_up_to_the_cap() {
        let mut t = PollTime::new();
        t.record_batch(micros(100), 1_000);
        assert_eq!(t.interval(), MAX_INTERVAL);
        // A batch that took no measurable time.
        t.record_batch(Duration::ZERO, 1_000);
        assert_eq!(t.interval(), MAX_INTERVAL);
    }

    #[test]
    fn one_poll_only_nudges_the_average() {
        let mut t = PollTime::new();
        t.record_batch(micros(1_000), 1);
        // 0.9 * 3.3 µs + 0.1 * 1,000 µs = 103 µs: a single slow poll moves
        // the average a lot (interval 1.9, so the floor)...
        assert_eq!(t.interval(), MIN_INTERVAL);
        // ...but one batch of 61 normal polls brings it straight back.
        t.record_batch(micros(61 * 3), 61);
        assert!(t.interval() > 50, "{}", t.interval());
    }

    #[test]
    fn small_moves_are_not_worth_a_change() {
        let t = PollTime::new();
        assert_eq!(t.retune(INITIAL_INTERVAL + 2), None);
        assert_eq!(t.retune(INITIAL_INTERVAL - 2), None);
        assert_eq!(t.retune(INITIAL_INTERVAL + 3), Some(INITIAL_INTERVAL));
    }

    #[test]
    fn an_empty_batch_changes_nothing() {
        let mut t = PollTime::new();
        t.record_batch(micros(1_000_000), 0);
        assert_eq!(t.interval(), INITIAL_INTERVAL);
    }
}
