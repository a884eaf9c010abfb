//! The key space: values with optional expiry times, and the pub/sub
//! channels.
//!
//! One `std::sync::Mutex` guards it all, held only for a map operation,
//! never across an `.await` (so a blocking mutex is right here, as in
//! tokio's mini-redis). Expired keys are removed lazily (a read of an
//! expired key finds nothing) and by a background task that sleeps until
//! the next expiry time: the runtime's timer at work. Pub/sub channels are
//! `volt::sync::broadcast` channels, one per name, made on the first
//! `SUBSCRIBE` and dropped when a `PUBLISH` finds nobody listening.

use bytes::Bytes;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use volt::sync::{Notify, broadcast};
use volt::time::Instant;

/// Messages a subscriber may fall behind by before it misses some.
const CHANNEL_CAPACITY: usize = 1024;

/// A handle to the shared key space; clone it for each connection. The
/// purge task stops when the last handle made by [`Db::new`]'s caller
/// (a [`DbDropGuard`]) is dropped.
#[derive(Clone, Debug)]
pub struct Db {
    shared: Arc<Shared>,
}

/// Owns the key space's background task: dropping it stops the task.
#[derive(Debug)]
pub struct DbDropGuard {
    db: Db,
}

#[derive(Debug)]
struct Shared {
    state: Mutex<State>,
    /// Wakes the purge task: a new earliest expiry, or shutdown.
    purge: Notify,
}

#[derive(Debug, Default)]
struct State {
    entries: HashMap<Bytes, Entry>,
    /// Every key with an expiry, ordered by when.
    expirations: BTreeSet<(Instant, Bytes)>,
    channels: HashMap<Bytes, broadcast::Sender<Bytes>>,
    shutdown: bool,
}

#[derive(Debug)]
struct Entry {
    value: Bytes,
    expires_at: Option<Instant>,
}

/// Why `INCR` failed.
#[derive(Debug, PartialEq)]
pub enum IncrError {
    NotAnInteger,
    Overflow,
}

impl DbDropGuard {
    /// A new key space, and its purge task on the current runtime.
    pub fn new() -> DbDropGuard {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            purge: Notify::new(),
        });
        volt::spawn(purge_expired_keys(shared.clone()));
        DbDropGuard { db: Db { shared } }
    }

    pub fn db(&self) -> Db {
        self.db.clone()
    }
}

impl Default for DbDropGuard {
    fn default() -> Self {
        DbDropGuard::new()
    }
}

impl Drop for DbDropGuard {
    fn drop(&mut self) {
        self.db.shared.lock().shutdown = true;
        self.db.shared.purge.notify_one();
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic elsewhere while holding the lock leaves the maps whole.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    /// The live entry for `key` (an expired one counts as missing).
    fn live(&self, key: &[u8], now: Instant) -> Option<&Entry> {
        self.entries
            .get(key)
            .filter(|e| e.expires_at.is_none_or(|t| t > now))
    }

    /// Sets `key`'s expiry (`None`: keep it forever); returns whether it
    /// is now the earliest, so the purge task must wake up.
    fn set_expiry(&mut self, key: &Bytes, when: Option<Instant>) -> bool {
        let Some(entry) = self.entries.get_mut(key) else {
            return false;
        };
        if let Some(old) = entry.expires_at.take() {
            self.expirations.remove(&(old, key.clone()));
        }
        entry.expires_at = when;
        let Some(when) = when else {
            return false;
        };
        let earliest = self.expirations.first().is_none_or(|(t, _)| when < *t);
        self.expirations.insert((when, key.clone()));
        earliest
    }

    fn remove(&mut self, key: &[u8]) -> bool {
        match self.entries.remove(key) {
            Some(entry) => {
                if let Some(when) = entry.expires_at {
                    self.expirations
                        .remove(&(when, Bytes::copy_from_slice(key)));
                }
                true
            }
            None => false,
        }
    }
}

impl Db {
    pub fn get(&self, key: &[u8]) -> Option<Bytes> {
        let state = self.shared.lock();
        state.live(key, Instant::now()).map(|e| e.value.clone())
    }

    /// Sets `key` to `value`, expiring after `ttl` if given (a `SET`
    /// without one removes an earlier expiry, as Redis does).
    pub fn set(&self, key: Bytes, value: Bytes, ttl: Option<Duration>) {
        let mut state = self.shared.lock();
        state.remove(&key);
        state.entries.insert(
            key.clone(),
            Entry {
                value,
                expires_at: None,
            },
        );
        let wake = state.set_expiry(&key, ttl.map(|d| Instant::now() + d));
        drop(state);
        if wake {
            self.shared.purge.notify_one();
        }
    }

