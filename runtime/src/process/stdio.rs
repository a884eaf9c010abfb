//! `ChildStdin`, `ChildStdout`, `ChildStderr`: a child's pipes as
//! non-blocking, driver-registered `AsyncWrite`/`AsyncRead`s.

use crate::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use crate::io_driver::PollEvented;

use mio::unix::pipe::{Receiver, Sender};
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
    inner: PollEvented<Sender>,
}

/// The standard output stream for spawned children (an [`AsyncRead`]).
#[derive(Debug)]
pub struct ChildStdout {
    inner: PollEvented<Receiver>,
}

/// The standard error stream for spawned children (an [`AsyncRead`]).
#[derive(Debug)]
pub struct ChildStderr {
    inner: PollEvented<Receiver>,
}

fn sender(pipe: Sender) -> io::Result<PollEvented<Sender>> {
    pipe.set_nonblocking(true)?;
    PollEvented::new_with_interest(pipe, Interest::WRITABLE)
}

fn receiver(pipe: Receiver) -> io::Result<PollEvented<Receiver>> {
    pipe.set_nonblocking(true)?;
    PollEvented::new_with_interest(pipe, Interest::READABLE)
}

impl ChildStdin {
    pub(super) fn new(std: std::process::ChildStdin) -> io::Result<Self> {
        Ok(ChildStdin {
            inner: sender(Sender::from(std))?,
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
        self.inner.into_inner().map(OwnedFd::from)
    }
}

macro_rules! reader {
    ($name:ident, $std:ty) => {
        impl $name {
            pub(super) fn new(std: $std) -> io::Result<Self> {
                Ok($name {
                    inner: receiver(Receiver::from(std))?,
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
                self.inner.into_inner().map(OwnedFd::from)
            }
        }

        impl AsyncRead for $name {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                self.inner.poll_read(cx, buf)
            }
        }
    };
}

reader!(ChildStdout, std::process::ChildStdout);
reader!(ChildStderr, std::process::ChildStderr);

impl AsyncWrite for ChildStdin {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.inner.poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.inner.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
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
                // SAFETY: the descriptor is owned by `self.inner`, which
                // lives as long as the borrow.
                unsafe { BorrowedFd::borrow_raw(self.as_raw_fd()) }
            }
        }

        impl TryFrom<$name> for Stdio {
            type Error = io::Error;

            /// Hands the pipe to another child as its stdio (deregistered
            /// and put back in blocking mode, as children expect).
            fn try_from(value: $name) -> io::Result<Stdio> {
                let fd = value.into_owned_fd()?;
                let pipe = Sender::from(fd);
                pipe.set_nonblocking(false)?;
                Ok(Stdio::from(OwnedFd::from(pipe)))
            }
        }
    )*};
}

fd_impls!(ChildStdin, ChildStdout, ChildStderr);
