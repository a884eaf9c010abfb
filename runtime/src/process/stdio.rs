//! `ChildStdin`, `ChildStdout`, `ChildStderr`: a child's pipes as
//! non-blocking, driver-registered `AsyncWrite`/`AsyncRead`s. Each wraps
//! the matching end of [`net::unix::pipe`](crate::net::unix::pipe), which
//! holds the registration and the read/write paths.

use crate::io::{AsyncRead, AsyncWrite, ReadBuf};
use crate::net::unix::pipe;

use std::io;
use std::os::unix::io::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::pin::Pin;
use std::process::Stdio;
use std::task::{Context, Poll};

/// The standard input stream for spawned children (an [`AsyncWrite`]).
///
/// Dropping it closes the pipe: the child reads end of file.
#[derive(Debug)]
pub struct ChildStdin {
    inner: pipe::Sender,
}

/// The standard output stream for spawned children (an [`AsyncRead`]).
#[derive(Debug)]
pub struct ChildStdout {
    inner: pipe::Receiver,
}

/// The standard error stream for spawned children (an [`AsyncRead`]).
#[derive(Debug)]
pub struct ChildStderr {
    inner: pipe::Receiver,
}

impl ChildStdin {
    pub(super) fn new(std: std::process::ChildStdin) -> io::Result<Self> {
        let end = mio::unix::pipe::Sender::from(std);
        end.set_nonblocking(true)?;
        Ok(ChildStdin {
            inner: pipe::Sender::from_mio(end)?,
        })
    }

    /// Creates a `ChildStdin` from a std one (registering it with the
    /// current runtime).
    ///
    /// # Errors
    ///
    /// If the pipe cannot be made non-blocking or registered.
    pub fn from_std(inner: std::process::ChildStdin) -> io::Result<Self> {
        Self::new(inner)
    }

    /// Converts into an owned file descriptor (deregistered; it stays in
    /// non-blocking mode).
    pub fn into_owned_fd(self) -> io::Result<OwnedFd> {
        self.inner.into_nonblocking_fd()
    }
}

macro_rules! reader {
    ($name:ident, $std:ty) => {
        impl $name {
            pub(super) fn new(std: $std) -> io::Result<Self> {
                let end = mio::unix::pipe::Receiver::from(std);
                end.set_nonblocking(true)?;
                Ok($name {
                    inner: pipe::Receiver::from_mio(end)?,
                })
            }

            /// Creates one from the std type (registering it with the
            /// current runtime).
            ///
            /// # Errors
            ///
            /// If the pipe cannot be made non-blocking or registered.
            pub fn from_std(inner: $std) -> io::Result<Self> {
                Self::new(inner)
            }

            /// Converts into an owned file descriptor (deregistered; it
            /// stays in non-blocking mode).
            pub fn into_owned_fd(self) -> io::Result<OwnedFd> {
                self.inner.into_nonblocking_fd()
            }
        }

        impl AsyncRead for $name {
            fn poll_read(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                Pin::new(&mut self.inner).poll_read(cx, buf)
            }
        }
    };
}

reader!(ChildStdout, std::process::ChildStdout);
reader!(ChildStderr, std::process::ChildStderr);

impl AsyncWrite for ChildStdin {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

macro_rules! fd_impls {
    ($($name:ident),*) => {$(
        impl AsRawFd for $name {
            fn as_raw_fd(&self) -> RawFd {
                self.inner.as_raw_fd()
            }
        }

        impl AsFd for $name {
            fn as_fd(&self) -> BorrowedFd<'_> {
                self.inner.as_fd()
            }
        }

        impl TryFrom<$name> for Stdio {
            type Error = io::Error;

            /// Hands the pipe to another child as its stdio (deregistered
            /// and put back in blocking mode, as children expect).
            fn try_from(value: $name) -> io::Result<Stdio> {
                Ok(Stdio::from(value.inner.into_blocking_fd()?))
            }
        }
    )*};
}

fd_impls!(ChildStdin, ChildStdout, ChildStderr);
