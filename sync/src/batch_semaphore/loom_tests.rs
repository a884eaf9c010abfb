//! loom models of the batch semaphore: the fast slot against releases,
//! cancellation and close, and the slot plus the list together.
//!
//! Each model checks that no wake-up is lost (a lost one deadlocks, which
//! loom reports) and that permits are conserved.

use super::*;
use crate::bridge::loom::sync::Arc;

use loom::future::block_on;
use loom::thread;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Waker};

#[test]
fn acquire_vs_release_through_the_fast_slot() {
    loom::model(|| {
        let sem = Arc::new(Semaphore::new(0));
        let s = sem.clone();
        let releaser = thread::spawn(move || s.release(1));
        block_on(sem.acquire(1)).unwrap();
        releaser.join().unwrap();
        assert_eq!(sem.available_permits(), 0);
        sem.release(1);
        assert_eq!(sem.available_permits(), 1);
    });
}

#[test]
fn slot_and_list_waiters_are_both_served() {
    loom::model(|| {
        let sem = Arc::new(Semaphore::new(0));
        let s = sem.clone();
        let other = thread::spawn(move || {
            block_on(s.acquire(1)).unwrap();
        });
        let s = sem.clone();
        let releaser = thread::spawn(move || {
            s.release(1);
            s.release(1);
        });
        block_on(sem.acquire(1)).unwrap();
        other.join().unwrap();
        releaser.join().unwrap();
        assert_eq!(sem.available_permits(), 0);
    });
}

#[test]
fn cancellation_racing_a_release_conserves_permits() {
    loom::model(|| {
        let sem = Arc::new(Semaphore::new(0));
        let s = sem.clone();
        let releaser = thread::spawn(move || s.release(2));
        {
            // Queue (in the fast slot), then give up.
            let mut acq = pin!(sem.acquire(3));
            let _ = acq.as_mut().poll(&mut Context::from_waker(Waker::noop()));
        }
        releaser.join().unwrap();
        // Whatever the interleaving, the 2 permits are back.
        assert_eq!(sem.available_permits(), 2);
    });
}

#[test]
fn cancellation_of_the_head_hands_permits_to_the_next() {
    loom::model(|| {
        let sem = Arc::new(Semaphore::new(1));
        let s = sem.clone();
        let next = thread::spawn(move || {
            block_on(s.acquire(1)).unwrap();
        });
        {
            // May get the permit, or queue for 2 and then cancel.
            let mut acq = pin!(sem.acquire(2));
            let _ = acq.as_mut().poll(&mut Context::from_waker(Waker::noop()));
        }
        next.join().unwrap();
        assert_eq!(sem.available_permits(), 0);
    });
}

#[test]
fn close_racing_acquire() {
    loom::model(|| {
        let sem = Arc::new(Semaphore::new(0));
        let s = sem.clone();
        let closer = thread::spawn(move || {
            s.release(1);
            s.close();
        });
        let res = block_on(sem.acquire(2));
        assert!(res.is_err());
        closer.join().unwrap();
        // The permit taken on the way was handed back.
        assert_eq!(sem.available_permits(), 1);
    });
}

/// A release racing a close while a waiter sits in the fast slot (not
/// polled again): the permit ends up available, served to the waiter
/// (which hands it back when it fails) or not, and nothing spins.
#[test]
fn release_racing_close_with_a_parked_slot_waiter() {
    loom::model(|| {
        let sem = Arc::new(Semaphore::new(0));
        let mut acq = pin!(sem.acquire(1));
        let cx = &mut Context::from_waker(Waker::noop());
        assert!(acq.as_mut().poll(cx).is_pending());
        let s = sem.clone();
        let closer = thread::spawn(move || s.close());
        sem.release(1);
        closer.join().unwrap();
        assert!(acq.as_mut().poll(cx).is_ready());
        assert_eq!(sem.available_permits(), 1);
    });
}

#[test]
fn try_acquire_racing_a_waiter_loses_nothing() {
    loom::model(|| {
        let sem = Arc::new(Semaphore::new(0));
        let s = sem.clone();
        let waiter = thread::spawn(move || {
            block_on(s.acquire(1)).unwrap();
        });
        let s = sem.clone();
        let releaser = thread::spawn(move || s.release(1));
        // Either the permit is still in the counter (nobody queued yet) or
        // it went to the waiter: a successful try_acquire means the waiter
        // must get the second release.
        let got = sem.try_acquire(1).is_ok();
        releaser.join().unwrap();
        if got {
            sem.release(1);
        }
        waiter.join().unwrap();
        assert_eq!(sem.available_permits(), 0);
    });
}

/// A list waiter that polls without being woken (a spurious poll) may see
/// itself served and free its node at once: the releaser must be done with
/// the node before it publishes the grant (regression: it once unlinked
/// the node after, touching freed memory).
#[test]
fn list_waiter_completing_on_a_spurious_poll() {
    loom::model(|| {
        let sem = Arc::new(Semaphore::new(0));
        // Occupy the fast slot so the next waiter goes to the list.
        let mut first = Box::pin(sem.acquire(1));
        let _ = first.as_mut().poll(&mut Context::from_waker(Waker::noop()));
        let s = sem.clone();
        let listed = thread::spawn(move || {
            let mut acq = Box::pin(s.acquire(1));
            // Poll in a loop with a no-op waker: completion is only seen
            // by polling, racing the releaser.
            while acq
                .as_mut()
                .poll(&mut Context::from_waker(Waker::noop()))
                .is_pending()
            {
                thread::yield_now();
            }
            drop(acq);
        });
        sem.release(2);
        listed.join().unwrap();
        drop(first);
    });
}

/// `close` with nobody queued skips the wake-ups (invariant 1): an
/// acquirer that is about to queue must still see the close and fail,
/// never sleep.
#[test]
fn close_with_no_waiter_racing_a_queueing_acquire() {
    loom::model(|| {
        let sem = Arc::new(Semaphore::new(0));
        let s = sem.clone();
        let closer = thread::spawn(move || s.close());
        assert!(block_on(sem.acquire(1)).is_err());
        closer.join().unwrap();
    });
}

/// `close` without the mutex (nobody queued) races an acquire that takes
/// part of what it needs and queues for the rest: either the close sees
/// `WAITERS` and wakes it, or the acquirer sees `CLOSED` before it queues.
/// It fails either way, and the permit it took on the way is handed back.
#[test]
fn lock_free_close_racing_a_partial_acquire() {
    loom::model(|| {
        let sem = Arc::new(Semaphore::new(1));
        let s = sem.clone();
        let closer = thread::spawn(move || s.close());
        assert!(block_on(sem.acquire(2)).is_err());
        closer.join().unwrap();
        assert!(sem.is_closed());
        assert_eq!(sem.available_permits(), 1);
    });
}
