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
    #[cfg_attr(not(feature = "net"), allow(dead_code))]
    pub(crate) enable_io: bool,
    pub(crate) enable_time: bool,
    pub(crate) start_paused: bool,
    /// Whether the clock may be paused (current-thread runtimes only).
    pub(crate) enable_pausing: bool,
    /// Number of timer shards (one per worker).
    pub(crate) timer_shards: usize,
    /// `Builder::enable_alt_timer` (`runtime/switches.rs`).
    pub(crate) alt_timer: bool,
    /// I/O events per driver poll, and per poll that does not wait.
    #[cfg_attr(not(feature = "net"), allow(dead_code))]
    pub(crate) nevents: usize,
    #[cfg_attr(not(feature = "net"), allow(dead_code))]
    pub(crate) nevents_busy: Option<usize>,
}

#[derive(Debug)]
pub(crate) struct Driver {
    park: IoStack,
}

/// What the driver sleeps in: the I/O driver's `poll` when I/O is enabled,
/// a thread parker otherwise.
#[derive(Debug)]
enum IoStack {
    #[cfg(feature = "net")]
    Enabled(crate::io_driver::Driver),
    Disabled(ParkThread),
}

#[derive(Debug)]
pub(crate) struct Handle {
    /// `None` when the I/O driver's waker does the unparking.
    unpark: Option<UnparkThread>,
    #[cfg(feature = "net")]
    io: Option<crate::io_driver::Handle>,
    #[cfg(feature = "time")]
    time: Option<time::driver::Handle>,
    #[cfg(feature = "time")]
    clock: time::clock::Clock,
}

impl Driver {
    #[cfg_attr(not(feature = "time"), allow(unused_variables))]
    #[track_caller]
    pub(crate) fn new(cfg: Cfg) -> io::Result<(Driver, Handle)> {
        #[cfg(feature = "net")]
        let (park, unpark, io) = if cfg.enable_io {
            let (driver, handle) = crate::io_driver::Driver::new(cfg.nevents, cfg.nevents_busy)?;
            (IoStack::Enabled(driver), None, Some(handle))
        } else {
            let park = ParkThread::new();
            let unpark = park.unpark();
            (IoStack::Disabled(park), Some(unpark), None)
        };
        #[cfg(not(feature = "net"))]
        let (park, unpark) = {
            let park = ParkThread::new();
            let unpark = park.unpark();
            (IoStack::Disabled(park), Some(unpark))
        };
        #[cfg(feature = "time")]
        let clock = time::clock::Clock::new(cfg.enable_pausing, cfg.start_paused);
        #[cfg(feature = "time")]
        let time = cfg.enable_time.then(|| {
            let source = time::driver::TimeSource::new(&clock);
            let mut time = time::driver::Handle::new(cfg.timer_shards, source);
            time.fired_by_shutdown_elapses = cfg.alt_timer;
            time
        });
        Ok((
            Driver { park },
            Handle {
                unpark,
                #[cfg(feature = "net")]
                io,
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
    fn park_internal(&mut self, handle: &Handle, limit: Option<Duration>) {
        self.park_io(handle, limit);
    }

    /// Sleeps in the I/O driver (dispatching its events) or the thread
    /// parker, at most `limit`.
    fn park_io(&mut self, _handle: &Handle, limit: Option<Duration>) {
        match &mut self.park {
            #[cfg(feature = "net")]
            IoStack::Enabled(io) => {
                let handle = _handle.io.as_ref().expect("I/O handle missing");
                io.turn(handle, limit);
            }
            IoStack::Disabled(park) => match limit {
                Some(d) => park.park_timeout(d),
                None => park.park(),
            },
        }
    }

    #[cfg(feature = "time")]
    fn park_internal(&mut self, handle: &Handle, limit: Option<Duration>) {
        let Some(time) = &handle.time else {
            self.park_io(handle, limit);
            return;
        };
        if limit == Some(Duration::ZERO) {
            // A maintenance tick: consume a pending unpark, fire what is due.
            self.park_io(handle, Some(Duration::ZERO));
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
                    self.park_io(handle, Some(Duration::ZERO));
                }
            }
            None => match limit {
                Some(d) => self.park_thread_timeout(handle, time, d),
                None => self.park_io(handle, None),
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
            self.park_io(handle, Some(Duration::ZERO));
            if !time.take_did_wake() {
                if let Err(msg) = handle.clock.advance(d) {
                    panic!("{}", msg);
                }
            }
        } else {
            self.park_io(handle, Some(d));
        }
    }

    #[cfg(all(feature = "time", not(feature = "test-util")))]
    fn park_thread_timeout(&mut self, handle: &Handle, _time: &time::driver::Handle, d: Duration) {
        self.park_io(handle, Some(d));
    }

    /// Fires every timer (they then report the shutdown) and wakes
    /// everything parked on the driver for good.
    pub(crate) fn shutdown(&mut self, handle: &Handle) {
        handle.shutdown_timers();
        match &mut self.park {
            #[cfg(feature = "net")]
            IoStack::Enabled(io) => {
                if let Some(h) = &handle.io {
                    io.shutdown(h);
                }
            }
            IoStack::Disabled(park) => park.shutdown(),
        }
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
        match &self.unpark {
            Some(unpark) => unpark.unpark(),
            #[cfg(feature = "net")]
            None => self.io.as_ref().expect("I/O handle missing").unpark(),
            #[cfg(not(feature = "net"))]
            None => unreachable!("no I/O driver without the `net` feature"),
        }
    }

    /// Notes a wake-up from the runtime's own thread (a task scheduled
    /// there, say by an I/O event while the driver polls): nothing to
    /// unpark, but a paused clock must not auto-advance past it, as tokio.
    #[inline]
    pub(crate) fn unpark_self(&self) {
        #[cfg(all(feature = "time", feature = "test-util"))]
        if let Some(time) = &self.time {
            time.note_unpark();
        }
    }

    /// The I/O driver, if the runtime enabled I/O.
    #[cfg(feature = "net")]
    pub(crate) fn io(&self) -> Option<&crate::io_driver::Handle> {
        self.io.as_ref()
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
