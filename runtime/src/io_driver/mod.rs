//! The I/O driver: one mio `Poll` per runtime.
//!
//! # Protocol
//!
//! * Whichever worker parks on the runtime's driver polls mio (with the
//!   next timer as timeout); other threads interrupt it through a
//!   `mio::Waker` (token `WAKE_TOKEN`).
//! * Registrations live in a `slab` of `Arc<ScheduledIo>` under a mutex;
//!   a resource's mio token is its slab key plus a generation in the high
//!   bits, so an event that arrives for a key freed and reused meanwhile
//!   (deregistration raced the poll) finds a different token and is
//!   dropped.
//! * A turn polls, then, under the slab lock, collects pointers to the
//!   `ScheduledIo`s the events name (into a reused vector: no allocation
//!   per turn once warm), releases the lock, stamps each with the turn's
//!   tick and wakes its readers and/or writers (`scheduled_io` explains
//!   ticks).
//! * Deregistering takes a resource out of the slab but keeps its `Arc` in
//!   `pending_release` until the start of the next turn, so the pointers a
//!   turn collected stay valid while it dispatches without the lock and
//!   without an `Arc` clone per event (only the driver frees them, and only
//!   between turns).
//! * Shutdown marks every registered resource shut down and wakes all its
//!   waiters; their I/O then fails with tokio's shutdown error.

#[cfg(all(test, loom))]
mod loom_tests;
mod poll_evented;
mod registration;
mod scheduled_io;

pub(crate) use poll_evented::PollEvented;
pub(crate) use registration::Registration;
pub(crate) use scheduled_io::{Direction, ReadyEvent, ScheduledIo};

use crate::io::Ready;
use crate::loom::sync::Mutex;
use crate::loom::sync::atomic::{AtomicBool, Ordering::SeqCst};

use std::fmt;
use std::io;
use std::sync::Arc;
// Metrics only: not part of any protocol loom checks.
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// The waker's token (never a slab key: keys use the low bits).
const WAKE_TOKEN: mio::Token = mio::Token(usize::MAX);
/// The process-wide signal pipe's token (top bit set: never a slab
/// token, whose generation bits stop short of it).
#[cfg(feature = "signal")]
const SIGNAL_TOKEN: mio::Token = mio::Token(usize::MAX - 1);
/// Low bits of a token: the slab key.
const KEY_BITS: u32 = 24;
const KEY_MASK: usize = (1 << KEY_BITS) - 1;
/// Released resources that make a parked driver turn to free them.
const RELEASE_BATCH: usize = 16;
/// The half owned by the parking thread.
pub(crate) struct Driver {
    poll: mio::Poll,
    events: mio::Events,
    /// A smaller buffer for polls that do not wait, when the builder set
    /// `max_io_events_per_busy_tick` below `max_io_events_per_tick`: the
    /// batch a busy worker takes (the rest stays in the kernel).
    busy_events: Option<mio::Events>,
    tick: u8,
    /// Resources named by this turn's events (reused). Each pointer is
    /// kept alive by the slab or by `pending_release` until the next turn.
    ready: Vec<(std::ptr::NonNull<ScheduledIo>, Ready)>,
    /// The previous turn's `pending_release`, emptied outside the lock
    /// (reused).
    released: Vec<Arc<ScheduledIo>>,
}

// SAFETY: the pointers in `ready` only live during `turn` (the vector is
// empty between turns); `Driver` is moved between threads only between
// turns, and `ScheduledIo` is `Sync`.
unsafe impl Send for Driver {}

/// The shared half.
pub(crate) struct Handle {
    registry: mio::Registry,
    registrations: Mutex<Registrations>,
    waker: mio::Waker,
    is_shutdown: AtomicBool,
    /// Whether the signal pipe is registered with this driver's `Poll`.
    #[cfg(feature = "signal")]
    signals: std::sync::OnceLock<io::Result<()>>,
    /// Counters for `RuntimeMetrics` (Relaxed: each is read on its own).
    pub(crate) metrics: IoDriverMetrics,
}

