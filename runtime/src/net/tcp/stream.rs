//! `TcpStream`.

use crate::io::{AsyncRead, AsyncWrite, Interest, ReadBuf, Ready};
use crate::io_driver::PollEvented;
use crate::net::{ToSocketAddrs, to_socket_addrs};

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// A TCP stream between a local and a remote socket.
///
/// A TCP stream can either be created by connecting to an endpoint, via
/// the [`connect`] method, or by [accepting] a connection from a
/// [listener]. A TCP stream can also be created via the [`TcpSocket`]
/// type.
///
/// Reading and writing to a `TcpStream` is usually done using the
/// convenience methods found on the `AsyncReadExt` and `AsyncWriteExt`
/// traits.
///
/// [`connect`]: method@TcpStream::connect
/// [accepting]: method@crate::net::TcpListener::accept
/// [listener]: struct@crate::net::TcpListener
/// [`TcpSocket`]: crate::net::TcpSocket
///
/// # Examples
///
/// ```no_run
/// use volt_runtime::net::TcpStream;
///
/// # async fn dox() -> std::io::Result<()> {
/// let stream = TcpStream::connect("127.0.0.1:8080").await?;
/// stream.writable().await?;
/// stream.try_write(b"hello world")?;
/// # Ok(())
/// # }
/// ```
pub struct TcpStream {
    io: PollEvented<mio::net::TcpStream>,
}

