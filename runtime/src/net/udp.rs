//! `UdpSocket`.

use crate::io::{Interest, ReadBuf};
use crate::io_driver::{Direction, PollEvented};
use crate::net::{ToSocketAddrs, to_socket_addrs};

use std::io;
use std::net::{self, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::task::{Context, Poll, ready};

/// A UDP socket.
///
/// UDP is "connectionless", unlike TCP. Meaning, regardless of what
/// address you've bound to, a `UdpSocket` is free to communicate with many
/// different remotes. There are basically two main ways to use
/// `UdpSocket`:
///
/// * one to many: [`bind`](`UdpSocket::bind`) and use
///   [`send_to`](`UdpSocket::send_to`) and
///   [`recv_from`](`UdpSocket::recv_from`) to communicate with many
///   different addresses
/// * one to one: [`connect`](`UdpSocket::connect`) and associate with a
///   single address, using [`send`](`UdpSocket::send`) and
///   [`recv`](`UdpSocket::recv`) to communicate only with that remote
///   address
///
/// This type does not provide a `split` method, because this functionality
/// can be achieved by instead wrapping the socket in an [`Arc`]: the send
/// and receive sides wait independently, and any number of tasks may
/// wait at once.
///
/// [`Arc`]: std::sync::Arc
///
/// # Examples
///
/// ```no_run
/// use volt_runtime::net::UdpSocket;
///
/// # async fn dox() -> std::io::Result<()> {
/// let sock = UdpSocket::bind("0.0.0.0:8080").await?;
/// let mut buf = [0; 1024];
/// loop {
///     let (len, addr) = sock.recv_from(&mut buf).await?;
///     sock.send_to(&buf[..len], addr).await?;
/// }
/// # }
/// ```
pub struct UdpSocket {
    io: PollEvented<mio::net::UdpSocket>,
}

impl UdpSocket {
    /// This function will create a new UDP socket and attempt to bind it to
    /// the `addr` provided.
    ///
    /// Binding with a port number of 0 will request that the OS assigns a
    /// port to this socket. The port allocated can be queried via the
    /// `local_addr` method.
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<UdpSocket> {
        let addrs = to_socket_addrs(addr).await?;
        let mut last_err = None;
        for addr in addrs {
            match mio::net::UdpSocket::bind(addr).and_then(UdpSocket::new) {
                Ok(socket) => return Ok(socket),
                Err(e) => last_err = Some(e),
            }
        }
        Err(last_err.unwrap_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "could not resolve to any address",
            )
        }))
    }

    #[track_caller]
    fn new(socket: mio::net::UdpSocket) -> io::Result<UdpSocket> {
        let io = PollEvented::new(socket)?;
        Ok(UdpSocket { io })
    }

    /// Creates new `UdpSocket` from a previously bound
    /// `std::net::UdpSocket`.
    ///
    /// The caller is responsible for ensuring that the socket is in
    /// non-blocking mode.
    ///
    /// # Panics
    ///
    /// This function panics if it is not called from within a runtime with
    /// IO enabled.
    #[track_caller]
    pub fn from_std(socket: net::UdpSocket) -> io::Result<UdpSocket> {
        let io = mio::net::UdpSocket::from_std(socket);
        UdpSocket::new(io)
    }

    /// Turns a [`volt::net::UdpSocket`] into a [`std::net::UdpSocket`].
    ///
    /// The returned [`std::net::UdpSocket`] will have nonblocking mode set
    /// as `true`.
    ///
    /// [`volt::net::UdpSocket`]: UdpSocket
    pub fn into_std(self) -> io::Result<std::net::UdpSocket> {
        use std::os::unix::io::{FromRawFd, IntoRawFd};
        let fd = self.io.into_inner()?.into_raw_fd();
        // SAFETY: the mio socket released `fd`, which it owned.
        Ok(unsafe { std::net::UdpSocket::from_raw_fd(fd) })
    }

    /// Returns the local address that this socket is bound to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }

    /// Returns the socket address of the remote peer this socket was
    /// connected to.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.peer_addr()
    }

    /// Connects the UDP socket setting the default destination for send()
    /// and limiting packets that are read via `recv` from the address
    /// specified in `addr`.
    pub async fn connect<A: ToSocketAddrs>(&self, addr: A) -> io::Result<()> {
        let addrs = to_socket_addrs(addr).await?;
        let mut last_err = None;
        for addr in addrs {
            match self.io.connect(addr) {
                Ok(()) => return Ok(()),
                Err(e) => last_err = Some(e),
            }
        }
        Err(last_err.unwrap_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "could not resolve to any address",
            )
        }))
    }

    /// Sends data on the socket to the given address. On success, returns
    /// the number of bytes written.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If `send_to` is used as the event in a
    /// `select!` statement and some other branch completes first, then it
    /// is guaranteed that the message was not sent.
    pub async fn send_to<A: ToSocketAddrs>(&self, buf: &[u8], target: A) -> io::Result<usize> {
        let mut addrs = to_socket_addrs(target).await?;
        match addrs.next() {
            Some(target) => {
                self.async_io(Interest::WRITABLE, || self.io.send_to(buf, target))
                    .await
            }
            None => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "no addresses to send data to",
            )),
        }
    }

    /// Attempts to send data on the socket to a given address.
    pub fn poll_send_to(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
        target: SocketAddr,
    ) -> Poll<io::Result<usize>> {
        self.io
            .registration()
            .poll_io(cx, Direction::Write, || self.io.send_to(buf, target))
    }

    /// Tries to send data on the socket to the given address, without
    /// waiting.
    pub fn try_send_to(&self, buf: &[u8], target: SocketAddr) -> io::Result<usize> {
        self.io
            .registration()
            .try_io(Interest::WRITABLE, || self.io.send_to(buf, target))
    }

    /// Receives a single datagram message on the socket. On success,
    /// returns the number of bytes read and the origin.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If `recv_from` is used as the event in a
    /// `select!` statement and some other branch completes first, it is
    /// guaranteed that no messages were received on this socket.
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.async_io(Interest::READABLE | Interest::ERROR, || {
            self.io.recv_from(buf)
        })
        .await
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
        Poll::Ready(Ok(addr))
    }

    /// Tries to receive a single datagram message on the socket, without
    /// waiting.
    pub fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io
            .registration()
            .try_io(Interest::READABLE, || self.io.recv_from(buf))
    }

    /// Receives a single datagram from the connected address without
    /// removing it from the queue.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: nothing is consumed.
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.async_io(Interest::READABLE | Interest::ERROR, || self.io.peek(buf))
            .await
    }

    /// Receives data from the socket, without removing it from the input
    /// queue. On success, returns the number of bytes read and the address
    /// from whence the data came.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: nothing is consumed.
    pub async fn peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.async_io(Interest::READABLE | Interest::ERROR, || {
            self.io.peek_from(buf)
        })
        .await
    }

    /// Receives a datagram from the connected peer without removing it
    /// from the queue (`Pending` until one arrives).
    pub fn poll_peek(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let n = ready!(self.io.registration().poll_io(cx, Direction::Read, || {
            self.io.peek(buf.initialize_unfilled())
        }))?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }

    /// Tries to peek at a datagram from the connected peer without
    /// waiting (`WouldBlock` if none).
    pub fn try_peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io
            .registration()
            .try_io(Interest::READABLE, || self.io.peek(buf))
    }

    /// Receives a datagram without removing it from the queue; returns
    /// the sender's address (`Pending` until one arrives).
    pub fn poll_peek_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<SocketAddr>> {
        let (n, addr) = ready!(self.io.registration().poll_io(cx, Direction::Read, || {
            self.io.peek_from(buf.initialize_unfilled())
        }))?;
        buf.advance(n);
        Poll::Ready(Ok(addr))
    }

    /// Tries to peek at a datagram without waiting; returns its length and
    /// sender.
    pub fn try_peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io
            .registration()
            .try_io(Interest::READABLE, || self.io.peek_from(buf))
    }

    /// Returns the address of the sender of the next datagram, without
    /// removing it from the queue (and without copying its payload).
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: nothing is consumed.
    pub async fn peek_sender(&self) -> io::Result<SocketAddr> {
        self.async_io(Interest::READABLE | Interest::ERROR, || {
            self.peek_sender_inner()
        })
        .await
    }

    /// Polls for the address of the sender of the next datagram (see
    /// [`peek_sender`](Self::peek_sender)).
    pub fn poll_peek_sender(&self, cx: &mut Context<'_>) -> Poll<io::Result<SocketAddr>> {
        self.io
            .registration()
            .poll_io(cx, Direction::Read, || self.peek_sender_inner())
    }

    /// Tries to return the address of the sender of the next datagram
    /// without waiting (`WouldBlock` if none).
    pub fn try_peek_sender(&self) -> io::Result<SocketAddr> {
        self.io
            .registration()
            .try_io(Interest::READABLE, || self.peek_sender_inner())
    }

    fn peek_sender_inner(&self) -> io::Result<SocketAddr> {
        socket2::SockRef::from(self)
            .peek_sender()?
            .as_socket()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "invalid address family"))
    }

    /// Gets the value of the `IP_TOS` option for this socket.
    pub fn tos_v4(&self) -> io::Result<u32> {
        socket2::SockRef::from(self).tos_v4()
    }

    /// Gets the value of the `IP_TOS` option for this socket.
    #[deprecated = "use `tos_v4()`"]
    pub fn tos(&self) -> io::Result<u32> {
        self.tos_v4()
    }

    /// Sets the value for the `IP_TOS` option on this socket.
    pub fn set_tos_v4(&self, tos: u32) -> io::Result<()> {
        socket2::SockRef::from(self).set_tos_v4(tos)
    }

    /// Sets the value for the `IP_TOS` option on this socket.
    #[deprecated = "use `set_tos_v4()`"]
    pub fn set_tos(&self, tos: u32) -> io::Result<()> {
        self.set_tos_v4(tos)
    }

    /// Gets the value of the `IPV6_TCLASS` option for this socket.
    pub fn tclass_v6(&self) -> io::Result<u32> {
        socket2::SockRef::from(self).tclass_v6()
    }

    /// Sets the value for the `IPV6_TCLASS` option on this socket.
    pub fn set_tclass_v6(&self, tclass: u32) -> io::Result<()> {
        socket2::SockRef::from(self).set_tclass_v6(tclass)
    }

    /// Gets the value for the `SO_BINDTODEVICE` option on this socket.
    #[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
    pub fn device(&self) -> io::Result<Option<Vec<u8>>> {
        socket2::SockRef::from(self).device()
    }

    /// Sets the value for the `SO_BINDTODEVICE` option on this socket
    /// (`None` removes the binding).
    #[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
    pub fn bind_device(&self, interface: Option<&[u8]>) -> io::Result<()> {
        socket2::SockRef::from(self).bind_device(interface)
    }

    /// Gets the value of the `SO_BROADCAST` option for this socket.
    pub fn broadcast(&self) -> io::Result<bool> {
        self.io.broadcast()
    }

    /// Sets the value of the `SO_BROADCAST` option for this socket.
    pub fn set_broadcast(&self, on: bool) -> io::Result<()> {
        self.io.set_broadcast(on)
    }

    /// Gets the value of the `IP_MULTICAST_LOOP` option for this socket.
    pub fn multicast_loop_v4(&self) -> io::Result<bool> {
        self.io.multicast_loop_v4()
    }

    /// Sets the value of the `IP_MULTICAST_LOOP` option for this socket.
    pub fn set_multicast_loop_v4(&self, on: bool) -> io::Result<()> {
        self.io.set_multicast_loop_v4(on)
    }

    /// Gets the value of the `IP_MULTICAST_TTL` option for this socket.
    pub fn multicast_ttl_v4(&self) -> io::Result<u32> {
        self.io.multicast_ttl_v4()
    }

    /// Sets the value of the `IP_MULTICAST_TTL` option for this socket.
    pub fn set_multicast_ttl_v4(&self, ttl: u32) -> io::Result<()> {
        self.io.set_multicast_ttl_v4(ttl)
    }

    /// Gets the value of the `IPV6_MULTICAST_LOOP` option for this socket.
    pub fn multicast_loop_v6(&self) -> io::Result<bool> {
        self.io.multicast_loop_v6()
    }

    /// Sets the value of the `IPV6_MULTICAST_LOOP` option for this socket.
    pub fn set_multicast_loop_v6(&self, on: bool) -> io::Result<()> {
        self.io.set_multicast_loop_v6(on)
    }

    /// Gets the value of the `IP_TTL` option for this socket.
    pub fn ttl(&self) -> io::Result<u32> {
        self.io.ttl()
    }

    /// Sets the value for the `IP_TTL` option on this socket.
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.io.set_ttl(ttl)
    }

    /// Executes an operation of the `IP_ADD_MEMBERSHIP` type.
    pub fn join_multicast_v4(&self, multiaddr: Ipv4Addr, interface: Ipv4Addr) -> io::Result<()> {
        self.io.join_multicast_v4(&multiaddr, &interface)
    }

    /// Executes an operation of the `IPV6_ADD_MEMBERSHIP` type.
    pub fn join_multicast_v6(&self, multiaddr: &Ipv6Addr, interface: u32) -> io::Result<()> {
        self.io.join_multicast_v6(multiaddr, interface)
    }

    /// Executes an operation of the `IP_DROP_MEMBERSHIP` type.
    pub fn leave_multicast_v4(&self, multiaddr: Ipv4Addr, interface: Ipv4Addr) -> io::Result<()> {
        self.io.leave_multicast_v4(&multiaddr, &interface)
    }

    /// Executes an operation of the `IPV6_DROP_MEMBERSHIP` type.
    pub fn leave_multicast_v6(&self, multiaddr: &Ipv6Addr, interface: u32) -> io::Result<()> {
        self.io.leave_multicast_v6(multiaddr, interface)
    }
}

impl TryFrom<std::net::UdpSocket> for UdpSocket {
    type Error = io::Error;

    /// Consumes stream, returning the runtime I/O object.
    ///
    /// This is equivalent to
    /// [`UdpSocket::from_std(stream)`](UdpSocket::from_std).
    fn try_from(stream: std::net::UdpSocket) -> Result<Self, Self::Error> {
        Self::from_std(stream)
    }
}

crate::net::common::datagram_io_methods!(UdpSocket, SocketAddr, |a| a);
crate::net::common::fd_impls!(UdpSocket);
