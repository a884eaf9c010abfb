//! `TcpSocket`: a TCP socket configured before it connects or listens
//! (a thin layer over `socket2`, created non-blocking and close-on-exec).

use super::{TcpListener, TcpStream};

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::os::unix::io::{AsFd, AsRawFd, BorrowedFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::time::Duration;

/// A TCP socket that has not yet been converted to a `TcpStream` or
/// `TcpListener`.
///
/// `TcpSocket` wraps an operating system socket and enables the caller to
/// configure the socket before establishing a TCP connection or accepting
/// inbound connections. The caller is able to set socket option and
/// explicitly bind the socket with a socket address.
///
/// The underlying socket is closed when the `TcpSocket` value is dropped.
///
/// ```
/// use volt_runtime::net::{TcpSocket, TcpStream};
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> std::io::Result<()> {
/// let socket = TcpSocket::new_v4()?;
/// socket.set_reuseaddr(true)?;
/// socket.bind("127.0.0.1:0".parse().unwrap())?;
/// let listener = socket.listen(1024)?;
///
/// let client = TcpSocket::new_v4()?;
/// client.set_nodelay(true)?;
/// let stream: TcpStream = client.connect(listener.local_addr()?).await?;
/// assert!(stream.nodelay()?);
/// # Ok(())
/// # }
/// ```
pub struct TcpSocket {
    inner: socket2::Socket,
}

impl TcpSocket {
    /// Creates a new socket configured for IPv4 (`socket(2)` with
    /// `AF_INET` and `SOCK_STREAM`).
    pub fn new_v4() -> io::Result<TcpSocket> {
        TcpSocket::new(socket2::Domain::IPV4)
    }

    /// Creates a new socket configured for IPv6 (`socket(2)` with
    /// `AF_INET6` and `SOCK_STREAM`).
    pub fn new_v6() -> io::Result<TcpSocket> {
        TcpSocket::new(socket2::Domain::IPV6)
    }

    fn new(domain: socket2::Domain) -> io::Result<TcpSocket> {
        let inner =
            socket2::Socket::new(domain, socket2::Type::STREAM, Some(socket2::Protocol::TCP))?;
        // socket2 sets close-on-exec; make it non-blocking for the driver.
        inner.set_nonblocking(true)?;
        Ok(TcpSocket { inner })
    }

    /// Sets value for the `SO_KEEPALIVE` option on this socket.
    pub fn set_keepalive(&self, keepalive: bool) -> io::Result<()> {
        self.inner.set_keepalive(keepalive)
    }

    /// Gets the value of the `SO_KEEPALIVE` option on this socket.
    pub fn keepalive(&self) -> io::Result<bool> {
        self.inner.keepalive()
    }

    /// Allows the socket to bind to an in-use address (`SO_REUSEADDR`).
    pub fn set_reuseaddr(&self, reuseaddr: bool) -> io::Result<()> {
        self.inner.set_reuse_address(reuseaddr)
    }

    /// Retrieves the value set for `SO_REUSEADDR` on this socket.
    pub fn reuseaddr(&self) -> io::Result<bool> {
        self.inner.reuse_address()
    }

    /// Allows the socket to bind to an in-use port (`SO_REUSEPORT`).
    pub fn set_reuseport(&self, reuseport: bool) -> io::Result<()> {
        self.inner.set_reuse_port(reuseport)
    }

    /// Retrieves the value set for `SO_REUSEPORT` on this socket.
    pub fn reuseport(&self) -> io::Result<bool> {
        self.inner.reuse_port()
    }

    /// Sets the size of the TCP send buffer on this socket (`SO_SNDBUF`).
    pub fn set_send_buffer_size(&self, size: u32) -> io::Result<()> {
        self.inner.set_send_buffer_size(size as usize)
    }

    /// Returns the size of the TCP send buffer for this socket.
    pub fn send_buffer_size(&self) -> io::Result<u32> {
        self.inner.send_buffer_size().map(|n| n as u32)
    }

    /// Sets the size of the TCP receive buffer on this socket
    /// (`SO_RCVBUF`).
    pub fn set_recv_buffer_size(&self, size: u32) -> io::Result<()> {
        self.inner.set_recv_buffer_size(size as usize)
    }

    /// Returns the size of the TCP receive buffer for this socket.
    pub fn recv_buffer_size(&self) -> io::Result<u32> {
        self.inner.recv_buffer_size().map(|n| n as u32)
    }

    /// Sets the linger duration of this socket by setting the `SO_LINGER`
    /// option.
    ///
    /// With a non-zero duration, closing the socket blocks the thread
    /// until the data is sent or the duration passes, which is why tokio
    /// deprecates it; [`set_zero_linger`](Self::set_zero_linger) does not
    /// block.
    #[deprecated = "`SO_LINGER` causes the socket to block the thread on drop"]
    pub fn set_linger(&self, dur: Option<Duration>) -> io::Result<()> {
        self.inner.set_linger(dur)
    }

    /// Sets a linger duration of zero (`SO_LINGER`): closing the socket
    /// aborts the connection with a `RST` instead of the `FIN` handshake,
    /// discarding unsent data, and skips `TIME_WAIT`.
    pub fn set_zero_linger(&self) -> io::Result<()> {
        self.inner.set_linger(Some(Duration::ZERO))
    }

    /// Reads the linger duration for this socket (`SO_LINGER`).
    pub fn linger(&self) -> io::Result<Option<Duration>> {
        self.inner.linger()
    }

    /// Sets the value of the `TCP_NODELAY` option on this socket.
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        self.inner.set_tcp_nodelay(nodelay)
    }

    /// Gets the value of the `TCP_NODELAY` option on this socket.
    pub fn nodelay(&self) -> io::Result<bool> {
        self.inner.tcp_nodelay()
    }

    /// Gets the value of the `IPV6_TCLASS` option for this socket.
    pub fn tclass_v6(&self) -> io::Result<u32> {
        self.inner.tclass_v6()
    }

    /// Sets the value for the `IPV6_TCLASS` option on this socket.
    pub fn set_tclass_v6(&self, tclass: u32) -> io::Result<()> {
        self.inner.set_tclass_v6(tclass)
    }

    /// Gets the value of the `IP_TOS` option for this socket.
    pub fn tos_v4(&self) -> io::Result<u32> {
        self.inner.tos_v4()
    }

    /// Gets the value of the `IP_TOS` option for this socket.
    #[deprecated = "use `tos_v4()`"]
    pub fn tos(&self) -> io::Result<u32> {
        self.tos_v4()
    }

    /// Sets the value for the `IP_TOS` option on this socket.
    pub fn set_tos_v4(&self, tos: u32) -> io::Result<()> {
        self.inner.set_tos_v4(tos)
    }

    /// Sets the value for the `IP_TOS` option on this socket.
    #[deprecated = "use `set_tos_v4()`"]
    pub fn set_tos(&self, tos: u32) -> io::Result<()> {
        self.set_tos_v4(tos)
    }

    /// Gets the value for the `SO_BINDTODEVICE` option on this socket.
    #[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
    pub fn device(&self) -> io::Result<Option<Vec<u8>>> {
        self.inner.device()
    }

    /// Sets the value for the `SO_BINDTODEVICE` option on this socket
    /// (`None` removes the binding).
    #[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
    pub fn bind_device(&self, interface: Option<&[u8]>) -> io::Result<()> {
        self.inner.bind_device(interface)
    }

    /// Gets the local address of this socket.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        let addr = self.inner.local_addr()?;
        addr.as_socket().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "invalid address family (not IPv4 or IPv6)",
            )
        })
    }

    /// Returns the value of the `SO_ERROR` option.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.inner.take_error()
    }

    /// Binds the socket to the given address.
    pub fn bind(&self, addr: SocketAddr) -> io::Result<()> {
        self.inner.bind(&addr.into())
    }

    /// Establishes a TCP connection with a peer at the specified socket
    /// address, consuming the socket.
    ///
    /// # Errors
    ///
    /// The OS's connect error (`ConnectionRefused`, ...).
    ///
    /// # Panics
    ///
    /// Outside a runtime with I/O enabled.
    pub async fn connect(self, addr: SocketAddr) -> io::Result<TcpStream> {
        if let Err(err) = self.inner.connect(&addr.into()) {
            if err.raw_os_error() != Some(libc::EINPROGRESS) {
                return Err(err);
            }
        }
        let fd = self.inner.into_raw_fd();
        // SAFETY: `fd` is the connected (or connecting) socket socket2 just
        // released; the mio stream takes ownership.
        let mio = unsafe { mio::net::TcpStream::from_raw_fd(fd) };
        TcpStream::connect_mio(mio).await
    }

    /// Converts the socket into a `TcpListener` with `backlog` pending
    /// connections at most.
    ///
    /// # Panics
    ///
    /// Outside a runtime with I/O enabled.
    #[track_caller]
    pub fn listen(self, backlog: u32) -> io::Result<TcpListener> {
        self.inner
            .listen(i32::try_from(backlog).unwrap_or(i32::MAX))?;
        let fd = self.inner.into_raw_fd();
        // SAFETY: `fd` is the listening socket socket2 just released; the
        // mio listener takes ownership.
        let mio = unsafe { mio::net::TcpListener::from_raw_fd(fd) };
        TcpListener::new(mio)
    }

    /// Converts a [`std::net::TcpStream`] into a `TcpSocket` (to read or
    /// change its options).
    pub fn from_std_stream(std_stream: std::net::TcpStream) -> TcpSocket {
        TcpSocket {
            inner: socket2::Socket::from(OwnedFd::from(std_stream)),
        }
    }
}

impl fmt::Debug for TcpSocket {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(fmt)
    }
}

impl AsRawFd for TcpSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.inner.as_raw_fd()
    }
}

impl AsFd for TcpSocket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.inner.as_fd()
    }
}

impl FromRawFd for TcpSocket {
    /// Converts a `RawFd` to a `TcpSocket`.
    ///
    /// # Notes
    ///
    /// The caller is responsible for ensuring that the socket is in
    /// non-blocking mode.
    unsafe fn from_raw_fd(fd: RawFd) -> TcpSocket {
        // SAFETY: the caller guarantees `fd` is an open socket it owns.
        let inner = unsafe { socket2::Socket::from_raw_fd(fd) };
        TcpSocket { inner }
    }
}

impl IntoRawFd for TcpSocket {
    fn into_raw_fd(self) -> RawFd {
        self.inner.into_raw_fd()
    }
}
