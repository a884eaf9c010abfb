//! In-memory pipes: `simplex` (one direction) and `duplex` (two).
//!
//! A `SimplexStream` is a byte buffer of at most `max_buf_size` bytes with
//! one parked reader waker and one parked writer waker. A write copies as
//! much as fits and wakes the reader; a read drains what is there and
//! wakes the writer. Closing either end (`shutdown`, or dropping a
//! `DuplexStream`) sets `is_closed`: the reader then drains what is left
//! and reads EOF, the writer gets `BrokenPipe`. Both ends spend the task's
//! coop budget, so a pair of tasks ping-ponging through a pipe still
//! yields to the scheduler.
//!
//! A `DuplexStream` is two `SimplexStream`s behind mutexes, one per
//! direction, crossed between the two ends. Wakers are woken, and replaced
//! ones dropped, only after the lock is released: a waker may run code
//! that touches the same pipe (one that owns the peer end drops it, which
//! closes the pipe under its lock).

use super::{AsyncRead, AsyncWrite, ReadBuf, ReadHalf, WriteHalf, split};

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker, ready};

/// A unidirectional in-memory pipe: bytes written to it are read from it.
///
/// Made by [`simplex`] (already split into halves) or
/// [`SimplexStream::new_unsplit`].
///
/// ```
/// use volt_runtime::io::{self, AsyncReadExt, AsyncWriteExt};
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> io::Result<()> {
/// let (mut rx, mut tx) = io::simplex(16);
/// tx.write_all(b"hello").await?;
/// let mut buf = [0; 5];
/// rx.read_exact(&mut buf).await?;
/// assert_eq!(&buf, b"hello");
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct SimplexStream {
    buffer: VecDeque<u8>,
    is_closed: bool,
    max_buf_size: usize,
    read_waker: Option<Waker>,
    write_waker: Option<Waker>,
}

/// A bidirectional in-memory pipe, one end of a [`duplex`] pair.
///
/// Dropping either end closes both directions: the other end reads what
/// was already written, then EOF, and its writes fail with `BrokenPipe`.
#[derive(Debug)]
pub struct DuplexStream {
    read: Arc<Mutex<SimplexStream>>,
    write: Arc<Mutex<SimplexStream>>,
}

/// Creates a new pair of `DuplexStream`s that act like a pair of
/// connected sockets.
///
/// The `max_buf_size` argument is the maximum amount of bytes that can be
/// written to a side before the write returns `Poll::Pending`.
///
/// # Panics
///
/// This function panics if `max_buf_size` is 0.
///
/// # Examples
///
/// ```
/// use volt_runtime::io::{self, AsyncReadExt, AsyncWriteExt};
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> io::Result<()> {
/// let (mut client, mut server) = io::duplex(64);
/// client.write_all(b"ping").await?;
/// let mut buf = [0u8; 4];
/// server.read_exact(&mut buf).await?;
/// assert_eq!(&buf, b"ping");
/// server.write_all(b"pong").await?;
/// client.read_exact(&mut buf).await?;
/// assert_eq!(&buf, b"pong");
/// # Ok(())
/// # }
/// ```
#[track_caller]
pub fn duplex(max_buf_size: usize) -> (DuplexStream, DuplexStream) {
    let one = Arc::new(Mutex::new(SimplexStream::new_unsplit(max_buf_size)));
    let two = Arc::new(Mutex::new(SimplexStream::new_unsplit(max_buf_size)));
    (
        DuplexStream {
            read: one.clone(),
            write: two.clone(),
        },
        DuplexStream {
            read: two,
            write: one,
        },
    )
}

/// Creates a unidirectional in-memory pipe, returned as its read and
/// write halves.
///
/// # Panics
///
/// This function panics if `max_buf_size` is 0.
#[track_caller]
pub fn simplex(max_buf_size: usize) -> (ReadHalf<SimplexStream>, WriteHalf<SimplexStream>) {
    split(SimplexStream::new_unsplit(max_buf_size))
}

fn lock(m: &Mutex<SimplexStream>) -> std::sync::MutexGuard<'_, SimplexStream> {
    // The pipe's invariants hold between statements; a panic elsewhere
    // while holding the lock leaves it usable.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl SimplexStream {
    /// Creates a `SimplexStream` that is not split (both reading and
    /// writing go through the one value).
    ///
    /// # Panics
    ///
    /// This function panics if `max_buf_size` is 0.
    #[track_caller]
    pub fn new_unsplit(max_buf_size: usize) -> SimplexStream {
        assert!(max_buf_size > 0, "`max_buf_size` must be greater than 0");
        SimplexStream {
            buffer: VecDeque::new(),
            is_closed: false,
            max_buf_size,
            read_waker: None,
            write_waker: None,
        }
    }

    /// Closes the pipe; returns the reader's waker, to wake once the lock
    /// is released.
    fn close_write(&mut self) -> Option<Waker> {
        self.is_closed = true;
        self.read_waker.take()
    }

    /// Closes the pipe; returns the writer's waker, to wake once the lock
    /// is released.
    fn close_read(&mut self) -> Option<Waker> {
        self.is_closed = true;
        self.write_waker.take()
    }

    fn read_inner(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
        wakers: &mut Wakers,
    ) -> Poll<io::Result<()>> {
        if buf.remaining() == 0 {
            // Nothing asked for: done at once, data or not.
            Poll::Ready(Ok(()))
        } else if !self.buffer.is_empty() {
            let n = self.buffer.len().min(buf.remaining());
            let (a, b) = self.buffer.as_slices();
            let from_a = n.min(a.len());
            buf.put_slice(&a[..from_a]);
            buf.put_slice(&b[..n - from_a]);
            self.buffer.drain(..n);
            wakers.wake = self.write_waker.take();
            Poll::Ready(Ok(()))
        } else if self.is_closed {
            Poll::Ready(Ok(()))
        } else {
            wakers.replaced = register(&mut self.read_waker, cx);
            Poll::Pending
        }
    }

    /// Copies as much of `bufs` as fits (a plain write is one slice).
    fn write_inner(
        &mut self,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
        wakers: &mut Wakers,
    ) -> Poll<io::Result<usize>> {
        if self.is_closed {
            return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
        }
        if bufs.iter().all(|b| b.is_empty()) {
            // Nothing to write: done at once, full or not.
            return Poll::Ready(Ok(0));
        }
        let mut avail = self.max_buf_size - self.buffer.len();
        if avail == 0 {
            wakers.replaced = register(&mut self.write_waker, cx);
            return Poll::Pending;
        }
        let mut n = 0;
        for buf in bufs {
            let take = avail.min(buf.len());
            self.buffer.extend(&buf[..take]);
            n += take;
            avail -= take;
            if avail == 0 {
                break;
            }
        }
        wakers.wake = self.read_waker.take();
        Poll::Ready(Ok(n))
    }

    fn poll_read_coop(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
        wakers: &mut Wakers,
    ) -> Poll<io::Result<()>> {
        let coop = ready!(crate::coop::poll_proceed(cx));
        let r = self.read_inner(cx, buf, wakers);
        if r.is_ready() {
            coop.made_progress();
        }
        r
    }

    fn poll_write_coop(
        &mut self,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
        wakers: &mut Wakers,
    ) -> Poll<io::Result<usize>> {
        let coop = ready!(crate::coop::poll_proceed(cx));
        let r = self.write_inner(cx, bufs, wakers);
        if r.is_ready() {
            coop.made_progress();
        }
        r
    }
}

/// Stores the task's waker in `slot` unless it is already there; returns
/// the waker it replaced, to drop once the lock is released.
fn register(slot: &mut Option<Waker>, cx: &Context<'_>) -> Option<Waker> {
    match slot {
        Some(w) if w.will_wake(cx.waker()) => None,
        _ => slot.replace(cx.waker().clone()),
    }
}

/// Wakers taken out under a `DuplexStream`'s lock, woken or dropped after
/// it is released: either may run user code (a waker that owns the peer
/// end, say) that takes the same lock.
#[derive(Default)]
struct Wakers {
    /// The other side, to wake.
    wake: Option<Waker>,
    /// Our previous waker, replaced by a new one.
    replaced: Option<Waker>,
}

impl Wakers {
    fn run(self) {
        if let Some(w) = self.wake {
            w.wake();
        }
        drop(self.replaced);
    }
}

impl AsyncRead for SimplexStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let mut wakers = Wakers::default();
        let res = self.get_mut().poll_read_coop(cx, buf, &mut wakers);
        wakers.run();
        res
    }
}

