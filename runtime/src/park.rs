//! Blocking the current thread until it is woken.
//!
//! A `ParkThread` is a one-token parker (as `std::thread::park`, but private
//! to volt, so user code that parks the same thread cannot steal our
//! tokens). `unpark` leaves a token; `park` consumes it or sleeps until one
//! arrives.
//!
//! # Protocol
//!
//! `state` is `EMPTY`, `PARKED` or `NOTIFIED`.
//!
//! * `unpark` swaps in `NOTIFIED`. If it replaced `PARKED`, the parker is
//!   (or is about to be) waiting on the condvar: `unpark` takes the mutex
//!   once, which orders it after the parker's check-then-wait, and notifies.
//! * `park` first tries `NOTIFIED -> EMPTY` (token available, no sleep).
//!   Otherwise it takes the mutex and moves `EMPTY -> PARKED` under it, then
//!   waits until a `NOTIFIED -> EMPTY` succeeds (spurious wake-ups loop).
//!
//! Taking the mutex in `unpark` is what prevents the lost wake-up: the
//! notify cannot slip between the parker's `PARKED` store and its `wait`.
//!
//! [`CachedParkThread`] gives every thread one lazily created parker and a
//! `block_on` built on it, used by `Runtime::block_on` on the multi-thread
//! runtime, `Handle::block_on`, and the `blocking_*` methods.

use crate::loom::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use crate::loom::sync::{Condvar, Mutex};
// A std `Arc` even under loom: it only shares the parker (whose atomics and
// lock loom does check) and it must be one for `Wake`.
use std::sync::Arc;

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

const EMPTY: usize = 0;
const PARKED: usize = 1;
const NOTIFIED: usize = 2;

#[derive(Debug)]
pub(crate) struct ParkThread {
    inner: Arc<Inner>,
}

/// Wakes a [`ParkThread`].
#[derive(Clone, Debug)]
pub(crate) struct UnparkThread {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    state: AtomicUsize,
    mutex: Mutex<()>,
    condvar: Condvar,
}

#[cfg_attr(not(feature = "rt"), allow(dead_code))]
impl ParkThread {
    pub(crate) fn new() -> Self {
        Self {
            inner: Arc::new(Inner {
                state: AtomicUsize::new(EMPTY),
                mutex: Mutex::new(()),
                condvar: Condvar::new(),
            }),
        }
    }

    pub(crate) fn unpark(&self) -> UnparkThread {
        UnparkThread {
            inner: self.inner.clone(),
        }
    }

    /// Sleeps until a token is available, and consumes it.
    pub(crate) fn park(&mut self) {
        self.inner.park();
    }

    /// As `park`, but gives up after `duration`.
    pub(crate) fn park_timeout(&mut self, duration: Duration) {
        self.inner.park_timeout(duration);
    }

    pub(crate) fn shutdown(&mut self) {
        self.inner.condvar.notify_all();
    }
}

#[cfg_attr(not(feature = "rt"), allow(dead_code))]
impl Inner {
    fn park(&self) {
        // SeqCst on every access of `state`: simplest to reason about, and
        // parking is not a hot path.
        if self
            .state
            .compare_exchange(NOTIFIED, EMPTY, SeqCst, SeqCst)
            .is_ok()
        {
            return;
        }
        let mut m = self.mutex.lock();
        match self.state.compare_exchange(EMPTY, PARKED, SeqCst, SeqCst) {
            Ok(_) => {}
            Err(NOTIFIED) => {
                // Notified between the fast path and the lock.
                let old = self.state.swap(EMPTY, SeqCst);
                debug_assert_eq!(old, NOTIFIED, "park state changed unexpectedly");
                return;
            }
            Err(actual) => panic!("inconsistent park state; actual = {actual}"),
        }
        loop {
            m = self.condvar.wait(m);
            if self
                .state
                .compare_exchange(NOTIFIED, EMPTY, SeqCst, SeqCst)
                .is_ok()
            {
                return;
            }
            // Spurious wake-up: sleep again.
        }
    }

