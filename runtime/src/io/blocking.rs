//! `Blocking<T>`: a `std::io::Read`/`Write` value driven on the blocking
//! pool, for the standard streams (and the shared `Buf` that `fs::File`
//! also uses).
//!
//! The value moves between two states. `Idle` holds the value and a buffer.
//! A read with nothing buffered moves both into a `spawn_blocking` closure
//! that reads up to `MAX_BUF` bytes (`Busy`); the next poll takes them
//! back with the bytes and copies out. A write copies the caller's bytes
//! into the buffer, hands buffer and value to a blocking `write_all`, and
//! reports the bytes as written at once; an error of that background write
//! comes back from the next write or flush (as a file's delayed write error
//! does in tokio). `flush` waits for the write in flight, then runs a
//! blocking `flush`.
//!
//! A blocking task that fails (panics, or is cancelled by a pool that shut
//! down) takes the value with it: the state becomes `Idle(None)` and every
//! later call fails, never polling the finished task again. Stdout and
//! stderr spawn their calls as mandatory (they run even if a shutdown
//! starts after the spawn); once the pool is gone they fail at once with
//! the runtime's shutdown error, as tokio's do.

use super::ReadBuf;
#[cfg(feature = "io-std")]
use crate::task::{JoinHandle, spawn_blocking};

#[cfg(feature = "io-std")]
use std::future::Future;
use std::io::{self, Read, Write};
#[cfg(feature = "io-std")]
use std::pin::Pin;
#[cfg(feature = "io-std")]
use std::task::{Context, Poll, ready};

/// The largest chunk one blocking call reads or writes (tokio's).
pub(crate) const MAX_BUF: usize = 2 * 1024 * 1024;

/// Bytes between the caller and a blocking call: `buf[pos..end]` are the
/// ones not handed out yet.
///
/// `buf.len()` only grows: bytes past `end` are left from earlier reads
/// and writes, already initialized, so a read into `buf[..max]` zeroes
/// only what the buffer never held. A file read in 64 KiB chunks zeroes
/// one chunk once, not once per read (each zeroing is a memory pass as
/// long as the read's own copy).
#[derive(Debug, Default)]
pub(crate) struct Buf {
    buf: Vec<u8>,
    pos: usize,
    end: usize,
}

impl Buf {
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn len(&self) -> usize {
        self.end - self.pos
    }

    /// Moves as much as fits into `dst`; returns how much.
    pub(crate) fn copy_to(&mut self, dst: &mut ReadBuf<'_>) -> usize {
        let n = self.len().min(dst.remaining());
        dst.put_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        if self.pos == self.end {
            self.clear();
        }
        n
    }

