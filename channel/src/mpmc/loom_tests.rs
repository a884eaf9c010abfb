//! loom models of the MPMC channel: the Dekker flags and fast slots, close,
//! and cancellation. A lost wake-up shows up as a deadlock, which loom
//! reports.

use super::*;
use loom::future::block_on;
use loom::thread;

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// The smallest capacity served by the ring (smaller ones take the small,
/// locked path: its models are at the end).
const RING: usize = super::small::SMALL_MAX_CAP + 1;

/// One receiver waits (in the fast slot) while a sender sends; with
/// capacity 0 the send also waits for the receiver to take the value.
fn one_receiver_one_sender(cap: usize) {
    loom::model(move || {
        let (tx, rx) = bounded::<u32>(cap);
        let t = thread::spawn(move || block_on(rx.recv()));
        block_on(tx.send(7)).unwrap();
        assert_eq!(t.join().unwrap(), Ok(7));
    });
}

#[test]
fn send_wakes_the_fast_slot_receiver() {
    one_receiver_one_sender(RING);
}

/// Rendezvous: the send completes once the receiver has the value.
#[test]
fn rendezvous_handoff() {
    one_receiver_one_sender(0);
}

/// Two receivers wait (one in the slot, one in the list); two values go
/// to one each.
#[test]
fn two_waiters_slot_and_list() {
    loom::model(|| {
        let (tx, rx) = unbounded::<u32>();
        let rx2 = rx.clone();
        let a = thread::spawn(move || block_on(rx.recv()).unwrap());
        let b = thread::spawn(move || block_on(rx2.recv()).unwrap());
        tx.try_send(1).unwrap();
        tx.try_send(2).unwrap();
        let (x, y) = (a.join().unwrap(), b.join().unwrap());
        assert_eq!(x + y, 3);
    });
}

/// A full channel: the sender waits for the receiver to make room.
#[test]
fn pop_wakes_the_waiting_sender() {
    loom::model(|| {
        let (tx, rx) = bounded::<u32>(RING);
        for i in 0..RING as u32 {
            tx.try_send(i).unwrap();
        }
        let t = thread::spawn(move || block_on(tx.send(RING as u32)).unwrap());
        for i in 0..=RING as u32 {
            assert_eq!(block_on(rx.recv()), Ok(i));
        }
        t.join().unwrap();
    });
}

/// Closing (dropping the last sender) races a receiver that is going to
/// wait: it must wake with an error.
#[test]
fn close_races_a_waiter() {
    loom::model(|| {
        let (tx, rx) = bounded::<u32>(RING);
        let t = thread::spawn(move || block_on(rx.recv()));
        drop(tx);
        assert_eq!(t.join().unwrap(), Err(RecvError));
    });
}

/// A receiver that registered and is then dropped (cancelled) races the
/// send that may have notified it: the other receiver still gets the value.
#[test]
fn cancellation_races_a_wake() {
    loom::model(|| {
        let (tx, rx) = unbounded::<u32>();
        let rx2 = rx.clone();
        let cancelled = thread::spawn(move || {
            let mut f = pin!(rx2.recv());
            let mut cx = Context::from_waker(Waker::noop());
            // Either takes the value now or registers, then cancels.
            match f.as_mut().poll(&mut cx) {
                std::task::Poll::Ready(v) => Some(v.unwrap()),
                std::task::Poll::Pending => None,
            }
        });
        let waiter = thread::spawn(move || {
            let mut f = pin!(rx.recv());
            let mut cx = Context::from_waker(Waker::noop());
            if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                // Err: the other receiver took the value and the channel
                // closed before this thread ran.
                return v.ok();
            }
            // Whoever did not get the value must be woken by the close.
            block_on(f).ok()
        });
        tx.try_send(5).unwrap();
        let a = cancelled.join().unwrap();
        drop(tx);
        let b = waiter.join().unwrap();
        assert_eq!(a.or(b), Some(5));
        assert!(a.is_none() || b.is_none());
    });
}

/// A receiver waiting in the fast slot is polled again with another waker
/// (it takes the slot's cell to replace the stored one) while a value
/// arrives: the notifier either serves the new waker or passes the slot
/// over, and then the receiver's re-check after its fence finds the value.
#[test]
fn slot_waiter_repoll_races_a_send() {
    loom::model(|| {
        let (tx, rx) = bounded::<u32>(RING);
        let t = thread::spawn(move || {
            let mut f = pin!(rx.recv());
            let mut cx = Context::from_waker(Waker::noop());
            if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                return v;
            }
            // Registered with the no-op waker; `block_on` polls with its own.
            block_on(f)
        });
        tx.try_send(3).unwrap();
        assert_eq!(t.join().unwrap(), Ok(3));
    });
}

