//! `volt::sync::watch`: tokio's behaviour.

mod support;

use support::{counting_waker, poll_with};
use volt::sync::watch;

#[test]
fn receivers_see_the_latest_value() {
    let rt = volt::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let (tx, mut rx) = watch::channel(0);
        let t = volt::spawn(async move {
            for i in 1..=100 {
                tx.send(i).unwrap();
                volt::task::yield_now().await;
            }
        });
        let mut last = 0;
        while rx.changed().await.is_ok() {
            let v = *rx.borrow_and_update();
            assert!(v > last, "values only move forward");
            last = v;
        }
        assert_eq!(last, 100);
        assert_eq!(*rx.borrow(), 100);
        t.await.unwrap();
    });
}

#[test]
fn changed_wakes_and_marks_seen() {
    let (tx, mut rx) = watch::channel("a");
    assert!(!rx.has_changed().unwrap());
    let (count, waker) = counting_waker();
    {
        let mut changed = Box::pin(rx.changed());
        assert!(poll_with(changed.as_mut(), &waker).is_pending());
        tx.send("b").unwrap();
        assert_eq!(count.count(), 1);
        assert!(poll_with(changed.as_mut(), &waker).is_ready());
    }
    assert!(!rx.has_changed().unwrap());
    let r = rx.borrow();
    assert_eq!((*r, r.has_changed()), ("b", false));
    drop(r);
    rx.mark_changed();
    assert!(rx.has_changed().unwrap());
    assert!(rx.borrow_and_update().has_changed());
    tx.send("c").unwrap();
    rx.mark_unchanged();
    assert!(!rx.has_changed().unwrap());
}

#[test]
fn closing_and_counts() {
    let (tx, rx) = watch::channel(1);
    let rx2 = tx.subscribe();
    assert_eq!(tx.receiver_count(), 2);
    let tx2 = tx.clone();
    assert_eq!(tx.sender_count(), 2);
    assert!(tx.same_channel(&tx2) && rx.same_channel(&rx2));
    drop((rx, rx2));
    assert!(tx.is_closed());
    let err = tx.send(5).unwrap_err();
    assert_eq!(err.0, 5);
    assert_eq!(err.to_string(), "channel closed");
    assert_eq!(format!("{err:?}"), "SendError { .. }");
    // send_replace and send_modify work with no receiver.
    assert_eq!(tx.send_replace(6), 1);
    tx.send_modify(|v| *v += 1);
    assert_eq!(*tx.borrow(), 7);
    assert!(!tx.send_if_modified(|_| false));

    let mut rx = tx.subscribe();
    drop((tx, tx2));
    assert!(rx.is_closed());
    assert_eq!(rx.has_changed().unwrap_err().to_string(), "channel closed");
    let rt = volt::runtime::Runtime::new().unwrap();
    assert!(rt.block_on(rx.changed()).is_err());
    assert_eq!(*rx.borrow(), 7);
}

#[test]
fn unseen_value_is_returned_once_after_close() {
    let (tx, mut rx) = watch::channel(0);
    tx.send(1).unwrap();
    drop(tx);
    let rt = volt::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        assert!(rx.changed().await.is_ok());
        assert!(rx.changed().await.is_err());
    });
}

#[test]
fn wait_for_checks_the_current_value_first() {
    let rt = volt::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let (tx, mut rx) = watch::channel(3);
        assert_eq!(*rx.wait_for(|v| *v == 3).await.unwrap(), 3);
        let t = volt::spawn(async move {
            for i in 4..10 {
                tx.send(i).unwrap();
                volt::task::yield_now().await;
            }
        });
        assert!(*rx.wait_for(|v| *v >= 8).await.unwrap() >= 8);
        t.await.unwrap();
        assert!(rx.wait_for(|v| *v == 100).await.is_err());
    });
}

#[test]
fn closed_resolves_when_receivers_go() {
    let (tx, rx) = watch::channel(());
    let (count, waker) = counting_waker();
    let mut closed = Box::pin(tx.closed());
    assert!(poll_with(closed.as_mut(), &waker).is_pending());
    drop(rx);
    assert_eq!(count.count(), 1);
    assert!(poll_with(closed.as_mut(), &waker).is_ready());
}

#[test]
fn sender_new_has_no_receiver_until_subscribe() {
    let tx = watch::Sender::new(0);
    assert!(tx.send(1).is_err());
    let rx = tx.subscribe();
    tx.send(2).unwrap();
    assert_eq!(*rx.borrow(), 2);
}

#[test]
fn default_sender_holds_the_default_value() {
    let tx = watch::Sender::<Vec<u8>>::default();
    assert!(tx.borrow().is_empty());
    assert_eq!(tx.receiver_count(), 0);
    let rx = tx.subscribe();
    tx.send(vec![1]).unwrap();
    assert_eq!(*rx.borrow(), [1]);
}

#[test]
fn a_panicking_modify_is_not_a_new_version() {
    let (tx, rx) = watch::channel(0);
    let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tx.send_modify(|_| panic!("boom"));
    }));
    assert!(res.is_err());
    assert!(!rx.has_changed().unwrap());
    tx.send(1).unwrap();
    assert_eq!(*rx.borrow(), 1);
}
