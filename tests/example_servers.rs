//! The example servers (`examples/http_hello.rs`, `mini_redis.rs`,
//! `hyper_server.rs`) driven over real TCP connections: normal traffic,
//! pipelining, and bad input (malformed requests, clients that disconnect
//! mid-request or stop reading). The examples' own code is compiled in
//! here, so what is tested is what `cargo run --example` runs.

#[allow(dead_code)]
#[path = "../examples/http_hello.rs"]
mod http_hello;
#[allow(dead_code)]
#[path = "../examples/hyper_server.rs"]
mod hyper_server;
#[allow(dead_code)]
#[path = "../examples/mini_redis.rs"]
mod mini_redis;

use std::net::SocketAddr;
use volt::io::{AsyncReadExt, AsyncWriteExt};
use volt::net::{TcpListener, TcpStream};

async fn start_http() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    volt::spawn(http_hello::serve(listener));
    addr
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
                if s.read_buf(buf).await.unwrap() == 0 {
                    return None;
                }
            }
            let body = buf[end + 4..end + 4 + len].to_vec();
            buf.drain(..end + 4 + len);
            return Some((head.lines().next().unwrap().to_string(), body));
        }
        if s.read_buf(buf).await.unwrap() == 0 {
            return None;
        }
    }
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_keep_alive_and_pipelining() {
    let addr = start_http().await;
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
    // Still open: a request split across writes.
    s.write_all(b"GET / HT").await.unwrap();
    volt::task::yield_now().await;
    s.write_all(b"TP/1.1\r\n\r\n").await.unwrap();
    assert_eq!(
        read_response(&mut s, &mut buf).await.unwrap().0,
        "HTTP/1.1 200 OK"
    );
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_bad_requests_get_an_error_and_a_close() {
    let addr = start_http().await;
    for (req, status) in [
        (&b"GARBAGE\r\n\r\n"[..], "HTTP/1.1 400 Bad Request"),
        (
            b"GET / HTTP/1.1\r\nno-colon-here\r\n\r\n",
            "HTTP/1.1 400 Bad Request",
        ),
        (
            b"GET / HTTP/9.9\r\n\r\n",
            "HTTP/1.1 505 HTTP Version Not Supported",
        ),
        (
            b"GET / HTTP/1.1\r\nContent-Length: nope\r\n\r\n",
            "HTTP/1.1 400 Bad Request",
        ),
        (
            b"GET / HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n",
            "HTTP/1.1 413 Content Too Large",
        ),
        (
            b"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
            "HTTP/1.1 501 Not Implemented",
        ),
        (b"\xff\xfe / HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request"),
    ] {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(req).await.unwrap();
        let mut buf = Vec::new();
        let (got, _) = read_response(&mut s, &mut buf).await.unwrap();
        assert_eq!(got, status, "for {:?}", String::from_utf8_lossy(req));
        // Then the server closes.
        assert_eq!(s.read_buf(&mut buf).await.unwrap(), 0);
    }
    // A header block that never ends is cut off at 16 KiB.
    let mut s = TcpStream::connect(addr).await.unwrap();
    let mut buf = Vec::new();
    let junk = vec![b'a'; 20 * 1024];
    s.write_all(b"GET / HTTP/1.1\r\nX: ").await.unwrap();
    let _ = s.write_all(&junk).await;
    let (got, _) = read_response(&mut s, &mut buf).await.unwrap();
    assert_eq!(got, "HTTP/1.1 431 Request Header Fields Too Large");
    // HTTP/1.0 and `Connection: close` end the connection after the reply.
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET / HTTP/1.0\r\n\r\n").await.unwrap();
    assert!(read_response(&mut s, &mut buf).await.is_some());
    assert_eq!(s.read_buf(&mut buf).await.unwrap(), 0);
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_server_survives_rude_clients() {
    let addr = start_http().await;
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
    // A client that sends a lot and never reads: its task blocks on the
    // write; the server keeps serving others.
    let mut slow = TcpStream::connect(addr).await.unwrap();
    let req = b"GET / HTTP/1.1\r\n\r\n".repeat(2000);
    let _ = volt::time::timeout(std::time::Duration::from_millis(200), slow.write_all(&req)).await;
    // 100 idle connections that never send anything.
    let mut idle = Vec::new();
    for _ in 0..100 {
        idle.push(TcpStream::connect(addr).await.unwrap());
    }
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
    let mut buf = Vec::new();
    assert_eq!(
        read_response(&mut s, &mut buf).await.unwrap().0,
        "HTTP/1.1 200 OK"
    );
    drop(slow);
}

async fn start_redis() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    volt::spawn(mini_redis::serve(listener, mini_redis::Db::default()));
    addr
}

/// Sends `req` and reads until `expect.len()` bytes came back.
async fn roundtrip(s: &mut TcpStream, req: &[u8], expect: &[u8]) {
    s.write_all(req).await.unwrap();
    let mut got = vec![0u8; expect.len()];
    s.read_exact(&mut got).await.unwrap();
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(expect)
    );
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_commands_and_pipelining() {
    let addr = start_redis().await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    roundtrip(&mut s, b"PING\r\n", b"+PONG\r\n").await;
    roundtrip(&mut s, b"*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n", b"$2\r\nhi\r\n").await;
    roundtrip(
        &mut s,
        b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\n9\r\n",
        b"+OK\r\n",
    )
    .await;
    roundtrip(&mut s, b"*2\r\n$4\r\nINCR\r\n$1\r\nk\r\n", b":10\r\n").await;
    roundtrip(&mut s, b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", b"$2\r\n10\r\n").await;
    roundtrip(&mut s, b"*2\r\n$3\r\nGET\r\n$4\r\nnone\r\n", b"$-1\r\n").await;
    roundtrip(
        &mut s,
        b"*3\r\n$3\r\nDEL\r\n$1\r\nk\r\n$1\r\nz\r\n",
        b":1\r\n",
    )
    .await;
    // Binary-safe values.
    roundtrip(
        &mut s,
        b"*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$4\r\n\r\n\x00\xff\r\n",
        b"+OK\r\n",
    )
    .await;
    roundtrip(
        &mut s,
        b"*2\r\n$3\r\nGET\r\n$1\r\nb\r\n",
        b"$4\r\n\r\n\x00\xff\r\n",
    )
    .await;
    // Errors keep the connection open.
    roundtrip(
        &mut s,
        b"*2\r\n$4\r\nINCR\r\n$1\r\nb\r\n",
        b"-ERR value is not an integer or out of range\r\n",
    )
    .await;
    roundtrip(
        &mut s,
        b"*1\r\n$3\r\nGET\r\n",
        b"-ERR wrong number of arguments for 'get' command\r\n",
    )
    .await;
    roundtrip(&mut s, b"NOPE\r\n", b"-ERR unknown command 'NOPE'\r\n").await;
    // 100 pipelined INCRs in one write, answered in order.
    let mut req = Vec::new();
    let mut expect = Vec::new();
    for i in 1..=100 {
        req.extend_from_slice(b"*2\r\n$4\r\nINCR\r\n$1\r\nc\r\n");
        expect.extend_from_slice(format!(":{i}\r\n").as_bytes());
    }
    roundtrip(&mut s, &req, &expect).await;
    roundtrip(&mut s, b"QUIT\r\n", b"+OK\r\n").await;
    let mut rest = Vec::new();
    assert_eq!(s.read_to_end(&mut rest).await.unwrap(), 0);
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_protocol_errors_close_the_connection() {
    let addr = start_redis().await;
    for bad in [
        &b"*x\r\n"[..],
        b"*1\r\n:5\r\n",
        b"*1\r\n$3\r\nabcde\r\n",
        b"*99999999\r\n",
        b"*1\r\n$999999999999\r\n",
    ] {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(bad).await.unwrap();
        let mut got = Vec::new();
        s.read_to_end(&mut got).await.unwrap();
        assert!(
            got.starts_with(b"-ERR Protocol error"),
            "{:?}",
            String::from_utf8_lossy(&got)
        );
    }
    // The server still answers.
    let mut s = TcpStream::connect(addr).await.unwrap();
    roundtrip(&mut s, b"PING\r\n", b"+PONG\r\n").await;
}

#[test]
fn redis_parser_waits_for_whole_commands() {
    let full = b"*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n";
    for cut in 0..full.len() {
        assert_eq!(
            mini_redis::parse_command(&full[..cut]),
            Ok(None),
            "cut at {cut}"
        );
    }
    let (args, used) = mini_redis::parse_command(full).unwrap().unwrap();
    assert_eq!(
        (args, used),
        (vec![b"GET".to_vec(), b"key".to_vec()], full.len())
    );
    let (args, _) = mini_redis::parse_command(b"SET  a   b\r\n")
        .unwrap()
        .unwrap();
    assert_eq!(args, [b"SET".to_vec(), b"a".to_vec(), b"b".to_vec()]);
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn hyper_serves_over_volt() {
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
