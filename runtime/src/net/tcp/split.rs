//! `TcpStream::split` and `TcpStream::into_split`: read and write halves.
//!
//! The stream's reader and writer wait on separate wakers, so the halves
//! can be driven from different tasks at once. The owned write half shuts
//! the write direction down when dropped (unless `forget` is called), as
//! tokio's does.

use super::TcpStream;
use crate::io::{AsyncRead, AsyncWrite, Interest, ReadBuf, Ready};

use std::error::Error;
use std::fmt;
use std::io;
use std::net::{Shutdown, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// Borrowed read half of a [`TcpStream`], created by [`split`].
///
/// [`split`]: TcpStream::split()
#[derive(Debug)]
pub struct ReadHalf<'a>(&'a TcpStream);

/// Borrowed write half of a [`TcpStream`], created by [`split`].
///
/// Note that in the [`AsyncWrite`] implementation of this type,
/// [`poll_shutdown`] will shut down the TCP stream in the write direction.
///
/// [`split`]: TcpStream::split()
/// [`poll_shutdown`]: fn@crate::io::AsyncWrite::poll_shutdown
#[derive(Debug)]
pub struct WriteHalf<'a>(&'a TcpStream);

/// Owned read half of a [`TcpStream`], created by [`into_split`].
///
/// [`into_split`]: TcpStream::into_split()
#[derive(Debug)]
pub struct OwnedReadHalf {
    inner: Arc<TcpStream>,
}

/// Owned write half of a [`TcpStream`], created by [`into_split`].
///
/// Dropping it shuts down the write direction of the stream (`shutdown` in
/// the [`AsyncWrite`] implementation does it explicitly).
///
/// [`into_split`]: TcpStream::into_split()
#[derive(Debug)]
pub struct OwnedWriteHalf {
    inner: Arc<TcpStream>,
    shutdown_on_drop: bool,
}

/// Error indicating that two halves were not from the same socket, and
/// thus could not be reunited.
#[derive(Debug)]
pub struct ReuniteError(pub OwnedReadHalf, pub OwnedWriteHalf);

impl fmt::Display for ReuniteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tried to reunite halves that are not from the same socket"
        )
    }
}

impl Error for ReuniteError {}

impl TcpStream {
    /// Splits a `TcpStream` into a read half and a write half, which can
    /// be used to read and write the stream concurrently.
    ///
    /// This method is more efficient than [`into_split`], but the halves
    /// cannot be moved into independently spawned tasks.
    ///
    /// [`into_split`]: TcpStream::into_split()
    pub fn split<'a>(&'a mut self) -> (ReadHalf<'a>, WriteHalf<'a>) {
        (ReadHalf(&*self), WriteHalf(&*self))
    }

    /// Splits a `TcpStream` into a read half and a write half, which can
    /// be used to read and write the stream concurrently.
    ///
    /// Unlike [`split`], the owned halves can be moved to separate tasks,
    /// however this comes at the cost of a heap allocation.
    ///
    /// **Note:** Dropping the write half will shut down the write half of
    /// the TCP stream. This is equivalent to calling [`shutdown()`] on the
    /// `TcpStream`.
    ///
    /// [`split`]: TcpStream::split()
    /// [`shutdown()`]: fn@crate::io::AsyncWriteExt::shutdown
    pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        let arc = Arc::new(self);
        (
            OwnedReadHalf { inner: arc.clone() },
            OwnedWriteHalf {
                inner: arc,
                shutdown_on_drop: true,
            },
        )
    }
}

macro_rules! half_common {
    () => {
        /// Returns the remote address that this stream is connected to.
        pub fn peer_addr(&self) -> io::Result<SocketAddr> {
            self.stream().peer_addr()
        }

        /// Returns the local address that this stream is bound to.
        pub fn local_addr(&self) -> io::Result<SocketAddr> {
            self.stream().local_addr()
        }

        /// Waits for any of the requested ready states (see
        /// [`TcpStream::ready`]).
        ///
        /// # Cancel safety
        ///
        /// As [`TcpStream::ready`].
        pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
            self.stream().ready(interest).await
        }
    };
}

impl ReadHalf<'_> {
    fn stream(&self) -> &TcpStream {
        self.0
    }

    half_common!();

    /// Waits for the socket to become readable.
    ///
    /// # Cancel safety
    ///
    /// As [`TcpStream::readable`].
    pub async fn readable(&self) -> io::Result<()> {
        self.0.readable().await
    }

    /// Tries to read data from the stream (see [`TcpStream::try_read`]).
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.try_read(buf)
    }

    /// Receives data without removing it from the queue.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: nothing is consumed.
    pub async fn peek(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.peek(buf).await
    }
}

impl WriteHalf<'_> {
    fn stream(&self) -> &TcpStream {
        self.0
    }

    half_common!();

    /// Waits for the socket to become writable.
    ///
    /// # Cancel safety
    ///
    /// As [`TcpStream::writable`].
    pub async fn writable(&self) -> io::Result<()> {
        self.0.writable().await
    }

    /// Tries to write a buffer (see [`TcpStream::try_write`]).
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.0.try_write(buf)
    }
}

