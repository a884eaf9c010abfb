//! The resource driver a scheduler parks on.
//!
//! A worker with nothing to run parks "on the driver": the driver is where
//! timers are fired (and where I/O readiness will be processed), and its
//! `Handle::unpark` is how other threads wake a parked worker. Parking
//! sleeps until unparked or until the next timer is due, then fires what is
//! due.
//!
//! Exactly one thread at a time owns the `Driver` (the current-thread
//! scheduler's core, or the one multi-thread worker that grabbed it when it
//! parked); the `Handle` is shared.
//!
//! Paused clock (`test-util`): when the clock is paused and nothing holds
//! auto-advance back, a park that would sleep until the next timer instead
//! checks for wake-ups without sleeping and, if nothing woke it, moves the
//! clock to that timer.

use crate::park::{ParkThread, UnparkThread};
#[cfg(feature = "time")]
use crate::time;

use std::io;
use std::time::Duration;

/// What the runtime was built with (without the `time` feature only the
/// thread parker is used).
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "time"), allow(dead_code))]
pub(crate) struct Cfg {
    #[allow(dead_code)]
    pub(crate) enable_io: bool,
    pub(crate) enable_time: bool,
    pub(crate) start_paused: bool,
    /// Whether the clock may be paused (current-thread runtimes only).
    pub(crate) enable_pausing: bool,
    /// Number of timer shards (one per worker).
    pub(crate) timer_shards: usize,
}

#[derive(Debug)]
pub(crate) struct Driver {
    park: ParkThread,
}

#[derive(Debug)]
pub(crate) struct Handle {
    unpark: UnparkThread,
    #[cfg(feature = "time")]
    time: Option<time::driver::Handle>,
    #[cfg(feature = "time")]
    clock: time::clock::Clock,
}

impl Driver {
    #[cfg_attr(not(feature = "time"), allow(unused_variables))]
    #[track_caller]
    pub(crate) fn new(cfg: Cfg) -> io::Result<(Driver, Handle)> {
        let park = ParkThread::new();
        let unpark = park.unpark();
        #[cfg(feature = "time")]
        let clock = time::clock::Clock::new(cfg.enable_pausing, cfg.start_paused);
        #[cfg(feature = "time")]
        let time = cfg.enable_time.then(|| {
            time::driver::Handle::new(cfg.timer_shards, time::driver::TimeSource::new(&clock))
        });
        Ok((
            Driver { park },
            Handle {
                unpark,
                #[cfg(feature = "time")]
                time,
                #[cfg(feature = "time")]
                clock,
            },
        ))
    }

    /// Sleeps until unparked or until the next timer, then fires what is
    /// due.
    pub(crate) fn park(&mut self, handle: &Handle) {
        self.park_internal(handle, None);
    }

    /// Fires what is due and sleeps at most `duration` (zero: only
    /// process what is ready).
    pub(crate) fn park_timeout(&mut self, handle: &Handle, duration: Duration) {
        self.park_internal(handle, Some(duration));
    }

    #[cfg(not(feature = "time"))]
    fn park_internal(&mut self, _handle: &Handle, limit: Option<Duration>) {
        match limit {
            Some(d) => self.park.park_timeout(d),
            None => self.park.park(),
        }
    }

    #[cfg(feature = "time")]
    fn park_internal(&mut self, handle: &Handle, limit: Option<Duration>) {
        let Some(time) = &handle.time else {
            match limit {
                Some(d) => self.park.park_timeout(d),
                None => self.park.park(),
            }
            return;
        };
        if limit == Some(Duration::ZERO) {
            // A maintenance tick: consume a pending unpark, fire what is due.
            self.park.park_timeout(Duration::ZERO);
            time.process(time.source().now(&handle.clock));
            return;
        }
        match time.prepare_park() {
            Some(when) => {
                let now = time.source().now(&handle.clock);
                let mut duration = time.source().tick_to_duration(when.saturating_sub(now));
                if duration > Duration::ZERO {
                    if let Some(limit) = limit {
                        duration = duration.min(limit);
                    }
                    self.park_thread_timeout(handle, time, duration);
                } else {
                    self.park.park_timeout(Duration::ZERO);
                }
            }
            None => match limit {
                Some(d) => self.park_thread_timeout(handle, time, d),
                None => self.park.park(),
            },
        }
        time.after_park();
        time.process(time.source().now(&handle.clock));
    }

    #[cfg(all(feature = "time", feature = "test-util"))]
    fn park_thread_timeout(&mut self, handle: &Handle, time: &time::driver::Handle, d: Duration) {
        if handle.clock.can_auto_advance() {
            // Paused and idle: see whether anything woke us, and if not,
            // jump the clock to the deadline instead of sleeping.
            self.park.park_timeout(Duration::ZERO);
            if !time.take_did_wake() {
                if let Err(msg) = handle.clock.advance(d) {
                    panic!("{}", msg);
                }
            }
        } else {
            self.park.park_timeout(d);
        }
    }

    #[cfg(all(feature = "time", not(feature = "test-util")))]
    fn park_thread_timeout(&mut self, _handle: &Handle, _time: &time::driver::Handle, d: Duration) {
        self.park.park_timeout(d);
    }

    /// Fires every timer (they then report the shutdown) and wakes
    /// everything parked on the driver for good.
    pub(crate) fn shutdown(&mut self, handle: &Handle) {
        handle.shutdown_timers();
        self.park.shutdown();
    }
}

impl Handle {
    /// Wakes the thread parked on the driver (or makes its next park return
    /// at once).
    pub(crate) fn unpark(&self) {
        #[cfg(all(feature = "time", feature = "test-util"))]
        if let Some(time) = &self.time {
            time.note_unpark();
        }
        self.unpark.unpark();
    }

    /// Shuts the timers down (idempotent). Any thread may call it.
    pub(crate) fn shutdown_timers(&self) {
        #[cfg(feature = "time")]
        if let Some(time) = &self.time {
            time.shutdown();
        }
    }

    /// The time driver, if the runtime enabled time.
    #[cfg(feature = "time")]
    pub(crate) fn time(&self) -> Option<&time::driver::Handle> {
        self.time.as_ref()
    }

    /// The runtime's clock (read by `test-util`'s paused `Instant::now`).
    #[cfg(feature = "time")]
    #[cfg_attr(not(feature = "test-util"), allow(dead_code))]
    pub(crate) fn clock(&self) -> &time::clock::Clock {
        &self.clock
    }

    /// Fires the due timers of one shard (a busy worker's maintenance when
    /// another thread holds the driver).
    #[cfg_attr(not(feature = "rt-multi-thread"), allow(dead_code))]
    pub(crate) fn process_timer_shard(&self, _index: usize) {
        #[cfg(feature = "time")]
        if let Some(time) = &self.time {
            time.process_shard(_index % time.num_shards(), time.source().now(&self.clock));
        }
    }
}
