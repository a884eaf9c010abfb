//! `PollEvented`: a mio source registered with the driver, with the
//! read/write loops of the socket types.

use super::{Direction, Registration};
use crate::io::{Interest, ReadBuf};

use std::io::{self, Read, Write};
use std::ops::Deref;
use std::task::{Context, Poll, ready};

/// Owns a mio source and its registration; deregisters on drop.
pub(crate) struct PollEvented<E: mio::event::Source> {
    io: Option<E>,
    registration: Registration,
}

impl<E: mio::event::Source> PollEvented<E> {
    /// Registers `io` for reading and writing with the current runtime.
    #[track_caller]
    pub(crate) fn new(io: E) -> io::Result<Self> {
        Self::new_with_interest(io, Interest::READABLE.add(Interest::WRITABLE))
    }

    #[track_caller]
    pub(crate) fn new_with_interest(mut io: E, interest: Interest) -> io::Result<Self> {
        let registration = Registration::new_with_interest(&mut io, interest)?;
        Ok(PollEvented {
            io: Some(io),
            registration,
        })
    }

    pub(crate) fn registration(&self) -> &Registration {
        &self.registration
    }

    /// Deregisters and returns the source.
    pub(crate) fn into_inner(mut self) -> io::Result<E> {
        let mut io = self.io.take().expect("source taken");
        self.registration.deregister(&mut io)?;
        Ok(io)
    }

    /// Reads into `buf` once the source is readable (edge-triggered: a
    /// short read means the socket is drained, so readiness is cleared).
    pub(crate) fn poll_read<'a>(
        &'a self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>>
    where
        &'a E: Read + 'a,
    {
        loop {
            let ev = ready!(self.registration.poll_ready(cx, Direction::Read))?;
            // No zeroing of the spare capacity before each read (it was the
            // largest user-space cost of a busy HTTP server); tokio does the
            // same. `E` is one of mio's sockets or pipes, the only sources
            // registered through `PollEvented`.
            // SAFETY: `E::read` is `read(2)`/`recv(2)`: the kernel only
            // writes into the buffer, so uninitialized memory is fine.
            let b = unsafe {
                &mut *(buf.unfilled_mut() as *mut [std::mem::MaybeUninit<u8>] as *mut [u8])
            };
            let len = b.len();
            match self.io.as_ref().expect("source taken").read(b) {
                Ok(n) => {
                    // A short read drained the socket: clear the readiness
                    // now rather than paying a WouldBlock next time.
                    if n > 0 && n < len {
                        self.registration.clear_readiness(ev);
                    }
                    // SAFETY: the kernel initialized the first `n` bytes.
                    unsafe { buf.assume_init(n) };
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.registration.clear_readiness(ev);
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }

    /// Writes `buf` once the source is writable.
    pub(crate) fn poll_write<'a>(
        &'a self,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>>
    where
        &'a E: Write + 'a,
    {
        self.registration.poll_io(cx, Direction::Write, || {
            self.io.as_ref().expect("source taken").write(buf)
        })
    }

    /// Vectored write once the source is writable.
    pub(crate) fn poll_write_vectored<'a>(
        &'a self,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>>
    where
        &'a E: Write + 'a,
    {
        self.registration.poll_io(cx, Direction::Write, || {
            self.io.as_ref().expect("source taken").write_vectored(bufs)
        })
    }
}

// A panic cannot leave a registration half-updated in a way a caller
// could observe: readiness is a single atomic word and the waker slots
// are only touched under their own lock. As tokio, so that sockets,
// pipes and child stdio can cross `catch_unwind`.
impl<E: mio::event::Source> std::panic::UnwindSafe for PollEvented<E> {}
impl<E: mio::event::Source> std::panic::RefUnwindSafe for PollEvented<E> {}

impl<E: mio::event::Source> Deref for PollEvented<E> {
    type Target = E;

    fn deref(&self) -> &E {
        self.io.as_ref().expect("source taken")
    }
}

impl<E: mio::event::Source + std::fmt::Debug> std::fmt::Debug for PollEvented<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PollEvented").field("io", &self.io).finish()
    }
}

impl<E: mio::event::Source> Drop for PollEvented<E> {
    fn drop(&mut self) {
        if let Some(mut io) = self.io.take() {
            // Ignore errors: the fd is closed right after anyway.
            let _ = self.registration.deregister(&mut io);
        }
    }
}