    fn park_timeout(&self, dur: Duration) {
        if self
            .state
            .compare_exchange(NOTIFIED, EMPTY, SeqCst, SeqCst)
            .is_ok()
        {
            return;
        }
        if dur == Duration::ZERO {
            return;
        }
        let m = self.mutex.lock();
        match self.state.compare_exchange(EMPTY, PARKED, SeqCst, SeqCst) {
            Ok(_) => {}
            Err(NOTIFIED) => {
                let old = self.state.swap(EMPTY, SeqCst);
                debug_assert_eq!(old, NOTIFIED, "park state changed unexpectedly");
                return;
            }
            Err(actual) => panic!("inconsistent park_timeout state; actual = {actual}"),
        }
        // One wait: a timeout or a spurious wake-up both just return (the
        // caller re-checks whatever it waits for).
        let (_m, _timed_out) = self.condvar.wait_timeout(m, dur);
        match self.state.swap(EMPTY, SeqCst) {
            NOTIFIED | PARKED => {}
            n => panic!("inconsistent park_timeout state: {n}"),
        }
    }

    fn unpark(&self) {
        match self.state.swap(NOTIFIED, SeqCst) {
            EMPTY | NOTIFIED => return,
            PARKED => {}
            _ => panic!("inconsistent state in unpark"),
        }
        // Order this notify after the parker's `PARKED` store and `wait`
        // (see the module docs).
        drop(self.mutex.lock());
        self.condvar.notify_one();
    }
}

#[cfg_attr(not(feature = "rt"), allow(dead_code))]
impl UnparkThread {
    pub(crate) fn unpark(&self) {
        self.inner.unpark();
    }

    pub(crate) fn into_waker(self) -> Waker {
        Waker::from(self.inner)
    }
}

impl Wake for Inner {
    fn wake(self: Arc<Self>) {
        self.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.unpark();
    }
}

std::thread_local! {
    static CURRENT_PARKER: ParkThread = ParkThread::new();
}

/// The calling thread's parker, created on first use.
#[derive(Debug)]
pub(crate) struct CachedParkThread {
    _p: std::marker::PhantomData<*const ()>,
}

impl CachedParkThread {
    pub(crate) fn new() -> CachedParkThread {
        CachedParkThread {
            _p: std::marker::PhantomData,
        }
    }

    /// A waker that unparks this thread.
    pub(crate) fn waker(&self) -> Result<Waker, std::thread::AccessError> {
        CURRENT_PARKER.try_with(|p| p.unpark().into_waker())
    }

    pub(crate) fn park(&mut self) {
        CURRENT_PARKER.with(|p| p.inner.park());
    }

    /// Runs `f` to completion on this thread, parking between polls.
    pub(crate) fn block_on<F: Future>(
        &mut self,
        f: F,
    ) -> Result<F::Output, std::thread::AccessError> {
        let waker = self.waker()?;
        let mut cx = Context::from_waker(&waker);
        let mut f = pin!(f);
        loop {
            if let Poll::Ready(v) = crate::coop::budget(|| f.as_mut().poll(&mut cx)) {
                return Ok(v);
            }
            self.park();
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn unpark_before_park_is_not_lost() {
        let mut p = ParkThread::new();
        p.unpark().unpark();
        p.park(); // returns at once: the token was kept
    }

    #[test]
    fn block_on_wakes_from_another_thread() {
        let (tx, rx) = mpsc::channel::<Waker>();
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag2 = flag.clone();
        let t = std::thread::spawn(move || {
            let waker = rx.recv().unwrap();
            flag2.store(true, SeqCst);
            waker.wake();
        });
        let mut sent = Some(tx);
        let out = CachedParkThread::new()
            .block_on(std::future::poll_fn(|cx| {
                if flag.load(SeqCst) {
                    return Poll::Ready(7);
                }
                if let Some(tx) = sent.take() {
                    tx.send(cx.waker().clone()).unwrap();
                }
                Poll::Pending
            }))
            .unwrap();
        assert_eq!(out, 7);
        t.join().unwrap();
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;

    /// An unpark racing a park is never lost.
    #[test]
    fn park_unpark_race() {
        loom::model(|| {
            let mut park = ParkThread::new();
            let unpark = park.unpark();
            let th = loom::thread::spawn(move || unpark.unpark());
            park.park();
            th.join().unwrap();
        });
    }
}
