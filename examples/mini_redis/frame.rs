//! RESP2 frames: parsing, incrementally, and encoding.
//!
//! A client sends each command as an array of bulk strings
//! (`*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n`), or as an *inline* command, words
//! on one line (`GET key\r\n`, what `telnet` users type). The [`Parser`]
//! takes complete elements off the front of the read buffer as they
//! arrive and keeps the arrays it is in the middle of, so every byte is
//! parsed once however the request is split across reads.
//!
//! Every length is checked against [`Limits`] before anything is
//! buffered for it: a header line (`*N`, `$N`) longer than 32 bytes, an
//! inline line over `max_inline`, a bulk string over `max_bulk`, an array
//! over `max_array` elements and a whole request over `max_request` bytes
//! are protocol errors, answered and followed by closing the connection.

use bytes::{Buf, Bytes, BytesMut};
use std::fmt;

/// One RESP value.
#[derive(Clone, Debug, PartialEq)]
pub enum Frame {
    Simple(String),
    Error(String),
    Integer(i64),
    Bulk(Bytes),
    Null,
    Array(Vec<Frame>),
}

/// A malformed or oversized request.
#[derive(Debug, PartialEq)]
pub struct ProtocolError(pub &'static str);

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Protocol error: {}", self.0)
    }
}

impl std::error::Error for ProtocolError {}

/// How large a request may be (module docs).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_inline: usize,
    pub max_bulk: usize,
    pub max_array: usize,
    pub max_request: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_inline: 64 * 1024,
            max_bulk: 64 * 1024 * 1024,
            max_array: 1024 * 1024,
            max_request: 128 * 1024 * 1024,
        }
    }
}

/// The longest `*N` or `$N` line: a sign, 19 digits and change.
const MAX_HEADER_LINE: usize = 32;

/// Parses frames out of a read buffer, resuming where it stopped.
#[derive(Debug, Default)]
pub struct Parser {
    /// Arrays being filled: their elements so far, and how many they need.
    open: Vec<(Vec<Frame>, usize)>,
    /// The length of a bulk string whose header was read, not its data.
    bulk: Option<usize>,
    /// Bytes of the current request taken so far.
    taken: usize,
}

impl Parser {
    /// Whether no request is half parsed.
    pub fn is_idle(&self) -> bool {
        self.open.is_empty() && self.bulk.is_none() && self.taken == 0
    }

    /// The next whole request in `buf`, taking its bytes out; `None` if
    /// more are needed (what was complete is kept).
    pub fn parse(
        &mut self,
        buf: &mut BytesMut,
        limits: &Limits,
    ) -> Result<Option<Frame>, ProtocolError> {
        loop {
            let Some(frame) = self.element(buf, limits)? else {
                return Ok(None);
            };
            // Place the element; close the arrays it completes.
            let mut value = frame;
            loop {
                let Some((items, want)) = self.open.last_mut() else {
                    self.taken = 0;
                    return Ok(Some(value));
                };
                items.push(value);
                if items.len() < *want {
                    break;
                }
                let (items, _) = self.open.pop().expect("an open array");
                value = Frame::Array(items);
            }
        }
    }

