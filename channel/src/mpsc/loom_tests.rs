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
