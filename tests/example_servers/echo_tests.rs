//! `examples/echo.rs`.

use super::heap;
use super::{closed_by_server, echo};
use std::net::SocketAddr;
use std::time::Duration;
use volt::io::{AsyncReadExt, AsyncWriteExt};
use volt::net::{TcpListener, TcpStream};

async fn start_with(limits: echo::Limits) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    volt::spawn(echo::serve(listener, limits));
    addr
}

async fn echoes(addr: SocketAddr) -> std::io::Result<()> {
    let mut s = TcpStream::connect(addr).await?;
    s.write_all(b"ping").await?;
    let mut got = [0u8; 4];
    s.read_exact(&mut got).await?;
    assert_eq!(&got, b"ping");
    Ok(())
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_echoes_and_closes_idle_connections() {
    let _serial = heap::serial();
    let addr = start_with(echo::Limits {
        idle: Duration::from_millis(100),
        ..Default::default()
    })
    .await;
    echoes(addr).await.unwrap();
    let big = vec![7u8; 1 << 20];
    let mut s = TcpStream::connect(addr).await.unwrap();
    let (mut r, mut w) = s.split();
    let (sent, got) = volt::join!(w.write_all(&big), async {
        let mut got = vec![0u8; big.len()];
        r.read_exact(&mut got).await.map(|_| got)
    });
    sent.unwrap();
    assert_eq!(got.unwrap(), big);
    let mut silent = TcpStream::connect(addr).await.unwrap();
    assert!(closed_by_server(&mut silent).await);
    echoes(addr).await.unwrap();
}

/// Under `ulimit -n 64`, connections beyond the limit make `accept` fail
/// with `EMFILE`: the server backs off and keeps going, and serves again
/// once descriptors are free. (Run in a child process: the limit would
/// apply to every test of this binary.)
#[test]
fn echo_survives_running_out_of_file_descriptors() {
    if std::env::var_os("VOLT_ECHO_FD_CHILD").is_some() {
        return fd_child();
    }
    let _serial = heap::serial();
    let exe = std::env::current_exe().unwrap();
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -n 64 && exec \"$0\" --exact echo_tests::echo_survives_running_out_of_file_descriptors --nocapture")
        .arg(exe)
        .env("VOLT_ECHO_FD_CHILD", "1")
        .status()
        .unwrap();
    assert!(status.success(), "child failed: {status}");
}

fn fd_child() {
    let rt = volt::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let addr = start_with(echo::Limits::default()).await;
        // Connect until the process has no descriptor left: the client
        // side's `connect` fails, and the server's `accept` too.
        let mut clients = Vec::new();
        while let Ok(c) = TcpStream::connect(addr).await {
            clients.push(c);
            assert!(clients.len() < 1000, "the fd limit was not applied");
        }
        // Give descriptors back: the server is still there, and serves.
        clients.truncate(clients.len() / 2);
        let mut served = false;
        for _ in 0..200 {
            if echoes(addr).await.is_ok() {
                served = true;
                break;
            }
            volt::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(served, "the server stopped accepting");
    });
}
