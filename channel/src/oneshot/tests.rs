//! Every way the two sides let go of the block, single-threaded, so Miri
//! (CI runs this crate's unit tests under it) checks each path for a leak,
//! a double free or a use after free; loom checks the races (`loom_tests.rs`).

use super::*;
use std::sync::Arc;
use std::task::Waker;

fn noop_cx() -> Context<'static> {
    Context::from_waker(Waker::noop())
}

/// A value that counts its live copies.
fn tracked() -> (Arc<()>, Arc<()>) {
    let v = Arc::new(());
    (v.clone(), v)
}

#[test]
fn send_then_receive_frees_on_the_receiver() {
    let (v, probe) = tracked();
    let (tx, mut rx) = channel();
    assert!(tx.send(v).is_ok());
    assert!(rx.try_recv().is_ok());
    assert!(rx.is_terminated());
    assert_eq!(Arc::strong_count(&probe), 1);
}

#[test]
fn waiting_receiver_then_send() {
    let (v, probe) = tracked();
    let (tx, mut rx) = channel();
    assert!(Pin::new(&mut rx).poll(&mut noop_cx()).is_pending());
    // RX_WAITING: the sender wakes, then lets go in a second step.
    assert!(tx.send(v).is_ok());
    assert!(matches!(
        Pin::new(&mut rx).poll(&mut noop_cx()),
        Poll::Ready(Ok(_))
    ));
    drop(rx);
    assert_eq!(Arc::strong_count(&probe), 1);
}

#[test]
fn receiver_dropped_with_an_unreceived_value() {
    let (v, probe) = tracked();
    let (tx, rx) = channel();
    assert!(tx.send(v).is_ok());
    drop(rx);
    assert_eq!(Arc::strong_count(&probe), 1);
}

#[test]
fn send_after_the_receiver_is_gone() {
    let (v, probe) = tracked();
    let (tx, rx) = channel();
    drop(rx);
    let back = tx.send(v).expect_err("the receiver is gone");
    drop(back);
    assert_eq!(Arc::strong_count(&probe), 1);
}

#[test]
fn send_after_close_then_receiver_drop() {
    let (v, probe) = tracked();
    let (tx, mut rx) = channel();
    rx.close();
    assert!(tx.send(v).is_err());
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    drop(rx);
    assert_eq!(Arc::strong_count(&probe), 1);
}

#[test]
fn closed_receiver_terminates_before_the_sender_goes() {
    let (tx, mut rx) = channel::<u8>();
    rx.close();
    assert!(matches!(
        Pin::new(&mut rx).poll(&mut noop_cx()),
        Poll::Ready(Err(_))
    ));
    // The receiver let go first; the sender's drop frees.
    drop(rx);
    assert!(tx.is_closed());
    drop(tx);
}

#[test]
fn sender_dropped_first_or_second() {
    let (tx, rx) = channel::<u8>();
    drop(tx);
    drop(rx);
    let (tx, rx) = channel::<u8>();
    drop(rx);
    drop(tx);
    let (tx, mut rx) = channel::<u8>();
    assert!(Pin::new(&mut rx).poll(&mut noop_cx()).is_pending());
    drop(tx);
    assert!(matches!(
        Pin::new(&mut rx).poll(&mut noop_cx()),
        Poll::Ready(Err(_))
    ));
}

#[test]
fn waiting_sender_and_receiver_drop() {
    let (mut tx, rx) = channel::<u8>();
    assert!(tx.poll_closed(&mut noop_cx()).is_pending());
    drop(rx);
    assert!(tx.poll_closed(&mut noop_cx()).is_ready());
    drop(tx);
    let (mut tx, rx) = channel::<u8>();
    assert!(tx.poll_closed(&mut noop_cx()).is_pending());
    drop(tx);
    drop(rx);
}
