//! `UnixDatagram`.

use super::SocketAddr;
use crate::io::{Interest, ReadBuf};
use crate::io_driver::{Direction, PollEvented};

use std::io;
use std::net::Shutdown;
use std::os::unix::io::{FromRawFd, IntoRawFd};
use std::path::Path;
use std::task::{Context, Poll, ready};

/// An I/O object representing a Unix datagram socket.
///
/// A socket can be either named (associated with a filesystem path) or
/// unnamed. Like [`UdpSocket`](crate::net::UdpSocket), it can be used one
/// to many (`send_to`/`recv_from`) or one to one (`connect`, then
/// `send`/`recv`). Share it between tasks with an `Arc`: senders and
/// receivers wait independently.
///
/// ```
/// use volt_runtime::net::UnixDatagram;
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> std::io::Result<()> {
/// let (a, b) = UnixDatagram::pair()?;
/// a.send(b"hello").await?;
/// let mut buf = [0; 16];
/// let n = b.recv(&mut buf).await?;
/// assert_eq!(&buf[..n], b"hello");
/// # Ok(())
/// # }
/// ```
pub struct UnixDatagram {
    io: PollEvented<mio::net::UnixDatagram>,
}

impl UnixDatagram {
    #[track_caller]
    fn new(socket: mio::net::UnixDatagram) -> io::Result<UnixDatagram> {
        let io = PollEvented::new(socket)?;
        Ok(UnixDatagram { io })
    }

    /// Creates a new `UnixDatagram` bound to the specified path.
    ///
    /// # Panics
    ///
    /// Outside a runtime with I/O enabled.
    #[track_caller]
    pub fn bind<P: AsRef<Path>>(path: P) -> io::Result<UnixDatagram> {
        UnixDatagram::new(mio::net::UnixDatagram::bind(path)?)
    }

    /// Creates an unnamed pair of connected sockets.
    ///
    /// # Panics
    ///
    /// Outside a runtime with I/O enabled.
    #[track_caller]
    pub fn pair() -> io::Result<(UnixDatagram, UnixDatagram)> {
        let (a, b) = mio::net::UnixDatagram::pair()?;
        let (a, b) = (UnixDatagram::new(a)?, UnixDatagram::new(b)?);
        // Empty buffers: writable now.
        a.io.registration().assume_ready(crate::io::Ready::WRITABLE);
        b.io.registration().assume_ready(crate::io::Ready::WRITABLE);
        Ok((a, b))
    }

    /// Creates a new `UnixDatagram` which is not bound to any address.
    ///
    /// # Panics
    ///
    /// Outside a runtime with I/O enabled.
    #[track_caller]
    pub fn unbound() -> io::Result<UnixDatagram> {
        UnixDatagram::new(mio::net::UnixDatagram::unbound()?)
    }

    /// Creates new `UnixDatagram` from a
    /// `std::os::unix::net::UnixDatagram` (which must be in non-blocking
    /// mode).
    ///
    /// # Panics
    ///
    /// Outside a runtime with I/O enabled.
    #[track_caller]
    pub fn from_std(datagram: std::os::unix::net::UnixDatagram) -> io::Result<UnixDatagram> {
        UnixDatagram::new(mio::net::UnixDatagram::from_std(datagram))
    }

    /// Turns a `UnixDatagram` into a `std::os::unix::net::UnixDatagram`
    /// (still in non-blocking mode).
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixDatagram> {
        let fd = self.io.into_inner()?.into_raw_fd();
        // SAFETY: the mio socket released `fd`, which it owned; the std
        // socket takes ownership.
        Ok(unsafe { std::os::unix::net::UnixDatagram::from_raw_fd(fd) })
    }

    /// Connects the socket to the specified address: `send` and `recv`
    /// then talk to it only.
    pub fn connect<P: AsRef<Path>>(&self, path: P) -> io::Result<()> {
        self.io.connect(path)
    }

    /// Sends data on the socket to the specified address.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If `send_to` is used as the event in a
    /// `select!` statement and some other branch completes first, then it
    /// is guaranteed that the message was not sent.
    pub async fn send_to<P: AsRef<Path>>(&self, buf: &[u8], target: P) -> io::Result<usize> {
        let target = target.as_ref();
        self.io
            .registration()
            .async_io(Interest::WRITABLE, || self.io.send_to(buf, target))
            .await
    }

    /// Attempts to send data on the socket to a given address.
    pub fn poll_send_to<P: AsRef<Path>>(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
        target: P,
    ) -> Poll<io::Result<usize>> {
        let target = target.as_ref();
        self.io
            .registration()
            .poll_io(cx, Direction::Write, || self.io.send_to(buf, target))
    }

    /// Tries to send a datagram to the peer without waiting.
    pub fn try_send_to<P: AsRef<Path>>(&self, buf: &[u8], target: P) -> io::Result<usize> {
        let target = target.as_ref();
        self.io
            .registration()
            .try_io(Interest::WRITABLE, || self.io.send_to(buf, target))
    }

    /// Receives data from the socket; returns the number of bytes read and
    /// the address of the sender.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If `recv_from` is used as the event in
    /// a `select!` statement and some other branch completes first, it is
    /// guaranteed that no messages were received on this socket.
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        let (n, addr) = self
            .io
            .registration()
            .async_io(Interest::READABLE, || self.io.recv_from(buf))
            .await?;
        Ok((n, SocketAddr(addr)))
    }

    /// Attempts to receive a single datagram on the socket.
    pub fn poll_recv_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<SocketAddr>> {
        let (n, addr) = ready!(self.io.registration().poll_io(cx, Direction::Read, || {
            self.io.recv_from(buf.initialize_unfilled())
        }))?;
        buf.advance(n);
        Poll::Ready(Ok(SocketAddr(addr)))
    }

    /// Tries to receive a datagram from the peer without waiting.
    pub fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        let (n, addr) = self
            .io
            .registration()
            .try_io(Interest::READABLE, || self.io.recv_from(buf))?;
        Ok((n, SocketAddr(addr)))
    }

    /// Returns the local address that this socket is bound to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr().map(SocketAddr)
    }

    /// Returns the address of this socket's peer (after `connect`).
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.peer_addr().map(SocketAddr)
    }

    /// Shuts down the read, write, or both halves of this connection.
    pub fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        self.io.shutdown(how)
    }
}

crate::net::common::datagram_io_methods!(UnixDatagram, SocketAddr, SocketAddr);
crate::net::common::fd_impls!(UnixDatagram);

impl TryFrom<std::os::unix::net::UnixDatagram> for UnixDatagram {
    type Error = io::Error;

    /// Consumes the std socket, returning the runtime one (as
    /// [`UnixDatagram::from_std`]).
    fn try_from(socket: std::os::unix::net::UnixDatagram) -> io::Result<Self> {
        Self::from_std(socket)
    }
}
