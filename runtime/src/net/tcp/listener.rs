//! `TcpListener`.

use crate::io_driver::{Direction, PollEvented};
use crate::net::{TcpStream, ToSocketAddrs, to_socket_addrs};

use std::io;
use std::net::{self, SocketAddr};
use std::task::{Context, Poll, ready};

/// A TCP socket server, listening for connections.
///
/// You can accept a new connection by using the [`accept`](`TcpListener::accept`)
/// method.
///
/// # Errors
///
/// Note that accepting a connection can lead to various errors and not all
/// of them are necessarily fatal ‒ for example having too many open file
/// descriptors or the other side closing the connection while it waits in
/// an accept queue. These would terminate the stream if not handled in any
/// way.
///
/// # Examples
///
/// ```no_run
/// use volt_runtime::net::TcpListener;
///
/// # async fn dox() -> std::io::Result<()> {
/// let listener = TcpListener::bind("127.0.0.1:8080").await?;
///
/// loop {
///     let (socket, addr) = listener.accept().await?;
///     println!("new client: {addr}");
///     drop(socket);
/// }
/// # }
/// ```
pub struct TcpListener {
    io: PollEvented<mio::net::TcpListener>,
}

impl TcpListener {
    /// Creates a new `TcpListener`, which will be bound to the specified
    /// address.
    ///
    /// The returned listener is ready for accepting connections.
    ///
    /// Binding with a port number of 0 will request that the OS assigns a
    /// port to this listener. The port allocated can be queried via the
    /// `local_addr` method.
    ///
    /// The address type can be any implementor of the [`ToSocketAddrs`]
    /// trait. If `addr` yields multiple addresses, bind will be attempted
    /// with each of the addresses until one succeeds and returns the
    /// listener. If none of the addresses succeed in creating a listener,
    /// the error returned from the last attempt (the last address) is
    /// returned.
    ///
    /// This function sets the `SO_REUSEADDR` option on the socket (through
    /// mio).
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<TcpListener> {
        let addrs = to_socket_addrs(addr).await?;
        let mut last_err = None;
        for addr in addrs {
            match TcpListener::bind_addr(addr) {
                Ok(listener) => return Ok(listener),
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

    fn bind_addr(addr: SocketAddr) -> io::Result<TcpListener> {
        let listener = mio::net::TcpListener::bind(addr)?;
        TcpListener::new(listener)
    }

    #[track_caller]
    pub(crate) fn new(listener: mio::net::TcpListener) -> io::Result<TcpListener> {
        let io = PollEvented::new(listener)?;
        Ok(TcpListener { io })
    }

    /// Accepts a new incoming connection from this listener.
    ///
    /// This function will yield once a new TCP connection is established.
    /// When established, the corresponding [`TcpStream`] and the remote
    /// peer's address will be returned.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If the method is used as the event in a
    /// `volt::select!` statement and some other branch completes first,
    /// then it is guaranteed that no new connections were accepted by this
    /// method.
    pub async fn accept(&self) -> io::Result<(TcpStream, SocketAddr)> {
        // The readiness waiter list, not `poll_accept`'s single waker
        // slot: any number of tasks may wait on one shared listener.
        let (mio, addr) = self
            .io
            .registration()
            .async_io(crate::io::Interest::READABLE, || self.io.accept())
            .await?;
        Ok((TcpStream::new_accepted(mio)?, addr))
    }

    /// Polls to accept a new incoming connection to this listener.
    ///
    /// If there is no connection to accept, `Poll::Pending` is returned
    /// and the current task will be notified by a waker. Note that on
    /// multiple calls to `poll_accept`, only the `Waker` from the `Context`
    /// passed to the most recent call is scheduled to receive a wakeup.
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(TcpStream, SocketAddr)>> {
        let (mio, addr) = ready!(
            self.io
                .registration()
                .poll_io(cx, Direction::Read, || self.io.accept())
        )?;
        let stream = TcpStream::new_accepted(mio)?;
        Poll::Ready(Ok((stream, addr)))
    }

    /// Creates new `TcpListener` from a `std::net::TcpListener`.
    ///
    /// This function is intended to be used to wrap a TCP listener from
    /// the standard library in the runtime equivalent.
    ///
    /// This API is typically paired with the `socket2` crate and the
    /// `Socket` type to build up and customize a listener before it's
    /// shipped off to the backing event loop.
    ///
    /// The caller is responsible for ensuring that the listener is in
    /// non-blocking mode. Otherwise all I/O operations on the listener
    /// will block the thread, which will cause unexpected behavior.
    /// Non-blocking mode can be set using [`set_nonblocking`].
    ///
    /// # Panics
    ///
    /// This function panics if it is not called from within a runtime with
    /// IO enabled.
    ///
    /// [`set_nonblocking`]: std::net::TcpListener::set_nonblocking
    #[track_caller]
    pub fn from_std(listener: net::TcpListener) -> io::Result<TcpListener> {
        let io = mio::net::TcpListener::from_std(listener);
        TcpListener::new(io)
    }

    /// Turns a [`volt::net::TcpListener`] into a [`std::net::TcpListener`].
    ///
    /// The returned [`std::net::TcpListener`] will have nonblocking mode
    /// set as `true`. Use [`set_nonblocking`] to change the blocking mode
    /// if needed.
    ///
    /// [`volt::net::TcpListener`]: TcpListener
    /// [`std::net::TcpListener`]: std::net::TcpListener
    /// [`set_nonblocking`]: fn@std::net::TcpListener::set_nonblocking
    pub fn into_std(self) -> io::Result<std::net::TcpListener> {
        use std::os::unix::io::{FromRawFd, IntoRawFd};
        let mio = self.io.into_inner()?;
        let fd = mio.into_raw_fd();
        // SAFETY: `fd` was just released by the mio listener, which owned
        // it: the std listener takes the ownership over.
        Ok(unsafe { std::net::TcpListener::from_raw_fd(fd) })
    }

    /// Returns the local address that this listener is bound to.
    ///
    /// This can be useful, for example, when binding to port 0 to figure
    /// out which port was actually bound.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }

    /// Gets the value of the `IP_TTL` option for this socket.
    pub fn ttl(&self) -> io::Result<u32> {
        self.io.ttl()
    }

    /// Sets the value for the `IP_TTL` option on this socket.
    ///
    /// This value sets the time-to-live field that is used in every packet
    /// sent from this socket.
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.io.set_ttl(ttl)
    }
}

impl TryFrom<net::TcpListener> for TcpListener {
    type Error = io::Error;

    /// Consumes stream, returning the runtime I/O object.
    ///
    /// This is equivalent to
    /// [`TcpListener::from_std(stream)`](TcpListener::from_std).
    fn try_from(stream: net::TcpListener) -> Result<Self, Self::Error> {
        Self::from_std(stream)
    }
}

crate::net::common::fd_impls!(TcpListener);
