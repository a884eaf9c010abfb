//! A TCP echo server on volt: one task per connection.
//!
//! ```sh
//! cargo run --release --example echo                      # 127.0.0.1:8080
//! cargo run --release --example echo -- 0.0.0.0:9000 --seconds 60
//! ```
//!
//! Try it with `nc 127.0.0.1 8080`. The code is what a tokio echo server
//! looks like with `tokio` replaced by `volt`. Each connection holds one
//! 16 KiB buffer; a connection idle for 5 minutes is closed, and so is one
//! that stops reading what it sent (no write progress for 10 s). Running
//! out of file descriptors pauses accepting instead of ending the server.

#[path = "support/mod.rs"]
mod support;

use std::io;
use std::time::Duration;
use volt::io::{AsyncReadExt, AsyncWriteExt};
use volt::net::{TcpListener, TcpStream};

/// How long a connection may stay silent, and a write stall.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub idle: Duration,
    pub write: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            idle: Duration::from_secs(300),
            write: Duration::from_secs(10),
        }
    }
}

#[volt::main]
async fn main() -> io::Result<()> {
    let args = support::args("echo", "127.0.0.1:8080");
    let listener = TcpListener::bind(&args.addr).await?;
    println!("echo server listening on {}", listener.local_addr()?);
    support::run_until_ctrl_c(serve(listener, Limits::default()), args.seconds).await
}

/// Accepts connections forever, one task each.
pub async fn serve(listener: TcpListener, limits: Limits) -> io::Result<()> {
    loop {
        let socket = support::accept(&listener).await;
        volt::spawn(async move {
            // Timeouts and resets are the peer's doing: not worth a line.
            if let Err(e) = connection(socket, limits).await {
                use io::ErrorKind::*;
                if !matches!(e.kind(), TimedOut | ConnectionReset | BrokenPipe) {
                    eprintln!("connection: {e}");
                }
            }
        });
    }
}

/// Echoes until the peer closes its side.
pub async fn connection(mut socket: TcpStream, limits: Limits) -> io::Result<()> {
    let mut buf = vec![0; 16 * 1024];
    loop {
        let n = support::timeout(limits.idle, "idle", socket.read(&mut buf)).await?;
        if n == 0 {
            return Ok(());
        }
        support::timeout(limits.write, "write", socket.write_all(&buf[..n])).await?;
    }
}
