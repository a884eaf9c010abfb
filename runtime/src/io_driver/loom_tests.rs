//! loom models of readiness delivery: the driver setting readiness and
//! waking, racing a task that checks and registers (poll slot and
//! `Readiness` list), and a stale clear racing a new event.

use super::scheduled_io::{Direction, ReadyEvent, ScheduledIo};
use crate::io::{Interest, Ready};

use loom::sync::Arc;
use loom::thread;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::task::{Context, Wake, Waker};

struct Flag(AtomicBool);

impl Wake for Flag {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.store(true, SeqCst);
    }
}

fn flag() -> (std::sync::Arc<Flag>, Waker) {
    let f = std::sync::Arc::new(Flag(AtomicBool::new(false)));
    let w = Waker::from(f.clone());
    (f, w)
}

#[test]
fn event_racing_poll_slot_is_never_lost() {
    loom::model(|| {
        let io = Arc::new(ScheduledIo::new(1));
        let io2 = io.clone();
        let driver = thread::spawn(move || {
            io2.set_readiness(1, Ready::READABLE);
            io2.wake(Ready::READABLE);
        });
        let (f, w) = flag();
        let ready = io
            .poll_readiness(&mut Context::from_waker(&w), Direction::Read)
            .is_ready();
        driver.join().unwrap();
        assert!(ready || f.0.load(SeqCst), "lost wake-up");
    });
}

#[test]
fn event_racing_readiness_future_is_never_lost() {
    loom::model(|| {
        let io = Arc::new(ScheduledIo::new(1));
        let io2 = io.clone();
        let driver = thread::spawn(move || {
            io2.set_readiness(1, Ready::WRITABLE);
            io2.wake(Ready::WRITABLE);
        });
        let (f, w) = flag();
        let mut fut = Box::pin(io.readiness(Interest::WRITABLE));
        let ready = fut.as_mut().poll(&mut Context::from_waker(&w)).is_ready();
        driver.join().unwrap();
        assert!(ready || f.0.load(SeqCst), "lost wake-up");
        if !ready {
            assert!(fut.as_mut().poll(&mut Context::from_waker(&w)).is_ready());
        }
    });
}

#[test]
fn stale_clear_never_erases_a_newer_event() {
    loom::model(|| {
        let io = Arc::new(ScheduledIo::new(1));
        io.set_readiness(1, Ready::READABLE);
        let seen: ReadyEvent = io.ready_event(Interest::READABLE);
        let io2 = io.clone();
        let driver = thread::spawn(move || io2.set_readiness(2, Ready::READABLE));
        // The task got WouldBlock for what it saw at tick 1.
        io.clear_readiness(seen);
        driver.join().unwrap();
        // Tick 2's readiness survives whichever order they ran in.
        assert!(io.ready_event(Interest::READABLE).ready.is_readable());
    });
}
