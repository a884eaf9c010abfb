//! A client connection: frames in, frames out, with every buffer bounded.
//!
//! * Reading: bytes go into a read buffer, and the [`Parser`] takes whole
//!   elements off its front as they arrive. A read happens only when no
//!   whole request is buffered, and only after the replies so far are
//!   written: pipelined requests are answered in one write.
//! * Writing: replies are encoded into a write buffer. Past
//!   `max_pending_out` bytes the handler flushes before it reads another
//!   request, so a client that sends requests and never reads the replies
//!   holds at most one reply over that limit, and then, once its socket
//!   buffers are full, times out.
//! * A client silent for `idle` between requests, or whose replies make no
//!   progress for `write`, is disconnected.
//!
//! Both `read_frame` and `flush` keep their progress in the connection,
//! so a `select!` may drop either mid-way (subscriber mode does) without
//! losing or repeating a byte.

use super::frame::{self, Frame, Parser, ProtocolError};
use super::support;
use bytes::BytesMut;
use std::io;
use std::time::Duration;
use volt::io::{AsyncReadExt, AsyncWriteExt};
use volt::net::TcpStream;

/// What one connection may hold, and for how long.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub frame: frame::Limits,
    /// Replies waiting to be written before the handler stops reading.
    pub max_pending_out: usize,
    /// Time allowed between requests.
    pub idle: Duration,
    /// Time a write may make no progress.
    pub write: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            frame: frame::Limits::default(),
            max_pending_out: 1024 * 1024,
            idle: Duration::from_secs(300),
            write: Duration::from_secs(30),
        }
    }
}

/// The buffer size a connection starts with and shrinks back to.
const BUF: usize = 4096;

#[derive(Debug)]
pub struct Connection {
    stream: TcpStream,
    rbuf: BytesMut,
    parser: Parser,
    wbuf: Vec<u8>,
    /// Bytes of `wbuf` already written.
    written: usize,
    pub limits: Limits,
}

impl Connection {
    pub fn new(stream: TcpStream, limits: Limits) -> Connection {
        // Best effort: replies go out at once.
        let _ = stream.set_nodelay(true);
        Connection {
            stream,
            rbuf: BytesMut::with_capacity(BUF),
            parser: Parser::default(),
            wbuf: Vec::with_capacity(BUF),
            written: 0,
            limits,
        }
    }

    /// The next request; `None` when the client closed the connection
    /// between requests. A malformed request is an `InvalidData` error
    /// carrying the [`ProtocolError`].
    pub async fn read_frame(&mut self) -> io::Result<Option<Frame>> {
        loop {
            match self.parser.parse(&mut self.rbuf, &self.limits.frame) {
                Ok(Some(frame)) => return Ok(Some(frame)),
                Ok(None) => {}
                Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, e)),
            }
            // Nothing whole left: write the replies before waiting.
            self.flush().await?;
            if self.rbuf.is_empty() && self.rbuf.capacity() > 16 * BUF {
                // A large request is done: give its memory back.
                self.rbuf = BytesMut::with_capacity(BUF);
            }
            self.rbuf.reserve(BUF);
            let read = self.stream.read_buf(&mut self.rbuf);
            if support::timeout(self.limits.idle, "idle", read).await? == 0 {
                return if self.rbuf.is_empty() && self.parser.is_idle() {
                    Ok(None)
                } else {
                    Err(io::ErrorKind::ConnectionReset.into())
                };
            }
        }
    }

    /// Queues a reply.
    pub fn write_frame(&mut self, frame: &Frame) {
        frame.encode(&mut self.wbuf);
    }

    /// Whether the queued replies are over their limit.
    pub fn over_limit(&self) -> bool {
        self.wbuf.len() - self.written >= self.limits.max_pending_out
    }

    /// Writes the queued replies.
    pub async fn flush(&mut self) -> io::Result<()> {
        while self.written < self.wbuf.len() {
            let write = self.stream.write(&self.wbuf[self.written..]);
            let n = support::timeout(self.limits.write, "write", write).await?;
            if n == 0 {
                return Err(io::ErrorKind::WriteZero.into());
            }
            self.written += n;
        }
        self.wbuf.clear();
        self.written = 0;
        support::shrink(&mut self.wbuf, BUF);
        Ok(())
    }

    /// Writes what is queued and closes the connection.
    pub async fn close(mut self) -> io::Result<()> {
        self.flush().await?;
        self.stream.shutdown().await
    }
}

/// The protocol error inside an error from [`Connection::read_frame`].
pub fn protocol_error(e: &io::Error) -> Option<&ProtocolError> {
    e.get_ref()?.downcast_ref()
}
