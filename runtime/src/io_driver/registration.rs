//! `Registration`: a resource's link to the I/O driver, and the
//! poll-then-retry loop every I/O type is built on.

use super::{Direction, ReadyEvent, ScheduledIo};
use crate::io::Interest;
use crate::scheduler;

use std::io;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

/// A registered resource (deregistered from the slab when dropped; the
/// owner deregisters the source itself, as it owns the fd).
#[derive(Debug)]
pub(crate) struct Registration {
    handle: scheduler::Handle,
    shared: Arc<ScheduledIo>,
}

const IO_DISABLED: &str = "A Tokio 1.x context was found, but IO is disabled. \
     Call `enable_io` on the runtime builder to enable IO.";

impl Registration {
    /// Registers `source` with the current runtime's I/O driver.
    ///
    /// # Panics
    ///
    /// Outside of a runtime, or when the runtime has no I/O enabled, with
    /// tokio's messages.
    #[track_caller]
    pub(crate) fn new_with_interest(
        source: &mut impl mio::event::Source,
        interest: Interest,
    ) -> io::Result<Registration> {
        let handle = match crate::context::with_current(Clone::clone) {
            Ok(h) => h,
            Err(e) => panic!("{}", e),
        };
        Self::new_with_interest_and_handle(source, interest, handle)
    }

    #[track_caller]
    pub(crate) fn new_with_interest_and_handle(
        source: &mut impl mio::event::Source,
        interest: Interest,
        handle: scheduler::Handle,
    ) -> io::Result<Registration> {
        let io = handle.driver().io().expect(IO_DISABLED);
        let shared = io.add_source(source, interest.to_mio())?;
        Ok(Registration { handle, shared })
    }

    fn io_handle(&self) -> &super::Handle {
        self.handle.driver().io().expect(IO_DISABLED)
    }

    /// Deregisters `source` from the driver.
    pub(crate) fn deregister(&mut self, source: &mut impl mio::event::Source) -> io::Result<()> {
        self.io_handle().deregister_source(&self.shared, source)
    }

    /// Marks the resource ready without waiting for the driver's first
    /// event, for sockets whose state is known when they are made: an
    /// accepted socket is writable and usually already holds the peer's
    /// first bytes (under load, that first event queues behind every other
    /// connection's), a fresh `pair()` is writable. As tokio 1.54.
    #[cfg(feature = "net")]
    pub(crate) fn assume_ready(&self, ready: crate::io::Ready) {
        self.shared.assume_ready(ready);
    }

    pub(crate) fn clear_readiness(&self, event: ReadyEvent) {
        self.shared.clear_readiness(event);
    }

    pub(crate) fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<ReadyEvent>> {
        self.poll_ready(cx, Direction::Read)
    }

    pub(crate) fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<ReadyEvent>> {
        self.poll_ready(cx, Direction::Write)
    }

    /// Ready when the resource is ready for `direction`; spends coop
    /// budget; fails once the driver has shut down.
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<io::Result<ReadyEvent>> {
        let coop = ready!(crate::coop::poll_proceed(cx));
        let ev = ready!(self.shared.poll_readiness(cx, direction));
        if ev.is_shutdown {
            return Poll::Ready(Err(super::shutdown_error()));
        }
        coop.made_progress();
        Poll::Ready(Ok(ev))
    }

    /// Runs `f` until it does not report `WouldBlock`, waiting for
    /// readiness in `direction` in between.
    pub(crate) fn poll_io<R>(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        mut f: impl FnMut() -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        loop {
            let ev = ready!(self.poll_ready(cx, direction))?;
            match f() {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.clear_readiness(ev),
                res => return Poll::Ready(res),
            }
        }
    }

    /// Runs `f` once if the resource looks ready for `interest`; on
    /// `WouldBlock` clears that readiness.
    pub(crate) fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        let ev = self.shared.ready_event(interest);
        if ev.ready.is_empty() {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        match f() {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                self.clear_readiness(ev);
                Err(e)
            }
            res => res,
        }
    }

    /// Waits until the resource is ready for any of `interest` (any number
    /// of tasks may wait at once); fails once the driver has shut down.
    /// Spends no coop budget, as tokio's `ready()`/`readable()`/
    /// `writable()`: a task checking readiness in a loop around `try_*`
    /// calls is not made to yield by it.
    pub(crate) async fn readiness(&self, interest: Interest) -> io::Result<ReadyEvent> {
        let ev = self.shared.readiness(interest).await;
        if ev.is_shutdown {
            return Err(super::shutdown_error());
        }
        Ok(ev)
    }
}

impl Registration {
    /// Waits for readiness of `interest` (any number of tasks may wait),
    /// spends coop budget, runs `f`, and on `WouldBlock` clears that
    /// readiness and waits again:
    /// the `async_io`, `send`, `recv`, `peek`... of the socket types.
    pub(crate) async fn async_io<R>(
        &self,
        interest: Interest,
        mut f: impl FnMut() -> io::Result<R>,
    ) -> io::Result<R> {
        loop {
            let ev = self.readiness(interest).await?;
            // The operation spends budget, once it got past readiness; a
            // `WouldBlock` gives it back (the guard's drop).
            let coop = std::future::poll_fn(crate::coop::poll_proceed).await;
            match f() {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.clear_readiness(ev),
                res => {
                    coop.made_progress();
                    return res;
                }
            }
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        // The source itself is deregistered (or closed) by its owner; free
        // the slab slot and the stored wakers.
        if let Some(io) = self.handle.driver().io() {
            io.release(&self.shared);
        }
    }
}