impl TcpStream {
    /// Opens a TCP connection to a remote host.
    ///
    /// `addr` is an address of the remote host. Anything which implements
    /// the [`ToSocketAddrs`] trait can be supplied as the address. If
    /// `addr` yields multiple addresses, connect will be attempted with
    /// each of the addresses until a connection is successful. If none of
    /// the addresses result in a successful connection, the error returned
    /// from the last connection attempt (the last address) is returned.
    pub async fn connect<A: ToSocketAddrs>(addr: A) -> io::Result<TcpStream> {
        let addrs = to_socket_addrs(addr).await?;
        let mut last_err = None;
        for addr in addrs {
            match TcpStream::connect_addr(addr).await {
                Ok(stream) => return Ok(stream),
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

    async fn connect_addr(addr: SocketAddr) -> io::Result<TcpStream> {
        let sys = mio::net::TcpStream::connect(addr)?;
        TcpStream::connect_mio(sys).await
    }

    pub(crate) async fn connect_mio(sys: mio::net::TcpStream) -> io::Result<TcpStream> {
        let stream = TcpStream::new(sys)?;

        // Once we've connected, wait for the stream to be writable as
        // that's when the actual connection has been initiated. Once we're
        // writable we check for `take_socket_error` to see if the connect
        // actually hit an error or not.
        //
        // If all that succeeded then we ship everything on up.
        std::future::poll_fn(|cx| stream.io.registration().poll_write_ready(cx)).await?;

        if let Some(e) = stream.io.take_error()? {
            return Err(e);
        }

        Ok(stream)
    }

    #[track_caller]
    pub(crate) fn new(connected: mio::net::TcpStream) -> io::Result<TcpStream> {
        let io = PollEvented::new(connected)?;
        Ok(TcpStream { io })
    }

    /// A stream from `accept`: assumed readable and writable, so its first
    /// read and write try the socket instead of waiting for the driver's
    /// first event (`Registration::assume_ready`).
    #[track_caller]
    pub(crate) fn new_accepted(connected: mio::net::TcpStream) -> io::Result<TcpStream> {
        let stream = TcpStream::new(connected)?;
        stream
            .io
            .registration()
            .assume_ready(crate::io::Ready::READABLE | crate::io::Ready::WRITABLE);
        Ok(stream)
    }

    /// Creates new `TcpStream` from a `std::net::TcpStream`.
    ///
    /// This function is intended to be used to wrap a TCP stream from the
    /// standard library in the runtime equivalent.
    ///
    /// The caller is responsible for ensuring that the stream is in
    /// non-blocking mode. Otherwise all I/O operations on the stream will
    /// block the thread, which will cause unexpected behavior. Non-blocking
    /// mode can be set using [`set_nonblocking`].
    ///
    /// # Panics
    ///
    /// This function panics if it is not called from within a runtime with
    /// IO enabled.
    ///
    /// [`set_nonblocking`]: std::net::TcpStream::set_nonblocking
    #[track_caller]
    pub fn from_std(stream: std::net::TcpStream) -> io::Result<TcpStream> {
        let io = mio::net::TcpStream::from_std(stream);
        TcpStream::new(io)
    }

    /// Turns a [`volt::net::TcpStream`] into a [`std::net::TcpStream`].
    ///
    /// The returned [`std::net::TcpStream`] will have nonblocking mode set
    /// as `true`. Use [`set_nonblocking`] to change the blocking mode if
    /// needed.
    ///
    /// [`volt::net::TcpStream`]: TcpStream
    /// [`set_nonblocking`]: fn@std::net::TcpStream::set_nonblocking
    pub fn into_std(self) -> io::Result<std::net::TcpStream> {
        use std::os::unix::io::{FromRawFd, IntoRawFd};
        let fd = self.io.into_inner()?.into_raw_fd();
        // SAFETY: the mio stream released `fd`, which it owned; the std
        // stream takes ownership.
        Ok(unsafe { std::net::TcpStream::from_raw_fd(fd) })
    }

    /// Returns the local address that this stream is bound to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }

    /// Returns the value of the `SO_ERROR` option.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.take_error()
    }

    /// Returns the remote address that this stream is connected to.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.peer_addr()
    }

    /// Attempts to receive data on the socket, without removing that data
    /// from the queue, registering the current task for wakeup if data is
    /// not yet available.
    pub fn poll_peek(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<usize>> {
        loop {
            let ev = ready!(self.io.registration().poll_read_ready(cx))?;
            let b = buf.initialize_unfilled();
            match self.io.peek(b) {
                Ok(n) => {
                    buf.advance(n);
                    return Poll::Ready(Ok(n));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.io.registration().clear_readiness(ev);
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }

    /// Receives data on the socket from the remote address to which it is
    /// connected, without removing that data from the queue. On success,
    /// returns the number of bytes peeked.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: nothing is consumed.
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.async_io(Interest::READABLE, || self.io.peek(buf))
            .await
    }

    /// Gets the value of the `TCP_NODELAY` option on this socket.
    pub fn nodelay(&self) -> io::Result<bool> {
        self.io.nodelay()
    }

    /// Sets the value of the `TCP_NODELAY` option on this socket.
    ///
    /// If set, this option disables the Nagle algorithm. This means that
    /// segments are always sent as soon as possible, even if there is only
    /// a small amount of data.
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        self.io.set_nodelay(nodelay)
    }

    /// Reads the linger duration for this socket (`SO_LINGER`).
    pub fn linger(&self) -> io::Result<Option<std::time::Duration>> {
        socket2::SockRef::from(self).linger()
    }

    /// Sets the linger duration of this socket (`SO_LINGER`).
    ///
    /// With a non-zero duration, dropping the stream blocks the thread
    /// until the data is sent or the duration passes, which is why tokio
    /// deprecates it; use [`set_zero_linger`](Self::set_zero_linger) for
    /// an abortive close.
    #[deprecated = "`SO_LINGER` causes the socket to block the thread on drop"]
    pub fn set_linger(&self, dur: Option<std::time::Duration>) -> io::Result<()> {
        socket2::SockRef::from(self).set_linger(dur)
    }

    /// Sets a linger duration of zero (`SO_LINGER`): dropping the stream
    /// aborts the connection with a `RST` instead of the `FIN` handshake,
    /// discarding unsent data, and skips `TIME_WAIT`.
    pub fn set_zero_linger(&self) -> io::Result<()> {
        socket2::SockRef::from(self).set_linger(Some(std::time::Duration::ZERO))
    }

    /// Gets the value of the `TCP_QUICKACK` option on this socket.
    #[cfg(any(
        target_os = "linux",
        target_os = "android",
        target_os = "fuchsia",
        target_os = "cygwin"
    ))]
    pub fn quickack(&self) -> io::Result<bool> {
        socket2::SockRef::from(self).tcp_quickack()
    }

    /// Enables or disables `TCP_QUICKACK` (send ACKs at once rather than
    /// delaying them; the kernel may reset it, so it is often set after
    /// each read).
    #[cfg(any(
        target_os = "linux",
        target_os = "android",
        target_os = "fuchsia",
        target_os = "cygwin"
    ))]
    pub fn set_quickack(&self, quickack: bool) -> io::Result<()> {
        socket2::SockRef::from(self).set_tcp_quickack(quickack)
    }

    /// Gets the value of the `IP_TTL` option for this socket.
    pub fn ttl(&self) -> io::Result<u32> {
        self.io.ttl()
    }

    /// Sets the value for the `IP_TTL` option on this socket.
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.io.set_ttl(ttl)
    }
}

impl TryFrom<std::net::TcpStream> for TcpStream {
    type Error = io::Error;

    /// Consumes stream, returning the runtime I/O object.
    ///
    /// This is equivalent to
    /// [`TcpStream::from_std(stream)`](TcpStream::from_std).
    fn try_from(stream: std::net::TcpStream) -> Result<Self, Self::Error> {
        Self::from_std(stream)
    }
}

crate::net::common::stream_io_methods!(TcpStream);