/// Unbounded: values cross a block boundary (2 slots per block under
/// loom) while the receiver drains and frees blocks.
#[test]
fn list_crosses_blocks_concurrently() {
    loom::model(|| {
        let (tx, rx) = unbounded::<u32>();
        let t = thread::spawn(move || {
            for i in 0..3 {
                tx.try_send(i).unwrap();
            }
        });
        let mut got = Vec::new();
        while let Ok(v) = block_on(rx.recv()) {
            got.push(v);
        }
        t.join().unwrap();
        assert_eq!(got, [0, 1, 2]);
    });
}

/// Unbounded: a receiver polls while a sender pushes. It may see the
/// sender's claim of the tail before the sender stores the slot's `written`
/// flag (the emptiness check skips its fence when the first look finds a
/// claim): it then waits for the flag and reads the value the flag
/// publishes, never an unwritten slot.
#[test]
fn try_recv_meets_a_claimed_unwritten_slot() {
    loom::model(|| {
        let (tx, rx) = unbounded::<u32>();
        let t = thread::spawn(move || tx.try_send(5).unwrap());
        let v = loop {
            match rx.try_recv() {
                Ok(v) => break v,
                Err(TryRecvError::Empty) => thread::yield_now(),
                Err(e) => panic!("{e:?}"),
            }
        };
        assert_eq!(v, 5);
        t.join().unwrap();
    });
}

/// Two receivers drain one block (2 slots under loom) at the same time:
/// the reader of the last slot starts freeing the block, the other may
/// still be reading its slot and takes the walk over (both set the slot's
/// `done` bit in a word they share: exactly one sees the other's mark).
/// Then this thread sends three more values, the third into the first
/// slot of the block parked for reuse: loom reports that write racing the
/// other receiver's read if the block is parked before that read ends.
#[test]
fn two_receivers_free_a_block_together() {
    loom::model(|| {
        let (tx, rx) = unbounded::<u32>();
        tx.try_send(1).unwrap();
        tx.try_send(2).unwrap();
        let rx2 = rx.clone();
        let t = thread::spawn(move || rx2.try_recv().unwrap());
        let mine = rx.try_recv().unwrap();
        for i in 3..6 {
            tx.try_send(i).unwrap();
        }
        let theirs = t.join().unwrap();
        assert_eq!(mine + theirs, 3);
        assert_ne!(mine, theirs);
        for i in 3..6 {
            assert_eq!(rx.try_recv(), Ok(i));
        }
    });
}

/// The receiver lets go of a drained block while the sender needs a new
/// one (2 slots per block under loom): values 0 to 2 are in the list
/// (block 0 holds 0 and 1, block 1 holds 2); the receiver pops 0 and 1
/// with `pop` (`single == false`) or `pop_single`, which parks block 0,
/// while the sender pushes 3 (the last slot of block 1: it takes a block
/// for after it, the parked one or a new one) and 4 (into that block).
/// Every value arrives once and in order, and loom sees no access to the
/// reused block that park's Release and take's Acquire do not order.
fn list_reuses_a_drained_block(single: bool) {
    loom::model(move || {
        let list = crate::bridge::loom::sync::Arc::new(super::list::List::<u32>::new());
        for i in 0..3 {
            list.push(i).unwrap();
        }
        let tx = list.clone();
        let t = thread::spawn(move || {
            tx.push(3).unwrap();
            tx.push(4).unwrap();
        });
        let pop = || {
            if single {
                // SAFETY: with `single`, this thread is the list's one
                // consumer and every pop is a `pop_single`.
                unsafe { list.pop_single() }
            } else {
                list.pop()
            }
        };
        assert_eq!(pop(), Ok(0));
        assert_eq!(pop(), Ok(1));
        t.join().unwrap();
        for i in 2..5 {
            assert_eq!(pop(), Ok(i));
        }
    });
}

#[test]
fn list_reuses_a_drained_block_pop() {
    list_reuses_a_drained_block(false);
}

#[test]
fn list_reuses_a_drained_block_pop_single() {
    list_reuses_a_drained_block(true);
}

// The small flavor (capacities 1 to `SMALL_MAX_CAP`): values handed to
// waiting receivers and handed back, slots granted to waiting senders.

