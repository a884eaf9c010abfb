//! mini_redis: a small Redis server on volt, in the spirit of tokio's
//! mini-redis, written as a tokio program would be (replace `volt` with
//! `tokio` and it runs on tokio; `scripts/service_bench.py` does that to
//! compare the two).
//!
//! ```sh
//! cargo run --release --example mini_redis                 # 127.0.0.1:6379
//! redis-cli -p 6379 set greeting hello ex 60
//! redis-cli -p 6379 ttl greeting
//! redis-cli -p 6379 subscribe news        # and, elsewhere: redis-cli publish news hi
//! redis-benchmark -p 6379 -t ping,set,get,incr -n 100000 -q
//! ```
//!
//! Commands: `PING`, `ECHO`, `GET`, `SET` (with `EX`/`PX`), `DEL`, `INCR`,
//! `EXPIRE`, `TTL`, `PUBLISH`, `SUBSCRIBE`/`UNSUBSCRIBE`, `FLUSHALL`,
//! `QUIT`, and the `CONFIG GET`/`COMMAND` that clients ask on connect.
//!
//! The modules, in the order a request meets them:
//!
//! * `connection`: the buffered connection, with back-pressure and
//!   timeouts, so one client cannot hold unbounded memory;
//! * `frame`: RESP parsing (incremental: every byte is parsed once, however
//!   the request is split) and encoding, with a limit on every length;
//! * `cmd`: the commands, an enum parsed from a frame and applied to the
//!   database;
//! * `db`: the key space, with expiry driven by a timer task, and pub/sub
//!   channels on `volt::sync::broadcast`;
//! * `pubsub`: subscriber mode;
//! * this file: the command line and the accept loop, one task per client.

pub mod cmd;
pub mod connection;
pub mod db;
pub mod frame;
pub mod pubsub;
#[path = "../support/mod.rs"]
mod support;

pub use cmd::Command;
pub use connection::{Connection, Limits};
pub use db::{Db, DbDropGuard};
pub use frame::{Frame, Parser};

use std::io;
use volt::net::TcpListener;

fn main() -> io::Result<()> {
    let args = support::args("mini_redis", "127.0.0.1:6379");
    let rt = volt::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let listener = TcpListener::bind(&args.addr).await?;
        println!("mini_redis listening on {}", listener.local_addr()?);
        let db = DbDropGuard::new();
        support::run_until_ctrl_c(serve(listener, db.db(), Limits::default()), args.seconds).await
    })
}

/// Accepts clients forever, one task each.
pub async fn serve(listener: TcpListener, db: Db, limits: Limits) -> io::Result<()> {
    loop {
        let socket = support::accept(&listener).await;
        let db = db.clone();
        volt::spawn(async move {
            // Disconnects and timeouts end a client; nothing to report.
            let _ = handle(Connection::new(socket, limits), db).await;
        });
    }
}

/// Serves one client until it quits, closes, or breaks the protocol.
async fn handle(mut conn: Connection, db: Db) -> io::Result<()> {
    loop {
        let frame = match conn.read_frame().await {
            Ok(Some(frame)) => frame,
            Ok(None) => return Ok(()),
            Err(e) => {
                // A malformed request gets its error; then the connection
                // closes (what follows it cannot be trusted).
                if let Some(protocol) = connection::protocol_error(&e) {
                    conn.write_frame(&Frame::Error(format!("ERR {protocol}")));
                    return conn.close().await;
                }
                return Err(e);
            }
        };
        match Command::from_frame(frame) {
            Ok(Command::Quit) => {
                conn.write_frame(&Frame::Simple("OK".into()));
                return conn.close().await;
            }
            Ok(Command::Subscribe(channels)) => {
                if let pubsub::Ended::Closed = pubsub::subscribed(&mut conn, &db, channels).await? {
                    return conn.close().await;
                }
            }
            Ok(Command::Unsubscribe(_)) => conn.write_frame(&Frame::Array(vec![
                Frame::bulk("unsubscribe"),
                Frame::Null,
                Frame::Integer(0),
            ])),
            Ok(cmd) => conn.write_frame(&cmd.apply(&db)),
            Err(e) => conn.write_frame(&e.into()),
        }
        if conn.over_limit() {
            conn.flush().await?;
        }
    }
}
