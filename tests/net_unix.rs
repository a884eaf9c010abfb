//! Unix domain sockets (`UnixListener`, `UnixStream` with its halves,
//! `UnixDatagram`, `UnixSocket`, `SocketAddr`, `UCred`) and `TcpSocket`.

use std::path::PathBuf;
use volt::io::{AsyncReadExt, AsyncWriteExt};
use volt::net::unix::{self, UCred};
use volt::net::{TcpSocket, TcpStream, UnixDatagram, UnixListener, UnixSocket, UnixStream};

fn sock_path(name: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let p = std::env::temp_dir().join(format!("volt-uds-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn listener_accepts_and_echoes() {
    let path = sock_path("echo");
    let listener = UnixListener::bind(&path).unwrap();
    assert_eq!(
        listener.local_addr().unwrap().as_pathname(),
        Some(path.as_path())
    );
    let server = volt::spawn(async move {
        for _ in 0..3 {
            let (mut s, addr) = listener.accept().await.unwrap();
            assert!(addr.is_unnamed());
            volt::spawn(async move {
                let (mut r, mut w) = s.split();
                volt::io::copy(&mut r, &mut w).await.unwrap();
            });
        }
    });
    for i in 0..3u8 {
        let mut c = UnixStream::connect(&path).await.unwrap();
        assert_eq!(c.peer_addr().unwrap().as_pathname(), Some(path.as_path()));
        c.write_all(&[i; 1000]).await.unwrap();
        c.shutdown().await.unwrap();
        let mut got = Vec::new();
        c.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, vec![i; 1000]);
    }
    server.await.unwrap();
    std::fs::remove_file(&path).unwrap();
}

#[volt::test]
async fn connect_to_missing_path_fails_with_os_error() {
    let err = UnixStream::connect(sock_path("missing")).await.unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
}

#[volt::test]
async fn pair_into_split_and_reunite() {
    let (a, mut b) = UnixStream::pair().unwrap();
    let (mut r, mut w) = a.into_split();
    w.write_all(b"x").await.unwrap();
    let mut one = [0u8; 1];
    b.read_exact(&mut one).await.unwrap();
    b.write_all(b"y").await.unwrap();
    r.read_exact(&mut one).await.unwrap();
    assert_eq!(&one, b"y");
    let a = r.reunite(w).unwrap();
    // Reuniting unrelated halves gives them back.
    let (r2, _w2) = b.into_split();
    let (_r3, w3) = a.into_split();
    let err = r2.reunite(w3).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tried to reunite halves that are not from the same socket"
    );
}

#[volt::test]
async fn owned_write_half_drop_shuts_down_write() {
    let (a, mut b) = UnixStream::pair().unwrap();
    let (_r, w) = a.into_split();
    drop(w);
    let mut buf = Vec::new();
    assert_eq!(b.read_to_end(&mut buf).await.unwrap(), 0);
}

#[volt::test]
async fn try_read_write_and_readiness() {
    let (a, b) = UnixStream::pair().unwrap();
    a.writable().await.unwrap();
    assert_eq!(a.try_write(b"hello").unwrap(), 5);
    b.readable().await.unwrap();
    let mut buf = [0u8; 16];
    assert_eq!(b.try_read(&mut buf).unwrap(), 5);
    assert_eq!(
        b.try_read(&mut buf).unwrap_err().kind(),
        std::io::ErrorKind::WouldBlock
    );
}

#[volt::test]
async fn peer_cred_is_our_process() {
    let (a, _b) = UnixStream::pair().unwrap();
    let cred: UCred = a.peer_cred().unwrap();
    assert_eq!(cred.pid(), Some(std::process::id() as i32));
    let _: unix::uid_t = cred.uid();
    let _: unix::gid_t = cred.gid();
}

#[volt::test]
async fn std_round_trip() {
    let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
    a.set_nonblocking(true).unwrap();
    let mut a = UnixStream::from_std(a).unwrap();
    a.write_all(b"z").await.unwrap();
    let mut buf = [0u8; 1];
    std::io::Read::read_exact(&mut &b, &mut buf).unwrap();
    assert_eq!(&buf, b"z");
    let a = a.into_std().unwrap();
    drop(a);
}

#[volt::test]
async fn datagrams_between_bound_sockets() {
    let (pa, pb) = (sock_path("dga"), sock_path("dgb"));
    let a = UnixDatagram::bind(&pa).unwrap();
    let b = UnixDatagram::bind(&pb).unwrap();
    assert_eq!(a.send_to(b"one", &pb).await.unwrap(), 3);
    let mut buf = [0u8; 16];
    let (n, from) = b.recv_from(&mut buf).await.unwrap();
    assert_eq!(
        (&buf[..n], from.as_pathname()),
        (&b"one"[..], Some(pa.as_path()))
    );
    b.connect(&pa).unwrap();
    b.send(b"two").await.unwrap();
    let n = a.recv(&mut buf).await.unwrap();
    assert_eq!(&buf[..n], b"two");
    assert_eq!(
        a.try_recv(&mut buf).unwrap_err().kind(),
        std::io::ErrorKind::WouldBlock
    );
    let (p, q) = UnixDatagram::pair().unwrap();
    p.send(b"pair").await.unwrap();
    let n = q.recv(&mut buf).await.unwrap();
    assert_eq!(&buf[..n], b"pair");
    assert!(
        UnixDatagram::unbound()
            .unwrap()
            .local_addr()
            .unwrap()
            .is_unnamed()
    );
    let _ = std::fs::remove_file(&pa);
    let _ = std::fs::remove_file(&pb);
}

