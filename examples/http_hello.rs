//! An HTTP/1.1 "Hello, World!" server on volt, with keep-alive and
//! pipelining, written as a tokio program would be (replace `volt` with
//! `tokio` and it runs on tokio; `scripts/service_bench.py` does exactly
//! that to compare the two).
//!
//! ```sh
//! cargo run --release --example http_hello                  # 127.0.0.1:8080
//! curl -i http://127.0.0.1:8080/
//! wrk -t2 -c64 -d10s http://127.0.0.1:8080/
//! ```
//!
//! It faces the network, so every input is bounded (see [`Limits`]):
//!
//! * the request line and headers together: 16 KiB, however they arrive
//!   (`431`);
//! * a body: 1 MiB (`413`), never held in memory: its bytes are skipped
//!   as they arrive;
//! * `Content-Length`: digits only, at most one (`400`: two of them are a
//!   request-smuggling vector behind a proxy); `Transfer-Encoding` is not
//!   supported (`501`);
//! * replies waiting to be written: 64 KiB; past that the server writes
//!   before it parses (or reads) anything more, so a client that pipelines
//!   requests and never reads its replies holds no more than that;
//! * a connection with no request for 60 s is closed, and so is one whose
//!   replies make no progress for 10 s (a client that stops reading).
//!
//! A malformed request gets its error status and the connection is closed.

#[path = "support/mod.rs"]
mod support;

use std::io;
use std::time::Duration;
use volt::io::{AsyncReadExt, AsyncWriteExt};
use volt::net::{TcpListener, TcpStream};

const BODY: &[u8] = b"Hello, World!";

/// What one connection may use, and for how long.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The request line and headers together.
    pub max_header: usize,
    /// One request's body.
    pub max_body: usize,
    /// Replies waiting to be written before the server stops reading.
    pub max_pending_out: usize,
    /// Time allowed between requests.
    pub idle: Duration,
    /// Time a write may make no progress.
    pub write: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_header: 16 * 1024,
            max_body: 1024 * 1024,
            max_pending_out: 64 * 1024,
            idle: Duration::from_secs(60),
            write: Duration::from_secs(10),
        }
    }
}

fn main() -> io::Result<()> {
    let args = support::args("http_hello", "127.0.0.1:8080");
    let rt = volt::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let listener = TcpListener::bind(&args.addr).await?;
        println!("http_hello listening on http://{}", listener.local_addr()?);
        support::run_until_ctrl_c(serve(listener), args.seconds).await
    })
}

/// Serves with the default [`Limits`].
pub async fn serve(listener: TcpListener) -> io::Result<()> {
    serve_with(listener, Limits::default()).await
}

/// Accepts connections forever, one task each.
pub async fn serve_with(listener: TcpListener, limits: Limits) -> io::Result<()> {
    loop {
        let socket = support::accept(&listener).await;
        volt::spawn(async move {
            // A client that goes away, or breaks a limit, is not an error
            // worth reporting.
            let _ = connection(socket, limits).await;
        });
    }
}

/// What parsing the front of the buffer found.
#[derive(Debug, PartialEq)]
enum Parsed {
    /// A request head of `len` bytes with a body of `body` bytes after
    /// it; `close` if the connection ends after the reply.
    Request {
        len: usize,
        body: usize,
        close: bool,
    },
    /// More bytes are needed.
    Partial,
    /// An error status to reply with before closing.
    Error(&'static str),
}

/// Serves one connection: parse and answer the requests in the buffer
/// (pipelining), write, read more.
pub async fn connection(mut socket: TcpStream, limits: Limits) -> io::Result<()> {
    // Best effort: a socket reset meanwhile fails here too, harmlessly.
    let _ = socket.set_nodelay(true);
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    let mut out: Vec<u8> = Vec::with_capacity(4096);
    // Body bytes still to skip, of a request already answered.
    let mut skip = 0usize;
    loop {
        let mut start = 0;
        let mut close = false;
        // Parse while there is room for replies.
        while out.len() < limits.max_pending_out {
            if skip > 0 {
                let n = skip.min(buf.len() - start);
                start += n;
                skip -= n;
                if skip > 0 {
                    break;
                }
            }
            match parse(&buf[start..], &limits) {
                Parsed::Request {
                    len,
                    body,
                    close: c,
                } => {
                    respond(&mut out, "200 OK", BODY, c);
                    start += len;
                    skip = body;
                    if c {
                        close = true;
                        break;
                    }
                }
                Parsed::Partial => break,
                Parsed::Error(status) => {
                    respond(&mut out, status, status.as_bytes(), true);
                    close = true;
                    break;
                }
            }
        }
        buf.drain(..start);
        if !out.is_empty() {
            support::timeout(limits.write, "write", socket.write_all(&out)).await?;
            out.clear();
            support::shrink(&mut out, 4096);
        }
        if close {
            return socket.shutdown().await;
        }
        if !buf.is_empty() && skip == 0 && matches!(parse(&buf, &limits), Parsed::Request { .. }) {
            // Replies were over their limit: answer the rest first.
            continue;
        }
        support::shrink(&mut buf, 4096);
        buf.reserve(4096);
        let read = socket.read_buf(&mut buf);
        if support::timeout(limits.idle, "idle", read).await? == 0 {
            return Ok(());
        }
    }
}

fn respond(out: &mut Vec<u8>, status: &str, body: &[u8], close: bool) {
    out.extend_from_slice(b"HTTP/1.1 ");
    out.extend_from_slice(status.as_bytes());
    out.extend_from_slice(b"\r\nServer: volt\r\nContent-Type: text/plain\r\nContent-Length: ");
    out.extend_from_slice(body.len().to_string().as_bytes());
    if close {
        out.extend_from_slice(b"\r\nConnection: close");
    }
    out.extend_from_slice(b"\r\n\r\n");
    out.extend_from_slice(body);
}

/// Parses the request head at the front of `buf`.
fn parse(buf: &[u8], limits: &Limits) -> Parsed {
    let Some(end) = find(buf, b"\r\n\r\n") else {
        return if buf.len() > limits.max_header {
            Parsed::Error("431 Request Header Fields Too Large")
        } else {
            Parsed::Partial
        };
    };
    // The whole block counts, however it arrived.
    if end + 4 > limits.max_header {
        return Parsed::Error("431 Request Header Fields Too Large");
    }
    let Ok(head) = std::str::from_utf8(&buf[..end]) else {
        return Parsed::Error("400 Bad Request");
    };
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or("");
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Parsed::Error("400 Bad Request");
    };
    if method.is_empty() || !target.starts_with('/') && target != "*" {
        return Parsed::Error("400 Bad Request");
    }
    let mut close = match version {
        "HTTP/1.1" => false,
        "HTTP/1.0" => true,
        _ => return Parsed::Error("505 HTTP Version Not Supported"),
    };
    let mut body: Option<usize> = None;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Parsed::Error("400 Bad Request");
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            // Digits only (no sign, no spaces inside), and only one.
            if body.is_some() || value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
                return Parsed::Error("400 Bad Request");
            }
            match value.parse::<usize>() {
                Ok(n) if n <= limits.max_body => body = Some(n),
                _ => return Parsed::Error("413 Content Too Large"),
            }
        } else if name.eq_ignore_ascii_case("connection") {
            if value.eq_ignore_ascii_case("close") {
                close = true;
            } else if value.eq_ignore_ascii_case("keep-alive") {
                close = false;
            }
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            // Chunked bodies are not supported by this tiny server.
            return Parsed::Error("501 Not Implemented");
        }
    }
    Parsed::Request {
        len: end + 4,
        body: body.unwrap_or(0),
        close,
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
