//! The commands: parsed from a frame into a [`Command`], then applied to
//! the [`Db`], writing the reply.
//!
//! Errors in a command (unknown name, wrong arguments, a value that is no
//! integer) get a `-ERR` reply and leave the connection open, as in Redis.

use super::db::{Db, IncrError};
use super::frame::Frame;
use bytes::Bytes;
use std::time::Duration;

/// One client command.
#[derive(Debug, PartialEq)]
pub enum Command {
    Ping(Option<Bytes>),
    Echo(Bytes),
    Get(Bytes),
    Set {
        key: Bytes,
        value: Bytes,
        ttl: Option<Duration>,
    },
    Del(Vec<Bytes>),
    Incr(Bytes),
    Expire {
        key: Bytes,
        ttl: Duration,
    },
    Ttl(Bytes),
    Publish {
        channel: Bytes,
        message: Bytes,
    },
    Subscribe(Vec<Bytes>),
    Unsubscribe(Vec<Bytes>),
    FlushAll,
    /// `CONFIG GET name`: what redis-cli and redis-benchmark ask first.
    ConfigGet(Bytes),
    /// `COMMAND` (and other `CONFIG`s): an empty list satisfies clients.
    Introspect,
    Quit,
}

/// A command the server cannot run: the `-ERR` text.
#[derive(Debug, PartialEq)]
pub struct CommandError(pub String);

impl Command {
    /// The command a request frame (an array of bulk strings) asks for.
    pub fn from_frame(frame: Frame) -> Result<Command, CommandError> {
        let Frame::Array(items) = frame else {
            return Err(CommandError("Protocol error: expected an array".into()));
        };
        let mut args = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Frame::Bulk(b) => args.push(b),
                Frame::Simple(s) => args.push(Bytes::from(s)),
                Frame::Integer(n) => args.push(Bytes::from(n.to_string())),
                _ => return Err(CommandError("Protocol error: expected bulk strings".into())),
            }
        }
        let mut args = args.into_iter();
        let Some(name) = args.next() else {
            return Err(CommandError("empty command".into()));
        };
        let rest: Vec<Bytes> = args.collect();
        let upper = name.to_ascii_uppercase();
        let wrong = || {
            CommandError(format!(
                "wrong number of arguments for '{}' command",
                String::from_utf8_lossy(&upper).to_lowercase()
            ))
        };
        let one = |rest: Vec<Bytes>| -> Result<Bytes, CommandError> {
            let [a]: [Bytes; 1] = rest.try_into().map_err(|_| wrong())?;
            Ok(a)
        };
        Ok(match upper.as_slice() {
            b"PING" if rest.len() <= 1 => Command::Ping(rest.into_iter().next()),
            b"ECHO" => Command::Echo(one(rest)?),
            b"GET" => Command::Get(one(rest)?),
            b"SET" if rest.len() < 2 => return Err(wrong()),
            b"SET" => parse_set(rest).ok_or_else(|| CommandError("syntax error".into()))?,
            b"DEL" if !rest.is_empty() => Command::Del(rest),
            b"INCR" => Command::Incr(one(rest)?),
            b"EXPIRE" => {
                let [key, secs]: [Bytes; 2] = rest.try_into().map_err(|_| wrong())?;
                let secs = integer(&secs)
                    .filter(|&s| s >= 0)
                    .ok_or_else(not_an_integer)?;
                Command::Expire {
                    key,
                    ttl: Duration::from_secs(secs as u64),
                }
            }
            b"TTL" => Command::Ttl(one(rest)?),
            b"PUBLISH" => {
                let [channel, message]: [Bytes; 2] = rest.try_into().map_err(|_| wrong())?;
                Command::Publish { channel, message }
            }
            b"SUBSCRIBE" if !rest.is_empty() => Command::Subscribe(rest),
            b"UNSUBSCRIBE" => Command::Unsubscribe(rest),
            b"FLUSHALL" => Command::FlushAll,
            b"CONFIG" if rest.len() == 2 && rest[0].eq_ignore_ascii_case(b"GET") => {
                Command::ConfigGet(rest[1].clone())
            }
            b"CONFIG" | b"COMMAND" => Command::Introspect,
            b"QUIT" => Command::Quit,
            b"PING" | b"DEL" | b"SUBSCRIBE" => return Err(wrong()),
            _ => {
                return Err(CommandError(format!(
                    "unknown command '{}'",
                    String::from_utf8_lossy(&name)
                )));
            }
        })
    }

    /// Runs a command that needs no connection state (all but `SUBSCRIBE`,
    /// `UNSUBSCRIBE` and `QUIT`, which the connection handles) and returns
    /// its reply.
    pub fn apply(self, db: &Db) -> Frame {
        match self {
            Command::Ping(None) => Frame::Simple("PONG".into()),
            Command::Ping(Some(msg)) | Command::Echo(msg) => Frame::Bulk(msg),
            Command::Get(key) => db.get(&key).map_or(Frame::Null, Frame::Bulk),
            Command::Set { key, value, ttl } => {
                db.set(key, value, ttl);
                Frame::Simple("OK".into())
            }
            Command::Del(keys) => Frame::Integer(db.del(&keys) as i64),
            Command::Incr(key) => match db.incr(&key) {
                Ok(n) => Frame::Integer(n),
                Err(IncrError::NotAnInteger) => not_an_integer().into(),
                Err(IncrError::Overflow) => {
                    CommandError("increment or decrement would overflow".into()).into()
                }
            },
            Command::Expire { key, ttl } => Frame::Integer(db.expire(&key, ttl) as i64),
            Command::Ttl(key) => Frame::Integer(match db.ttl(&key) {
                None => -2,
                Some(None) => -1,
                // Rounded to the nearest second, as Redis does.
                Some(Some(left)) => ((left.as_millis() + 500) / 1000) as i64,
            }),
            Command::Publish { channel, message } => {
                Frame::Integer(db.publish(&channel, message) as i64)
            }
            Command::FlushAll => {
                db.flush_all();
                Frame::Simple("OK".into())
            }
            Command::ConfigGet(name) => {
                let value: &'static [u8] = match name.to_ascii_lowercase().as_slice() {
                    b"save" => b"",
                    b"appendonly" => b"no",
                    _ => return Frame::Array(Vec::new()),
                };
                Frame::Array(vec![Frame::Bulk(name), Frame::bulk(value)])
            }
            Command::Introspect => Frame::Array(Vec::new()),
            Command::Subscribe(_) | Command::Unsubscribe(_) | Command::Quit => {
                unreachable!("handled by the connection")
            }
        }
    }
}

impl From<CommandError> for Frame {
    fn from(e: CommandError) -> Frame {
        Frame::Error(format!("ERR {}", e.0))
    }
}

fn not_an_integer() -> CommandError {
    CommandError("value is not an integer or out of range".into())
}

fn integer(b: &[u8]) -> Option<i64> {
    std::str::from_utf8(b).ok()?.parse().ok()
}

/// `SET key value [EX seconds | PX milliseconds]`.
fn parse_set(rest: Vec<Bytes>) -> Option<Command> {
    let mut it = rest.into_iter();
    let (key, value) = (it.next()?, it.next()?);
    let ttl = match it.next() {
        None => None,
        Some(unit) => {
            let n = integer(&it.next()?).filter(|&n| n > 0)? as u64;
            match unit.to_ascii_uppercase().as_slice() {
                b"EX" => Some(Duration::from_secs(n)),
                b"PX" => Some(Duration::from_millis(n)),
                _ => return None,
            }
        }
    };
    if it.next().is_some() {
        return None;
    }
    Some(Command::Set { key, value, ttl })
}