    /// Copies from the slices in order, up to `max` bytes in all (the
    /// buffer must be empty).
    pub(crate) fn copy_from_slices(&mut self, bufs: &[io::IoSlice<'_>], max: usize) -> usize {
        debug_assert!(self.is_empty());
        let total = bufs.iter().map(|b| b.len()).sum::<usize>().min(max);
        self.grow_to(total);
        let mut n = 0;
        for b in bufs {
            let take = b.len().min(total - n);
            self.buf[n..n + take].copy_from_slice(&b[..take]);
            n += take;
            if n == total {
                break;
            }
        }
        self.end = n;
        n
    }

    fn bytes(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    /// Makes `buf[..len]` addressable, zeroing only bytes it never held.
    fn grow_to(&mut self, len: usize) {
        if self.buf.len() < len {
            self.buf.resize(len, 0);
        }
    }

    pub(crate) fn clear(&mut self) {
        self.pos = 0;
        self.end = 0;
    }

    #[cfg(feature = "fs")]
    /// Forgets unread bytes, returning how many (a file seek must step
    /// back over them).
    pub(crate) fn discard_read(&mut self) -> i64 {
        let n = self.len() as i64;
        self.clear();
        -n
    }

    /// One blocking read of up to `max` bytes (retrying `Interrupted`).
    pub(crate) fn read_from<T: Read>(&mut self, rd: &mut T, max: usize) -> io::Result<usize> {
        debug_assert!(self.is_empty());
        self.grow_to(max);
        let res = loop {
            match rd.read(&mut self.buf[..max]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                res => break res,
            }
        };
        self.pos = 0;
        self.end = *res.as_ref().unwrap_or(&0);
        res
    }

    /// Blocking `write_all` of the buffered bytes; the buffer is empty
    /// afterwards either way.
    pub(crate) fn write_to<T: Write>(&mut self, wr: &mut T) -> io::Result<()> {
        let res = wr.write_all(self.bytes());
        self.clear();
        res
    }
}

/// The runtime's shutdown error (`runtime::is_rt_shutdown_err` knows it).
#[cfg(feature = "io-std")]
fn shutdown_error() -> io::Error {
    io::Error::other(crate::context::RUNTIME_SHUTTING_DOWN_ERROR)
}

/// The `io::Error` of a blocking I/O call whose task failed (it panicked,
/// or the pool shut down and cancelled it): tokio's, whatever happened.
pub(crate) fn join_error() -> io::Error {
    io::Error::other("background task failed")
}

#[cfg(feature = "io-std")]
enum State<T> {
    /// `None`: the value is gone, with a blocking task that failed or could
    /// not be spawned (the runtime shut down); every call fails.
    Idle(Option<Buf>),
    Busy(JoinHandle<(io::Result<usize>, Buf, T)>),
}

#[cfg(feature = "io-std")]
/// A blocking std I/O value, made async by running each call on the
/// blocking pool.
pub(crate) struct Blocking<T> {
    inner: Option<T>,
    state: State<T>,
    need_flush: bool,
    /// Calls are spawned as mandatory: once spawned, they run even if the
    /// runtime starts shutting down (stdout and stderr, as tokio's).
    mandatory: bool,
}

#[cfg(feature = "io-std")]
impl<T> std::fmt::Debug for Blocking<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Blocking")
            .field("busy", &matches!(self.state, State::Busy(_)))
            .finish()
    }
}

#[cfg(feature = "io-std")]
impl<T: Send + 'static> Blocking<T> {
    pub(crate) fn new(inner: T) -> Self {
        Blocking {
            inner: Some(inner),
            state: State::Idle(Some(Buf::default())),
            need_flush: false,
            mandatory: false,
        }
    }

    /// `new`, with calls that run even if a shutdown starts after they
    /// were spawned (and fail at once with the runtime's shutdown error if
    /// it already did).
    pub(crate) fn new_mandatory(inner: T) -> Self {
        Blocking {
            mandatory: true,
            ..Blocking::new(inner)
        }
    }

    /// Waits for the call in flight (if any) and takes back the value and
    /// buffer; returns the call's result. A failed task took the value
    /// with it: from then on every call fails.
    fn poll_idle(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        if let State::Busy(rx) = &mut self.state {
            let res = ready!(Pin::new(rx).poll(cx));
            // Never leave a finished handle in place: polling it again
            // panics.
            let Ok((res, buf, inner)) = res else {
                self.state = State::Idle(None);
                return Poll::Ready(Err(join_error()));
            };
            self.inner = Some(inner);
            self.state = State::Idle(Some(buf));
            return Poll::Ready(res);
        }
        Poll::Ready(Ok(0))
    }

    /// The value and buffer, to move into a blocking call; the runtime's
    /// shutdown error once they are gone.
    fn idle_parts(&mut self) -> io::Result<(Buf, T)> {
        let State::Idle(buf) = &mut self.state else {
            unreachable!("idle_parts while a call is in flight")
        };
        match (buf.take(), self.inner.take()) {
            (Some(buf), Some(inner)) => Ok((buf, inner)),
            _ => Err(shutdown_error()),
        }
    }

    /// Runs `f` on the blocking pool (`Busy`), or fails with the runtime's
    /// shutdown error if a mandatory call cannot be spawned any more.
    fn start<F>(&mut self, f: F) -> io::Result<()>
    where
        F: FnOnce() -> (io::Result<usize>, Buf, T) + Send + 'static,
    {
        if !self.mandatory {
            self.state = State::Busy(spawn_blocking(f));
            return Ok(());
        }
        match crate::blocking::pool::spawn_mandatory_blocking(f) {
            Some(handle) => {
                self.state = State::Busy(handle);
                Ok(())
            }
            None => {
                // The value went with the unspawned closure.
                self.state = State::Idle(None);
                Err(shutdown_error())
            }
        }
    }
}

