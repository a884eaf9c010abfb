//! `examples/mini_redis/`.

use super::heap::{self, MIB};
use super::{closed_by_server, mini_redis};
use bytes::BytesMut;
use mini_redis::{DbDropGuard, Frame, Limits, Parser};
use std::net::SocketAddr;
use std::time::Duration;
use volt::io::{AsyncReadExt, AsyncWriteExt};
use volt::net::{TcpListener, TcpStream};

/// Starts a server with its own key space (kept alive by the guard).
async fn start_with(limits: Limits) -> (SocketAddr, DbDropGuard) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let db = DbDropGuard::new();
    volt::spawn(mini_redis::serve(listener, db.db(), limits));
    (addr, db)
}

async fn start() -> (SocketAddr, DbDropGuard) {
    start_with(Limits::default()).await
}

/// A RESP command as an array of bulk strings.
fn cmd(args: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    Frame::Array(args.iter().map(|a| Frame::bulk(a.to_vec())).collect()).encode(&mut out);
    out
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

async fn still_serves(addr: SocketAddr) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    roundtrip(&mut s, b"PING\r\n", b"+PONG\r\n").await;
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_commands_and_pipelining() {
    let _serial = heap::serial();
    let (addr, _db) = start().await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    roundtrip(&mut s, b"PING\r\n", b"+PONG\r\n").await;
    roundtrip(&mut s, &cmd(&[b"ECHO", b"hi"]), b"$2\r\nhi\r\n").await;
    roundtrip(&mut s, &cmd(&[b"SET", b"k", b"9"]), b"+OK\r\n").await;
    roundtrip(&mut s, &cmd(&[b"INCR", b"k"]), b":10\r\n").await;
    roundtrip(&mut s, &cmd(&[b"GET", b"k"]), b"$2\r\n10\r\n").await;
    roundtrip(&mut s, &cmd(&[b"GET", b"none"]), b"$-1\r\n").await;
    roundtrip(&mut s, &cmd(&[b"DEL", b"k", b"z"]), b":1\r\n").await;
    // Binary-safe values.
    roundtrip(&mut s, &cmd(&[b"SET", b"b", b"\r\n\x00\xff"]), b"+OK\r\n").await;
    roundtrip(&mut s, &cmd(&[b"GET", b"b"]), b"$4\r\n\r\n\x00\xff\r\n").await;
    // Errors keep the connection open.
    roundtrip(
        &mut s,
        &cmd(&[b"INCR", b"b"]),
        b"-ERR value is not an integer or out of range\r\n",
    )
    .await;
    roundtrip(
        &mut s,
        &cmd(&[b"GET"]),
        b"-ERR wrong number of arguments for 'get' command\r\n",
    )
    .await;
    roundtrip(
        &mut s,
        &cmd(&[b"SET", b"a", b"1", b"EX", b"0"]),
        b"-ERR syntax error\r\n",
    )
    .await;
    roundtrip(&mut s, b"NOPE\r\n", b"-ERR unknown command 'NOPE'\r\n").await;
    // 100 pipelined INCRs in one write, answered in order.
    let mut req = Vec::new();
    let mut expect = Vec::new();
    for i in 1..=100 {
        req.extend_from_slice(&cmd(&[b"INCR", b"c"]));
        expect.extend_from_slice(format!(":{i}\r\n").as_bytes());
    }
    roundtrip(&mut s, &req, &expect).await;
    roundtrip(&mut s, b"QUIT\r\n", b"+OK\r\n").await;
    assert!(closed_by_server(&mut s).await);
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_expiry_commands() {
    let _serial = heap::serial();
    let (addr, _db) = start().await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    roundtrip(
        &mut s,
        &cmd(&[b"SET", b"k", b"v", b"EX", b"100"]),
        b"+OK\r\n",
    )
    .await;
    roundtrip(&mut s, &cmd(&[b"TTL", b"k"]), b":100\r\n").await;
    // INCR-like writes keep the expiry; a plain SET drops it.
    roundtrip(&mut s, &cmd(&[b"SET", b"k", b"v"]), b"+OK\r\n").await;
    roundtrip(&mut s, &cmd(&[b"TTL", b"k"]), b":-1\r\n").await;
    roundtrip(&mut s, &cmd(&[b"EXPIRE", b"k", b"50"]), b":1\r\n").await;
    roundtrip(&mut s, &cmd(&[b"TTL", b"k"]), b":50\r\n").await;
    roundtrip(&mut s, &cmd(&[b"EXPIRE", b"missing", b"5"]), b":0\r\n").await;
    roundtrip(&mut s, &cmd(&[b"TTL", b"missing"]), b":-2\r\n").await;
    roundtrip(
        &mut s,
        &cmd(&[b"SET", b"p", b"v", b"PX", b"2000"]),
        b"+OK\r\n",
    )
    .await;
    roundtrip(&mut s, &cmd(&[b"TTL", b"p"]), b":2\r\n").await;
}

/// Expiry on the paused clock: the purge task sleeps until the deadline
/// and removes the key; reads see it gone at once.
#[volt::test(start_paused = true)]
async fn redis_keys_expire_on_the_runtime_timer() {
    let _serial = heap::serial();
    let guard = DbDropGuard::new();
    let db = guard.db();
    db.set("a".into(), "1".into(), Some(Duration::from_secs(10)));
    db.set("b".into(), "2".into(), Some(Duration::from_secs(20)));
    db.set("c".into(), "3".into(), None);
    volt::time::sleep(Duration::from_secs(11)).await;
    assert_eq!(db.get(b"a"), None);
    assert_eq!(db.get(b"b").as_deref(), Some(&b"2"[..]));
    assert_eq!(db.stored(), 2, "the purge task removed the expired key");
    volt::time::sleep(Duration::from_secs(10)).await;
    assert_eq!(db.stored(), 1);
    assert_eq!(db.len(), 1);
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_publish_and_subscribe() {
    let _serial = heap::serial();
    let (addr, _db) = start().await;
    let mut sub = TcpStream::connect(addr).await.unwrap();
    roundtrip(
        &mut sub,
        &cmd(&[b"SUBSCRIBE", b"news", b"sport"]),
        b"*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n*3\r\n$9\r\nsubscribe\r\n$5\r\nsport\r\n:2\r\n",
    )
    .await;
    let mut publisher = TcpStream::connect(addr).await.unwrap();
    roundtrip(
        &mut publisher,
        &cmd(&[b"PUBLISH", b"news", b"hello"]),
        b":1\r\n",
    )
    .await;
    let mut got = vec![0u8; b"*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$5\r\nhello\r\n".len()];
    sub.read_exact(&mut got).await.unwrap();
    assert_eq!(
        &got[..],
        b"*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$5\r\nhello\r\n"
    );
    roundtrip(
        &mut publisher,
        &cmd(&[b"PUBLISH", b"nobody", b"x"]),
        b":0\r\n",
    )
    .await;
    // Only subscription commands in subscriber mode.
    sub.write_all(&cmd(&[b"GET", b"k"])).await.unwrap();
    let mut line = vec![0u8; 5];
    sub.read_exact(&mut line).await.unwrap();
    assert_eq!(&line, b"-ERR ");
    let mut rest = Vec::new();
    while !rest.ends_with(b"\r\n") {
        let mut b = [0u8; 1];
        sub.read_exact(&mut b).await.unwrap();
        rest.push(b[0]);
    }
    // Unsubscribing from everything returns to normal commands.
    roundtrip(
        &mut sub,
        &cmd(&[b"UNSUBSCRIBE"]),
        b"*3\r\n$11\r\nunsubscribe\r\n$4\r\nnews\r\n:1\r\n*3\r\n$11\r\nunsubscribe\r\n$5\r\nsport\r\n:0\r\n",
    )
    .await;
    roundtrip(&mut sub, &cmd(&[b"GET", b"k"]), b"$-1\r\n").await;
    roundtrip(
        &mut publisher,
        &cmd(&[b"PUBLISH", b"news", b"late"]),
        b":0\r\n",
    )
    .await;
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_protocol_errors_close_the_connection() {
    let _serial = heap::serial();
    let (addr, _db) = start().await;
    let long_count = [b"*".as_slice(), &[b'9'; 1024 * 1024]].concat();
    let long_len = [b"*1\r\n$".as_slice(), &[b'9'; 1024 * 1024]].concat();
    for bad in [
        &b"*x\r\n"[..],
        b"*1\r\n%5\r\n",
        b"*1\r\n$3\r\nabcde\r\n",
        b"*99999999\r\n",
        b"*1\r\n$999999999999\r\n",
        // Header lines with no end: refused after 32 bytes, not buffered.
        &long_count,
        &long_len,
    ] {
        let before = heap::reset_peak();
        let mut s = TcpStream::connect(addr).await.unwrap();
        let _ = s.write_all(bad).await;
        let mut got = Vec::new();
        let _ = s.read_to_end(&mut got).await;
        assert!(
            got.starts_with(b"-ERR Protocol error"),
            "{:?} -> {:?}",
            String::from_utf8_lossy(&bad[..bad.len().min(40)]),
            String::from_utf8_lossy(&got)
        );
        let grew = heap::peak() - before;
        assert!(
            grew < 2 * MIB + bad.len(),
            "a bad request grew the heap by {grew}"
        );
    }
    still_serves(addr).await;
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_client_that_never_reads_big_replies_is_bounded() {
    let _serial = heap::serial();
    let (addr, _db) = start_with(Limits {
        write: Duration::from_millis(300),
        ..Default::default()
    })
    .await;
    let value = vec![b'v'; 8 * MIB];
    let mut s = TcpStream::connect(addr).await.unwrap();
    roundtrip(&mut s, &cmd(&[b"SET", b"big", &value]), b"+OK\r\n").await;
    drop(value);
    // 150 pipelined GETs of it, and no reading.
    let gets = cmd(&[b"GET", b"big"]).repeat(150);
    let pings = b"PING\r\n".repeat(10_000);
    let before = heap::reset_peak();
    s.write_all(&gets).await.unwrap();
    still_serves(addr).await;
    // Keep sending, never reading: once the server stops reading (its
    // replies are over their limit and it cannot write them), our writes
    // block, until it gives up on its write timeout and the connection
    // breaks.
    while s.write_all(&pings).await.is_ok() {}
    let grew = heap::peak() - before;
    assert!(
        grew < 24 * MIB,
        "150 unread 8 MiB replies grew the heap by {grew} bytes"
    );
    still_serves(addr).await;
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_parses_each_byte_once() {
    let _serial = heap::serial();
    let (addr, _db) = start().await;
    // A DEL of 200 keys of 50 KB each (10 MB), sent 50 KB at a time.
    let keys: Vec<Vec<u8>> = (0..200u8).map(|i| vec![i; 50_000]).collect();
    let mut args: Vec<&[u8]> = vec![b"DEL"];
    args.extend(keys.iter().map(Vec::as_slice));
    let req = cmd(&args);
    drop(keys);
    let mut s = TcpStream::connect(addr).await.unwrap();
    let before = heap::total();
    for chunk in req.chunks(50_000) {
        s.write_all(chunk).await.unwrap();
        volt::task::yield_now().await;
    }
    let mut reply = [0u8; 4];
    s.read_exact(&mut reply).await.unwrap();
    assert_eq!(&reply, b":0\r\n");
    // Parsing from the start at every read copies the elements again each
    // time: hundreds of megabytes here. Resuming keeps it to the buffer's
    // growth.
    let allocated = heap::total() - before;
    assert!(
        allocated < 4 * req.len(),
        "{allocated} bytes allocated for a {} byte request",
        req.len()
    );
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_idle_clients_are_disconnected() {
    let _serial = heap::serial();
    let (addr, _db) = start_with(Limits {
        idle: Duration::from_millis(100),
        ..Default::default()
    })
    .await;
    let mut silent = TcpStream::connect(addr).await.unwrap();
    assert!(closed_by_server(&mut silent).await);
    still_serves(addr).await;
}

#[test]
fn redis_parser_resumes_where_it_stopped() {
    let _serial = heap::serial();
    let limits = mini_redis::frame::Limits::default();
    let full = b"*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n*1\r\n$4\r\nPING\r\n";
    let mut parser = Parser::default();
    let mut buf = BytesMut::new();
    let mut frames = Vec::new();
    // One byte at a time: nothing until a request is whole.
    for &b in full.iter() {
        buf.extend_from_slice(&[b]);
        while let Some(f) = parser.parse(&mut buf, &limits).unwrap() {
            frames.push(f);
        }
    }
    assert_eq!(
        frames,
        [
            Frame::Array(vec![Frame::bulk(&b"GET"[..]), Frame::bulk(&b"key"[..])]),
            Frame::Array(vec![Frame::bulk(&b"PING"[..])]),
        ]
    );
    assert!(buf.is_empty() && parser.is_idle());
    // Inline commands, extra spaces and all.
    let mut buf = BytesMut::from(&b"SET  a   b\r\n"[..]);
    let f = Parser::default().parse(&mut buf, &limits).unwrap().unwrap();
    assert_eq!(
        f,
        Frame::Array(vec![
            Frame::bulk(&b"SET"[..]),
            Frame::bulk(&b"a"[..]),
            Frame::bulk(&b"b"[..])
        ])
    );
}

/// redis-cli and redis-benchmark, where they are installed.
#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_serves_redis_cli_and_redis_benchmark() {
    let _serial = heap::serial();
    let installed = |tool: &str| {
        std::process::Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !installed("redis-cli") || !installed("redis-benchmark") {
        eprintln!(
            "skipped: redis-cli / redis-benchmark not installed (apt-get install redis-tools)"
        );
        return;
    }
    let (addr, _db) = start().await;
    let port = addr.port().to_string();
    let run = move |args: Vec<String>| {
        volt::task::spawn_blocking(move || {
            let out = std::process::Command::new(&args[0])
                .args(&args[1..])
                .output()
                .unwrap();
            assert!(out.status.success(), "{args:?}: {out:?}");
            String::from_utf8(out.stdout).unwrap()
        })
    };
    let cli = |rest: &[&str]| {
        let mut v = vec!["redis-cli".to_string(), "-p".into(), port.clone()];
        v.extend(rest.iter().map(|s| s.to_string()));
        v
    };
    assert_eq!(
        run(cli(&["set", "greeting", "hello", "ex", "60"]))
            .await
            .unwrap()
            .trim(),
        "OK"
    );
    assert_eq!(
        run(cli(&["get", "greeting"])).await.unwrap().trim(),
        "hello"
    );
    assert_eq!(run(cli(&["ttl", "greeting"])).await.unwrap().trim(), "60");
    assert_eq!(run(cli(&["incr", "n"])).await.unwrap().trim(), "1");
    let bench = vec![
        "redis-benchmark".to_string(),
        "-p".into(),
        port.clone(),
        "-t".into(),
        "ping,set,get,incr".into(),
        "-n".into(),
        "2000".into(),
        "-c".into(),
        "8".into(),
        "-q".into(),
        "--csv".into(),
    ];
    let report = run(bench).await.unwrap();
    for test in ["PING_INLINE", "SET", "GET", "INCR"] {
        assert!(report.contains(&format!("\"{test}\"")), "{report}");
    }
}
