//! `echo_load ADDR CONNECTIONS SECONDS SIZE`: CONNECTIONS clients that
//! each send SIZE bytes and read them back, over and over, for SECONDS;
//! prints round trips per second. The load client of the TCP echo
//! benchmark (`scripts/service_bench.py` always runs it on tokio, so only
//! the server differs).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let addr = args.next().expect("ADDR");
    let conns: usize = args.next().map_or(64, |s| s.parse().expect("CONNECTIONS"));
    let secs: u64 = args.next().map_or(5, |s| s.parse().expect("SECONDS"));
    let size: usize = args.next().map_or(64, |s| s.parse().expect("SIZE"));
    let done = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let mut clients = Vec::new();
    for _ in 0..conns {
        let mut stream = tokio::net::TcpStream::connect(&addr)
            .await
            .expect("connect");
        stream.set_nodelay(true).unwrap();
        let (done, stop) = (done.clone(), stop.clone());
        clients.push(tokio::spawn(async move {
            let out = vec![7u8; size];
            let mut back = vec![0u8; size];
            while !stop.load(Ordering::Relaxed) {
                stream.write_all(&out).await.expect("write");
                stream.read_exact(&mut back).await.expect("read");
                assert_eq!(back, out);
                done.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    let start = Instant::now();
    let before = done.load(Ordering::Relaxed);
    tokio::time::sleep(Duration::from_secs(secs)).await;
    let n = done.load(Ordering::Relaxed) - before;
    let elapsed = start.elapsed();
    stop.store(true, Ordering::Relaxed);
    for c in clients {
        c.await.unwrap();
    }
    println!(
        "{:.0} round trips/s ({n} in {elapsed:.2?})",
        n as f64 / elapsed.as_secs_f64()
    );
}
