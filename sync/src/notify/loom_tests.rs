//! loom models of `Notify`: notify racing registration, a broadcast racing
//! a new `notified()` (the broadcast counts itself without the lock while
//! nobody waits), and a notified waiter dropped racing another.

use super::*;
use crate::bridge::loom::sync::Arc;
use loom::future::block_on;
use loom::thread;

#[test]
fn notify_one_racing_registration() {
    loom::model(|| {
        let notify = Arc::new(Notify::new());
        let n = notify.clone();
        let th = thread::spawn(move || n.notify_one());
        block_on(notify.notified());
        th.join().unwrap();
    });
}

#[test]
fn notify_waiters_vs_a_new_notified() {
    loom::model(|| {
        let notify = Arc::new(Notify::new());
        // Created before the broadcast: must complete.
        let early = notify.clone();
        let fut = early.notified();
        let n = notify.clone();
        let th = thread::spawn(move || n.notify_waiters());
        block_on(fut);
        th.join().unwrap();
        // Created after the broadcast: must not be ready.
        let mut late = Box::pin(notify.notified());
        assert!(!late.as_mut().enable());
    });
}

#[test]
fn dropped_notified_waiter_passes_it_on() {
    loom::model(|| {
        let notify = Arc::new(Notify::new());
        let n = notify.clone();
        let waiter = thread::spawn(move || block_on(n.notified()));
        {
            // A second waiter registers, then goes away; the one
            // notification must reach `waiter` whichever got it first.
            let mut fut = Box::pin(notify.notified());
            let _ = fut.as_mut().enable();
            notify.notify_one();
        }
        waiter.join().unwrap();
    });
}

/// A lock-free broadcast (nobody waiting yet) races a first poll that is
/// entering `WAITING` under the lock, and a `notify_one` storing a permit:
/// the waiter, created before both, completes; the count is never lost
/// (a future created after the broadcast is not woken by it).
#[test]
fn notify_waiters_without_the_lock_races_registration_and_notify_one() {
    loom::model(|| {
        let notify = Arc::new(Notify::new());
        let fut = notify.notified();
        let n = notify.clone();
        let broadcast = thread::spawn(move || n.notify_waiters());
        let n = notify.clone();
        let one = thread::spawn(move || n.notify_one());
        block_on(fut);
        broadcast.join().unwrap();
        one.join().unwrap();
        // At most the one permit of `notify_one` is left, never a
        // broadcast: two new futures cannot both be ready.
        let mut a = Box::pin(notify.notified());
        let mut b = Box::pin(notify.notified());
        assert!(!(a.as_mut().enable() && b.as_mut().enable()));
    });
}
