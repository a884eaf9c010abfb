//! What every example server shares: its command line, serving until
//! Ctrl-C, an accept loop that outlives a shortage of file descriptors,
//! and timeouts around I/O.
//!
//! Each server includes it with `#[path = "support/mod.rs"] mod support;`
//! (it is not an example of its own).

#![allow(dead_code)]

use std::future::Future;
use std::io;
use std::time::Duration;
use volt::net::{TcpListener, TcpStream};

/// The command line every server takes: `[ADDR] [--seconds N]`.
#[derive(Debug)]
pub struct Args {
    /// Where to listen.
    pub addr: String,
    /// Stop after this long (for unattended runs); `None`: until Ctrl-C.
    pub seconds: Option<u64>,
}

/// Parses `[ADDR] [--seconds N]`; prints the usage and exits on anything
/// else.
pub fn args(name: &str, default_addr: &str) -> Args {
    let usage = || -> ! {
        eprintln!("usage: {name} [ADDR] [--seconds N]   (default ADDR: {default_addr})");
        std::process::exit(2)
    };
    let mut parsed = Args {
        addr: default_addr.to_string(),
        seconds: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--seconds" => {
                parsed.seconds = Some(
                    it.next()
                        .and_then(|s| s.parse().ok())
                        .unwrap_or_else(|| usage()),
                )
            }
            "-h" | "--help" => usage(),
            _ if arg.starts_with('-') => usage(),
            _ => parsed.addr = arg,
        }
    }
    parsed
}

/// Runs `serve` until it fails, Ctrl-C is pressed, or `seconds` pass.
pub async fn run_until_ctrl_c(
    serve: impl Future<Output = io::Result<()>>,
    seconds: Option<u64>,
) -> io::Result<()> {
    let limit = async {
        match seconds {
            Some(s) => volt::time::sleep(Duration::from_secs(s)).await,
            None => std::future::pending().await,
        }
    };
    volt::select! {
        res = serve => res,
        _ = volt::signal::ctrl_c() => {
            println!("Ctrl-C: shutting down");
            Ok(())
        }
        _ = limit => {
            println!("ran for the {}s asked for: shutting down", seconds.unwrap_or(0));
            Ok(())
        }
    }
}

/// The next connection. Errors never end the loop: a connection reset
/// before it was accepted (`ECONNABORTED`) is skipped at once; running out
/// of file descriptors or memory (`EMFILE`, `ENFILE`, `ENOBUFS`,
/// `ENOMEM`) backs off, from 10 ms doubling to 1 s, so the server neither
/// spins nor exits while connections close and free descriptors.
pub async fn accept(listener: &TcpListener) -> TcpStream {
    let mut backoff = Duration::from_millis(10);
    loop {
        match listener.accept().await {
            Ok((stream, _)) => return stream,
            Err(e) if e.kind() == io::ErrorKind::ConnectionAborted => continue,
            Err(e) => {
                eprintln!("accept: {e}; retrying in {backoff:?}");
                volt::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(1));
            }
        }
    }
}

/// `fut`, or a `TimedOut` error after `limit`.
pub async fn timeout<T>(
    limit: Duration,
    what: &str,
    fut: impl Future<Output = io::Result<T>>,
) -> io::Result<T> {
    match volt::time::timeout(limit, fut).await {
        Ok(res) => res,
        Err(_) => Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!("{what}: no progress for {limit:?}"),
        )),
    }
}

/// Gives a buffer's memory back after a large message, keeping a small
/// one for the next.
pub fn shrink(buf: &mut Vec<u8>, keep: usize) {
    if buf.capacity() > 4 * keep && buf.len() <= keep {
        buf.shrink_to(keep);
    }
}
