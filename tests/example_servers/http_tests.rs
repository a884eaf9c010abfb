//! `examples/http_hello.rs` and `examples/hyper_server.rs`.

use super::heap::{self, MIB};
use super::{closed_by_server, http_hello, hyper_server};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use volt::io::{AsyncReadExt, AsyncWriteExt};
use volt::net::{TcpListener, TcpStream};

async fn start_with(limits: http_hello::Limits) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    volt::spawn(http_hello::serve_with(listener, limits));
    addr
}

async fn start() -> SocketAddr {
    start_with(http_hello::Limits::default()).await
}

/// Reads one `Content-Length` response; returns (status line, body).
async fn read_response(s: &mut TcpStream, buf: &mut Vec<u8>) -> Option<(String, Vec<u8>)> {
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8(buf[..end].to_vec()).unwrap();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .unwrap()
                .parse()
                .unwrap();
            while buf.len() < end + 4 + len {
                if s.read_buf(buf).await.ok()? == 0 {
                    return None;
                }
            }
            let body = buf[end + 4..end + 4 + len].to_vec();
            buf.drain(..end + 4 + len);
            return Some((head.lines().next().unwrap().to_string(), body));
        }
        if s.read_buf(buf).await.ok()? == 0 {
            return None;
        }
    }
}