impl AsyncWrite for SimplexStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_vectored(cx, &[io::IoSlice::new(buf)])
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let mut wakers = Wakers::default();
        let res = self.get_mut().poll_write_coop(cx, bufs, &mut wakers);
        wakers.run();
        res
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Some(w) = self.get_mut().close_write() {
            w.wake();
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for DuplexStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let mut wakers = Wakers::default();
        let res = lock(&self.read).poll_read_coop(cx, buf, &mut wakers);
        wakers.run();
        res
    }
}

impl AsyncWrite for DuplexStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_vectored(cx, &[io::IoSlice::new(buf)])
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let mut wakers = Wakers::default();
        let res = lock(&self.write).poll_write_coop(cx, bufs, &mut wakers);
        wakers.run();
        res
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        let reader = lock(&self.write).close_write();
        if let Some(w) = reader {
            w.wake();
        }
        Poll::Ready(Ok(()))
    }
}

impl Drop for DuplexStream {
    fn drop(&mut self) {
        // Our end is gone: the peer's reads see EOF once drained, its
        // writes `BrokenPipe`. Woken after both locks are released.
        let reader = lock(&self.write).close_write();
        let writer = lock(&self.read).close_read();
        for w in [reader, writer].into_iter().flatten() {
            w.wake();
        }
    }
}
