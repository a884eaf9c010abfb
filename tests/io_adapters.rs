//! The `volt::io` adapters and helpers: number reads/writes, `read_buf`,
//! `write_all_buf`, `take`, `chain`, `copy*`, `duplex`/`simplex`,
//! `split`/`join`, `empty`/`sink`/`repeat`, `BufStream`, `AsyncSeekExt`,
//! `AsyncBufReadExt::split`.

use std::io::{Cursor, SeekFrom};
use volt::io::{
    self, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncSeekExt, AsyncWriteExt, BufReader,
    BufStream,
};
use volt::net::{TcpListener, TcpStream};

#[volt::test]
async fn numbers_round_trip_in_both_byte_orders() {
    let mut out = Vec::new();
    out.write_u8(0xab).await.unwrap();
    out.write_i16(-2).await.unwrap();
    out.write_u32(0x0102_0304).await.unwrap();
    out.write_u32_le(0x0102_0304).await.unwrap();
    out.write_i64_le(-5).await.unwrap();
    out.write_u128(u128::MAX - 1).await.unwrap();
    out.write_f64(1.5).await.unwrap();
    out.write_f32_le(-0.25).await.unwrap();
    assert_eq!(&out[1..3], &[0xff, 0xfe]);
    assert_eq!(&out[3..7], &[1, 2, 3, 4]);
    assert_eq!(&out[7..11], &[4, 3, 2, 1]);

    let mut r = &out[..];
    assert_eq!(r.read_u8().await.unwrap(), 0xab);
    assert_eq!(r.read_i16().await.unwrap(), -2);
    assert_eq!(r.read_u32().await.unwrap(), 0x0102_0304);
    assert_eq!(r.read_u32_le().await.unwrap(), 0x0102_0304);
    assert_eq!(r.read_i64_le().await.unwrap(), -5);
    assert_eq!(r.read_u128().await.unwrap(), u128::MAX - 1);
    assert_eq!(r.read_f64().await.unwrap(), 1.5);
    assert_eq!(r.read_f32_le().await.unwrap(), -0.25);
    // Short input: UnexpectedEof, as tokio.
    let err = r.read_u16().await.unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
}

#[volt::test]
async fn read_buf_and_write_all_buf() {
    let mut r: &[u8] = b"hello world";
    let mut buf = Vec::with_capacity(5);
    let n = r.read_buf(&mut buf).await.unwrap();
    assert!(n > 0);
    assert_eq!(&buf[..], &b"hello world"[..n]);

    let mut out = Vec::new();
    let mut src = Cursor::new(b"abcdef".to_vec());
    out.write_all_buf(&mut src).await.unwrap();
    assert_eq!(out, b"abcdef");
    assert_eq!(src.position(), 6);
}

#[volt::test]
async fn take_limits_and_chain_concatenates() {
    let mut t = (&b"abcdef"[..]).take(4);
    let mut s = String::new();
    t.read_to_string(&mut s).await.unwrap();
    assert_eq!(s, "abcd");
    assert_eq!(t.limit(), 0);
    t.set_limit(10);
    s.clear();
    t.read_to_string(&mut s).await.unwrap();
    assert_eq!(s, "ef");

    let mut c = (&b"ab"[..]).chain(&b""[..]).chain(&b"cd"[..]);
    let mut s = String::new();
    c.read_to_string(&mut s).await.unwrap();
    assert_eq!(s, "abcd");

    // Buffered take stops at the limit.
    let mut lines = BufReader::new(&b"one\ntwo\n"[..]).take(5).lines();
    assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("one"));
    assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("t"));
    assert_eq!(lines.next_line().await.unwrap(), None);
}

#[volt::test]
async fn copy_and_copy_buf_move_everything() {
    let data: Vec<u8> = (0..100_000u32).map(|i| i as u8).collect();
    let mut out = Vec::new();
    let n = io::copy(&mut &data[..], &mut out).await.unwrap();
    assert_eq!(n, data.len() as u64);
    assert_eq!(out, data);

    let mut out = Vec::new();
    let n = io::copy_buf(&mut BufReader::new(&data[..]), &mut out)
        .await
        .unwrap();
    assert_eq!(n, data.len() as u64);
    assert_eq!(out, data);
}

