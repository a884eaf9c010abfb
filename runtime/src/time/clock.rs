//! The runtime's clock, and the `test-util` controls over it.
//!
//! Without `test-util`, [`Clock`] is empty and `now()` is the system's
//! monotonic clock.
//!
//! With `test-util`, every runtime's driver owns a `Clock`: a base instant,
//! and `unfrozen: Some(t)` while time flows (now = base + (t.elapsed())) or
//! `None` while paused (now = base). `pause` folds the elapsed time into
//! `base`; `advance` adds to it; `resume` restarts the flow. A process-wide
//! flag, set by the first `pause`, keeps `Instant::now()` on the fast path
//! (no thread-local lookup, no lock) in every process that never pauses.
//!
//! Auto-advance: while paused, a current-thread runtime whose tasks are all
//! idle jumps the clock to the next timer instead of sleeping (the driver
//! does it, see `time::driver`). `spawn_blocking` holds auto-advance back
//! while its closure runs (`inhibit_auto_advance`), since the blocking work
//! may be what the idle tasks wait for.

#[cfg(not(feature = "test-util"))]
mod imp {
    use crate::time::Instant;

    /// The system clock (no `test-util`).
    #[derive(Debug, Clone)]
    pub(crate) struct Clock {}

    pub(crate) fn now() -> Instant {
        Instant::from_std(std::time::Instant::now())
    }

    impl Clock {
        pub(crate) fn new(_enable_pausing: bool, _start_paused: bool) -> Clock {
            Clock {}
        }

        pub(crate) fn now(&self) -> Instant {
            now()
        }
    }
}

#[cfg(feature = "test-util")]
mod imp {
    use crate::loom::sync::Mutex;
    use crate::time::{Duration, Instant};
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Whether any clock of this process was ever paused. Release/Acquire:
    /// a thread that sees `true` also sees the paused clock's state (which
    /// it reads under the clock's lock anyway).
    static DID_PAUSE_CLOCK: AtomicBool = AtomicBool::new(false);

    const OUTSIDE_RUNTIME: &str = "time cannot be frozen from outside the Tokio runtime";

    /// A runtime's pausable clock.
    #[derive(Debug)]
    pub(crate) struct Clock {
        inner: Mutex<Inner>,
    }

    #[derive(Debug)]
    struct Inner {
        /// Only the current-thread runtime may pause.
        enable_pausing: bool,
        /// The instant the clock shows at `unfrozen` (or now, if paused).
        base: std::time::Instant,
        /// `Some(real instant)` while time flows, `None` while paused.
        unfrozen: Option<std::time::Instant>,
        /// Number of `spawn_blocking` closures in flight.
        auto_advance_inhibit_count: usize,
    }

    /// Runs `f` with the current runtime's clock, turning an `Err` into a
    /// panic at the caller.
    #[track_caller]
    fn with_clock<R>(f: impl FnOnce(Option<&Clock>) -> Result<R, &'static str>) -> R {
        let mut f = Some(f);
        let res =
            match crate::context::with_current(|h| (f.take().unwrap())(Some(h.driver().clock()))) {
                Ok(res) => res,
                Err(e) if e.is_missing_context() => (f.take().unwrap())(None),
                Err(_) => panic!("{}", crate::context::THREAD_LOCAL_DESTROYED_ERROR),
            };
        match res {
            Ok(ret) => ret,
            Err(msg) => panic!("{}", msg),
        }
    }

    /// Pauses time.
    ///
    /// The current value of `Instant::now()` is saved and all subsequent
    /// calls to `Instant::now()` return the saved value until [`resume`] is
    /// called or time is moved with [`advance`]. Sleeps whose deadline is
    /// reached by [`advance`] fire.
    ///
    /// If the runtime has no work to do, the clock auto-advances to the next
    /// pending timer: time appears to move instantly, which makes tests that
    /// sleep fast and deterministic.
    ///
    /// # Panics
    ///
    /// Panics if time is already frozen, if called outside of a runtime, or
    /// if the runtime is not a current-thread runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[volt_runtime::main(crate = "volt_runtime", flavor = "current_thread")]
    /// # async fn main() {
    /// use volt_runtime::time::{self, Duration, Instant};
    ///
    /// time::pause();
    /// let start = Instant::now();
    /// time::sleep(Duration::from_secs(3600)).await; // returns at once
    /// assert!(start.elapsed() >= Duration::from_secs(3600));
    /// # }
    /// ```
    ///
    /// [`resume`]: crate::time::resume
    /// [`advance`]: crate::time::advance
    #[track_caller]
    pub fn pause() {
        with_clock(|clock| match clock {
            Some(clock) => clock.pause(),
            None => Err(OUTSIDE_RUNTIME),
        })
    }