#[volt::test]
async fn tcp_socket_bind_listen_connect() {
    let s = TcpSocket::new_v4().unwrap();
    s.set_reuseaddr(true).unwrap();
    assert!(s.reuseaddr().unwrap());
    s.set_reuseport(true).unwrap();
    s.set_recv_buffer_size(64 * 1024).unwrap();
    assert!(s.recv_buffer_size().unwrap() > 0);
    s.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = s.local_addr().unwrap();
    let listener = s.listen(16).unwrap();
    assert_eq!(listener.local_addr().unwrap(), addr);

    let c = TcpSocket::new_v4().unwrap();
    c.set_nodelay(true).unwrap();
    c.set_keepalive(true).unwrap();
    assert!(c.keepalive().unwrap());
    c.set_zero_linger().unwrap();
    assert_eq!(c.linger().unwrap(), Some(std::time::Duration::ZERO));
    let mut stream = c.connect(addr).await.unwrap();
    let (mut server, _) = listener.accept().await.unwrap();
    stream.write_all(b"hi").await.unwrap();
    let mut buf = [0u8; 2];
    server.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"hi");
    assert!(stream.nodelay().unwrap());
}

#[volt::test]
async fn tcp_socket_connect_refused_is_an_error() {
    // Bind a port, then close it: nobody listens there.
    let addr = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let err = TcpSocket::new_v4()
        .unwrap()
        .connect(addr)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::ConnectionRefused);
}

#[volt::test]
async fn zero_linger_resets_the_peer() {
    let listener = volt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let client = TcpStream::connect(addr).await.unwrap();
    let (mut server, _) = listener.accept().await.unwrap();
    client.set_zero_linger().unwrap();
    assert_eq!(client.linger().unwrap(), Some(std::time::Duration::ZERO));
    drop(client);
    let mut buf = [0u8; 8];
    let err = server.read(&mut buf).await.unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::ConnectionReset);
}

#[volt::test]
async fn abstract_addresses_and_try_read_buf() {
    use std::os::linux::net::SocketAddrExt;
    let name = format!("volt-abstract-{}", std::process::id());
    let std_addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let addr = unix::SocketAddr::from(std_addr);
    let listener = UnixListener::bind_addr(&addr).unwrap();
    assert_eq!(
        listener.local_addr().unwrap().as_abstract_name(),
        Some(name.as_bytes())
    );
    let client = UnixStream::connect_addr(&addr).await.unwrap();
    let (mut server, _) = listener.accept().await.unwrap();
    server.write_all(b"abc").await.unwrap();
    client.readable().await.unwrap();
    let mut v = Vec::with_capacity(8);
    assert_eq!(client.try_read_buf(&mut v).unwrap(), 3);
    assert_eq!(v, b"abc");
}

#[volt::test]
async fn tcp_quickack_and_try_read_buf() {
    let listener = volt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let client = TcpStream::connect(listener.local_addr().unwrap())
        .await
        .unwrap();
    let (mut server, _) = listener.accept().await.unwrap();
    client.set_quickack(true).unwrap();
    let _ = client.quickack().unwrap();
    server.write_all(b"xyz").await.unwrap();
    client.readable().await.unwrap();
    let mut v = Vec::with_capacity(8);
    assert_eq!(client.try_read_buf(&mut v).unwrap(), 3);
    assert_eq!(v, b"xyz");
}

#[volt::test]
async fn unix_socket_stream_client_bound_to_its_own_path() {
    let (server_path, client_path) = (sock_path("us-srv"), sock_path("us-cli"));
    let listener = UnixSocket::new_stream().unwrap();
    listener.bind(&server_path).unwrap();
    let listener = listener.listen(16).unwrap();
    assert_eq!(
        listener.local_addr().unwrap().as_pathname(),
        Some(server_path.as_path())
    );

    let client = UnixSocket::new_stream().unwrap();
    client.bind(&client_path).unwrap();
    let mut client = client.connect(&server_path).await.unwrap();
    let (mut server, peer) = listener.accept().await.unwrap();
    assert_eq!(peer.as_pathname(), Some(client_path.as_path()));
    assert_eq!(
        server.peer_addr().unwrap().as_pathname(),
        Some(client_path.as_path())
    );

    client.write_all(b"ping").await.unwrap();
    drop(client);
    let mut got = Vec::new();
    server.read_to_end(&mut got).await.unwrap();
    assert_eq!(got, b"ping");
    let _ = std::fs::remove_file(&server_path);
    let _ = std::fs::remove_file(&client_path);
}

