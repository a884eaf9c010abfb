//! `UnixSocket`: a Unix domain socket configured (bound) before it becomes
//! a listener, a connected stream or a datagram socket, tokio's
//! `net::UnixSocket`. A thin layer over `socket2`: the socket is created
//! non-blocking and close-on-exec, and its descriptor is handed, as an
//! `OwnedFd`, to the std type that the runtime type is built from, so no
//! step here needs `unsafe`.

use super::{UnixDatagram, UnixListener, UnixStream};

use std::fmt;
use std::io;
use std::os::unix::io::{AsFd, AsRawFd, BorrowedFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::path::Path;

/// A Unix socket that has not yet been converted to a [`UnixStream`],
/// [`UnixDatagram`] or [`UnixListener`].
///
/// `UnixSocket` wraps an operating system socket and enables the caller to
/// configure the socket before establishing a connection or accepting
/// inbound connections. The caller is able to set socket option and
/// explicitly bind the socket with a socket address.
///
/// The underlying socket is closed when the `UnixSocket` value is dropped.
///
/// `UnixSocket` should only be used directly if the default configuration
/// used by [`UnixStream::connect`], [`UnixDatagram::bind`] and
/// [`UnixListener::bind`] does not meet the required use case (binding a
/// client to its own path, for example).
///
/// ```
/// use volt_runtime::io::{AsyncReadExt, AsyncWriteExt};
/// use volt_runtime::net::UnixSocket;
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> std::io::Result<()> {
/// let dir = std::env::temp_dir().join(format!("volt-unixsocket-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let (server_path, client_path) = (dir.join("server.sock"), dir.join("client.sock"));
/// # let _ = std::fs::remove_file(&server_path);
/// # let _ = std::fs::remove_file(&client_path);
///
/// let listener = UnixSocket::new_stream()?;
/// listener.bind(&server_path)?;
/// let listener = listener.listen(1024)?;
///
/// // A client bound to its own path: the server sees it as the peer.
/// let client = UnixSocket::new_stream()?;
/// client.bind(&client_path)?;
/// let mut client = client.connect(&server_path).await?;
/// let (mut server, peer) = listener.accept().await?;
/// assert_eq!(peer.as_pathname(), Some(client_path.as_path()));
///
/// client.write_all(b"hi").await?;
/// let mut buf = [0; 2];
/// server.read_exact(&mut buf).await?;
/// assert_eq!(&buf, b"hi");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok(())
/// # }
/// ```
pub struct UnixSocket {
    inner: socket2::Socket,
}

impl UnixSocket {
    fn ty(&self) -> socket2::Type {
        // `SO_TYPE` of a socket this value owns cannot fail.
        self.inner.r#type().expect("SO_TYPE of an open socket")
    }

    /// Creates a new Unix datagram socket (`socket(2)` with `AF_UNIX` and
    /// `SOCK_DGRAM`).
    ///
    /// Calling [`connect`](Self::connect) or [`listen`](Self::listen) on
    /// it returns an error.
    pub fn new_datagram() -> io::Result<UnixSocket> {
        UnixSocket::new(socket2::Type::DGRAM)
    }

    /// Creates a new Unix stream socket (`socket(2)` with `AF_UNIX` and
    /// `SOCK_STREAM`).
    ///
    /// Calling [`datagram`](Self::datagram) on it returns an error.
    pub fn new_stream() -> io::Result<UnixSocket> {
        UnixSocket::new(socket2::Type::STREAM)
    }

    fn new(ty: socket2::Type) -> io::Result<UnixSocket> {
        let inner = socket2::Socket::new(socket2::Domain::UNIX, ty, None)?;
        // socket2 sets close-on-exec; make it non-blocking for the driver.
        inner.set_nonblocking(true)?;
        Ok(UnixSocket { inner })
    }

    /// Binds the socket to the given path (`bind(2)`).
    pub fn bind(&self, path: impl AsRef<Path>) -> io::Result<()> {
        self.inner.bind(&socket2::SockAddr::unix(path)?)
    }

    /// Converts the socket into a [`UnixListener`] with `backlog` pending
    /// connections at most (`listen(2)`).
    ///
    /// # Errors
    ///
    /// On a socket made by [`new_datagram`](Self::new_datagram):
    /// "listen cannot be called on a datagram socket"; or the OS's error.
    ///
    /// # Panics
    ///
    /// Outside a runtime with I/O enabled.
    #[track_caller]
    pub fn listen(self, backlog: u32) -> io::Result<UnixListener> {
        if self.ty() == socket2::Type::DGRAM {
            return Err(io::Error::other(
                "listen cannot be called on a datagram socket",
            ));
        }
        self.inner
            .listen(i32::try_from(backlog).unwrap_or(i32::MAX))?;
        UnixListener::from_std(OwnedFd::from(self.inner).into())
    }

    /// Connects the socket to the listener at `path`, consuming it, and
    /// returns the connected [`UnixStream`] (`connect(2)`).
    ///
    /// # Errors
    ///
    /// On a socket made by [`new_datagram`](Self::new_datagram):
    /// "connect cannot be called on a datagram socket"; or the OS's error
    /// (`ConnectionRefused`, `NotFound`, ...).
    ///
    /// # Panics
    ///
    /// Outside a runtime with I/O enabled.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future before it completes closes the socket.
    pub async fn connect(self, path: impl AsRef<Path>) -> io::Result<UnixStream> {
        if self.ty() == socket2::Type::DGRAM {
            return Err(io::Error::other(
                "connect cannot be called on a datagram socket",
            ));
        }
        let addr = socket2::SockAddr::unix(path)?;
        if let Err(err) = self.inner.connect(&addr) {
            if err.raw_os_error() != Some(libc::EINPROGRESS) {
                return Err(err);
            }
        }
        let std: std::os::unix::net::UnixStream = OwnedFd::from(self.inner).into();
        UnixStream::connected(mio::net::UnixStream::from_std(std)).await
    }

    /// Converts the socket into a [`UnixDatagram`].
    ///
    /// # Errors
    ///
    /// On a socket made by [`new_stream`](Self::new_stream): "datagram
    /// cannot be called on a stream socket".
    ///
    /// # Panics
    ///
    /// Outside a runtime with I/O enabled.
    #[track_caller]
    pub fn datagram(self) -> io::Result<UnixDatagram> {
        if self.ty() == socket2::Type::STREAM {
            return Err(io::Error::other(
                "datagram cannot be called on a stream socket",
            ));
        }
        UnixDatagram::from_std(OwnedFd::from(self.inner).into())
    }
}

impl fmt::Debug for UnixSocket {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(fmt)
    }
}

impl AsRawFd for UnixSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.inner.as_raw_fd()
    }
}

impl AsFd for UnixSocket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.inner.as_fd()
    }
}

impl FromRawFd for UnixSocket {
    /// Converts a `RawFd` to a `UnixSocket`.
    ///
    /// # Notes
    ///
    /// The caller is responsible for ensuring that the socket is in
    /// non-blocking mode.
    unsafe fn from_raw_fd(fd: RawFd) -> UnixSocket {
        // SAFETY: the caller guarantees `fd` is an open socket it owns.
        let inner = unsafe { socket2::Socket::from_raw_fd(fd) };
        UnixSocket { inner }
    }
}

impl IntoRawFd for UnixSocket {
    fn into_raw_fd(self) -> RawFd {
        self.inner.into_raw_fd()
    }
}
