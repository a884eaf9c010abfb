//! Unit tests of the data paths and the wait queue.

use super::list::{List, MAX_CREDITS, SHIFT_CREDITS};
use super::ring::{PopError, PushError, Ring};
use super::*;

use std::sync::Arc as StdArc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

#[test]
fn ring_fills_wraps_and_closes() {
    let ring = Ring::new(3);
    for lap in 0..5 {
        for i in 0..3 {
            ring.push_with::<true>(lap * 10 + i).unwrap();
        }
        assert_eq!(ring.len(), 3);
        assert_eq!(ring.push_with::<true>(99).unwrap_err().1, PushError::Full);
        for i in 0..3 {
            assert_eq!(ring.pop_with::<true>(), Ok(lap * 10 + i));
        }
        assert_eq!(ring.len(), 0);
        assert_eq!(ring.pop_with::<true>(), Err(PopError::Empty));
    }
    ring.push_with::<true>(1).unwrap();
    assert!(ring.close());
    assert!(!ring.close());
    assert_eq!(ring.push_with::<true>(2).unwrap_err().1, PushError::Closed);
    assert_eq!(ring.pop_with::<true>(), Ok(1));
    assert_eq!(ring.pop_with::<true>(), Err(PopError::Closed));
}

#[test]
fn ring_single_attempts_agree_with_the_full_operations() {
    // `try_push`/`try_pop` are the futures' fast path: they never succeed
    // on a full / empty / closed ring, a failure hands the value back and
    // changes nothing, and on a ring with room / a value they succeed
    // unless their weak CAS fails spuriously (Miri simulates that), which
    // a retry gets past.
    // Spurious failures are rare; a bounded retry keeps a broken attempt
    // from hanging the test instead of failing it.
    const RETRIES: usize = 1_000;
    fn push(ring: &Ring<i32>, mut v: i32) {
        for _ in 0..RETRIES {
            match ring.try_push(v) {
                Ok(_) => return,
                Err(back) => v = back,
            }
        }
        panic!("try_push kept failing on a ring with room");
    }
    fn pop(ring: &Ring<i32>) -> i32 {
        for _ in 0..RETRIES {
            if let Some(v) = ring.try_pop() {
                return v;
            }
        }
        panic!("try_pop kept failing on a ring holding a value");
    }
    let ring = Ring::new(2);
    assert_eq!(ring.try_pop(), None);
    for lap in 0..4 {
        push(&ring, lap * 10);
        push(&ring, lap * 10 + 1);
        assert_eq!(ring.try_push(99), Err(99));
        assert_eq!(ring.len(), 2);
        assert_eq!(pop(&ring), lap * 10);
        // Mixed with the full operations, which see the same state.
        assert_eq!(ring.pop_with::<true>(), Ok(lap * 10 + 1));
        assert_eq!(ring.try_pop(), None);
        assert_eq!(ring.pop_with::<true>(), Err(PopError::Empty));
    }
    push(&ring, 5);
    assert!(ring.close());
    assert_eq!(ring.try_push(6), Err(6));
    assert_eq!(ring.push_with::<true>(6).unwrap_err().1, PushError::Closed);
    assert_eq!(pop(&ring), 5);
    assert_eq!(ring.try_pop(), None);
    assert_eq!(ring.pop_with::<true>(), Err(PopError::Closed));
}

#[test]
#[should_panic(expected = "`Send` polled after completion")]
fn send_polled_after_completion_panics() {
    let (tx, _rx) = bounded(1);
    let mut send = std::pin::pin!(tx.send(1));
    let (_, waker) = counting_waker();
    let mut cx = std::task::Context::from_waker(&waker);
    assert_eq!(send.as_mut().poll(&mut cx), std::task::Poll::Ready(Ok(())));
    let _ = send.as_mut().poll(&mut cx);
}

#[test]
fn ring_unpush_takes_back_only_an_unclaimed_value() {
    let ring = Ring::new(1);
    let t = ring.push_with::<true>(5).unwrap();
    assert!(!ring.is_taken(t));
    assert_eq!(ring.unpush(t), Some(5));
    assert_eq!(ring.pop_with::<true>(), Err(PopError::Empty));
    let t = ring.push_with::<true>(6).unwrap();
    assert_eq!(ring.pop_with::<true>(), Ok(6));
    assert!(ring.is_taken(t));
    assert_eq!(ring.unpush(t), None);
}

