//! loom models of the broadcast channel.

use super::*;
use loom::future::block_on;
use loom::thread;

/// A send races two receivers going to sleep; both get the value.
#[test]
fn send_wakes_every_receiver() {
    loom::model(|| {
        let (tx, mut rx1) = channel::<u32>(2);
        let mut rx2 = tx.subscribe();
        let t = thread::spawn(move || block_on(rx2.recv()));
        tx.send(1).unwrap();
        assert_eq!(block_on(rx1.recv()), Ok(1));
        assert_eq!(t.join().unwrap(), Ok(1));
    });
}

/// A send and then the close race a receiver that may be reading the
/// published tail: it gets the value, then `Closed`, never `Closed`
/// first and never a hang.
#[test]
fn send_then_close_race_a_receiver() {
    loom::model(|| {
        let (tx, mut rx) = channel::<u32>(2);
        let t = thread::spawn(move || {
            tx.send(1).unwrap();
            drop(tx);
        });
        assert_eq!(block_on(rx.recv()), Ok(1));
        assert_eq!(block_on(rx.recv()), Err(RecvError::Closed));
        t.join().unwrap();
    });
}

/// `len` reads the `rem` counters without the slot locks while a
/// receiver takes the value: it sees 1 or 0, and 0 once the receiver
/// is done.
#[test]
fn len_races_a_receiver() {
    loom::model(|| {
        let (tx, mut rx) = channel::<u32>(2);
        tx.send(7).unwrap();
        let t = thread::spawn(move || block_on(rx.recv()));
        assert!(tx.len() <= 1);
        assert_eq!(t.join().unwrap(), Ok(7));
        assert_eq!(tx.len(), 0);
    });
}

/// The last sender leaving wakes a waiting receiver with `Closed`.
#[test]
fn close_wakes_the_receiver() {
    loom::model(|| {
        let (tx, mut rx) = channel::<u32>(1);
        let t = thread::spawn(move || drop(tx));
        assert_eq!(block_on(rx.recv()), Err(RecvError::Closed));
        t.join().unwrap();
    });
}

/// A receiver dropped with a value unread walks the ring after it has
/// left the tail lock, while a send overwrites that value: every value is
/// dropped exactly once, by whoever holds it last, and nothing leaks. (A
/// walk that decremented a slot without checking its position would take
/// the new value from under the other receiver.)
#[test]
fn dropped_receiver_races_an_overwrite() {
    loom::model(|| {
        let v = Arc::new(());
        let (tx, mut rx1) = channel::<Arc<()>>(1);
        let rx2 = tx.subscribe();
        tx.send(v.clone()).unwrap();
        let second = v.clone();
        let t = thread::spawn(move || {
            let sent_to = tx.send(second).unwrap();
            assert!(sent_to == 1 || sent_to == 2);
        });
        drop(rx2);
        t.join().unwrap();
        assert_eq!(rx1.try_recv().unwrap_err(), TryRecvError::Lagged(1));
        assert!(rx1.try_recv().is_ok());
        assert_eq!(rx1.try_recv().unwrap_err(), TryRecvError::Closed);
        drop(rx1);
        assert_eq!(Arc::strong_count(&v), 1);
    });
}