    /// Removes the keys; returns how many there were.
    pub fn del(&self, keys: &[Bytes]) -> usize {
        let mut state = self.shared.lock();
        let now = Instant::now();
        keys.iter()
            .filter(|k| {
                let live = state.live(k, now).is_some();
                state.remove(k) && live
            })
            .count()
    }

    /// Adds one to the integer at `key` (0 if missing), keeping its expiry.
    pub fn incr(&self, key: &Bytes) -> Result<i64, IncrError> {
        let mut state = self.shared.lock();
        let now = Instant::now();
        let current = match state.live(key, now) {
            None => 0,
            Some(e) => std::str::from_utf8(&e.value)
                .ok()
                .and_then(|s| s.parse::<i64>().ok())
                .ok_or(IncrError::NotAnInteger)?,
        };
        let next = current.checked_add(1).ok_or(IncrError::Overflow)?;
        let value = Bytes::from(next.to_string());
        match state.entries.get_mut(key) {
            Some(e) if e.expires_at.is_none_or(|t| t > now) => e.value = value,
            _ => {
                state.remove(key);
                state.entries.insert(
                    key.clone(),
                    Entry {
                        value,
                        expires_at: None,
                    },
                );
            }
        }
        Ok(next)
    }

    /// Sets a live key to expire after `ttl`; false if there is no such key.
    pub fn expire(&self, key: &Bytes, ttl: Duration) -> bool {
        let mut state = self.shared.lock();
        if state.live(key, Instant::now()).is_none() {
            return false;
        }
        let wake = state.set_expiry(key, Some(Instant::now() + ttl));
        drop(state);
        if wake {
            self.shared.purge.notify_one();
        }
        true
    }

    /// `None` if the key is missing, `Some(None)` if it never expires,
    /// else the time it has left.
    pub fn ttl(&self, key: &[u8]) -> Option<Option<Duration>> {
        let state = self.shared.lock();
        let now = Instant::now();
        state
            .live(key, now)
            .map(|e| e.expires_at.map(|t| t.duration_since(now)))
    }

    /// Empties the key space (channels and their subscribers stay).
    pub fn flush_all(&self) {
        let mut state = self.shared.lock();
        state.entries.clear();
        state.expirations.clear();
    }

    /// A receiver of `channel`'s messages.
    pub fn subscribe(&self, channel: Bytes) -> broadcast::Receiver<Bytes> {
        let mut state = self.shared.lock();
        state
            .channels
            .entry(channel)
            .or_insert_with(|| broadcast::channel(CHANNEL_CAPACITY).0)
            .subscribe()
    }

    /// Sends `message` to `channel`'s subscribers; returns how many there
    /// are.
    pub fn publish(&self, channel: &[u8], message: Bytes) -> usize {
        let mut state = self.shared.lock();
        let Some(tx) = state.channels.get(channel) else {
            return 0;
        };
        match tx.send(message) {
            Ok(n) => n,
            Err(_) => {
                // Nobody listens any more: forget the channel.
                state.channels.remove(channel);
                0
            }
        }
    }

    /// Whether no live key is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Live keys (for tests and `DBSIZE`-like checks).
    pub fn len(&self) -> usize {
        let state = self.shared.lock();
        let now = Instant::now();
        state
            .entries
            .values()
            .filter(|e| e.expires_at.is_none_or(|t| t > now))
            .count()
    }

    /// Keys stored, expired ones not purged yet included.
    pub fn stored(&self) -> usize {
        self.shared.lock().entries.len()
    }
}

/// Removes expired keys; returns the next expiry time, if any (`None`
/// also once shut down).
fn purge(shared: &Shared) -> Option<Instant> {
    let mut state = shared.lock();
    if state.shutdown {
        return None;
    }
    let now = Instant::now();
    while let Some((when, key)) = state.expirations.first().cloned() {
        if when > now {
            return Some(when);
        }
        state.expirations.pop_first();
        state.entries.remove(&key);
    }
    None
}

/// The background task: purge, then sleep until the next expiry or a
/// notification, until shut down.
async fn purge_expired_keys(shared: Arc<Shared>) {
    loop {
        let notified = shared.purge.notified();
        match purge(&shared) {
            Some(when) => {
                volt::select! {
                    _ = volt::time::sleep_until(when) => {}
                    _ = notified => {}
                }
            }
            None if shared.lock().shutdown => return,
            None => notified.await,
        }
    }
}
