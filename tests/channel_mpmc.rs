//! `volt::channel`: the guarantees of the MPMC channel, through the public
//! API.

mod support;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::task::Poll;

use support::{DropCounter, counting_waker as flag, poll_with as poll_once};
use volt::channel::{self, RecvError, TryRecvError, TrySendError};

fn rt() -> volt::runtime::Runtime {
    volt::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

#[test]
fn fifo_per_channel() {
    rt().block_on(async {
        for cap in [Some(0), Some(1), Some(3), Some(1024), None] {
            let (tx, rx) = match cap {
                Some(c) => channel::bounded(c),
                None => channel::unbounded(),
            };
            let producer = volt::spawn(async move {
                for i in 0..2000u32 {
                    tx.send(i).await.unwrap();
                }
            });
            for i in 0..2000u32 {
                assert_eq!(rx.recv().await, Ok(i), "cap {cap:?}");
            }
            producer.await.unwrap();
            assert_eq!(rx.recv().await, Err(RecvError));
        }
    });
}

/// 4 producers x 4 consumers, with random `send`/`recv` futures dropped
/// after one poll: nothing lost, nothing duplicated. A dropped `recv` has
/// taken nothing. A dropped `send` has sent nothing, at every capacity but
/// the rendezvous `bounded(0)`, where a receiver may have taken the value
/// from the waiting sender (the `Sender::send` docs).
#[test]
fn no_value_lost_or_duplicated_under_cancellation() {
    const PER_PRODUCER: u64 = 5_000;
    // Each attempt sends a value of its own: producer * STRIDE + attempt.
    const STRIDE: u64 = 1 << 32;
    rt().block_on(async {
        for cap in [
            Some(0),
            Some(1),
            Some(2),
            Some(3),
            Some(4),
            Some(5),
            Some(1024),
            None,
        ] {
            let dropped_send_may_deliver = cap == Some(0);
            let (tx, rx) = match cap {
                Some(c) => channel::bounded::<u64>(c),
                None => channel::unbounded(),
            };
            let mut producers = Vec::new();
            for p in 0..4u64 {
                let tx = tx.clone();
                producers.push(volt::spawn(async move {
                    // (values whose send completed, values whose send was dropped)
                    let (mut sent, mut dropped) = (Vec::new(), Vec::new());
                    let mut seed = p + 1;
                    let mut attempt = 0;
                    while (sent.len() as u64) < PER_PRODUCER {
                        let v = p * STRIDE + attempt;
                        attempt += 1;
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                        if seed >> 61 == 0 {
                            // Poll a send once and drop it.
                            let mut f = std::pin::pin!(tx.send(v));
                            let done = std::future::poll_fn(|cx| {
                                Poll::Ready(f.as_mut().poll(cx).is_ready())
                            })
                            .await;
                            if done {
                                sent.push(v);
                            } else {
                                dropped.push(v);
                            }
                            volt::task::yield_now().await;
                            continue;
                        }
                        tx.send(v).await.unwrap();
                        sent.push(v);
                    }
                    (sent, dropped)
                }));
            }
            drop(tx);
            let mut consumers = Vec::new();
            for c in 0..4u64 {
                let rx = rx.clone();
                consumers.push(volt::spawn(async move {
                    let mut got = Vec::new();
                    let mut seed = c + 11;
                    loop {
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                        if seed >> 61 == 0 {
                            let mut f = std::pin::pin!(rx.recv());
                            let res = std::future::poll_fn(|cx| match f.as_mut().poll(cx) {
                                Poll::Ready(r) => Poll::Ready(Some(r)),
                                Poll::Pending => Poll::Ready(None),
                            })
                            .await;
                            match res {
                                Some(Ok(v)) => got.push(v),
                                Some(Err(_)) => break,
                                None => volt::task::yield_now().await,
                            }
                            continue;
                        }
                        match rx.recv().await {
                            Ok(v) => got.push(v),
                            Err(_) => break,
                        }
                    }
                    got
                }));
            }
            drop(rx);
            let (mut sent, mut dropped) = (Vec::new(), Vec::new());
            for p in producers {
                let (s, d) = p.await.unwrap();
                sent.extend(s);
                dropped.extend(d);
            }
            let mut all = Vec::new();
            for c in consumers {
                all.extend(c.await.unwrap());
            }
            all.sort_unstable();
            let before = all.len();
            all.dedup();
            assert_eq!(all.len(), before, "cap {cap:?}: values duplicated");
            // Every completed send was received ...
            let received: std::collections::HashSet<u64> = all.iter().copied().collect();
            assert!(
                sent.iter().all(|v| received.contains(v)),
                "cap {cap:?}: values lost"
            );
            // ... and nothing else, but (where allowed) dropped sends.
            let delivered_dropped = dropped.iter().filter(|v| received.contains(v)).count();
            assert_eq!(all.len(), sent.len() + delivered_dropped, "cap {cap:?}");
            if !dropped_send_may_deliver {
                assert_eq!(
                    delivered_dropped, 0,
                    "cap {cap:?}: a dropped send delivered"
                );
            }
        }
    });
}

#[test]
fn recv_is_cancel_safe() {
    let (tx, rx) = channel::bounded(4);
    let (_f, waker) = flag();
    {
        let mut recv = std::pin::pin!(rx.recv());
        assert!(poll_once(recv.as_mut(), &waker).is_pending());
        tx.try_send(1).unwrap();
        // Dropped without being polled again: the value stays.
    }
    assert_eq!(rx.try_recv(), Ok(1));
}

#[test]
fn woken_receiver_that_is_dropped_passes_the_wake_up_on() {
    for cap in [Some(1), None] {
        let (tx, rx) = match cap {
            Some(c) => channel::bounded(c),
            None => channel::unbounded(),
        };
        let (fa, wa) = flag();
        let (fb, wb) = flag();
        let mut a = Box::pin(rx.recv());
        let mut b = Box::pin(rx.recv());
        assert!(poll_once(a.as_mut(), &wa).is_pending());
        assert!(poll_once(b.as_mut(), &wb).is_pending());
        tx.try_send(1).unwrap();
        assert_eq!(fa.count(), 1, "the oldest waiter is woken");
        assert_eq!(fb.count(), 0);
        drop(a);
        assert_eq!(fb.count(), 1, "the wake-up moved on");
        assert_eq!(poll_once(b.as_mut(), &wb), Poll::Ready(Ok(1)));
    }
}

#[test]
fn waiting_senders_are_woken_in_order_when_room_appears() {
    let (tx, rx) = channel::bounded(1);
    tx.try_send(0).unwrap();
    let (fa, wa) = flag();
    let (fb, wb) = flag();
    let mut a = Box::pin(tx.send(1));
    let mut b = Box::pin(tx.send(2));
    assert!(poll_once(a.as_mut(), &wa).is_pending());
    assert!(poll_once(b.as_mut(), &wb).is_pending());
    assert_eq!(rx.try_recv(), Ok(0));
    assert_eq!(fa.count(), 1);
    assert_eq!(fb.count(), 0);
    assert!(poll_once(a.as_mut(), &wa).is_ready());
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(fb.count(), 1);
    assert!(poll_once(b.as_mut(), &wb).is_ready());
    assert_eq!(rx.try_recv(), Ok(2));
}

#[test]
fn closing_wakes_every_waiter() {
    let (tx, rx) = channel::bounded::<u8>(1);
    let (tx2, rx2) = channel::bounded::<u8>(1);
    tx2.try_send(0).unwrap();
    let mut recvs: Vec<_> = (0..5).map(|_| Box::pin(rx.recv())).collect();
    let mut sends: Vec<_> = (0..5).map(|i| Box::pin(tx2.send(i))).collect();
    let flags: Vec<_> = (0..10).map(|_| flag()).collect();
    for (r, (_, w)) in recvs.iter_mut().zip(&flags[..5]) {
        assert!(poll_once(r.as_mut(), w).is_pending());
    }
    for (s, (_, w)) in sends.iter_mut().zip(&flags[5..]) {
        assert!(poll_once(s.as_mut(), w).is_pending());
    }
    assert!(tx.close());
    assert!(rx2.close());
    for (f, _) in &flags {
        assert_eq!(f.count(), 1);
    }
    for (r, (_, w)) in recvs.iter_mut().zip(&flags[..5]) {
        assert_eq!(poll_once(r.as_mut(), w), Poll::Ready(Err(RecvError)));
    }
    for (i, (s, (_, w))) in sends.iter_mut().zip(&flags[5..]).enumerate() {
        match poll_once(s.as_mut(), w) {
            Poll::Ready(Err(e)) => assert_eq!(e.into_inner(), i as u8),
            other => panic!("send after close: {other:?}"),
        }
    }
    // The value sent before the close is still received.
    assert_eq!(rx2.try_recv(), Ok(0));
    assert_eq!(rx2.try_recv(), Err(TryRecvError::Closed));
}

#[test]
fn send_after_close_gives_the_value_back() {
    for cap in [Some(0), Some(2), None] {
        let (tx, rx) = match cap {
            Some(c) => channel::bounded(c),
            None => channel::unbounded(),
        };
        drop(rx);
        assert!(tx.is_closed());
        assert_eq!(
            tx.try_send(String::from("a")),
            Err(TrySendError::Closed("a".into()))
        );
        let err = volt::runtime::Runtime::new()
            .unwrap()
            .block_on(tx.send(String::from("b")))
            .unwrap_err();
        assert_eq!(err.0, "b");
        assert_eq!(err.to_string(), "sending into a closed channel");
    }
}

#[test]
fn values_left_in_the_channel_are_dropped_with_the_last_handle() {
    for cap in [Some(8), None] {
        let drops = DropCounter::new();
        let (tx, rx) = match cap {
            Some(c) => channel::bounded(c),
            None => channel::unbounded(),
        };
        for _ in 0..5 {
            tx.try_send(drops.track()).ok().unwrap();
        }
        drop(rx.try_recv());
        drop(tx);
        assert_eq!(drops.count(), 1);
        drop(rx);
        assert_eq!(drops.count(), 5);
    }
}

#[test]
fn rendezvous_send_completes_only_when_received() {
    let (tx, rx) = channel::bounded(0);
    assert_eq!(tx.capacity(), Some(0));
    // Nobody waits: try_send fails.
    assert_eq!(tx.try_send(1), Err(TrySendError::Full(1)));
    let (fs, ws) = flag();
    let mut send = Box::pin(tx.send(2));
    assert!(poll_once(send.as_mut(), &ws).is_pending());
    assert!(
        poll_once(send.as_mut(), &ws).is_pending(),
        "no receiver yet"
    );
    assert_eq!(rx.try_recv(), Ok(2));
    assert!(fs.count() >= 1);
    assert_eq!(poll_once(send.as_mut(), &ws), Poll::Ready(Ok(())));

    // A receiver waits: try_send hands the value over.
    let (_fr, wr) = flag();
    let mut recv = Box::pin(rx.recv());
    assert!(poll_once(recv.as_mut(), &wr).is_pending());
    assert_eq!(tx.try_send(3), Ok(()));
    assert_eq!(poll_once(recv.as_mut(), &wr), Poll::Ready(Ok(3)));
}

#[test]
fn cancelled_rendezvous_send_does_not_deliver() {
    let (tx, rx) = channel::bounded(0);
    let (_f, w) = flag();
    let mut send = Box::pin(tx.send(9));
    assert!(poll_once(send.as_mut(), &w).is_pending());
    drop(send);
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
}

#[test]
fn blocking_send_and_recv_across_threads() {
    for cap in [0, 1, 16] {
        let (tx, rx) = channel::bounded(cap);
        let t = std::thread::spawn(move || {
            for i in 0..1000 {
                tx.send_blocking(i).unwrap();
            }
        });
        for i in 0..1000 {
            assert_eq!(rx.recv_blocking(), Ok(i));
        }
        t.join().unwrap();
        assert_eq!(rx.recv_blocking(), Err(RecvError));
    }
}

#[test]
#[should_panic(expected = "Cannot block the current thread from within a runtime")]
fn recv_blocking_inside_a_runtime_panics() {
    let (_tx, rx) = channel::unbounded::<()>();
    volt::runtime::Runtime::new()
        .unwrap()
        .block_on(async { rx.recv_blocking() })
        .unwrap();
}

#[test]
fn counts_capacity_and_identity() {
    let (tx, rx) = channel::bounded::<i32>(2);
    let tx2 = tx.clone();
    let rx2 = rx.clone();
    let rx3 = rx.clone();
    assert_eq!(tx.sender_count(), 2);
    assert_eq!(rx.receiver_count(), 3);
    drop(rx3);
    assert_eq!(tx.receiver_count(), 2);
    assert!(tx.same_channel(&tx2) && rx.same_channel(&rx2));
    let (other, _r) = channel::bounded::<i32>(2);
    assert!(!tx.same_channel(&other));
    assert_eq!(tx.capacity(), Some(2));
    assert!(tx.is_empty() && !tx.is_full());
    tx.try_send(1).unwrap();
    tx.try_send(2).unwrap();
    assert_eq!(rx.len(), 2);
    assert!(rx.is_full());
    assert_eq!(channel::unbounded::<()>().0.capacity(), None);
    assert!(format!("{tx:?}").contains("Sender"));
    assert_eq!(
        TryRecvError::Empty.to_string(),
        "receiving from an empty channel"
    );
    assert_eq!(
        TrySendError::Full(()).to_string(),
        "sending into a full channel"
    );
}

/// Threads hammering the channel with every capacity, bounded in time by
/// its size (not by a clock).
#[test]
fn stress_threads_all_capacities() {
    for cap in [0usize, 1, 3, 1024] {
        let (tx, rx) = channel::bounded::<usize>(cap);
        const N: usize = 5_000;
        let sum = Arc::new(AtomicUsize::new(0));
        let mut threads = Vec::new();
        for p in 0..3 {
            let tx = tx.clone();
            threads.push(std::thread::spawn(move || {
                for i in 0..N {
                    tx.send_blocking(p * N + i).unwrap();
                }
            }));
        }
        drop(tx);
        for _ in 0..3 {
            let (rx, sum) = (rx.clone(), sum.clone());
            threads.push(std::thread::spawn(move || {
                while let Ok(v) = rx.recv_blocking() {
                    sum.fetch_add(v, SeqCst);
                }
            }));
        }
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(sum.load(SeqCst), (0..3 * N).sum::<usize>(), "cap {cap}");
    }
}

#[test]
fn receiver_is_a_stream() {
    use futures_core::Stream;

    rt().block_on(async {
        let (tx, mut rx) = channel::bounded(2);
        let producer = volt::spawn(async move {
            for i in 0..100 {
                tx.send(i).await.unwrap();
            }
        });
        let mut got = Vec::new();
        while let Some(v) = std::future::poll_fn(|cx| Pin::new(&mut rx).poll_next(cx)).await {
            got.push(v);
        }
        producer.await.unwrap();
        assert_eq!(got, (0..100).collect::<Vec<_>>());
    });
}

#[test]
fn dropping_a_waiting_stream_receiver_passes_the_wake_up_on() {
    use futures_core::Stream;

    let (tx, mut rx) = channel::unbounded();
    let other = rx.clone();
    let (fa, wa) = flag();
    let (fb, wb) = flag();
    let mut cx = std::task::Context::from_waker(&wa);
    assert!(Pin::new(&mut rx).poll_next(&mut cx).is_pending());
    let mut b = Box::pin(other.recv());
    assert!(poll_once(b.as_mut(), &wb).is_pending());
    tx.try_send(1).unwrap();
    assert_eq!(fa.count(), 1);
    drop(rx);
    assert_eq!(fb.count(), 1);
    assert_eq!(poll_once(b.as_mut(), &wb), Poll::Ready(Ok(1)));
}

// Capacities 1 to 4 hand values to waiting receivers and wake waiting
// senders for freed slots (the `channel` module docs, "Cancellation").

#[test]
fn small_channel_gives_a_handed_value_back_in_front() {
    let (tx, rx) = channel::bounded(2);
    let (_f, waker) = flag();
    {
        let mut recv = std::pin::pin!(rx.recv());
        assert!(poll_once(recv.as_mut(), &waker).is_pending());
        // Handed to the waiting `recv`: it still takes one of the slots.
        tx.try_send(1).unwrap();
        tx.try_send(2).unwrap();
        assert_eq!(tx.try_send(3), Err(TrySendError::Full(3)));
        assert_eq!(rx.len(), 2);
        // Dropped before it returned 1: 1 goes back, ahead of 2.
    }
    assert_eq!(rx.len(), 2, "never over capacity");
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(rx.try_recv(), Ok(2));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
}

#[test]
fn small_channel_hands_a_given_back_value_to_the_next_waiting_receiver() {
    let (tx, rx) = channel::bounded(2);
    let (fa, wa) = flag();
    let (fb, wb) = flag();
    let mut b = Box::pin(rx.recv());
    {
        let mut a = std::pin::pin!(rx.recv());
        assert!(poll_once(a.as_mut(), &wa).is_pending());
        assert!(poll_once(b.as_mut(), &wb).is_pending());
        tx.try_send(7).unwrap();
        assert_eq!((fa.count(), fb.count()), (1, 0));
    }
    assert_eq!(fb.count(), 1);
    assert_eq!(poll_once(b.as_mut(), &wb), Poll::Ready(Ok(7)));
}

#[test]
fn small_channel_wakes_the_waiting_sender_for_a_freed_slot() {
    let (tx, rx) = channel::bounded(1);
    let (f, waker) = flag();
    let (g, waker2) = flag();
    tx.try_send(1).unwrap();
    let mut first = Box::pin(tx.send(2));
    let mut second = Box::pin(tx.send(3));
    assert!(poll_once(first.as_mut(), &waker).is_pending());
    assert!(poll_once(second.as_mut(), &waker2).is_pending());
    assert_eq!(rx.try_recv(), Ok(1));
    // The oldest waiting sender is woken; its value is still its own.
    assert_eq!((f.count(), g.count()), (1, 0));
    assert_eq!(rx.len(), 0);
    // A sender that is not waiting may take the room first...
    tx.try_send(9).unwrap();
    // ... and the woken one waits again, still first in line.
    assert!(poll_once(first.as_mut(), &waker).is_pending());
    assert_eq!(rx.try_recv(), Ok(9));
    assert_eq!((f.count(), g.count()), (2, 0));
    assert_eq!(poll_once(first.as_mut(), &waker), Poll::Ready(Ok(())));
    assert_eq!(rx.try_recv(), Ok(2));
    assert_eq!(g.count(), 1);
    assert_eq!(poll_once(second.as_mut(), &waker2), Poll::Ready(Ok(())));
    assert_eq!(rx.try_recv(), Ok(3));
}

#[test]
fn dropped_send_in_a_small_channel_has_not_sent() {
    for cap in 1..=4 {
        let (tx, rx) = channel::bounded(cap);
        let (_f, waker) = flag();
        for i in 0..cap {
            tx.try_send(i).unwrap();
        }
        {
            let mut send = std::pin::pin!(tx.send(100));
            assert!(poll_once(send.as_mut(), &waker).is_pending());
            // A receiver frees a slot and wakes the waiting send...
            assert_eq!(rx.try_recv(), Ok(0));
            // ... which is dropped before its next poll: not sent.
        }
        for i in 1..cap {
            assert_eq!(rx.try_recv(), Ok(i));
        }
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty), "cap {cap}");
        tx.try_send(200).unwrap();
        assert_eq!(rx.try_recv(), Ok(200));
    }
}