/// What `RuntimeMetrics::io_driver_*` read.
#[derive(Debug, Default)]
pub(crate) struct IoDriverMetrics {
    pub(crate) fd_registered_count: AtomicU64,
    pub(crate) fd_deregistered_count: AtomicU64,
    pub(crate) ready_count: AtomicU64,
}

struct Registrations {
    slab: slab::Slab<Arc<ScheduledIo>>,
    /// Deregistered resources, freed at the start of the next turn (see
    /// the module docs).
    pending_release: Vec<Arc<ScheduledIo>>,
    /// Bumped on every registration, stored in the token's high bits.
    generation: usize,
}

impl Driver {
    /// `nevents`: events taken per poll; `nevents_busy`: per poll that
    /// does not wait (`None`: the same).
    pub(crate) fn new(nevents: usize, nevents_busy: Option<usize>) -> io::Result<(Driver, Handle)> {
        let poll = mio::Poll::new()?;
        let waker = mio::Waker::new(poll.registry(), WAKE_TOKEN)?;
        let registry = poll.registry().try_clone()?;
        Ok((
            Driver {
                poll,
                events: mio::Events::with_capacity(nevents),
                busy_events: nevents_busy
                    .filter(|&n| n < nevents)
                    .map(mio::Events::with_capacity),
                tick: 0,
                ready: Vec::new(),
                released: Vec::new(),
            },
            Handle {
                registry,
                registrations: Mutex::new(Registrations {
                    slab: slab::Slab::new(),
                    pending_release: Vec::new(),
                    generation: 0,
                }),
                waker,
                is_shutdown: AtomicBool::new(false),
                #[cfg(feature = "signal")]
                signals: std::sync::OnceLock::new(),
                metrics: IoDriverMetrics::default(),
            },
        ))
    }

    /// Waits for events (at most `timeout`), then dispatches them.
    pub(crate) fn turn(&mut self, handle: &Handle, timeout: Option<Duration>) {
        let events = match &mut self.busy_events {
            Some(busy) if timeout == Some(Duration::ZERO) => busy,
            _ => &mut self.events,
        };
        match self.poll.poll(events, timeout) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return,
            Err(e) => panic!("unexpected error when polling the I/O driver: {e:?}"),
        }
        self.tick = self.tick.wrapping_add(1);
        #[cfg(feature = "signal")]
        let mut signalled = false;
        {
            let mut regs = handle.registrations.lock();
            // No pointer of an earlier turn is in use any more.
            std::mem::swap(&mut regs.pending_release, &mut self.released);
            for event in events.iter() {
                let token = event.token();
                if token == WAKE_TOKEN {
                    continue;
                }
                #[cfg(feature = "signal")]
                if token == SIGNAL_TOKEN {
                    signalled = true;
                    continue;
                }
                if let Some(io) = regs.slab.get(token.0 & KEY_MASK) {
                    if io.token() == token.0 {
                        let ptr = std::ptr::NonNull::from(&**io);
                        self.ready.push((ptr, Ready::from_mio(event)));
                    }
                }
            }
        }
        // Dropped outside the lock (their wakers were cleared on release).
        self.released.clear();
        if !self.ready.is_empty() {
            let n = self.ready.len() as u64;
            handle.metrics.ready_count.fetch_add(n, Relaxed);
        }
        for (io, ready) in self.ready.drain(..) {
            // SAFETY: the resource was in the slab under the lock above; if
            // it has been released since, its `Arc` waits in
            // `pending_release`, which only the next turn empties.
            let io = unsafe { io.as_ref() };
            io.set_readiness(self.tick, ready);
            io.wake(ready);
        }
        #[cfg(feature = "signal")]
        if signalled {
            crate::signal::registry::dispatch();
        }
    }

    /// Shuts every resource down (their waiters wake with an error).
    pub(crate) fn shutdown(&mut self, handle: &Handle) {
        if handle.is_shutdown.swap(true, SeqCst) {
            return;
        }
        let ios: Vec<_> = {
            let regs = handle.registrations.lock();
            regs.slab.iter().map(|(_, io)| io.clone()).collect()
        };
        for io in ios {
            io.shutdown();
        }
    }
}