#[test]
fn list_crosses_blocks_and_counts() {
    // Several blocks (31 slots each) either way; small under Miri, which
    // interprets every step.
    const N: usize = if cfg!(miri) { 100 } else { 1000 };
    let list = List::<_>::new();
    assert_eq!(list.pop(), Err(PopError::Empty));
    for i in 0..N {
        list.push(i).unwrap();
        assert_eq!(list.len(), i + 1);
    }
    for i in 0..N {
        assert_eq!(list.pop(), Ok(i));
        assert_eq!(list.len(), N - 1 - i);
    }
    assert_eq!(list.pop(), Err(PopError::Empty));
    list.push(7).unwrap();
    assert!(list.close());
    assert!(list.push(8).is_err());
    assert_eq!(list.pop(), Ok(7));
    assert_eq!(list.pop(), Err(PopError::Closed));
}

/// A list with credits: a send takes a credit and a position at once;
/// credits come back, move out, and close.
#[test]
fn list_credits_are_taken_returned_drained_and_closed() {
    let list = List::<u32, SHIFT_CREDITS>::with_credits(Some(2));
    assert_eq!(list.credits(), 2);
    list.push_with_credit(1).unwrap();
    assert!(list.take_credit());
    assert_eq!(list.credits(), 0);
    assert_eq!(list.push_with_credit(2), Err(2));
    assert!(!list.take_credit());
    // A reservation's push takes no credit.
    list.push(2).unwrap();
    assert_eq!(list.len(), 2);
    assert!(list.return_credit());
    assert!(list.return_credit());
    assert_eq!(list.credits(), 2);
    assert_eq!(list.drain_credits(false), 2);
    assert_eq!(list.credits(), 0);
    assert!(list.return_credit());
    assert_eq!(list.drain_credits(true), 1);
    assert!(!list.return_credit());
    assert!(!list.take_credit());
    assert_eq!(list.push_with_credit(3), Err(3));
    assert_eq!(list.drain_credits(true), 0);
    // Positions were untouched by all of it.
    // SAFETY: this list is only popped here, by `pop_single`, on this thread.
    unsafe {
        assert_eq!(list.pop_single(), Ok(1));
        assert_eq!(list.pop_single(), Ok(2));
        assert_eq!(list.pop_single(), Err(PopError::Empty));
    }
    // Never any credit: an unbounded channel, or one too large for them.
    let none = List::<u32, SHIFT_CREDITS>::with_credits(None);
    assert_eq!(none.credits(), 0);
    assert!(!none.return_credit());
    assert_eq!(none.push_with_credit(1), Err(1));
    assert_eq!(MAX_CREDITS, (1 << 20) - 1);
}

/// Positions of a list with credits wrap at the index's width; pushes,
/// pops, `len` and the drop of what is left go across the wrap.
#[test]
fn list_with_credits_positions_wrap() {
    const LAP: usize = 32;
    let top = usize::MAX >> SHIFT_CREDITS;
    let drops = StdArc::new(AtomicUsize::new(0));
    // Three blocks before the wrap.
    let list = List::<Counted, SHIFT_CREDITS>::with_credits_at(8, top + 1 - 3 * LAP);
    // SAFETY: this list is only popped here, by `pop_single`, on this thread.
    let pop = || unsafe { list.pop_single() }.ok();
    for i in 0..200 {
        let value = Counted(drops.clone());
        match list.push_with_credit(value) {
            Ok(()) => {}
            Err(value) => list.push(value).ok().unwrap(),
        }
        assert_eq!(list.len(), i % 3 + 1);
        if i % 3 == 2 {
            for _ in 0..3 {
                drop(pop().unwrap());
                list.return_credit();
            }
        }
    }
    assert_eq!(list.len(), 2);
    assert_eq!(drops.load(SeqCst), 198);
    drop(list);
    assert_eq!(drops.load(SeqCst), 200);
}

