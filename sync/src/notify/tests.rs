//! Notify semantics, polled by hand.

use super::*;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::task::{Context, Poll, Wake};

struct Flag(AtomicUsize);

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, SeqCst);
    }
}

fn flag() -> (Arc<Flag>, Waker) {
    let f = Arc::new(Flag(AtomicUsize::new(0)));
    let w = Waker::from(f.clone());
    (f, w)
}

fn poll<F: Future + ?Sized>(fut: Pin<&mut F>, waker: &Waker) -> Poll<F::Output> {
    fut.poll(&mut Context::from_waker(waker))
}

#[test]
fn permit_is_stored_once() {
    let notify = Notify::new();
    notify.notify_one();
    notify.notify_one();
    let (_f, w) = flag();
    let mut a = Box::pin(notify.notified());
    assert!(poll(a.as_mut(), &w).is_ready());
    let mut b = Box::pin(notify.notified());
    assert!(poll(b.as_mut(), &w).is_pending(), "only one permit");
}

#[test]
fn notify_one_is_fifo_and_notify_last_is_lifo() {
    let notify = Notify::new();
    let (fa, wa) = flag();
    let (fb, wb) = flag();
    let (fc, wc) = flag();
    let mut a = Box::pin(notify.notified());
    let mut b = Box::pin(notify.notified());
    let mut c = Box::pin(notify.notified());
    assert!(poll(a.as_mut(), &wa).is_pending());
    assert!(poll(b.as_mut(), &wb).is_pending());
    assert!(poll(c.as_mut(), &wc).is_pending());
    notify.notify_one();
    assert_eq!(
        (fa.0.load(SeqCst), fb.0.load(SeqCst), fc.0.load(SeqCst)),
        (1, 0, 0)
    );
    notify.notify_last();
    assert_eq!((fb.0.load(SeqCst), fc.0.load(SeqCst)), (0, 1));
    assert!(poll(a.as_mut(), &wa).is_ready());
    assert!(poll(c.as_mut(), &wc).is_ready());
    assert!(poll(b.as_mut(), &wb).is_pending());
}

#[test]
fn dropped_notified_waiter_passes_the_notification_on() {
    let notify = Notify::new();
    let (_fa, wa) = flag();
    let (fb, wb) = flag();
    let mut a = Box::pin(notify.notified());
    let mut b = Box::pin(notify.notified());
    assert!(poll(a.as_mut(), &wa).is_pending());
    assert!(poll(b.as_mut(), &wb).is_pending());
    notify.notify_one();
    // `a` got it but is dropped before seeing it: `b` gets it.
    drop(a);
    assert_eq!(fb.0.load(SeqCst), 1);
    assert!(poll(b.as_mut(), &wb).is_ready());
}

#[test]
fn dropped_notified_last_waiter_stores_the_permit() {
    let notify = Notify::new();
    let (_fa, wa) = flag();
    let mut a = Box::pin(notify.notified());
    assert!(poll(a.as_mut(), &wa).is_pending());
    notify.notify_one();
    drop(a);
    let mut b = Box::pin(notify.notified());
    assert!(poll(b.as_mut(), &wa).is_ready(), "permit kept");
}

#[test]
fn notify_waiters_wakes_created_futures_even_unpolled() {
    let notify = Notify::new();
    let (f, w) = flag();
    let mut polled = Box::pin(notify.notified());
    assert!(poll(polled.as_mut(), &w).is_pending());
    let mut unpolled = Box::pin(notify.notified());
    notify.notify_waiters();
    assert_eq!(f.0.load(SeqCst), 1);
    assert!(poll(polled.as_mut(), &w).is_ready());
    assert!(poll(unpolled.as_mut(), &w).is_ready());
    // No permit is stored, and later futures wait.
    let mut later = Box::pin(notify.notified());
    assert!(poll(later.as_mut(), &w).is_pending());
}

#[test]
fn notify_waiters_over_many_batches_with_cancellations() {
    let notify = Notify::new();
    let (f, w) = flag();
    let mut futs: Vec<_> = (0..100).map(|_| Box::pin(notify.notified())).collect();
    for fut in &mut futs {
        assert!(poll(fut.as_mut(), &w).is_pending());
    }
    // Drop some before the broadcast.
    futs.truncate(70);
    notify.notify_waiters();
    assert_eq!(f.0.load(SeqCst), 70);
    for fut in &mut futs {
        assert!(poll(fut.as_mut(), &w).is_ready());
    }
}

#[test]
fn enable_registers_without_a_waker() {
    let notify = Notify::new();
    let mut fut = Box::pin(notify.notified());
    assert!(!fut.as_mut().enable());
    notify.notify_one();
    assert!(fut.as_mut().enable());
    let (_f, w) = flag();
    assert!(poll(fut.as_mut(), &w).is_ready());
}

#[test]
fn owned_notified_works_like_notified() {
    let notify = Arc::new(Notify::new());
    let (f, w) = flag();
    let mut fut = Box::pin(notify.clone().notified_owned());
    assert!(poll(fut.as_mut(), &w).is_pending());
    notify.notify_one();
    assert_eq!(f.0.load(SeqCst), 1);
    assert!(poll(fut.as_mut(), &w).is_ready());
    assert!(poll(fut.as_mut(), &w).is_ready(), "fused");
}
