//! Waiting for a child to exit without blocking a worker, and reaping
//! children whose `Child` was dropped unwaited.
//!
//! On Linux 5.3+ a child is watched through a pidfd (`pidfd_open`), which
//! becomes readable when the child exits: it is registered with the I/O
//! driver like a socket, so each waiting task is woken for its own child
//! only. Where `pidfd_open` is unavailable, waiting falls back to the
//! `SIGCHLD` listener (every exit wakes every waiter, which then checks
//! its own child with a non-blocking `waitpid`). Either way the listener
//! is set up *before* the first `try_wait`, so an exit between the check
//! and the wait cannot be missed.
//!
//! Orphans: a `Child` dropped while its process still runs is pushed on a
//! global list; the list is swept (non-blocking `waitpid` on each) whenever
//! a process is spawned or a wait completes, so zombies do not pile up.

use crate::io::unix::AsyncFd;
use crate::signal::unix::{Signal, SignalKind, signal};

use std::io;
use std::os::unix::io::{FromRawFd, OwnedFd};
use std::sync::Mutex;
use std::task::{Context, Poll, ready};

/// How a waiting task learns that its child may have exited.
#[derive(Debug)]
pub(super) enum ExitWatch {
    Pidfd(AsyncFd<OwnedFd>),
    Sigchld(Signal),
}

impl ExitWatch {
    pub(super) fn new(pid: u32) -> io::Result<ExitWatch> {
        if let Some(fd) = pidfd_open(pid) {
            // SAFETY: `fd` is an `OwnedFd`: its descriptor stays open, and
            // the same, for as long as the `AsyncFd` owns it.
            let fd = unsafe { AsyncFd::register_with_interest(fd, crate::io::Interest::READABLE) }?;
            return Ok(ExitWatch::Pidfd(fd));
        }
        Ok(ExitWatch::Sigchld(signal(SignalKind::child())?))
    }

    /// `Ready` when the child may have exited (check with `try_wait`).
    ///
    /// A pidfd watch registered with a runtime that has since shut down
    /// (the child was spawned in one runtime and is awaited in another) is
    /// set up again in the current one; that also reports `Ready`, because
    /// the exit may have happened while nobody watched.
    pub(super) fn poll(&mut self, pid: u32, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let stale = match self {
            ExitWatch::Pidfd(fd) => match ready!(fd.poll_read_ready(cx)) {
                // Readable stays readable once the child exited: no need
                // to clear it.
                Ok(_guard) => false,
                Err(e) if crate::runtime::is_rt_shutdown_err(&e) => true,
                Err(e) => return Poll::Ready(Err(e)),
            },
            // The signal registry is process-wide: a listener outlives the
            // runtime that made it (and `poll_recv` never ends).
            ExitWatch::Sigchld(sig) => {
                ready!(sig.poll_recv(cx));
                false
            }
        };
        if stale {
            *self = ExitWatch::new(pid)?;
        }
        Poll::Ready(Ok(()))
    }
}

#[cfg(target_os = "linux")]
fn pidfd_open(pid: u32) -> Option<OwnedFd> {
    let pid = libc::pid_t::try_from(pid).ok()?;
    // SAFETY: `pidfd_open(pid, 0)` takes no pointers; on success it
    // returns a new descriptor that we own.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return None;
    }
    let fd = i32::try_from(fd).ok()?;
    // SAFETY: `fd` was just returned by the kernel and nobody else owns
    // it.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

#[cfg(not(target_os = "linux"))]
fn pidfd_open(_pid: u32) -> Option<OwnedFd> {
    None
}

static ORPHANS: Mutex<Vec<std::process::Child>> = Mutex::new(Vec::new());

/// Keeps an unwaited child to be reaped later.
pub(super) fn push_orphan(child: std::process::Child) {
    ORPHANS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(child);
    reap_orphans();
}

/// Reaps every orphan that has exited (never blocks).
pub(super) fn reap_orphans() {
    let mut orphans = match ORPHANS.try_lock() {
        Ok(guard) => guard,
        Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
        // Someone else is sweeping right now.
        Err(std::sync::TryLockError::WouldBlock) => return,
    };
    orphans.retain_mut(|c| matches!(c.try_wait(), Ok(None)));
}