#[test]
fn list_single_consumer_pop_crosses_blocks_and_counts() {
    let list = List::<_>::new();
    // SAFETY: this list is only popped here, by `pop_single`, on this thread.
    let pop = || unsafe { list.pop_single() };
    assert_eq!(pop(), Err(PopError::Empty));
    for round in 0..3 {
        for i in 0..100 {
            list.push(round * 1000 + i).unwrap();
            assert_eq!(list.len(), i + 1);
        }
        for i in 0..100 {
            assert_eq!(pop(), Ok(round * 1000 + i));
            assert_eq!(list.len(), 99 - i);
        }
        assert_eq!(pop(), Err(PopError::Empty));
    }
}

#[test]
fn list_single_consumer_pop_against_senders() {
    // Two sender threads, one consumer: every value once, each sender's
    // in order, blocks freed behind the consumer (Miri checks the frees).
    const N: usize = if cfg!(miri) { 40 } else { 10_000 };
    let list = StdArc::new(List::<_>::new());
    let senders: Vec<_> = (0..2)
        .map(|s| {
            let list = list.clone();
            std::thread::spawn(move || {
                for i in 0..N {
                    list.push((s, i)).unwrap();
                }
            })
        })
        .collect();
    let mut next = [0; 2];
    while next != [N, N] {
        // SAFETY: the only consumer.
        match unsafe { list.pop_single() } {
            Ok((s, i)) => {
                assert_eq!(i, next[s]);
                next[s] += 1;
            }
            Err(e) => {
                assert_eq!(e, PopError::Empty);
                std::thread::yield_now();
            }
        }
    }
    for s in senders {
        s.join().unwrap();
    }
}

#[test]
fn list_single_consumer_leftovers_drop_with_the_list() {
    let drops = StdArc::new(AtomicUsize::new(0));
    let list = List::<_>::new();
    for _ in 0..70 {
        assert!(list.push(Counted(drops.clone())).is_ok());
    }
    for _ in 0..40 {
        // SAFETY: the only consumer.
        assert!(unsafe { list.pop_single() }.is_ok());
    }
    assert_eq!(drops.load(SeqCst), 40);
    drop(list);
    assert_eq!(drops.load(SeqCst), 70);
}