/// Polls `f` once with a no-op waker.
fn poll_once<F: Future>(f: std::pin::Pin<&mut F>) -> Poll<F::Output> {
    f.poll(&mut Context::from_waker(Waker::noop()))
}

/// A send hands its value to a waiting receiver, which blocks on it.
#[test]
fn small_send_hands_to_a_waiting_receiver() {
    one_receiver_one_sender(1);
}

/// A receiver registers and is dropped while a send may hand it the value:
/// the value is received, or given back to the channel; never lost.
#[test]
fn small_handoff_races_a_dropped_recv() {
    loom::model(|| {
        let (tx, rx) = bounded::<u32>(1);
        let rx2 = rx.clone();
        let t = thread::spawn(move || {
            let mut f = pin!(rx2.recv());
            match poll_once(f.as_mut()) {
                Poll::Ready(v) => Some(v.unwrap()),
                // Dropped while waiting: a value handed meanwhile goes back.
                Poll::Pending => None,
            }
        });
        tx.try_send(7).unwrap();
        let got = t.join().unwrap();
        let left = rx.try_recv().ok();
        assert_eq!(got.or(left), Some(7));
        assert!(got.is_none() || left.is_none());
    });
}

/// A receiver makes room while a send is polled once and dropped: a send
/// that completed was received; one that did not has not sent, whether or
/// not it was woken for the room (receivers never take a sender's value).
#[test]
fn small_wake_races_a_dropped_send() {
    loom::model(|| {
        let (tx, rx) = bounded::<u32>(1);
        tx.try_send(1).unwrap();
        let tx2 = tx.clone();
        let t = thread::spawn(move || {
            let mut f = pin!(tx2.send(2));
            poll_once(f.as_mut()).is_ready()
        });
        assert_eq!(rx.try_recv(), Ok(1));
        let completed = t.join().unwrap();
        match rx.try_recv() {
            Ok(v) => {
                assert_eq!(v, 2);
                assert!(completed, "a dropped send delivered its value");
            }
            Err(e) => {
                assert!(!completed, "a completed send was lost");
                assert_eq!(e, TryRecvError::Empty);
            }
        }
        // The room is there for the next send.
        assert_eq!(tx.try_send(3), Ok(()));
    });
}

/// A sender woken for room is dropped before it polls: the wake-up passes
/// to the sender waiting behind it (else that sender would sleep forever).
#[test]
fn small_dropped_wake_passes_to_the_next_sender() {
    loom::model(|| {
        let (tx, rx) = bounded::<u32>(1);
        tx.try_send(1).unwrap();
        let mut first = Box::pin(tx.send(2));
        assert!(poll_once(first.as_mut()).is_pending());
        let tx2 = tx.clone();
        let second = thread::spawn(move || block_on(tx2.send(3)));
        let taker = thread::spawn(move || {
            assert_eq!(rx.try_recv(), Ok(1));
            rx
        });
        let rx = taker.join().unwrap();
        drop(first);
        second.join().unwrap().unwrap();
        assert_eq!(rx.try_recv(), Ok(3));
    });
}

/// A value handed to a receiver holds the only slot until the receiver
/// returns it; returning it wakes the waiting sender.
#[test]
fn small_returned_slot_wakes_the_waiting_sender() {
    loom::model(|| {
        let (tx, rx) = bounded::<u32>(1);
        let t = thread::spawn(move || {
            let a = block_on(rx.recv()).unwrap();
            let b = block_on(rx.recv()).unwrap();
            (a, b)
        });
        block_on(tx.send(1)).unwrap();
        block_on(tx.send(2)).unwrap();
        assert_eq!(t.join().unwrap(), (1, 2));
    });
}

/// Closing races a sender waiting for room and a receiver that makes it:
/// the sender either got its value in (received after the close) or gets
/// it back.
#[test]
fn small_close_races_a_waiting_send() {
    loom::model(|| {
        let (tx, rx) = bounded::<u32>(1);
        tx.try_send(1).unwrap();
        let tx2 = tx.clone();
        let t = thread::spawn(move || block_on(tx2.send(2)));
        assert_eq!(rx.try_recv(), Ok(1));
        rx.close();
        match t.join().unwrap() {
            Ok(()) => assert_eq!(rx.try_recv(), Ok(2)),
            Err(e) => {
                assert_eq!(e.into_inner(), 2);
                assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
            }
        }
    });
}
