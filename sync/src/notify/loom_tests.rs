//! loom models of `Notify`: notify racing registration, a broadcast racing
//! a new `notified()`, and a notified waiter dropped racing another.

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
