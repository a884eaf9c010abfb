//! A tiny Redis-compatible server on volt: RESP2 over TCP with `PING`,
//! `ECHO`, `GET`, `SET`, `DEL`, `INCR` (and `CONFIG GET`, `COMMAND`,
//! `QUIT`, `FLUSHALL` so that stock clients are happy), enough for
//! `redis-cli` and `redis-benchmark -t ping,set,get,incr`. Written as a
//! tokio program would be: replace `volt` with `tokio` and it runs on
//! tokio (`scripts/load.sh` compares the two).
//!
//! ```sh
//! cargo run --release --example mini_redis                 # 127.0.0.1:6379
//! redis-cli -p 6379 set greeting hello
//! redis-benchmark -p 6379 -t ping,set,get,incr -n 100000 -q
//! ```
//!
//! Pipelined commands are answered in one write. Malformed input gets a
//! RESP error and the connection is closed; a request over 512 MiB (the
//! Redis limit) or an array over 1M elements is rejected the same way.
//! The store is a `HashMap` split into 16 shards, each behind a
//! `std::sync::Mutex` held only for the map operation (never across an
//! `.await`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use volt::io::{AsyncReadExt, AsyncWriteExt};
use volt::net::{TcpListener, TcpStream};

const SHARDS: usize = 16;
const MAX_BULK: usize = 512 * 1024 * 1024;
const MAX_ARRAY: usize = 1024 * 1024;

/// One shard of the key space.
type Shard = Mutex<HashMap<Vec<u8>, Vec<u8>>>;

/// A parsed command: its arguments and how many bytes it took.
type Command = (Vec<Vec<u8>>, usize);

/// The shared key space.
#[derive(Clone, Default, Debug)]
pub struct Db {
    shards: Arc<[Shard; SHARDS]>,
}

impl Db {
    fn shard(&self, key: &[u8]) -> &Shard {
        // FNV-1a: cheap and good enough to spread keys.
        let mut h: u64 = 0xcbf29ce484222325;
        for &b in key {
            h = (h ^ u64::from(b)).wrapping_mul(0x100000001b3);
        }
        &self.shards[(h as usize) % SHARDS]
    }

    fn with<R>(&self, key: &[u8], f: impl FnOnce(&mut HashMap<Vec<u8>, Vec<u8>>) -> R) -> R {
        let mut map = self.shard(key).lock().unwrap_or_else(|e| e.into_inner());
        f(&mut map)
    }
}

fn main() -> std::io::Result<()> {
    // Usage: mini_redis [ADDR] [--seconds N]
    let (addr, limit) = args("127.0.0.1:6379");
    let rt = volt::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let listener = TcpListener::bind(&addr).await?;
        println!("mini_redis listening on {}", listener.local_addr()?);
        // Serve until Ctrl-C, or for a bounded time.
        volt::select! {
            res = serve(listener, Db::default()) => res,
            _ = volt::signal::ctrl_c() => Ok(()),
            _ = volt::time::sleep(limit) => {
                println!("served for {limit:?}; exiting (--seconds N to change)");
                Ok(())
            }
        }
    })
}

/// `[ADDR] [--seconds N]` from the command line (defaults: `default`,
/// 600 s).
fn args(default: &str) -> (String, std::time::Duration) {
    let mut addr = default.to_string();
    let mut secs = 600;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--seconds" => {
                secs = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .expect("--seconds takes a whole number")
            }
            _ => addr = arg,
        }
    }
    (addr, std::time::Duration::from_secs(secs))
}

/// Accepts connections forever, one task each.
pub async fn serve(listener: TcpListener, db: Db) -> std::io::Result<()> {
    loop {
        let (socket, _) = match listener.accept().await {
            Ok(conn) => conn,
            Err(e) => {
                eprintln!("accept error: {e}");
                volt::time::sleep(std::time::Duration::from_millis(10)).await;
                continue;
            }
        };
        let db = db.clone();
        volt::spawn(async move {
            let _ = connection(socket, db).await;
        });
    }
}

/// Serves one client: parse every complete command in the buffer, answer
/// them all in one write, read more.
pub async fn connection(mut socket: TcpStream, db: Db) -> std::io::Result<()> {
    socket.set_nodelay(true)?;
    let mut buf = Vec::with_capacity(4096);
    let mut out = Vec::with_capacity(4096);
    loop {
        let mut start = 0;
        let mut quit = false;
        loop {
            match parse_command(&buf[start..]) {
                Ok(Some((args, used))) => {
                    start += used;
                    if execute(&db, &args, &mut out) {
                        quit = true;
                        break;
                    }
                }
                Ok(None) => break,
                Err(msg) => {
                    out.extend_from_slice(format!("-ERR Protocol error: {msg}\r\n").as_bytes());
                    quit = true;
                    break;
                }
            }
        }
        buf.drain(..start);
        if !out.is_empty() {
            socket.write_all(&out).await?;
            out.clear();
        }
        if quit {
            return socket.shutdown().await;
        }
        if buf.capacity() - buf.len() < 1024 {
            buf.reserve(4096);
        }
        if socket.read_buf(&mut buf).await? == 0 {
            return Ok(());
        }
    }
}

