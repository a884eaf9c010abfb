//! loom models of the timer entry protocol: fire vs poll (waker
//! registration), fire vs cancel, fire vs reset, and the `next_wake`
//! handshake between a parking driver and a task filing an earlier timer.

use super::entry::{STATE_FIRED, TimerShared};
use super::{Filed, Handle, TimeSource};
use crate::time::clock::Clock;

use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, Ordering::SeqCst};
use loom::thread;
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{Wake, Waker};

struct Flag(AtomicBool);

impl Wake for Flag {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.store(true, SeqCst);
    }
}

fn handle() -> Arc<Handle> {
    Arc::new(Handle::new(1, TimeSource::new(&Clock::new(false, false))))
}

/// A pinned entry shared with the driver thread.
struct Entry(Pin<Box<TimerShared>>);
// SAFETY: test-only: the entry is only touched through `TimerShared`'s
// synchronized API (atomics, the shard lock).
unsafe impl Send for Entry {}
// SAFETY: as above.
unsafe impl Sync for Entry {}

impl Entry {
    fn ptr(&self) -> NonNull<TimerShared> {
        NonNull::from(&*self.0)
    }
}

#[test]
fn fire_racing_poll_is_never_lost() {
    loom::model(|| {
        let h = handle();
        let e = Arc::new(Entry(Box::pin(TimerShared::new())));
        // SAFETY: pinned; cancelled below before it is dropped.
        assert_eq!(unsafe { h.file(0, e.ptr(), 5) }, Filed::Queued);

        let h2 = h.clone();
        let driver = thread::spawn(move || h2.process(10));

        // The owner's poll: register, then check the state.
        let flag = std::sync::Arc::new(Flag(AtomicBool::new(false)));
        let waker = Waker::from(flag.clone());
        let ready = e.0.state() == STATE_FIRED || {
            e.0.register_waker(&waker);
            e.0.state() == STATE_FIRED
        };
        driver.join().unwrap();
        // Pending must mean a wake-up is on its way (it has arrived now).
        assert!(ready || flag.0.load(SeqCst), "lost wake-up");
        // SAFETY: registered with shard 0.
        unsafe { h.cancel(0, e.ptr()) };
    });
}

#[test]
fn fire_racing_cancel_leaves_the_wheel_empty() {
    loom::model(|| {
        let h = handle();
        let e = Arc::new(Entry(Box::pin(TimerShared::new())));
        // SAFETY: pinned; cancelled before dropped.
        unsafe { h.file(0, e.ptr(), 5) };
        let h2 = h.clone();
        let driver = thread::spawn(move || h2.process(10));
        // SAFETY: registered with shard 0 (the drop path).
        unsafe { h.cancel(0, e.ptr()) };
        driver.join().unwrap();
        // Fired or cancelled, the entry is in no wheel: nothing is left to
        // fire, and the entry may be freed.
        assert!(!e.0.is_filed());
        assert!(h.prepare_park().is_none_or(|t| t <= 10));
    });
}

#[test]
fn fire_racing_reset_ends_filed_at_the_new_deadline() {
    loom::model(|| {
        let h = handle();
        let e = Arc::new(Entry(Box::pin(TimerShared::new())));
        // SAFETY: pinned; cancelled before dropped.
        unsafe { h.file(0, e.ptr(), 5) };
        let h2 = h.clone();
        let driver = thread::spawn(move || h2.process(10));
        // Reset to tick 20 (the wheel may or may not be at 10 by now).
        // SAFETY: registered with shard 0.
        let filed = unsafe { h.file(0, e.ptr(), 20) };
        driver.join().unwrap();
        assert_ne!(filed, Filed::Fired);
        // Whichever came first, the entry now waits for tick 20.
        assert_eq!(e.0.state(), 20);
        h.process(20);
        assert_eq!(e.0.state(), STATE_FIRED);
    });
}

#[test]
fn parking_driver_sees_an_earlier_timer_or_is_unparked() {
    loom::model(|| {
        let h = handle();
        let early = Arc::new(Entry(Box::pin(TimerShared::new())));
        let late = Entry(Box::pin(TimerShared::new()));
        // SAFETY: pinned; cancelled before dropped.
        unsafe { h.file(0, late.ptr(), 100) };

        let h2 = h.clone();
        let early2 = early.clone();
        let filer = thread::spawn(move || {
            // SAFETY: pinned; cancelled before dropped.
            unsafe { h2.file(0, early2.ptr(), 10) }
        });
        let sleep_until = h.prepare_park();
        let filed = filer.join().unwrap();
        assert!(
            sleep_until.is_some_and(|t| t <= 10) || filed == Filed::QueuedUnpark,
            "the driver would sleep past the new timer: {sleep_until:?}, {filed:?}"
        );
        // SAFETY: both registered with shard 0.
        unsafe {
            h.cancel(0, late.ptr());
            h.cancel(0, early.ptr());
        }
    });
}