#[volt::test]
async fn unix_socket_datagram_echo() {
    let (server_path, client_path) = (sock_path("ud-srv"), sock_path("ud-cli"));
    let server = UnixSocket::new_datagram().unwrap();
    server.bind(&server_path).unwrap();
    let server = server.datagram().unwrap();
    let client = UnixSocket::new_datagram().unwrap();
    client.bind(&client_path).unwrap();
    let client = client.datagram().unwrap();
    client.connect(&server_path).unwrap();

    client.send(b"echo").await.unwrap();
    let mut buf = [0u8; 16];
    let (n, from) = server.recv_from(&mut buf).await.unwrap();
    assert_eq!(from.as_pathname(), Some(client_path.as_path()));
    server.send_to(&buf[..n], &client_path).await.unwrap();
    let n = client.recv(&mut buf).await.unwrap();
    assert_eq!(&buf[..n], b"echo");
    let _ = std::fs::remove_file(&server_path);
    let _ = std::fs::remove_file(&client_path);
}

#[volt::test]
async fn unix_socket_misuse_gives_tokios_errors() {
    let err = UnixSocket::new_datagram()
        .unwrap()
        .connect(sock_path("us-none"))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "connect cannot be called on a datagram socket"
    );
    assert_eq!(err.kind(), std::io::ErrorKind::Other);
    let err = UnixSocket::new_datagram().unwrap().listen(8).unwrap_err();
    assert_eq!(
        err.to_string(),
        "listen cannot be called on a datagram socket"
    );
    let err = UnixSocket::new_stream().unwrap().datagram().unwrap_err();
    assert_eq!(
        err.to_string(),
        "datagram cannot be called on a stream socket"
    );
    // Nothing listens there: the OS's error comes back.
    let err = UnixSocket::new_stream()
        .unwrap()
        .connect(sock_path("us-missing"))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
}

#[test]
fn unix_socket_fd_round_trips() {
    use std::os::unix::io::{AsRawFd, FromRawFd, IntoRawFd};
    let socket = UnixSocket::new_stream().unwrap();
    let fd = socket.into_raw_fd();
    // SAFETY: (test) `fd` was just released by `into_raw_fd`.
    let socket = unsafe { UnixSocket::from_raw_fd(fd) };
    assert_eq!(socket.as_raw_fd(), fd);
    assert!(format!("{socket:?}").contains("Socket"));
}

/// With tiny event batches (`max_io_events_per_tick`, and the smaller
/// batch of a busy worker, `max_io_events_per_busy_tick`) the events past
/// the batch stay in the kernel and come with later polls: every reader
/// still finishes.
#[test]
fn tiny_io_event_batches_deliver_every_event() {
    let builders = [
        volt::runtime::Builder::new_current_thread()
            .enable_all()
            .max_io_events_per_tick(2)
            .build()
            .unwrap(),
        volt::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .max_io_events_per_tick(64)
            .max_io_events_per_busy_tick(1)
            .build()
            .unwrap(),
    ];
    for rt in builders {
        rt.block_on(async {
            let mut readers = Vec::new();
            let mut writers = Vec::new();
            for i in 0..32u8 {
                let (a, mut b) = UnixStream::pair().unwrap();
                readers.push(volt::spawn(async move {
                    let mut a = a;
                    let mut byte = [0u8; 1];
                    a.read_exact(&mut byte).await.unwrap();
                    byte[0]
                }));
                writers.push(async move { b.write_all(&[i]).await.map(|()| b) });
            }
            // Keep the writing ends open until every reader is done.
            let mut open = Vec::new();
            for w in writers {
                open.push(w.await.unwrap());
            }
            for (i, r) in readers.into_iter().enumerate() {
                assert_eq!(r.await.unwrap(), i as u8);
            }
        });
    }
}

/// On Linux a path starting with a NUL byte names an abstract socket, in
/// `UnixListener::bind` and `UnixStream::connect` alike (as tokio).
#[cfg(any(target_os = "linux", target_os = "android"))]
#[volt::test]
async fn abstract_names_through_bind_and_connect() {
    use volt::io::{AsyncReadExt, AsyncWriteExt};
    let name = format!("\0volt-abstract-path-{}", std::process::id());
    let listener = volt::net::UnixListener::bind(&name).unwrap();
    let (accepted, connected) =
        volt::join!(listener.accept(), volt::net::UnixStream::connect(&name));
    let (mut server, _) = accepted.unwrap();
    let mut client = connected.unwrap();
    client.write_all(b"hi").await.unwrap();
    let mut buf = [0; 2];
    server.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"hi");
    assert_eq!(
        listener.local_addr().unwrap().as_abstract_name(),
        Some(&name.as_bytes()[1..])
    );
}