#[cfg(feature = "io-std")]
impl<T: Read + Send + 'static> Blocking<T> {
    pub(crate) fn poll_read(
        &mut self,
        cx: &mut Context<'_>,
        dst: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            match &mut self.state {
                State::Idle(Some(buf)) if !buf.is_empty() => {
                    buf.copy_to(dst);
                    return Poll::Ready(Ok(()));
                }
                State::Idle(_) => {
                    let (mut buf, mut inner) = self.idle_parts()?;
                    let max = dst.remaining().min(MAX_BUF);
                    self.start(move || {
                        let res = buf.read_from(&mut inner, max);
                        (res, buf, inner)
                    })?;
                }
                State::Busy(_) => {
                    let res = ready!(self.poll_idle(cx));
                    if let State::Idle(Some(buf)) = &mut self.state {
                        buf.copy_to(dst);
                    }
                    return Poll::Ready(res.map(drop));
                }
            }
        }
    }
}

#[cfg(feature = "io-std")]
impl<T: Write + Send + 'static> Blocking<T> {
    pub(crate) fn poll_write(
        &mut self,
        cx: &mut Context<'_>,
        src: &[u8],
    ) -> Poll<io::Result<usize>> {
        // A failed earlier write reports here.
        ready!(self.poll_idle(cx))?;
        let (mut buf, mut inner) = self.idle_parts()?;
        let n = buf.copy_from_slices(&[io::IoSlice::new(src)], MAX_BUF);
        self.start(move || {
            let res = buf.write_to(&mut inner).map(|()| n);
            (res, buf, inner)
        })?;
        self.need_flush = true;
        Poll::Ready(Ok(n))
    }

    pub(crate) fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            ready!(self.poll_idle(cx))?;
            if !self.need_flush {
                return Poll::Ready(Ok(()));
            }
            self.need_flush = false;
            let (buf, mut inner) = self.idle_parts()?;
            self.start(move || {
                let res = inner.flush().map(|()| 0);
                (res, buf, inner)
            })?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(buf: &mut Buf, chunk: usize) -> Vec<u8> {
        let mut out = Vec::new();
        while !buf.is_empty() {
            let mut space = vec![0u8; chunk];
            let mut dst = ReadBuf::new(&mut space);
            buf.copy_to(&mut dst);
            out.extend_from_slice(dst.filled());
        }
        out
    }

    #[test]
    fn a_short_read_after_a_long_one_shows_only_its_own_bytes() {
        let mut buf = Buf::default();
        let long: Vec<u8> = (0..100u8).collect();
        assert_eq!(buf.read_from(&mut &long[..], 64).unwrap(), 64);
        assert_eq!(read_all(&mut buf, 10), &long[..64]);
        // The stale bytes 3.. of the first read stay in the storage and
        // must not be handed out.
        assert_eq!(buf.read_from(&mut &b"abc"[..], 64).unwrap(), 3);
        assert_eq!(buf.len(), 3);
        assert_eq!(read_all(&mut buf, 64), b"abc");
        assert_eq!(buf.read_from(&mut &b""[..], 64).unwrap(), 0);
        assert!(buf.is_empty());
    }

    #[test]
    fn writes_take_at_most_max_and_in_order() {
        let mut buf = Buf::default();
        let slices = [io::IoSlice::new(b"hello "), io::IoSlice::new(b"world")];
        assert_eq!(buf.copy_from_slices(&slices, 8), 8);
        let mut out = Vec::new();
        buf.write_to(&mut out).unwrap();
        assert_eq!(out, b"hello wo");
        assert!(buf.is_empty());
        assert_eq!(buf.copy_from_slices(&[io::IoSlice::new(b"xy")], 8), 2);
        let mut out = Vec::new();
        buf.write_to(&mut out).unwrap();
        assert_eq!(out, b"xy");
    }

    #[test]
    fn a_failed_read_leaves_the_buffer_empty() {
        struct Fails;
        impl Read for Fails {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("boom"))
            }
        }
        let mut buf = Buf::default();
        buf.read_from(&mut &b"0123456789"[..], 8).unwrap();
        read_all(&mut buf, 3);
        assert!(buf.read_from(&mut Fails, 8).is_err());
        assert!(buf.is_empty());
    }
}
