//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// A one-shot flag that any number of tasks can await and any thread can
/// set (every waiter is woken).
#[derive(Clone, Default)]
pub struct Signal {
    inner: Arc<Mutex<(bool, Vec<Waker>)>>,
}

impl Signal {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn set(&self) {
        let wakers = {
            let mut inner = self.inner.lock().unwrap();
            inner.0 = true;
            std::mem::take(&mut inner.1)
        };
        for w in wakers {
            w.wake();
        }
    }

    pub fn is_set(&self) -> bool {
        self.inner.lock().unwrap().0
    }

    pub fn wait(&self) -> SignalWait {
        SignalWait {
            inner: self.inner.clone(),
        }
    }
}

pub struct SignalWait {
    inner: Arc<Mutex<(bool, Vec<Waker>)>>,
}

impl Future for SignalWait {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut inner = self.inner.lock().unwrap();
        if inner.0 {
            return Poll::Ready(());
        }
        // One waker per waiting task (a re-poll does not add another).
        if !inner.1.iter().any(|w| w.will_wake(cx.waker())) {
            inner.1.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

/// Counts how many times values it made are dropped.
#[derive(Clone, Default)]
pub struct DropCounter(Arc<AtomicUsize>);

pub struct Tracked(Arc<AtomicUsize>);

impl DropCounter {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn track(&self) -> Tracked {
        Tracked(self.0.clone())
    }
    pub fn count(&self) -> usize {
        self.0.load(SeqCst)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

/// A future that is pending forever and counts its drop (the `Tracked`
/// is moved in at creation, so it is dropped even if never polled).
pub async fn pending_tracked(t: Tracked) {
    let _t = t;
    std::future::pending::<()>().await
}

/// Polls a future once with a no-op waker.
pub fn poll_once<F: Future + Unpin>(f: &mut F) -> Poll<F::Output> {
    let mut cx = Context::from_waker(Waker::noop());
    Pin::new(f).poll(&mut cx)
}

/// Runs a future on the current thread without any volt runtime: a
/// stand-in for another executor.
pub fn foreign_block_on<F: Future>(fut: F) -> F::Output {
    struct ThreadWaker(std::thread::Thread);
    impl std::task::Wake for ThreadWaker {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut fut = std::pin::pin!(fut);
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}

/// A waker that counts its wake-ups.
#[derive(Default)]
pub struct WakeCount(AtomicUsize);

impl WakeCount {
    pub fn count(&self) -> usize {
        self.0.load(SeqCst)
    }
}

impl std::task::Wake for WakeCount {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, SeqCst);
    }
}

/// A counting waker and the counter it bumps.
pub fn counting_waker() -> (Arc<WakeCount>, Waker) {
    let count = Arc::new(WakeCount::default());
    (count.clone(), Waker::from(count))
}

/// Polls a pinned future once with `waker`.
pub fn poll_with<F: Future + ?Sized>(f: Pin<&mut F>, waker: &Waker) -> Poll<F::Output> {
    f.poll(&mut Context::from_waker(waker))
}