#[volt::test]
async fn copy_yields_to_other_tasks() {
    // An endless always-ready copy must not starve a task on the same
    // (single) thread: the coop budget makes it yield.
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let f2 = flag.clone();
    volt::spawn(async move { f2.store(true, std::sync::atomic::Ordering::SeqCst) });
    let res = volt::time::timeout(std::time::Duration::from_secs(3600), async {
        let mut src = io::repeat(7).take(64 * 1024 * 1024);
        io::copy(&mut src, &mut io::sink()).await.unwrap()
    })
    .await;
    assert_eq!(res.unwrap(), 64 * 1024 * 1024);
    assert!(flag.load(std::sync::atomic::Ordering::SeqCst));
}

#[volt::test]
async fn duplex_ping_pong_and_close() {
    let (mut a, mut b) = io::duplex(4);
    let writer = volt::spawn(async move {
        // Larger than the buffer: the write waits for the reader.
        a.write_all(b"0123456789").await.unwrap();
        a
    });
    let mut buf = [0u8; 10];
    b.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"0123456789");
    let a = writer.await.unwrap();
    drop(a);
    // Peer gone: EOF for reads, BrokenPipe for writes.
    assert_eq!(b.read(&mut buf).await.unwrap(), 0);
    let err = b.write(b"x").await.unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
}

#[volt::test]
async fn duplex_shutdown_gives_eof_after_data() {
    let (mut a, mut b) = io::duplex(64);
    a.write_all(b"last").await.unwrap();
    a.shutdown().await.unwrap();
    let mut got = String::new();
    b.read_to_string(&mut got).await.unwrap();
    assert_eq!(got, "last");
}

#[test]
#[should_panic(expected = "`max_buf_size` must be greater than 0")]
fn duplex_zero_panics_like_tokio() {
    let _ = io::duplex(0);
}

#[volt::test]
async fn simplex_split_and_unsplit() {
    let (mut rx, mut tx) = io::simplex(8);
    tx.write_all(b"abc").await.unwrap();
    let mut buf = [0; 3];
    rx.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"abc");
    assert!(rx.is_pair_of(&tx));
    let _stream = rx.unsplit(tx);
}

#[test]
#[should_panic(expected = "Unrelated `split::Write` passed to `split::Read::unsplit`.")]
fn unsplit_of_unrelated_halves_panics_like_tokio() {
    let (r1, _w1) = io::split(io::SimplexStream::new_unsplit(1));
    let (_r2, w2) = io::split(io::SimplexStream::new_unsplit(1));
    let _ = r1.unsplit(w2);
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn split_halves_work_from_two_tasks() {
    let (client, server) = io::duplex(16);
    let (mut sr, mut sw) = io::split(server);
    let echo = volt::spawn(async move {
        io::copy(&mut sr, &mut sw).await.unwrap();
        sw.shutdown().await.unwrap();
    });
    let (mut cr, mut cw) = io::split(client);
    let reader = volt::spawn(async move {
        let mut got = Vec::new();
        cr.read_to_end(&mut got).await.unwrap();
        got
    });
    let payload: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
    cw.write_all(&payload).await.unwrap();
    cw.shutdown().await.unwrap();
    echo.await.unwrap();
    assert_eq!(reader.await.unwrap(), payload);
}

#[volt::test]
async fn join_reads_one_writes_other() {
    let mut j = io::join(&b"in"[..], Vec::new());
    let mut s = String::new();
    j.read_to_string(&mut s).await.unwrap();
    j.write_all(b"out").await.unwrap();
    let (_, w) = j.into_inner();
    assert_eq!((s.as_str(), &w[..]), ("in", &b"out"[..]));
}

#[volt::test]
async fn empty_sink_repeat() {
    let mut s = String::new();
    assert_eq!(io::empty().read_to_string(&mut s).await.unwrap(), 0);
    assert_eq!(io::empty().write(b"abc").await.unwrap(), 3);
    assert_eq!(io::sink().write(b"abcd").await.unwrap(), 4);
    let mut buf = [0u8; 5];
    io::repeat(9).read_exact(&mut buf).await.unwrap();
    assert_eq!(buf, [9; 5]);
}

#[volt::test]
async fn buf_stream_buffers_both_ways() {
    let (a, b) = io::duplex(1024);
    let (mut a, mut b) = (BufStream::new(a), BufStream::new(b));
    a.write_all(b"hello\n").await.unwrap();
    // Not flushed yet: nothing reached the pipe, so a read would wait.
    let mut probe = [0u8; 1];
    let pending = std::future::poll_fn(|cx| {
        let mut rb = io::ReadBuf::new(&mut probe);
        let p = std::pin::Pin::new(b.get_mut()).poll_read(cx, &mut rb);
        std::task::Poll::Ready(p.is_pending())
    })
    .await;
    assert!(pending);
    a.flush().await.unwrap();
    let mut line = String::new();
    b.read_line(&mut line).await.unwrap();
    assert_eq!(line, "hello\n");
}

#[volt::test]
async fn seek_on_cursor() {
    let mut c = Cursor::new(b"0123456789".to_vec());
    assert_eq!(c.seek(SeekFrom::End(-3)).await.unwrap(), 7);
    let mut buf = [0; 3];
    c.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"789");
    c.rewind().await.unwrap();
    assert_eq!(c.stream_position().await.unwrap(), 0);
    assert!(c.seek(SeekFrom::Current(-1)).await.is_err());
}

