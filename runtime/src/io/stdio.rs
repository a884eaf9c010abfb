//! `stdin`, `stdout`, `stderr`: the process's standard streams, read and
//! written on the blocking pool (std's handles block; there is no portable
//! way to make them non-blocking without changing them for the whole
//! process).
//!
//! As in tokio, writes are reported done when handed to the pool, so a
//! program should `flush` (or `shutdown`) before it exits, or the last
//! write may be lost; and a read that is waiting for input keeps a pool
//! thread busy until the input arrives, which can delay runtime shutdown.

use super::blocking::Blocking;
use super::{AsyncRead, AsyncWrite, ReadBuf};

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

macro_rules! std_stream {
    ($(#[$doc:meta])* $name:ident, $ctor:ident, $std:ident) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name {
            std: Blocking<io::$std>,
        }

        #[cfg(unix)]
        impl std::os::unix::io::AsRawFd for $name {
            fn as_raw_fd(&self) -> std::os::unix::io::RawFd {
                std::os::unix::io::AsRawFd::as_raw_fd(&io::$ctor())
            }
        }

        #[cfg(unix)]
        impl std::os::unix::io::AsFd for $name {
            fn as_fd(&self) -> std::os::unix::io::BorrowedFd<'_> {
                use std::os::unix::io::AsRawFd;
                // SAFETY: the standard streams' descriptors stay open for
                // the life of the process.
                unsafe { std::os::unix::io::BorrowedFd::borrow_raw(self.as_raw_fd()) }
            }
        }
    };
}

std_stream! {
    /// A handle to the standard input stream of a process.
    ///
    /// The handle implements the [`AsyncRead`] trait, but beware that
    /// concurrent reads of `Stdin` must be executed with care: each handle
    /// reads through its own blocking call.
    ///
    /// Created by the [`stdin`] function.
    Stdin, stdin, Stdin
}

std_stream! {
    /// A handle to the global standard output stream of the current
    /// process.
    ///
    /// The handle implements [`AsyncWrite`]. Flush it before the program
    /// exits: a write is done in the background.
    ///
    /// Created by the [`stdout`] function.
    Stdout, stdout, Stdout
}

std_stream! {
    /// A handle to the standard error stream of a process.
    ///
    /// Created by the [`stderr`] function.
    Stderr, stderr, Stderr
}

/// Constructs a new handle to the standard input of the current process.
///
/// This handle is best used for non-interactive uses, such as when a file
/// is piped into the application. For interactive input, a dedicated
/// thread with blocking reads is usually the better design.
///
/// # Panics
///
/// Reading panics when called outside a runtime (it uses the blocking
/// pool).
pub fn stdin() -> Stdin {
    Stdin {
        std: Blocking::new(io::stdin()),
    }
}

/// Constructs a new handle to the standard output of the current process.
///
/// ```no_run
/// use volt_runtime::io::{self, AsyncWriteExt};
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> io::Result<()> {
/// let mut stdout = io::stdout();
/// stdout.write_all(b"Hello world!\n").await?;
/// stdout.flush().await?;
/// # Ok(())
/// # }
/// ```
pub fn stdout() -> Stdout {
    Stdout {
        std: Blocking::new_mandatory(io::stdout()),
    }
}

/// Constructs a new handle to the standard error of the current process.
pub fn stderr() -> Stderr {
    Stderr {
        std: Blocking::new_mandatory(io::stderr()),
    }
}

impl AsyncRead for Stdin {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.std.poll_read(cx, buf)
    }
}

macro_rules! write_stream {
    ($name:ident) => {
        impl AsyncWrite for $name {
            fn poll_write(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                self.std.poll_write(cx, buf)
            }

            fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.std.poll_flush(cx)
            }

            fn poll_shutdown(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
            ) -> Poll<io::Result<()>> {
                self.std.poll_flush(cx)
            }
        }
    };
}

write_stream!(Stdout);
write_stream!(Stderr);