#[test]
fn closing_a_small_channel_gives_waiting_senders_their_values_back() {
    let (tx, rx) = channel::bounded(1);
    let (f, waker) = flag();
    tx.try_send(1).unwrap();
    let mut send = Box::pin(tx.send(2));
    assert!(poll_once(send.as_mut(), &waker).is_pending());
    assert!(rx.close());
    assert_eq!(f.count(), 1);
    match poll_once(send.as_mut(), &waker) {
        Poll::Ready(Err(e)) => assert_eq!(e.into_inner(), 2),
        other => panic!("expected the value back, got {other:?}"),
    }
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
}

#[test]
fn dropping_a_stream_receiver_gives_a_handed_value_back() {
    use futures_core::Stream;

    let (tx, mut rx) = channel::bounded(1);
    let other = rx.clone();
    let (_f, waker) = flag();
    let mut cx = std::task::Context::from_waker(&waker);
    assert!(Pin::new(&mut rx).poll_next(&mut cx).is_pending());
    tx.try_send(5).unwrap();
    drop(rx);
    assert_eq!(other.try_recv(), Ok(5));
}

/// The coop budget: a `recv` that always finds its channel ready still
/// yields now and then (as tokio's `mpsc`); a `send` takes no budget at any
/// capacity and yields only when it waits (as tokio's
/// `UnboundedSender::send`, and every peer channel's send).
#[test]
fn budget_is_taken_by_recv_not_by_send() {
    use std::sync::atomic::AtomicBool;
    let rt = volt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    // A task that runs only when the `block_on` future yields.
    let spawn_flag = || {
        let ran = Arc::new(AtomicBool::new(false));
        let r = ran.clone();
        volt::spawn(async move { r.store(true, SeqCst) });
        ran
    };
    rt.block_on(async {
        let (tx, rx) = channel::unbounded();
        let ran = spawn_flag();
        for i in 0..1000 {
            tx.send(i).await.unwrap();
        }
        assert!(!ran.load(SeqCst), "an unbounded send yielded");
        for _ in 0..1000 {
            rx.recv().await.unwrap();
        }
        assert!(ran.load(SeqCst), "1,000 ready receives never yielded");

        let (tx, rx) = channel::bounded(1000);
        let ran = spawn_flag();
        for i in 0..1000 {
            tx.send(i).await.unwrap();
        }
        assert!(!ran.load(SeqCst), "a bounded send that found room yielded");
        // A full channel: the send waits, which lets the receiver run.
        // A clone: `rx` stays, so the channel is still open when the
        // waiting send gets its room.
        let rx2 = rx.clone();
        let taken = volt::spawn(async move { rx2.recv().await.unwrap() });
        tx.send(1000).await.unwrap();
        assert!(ran.load(SeqCst));
        assert_eq!(taken.await.unwrap(), 0);
    });
}

#[test]
fn a_capacity_that_cannot_be_allocated_panics_with_a_message() {
    // The ring is allocated up front: a capacity the index cannot hold, or
    // one whose slots the allocator refuses, panics (catchably) and says
    // why, instead of aborting the process.
    let mut caps = vec![usize::MAX, isize::MAX as usize];
    if cfg!(target_pointer_width = "64") {
        // 2^46 slots of 16 bytes: 1 PiB, past any address space.
        caps.push(1 << 46);
    }
    for cap in caps {
        let err = std::panic::catch_unwind(|| channel::bounded::<u64>(cap)).unwrap_err();
        let msg = err.downcast_ref::<String>().unwrap();
        assert!(
            msg.starts_with(&format!("channel capacity {cap} is too large")),
            "{msg}"
        );
    }
    // A capacity that fits is no problem.
    let (tx, rx) = channel::bounded::<u64>(1 << 16);
    tx.try_send(1).unwrap();
    assert_eq!(rx.try_recv(), Ok(1));
}
