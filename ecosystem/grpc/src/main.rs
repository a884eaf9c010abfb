//! `eco-grpc serve ADDR` serves the Greeter until Ctrl-C;
//! `eco-grpc load URL CONCURRENCY SECONDS` keeps CONCURRENCY unary calls
//! in flight over one channel and prints RPCs per second.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use eco_grpc::{GreeterClient, GreeterServer, HelloRequest, MyGreeter};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("serve") => {
            let addr = args
                .get(1)
                .map_or("127.0.0.1:50051", String::as_str)
                .parse()?;
            println!("listening on {addr}");
            tonic::transport::Server::builder()
                .add_service(GreeterServer::new(MyGreeter))
                .serve_with_shutdown(addr, async {
                    let _ = tokio::signal::ctrl_c().await;
                })
                .await?;
        }
        Some("load") => {
            let url = args
                .get(1)
                .cloned()
                .unwrap_or_else(|| "http://127.0.0.1:50051".into());
            let conc: usize = args.get(2).map_or(Ok(64), |s| s.parse())?;
            let secs: u64 = args.get(3).map_or(Ok(5), |s| s.parse())?;
            let client = GreeterClient::connect(url).await?;
            let done = Arc::new(AtomicU64::new(0));
            let stop = Arc::new(AtomicBool::new(false));
            let start = Instant::now();
            let workers: Vec<_> = (0..conc)
                .map(|i| {
                    let (mut client, done, stop) = (client.clone(), done.clone(), stop.clone());
                    tokio::spawn(async move {
                        while !stop.load(Ordering::Relaxed) {
                            let req = HelloRequest {
                                name: format!("w{i}"),
                                count: 0,
                            };
                            client.say_hello(req).await.expect("rpc");
                            done.fetch_add(1, Ordering::Relaxed);
                        }
                    })
                })
                .collect();
            tokio::time::sleep(Duration::from_secs(secs)).await;
            stop.store(true, Ordering::Relaxed);
            for w in workers {
                w.await?;
            }
            let n = done.load(Ordering::Relaxed);
            println!(
                "{:.0} RPC/s ({n} in {:.2?})",
                n as f64 / start.elapsed().as_secs_f64(),
                start.elapsed()
            );
        }
        _ => return Err("usage: eco-grpc serve ADDR | load URL CONCURRENCY SECONDS".into()),
    }
    Ok(())
}