/// Runs one command, appending its reply; returns whether to close.
fn execute(db: &Db, args: &[Vec<u8>], out: &mut Vec<u8>) -> bool {
    let Some(name) = args.first() else {
        return false;
    };
    let name = name.to_ascii_uppercase();
    match (name.as_slice(), args.len()) {
        (b"PING", 1) => out.extend_from_slice(b"+PONG\r\n"),
        (b"PING", 2) | (b"ECHO", 2) => bulk(out, Some(&args[1])),
        (b"GET", 2) => db.with(&args[1], |m| bulk(out, m.get(&args[1]).map(Vec::as_slice))),
        (b"SET", n) if n >= 3 => {
            db.with(&args[1], |m| m.insert(args[1].clone(), args[2].clone()));
            out.extend_from_slice(b"+OK\r\n");
        }
        (b"DEL", n) if n >= 2 => {
            let removed = args[1..]
                .iter()
                .filter(|k| db.with(k, |m| m.remove(*k).is_some()))
                .count();
            integer(out, removed as i64);
        }
        (b"INCR", 2) => {
            let res = db.with(&args[1], |m| {
                let cur = match m.get(&args[1]) {
                    None => 0,
                    Some(v) => match std::str::from_utf8(v)
                        .ok()
                        .and_then(|s| s.parse::<i64>().ok())
                    {
                        Some(n) => n,
                        None => return Err("value is not an integer or out of range"),
                    },
                };
                let next = cur
                    .checked_add(1)
                    .ok_or("increment or decrement would overflow")?;
                m.insert(args[1].clone(), next.to_string().into_bytes());
                Ok(next)
            });
            match res {
                Ok(n) => integer(out, n),
                Err(msg) => error(out, msg),
            }
        }
        (b"FLUSHALL", _) => {
            for shard in db.shards.iter() {
                shard.lock().unwrap_or_else(|e| e.into_inner()).clear();
            }
            out.extend_from_slice(b"+OK\r\n");
        }
        // What redis-benchmark and redis-cli ask on connect.
        (b"CONFIG", 3) if args[1].eq_ignore_ascii_case(b"GET") => {
            let value: &[u8] = match args[2].to_ascii_lowercase().as_slice() {
                b"save" => b"",
                b"appendonly" => b"no",
                _ => {
                    out.extend_from_slice(b"*0\r\n");
                    return false;
                }
            };
            out.extend_from_slice(b"*2\r\n");
            bulk(out, Some(&args[2]));
            bulk(out, Some(value));
        }
        (b"CONFIG", _) | (b"COMMAND", _) => out.extend_from_slice(b"*0\r\n"),
        (b"QUIT", _) => {
            out.extend_from_slice(b"+OK\r\n");
            return true;
        }
        (b"PING" | b"ECHO" | b"GET" | b"SET" | b"DEL" | b"INCR", _) => {
            let msg = format!(
                "wrong number of arguments for '{}' command",
                String::from_utf8_lossy(&name).to_lowercase()
            );
            error(out, &msg);
        }
        _ => {
            let msg = format!("unknown command '{}'", String::from_utf8_lossy(&args[0]));
            error(out, &msg);
        }
    }
    false
}

fn bulk(out: &mut Vec<u8>, v: Option<&[u8]>) {
    match v {
        None => out.extend_from_slice(b"$-1\r\n"),
        Some(v) => {
            out.extend_from_slice(format!("${}\r\n", v.len()).as_bytes());
            out.extend_from_slice(v);
            out.extend_from_slice(b"\r\n");
        }
    }
}

fn integer(out: &mut Vec<u8>, n: i64) {
    out.extend_from_slice(format!(":{n}\r\n").as_bytes());
}

fn error(out: &mut Vec<u8>, msg: &str) {
    out.extend_from_slice(format!("-ERR {msg}\r\n").as_bytes());
}

/// One command from the front of `buf`: `Ok(None)` if incomplete, else
/// the arguments and the bytes used. RESP arrays of bulk strings, or an
/// inline command (space-separated words on one line).
pub fn parse_command(buf: &[u8]) -> Result<Option<Command>, &'static str> {
    let Some(&first) = buf.first() else {
        return Ok(None);
    };
    if first != b'*' {
        let Some(eol) = line_end(buf, 0) else {
            return if buf.len() > 64 * 1024 {
                Err("too big inline request")
            } else {
                Ok(None)
            };
        };
        let line = &buf[..eol];
        let args = line
            .split(|&b| b == b' ')
            .filter(|w| !w.is_empty())
            .map(<[u8]>::to_vec)
            .collect();
        return Ok(Some((args, eol + 2)));
    }
    let Some(eol) = line_end(buf, 1) else {
        return Ok(None);
    };
    let count = number(&buf[1..eol]).ok_or("invalid multibulk length")?;
    if count > MAX_ARRAY {
        return Err("invalid multibulk length");
    }
    let mut pos = eol + 2;
    let mut args = Vec::with_capacity(count);
    for _ in 0..count {
        match buf.get(pos) {
            None => return Ok(None),
            Some(b'$') => {}
            Some(_) => return Err("expected '$'"),
        }
        let Some(eol) = line_end(buf, pos + 1) else {
            return Ok(None);
        };
        let len = number(&buf[pos + 1..eol]).ok_or("invalid bulk length")?;
        if len > MAX_BULK {
            return Err("invalid bulk length");
        }
        let data = eol + 2;
        if buf.len() < data + len + 2 {
            return Ok(None);
        }
        if &buf[data + len..data + len + 2] != b"\r\n" {
            return Err("bulk string not terminated by CRLF");
        }
        args.push(buf[data..data + len].to_vec());
        pos = data + len + 2;
    }
    Ok(Some((args, pos)))
}

/// Index of the `\r\n` at or after `from`.
fn line_end(buf: &[u8], from: usize) -> Option<usize> {
    buf.get(from..)?
        .windows(2)
        .position(|w| w == b"\r\n")
        .map(|i| from + i)
}

fn number(digits: &[u8]) -> Option<usize> {
    std::str::from_utf8(digits).ok()?.parse().ok()
}
