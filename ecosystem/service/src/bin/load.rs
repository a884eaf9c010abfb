//! `load URL CONCURRENCY SECONDS`: a reqwest client that keeps
//! CONCURRENCY requests in flight for SECONDS and prints requests per
//! second; every response must be 200.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let url = args.next().expect("URL");
    let conc: usize = args.next().map_or(64, |s| s.parse().expect("CONCURRENCY"));
    let secs: u64 = args.next().map_or(5, |s| s.parse().expect("SECONDS"));
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .tcp_nodelay(true)
        .build()
        .unwrap();
    let done = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let workers: Vec<_> = (0..conc)
        .map(|_| {
            let (client, url, done, stop) =
                (client.clone(), url.clone(), done.clone(), stop.clone());
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let resp = client.get(&url).send().await.expect("request");
                    assert_eq!(resp.status(), 200);
                    resp.bytes().await.expect("body");
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(secs)).await;
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.await.unwrap();
    }
    let n = done.load(Ordering::Relaxed);
    println!(
        "{:.0} requests/s ({n} in {:.2?})",
        n as f64 / start.elapsed().as_secs_f64(),
        start.elapsed()
    );
}
