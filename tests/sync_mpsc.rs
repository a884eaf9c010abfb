//! `volt::sync::mpsc`: tokio's behaviour.

mod support;

use std::task::Poll;

use support::{DropCounter, counting_waker, poll_with};
use volt::sync::mpsc::{
    self,
    error::{TryRecvError, TrySendError},
};

fn rt() -> volt::runtime::Runtime {
    volt::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

#[test]
#[should_panic(expected = "mpsc bounded channel requires buffer > 0")]
fn zero_capacity_panics() {
    let _ = mpsc::channel::<()>(0);
}

#[test]
fn values_arrive_in_order_and_none_after_the_last_sender() {
    rt().block_on(async {
        let (tx, mut rx) = mpsc::channel(4);
        let producer = volt::spawn(async move {
            for i in 0..1000 {
                tx.send(i).await.unwrap();
            }
        });
        for i in 0..1000 {
            assert_eq!(rx.recv().await, Some(i));
        }
        assert_eq!(rx.recv().await, None);
        producer.await.unwrap();
    });
}

#[test]
fn four_producers_nothing_lost() {
    rt().block_on(async {
        for bounded in [true, false] {
            let mut rx_sum = 0u64;
            let handles: Vec<_>;
            if bounded {
                let (tx, mut rx) = mpsc::channel::<u64>(16);
                handles = (0..4)
                    .map(|p| {
                        let tx = tx.clone();
                        volt::spawn(async move {
                            for i in 0..2500 {
                                tx.send(p * 2500 + i).await.unwrap();
                            }
                        })
                    })
                    .collect();
                drop(tx);
                while let Some(v) = rx.recv().await {
                    rx_sum += v;
                }
            } else {
                let (tx, mut rx) = mpsc::unbounded_channel::<u64>();
                handles = (0..4)
                    .map(|p| {
                        let tx = tx.clone();
                        volt::spawn(async move {
                            for i in 0..2500 {
                                tx.send(p * 2500 + i).unwrap();
                                if i % 100 == 0 {
                                    volt::task::yield_now().await;
                                }
                            }
                        })
                    })
                    .collect();
                drop(tx);
                while let Some(v) = rx.recv().await {
                    rx_sum += v;
                }
            }
            for h in handles {
                h.await.unwrap();
            }
            assert_eq!(rx_sum, (0..10_000).sum::<u64>());
        }
    });
}

#[test]
fn try_send_full_and_closed_with_tokios_messages() {
    let (tx, mut rx) = mpsc::channel(1);
    tx.try_send(1).unwrap();
    let err = tx.try_send(2).unwrap_err();
    assert_eq!(err, TrySendError::Full(2));
    assert_eq!(err.to_string(), "no available capacity");
    // tokio formats it as a quoted string.
    assert_eq!(format!("{err:?}"), "\"Full(..)\"");
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    assert_eq!(
        TryRecvError::Empty.to_string(),
        "receiving on an empty channel"
    );
    drop(rx);
    let err = tx.try_send(3).unwrap_err();
    assert_eq!(err, TrySendError::Closed(3));
    assert_eq!(err.to_string(), "channel closed");
}

#[test]
fn send_after_receiver_drop_fails_and_closed_resolves() {
    rt().block_on(async {
        let (tx, rx) = mpsc::channel::<u8>(2);
        let tx2 = tx.clone();
        let waiter = volt::spawn(async move { tx2.closed().await });
        assert!(!tx.is_closed());
        drop(rx);
        waiter.await.unwrap();
        assert!(tx.is_closed());
        let err = tx.send(5).await.unwrap_err();
        assert_eq!(err.0, 5);
        assert_eq!(err.to_string(), "channel closed");
        assert_eq!(format!("{err:?}"), "SendError { .. }");

        let (utx, urx) = mpsc::unbounded_channel::<u8>();
        drop(urx);
        assert_eq!(utx.send(6).unwrap_err().0, 6);
        utx.closed().await;
    });
}

#[test]
fn close_lets_reserved_permits_send_then_ends() {
    let (tx, mut rx) = mpsc::channel(3);
    tx.try_send(1).unwrap();
    let permit = tx.try_reserve().unwrap();
    rx.close();
    assert!(rx.is_closed());
    assert!(tx.try_send(2).unwrap_err() == TrySendError::Closed(2));
    assert_eq!(rx.try_recv(), Ok(1));
    // A permit is outstanding: not the end yet.
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    let (count, waker) = counting_waker();
    {
        let mut recv = Box::pin(rx.recv());
        assert!(poll_with(recv.as_mut(), &waker).is_pending());
        permit.send(3);
        assert_eq!(count.count(), 1);
        assert_eq!(poll_with(recv.as_mut(), &waker), Poll::Ready(Some(3)));
    }
    assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    assert_eq!(
        TryRecvError::Disconnected.to_string(),
        "receiving on a closed channel"
    );
}

#[test]
fn dropping_the_last_permit_after_close_wakes_the_receiver() {
    let (tx, mut rx) = mpsc::channel::<u8>(1);
    let permit = tx.try_reserve().unwrap();
    rx.close();
    let (count, waker) = counting_waker();
    let mut recv = Box::pin(rx.recv());
    assert!(poll_with(recv.as_mut(), &waker).is_pending());
    drop(permit);
    assert_eq!(count.count(), 1);
    assert_eq!(poll_with(recv.as_mut(), &waker), Poll::Ready(None));
}

#[test]
fn permits_and_capacity() {
    let (tx, mut rx) = mpsc::channel::<u8>(3);
    assert_eq!((tx.capacity(), tx.max_capacity()), (3, 3));
    let p = tx.try_reserve().unwrap();
    assert_eq!(tx.capacity(), 2);
    drop(p);
    assert_eq!(tx.capacity(), 3);
    let mut many = tx.try_reserve_many(2).unwrap();
    assert_eq!(many.len(), 2);
    assert_eq!(tx.capacity(), 1);
    many.next().unwrap().send(7);
    drop(many);
    // A drained `PermitIterator` stays drained (`FusedIterator`).
    let mut one = tx.try_reserve_many(1).unwrap().fuse();
    assert!(one.next().is_some());
    assert!(one.next().is_none() && one.next().is_none());
    assert_eq!(tx.capacity(), 2);
    assert!(tx.try_reserve_many(4).is_err());
    let owned = tx.clone().try_reserve_owned().unwrap();
    assert!(owned.same_channel_as_sender(&tx));
    assert!(!owned.same_channel_as_sender(&mpsc::channel::<u8>(1).0));
    let back = owned.send(8);
    assert!(back.same_channel(&tx));
    let owned = tx.clone().try_reserve_owned().unwrap();
    drop(owned.release());
    assert_eq!(rx.capacity(), 1);
    assert_eq!(rx.len(), 2);
    assert_eq!(rx.try_recv(), Ok(7));
    assert_eq!(rx.try_recv(), Ok(8));
    assert_eq!(rx.capacity(), 3);
    assert!(rx.is_empty());
}

#[test]
fn waiting_senders_get_room_in_order() {
    let (tx, mut rx) = mpsc::channel(1);
    tx.try_send(0).unwrap();
    let (ca, wa) = counting_waker();
    let (cb, wb) = counting_waker();
    let mut a = Box::pin(tx.send(1));
    let mut b = Box::pin(tx.send(2));
    assert!(poll_with(a.as_mut(), &wa).is_pending());
    assert!(poll_with(b.as_mut(), &wb).is_pending());
    assert_eq!(rx.try_recv(), Ok(0));
    assert_eq!((ca.count(), cb.count()), (1, 0));
    assert!(poll_with(a.as_mut(), &wa).is_ready());
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(cb.count(), 1);
    assert!(poll_with(b.as_mut(), &wb).is_ready());
    assert_eq!(rx.try_recv(), Ok(2));
}

#[test]
fn room_freed_for_a_waiting_sender_is_not_taken_by_a_later_try_send() {
    let (tx, mut rx) = mpsc::channel(1);
    tx.try_send(0).unwrap();
    let (c, w) = counting_waker();
    let mut a = Box::pin(tx.send(1));
    assert!(poll_with(a.as_mut(), &w).is_pending());
    assert_eq!(rx.try_recv(), Ok(0));
    // The room went to the queued send, not to whoever asks next.
    assert_eq!(tx.try_send(9), Err(TrySendError::Full(9)));
    assert_eq!(tx.capacity(), 0);
    assert_eq!(c.count(), 1);
    assert!(poll_with(a.as_mut(), &w).is_ready());
    assert_eq!(rx.try_recv(), Ok(1));
    // With nobody waiting, room comes back for `try_send` again.
    assert_eq!(tx.capacity(), 1);
    tx.try_send(2).unwrap();
    assert_eq!(rx.try_recv(), Ok(2));
    assert_eq!(rx.capacity(), 1);
}

#[test]
fn a_channel_too_large_for_credits_counts_room_the_same() {
    // Over the count a channel keeps beside its tail (20 bits): all of
    // its room is in the semaphore.
    let cap = (1 << 20) + 5;
    let (tx, mut rx) = mpsc::channel::<u32>(cap);
    assert_eq!((tx.capacity(), tx.max_capacity()), (cap, cap));
    for i in 0..10 {
        tx.try_send(i).unwrap();
    }
    let permits = tx.try_reserve_many(5).unwrap();
    assert_eq!(tx.capacity(), cap - 15);
    for i in 0..10 {
        assert_eq!(rx.try_recv(), Ok(i));
    }
    drop(permits);
    assert_eq!(rx.capacity(), cap);
    rx.close();
    assert_eq!(tx.try_send(1), Err(TrySendError::Closed(1)));
}

#[test]
fn weak_senders_do_not_keep_the_channel_open() {
    let (tx, mut rx) = mpsc::channel::<u8>(1);
    let weak = tx.downgrade();
    assert_eq!((tx.strong_count(), tx.weak_count()), (1, 1));
    assert_eq!(rx.sender_weak_count(), 1);
    let strong = weak.upgrade().unwrap();
    assert_eq!(rx.sender_strong_count(), 2);
    drop(strong);
    drop(tx);
    assert!(weak.upgrade().is_none());
    assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    assert!(rx.is_closed());

    let (utx, _urx) = mpsc::unbounded_channel::<u8>();
    let uweak = utx.downgrade();
    assert!(uweak.upgrade().is_some());
    drop(utx);
    assert!(uweak.upgrade().is_none());
}

#[test]
fn recv_many_takes_up_to_the_limit() {
    rt().block_on(async {
        let (tx, mut rx) = mpsc::unbounded_channel();
        for i in 0..10 {
            tx.send(i).unwrap();
        }
        let mut buf = Vec::new();
        assert_eq!(rx.recv_many(&mut buf, 4).await, 4);
        assert_eq!(rx.recv_many(&mut buf, 0).await, 0);
        assert_eq!(rx.recv_many(&mut buf, 100).await, 6);
        assert_eq!(buf, (0..10).collect::<Vec<_>>());
        drop(tx);
        assert_eq!(rx.recv_many(&mut buf, 4).await, 0);
    });
}

#[test]
fn values_left_are_dropped_with_the_receiver() {
    let drops = DropCounter::new();
    let (tx, rx) = mpsc::channel(4);
    tx.try_send(drops.track()).ok().unwrap();
    tx.try_send(drops.track()).ok().unwrap();
    drop(rx);
    assert_eq!(drops.count(), 2);
    // Their capacity came back too.
    assert_eq!(tx.capacity(), 4);
}

/// The receiver as the channel's last handle (it closes nothing then, with
/// nobody left to tell) still drops the values left with it. With a weak
/// sender alive it is not the last handle, and the weak sender cannot come
/// back.
#[test]
fn the_receiver_as_the_last_handle_drops_what_is_left() {
    let drops = DropCounter::new();
    let (tx, rx) = mpsc::channel(4);
    tx.try_send(drops.track()).ok().unwrap();
    tx.try_send(drops.track()).ok().unwrap();
    drop(tx);
    drop(rx);
    assert_eq!(drops.count(), 2);

    let (tx, rx) = mpsc::unbounded_channel();
    tx.send(drops.track()).ok().unwrap();
    let weak = tx.downgrade();
    drop(tx);
    drop(rx);
    assert_eq!(drops.count(), 3);
    assert!(weak.upgrade().is_none());
}

#[test]
fn blocking_send_and_recv() {
    let (tx, mut rx) = mpsc::channel(2);
    let t = std::thread::spawn(move || {
        for i in 0..100 {
            tx.blocking_send(i).unwrap();
        }
    });
    for i in 0..100 {
        assert_eq!(rx.blocking_recv(), Some(i));
    }
    t.join().unwrap();
    assert_eq!(rx.blocking_recv(), None);
}

#[test]
fn receiver_woken_by_send_and_by_last_sender_drop() {
    let (tx, mut rx) = mpsc::unbounded_channel::<u8>();
    let (count, waker) = counting_waker();
    let f = |rx: &mut mpsc::UnboundedReceiver<u8>| {
        let mut cx = std::task::Context::from_waker(&waker);
        rx.poll_recv(&mut cx)
    };
    assert!(f(&mut rx).is_pending());
    tx.send(1).unwrap();
    assert_eq!(count.count(), 1);
    assert_eq!(f(&mut rx), Poll::Ready(Some(1)));
    assert!(f(&mut rx).is_pending());
    drop(tx);
    assert_eq!(count.count(), 2);
    assert_eq!(f(&mut rx), Poll::Ready(None));
}

#[volt::test(start_paused = true)]
async fn send_timeout_times_out_when_full_and_reports_close() {
    use volt::sync::mpsc::error::SendTimeoutError;
    use volt::time::{Duration, Instant};

    let (tx, mut rx) = mpsc::channel(1);
    tx.send_timeout(1, Duration::from_millis(10)).await.unwrap();
    let start = Instant::now();
    let err = tx
        .send_timeout(2, Duration::from_millis(10))
        .await
        .unwrap_err();
    assert_eq!(start.elapsed(), Duration::from_millis(10));
    assert_eq!(err.to_string(), "timed out waiting on send operation");
    assert_eq!(format!("{err:?}"), "\"Timeout(..)\"");
    assert_eq!(err.into_inner(), 2);

    // Room comes up before the deadline: the send completes.
    let tx2 = tx.clone();
    let sender = volt::spawn(async move { tx2.send_timeout(3, Duration::from_secs(5)).await });
    assert_eq!(rx.recv().await, Some(1));
    sender.await.unwrap().unwrap();
    assert_eq!(rx.recv().await, Some(3));

    drop(rx);
    let err = tx
        .send_timeout(4, Duration::from_millis(10))
        .await
        .unwrap_err();
    assert!(matches!(err, SendTimeoutError::Closed(4)));
    assert_eq!(err.to_string(), "channel closed");
}

/// After `close`, the receiver waits for outstanding reservations and is
/// woken once the last one comes back: by a permit's drop, or by a
/// reservation that fails or is cancelled holding a slot it was given;
/// not while another slot is still out.
#[test]
fn closed_receiver_is_woken_when_the_last_reservation_returns() {
    use std::future::Future;
    use std::task::{Context, Waker};
    let noop = &mut Context::from_waker(Waker::noop());

    for cancel in [false, true] {
        let (tx, mut rx) = mpsc::channel::<()>(2);
        let permit = tx.try_reserve().unwrap();
        // Gets one slot now, queues for the other.
        let mut reserve = Box::pin(tx.reserve_many(2));
        assert!(reserve.as_mut().poll(noop).is_pending());
        rx.close();
        let (wakes, waker) = counting_waker();
        assert!(rx.poll_recv(&mut Context::from_waker(&waker)).is_pending());
        drop(permit);
        // The queued reservation still holds a slot: not idle, no wake.
        assert_eq!(wakes.count(), 0);
        if cancel {
            drop(reserve);
        } else {
            assert!(matches!(reserve.as_mut().poll(noop), Poll::Ready(Err(_))));
        }
        assert_eq!(wakes.count(), 1);
        assert!(matches!(rx.poll_recv(noop), Poll::Ready(None)));
    }
}

/// `Permit::send` whose wake of the receiver panics still delivers the
/// value and keeps the capacity right (the permit is not given back too).
#[test]
fn permit_send_with_a_panicking_receiver_waker() {
    struct Panics;
    impl std::task::Wake for Panics {
        fn wake(self: std::sync::Arc<Self>) {
            panic!("waker panicked");
        }
    }
    let (tx, mut rx) = mpsc::channel(1);
    let waker = std::task::Waker::from(std::sync::Arc::new(Panics));
    assert!(
        rx.poll_recv(&mut std::task::Context::from_waker(&waker))
            .is_pending()
    );
    let permit = tx.try_reserve().unwrap();
    assert!(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| permit.send(7))).is_err());
    assert_eq!((tx.capacity(), rx.len()), (0, 1));
    assert_eq!(rx.try_recv(), Ok(7));
    assert_eq!(tx.capacity(), 1);
}

/// Dropping the receiver drops every queued value even if one's `Drop`
/// panics, and lets go of the receiver's waker at once.
#[test]
fn receiver_drop_drains_through_a_panic_and_releases_its_waker() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    struct Bomb(bool);
    impl Drop for Bomb {
        fn drop(&mut self) {
            DROPS.fetch_add(1, SeqCst);
            if self.0 {
                panic!("boom");
            }
        }
    }
    let (tx, rx) = mpsc::unbounded_channel();
    for explode in [true, false, false] {
        tx.send(Bomb(explode)).map_err(|_| ()).unwrap();
    }
    assert!(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(rx))).is_err());
    assert_eq!(DROPS.load(SeqCst), 3);
    drop(tx);

    let (wakes, waker) = counting_waker();
    let (_tx, mut rx) = mpsc::channel::<()>(1);
    assert!(
        rx.poll_recv(&mut std::task::Context::from_waker(&waker))
            .is_pending()
    );
    assert_eq!(std::sync::Arc::strong_count(&wakes), 3);
    drop(rx);
    assert_eq!(std::sync::Arc::strong_count(&wakes), 2);
}
