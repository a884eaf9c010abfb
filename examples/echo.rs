//! A TCP echo server on volt: one task per connection.
//!
//! ```sh
//! cargo run --release --example echo            # listens on 127.0.0.1:8080
//! cargo run --release --example echo -- 0.0.0.0:9000
//! ```
//!
//! Try it with `nc 127.0.0.1 8080`. The code is what a tokio echo server
//! looks like with `tokio` replaced by `volt`.

use volt::io::{AsyncReadExt, AsyncWriteExt};
use volt::net::TcpListener;

#[volt::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8080".to_string());
    let listener = TcpListener::bind(&addr).await?;
    println!("echo server listening on {}", listener.local_addr()?);

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
}
