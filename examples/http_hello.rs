//! An HTTP/1.1 "Hello, World!" server on volt, with keep-alive and
//! pipelining, written as a tokio program would be (replace `volt` with
//! `tokio` and it runs on tokio; `scripts/load.sh` does exactly that to
//! compare the two).
//!
//! ```sh
//! cargo run --release --example http_hello                  # 127.0.0.1:8080
//! curl -i http://127.0.0.1:8080/
//! wrk -t2 -c64 -d10s http://127.0.0.1:8080/
//! ```
//!
//! Requests are parsed just enough to be safe: the request line, the
//! headers, `Content-Length` bodies (skipped), `Connection: close`. A
//! malformed request gets `400 Bad Request` and the connection is closed;
//! a header block over 16 KiB gets `431`; a body over 1 MiB gets `413`.
//! A connection idle for 60 s is closed, so idle clients cannot pin memory
//! forever. Each connection holds one read buffer (4 KiB, grown only for
//! large header blocks) and one write buffer.

use std::time::Duration;
use volt::io::{AsyncReadExt, AsyncWriteExt};
use volt::net::{TcpListener, TcpStream};

const BODY: &[u8] = b"Hello, World!";
const MAX_HEADER: usize = 16 * 1024;
const MAX_BODY: usize = 1024 * 1024;
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

fn main() -> std::io::Result<()> {
    // Usage: http_hello [ADDR] [--seconds N]
    let (addr, limit) = args("127.0.0.1:8080");
    let rt = volt::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let listener = TcpListener::bind(&addr).await?;
        println!("http_hello listening on http://{}", listener.local_addr()?);
        // Serve until Ctrl-C, or for a bounded time.
        volt::select! {
            res = serve(listener) => res,
            _ = volt::signal::ctrl_c() => Ok(()),
            _ = volt::time::sleep(limit) => {
                println!("served for {limit:?}; exiting (--seconds N to change)");
                Ok(())
            }
        }
    })
}

/// `[ADDR] [--seconds N]` from the command line (defaults: `default`,
/// 600 s).
fn args(default: &str) -> (String, std::time::Duration) {
    let mut addr = default.to_string();
    let mut secs = 600;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--seconds" => {
                secs = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .expect("--seconds takes a whole number")
            }
            _ => addr = arg,
        }
    }
    (addr, std::time::Duration::from_secs(secs))
}

/// Accepts connections forever, one task each.
pub async fn serve(listener: TcpListener) -> std::io::Result<()> {
    loop {
        let (socket, _) = match listener.accept().await {
            Ok(conn) => conn,
            // Out of file descriptors and the like: back off, keep going.
            Err(e) => {
                eprintln!("accept error: {e}");
                volt::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        volt::spawn(async move {
            // A client that goes away mid-request is not an error worth
            // reporting.
            let _ = connection(socket).await;
        });
    }
}

/// What parsing the front of the buffer found.
enum Parsed {
    /// A whole request of `len` bytes (headers and body); `close` if the
    /// client asked for the connection to end after it.
    Request { len: usize, close: bool },
    /// More bytes are needed.
    Partial,
    /// An error response to send before closing.
    Error(&'static str),
}

/// Serves one connection: read, answer every complete request in the
/// buffer (pipelining), repeat.
pub async fn connection(mut socket: TcpStream) -> std::io::Result<()> {
    socket.set_nodelay(true)?;
    let mut buf = Vec::with_capacity(4096);
    let mut out = Vec::with_capacity(4096);
    loop {
        let mut start = 0;
        let mut close = false;
        loop {
            match parse(&buf[start..]) {
                Parsed::Request { len, close: c } => {
                    respond(&mut out, "200 OK", BODY, c);
                    start += len;
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
            socket.write_all(&out).await?;
            out.clear();
        }
        if close {
            return socket.shutdown().await;
        }
        if buf.capacity() - buf.len() < 1024 {
            buf.reserve(4096);
        }
        let n = match volt::time::timeout(IDLE_TIMEOUT, socket.read_buf(&mut buf)).await {
            Ok(res) => res?,
            Err(_idle) => return Ok(()),
        };
        if n == 0 {
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

fn parse(buf: &[u8]) -> Parsed {
    let Some(end) = find(buf, b"\r\n\r\n") else {
        return if buf.len() > MAX_HEADER {
            Parsed::Error("431 Request Header Fields Too Large")
        } else {
            Parsed::Partial
        };
    };
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
    let mut body_len = 0usize;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Parsed::Error("400 Bad Request");
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            match value.parse::<usize>() {
                Ok(n) if n <= MAX_BODY => body_len = n,
                Ok(_) => return Parsed::Error("413 Content Too Large"),
                Err(_) => return Parsed::Error("400 Bad Request"),
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
    let len = end + 4 + body_len;
    if buf.len() < len {
        return Parsed::Partial;
    }
    Parsed::Request { len, close }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
