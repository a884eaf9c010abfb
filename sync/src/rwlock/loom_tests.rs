//! loom models of the `RwLock` protocol on top of the batch semaphore: a
//! reader takes one permit, a writer all of them (two under these models,
//! so that a writer can hold some permits while it waits for the rest).
//!
//! The value lives in a loom `UnsafeCell`: a writer overlapping a reader or
//! another writer is reported by loom as a data race, so every model also
//! checks mutual exclusion, not only the counts it asserts.

use super::*;

use loom::future::block_on;
use loom::thread;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Waker};

/// Two readers and a writer: the writer gets in only when both readers
/// are gone (it may hold the first reader's permit while it waits for the
/// second), readers see either the old or the new value, never a torn one.
#[test]
fn readers_and_a_writer_exclude_each_other() {
    loom::model(|| {
        let lock = Arc::new(RwLock::with_max_readers(0u32, 2));
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let lock = lock.clone();
                thread::spawn(move || {
                    let value = *block_on(lock.read());
                    assert!(value == 0 || value == 1);
                })
            })
            .collect();
        *block_on(lock.write()) += 1;
        for reader in readers {
            reader.join().unwrap();
        }
        assert_eq!(*lock.try_read().unwrap(), 1);
    });
}

/// A reader queued behind a writer gets in when the writer downgrades
/// (the downgrade hands back all permits but one), while the downgraded
/// guard still reads.
#[test]
fn downgrade_lets_a_waiting_reader_in() {
    loom::model(|| {
        let lock = Arc::new(RwLock::with_max_readers(0u32, 2));
        let mut guard = block_on(lock.write());
        let reader = {
            let lock = lock.clone();
            thread::spawn(move || *block_on(lock.read()))
        };
        *guard = 7;
        let read = guard.downgrade();
        // Both read at once: the reader thread joins while we hold ours.
        assert_eq!(reader.join().unwrap(), 7);
        assert_eq!(*read, 7);
        drop(read);
        assert!(lock.try_write().is_ok());
    });
}

/// A writer that gave up (its future dropped while it held some permits
/// and waited for the rest) gives back what it had: a later writer gets
/// the lock once the reader leaves, whatever the interleaving.
#[test]
fn cancelled_writer_returns_its_partial_permits() {
    loom::model(|| {
        let lock = Arc::new(RwLock::with_max_readers(0u32, 2));
        let read = block_on(lock.clone().read_owned());
        let releaser = thread::spawn(move || drop(read));
        {
            // Takes the free permit (and the reader's, if it is gone), then
            // waits for the rest; dropped here either way.
            let mut write = pin!(lock.write());
            let _ = write.as_mut().poll(&mut Context::from_waker(Waker::noop()));
        }
        releaser.join().unwrap();
        let mut guard = lock.try_write().expect("every permit came back");
        *guard += 1;
    });
}

/// `try_read` racing a writer's release never observes a half-released
/// lock as free for writing while a reader is in.
#[test]
fn try_read_racing_a_write_release() {
    loom::model(|| {
        let lock = Arc::new(RwLock::with_max_readers(0u32, 2));
        let guard = block_on(lock.clone().write_owned());
        let other = {
            let lock = lock.clone();
            thread::spawn(move || {
                if let Ok(read) = lock.try_read() {
                    assert_eq!(*read, 1);
                }
            })
        };
        let mut guard = guard;
        *guard = 1;
        drop(guard);
        other.join().unwrap();
        assert!(lock.try_write().is_ok());
    });
}
