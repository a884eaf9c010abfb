//! A TCP echo server on volt: one task per connection.
//!
//! ```sh
//! cargo run --release --example echo                      # 127.0.0.1:8080
//! cargo run --release --example echo -- 0.0.0.0:9000 --seconds 60
//! ```
//!
//! Try it with `nc 127.0.0.1 8080`. The code is what a tokio echo server
//! looks like with `tokio` replaced by `volt`. It serves until Ctrl-C, or
//! for 600 s (`--seconds N`).

use std::time::Duration;
use volt::io::{AsyncReadExt, AsyncWriteExt};
use volt::net::TcpListener;

#[volt::main]
async fn main() -> std::io::Result<()> {
    let mut addr = "127.0.0.1:8080".to_string();
    let mut secs = 600;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => {
                secs = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .expect("--seconds takes a whole number")
            }
            _ => addr = arg,
        }
    }
    let listener = TcpListener::bind(&addr).await?;
    println!("echo server listening on {}", listener.local_addr()?);

    let accept_loop = async {
        loop {
            let (mut socket, peer) = listener.accept().await?;
            volt::spawn(async move {
                let mut buf = vec![0; 16 * 1024];
                loop {
                    let n = match socket.read(&mut buf).await {
                        Ok(0) => return,
                        Ok(n) => n,
                        Err(e) => {
                            eprintln!("{peer}: read error: {e}");
                            return;
                        }
                    };
                    if let Err(e) = socket.write_all(&buf[..n]).await {
                        eprintln!("{peer}: write error: {e}");
                        return;
                    }
                }
            });
        }
    };
    volt::select! {
        res = accept_loop => res,
        _ = volt::signal::ctrl_c() => Ok(()),
        _ = volt::time::sleep(Duration::from_secs(secs)) => Ok(()),
    }
}
