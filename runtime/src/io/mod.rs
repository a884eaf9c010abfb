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

mod async_buf_read;
mod async_read;
mod async_write;
mod buf_reader;
mod buf_writer;
mod lines;
mod read_buf;
mod ready;
mod util;

pub use async_buf_read::AsyncBufRead;
pub use async_read::AsyncRead;
pub use async_write::AsyncWrite;
pub use buf_reader::BufReader;
pub use buf_writer::BufWriter;
pub use lines::{AsyncBufReadExt, Lines};
pub use read_buf::ReadBuf;
pub use ready::{Interest, Ready};
pub use util::{AsyncReadExt, AsyncWriteExt};

// Re-export std's types, as tokio does.
#[doc(no_inline)]
pub use std::io::{Error, ErrorKind, Result, SeekFrom};

#[cfg(all(unix, feature = "net"))]
pub mod unix;