struct Counted(StdArc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

#[test]
fn leftover_values_are_dropped_with_the_queue() {
    let drops = StdArc::new(AtomicUsize::new(0));
    let ring = Ring::new(4);
    let list = List::<_>::new();
    for _ in 0..3 {
        ring.push_with::<true>(Counted(drops.clone())).ok().unwrap();
    }
    for _ in 0..100 {
        list.push(Counted(drops.clone())).ok().unwrap();
    }
    drop(list.pop());
    drop(ring.pop_with::<true>());
    assert_eq!(drops.load(SeqCst), 2);
    drop(ring);
    drop(list);
    assert_eq!(drops.load(SeqCst), 103);
}

#[test]
fn threads_move_every_value_exactly_once() {
    for cap in [None, Some(1), Some(3), Some(64)] {
        let q = StdArc::new(match cap {
            Some(c) => chan::Chan::bounded(c),
            None => chan::Chan::unbounded(),
        });
        // Small under Miri, which interprets every step (still more
        // values than a block holds and than the largest ring).
        const N: usize = if cfg!(miri) { 100 } else { 20_000 };
        let sum = StdArc::new(AtomicUsize::new(0));
        let mut threads = Vec::new();
        for p in 0..2 {
            let q = q.clone();
            threads.push(std::thread::spawn(move || {
                for i in 0..N {
                    let mut v = p * N + i;
                    loop {
                        match q.try_send(v) {
                            Ok(_) => break,
                            Err(TrySendError::Full(back) | TrySendError::Closed(back)) => {
                                v = back;
                                std::thread::yield_now();
                            }
                        }
                    }
                }
            }));
        }
        let got = StdArc::new(AtomicUsize::new(0));
        for _ in 0..2 {
            let (q, sum, got) = (q.clone(), sum.clone(), got.clone());
            threads.push(std::thread::spawn(move || {
                while got.load(SeqCst) < 2 * N {
                    match q.try_recv() {
                        Ok(v) => {
                            sum.fetch_add(v, SeqCst);
                            got.fetch_add(1, SeqCst);
                        }
                        Err(_) => std::thread::yield_now(),
                    }
                }
            }));
        }
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(got.load(SeqCst), 2 * N);
        assert_eq!(sum.load(SeqCst), (0..2 * N).sum::<usize>(), "cap {cap:?}");
    }
}

/// Counts the wake-ups it receives.
struct CountingWaker(AtomicUsize);

impl std::task::Wake for CountingWaker {
    fn wake(self: StdArc<Self>) {
        self.0.fetch_add(1, SeqCst);
    }
}

fn counting_waker() -> (StdArc<CountingWaker>, std::task::Waker) {
    let count = StdArc::new(CountingWaker(AtomicUsize::new(0)));
    (count.clone(), std::task::Waker::from(count))
}

#[test]
fn list_waiters_keep_replace_and_give_back_their_wakers() {
    use super::waiters::{Node, Place, Polled, WaitQueue};
    use std::pin::pin;

    let queue = WaitQueue::new();
    let (first_count, first) = counting_waker();
    let (second_count, second) = counting_waker();
    let (third_count, third) = counting_waker();
    let slot_node = pin!(Node::new());
    let list_node = pin!(Node::new());
    let later_node = pin!(Node::new());

    // The fast slot takes the first waiter; the others queue in the list.
    assert_eq!(queue.register(slot_node.as_ref(), &first), Place::Slot);
    assert_eq!(queue.register(list_node.as_ref(), &second), Place::List);
    assert_eq!(queue.register(later_node.as_ref(), &second), Place::List);
    // A re-poll with another waker replaces the stored one (the old one is
    // dropped, not woken); with the same waker it keeps it.
    assert_eq!(
        queue.poll_registered(Place::List, list_node.as_ref(), &third),
        Polled::Waiting
    );
    assert_eq!(
        queue.poll_registered(Place::List, later_node.as_ref(), &second),
        Polled::Waiting
    );

    // FIFO: the slot first, then the list's head, which now holds `third`.
    queue.notify_one();
    assert_eq!(first_count.0.load(SeqCst), 1);
    queue.notify_one();
    assert_eq!(third_count.0.load(SeqCst), 1);
    assert_eq!(second_count.0.load(SeqCst), 0);
    assert_eq!(
        queue.poll_registered(Place::Slot, slot_node.as_ref(), &first),
        Polled::Notified
    );
    assert_eq!(
        queue.poll_registered(Place::List, list_node.as_ref(), &third),
        Polled::Notified
    );
    // The last one leaves unnotified: its waker is dropped, never woken,
    // and the queue is empty again.
    assert!(!queue.leave(Place::List, later_node.as_ref()));
    queue.notify_one();
    assert_eq!(second_count.0.load(SeqCst), 0);
    // Only our own references to the wakers are left.
    drop((first, second, third));
    assert_eq!(StdArc::strong_count(&first_count), 1);
    assert_eq!(StdArc::strong_count(&second_count), 1);
    assert_eq!(StdArc::strong_count(&third_count), 1);
}

#[test]
fn slot_waiter_replaces_its_waker_and_leaves_cleanly() {
    use super::waiters::{Node, Place, Polled, WaitQueue};
    use std::pin::pin;

    let queue = WaitQueue::new();
    let (first_count, first) = counting_waker();
    let (second_count, second) = counting_waker();
    let node = pin!(Node::new());

    assert_eq!(queue.register(node.as_ref(), &first), Place::Slot);
    // A re-poll with another waker replaces the stored one and asks for a
    // re-check (a notifier may have passed the slot over meanwhile).
    assert_eq!(
        queue.poll_registered(Place::Slot, node.as_ref(), &second),
        Polled::Recheck
    );
    queue.notify_one();
    assert_eq!(first_count.0.load(SeqCst), 0);
    assert_eq!(second_count.0.load(SeqCst), 1);
    // Notified: the poll gives the slot up, and the next waiter gets it.
    assert_eq!(
        queue.poll_registered(Place::Slot, node.as_ref(), &second),
        Polled::Notified
    );
    let other = pin!(Node::new());
    assert_eq!(queue.register(other.as_ref(), &first), Place::Slot);
    // Leaving unnotified drops the stored waker, never wakes it, and frees
    // the slot; a notification with nobody waiting is lost on nobody.
    assert!(!queue.leave(Place::Slot, other.as_ref()));
    queue.notify_one();
    assert_eq!(first_count.0.load(SeqCst), 0);
    assert_eq!(queue.register(other.as_ref(), &second), Place::Slot);
    queue.notify_one();
    // A notified waiter that leaves instead of polling reports it, so its
    // future passes the notification on.
    assert!(queue.leave(Place::Slot, other.as_ref()));
    assert_eq!(second_count.0.load(SeqCst), 2);
    drop((first, second));
    assert_eq!(StdArc::strong_count(&first_count), 1);
    assert_eq!(StdArc::strong_count(&second_count), 1);
}

/// The small flavor's hand-off, give-back, sender wake-ups and close on one
/// thread, with values that own heap memory: Miri runs this (the list
/// stores pointers to whole waiters and reaches their value cells through
/// them).
#[test]
fn small_path_moves_values_between_waiters() {
    use std::task::{Context, Poll, Waker};
    let mut cx = Context::from_waker(Waker::noop());
    let (tx, rx) = bounded::<String>(1);

    // Hand-off to a waiting receiver.
    let mut recv = Box::pin(rx.recv());
    assert!(recv.as_mut().poll(&mut cx).is_pending());
    tx.try_send("a".to_string()).unwrap();
    assert_eq!(
        recv.as_mut().poll(&mut cx),
        Poll::Ready(Ok("a".to_string()))
    );

    // A handed value holds its slot until returned, and comes back in
    // front when its receiver is dropped.
    let mut recv = Box::pin(rx.recv());
    assert!(recv.as_mut().poll(&mut cx).is_pending());
    tx.try_send("b".to_string()).unwrap();
    assert_eq!(rx.len(), 1);
    assert!(tx.try_send("c".to_string()).unwrap_err().is_full());
    drop(recv);
    assert_eq!(rx.len(), 1);
    assert_eq!(rx.try_recv().as_deref(), Ok("b"));

    // A receive wakes the waiting sender for the slot it frees, which
    // sends in its own poll; a waiting sender dropped keeps (and drops)
    // its value.
    tx.try_send("c".to_string()).unwrap();
    let mut send = Box::pin(tx.send("d".to_string()));
    assert!(send.as_mut().poll(&mut cx).is_pending());
    assert_eq!(rx.try_recv().as_deref(), Ok("c"));
    assert_eq!(rx.len(), 0);
    assert_eq!(send.as_mut().poll(&mut cx), Poll::Ready(Ok(())));
    let mut send = Box::pin(tx.send("e".to_string()));
    assert!(send.as_mut().poll(&mut cx).is_pending());
    drop(send);
    assert_eq!(rx.try_recv().as_deref(), Ok("d"));

    // A woken sender that is dropped passes the wake-up on.
    tx.try_send("x".to_string()).unwrap();
    let mut first = Box::pin(tx.send("e1".to_string()));
    let mut second = Box::pin(tx.send("e2".to_string()));
    assert!(first.as_mut().poll(&mut cx).is_pending());
    assert!(second.as_mut().poll(&mut cx).is_pending());
    assert_eq!(rx.try_recv().as_deref(), Ok("x"));
    drop(first);
    assert_eq!(second.as_mut().poll(&mut cx), Poll::Ready(Ok(())));
    assert_eq!(rx.try_recv().as_deref(), Ok("e2"));

    // Close wakes a waiting receiver with the error, and a waiting sender
    // gets its value back.
    tx.try_send("f".to_string()).unwrap();
    let mut send = Box::pin(tx.send("g".to_string()));
    assert!(send.as_mut().poll(&mut cx).is_pending());
    assert!(rx.close());
    match send.as_mut().poll(&mut cx) {
        Poll::Ready(Err(e)) => assert_eq!(e.into_inner(), "g"),
        other => panic!("expected the value back, got {other:?}"),
    }
    assert_eq!(rx.try_recv().as_deref(), Ok("f"));
    let mut recv = Box::pin(rx.recv());
    assert_eq!(recv.as_mut().poll(&mut cx), Poll::Ready(Err(RecvError)));
}
