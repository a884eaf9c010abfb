//! `UnixListener`.

use super::{SocketAddr, UnixStream};
use crate::io_driver::PollEvented;

use std::io;
use std::os::unix::io::{FromRawFd, IntoRawFd};
use std::path::Path;
use std::task::{Context, Poll};

/// A Unix socket which can accept connections from other Unix sockets.
///
/// ```
/// use volt_runtime::io::{AsyncReadExt, AsyncWriteExt};
/// use volt_runtime::net::{UnixListener, UnixStream};
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> std::io::Result<()> {
/// let path = std::env::temp_dir().join(format!("volt-uds-doc-{}", std::process::id()));
/// let _ = std::fs::remove_file(&path);
/// let listener = UnixListener::bind(&path)?;
/// let mut client = UnixStream::connect(&path).await?;
/// let (mut server, _) = listener.accept().await?;
/// client.write_all(b"hi").await?;
/// let mut buf = [0; 2];
/// server.read_exact(&mut buf).await?;
/// assert_eq!(&buf, b"hi");
/// # std::fs::remove_file(&path)?;
/// # Ok(())
/// # }
/// ```
pub struct UnixListener {
    io: PollEvented<mio::net::UnixListener>,
}

impl UnixListener {
    /// Creates a new `UnixListener` bound to the specified path.
    ///
    /// # Panics
    ///
    /// This function panics if it is not called from within a runtime with
    /// IO enabled.
    #[track_caller]
    pub fn bind<P: AsRef<Path>>(path: P) -> io::Result<UnixListener> {
        let addr = super::addr::from_path(path.as_ref())?;
        let listener = mio::net::UnixListener::bind_addr(&addr)?;
        let io = PollEvented::new(listener)?;
        Ok(UnixListener { io })
    }

    /// Creates a new `UnixListener` bound to `addr` (which may be an
    /// abstract-namespace address on Linux).
    ///
    /// # Panics
    ///
    /// This function panics if it is not called from within a runtime with
    /// IO enabled.
    #[track_caller]
    pub fn bind_addr(addr: &SocketAddr) -> io::Result<UnixListener> {
        let listener = mio::net::UnixListener::bind_addr(&addr.0)?;
        let io = PollEvented::new(listener)?;
        Ok(UnixListener { io })
    }

    /// Creates new `UnixListener` from a
    /// `std::os::unix::net::UnixListener` (which must be in non-blocking
    /// mode).
    ///
    /// # Panics
    ///
    /// This function panics if it is not called from within a runtime with
    /// IO enabled.
    #[track_caller]
    pub fn from_std(listener: std::os::unix::net::UnixListener) -> io::Result<UnixListener> {
        let io = PollEvented::new(mio::net::UnixListener::from_std(listener))?;
        Ok(UnixListener { io })
    }

    /// Turns a `UnixListener` into a `std::os::unix::net::UnixListener`
    /// (still in non-blocking mode).
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixListener> {
        let fd = self.io.into_inner()?.into_raw_fd();
        // SAFETY: the mio listener released `fd`, which it owned; the std
        // listener takes ownership.
        Ok(unsafe { std::os::unix::net::UnixListener::from_raw_fd(fd) })
    }

    /// Returns the local socket address of this listener.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr().map(SocketAddr)
    }

    /// Returns the value of the `SO_ERROR` option.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.take_error()
    }

    /// Accepts a new incoming connection to this listener.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If the method is used as the event in a
    /// `select!` statement and some other branch completes first, then it
    /// is guaranteed that no new connections were accepted by this method.
    pub async fn accept(&self) -> io::Result<(UnixStream, SocketAddr)> {
        let (stream, addr) = self
            .io
            .registration()
            .async_io(crate::io::Interest::READABLE, || self.io.accept())
            .await?;
        Ok((UnixStream::new_accepted(stream)?, SocketAddr(addr)))
    }

    /// Polls to accept a new incoming connection to this listener.
    ///
    /// If there is no connection to accept, `Poll::Pending` is returned
    /// and the current task will be notified by a waker. Only the last
    /// task to call it is woken.
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(UnixStream, SocketAddr)>> {
        let (stream, addr) = std::task::ready!(self.io.registration().poll_io(
            cx,
            crate::io_driver::Direction::Read,
            || self.io.accept()
        ))?;
        Poll::Ready(Ok((UnixStream::new_accepted(stream)?, SocketAddr(addr))))
    }
}

impl TryFrom<std::os::unix::net::UnixListener> for UnixListener {
    type Error = io::Error;

    /// Consumes the std listener, returning the runtime one (as
    /// [`UnixListener::from_std`]).
    fn try_from(listener: std::os::unix::net::UnixListener) -> io::Result<Self> {
        Self::from_std(listener)
    }
}

crate::net::common::fd_impls!(UnixListener);
