//! loom models of the mpsc receiver's Dekker pair and the end-of-channel
//! signals. A lost wake-up shows up as a deadlock.

use super::*;
use loom::future::block_on;
use loom::thread;

/// A send races the receiver going to sleep.
#[test]
fn send_races_the_waiting_receiver() {
    loom::model(|| {
        let (tx, mut rx) = unbounded_channel::<u32>();
        let t = thread::spawn(move || tx.send(1).unwrap());
        assert_eq!(block_on(rx.recv()), Some(1));
        assert_eq!(block_on(rx.recv()), None);
        t.join().unwrap();
    });
}

/// A bounded send waits for room that the receiver makes.
#[test]
fn bounded_sender_waits_for_room() {
    loom::model(|| {
        let (tx, mut rx) = channel::<u32>(1);
        let t = thread::spawn(move || {
            block_on(tx.send(1)).unwrap();
            block_on(tx.send(2)).unwrap();
        });
        assert_eq!(block_on(rx.recv()), Some(1));
        assert_eq!(block_on(rx.recv()), Some(2));
        t.join().unwrap();
    });
}

/// A send that finds no credit queues on the semaphore while the
/// receiver gives the credit back (chan.rs, "Credits", rule 3): one of them
/// moves it into the semaphore, so the send completes (a credit stranded
/// beside a waiting sender deadlocks the model).
#[test]
fn credit_return_races_a_queued_sender() {
    loom::model(|| {
        let (tx, mut rx) = channel::<u32>(1);
        tx.try_send(1).unwrap();
        let t = thread::spawn(move || {
            block_on(tx.send(2)).unwrap();
            tx.capacity()
        });
        assert_eq!(rx.try_recv(), Ok(1));
        assert_eq!(block_on(rx.recv()), Some(2));
        t.join().unwrap();
        assert_eq!(rx.capacity(), 1);
    });
}

/// `reserve_many(2)` while one unit of room is a credit and the other is
/// held by a queued value: the credit goes into the semaphore, and the
/// value's return completes the reservation.
#[test]
fn reserve_many_gathers_credits_and_returns() {
    loom::model(|| {
        let (tx, mut rx) = channel::<u32>(2);
        tx.try_send(1).unwrap();
        let t = thread::spawn(move || {
            let permits = block_on(tx.reserve_many(2)).unwrap();
            for (permit, v) in permits.zip([2, 3]) {
                permit.send(v);
            }
        });
        assert_eq!(block_on(rx.recv()), Some(1));
        t.join().unwrap();
        assert_eq!(rx.try_recv(), Ok(2));
        assert_eq!(rx.try_recv(), Ok(3));
        assert_eq!(rx.capacity(), 2);
    });
}

/// A permit given back while the receiver closes: the room lands in the
/// semaphore either way (before the close's drain of the credits, or
/// refused by the closed credits), so the channel ends.
#[test]
fn permit_return_races_close() {
    loom::model(|| {
        let (tx, mut rx) = channel::<u32>(1);
        let permit = tx.try_reserve_owned().unwrap();
        let t = thread::spawn(move || permit.release());
        rx.close();
        assert_eq!(block_on(rx.recv()), None);
        let tx = t.join().unwrap();
        assert!(tx.is_closed());
        assert!(tx.try_send(5).is_err());
    });
}

/// After `close`, the last outstanding permit coming back ends the
/// channel for a waiting receiver.
#[test]
fn permit_drop_after_close_ends_the_channel() {
    loom::model(|| {
        let (tx, mut rx) = channel::<u32>(1);
        let permit = tx.try_reserve_owned().unwrap();
        rx.close();
        let t = thread::spawn(move || {
            // Keep the sender alive: only the permit ends the channel.
            let tx = permit.release();
            tx.is_closed()
        });
        assert_eq!(block_on(rx.recv()), None);
        assert!(t.join().unwrap());
    });
}

/// Two permits coming back at once after `close`: the receiver is woken
/// only when the count is full again, so the later return in the count's
/// order must see it (a lost wake-up deadlocks the model).
#[test]
fn concurrent_permit_returns_after_close_end_the_channel() {
    loom::model(|| {
        let (tx, mut rx) = channel::<u32>(2);
        let a = tx.clone().try_reserve_owned().unwrap();
        let b = tx.try_reserve_owned().unwrap();
        rx.close();
        // The senders come back alive: only the permits end the channel.
        let ta = thread::spawn(move || a.release());
        let tb = thread::spawn(move || b.release());
        assert_eq!(block_on(rx.recv()), None);
        let senders = (ta.join().unwrap(), tb.join().unwrap());
        assert!(senders.0.is_closed() && senders.1.is_closed());
    });
}

/// A sender crosses a block boundary (2 slots per block under loom) while
/// the one receiver takes values with the single-consumer pop and frees
/// each block behind it: every value arrives once, in order.
#[test]
fn single_consumer_pop_crosses_blocks() {
    loom::model(|| {
        let (tx, mut rx) = unbounded_channel::<u32>();
        tx.send(1).unwrap();
        let t = thread::spawn(move || {
            tx.send(2).unwrap();
            tx.send(3).unwrap();
            tx.send(4).unwrap();
        });
        let mut got = Vec::new();
        while let Some(v) = block_on(rx.recv()) {
            got.push(v);
        }
        t.join().unwrap();
        assert_eq!(got, [1, 2, 3, 4]);
    });
}

/// `try_recv` races a send that may have claimed its slot and not yet
/// written it: the value is read only after its write (loom checks every
/// access to the slot's cell), and it arrives.
#[test]
fn try_recv_meets_a_claimed_slot() {
    loom::model(|| {
        let (tx, mut rx) = unbounded_channel::<u32>();
        let t = thread::spawn(move || tx.send(7).unwrap());
        let first = rx.try_recv();
        t.join().unwrap();
        match first {
            Ok(v) => assert_eq!(v, 7),
            Err(_) => assert_eq!(rx.try_recv(), Ok(7)),
        }
    });
}

/// The last sender and the receiver go at once, a value sent just before
/// (chan.rs: the channel's last handle skips the close or the wake-up):
/// the value is dropped exactly once, whichever handle is last, and a
/// bounded send either lands (the channel drops it) or fails (the sender
/// gets it back).
#[test]
fn last_sender_and_receiver_drop_together() {
    use crate::bridge::loom::sync::Arc as LoomArc;
    loom::model(|| {
        let value = LoomArc::new(());
        let (tx, rx) = channel::<LoomArc<()>>(1);
        let sent = value.clone();
        let t = thread::spawn(move || {
            // Fails if the receiver went first; the value comes back.
            drop(tx.try_send(sent));
            drop(tx);
        });
        drop(rx);
        t.join().unwrap();
        assert_eq!(LoomArc::strong_count(&value), 1);
    });
}
