//! `UdpSocket`: send_to/recv_from, connected send/recv, many concurrent
//! senders sharing one socket, try_*, peek, cancel safety, std round trip.

use std::sync::Arc;

use volt::net::UdpSocket;

#[volt::test]
async fn send_to_and_recv_from() {
    let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let b_addr = b.local_addr().unwrap();
    a.send_to(b"hello", b_addr).await.unwrap();
    let mut buf = [0u8; 16];
    let (n, from) = b.peek_from(&mut buf).await.unwrap();
    assert_eq!((&buf[..n], from), (&b"hello"[..], a.local_addr().unwrap()));
    let (n, from) = b.recv_from(&mut buf).await.unwrap();
    assert_eq!(&buf[..n], b"hello");
    assert_eq!(from, a.local_addr().unwrap());
}

#[volt::test]
async fn connected_ping_pong() {
    let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    a.connect(b.local_addr().unwrap()).await.unwrap();
    b.connect(a.local_addr().unwrap()).await.unwrap();
    assert_eq!(a.peer_addr().unwrap(), b.local_addr().unwrap());
    let mut buf = [0u8; 8];
    for i in 0..100u8 {
        a.send(&[i]).await.unwrap();
        assert_eq!(b.recv(&mut buf).await.unwrap(), 1);
        b.send(&buf[..1]).await.unwrap();
        assert_eq!(a.recv(&mut buf).await.unwrap(), 1);
        assert_eq!(buf[0], i);
    }
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_tasks_share_one_socket() {
    // 8 echo tasks wait on one shared server socket at once; 8 clients do
    // 50 request/response rounds each (one datagram in flight per client,
    // so no buffer ever overflows and nothing is lost).
    let server = Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
    let addr = server.local_addr().unwrap();
    let mut echoers = Vec::new();
    for _ in 0..8 {
        let server = server.clone();
        echoers.push(volt::spawn(async move {
            let mut buf = [0u8; 8];
            loop {
                let (n, from) = server.recv_from(&mut buf).await.unwrap();
                server.send_to(&buf[..n], from).await.unwrap();
            }
        }));
    }
    let mut clients = Vec::new();
    for c in 0..8u8 {
        clients.push(volt::spawn(async move {
            let sock = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            sock.connect(addr).await.unwrap();
            let mut buf = [0u8; 8];
            for i in 0..50u8 {
                sock.send(&[c, i]).await.unwrap();
                let n = sock.recv(&mut buf).await.unwrap();
                assert_eq!(&buf[..n], &[c, i]);
            }
        }));
    }
    for c in clients {
        c.await.unwrap();
    }
    for e in echoers {
        e.abort();
    }
}

#[volt::test]
async fn try_variants_and_cancel_safety() {
    let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let mut buf = [0u8; 8];
    assert_eq!(
        b.try_recv_from(&mut buf).unwrap_err().kind(),
        std::io::ErrorKind::WouldBlock
    );
    volt::select! {
        biased;
        _ = b.recv_from(&mut buf) => panic!("nothing was sent"),
        _ = volt::task::yield_now() => {}
    }
    a.writable().await.unwrap();
    a.try_send_to(b"x", b.local_addr().unwrap()).unwrap();
    b.readable().await.unwrap();
    let (n, _) = b.try_recv_from(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"x");
}

#[volt::test]
async fn options_and_std_round_trip() {
    let s = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    s.set_broadcast(true).unwrap();
    assert!(s.broadcast().unwrap());
    s.set_ttl(42).unwrap();
    assert_eq!(s.ttl().unwrap(), 42);
    s.set_multicast_ttl_v4(3).unwrap();
    assert_eq!(s.multicast_ttl_v4().unwrap(), 3);
    let addr = s.local_addr().unwrap();
    let std_s = s.into_std().unwrap();
    assert_eq!(std_s.local_addr().unwrap(), addr);
    let s = UdpSocket::try_from(std_s).unwrap();
    assert!(s.take_error().unwrap().is_none());
}

#[volt::test]
async fn peeks_and_buf_receives() {
    let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let a_addr = a.local_addr().unwrap();
    assert_eq!(
        b.try_peek_sender().unwrap_err().kind(),
        std::io::ErrorKind::WouldBlock
    );
    a.send_to(b"first", b.local_addr().unwrap()).await.unwrap();
    a.send_to(b"second", b.local_addr().unwrap()).await.unwrap();
    // The sender of the next datagram, without consuming it.
    assert_eq!(b.peek_sender().await.unwrap(), a_addr);
    let mut buf = [0u8; 16];
    let (n, from) = b.try_peek_from(&mut buf).unwrap();
    assert_eq!((&buf[..n], from), (&b"first"[..], a_addr));
    // Now take it, into a BufMut.
    let mut v = Vec::with_capacity(32);
    let (n, from) = b.recv_buf_from(&mut v).await.unwrap();
    assert_eq!((n, from, &v[..]), (5, a_addr, &b"first"[..]));
    b.connect(a_addr).await.unwrap();
    let mut v = Vec::with_capacity(32);
    b.readable().await.unwrap();
    assert_eq!(b.try_recv_buf(&mut v).unwrap(), 6);
    assert_eq!(v, b"second");
    a.connect(b.local_addr().unwrap()).await.unwrap();
    a.send(b"third").await.unwrap();
    let mut v = Vec::with_capacity(32);
    assert_eq!(b.recv_buf(&mut v).await.unwrap(), 5);
    assert_eq!(v, b"third");
    a.set_tos_v4(0x10).unwrap();
    assert_eq!(a.tos_v4().unwrap(), 0x10);
}

/// An ICMP "port unreachable" for a connected socket raises only the
/// error readiness: a waiting `recv` wakes and returns it (tokio waits for
/// `READABLE | ERROR`).
#[volt::test]
async fn recv_returns_the_error_of_a_closed_peer() {
    let sender = volt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let receiver = volt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let addr = receiver.local_addr().unwrap();
    drop(receiver);
    sender.connect(addr).await.unwrap();
    sender.send(b"anyone?").await.unwrap();
    let err = sender.recv(&mut [0; 16]).await.unwrap_err();
    assert!(
        matches!(
            err.kind(),
            std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::ConnectionReset
        ),
        "{err:?}"
    );
}
