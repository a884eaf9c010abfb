//! `volt::sync::oneshot`: tokio's behaviour, polled by hand where the order
//! of events matters.

mod support;

use std::task::Poll;

use support::{DropCounter, counting_waker, poll_with};
use volt::sync::oneshot::{self, error::TryRecvError};

#[test]
fn send_then_receive() {
    let rt = volt::runtime::Runtime::new().unwrap();
    let v = rt.block_on(async {
        let (tx, rx) = oneshot::channel();
        volt::spawn(async move { tx.send(5).unwrap() });
        rx.await
    });
    assert_eq!(v, Ok(5));
}

#[test]
fn waiting_receiver_is_woken_by_send_and_by_drop() {
    for send in [true, false] {
        let (tx, mut rx) = oneshot::channel::<u8>();
        let (count, waker) = counting_waker();
        assert!(poll_with(std::pin::Pin::new(&mut rx), &waker).is_pending());
        if send {
            tx.send(1).unwrap();
        } else {
            drop(tx);
        }
        assert_eq!(count.count(), 1);
        match poll_with(std::pin::Pin::new(&mut rx), &waker) {
            Poll::Ready(Ok(v)) => assert!(send && v == 1),
            Poll::Ready(Err(e)) => {
                assert!(!send);
                assert_eq!(e.to_string(), "channel closed");
            }
            Poll::Pending => panic!("still pending"),
        }
        assert!(rx.is_terminated());
    }
}

#[test]
fn send_after_receiver_drop_or_close_gives_the_value_back() {
    let (tx, rx) = oneshot::channel();
    drop(rx);
    assert!(tx.is_closed());
    assert_eq!(tx.send(7), Err(7));

    let (tx, mut rx) = oneshot::channel();
    rx.close();
    assert_eq!(tx.send(8), Err(8));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
}

#[test]
fn value_sent_before_close_is_still_received() {
    let (tx, mut rx) = oneshot::channel();
    tx.send(9).unwrap();
    rx.close();
    assert!(!rx.is_empty());
    assert_eq!(rx.try_recv(), Ok(9));
    assert!(rx.is_terminated() && rx.is_empty());
}

#[test]
fn try_recv_states() {
    let (tx, mut rx) = oneshot::channel::<u8>();
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    assert!(!rx.is_terminated());
    drop(tx);
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    assert!(rx.is_terminated());
    assert_eq!(TryRecvError::Empty.to_string(), "channel empty");
}

#[test]
fn closed_resolves_when_the_receiver_goes() {
    let (mut tx, rx) = oneshot::channel::<u8>();
    let (count, waker) = counting_waker();
    let mut closed = Box::pin(tx.closed());
    assert!(poll_with(closed.as_mut(), &waker).is_pending());
    drop(rx);
    assert_eq!(count.count(), 1);
    assert!(poll_with(closed.as_mut(), &waker).is_ready());
}

#[test]
fn unreceived_value_is_dropped_with_the_receiver() {
    let drops = DropCounter::new();
    let (tx, rx) = oneshot::channel();
    tx.send(drops.track()).ok().unwrap();
    assert_eq!(drops.count(), 0);
    drop(rx);
    assert_eq!(drops.count(), 1);
}

#[test]
fn blocking_recv_from_another_thread() {
    let (tx, rx) = oneshot::channel();
    let t = std::thread::spawn(move || rx.blocking_recv());
    tx.send("hi").unwrap();
    assert_eq!(t.join().unwrap(), Ok("hi"));
}

#[test]
#[should_panic(expected = "called after complete")]
fn polling_after_completion_panics() {
    let (tx, mut rx) = oneshot::channel();
    tx.send(1).unwrap();
    let (_c, waker) = counting_waker();
    let _ = poll_with(std::pin::Pin::new(&mut rx), &waker);
    let _ = poll_with(std::pin::Pin::new(&mut rx), &waker);
}
