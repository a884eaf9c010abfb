//! loom models of the oneshot protocol: every race between the two
//! sides, each checked for a leak, a double free and a use after free
//! (`Inner::freed`).

use super::*;
use loom::future::block_on;
use loom::sync::Arc;
use loom::thread;

/// Both handles drop at once: exactly one of them frees the block
/// (loom's leak check and its cell tracking catch none or both).
#[test]
fn both_sides_drop_at_once() {
    loom::model(|| {
        let (tx, rx) = channel::<Arc<()>>();
        let t = thread::spawn(move || drop(tx));
        drop(rx);
        t.join().unwrap();
    });
}

/// The receiver has registered its waker, so the sender wakes it and
/// lets go in a second step, racing the receiver taking the value and
/// letting go.
#[test]
fn waiting_receiver_races_the_waking_sender() {
    loom::model(|| {
        let (tx, mut rx) = channel::<Arc<()>>();
        let v = Arc::new(());
        let first = Pin::new(&mut rx).poll(&mut Context::from_waker(std::task::Waker::noop()));
        assert!(first.is_pending());
        let v2 = v.clone();
        let t = thread::spawn(move || tx.send(v2).is_ok());
        let got = match rx.try_recv() {
            Ok(got) => Some(got),
            Err(TryRecvError::Empty) => {
                drop(rx);
                None
            }
            Err(TryRecvError::Closed) => unreachable!("the sender sends"),
        };
        let sent = t.join().unwrap();
        // Received, or dropped before the send (which then failed), or
        // dropped after it (the value dropped with the receiver).
        assert!(sent || got.is_none());
        drop(got);
        assert_eq!(Arc::strong_count(&v), 1);
    });
}

/// The sender waits in `closed()` and is dropped on its thread while
/// the receiver drops (and wakes it) on another.
#[test]
fn closed_sender_drop_races_receiver_drop() {
    loom::model(|| {
        let (mut tx, rx) = channel::<u32>();
        let t = thread::spawn(move || {
            let _ = tx.poll_closed(&mut Context::from_waker(std::task::Waker::noop()));
            drop(tx);
        });
        drop(rx);
        t.join().unwrap();
    });
}

#[test]
fn send_races_the_receiver() {
    loom::model(|| {
        let (tx, rx) = channel::<u32>();
        let t = thread::spawn(move || tx.send(1));
        assert_eq!(block_on(rx), Ok(1));
        assert_eq!(t.join().unwrap(), Ok(()));
    });
}

#[test]
fn sender_dropped_without_sending_wakes_the_receiver() {
    loom::model(|| {
        let (tx, rx) = channel::<u32>();
        let t = thread::spawn(move || drop(tx));
        assert_eq!(block_on(rx), Err(RecvError(())));
        t.join().unwrap();
    });
}

/// The receiver drops while the sender sends: either the send fails
/// and returns the value, or it succeeds and the receiver drops it;
/// never both, never neither.
#[test]
fn send_races_receiver_drop() {
    loom::model(|| {
        let (tx, rx) = channel::<Arc<()>>();
        let v = Arc::new(());
        let v2 = v.clone();
        let t = thread::spawn(move || tx.send(v2).is_ok());
        drop(rx);
        let _sent = t.join().unwrap();
        // Either way the clone is gone again.
        assert_eq!(Arc::strong_count(&v), 1);
    });
}

/// The receiver re-registers with a different waker (it moved to
/// another task) while the sender completes: the second waker is woken,
/// or the second poll sees the value; the cell is never written while
/// the sender reads it (loom checks the cell accesses).
#[test]
fn reregistration_races_the_send() {
    loom::model(|| {
        let (tx, mut rx) = channel::<u32>();
        let t = thread::spawn(move || tx.send(1));
        let mut rx_ref = std::pin::pin!(&mut rx);
        let first = rx_ref
            .as_mut()
            .poll(&mut Context::from_waker(std::task::Waker::noop()));
        if first.is_pending() {
            // A different waker: the cell is taken back and rewritten.
            assert_eq!(block_on(rx_ref), Ok(1));
        } else {
            assert_eq!(first, Poll::Ready(Ok(1)));
        }
        assert_eq!(t.join().unwrap(), Ok(()));
    });
}

/// The sender's `closed()` re-registers while the receiver drops.
#[test]
fn closed_reregistration_races_receiver_drop() {
    loom::model(|| {
        let (mut tx, rx) = channel::<u32>();
        let t = thread::spawn(move || drop(rx));
        let first = tx.poll_closed(&mut Context::from_waker(std::task::Waker::noop()));
        if first.is_pending() {
            block_on(tx.closed());
        }
        assert!(tx.is_closed());
        t.join().unwrap();
    });
}

#[test]
fn closed_wakes_on_receiver_drop() {
    loom::model(|| {
        let (mut tx, rx) = channel::<u32>();
        let t = thread::spawn(move || drop(rx));
        block_on(tx.closed());
        assert!(tx.is_closed());
        t.join().unwrap();
    });
}
