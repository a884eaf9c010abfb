//! `volt::sync::broadcast`: tokio's behaviour, lagging included.

mod support;

use support::{DropCounter, counting_waker, poll_with};
use volt::sync::broadcast::{
    self,
    error::{RecvError, TryRecvError},
};

#[test]
#[should_panic(expected = "broadcast channel capacity cannot be zero")]
fn zero_capacity_panics() {
    let _ = broadcast::channel::<()>(0);
}

#[test]
fn every_receiver_gets_every_value() {
    let rt = volt::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let (tx, rx) = broadcast::channel(8);
        let rxs: Vec<_> = (0..4).map(|_| tx.subscribe()).chain([rx]).collect();
        let tasks: Vec<_> = rxs
            .into_iter()
            .map(|mut rx| {
                volt::spawn(async move {
                    let mut got = Vec::new();
                    loop {
                        match rx.recv().await {
                            Ok(v) => got.push(v),
                            Err(RecvError::Closed) => return got,
                            Err(RecvError::Lagged(n)) => panic!("lagged by {n}"),
                        }
                    }
                })
            })
            .collect();
        for i in 0..1000 {
            // Room is bounded: wait until everyone has read the oldest.
            while tx.len() == 8 {
                volt::task::yield_now().await;
            }
            assert_eq!(tx.send(i).unwrap(), 5);
        }
        drop(tx);
        for t in tasks {
            assert_eq!(t.await.unwrap(), (0..1000).collect::<Vec<_>>());
        }
    });
}

#[test]
fn lagging_receiver_skips_to_the_oldest_value() {
    let (tx, mut rx) = broadcast::channel(2);
    for i in 0..5 {
        tx.send(i).unwrap();
    }
    assert_eq!(rx.len(), 5);
    let err = rx.try_recv().unwrap_err();
    assert_eq!(err, TryRecvError::Lagged(3));
    assert_eq!(err.to_string(), "channel lagged by 3");
    assert_eq!(rx.try_recv(), Ok(3));
    assert_eq!(rx.try_recv(), Ok(4));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    drop(tx);
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    assert_eq!(RecvError::Closed.to_string(), "channel closed");
}

#[test]
fn capacity_rounds_up_to_a_power_of_two() {
    let (tx, mut rx) = broadcast::channel(3);
    for i in 0..4 {
        tx.send(i).unwrap();
    }
    // 4 slots: nothing lost yet.
    assert_eq!(rx.try_recv(), Ok(0));
    assert_eq!(tx.len(), 3);
}

#[test]
fn send_without_receivers_fails_and_counts() {
    let (tx, rx) = broadcast::channel::<u8>(4);
    assert_eq!(tx.receiver_count(), 1);
    let rx2 = rx.resubscribe();
    assert_eq!(tx.receiver_count(), 2);
    assert!(rx.same_channel(&rx2));
    drop((rx, rx2));
    let err = tx.send(1).unwrap_err();
    assert_eq!(err.0, 1);
    assert_eq!(err.to_string(), "channel closed");
    let tx2 = broadcast::Sender::<u8>::new(4);
    assert_eq!(tx2.receiver_count(), 0);
    assert!(!tx.same_channel(&tx2));
    let weak = tx.downgrade();
    assert_eq!((tx.strong_count(), tx.weak_count()), (1, 1));
    assert!(weak.upgrade().is_some());
    drop(tx);
    assert!(weak.upgrade().is_none());
    assert_eq!(format!("{tx2:?}"), "broadcast::Sender");
}

#[test]
fn a_new_receiver_sees_only_later_values() {
    let (tx, mut rx) = broadcast::channel(4);
    tx.send(1).unwrap();
    let mut late = tx.subscribe();
    tx.send(2).unwrap();
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(late.try_recv(), Ok(2));
    assert_eq!(late.try_recv(), Err(TryRecvError::Empty));
    assert_eq!(rx.try_recv(), Ok(2));
}

#[test]
fn values_are_dropped_once_every_receiver_has_them() {
    let drops = DropCounter::new();
    let (tx, mut a) = broadcast::channel(4);
    let mut b = tx.subscribe();
    tx.send(std::sync::Arc::new(drops.track())).ok().unwrap();
    drop(a.try_recv().unwrap());
    assert_eq!(tx.len(), 1);
    drop(b.try_recv().unwrap());
    assert_eq!(tx.len(), 0);
    assert_eq!(drops.count(), 1);
    // A receiver dropped without reading gives its share up.
    tx.send(std::sync::Arc::new(drops.track())).ok().unwrap();
    drop(a.try_recv().unwrap());
    drop(b);
    assert_eq!(drops.count(), 2);
}

