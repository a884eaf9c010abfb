//! The example servers driven over real TCP connections: normal traffic,
//! pipelining, and hostile clients (malformed and oversized input, clients
//! that never read, that stay silent, or that exhaust file descriptors).
//! The examples' own code is compiled in here, so what is tested is what
//! `cargo run --example` runs.
//!
//! Every test checks that the server keeps serving other clients, and the
//! abuse tests measure the heap the server holds while under attack
//! ([`heap`]: a counting allocator; tests that measure run one at a time).

// Each example includes the shared `examples/support` module, as it does
// when built on its own.
#![allow(clippy::duplicate_mod)]
// `heap::serial()` is held for a whole test, across its awaits: it orders
// tests (each on a runtime of its own), no task ever waits for it.
#![allow(clippy::await_holding_lock)]

#[allow(dead_code, unused_imports)]
#[path = "../../examples/echo.rs"]
mod echo;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/http_hello.rs"]
mod http_hello;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/hyper_server.rs"]
mod hyper_server;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/mini_redis/main.rs"]
mod mini_redis;

mod echo_tests;
mod heap;
mod http_tests;
mod redis_tests;

use volt::io::AsyncReadExt;
use volt::net::TcpStream;

/// Reads until the peer closes; true if it closed (rather than reset).
pub async fn closed_by_server(s: &mut TcpStream) -> bool {
    let mut sink = Vec::new();
    s.read_to_end(&mut sink).await.is_ok()
}