    /// One element (or the header of an array, which opens it: `None`
    /// then means "keep going" unless the buffer ran dry).
    fn element(
        &mut self,
        buf: &mut BytesMut,
        limits: &Limits,
    ) -> Result<Option<Frame>, ProtocolError> {
        loop {
            if let Some(len) = self.bulk {
                if buf.len() < len + 2 {
                    // Room for the rest, once (bounded by `max_bulk`).
                    buf.reserve(len + 2 - buf.len());
                    return Ok(None);
                }
                if &buf[len..len + 2] != b"\r\n" {
                    return Err(ProtocolError("bulk string not terminated by CRLF"));
                }
                let data = buf.split_to(len).freeze();
                buf.advance(2);
                self.take(len + 2, limits)?;
                self.bulk = None;
                return Ok(Some(Frame::Bulk(data)));
            }
            let Some(&kind) = buf.first() else {
                return Ok(None);
            };
            if self.open.is_empty() && kind != b'*' {
                return self.inline(buf, limits);
            }
            let Some(line) = header_line(buf)? else {
                return Ok(None);
            };
            let text = &buf[1..line];
            let frame = match kind {
                b'+' => Some(Frame::Simple(String::from_utf8_lossy(text).into_owned())),
                b':' => Some(Frame::Integer(
                    number(text).ok_or(ProtocolError("invalid integer"))?,
                )),
                b'$' => {
                    let len = number(text).ok_or(ProtocolError("invalid bulk length"))?;
                    if len == -1 {
                        Some(Frame::Null)
                    } else if len < 0 || len as usize > limits.max_bulk {
                        return Err(ProtocolError("invalid bulk length"));
                    } else {
                        self.bulk = Some(len as usize);
                        None
                    }
                }
                b'*' => {
                    let n = number(text).ok_or(ProtocolError("invalid multibulk length"))?;
                    if n < 0 || n as usize > limits.max_array {
                        return Err(ProtocolError("invalid multibulk length"));
                    }
                    if n == 0 {
                        Some(Frame::Array(Vec::new()))
                    } else {
                        // Reserve little: the count is the client's word.
                        self.open
                            .push((Vec::with_capacity((n as usize).min(16)), n as usize));
                        None
                    }
                }
                _ => return Err(ProtocolError("expected '$', '*', '+' or ':'")),
            };
            buf.advance(line + 2);
            self.take(line + 2, limits)?;
            if let Some(frame) = frame {
                return Ok(Some(frame));
            }
        }
    }

    /// An inline command: words on one line, as an array of bulk strings.
    fn inline(
        &mut self,
        buf: &mut BytesMut,
        limits: &Limits,
    ) -> Result<Option<Frame>, ProtocolError> {
        let Some(eol) = find_crlf(buf, limits.max_inline) else {
            return if buf.len() > limits.max_inline {
                Err(ProtocolError("too big inline request"))
            } else {
                Ok(None)
            };
        };
        let line = buf.split_to(eol).freeze();
        buf.advance(2);
        let words = line
            .split(|&b| b == b' ')
            .filter(|w| !w.is_empty())
            .map(|w| Frame::Bulk(line.slice_ref(w)))
            .collect();
        Ok(Some(Frame::Array(words)))
    }

    fn take(&mut self, n: usize, limits: &Limits) -> Result<(), ProtocolError> {
        self.taken += n;
        if self.taken > limits.max_request {
            return Err(ProtocolError("request too large"));
        }
        Ok(())
    }
}

/// Where the `\r\n` of the header line at the front of `buf` is; an error
/// if there is none within [`MAX_HEADER_LINE`] bytes.
fn header_line(buf: &[u8]) -> Result<Option<usize>, ProtocolError> {
    match find_crlf(buf, MAX_HEADER_LINE) {
        Some(i) => Ok(Some(i)),
        None if buf.len() > MAX_HEADER_LINE => Err(ProtocolError("header line too long")),
        None => Ok(None),
    }
}

/// The first `\r\n` within the first `limit + 2` bytes.
fn find_crlf(buf: &[u8], limit: usize) -> Option<usize> {
    let end = buf.len().min(limit + 2);
    buf[..end].windows(2).position(|w| w == b"\r\n")
}

fn number(digits: &[u8]) -> Option<i64> {
    std::str::from_utf8(digits).ok()?.parse().ok()
}

impl Frame {
    /// Appends the frame's encoding to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Frame::Simple(s) => line(out, b'+', s.as_bytes()),
            Frame::Error(s) => line(out, b'-', s.as_bytes()),
            Frame::Integer(n) => line(out, b':', n.to_string().as_bytes()),
            Frame::Null => out.extend_from_slice(b"$-1\r\n"),
            Frame::Bulk(b) => {
                line(out, b'$', b.len().to_string().as_bytes());
                out.extend_from_slice(b);
                out.extend_from_slice(b"\r\n");
            }
            Frame::Array(items) => {
                line(out, b'*', items.len().to_string().as_bytes());
                for item in items {
                    item.encode(out);
                }
            }
        }
    }

    /// A bulk string of `bytes`.
    pub fn bulk(bytes: impl Into<Bytes>) -> Frame {
        Frame::Bulk(bytes.into())
    }
}

fn line(out: &mut Vec<u8>, kind: u8, text: &[u8]) {
    out.push(kind);
    out.extend_from_slice(text);
    out.extend_from_slice(b"\r\n");
}