impl Handle {
    /// Interrupts a thread blocked in `turn`.
    pub(crate) fn unpark(&self) {
        self.waker.wake().expect("failed to wake I/O driver");
    }

    pub(crate) fn is_shutdown(&self) -> bool {
        self.is_shutdown.load(SeqCst)
    }

    /// Registers the process-wide signal pipe with this driver (once; its
    /// events make `turn` dispatch signals).
    #[cfg(feature = "signal")]
    pub(crate) fn enable_signals(&self, fd: std::os::unix::io::RawFd) -> io::Result<()> {
        self.signals
            .get_or_init(|| {
                self.registry.register(
                    &mut mio::unix::SourceFd(&fd),
                    SIGNAL_TOKEN,
                    mio::Interest::READABLE,
                )
            })
            .as_ref()
            .map(drop)
            .map_err(|e| io::Error::new(e.kind(), e.to_string()))
    }

    /// Registers `source`; returns its readiness record.
    pub(crate) fn add_source(
        &self,
        source: &mut impl mio::event::Source,
        interest: mio::Interest,
    ) -> io::Result<Arc<ScheduledIo>> {
        let io = {
            let mut regs = self.registrations.lock();
            if self.is_shutdown() {
                return Err(shutdown_error());
            }
            regs.generation = regs.generation.wrapping_add(1) & (usize::MAX >> KEY_BITS >> 1);
            let generation = regs.generation;
            let entry = regs.slab.vacant_entry();
            let key = entry.key();
            if key > KEY_MASK {
                return Err(io::Error::other("reactor at max registered I/O resources"));
            }
            let token = (generation << KEY_BITS) | key;
            let io = Arc::new(ScheduledIo::new(token));
            entry.insert(io.clone());
            io
        };
        if let Err(e) = self
            .registry
            .register(source, mio::Token(io.token()), interest)
        {
            self.release(&io);
            return Err(e);
        }
        self.metrics.fd_registered_count.fetch_add(1, Relaxed);
        Ok(io)
    }

    /// Deregisters `source` and frees its slot.
    pub(crate) fn deregister_source(
        &self,
        io: &Arc<ScheduledIo>,
        source: &mut impl mio::event::Source,
    ) -> io::Result<()> {
        let res = self.registry.deregister(source);
        self.release(io);
        if res.is_ok() {
            self.metrics.fd_deregistered_count.fetch_add(1, Relaxed);
        }
        res
    }

    /// Frees `io`'s slab slot (if it still holds `io`); the driver lets go
    /// of it at its next turn.
    pub(crate) fn release(&self, io: &Arc<ScheduledIo>) {
        let wake_driver = {
            let mut regs = self.registrations.lock();
            let key = io.token() & KEY_MASK;
            if matches!(regs.slab.get(key), Some(cur) if Arc::ptr_eq(cur, io)) {
                let removed = regs.slab.remove(key);
                regs.pending_release.push(removed);
                regs.pending_release.len() == RELEASE_BATCH
            } else {
                false
            }
        };
        io.clear_wakers();
        if wake_driver {
            // A parked driver frees nothing: make it turn (tokio's bound).
            let _ = self.waker.wake();
        }
    }
}

/// The error I/O on a shut-down runtime fails with (tokio's text).
pub(crate) fn shutdown_error() -> io::Error {
    io::Error::other(crate::context::RUNTIME_SHUTTING_DOWN_ERROR)
}

impl fmt::Debug for Driver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("io::Driver").finish()
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("io::Handle").finish()
    }
}