impl OwnedReadHalf {
    fn stream(&self) -> &TcpStream {
        &self.inner
    }

    half_common!();

    /// Attempts to put the two halves of a `TcpStream` back together and
    /// recover the original socket. Succeeds only if the two halves
    /// originated from the same call to [`into_split`].
    ///
    /// [`into_split`]: TcpStream::into_split()
    pub fn reunite(self, other: OwnedWriteHalf) -> Result<TcpStream, ReuniteError> {
        reunite(self, other)
    }

    /// Waits for the socket to become readable.
    ///
    /// # Cancel safety
    ///
    /// As [`TcpStream::readable`].
    pub async fn readable(&self) -> io::Result<()> {
        self.inner.readable().await
    }

    /// Tries to read data from the stream (see [`TcpStream::try_read`]).
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.try_read(buf)
    }

    /// Receives data without removing it from the queue.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: nothing is consumed.
    pub async fn peek(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.peek(buf).await
    }
}

impl OwnedWriteHalf {
    fn stream(&self) -> &TcpStream {
        &self.inner
    }

    half_common!();

    /// Attempts to put the two halves of a `TcpStream` back together and
    /// recover the original socket. Succeeds only if the two halves
    /// originated from the same call to [`into_split`].
    ///
    /// [`into_split`]: TcpStream::into_split()
    pub fn reunite(self, other: OwnedReadHalf) -> Result<TcpStream, ReuniteError> {
        reunite(other, self)
    }

    /// Destroys the write half, but doesn't close the write half of the
    /// stream until the read half is dropped. If the read half has already
    /// been dropped, this closes the stream.
    pub fn forget(mut self) {
        self.shutdown_on_drop = false;
        drop(self);
    }

    /// Waits for the socket to become writable.
    ///
    /// # Cancel safety
    ///
    /// As [`TcpStream::writable`].
    pub async fn writable(&self) -> io::Result<()> {
        self.inner.writable().await
    }

    /// Tries to write a buffer (see [`TcpStream::try_write`]).
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.inner.try_write(buf)
    }
}

fn reunite(read: OwnedReadHalf, mut write: OwnedWriteHalf) -> Result<TcpStream, ReuniteError> {
    if Arc::ptr_eq(&read.inner, &write.inner) {
        write.shutdown_on_drop = false;
        let inner = write.inner.clone();
        drop(write);
        drop(read);
        Ok(Arc::try_unwrap(inner).expect("TcpStream: try_unwrap failed in reunite"))
    } else {
        Err(ReuniteError(read, write))
    }
}

impl Drop for OwnedWriteHalf {
    fn drop(&mut self) {
        if self.shutdown_on_drop {
            let _ = self.inner.shutdown_std(Shutdown::Write);
        }
    }
}

/// Reads through a shared stream reference.
fn poll_read_shared(
    stream: &TcpStream,
    cx: &mut Context<'_>,
    buf: &mut ReadBuf<'_>,
) -> Poll<io::Result<()>> {
    stream.poll_read_priv(cx, buf)
}

impl AsyncRead for ReadHalf<'_> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        poll_read_shared(self.0, cx, buf)
    }
}

impl AsyncRead for OwnedReadHalf {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        poll_read_shared(&self.inner, cx, buf)
    }
}

macro_rules! write_half {
    ($t:ty, $s:ident => $stream:expr, $shutdown:expr) => {
        impl AsyncWrite for $t {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                let $s = self;
                $stream.poll_write_priv(cx, buf)
            }

            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[io::IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                let $s = self;
                $stream.poll_write_vectored_priv(cx, bufs)
            }

            fn is_write_vectored(&self) -> bool {
                true
            }

            fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                // TCP flush is a no-op.
                Poll::Ready(Ok(()))
            }

            fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                let $s = self;
                #[allow(clippy::redundant_closure_call)]
                let res = ($shutdown)($s);
                Poll::Ready(res)
            }
        }
    };
}

write_half!(WriteHalf<'_>, s => s.0, |s: Pin<&mut WriteHalf<'_>>| s.0.shutdown_std(Shutdown::Write));
write_half!(OwnedWriteHalf, s => s.inner, |mut s: Pin<&mut OwnedWriteHalf>| {
    let res = s.inner.shutdown_std(Shutdown::Write);
    if res.is_ok() {
        // Already shut down: nothing more to do on drop.
        s.shutdown_on_drop = false;
    }
    res
});

impl AsRef<TcpStream> for ReadHalf<'_> {
    fn as_ref(&self) -> &TcpStream {
        self.0
    }
}

impl AsRef<TcpStream> for WriteHalf<'_> {
    fn as_ref(&self) -> &TcpStream {
        self.0
    }
}

impl AsRef<TcpStream> for OwnedReadHalf {
    fn as_ref(&self) -> &TcpStream {
        &self.inner
    }
}

impl AsRef<TcpStream> for OwnedWriteHalf {
    fn as_ref(&self) -> &TcpStream {
        &self.inner
    }
}
