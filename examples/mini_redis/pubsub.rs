//! Subscriber mode: after `SUBSCRIBE`, the connection forwards messages
//! published on its channels and accepts only subscription commands,
//! `PING` and `QUIT`, until it has no channel left.
//!
//! Each subscription is a task that receives from the channel's
//! `broadcast` receiver and forwards into this connection's `mpsc`
//! channel; the connection `select!`s between that and the next request.
//! A subscriber too slow to keep up skips the messages it lagged behind
//! on (`RecvError::Lagged`) instead of holding them all.

use super::cmd::{Command, CommandError};
use super::connection::Connection;
use super::db::Db;
use super::frame::Frame;
use bytes::Bytes;
use std::collections::HashMap;
use std::io;
use volt::sync::{broadcast, mpsc};
use volt::task::JoinHandle;

/// Messages forwarded and not yet written.
const FORWARD_BUFFER: usize = 64;

/// How subscriber mode ended.
#[derive(Debug)]
pub enum Ended {
    /// No channel left: back to normal commands.
    Unsubscribed,
    /// The client quit or closed the connection.
    Closed,
}

/// A forwarding task, aborted when the subscription ends.
struct Forwarder(JoinHandle<()>);

impl Drop for Forwarder {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Runs subscriber mode, starting with `channels`.
pub async fn subscribed(conn: &mut Connection, db: &Db, channels: Vec<Bytes>) -> io::Result<Ended> {
    let (tx, mut rx) = mpsc::channel::<(Bytes, Bytes)>(FORWARD_BUFFER);
    let mut subs: HashMap<Bytes, Forwarder> = HashMap::new();
    subscribe(conn, db, &tx, &mut subs, channels);
    loop {
        if conn.over_limit() {
            conn.flush().await?;
        }
        // Both branches are cancel safe: `recv`, and `read_frame`, which
        // keeps its progress in the connection.
        volt::select! {
            Some((channel, message)) = rx.recv() => {
                conn.write_frame(&Frame::Array(vec![
                    Frame::bulk("message"),
                    Frame::Bulk(channel),
                    Frame::Bulk(message),
                ]));
            }
            frame = conn.read_frame() => {
                let Some(frame) = frame? else {
                    return Ok(Ended::Closed);
                };
                match Command::from_frame(frame) {
                    Ok(Command::Subscribe(channels)) => subscribe(conn, db, &tx, &mut subs, channels),
                    Ok(Command::Unsubscribe(channels)) => {
                        let channels = if channels.is_empty() {
                            // All of them, in a stable order.
                            let mut all: Vec<Bytes> = subs.keys().cloned().collect();
                            all.sort();
                            all
                        } else {
                            channels
                        };
                        for channel in channels {
                            subs.remove(&channel);
                            conn.write_frame(&Frame::Array(vec![
                                Frame::bulk("unsubscribe"),
                                Frame::Bulk(channel),
                                Frame::Integer(subs.len() as i64),
                            ]));
                        }
                        if subs.is_empty() {
                            return Ok(Ended::Unsubscribed);
                        }
                    }
                    Ok(Command::Ping(msg)) => conn.write_frame(&Frame::Array(vec![
                        Frame::bulk("pong"),
                        Frame::Bulk(msg.unwrap_or_default()),
                    ])),
                    Ok(Command::Quit) => {
                        conn.write_frame(&Frame::Simple("OK".into()));
                        return Ok(Ended::Closed);
                    }
                    Ok(other) => conn.write_frame(&CommandError(format!(
                        "Can't execute '{}': only SUBSCRIBE / UNSUBSCRIBE / PING / QUIT are allowed in this context",
                        name(&other)
                    )).into()),
                    Err(e) => conn.write_frame(&e.into()),
                }
            }
        }
    }
}

/// Subscribes to each channel not subscribed yet; replies for each.
fn subscribe(
    conn: &mut Connection,
    db: &Db,
    tx: &mpsc::Sender<(Bytes, Bytes)>,
    subs: &mut HashMap<Bytes, Forwarder>,
    channels: Vec<Bytes>,
) {
    for channel in channels {
        if !subs.contains_key(&channel) {
            let rx = db.subscribe(channel.clone());
            let task = volt::spawn(forward(rx, channel.clone(), tx.clone()));
            subs.insert(channel.clone(), Forwarder(task));
        }
        conn.write_frame(&Frame::Array(vec![
            Frame::bulk("subscribe"),
            Frame::Bulk(channel),
            Frame::Integer(subs.len() as i64),
        ]));
    }
}

/// Forwards one channel's messages until the connection goes away.
async fn forward(
    mut rx: broadcast::Receiver<Bytes>,
    channel: Bytes,
    tx: mpsc::Sender<(Bytes, Bytes)>,
) {
    loop {
        match rx.recv().await {
            Ok(message) => {
                if tx.send((channel.clone(), message)).await.is_err() {
                    return;
                }
            }
            Err(broadcast::error::RecvError::Lagged(_)) => continue,
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}

fn name(cmd: &Command) -> String {
    let debug = format!("{cmd:?}");
    debug
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("")
        .to_lowercase()
}