    /// Resumes time.
    ///
    /// Clears the saved `Instant::now()` value: time flows again from the
    /// instant it was paused at (plus any [`advance`](crate::time::advance)).
    ///
    /// # Panics
    ///
    /// Panics if time is not frozen or if called from outside of a runtime.
    #[track_caller]
    pub fn resume() {
        with_clock(|clock| {
            let clock = clock.ok_or(OUTSIDE_RUNTIME)?;
            let mut inner = clock.inner.lock();
            if inner.unfrozen.is_some() {
                return Err("time is not frozen");
            }
            inner.unfrozen = Some(std::time::Instant::now());
            Ok(())
        })
    }

    /// Advances time.
    ///
    /// Increments the saved `Instant::now()` value by `duration`, then
    /// yields so that timers that are now due fire (and the tasks waiting
    /// on them run) before this returns.
    ///
    /// # Panics
    ///
    /// Panics if time is not frozen or if called from outside of a runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[volt_runtime::main(crate = "volt_runtime", flavor = "current_thread")]
    /// # async fn main() {
    /// use volt_runtime::time::{self, Duration, Instant};
    ///
    /// time::pause();
    /// let start = Instant::now();
    /// time::advance(Duration::from_secs(5)).await;
    /// assert_eq!(start.elapsed(), Duration::from_secs(5));
    /// # }
    /// ```
    ///
    /// # Cancel safety
    ///
    /// The clock moves on the first poll; dropping the future before that
    /// leaves the clock alone, dropping it after only skips the yield.
    pub async fn advance(duration: Duration) {
        with_clock(|clock| {
            let clock = clock.ok_or(OUTSIDE_RUNTIME)?;
            clock.advance(duration)
        });
        crate::task::yield_now().await
    }

    /// The current time, following the current runtime's clock once any
    /// clock was paused.
    pub(crate) fn now() -> Instant {
        if !DID_PAUSE_CLOCK.load(Ordering::Acquire) {
            return Instant::from_std(std::time::Instant::now());
        }
        with_clock(|clock| {
            Ok(match clock {
                Some(clock) => clock.now(),
                None => Instant::from_std(std::time::Instant::now()),
            })
        })
    }

    impl Clock {
        #[track_caller]
        pub(crate) fn new(enable_pausing: bool, start_paused: bool) -> Clock {
            let now = std::time::Instant::now();
            let clock = Clock {
                inner: Mutex::new(Inner {
                    enable_pausing,
                    base: now,
                    unfrozen: Some(now),
                    auto_advance_inhibit_count: 0,
                }),
            };
            if start_paused {
                if let Err(msg) = clock.pause() {
                    panic!("{}", msg);
                }
            }
            clock
        }

        pub(crate) fn pause(&self) -> Result<(), &'static str> {
            let mut inner = self.inner.lock();
            if !inner.enable_pausing {
                return Err(
                    "`time::pause()` requires the `current_thread` Tokio runtime. \
                        This is the default Runtime used by `#[tokio::test].",
                );
            }
            DID_PAUSE_CLOCK.store(true, Ordering::Release);
            let elapsed = match inner.unfrozen.as_ref() {
                Some(v) => v.elapsed(),
                None => return Err("time is already frozen"),
            };
            inner.base += elapsed;
            inner.unfrozen = None;
            Ok(())
        }

        pub(crate) fn inhibit_auto_advance(&self) {
            self.inner.lock().auto_advance_inhibit_count += 1;
        }

        pub(crate) fn allow_auto_advance(&self) {
            self.inner.lock().auto_advance_inhibit_count -= 1;
        }

        pub(crate) fn can_auto_advance(&self) -> bool {
            let inner = self.inner.lock();
            inner.unfrozen.is_none() && inner.auto_advance_inhibit_count == 0
        }

        pub(crate) fn advance(&self, duration: Duration) -> Result<(), &'static str> {
            let mut inner = self.inner.lock();
            if inner.unfrozen.is_some() {
                return Err("time is not frozen");
            }
            inner.base += duration;
            Ok(())
        }

        pub(crate) fn now(&self) -> Instant {
            let inner = self.inner.lock();
            let mut now = inner.base;
            if let Some(unfrozen) = inner.unfrozen {
                now += unfrozen.elapsed();
            }
            Instant::from_std(now)
        }
    }
}

#[cfg(feature = "test-util")]
pub use imp::*;
#[cfg(not(feature = "test-util"))]
pub(crate) use imp::*;
