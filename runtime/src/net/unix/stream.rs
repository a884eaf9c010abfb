//! `UnixStream`.

use super::SocketAddr;
use super::ucred::{UCred, peer_cred};
use crate::io::{AsyncRead, AsyncWrite, Interest, ReadBuf, Ready};
use crate::io_driver::PollEvented;

use std::io;
use std::os::unix::io::{AsRawFd, FromRawFd, IntoRawFd};
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A structure representing a connected Unix socket.
///
/// This socket can be connected directly with [`UnixStream::connect`] or
/// accepted from a listener with
/// [`UnixListener::accept`](crate::net::UnixListener::accept).
/// Additionally, a pair of anonymous Unix sockets can be created with
/// [`UnixStream::pair`].
///
/// To shut down the stream in the write direction, you can call the
/// `shutdown()` method (from `AsyncWriteExt`). This will cause the other
/// peer to receive a read of length 0, indicating that no more data will
/// be sent. This only closes the stream in one direction.
///
/// ```
/// use volt_runtime::io::{AsyncReadExt, AsyncWriteExt};
/// use volt_runtime::net::UnixStream;
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> std::io::Result<()> {
/// let (mut a, mut b) = UnixStream::pair()?;
/// a.write_all(b"ping").await?;
/// let mut buf = [0; 4];
/// b.read_exact(&mut buf).await?;
/// assert_eq!(&buf, b"ping");
/// # Ok(())
/// # }
/// ```
pub struct UnixStream {
    io: PollEvented<mio::net::UnixStream>,
}

impl UnixStream {
    /// Connects to the socket named by `path`.
    ///
    /// This function will create a new Unix socket and connect to the path
    /// specified, associating the returned stream with the default event
    /// loop's handle.
    pub async fn connect<P: AsRef<Path>>(path: P) -> io::Result<UnixStream> {
        let addr = super::addr::from_path(path.as_ref())?;
        UnixStream::connected(mio::net::UnixStream::connect_addr(&addr)?).await
    }

    /// Connects to the socket at `addr` (which may be an abstract-namespace
    /// address on Linux).
    pub async fn connect_addr(addr: &SocketAddr) -> io::Result<UnixStream> {
        UnixStream::connected(mio::net::UnixStream::connect_addr(&addr.0)?).await
    }

    /// Registers a connecting socket and waits for the connect to finish
    /// (a connect to a listening socket completes at once or is in
    /// progress; either way writability reports the outcome).
    pub(super) async fn connected(stream: mio::net::UnixStream) -> io::Result<UnixStream> {
        let stream = UnixStream::new(stream)?;
        std::future::poll_fn(|cx| stream.io.registration().poll_write_ready(cx)).await?;
        if let Some(e) = stream.io.take_error()? {
            return Err(e);
        }
        Ok(stream)
    }

    /// Creates an unnamed pair of connected sockets.
    ///
    /// # Panics
    ///
    /// Outside a runtime with I/O enabled.
    #[track_caller]
    pub fn pair() -> io::Result<(UnixStream, UnixStream)> {
        let (a, b) = mio::net::UnixStream::pair()?;
        let (a, b) = (UnixStream::new(a)?, UnixStream::new(b)?);
        // Empty buffers: writable now, readable once the peer writes.
        a.io.registration().assume_ready(crate::io::Ready::WRITABLE);
        b.io.registration().assume_ready(crate::io::Ready::WRITABLE);
        Ok((a, b))
    }

    #[track_caller]
    pub(crate) fn new(stream: mio::net::UnixStream) -> io::Result<UnixStream> {
        let io = PollEvented::new(stream)?;
        Ok(UnixStream { io })
    }

    /// See `TcpStream::new_accepted`.
    #[track_caller]
    pub(crate) fn new_accepted(stream: mio::net::UnixStream) -> io::Result<UnixStream> {
        let stream = UnixStream::new(stream)?;
        stream
            .io
            .registration()
            .assume_ready(crate::io::Ready::READABLE | crate::io::Ready::WRITABLE);
        Ok(stream)
    }

    /// Creates new `UnixStream` from a `std::os::unix::net::UnixStream`.
    ///
    /// The caller is responsible for ensuring that the stream is in
    /// non-blocking mode.
    ///
    /// # Panics
    ///
    /// This function panics if it is not called from within a runtime with
    /// IO enabled.
    #[track_caller]
    pub fn from_std(stream: std::os::unix::net::UnixStream) -> io::Result<UnixStream> {
        UnixStream::new(mio::net::UnixStream::from_std(stream))
    }

    /// Turns a `UnixStream` into a `std::os::unix::net::UnixStream` (still
    /// in non-blocking mode).
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixStream> {
        let fd = self.io.into_inner()?.into_raw_fd();
        // SAFETY: the mio stream released `fd`, which it owned; the std
        // stream takes ownership.
        Ok(unsafe { std::os::unix::net::UnixStream::from_raw_fd(fd) })
    }

    /// Returns the socket address of the local half of this connection.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr().map(SocketAddr)
    }

    /// Returns the socket address of the remote half of this connection.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.peer_addr().map(SocketAddr)
    }

    /// Returns effective credentials of the process which called `connect`
    /// or `pair`.
    pub fn peer_cred(&self) -> io::Result<UCred> {
        peer_cred(self.io.as_raw_fd())
    }

    /// Returns the value of the `SO_ERROR` option.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.take_error()
    }
}

crate::net::common::stream_io_methods!(UnixStream);

impl TryFrom<std::os::unix::net::UnixStream> for UnixStream {
    type Error = io::Error;

    /// Consumes stream, returning the runtime I/O object (as
    /// [`UnixStream::from_std`]).
    fn try_from(stream: std::os::unix::net::UnixStream) -> io::Result<Self> {
        Self::from_std(stream)
    }
}
