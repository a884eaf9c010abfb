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