#[test]
fn dropped_receiver_gives_up_only_what_the_ring_still_holds() {
    let drops = DropCounter::new();
    let (tx, mut a) = broadcast::channel(2);
    let b = tx.subscribe();
    for _ in 0..5 {
        tx.send(std::sync::Arc::new(drops.track())).ok().unwrap();
    }
    // Three values were overwritten unread; two are held for both.
    assert_eq!(drops.count(), 3);
    drop(b);
    assert_eq!(drops.count(), 3);
    assert!(matches!(a.try_recv(), Err(TryRecvError::Lagged(3))));
    drop(a.try_recv().unwrap());
    drop(a.try_recv().unwrap());
    assert_eq!(drops.count(), 5);
    assert_eq!(tx.len(), 0);
}

#[test]
fn waiting_receiver_is_woken_by_send_and_close() {
    let (tx, mut rx) = broadcast::channel::<u8>(2);
    let (count, waker) = counting_waker();
    {
        let mut recv = Box::pin(rx.recv());
        assert!(poll_with(recv.as_mut(), &waker).is_pending());
        tx.send(1).unwrap();
        assert_eq!(count.count(), 1);
        assert_eq!(
            poll_with(recv.as_mut(), &waker),
            std::task::Poll::Ready(Ok(1))
        );
    }
    let mut recv = Box::pin(rx.recv());
    assert!(poll_with(recv.as_mut(), &waker).is_pending());
    drop(tx);
    assert_eq!(count.count(), 2);
    assert_eq!(
        poll_with(recv.as_mut(), &waker),
        std::task::Poll::Ready(Err(RecvError::Closed))
    );
}

#[test]
fn closed_resolves_when_receivers_go() {
    let (tx, rx) = broadcast::channel::<u8>(2);
    let (count, waker) = counting_waker();
    let mut closed = Box::pin(tx.closed());
    assert!(poll_with(closed.as_mut(), &waker).is_pending());
    drop(rx);
    assert_eq!(count.count(), 1);
    assert!(poll_with(closed.as_mut(), &waker).is_ready());
}

#[test]
fn blocking_recv_from_a_thread() {
    let (tx, mut rx) = broadcast::channel(4);
    let t = std::thread::spawn(move || rx.blocking_recv());
    tx.send(9).unwrap();
    assert_eq!(t.join().unwrap(), Ok(9));
}

/// `Clone` runs once per receiver, the last one included (tokio's
/// behaviour: `Clone` is observable).
#[test]
fn every_receiver_clones_even_the_last() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static CLONES: AtomicUsize = AtomicUsize::new(0);
    #[derive(Debug, PartialEq)]
    struct Counted(u32);
    impl Clone for Counted {
        fn clone(&self) -> Self {
            CLONES.fetch_add(1, Ordering::Relaxed);
            Counted(self.0)
        }
    }
    let (tx, mut rx1) = broadcast::channel(4);
    tx.send(Counted(1)).unwrap();
    assert_eq!(rx1.try_recv().unwrap(), Counted(1));
    assert_eq!(CLONES.load(Ordering::Relaxed), 1);
    let mut rx2 = tx.subscribe();
    tx.send(Counted(2)).unwrap();
    assert_eq!(rx1.try_recv().unwrap(), Counted(2));
    assert_eq!(rx2.try_recv().unwrap(), Counted(2));
    assert_eq!(CLONES.load(Ordering::Relaxed), 3);
}

/// A `Clone` that panics reaches `try_recv`; the receiver then goes on
/// with the next value (tokio's `sync_broadcast::panic_in_clone`).
#[test]
fn panic_in_clone_reaches_the_receiver() {
    use std::panic::{self, AssertUnwindSafe};
    #[derive(Debug, PartialEq)]
    struct MyVal(usize);
    impl Clone for MyVal {
        fn clone(&self) -> MyVal {
            assert_ne!(0, self.0);
            MyVal(self.0)
        }
    }
    let (tx, mut rx) = broadcast::channel(16);
    tx.send(MyVal(0)).unwrap();
    tx.send(MyVal(1)).unwrap();
    let res = panic::catch_unwind(AssertUnwindSafe(|| {
        let _ = rx.try_recv();
    }));
    assert!(res.is_err());
    assert_eq!(rx.try_recv().unwrap(), MyVal(1));
    assert_eq!(tx.len(), 0);
}
