//! Traits, helpers, and type definitions for asynchronous I/O.
//!
//! This module is the asynchronous version of `std::io`: [`AsyncRead`] and
//! [`AsyncWrite`] are the non-blocking counterparts of `std::io::Read` and
//! `std::io::Write`, reading into a [`ReadBuf`] that tracks initialized
//! and filled bytes. [`Interest`] and [`Ready`] describe readiness, used by
//! [`unix::AsyncFd`] and the socket types.
//!
//! I/O resources register with the runtime's I/O driver (one mio `Poll`
//! per runtime, polled by whichever worker parks); a task that gets
//! `WouldBlock` waits for the next readiness event of its direction only
//! (a writer is never woken by readability).

/// `ready!` for an I/O poll inside a loop, retrying
/// `ErrorKind::Interrupted` with `continue`: tokio 1.54's helpers
/// (`read_exact`, `read_to_end`, `read_until`, the number reads and
/// writes, `write_all`, `write_all_buf`, `copy*`, `BufWriter`'s flush)
/// retry it rather than fail.
macro_rules! ready_retry {
    ($e:expr) => {
        match std::task::ready!($e) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            res => res,
        }
    };
}

mod async_buf_read;
mod async_read;
mod async_write;
#[cfg(all(feature = "rt", any(feature = "fs", feature = "io-std")))]
pub(crate) mod blocking;
mod buf_reader;
mod buf_stream;
mod buf_writer;
mod chain;
mod copy;
mod duplex;
mod empty;
mod lines;
mod read_buf;
mod read_ext;
mod ready;
mod seek;
mod split;
#[cfg(all(feature = "rt", feature = "io-std"))]
mod stdio;
mod take;
mod write_ext;

pub use async_buf_read::AsyncBufRead;
pub use async_read::AsyncRead;
pub use async_write::AsyncWrite;
pub use buf_reader::BufReader;
pub use buf_stream::BufStream;
pub use buf_writer::BufWriter;
pub use chain::Chain;
pub use copy::{copy, copy_bidirectional, copy_bidirectional_with_sizes, copy_buf};
pub use duplex::{DuplexStream, SimplexStream, duplex, simplex};
pub use empty::{Empty, Repeat, Sink, empty, repeat, sink};
pub use lines::{AsyncBufReadExt, Lines, Split};
pub use read_buf::ReadBuf;
pub use read_ext::AsyncReadExt;
pub use ready::{Interest, Ready};
pub use seek::{AsyncSeek, AsyncSeekExt};
pub use split::{Join, ReadHalf, WriteHalf, join, split};
#[cfg(all(feature = "rt", feature = "io-std"))]
pub use stdio::{Stderr, Stdin, Stdout, stderr, stdin, stdout};
pub use take::Take;
pub use write_ext::AsyncWriteExt;

// Re-export std's types, as tokio does.
#[doc(no_inline)]
pub use std::io::{Error, ErrorKind, Result, SeekFrom};

#[cfg(all(unix, feature = "net"))]
pub mod unix;