#[volt::test]
async fn buf_read_split_segments() {
    let mut parts = BufReader::with_capacity(2, &b"aa;bbb;;c"[..]).split(b';');
    let mut all = Vec::new();
    while let Some(p) = parts.next_segment().await.unwrap() {
        all.push(String::from_utf8(p).unwrap());
    }
    assert_eq!(all, ["aa", "bbb", "", "c"]);
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_bidirectional_proxies_tcp() {
    // echo server <- proxy <- client
    let echo = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let echo_addr = echo.local_addr().unwrap();
    volt::spawn(async move {
        let (mut s, _) = echo.accept().await.unwrap();
        let (mut r, mut w) = s.split();
        io::copy(&mut r, &mut w).await.unwrap();
    });
    let proxy = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let proxy_addr = proxy.local_addr().unwrap();
    let proxied = volt::spawn(async move {
        let (mut inbound, _) = proxy.accept().await.unwrap();
        let mut outbound = TcpStream::connect(echo_addr).await.unwrap();
        io::copy_bidirectional(&mut inbound, &mut outbound)
            .await
            .unwrap()
    });
    let mut client = TcpStream::connect(proxy_addr).await.unwrap();
    let payload = vec![42u8; 200_000];
    let (mut r, mut w) = client.split();
    let send = async {
        w.write_all(&payload).await.unwrap();
        w.shutdown().await.unwrap();
    };
    let recv = async {
        let mut got = Vec::new();
        r.read_to_end(&mut got).await.unwrap();
        got
    };
    let ((), got) = volt::join!(send, recv);
    assert_eq!(got.len(), payload.len());
    drop(client);
    assert_eq!(proxied.await.unwrap(), (200_000, 200_000));
}

#[volt::test]
async fn buffered_seeks_account_for_buffers() {
    use volt::io::BufWriter;
    // BufReader: Current is relative to the logical position.
    let mut r = BufReader::with_capacity(8, Cursor::new(b"0123456789abcdef".to_vec()));
    let mut two = [0u8; 2];
    r.read_exact(&mut two).await.unwrap();
    assert_eq!(&two, b"01");
    assert_eq!(r.seek(SeekFrom::Current(1)).await.unwrap(), 3);
    r.read_exact(&mut two).await.unwrap();
    assert_eq!(&two, b"34");
    assert_eq!(r.seek(SeekFrom::End(-2)).await.unwrap(), 14);
    r.read_exact(&mut two).await.unwrap();
    assert_eq!(&two, b"ef");
    // BufWriter: buffered bytes are flushed before the seek.
    let mut w = BufWriter::new(Cursor::new(vec![0u8; 8]));
    w.write_all(b"ab").await.unwrap();
    assert_eq!(w.seek(SeekFrom::Start(6)).await.unwrap(), 6);
    w.write_all(b"yz").await.unwrap();
    w.flush().await.unwrap();
    assert_eq!(w.get_ref().get_ref(), b"ab\0\0\0\0yz");
}