/// A fresh client gets its "Hello, World!".
async fn still_serves(addr: SocketAddr) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
    let mut buf = Vec::new();
    let (status, body) = read_response(&mut s, &mut buf).await.unwrap();
    assert_eq!(
        (status.as_str(), &body[..]),
        ("HTTP/1.1 200 OK", &b"Hello, World!"[..])
    );
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_keep_alive_and_pipelining() {
    let _serial = heap::serial();
    let addr = start().await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    let mut buf = Vec::new();
    // Three pipelined requests, one with a body, written in one go.
    s.write_all(
        b"GET / HTTP/1.1\r\nHost: a\r\n\r\n\
          POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello\
          GET /y HTTP/1.1\r\n\r\n",
    )
    .await
    .unwrap();
    for _ in 0..3 {
        let (status, body) = read_response(&mut s, &mut buf).await.unwrap();
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert_eq!(body, b"Hello, World!");
    }
    // Still open: a request, and a body, split across writes.
    s.write_all(b"POST / HT").await.unwrap();
    volt::task::yield_now().await;
    s.write_all(b"TP/1.1\r\nContent-Length: 6\r\n\r\nab")
        .await
        .unwrap();
    volt::task::yield_now().await;
    s.write_all(b"cdefGET / HTTP/1.1\r\n\r\n").await.unwrap();
    for _ in 0..2 {
        assert_eq!(
            read_response(&mut s, &mut buf).await.unwrap().0,
            "HTTP/1.1 200 OK"
        );
    }
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_bad_requests_get_an_error_and_a_close() {
    let _serial = heap::serial();
    let addr = start().await;
    let big_head = [
        b"GET / HTTP/1.1\r\nX: ".as_slice(),
        &[b'a'; 30 * 1024],
        b"\r\n\r\n",
    ]
    .concat();
    let cases: Vec<(&[u8], &str)> = vec![
        (b"GARBAGE\r\n\r\n", "400 Bad Request"),
        (
            b"GET / HTTP/1.1\r\nno-colon-here\r\n\r\n",
            "400 Bad Request",
        ),
        (b"GET / HTTP/9.9\r\n\r\n", "505 HTTP Version Not Supported"),
        (
            b"GET / HTTP/1.1\r\nContent-Length: nope\r\n\r\n",
            "400 Bad Request",
        ),
        // Digits only: no sign, nothing after.
        (
            b"POST / HTTP/1.1\r\nContent-Length: +5\r\n\r\nhello",
            "400 Bad Request",
        ),
        (
            b"POST / HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\nhello",
            "400 Bad Request",
        ),
        // One Content-Length: two (even equal) are a smuggling vector.
        (
            b"POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello",
            "400 Bad Request",
        ),
        (
            b"POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello",
            "400 Bad Request",
        ),
        (
            b"GET / HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n",
            "413 Content Too Large",
        ),
        (
            b"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
            "501 Not Implemented",
        ),
        (b"\xff\xfe / HTTP/1.1\r\n\r\n", "400 Bad Request"),
        // The header limit holds however the block arrives: here whole.
        (&big_head, "431 Request Header Fields Too Large"),
    ];
    for (req, status) in cases {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(req).await.unwrap();
        let mut buf = Vec::new();
        let (got, _) = read_response(&mut s, &mut buf).await.unwrap();
        assert_eq!(
            got,
            format!("HTTP/1.1 {status}"),
            "for {:?}",
            String::from_utf8_lossy(&req[..req.len().min(80)])
        );
        assert!(closed_by_server(&mut s).await);
    }
    // A header block that never ends is cut off at 16 KiB.
    let mut s = TcpStream::connect(addr).await.unwrap();
    let mut buf = Vec::new();
    s.write_all(b"GET / HTTP/1.1\r\nX: ").await.unwrap();
    let _ = s.write_all(&[b'a'; 20 * 1024]).await;
    let (got, _) = read_response(&mut s, &mut buf).await.unwrap();
    assert_eq!(got, "HTTP/1.1 431 Request Header Fields Too Large");
    // HTTP/1.0 ends the connection after the reply.
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET / HTTP/1.0\r\n\r\n").await.unwrap();
    assert!(read_response(&mut s, &mut buf).await.is_some());
    assert!(closed_by_server(&mut s).await);
    still_serves(addr).await;
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_server_survives_rude_clients() {
    let _serial = heap::serial();
    let addr = start().await;
    // Disconnect mid-request, many times.
    for _ in 0..50 {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(b"GET / HTTP/1.1\r\nHost:").await.unwrap();
        drop(s);
    }
    // Reset mid-request.
    let s = TcpStream::connect(addr).await.unwrap();
    s.set_zero_linger().unwrap();
    s.try_write(b"GET / HT").ok();
    drop(s);
    // 100 idle connections that never send anything.
    let mut idle = Vec::new();
    for _ in 0..100 {
        idle.push(TcpStream::connect(addr).await.unwrap());
    }
    still_serves(addr).await;
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_body_is_skipped_not_held() {
    let _serial = heap::serial();
    let addr = start().await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    let body = vec![b'b'; MIB];
    let before = heap::reset_peak();
    s.write_all(format!("POST / HTTP/1.1\r\nContent-Length: {}\r\n\r\n", body.len()).as_bytes())
        .await
        .unwrap();
    for chunk in body.chunks(64 * 1024) {
        s.write_all(chunk).await.unwrap();
    }
    s.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
    let mut buf = Vec::new();
    for _ in 0..2 {
        assert_eq!(
            read_response(&mut s, &mut buf).await.unwrap().0,
            "HTTP/1.1 200 OK"
        );
    }
    let grew = heap::peak() - before;
    assert!(
        grew < 256 * 1024,
        "a 1 MiB body grew the heap by {grew} bytes"
    );
    still_serves(addr).await;
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_clients_that_never_read_hold_little_and_are_cut_off() {
    let _serial = heap::serial();
    let addr = start_with(http_hello::Limits {
        write: Duration::from_millis(300),
        ..Default::default()
    })
    .await;
    // 30 clients each pipeline 8 MiB of requests and never read a reply.
    let requests: Arc<[u8]> = b"GET / HTTP/1.1\r\n\r\n".repeat(8 * MIB / 18).into();
    let before = heap::reset_peak();
    let attackers: Vec<_> = (0..30)
        .map(|_| {
            let requests = requests.clone();
            volt::spawn(async move {
                let mut s = TcpStream::connect(addr).await.unwrap();
                // Fails once the server gives up on us.
                let _ = s.write_all(&requests).await;
                s
            })
        })
        .collect();
    // Meanwhile the server serves others.
    still_serves(addr).await;
    for a in attackers {
        let mut s = a.await.unwrap();
        // The server closed the connection on its write timeout.
        let mut sink = [0u8; 4096];
        while matches!(s.read(&mut sink).await, Ok(n) if n > 0) {}
    }
    let grew = heap::peak() - before;
    assert!(
        grew < 16 * MIB,
        "30 clients that never read grew the heap by {grew} bytes"
    );
    still_serves(addr).await;
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_idle_connections_are_closed() {
    let _serial = heap::serial();
    let addr = start_with(http_hello::Limits {
        idle: Duration::from_millis(100),
        ..Default::default()
    })
    .await;
    let mut silent = TcpStream::connect(addr).await.unwrap();
    assert!(closed_by_server(&mut silent).await);
    still_serves(addr).await;
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn hyper_serves_over_volt() {
    let _serial = heap::serial();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    volt::spawn(hyper_server::serve(listener));
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .await
    .unwrap();
    let mut got = Vec::new();
    s.read_to_end(&mut got).await.unwrap();
    let text = String::from_utf8(got).unwrap();
    assert_eq!(text.matches("HTTP/1.1 200 OK").count(), 2, "{text}");
    assert_eq!(text.matches("Hello, World!").count(), 2);
}
