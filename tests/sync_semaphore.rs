//! `volt::sync::Semaphore` through the public API, on real runtimes.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use volt::sync::{AcquireError, Semaphore, TryAcquireError};

#[volt::test(flavor = "multi_thread", worker_threads = 4)]
async fn never_more_than_n_holders() {
    let sem = Arc::new(Semaphore::new(3));
    let holders = Arc::new(AtomicUsize::new(0));
    let max = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..64)
        .map(|_| {
            let (sem, holders, max) = (sem.clone(), holders.clone(), max.clone());
            volt::spawn(async move {
                for _ in 0..50 {
                    let _p = sem.acquire().await.unwrap();
                    let now = holders.fetch_add(1, SeqCst) + 1;
                    max.fetch_max(now, SeqCst);
                    volt::task::yield_now().await;
                    holders.fetch_sub(1, SeqCst);
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    assert!(max.load(SeqCst) <= 3);
    assert_eq!(sem.available_permits(), 3);
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifo_order_of_waiters() {
    let sem = Arc::new(Semaphore::new(0));
    let order = Arc::new(std::sync::Mutex::new(Vec::new()));
    let got_one = Arc::new(volt::sync::Notify::new());
    let mut handles = vec![];
    for i in 0..10 {
        let (sem, order, got_one) = (sem.clone(), order.clone(), got_one.clone());
        let registered = Arc::new(volt::sync::Notify::new());
        let r = registered.clone();
        handles.push(volt::spawn(async move {
            let mut acquire = std::pin::pin!(sem.acquire());
            // Poll once to take a place in the queue, then report it.
            let first =
                std::future::poll_fn(|cx| std::task::Poll::Ready(acquire.as_mut().poll_once(cx)))
                    .await;
            assert!(first.is_none());
            r.notify_one();
            let permit = acquire.await.unwrap();
            order.lock().unwrap().push(i);
            permit.forget();
            got_one.notify_one();
        }));
        // The next one queues only after this one has.
        registered.notified().await;
    }
    // One permit at a time: each goes to the oldest waiter.
    for expected in 0..10 {
        sem.add_permits(1);
        got_one.notified().await;
        assert_eq!(order.lock().unwrap().last(), Some(&expected));
    }
    for h in handles {
        h.await.unwrap();
    }
}

/// Polls a future once, returning its output if ready.
trait PollOnce: std::future::Future {
    fn poll_once(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> Option<Self::Output> {
        match self.poll(cx) {
            std::task::Poll::Ready(v) => Some(v),
            std::task::Poll::Pending => None,
        }
    }
}
impl<F: std::future::Future + ?Sized> PollOnce for F {}

#[volt::test]
async fn cancelled_acquire_many_hands_its_permits_on() {
    let sem = Arc::new(Semaphore::new(2));
    let big = {
        let sem = sem.clone();
        volt::spawn(async move {
            let _p = sem.acquire_many(5).await.unwrap();
        })
    };
    volt::task::yield_now().await;
    // `big` holds the 2 permits while it waits for 3 more.
    assert_eq!(sem.available_permits(), 0);
    let small = {
        let sem = sem.clone();
        volt::spawn(async move { sem.acquire_many(2).await.unwrap().forget() })
    };
    volt::task::yield_now().await;
    big.abort();
    assert!(big.await.unwrap_err().is_cancelled());
    // The two permits went to `small`.
    small.await.unwrap();
    assert_eq!(sem.available_permits(), 0);
}

#[volt::test]
async fn close_wakes_every_waiter_with_an_error() {
    let sem = Arc::new(Semaphore::new(0));
    let waiters: Vec<_> = (0..20)
        .map(|i| {
            let sem = sem.clone();
            volt::spawn(async move {
                let r = if i % 2 == 0 {
                    sem.acquire().await.map(drop)
                } else {
                    sem.clone().acquire_many_owned(2).await.map(drop)
                };
                r.unwrap_err()
            })
        })
        .collect();
    volt::task::yield_now().await;
    sem.close();
    for w in waiters {
        let err: AcquireError = w.await.unwrap();
        assert_eq!(err.to_string(), "semaphore closed");
    }
    assert!(sem.is_closed());
    assert_eq!(sem.try_acquire().unwrap_err(), TryAcquireError::Closed);
}

#[test]
fn permits_merge_split_forget() {
    let sem = Arc::new(Semaphore::new(10));
    let mut a = sem.try_acquire_many(3).unwrap();
    let b = a.split(1).unwrap();
    assert_eq!((a.num_permits(), b.num_permits()), (2, 1));
    a.merge(b);
    assert_eq!(a.num_permits(), 3);
    assert!(std::ptr::eq(a.semaphore(), &*sem));
    a.forget();
    assert_eq!(sem.available_permits(), 7);
    let mut o = sem.clone().try_acquire_many_owned(2).unwrap();
    let p = o.split(2).unwrap();
    assert_eq!(o.num_permits(), 0);
    drop(p);
    assert_eq!(sem.available_permits(), 7);
    assert!(Arc::ptr_eq(o.semaphore(), &sem));
    assert_eq!(sem.forget_permits(100), 7);
    sem.add_permits(Semaphore::MAX_PERMITS);
    assert_eq!(sem.available_permits(), Semaphore::MAX_PERMITS);
}

#[test]
#[should_panic(expected = "merging permits from different semaphore instances")]
fn merging_permits_of_two_semaphores_panics() {
    let (a, b) = (Semaphore::new(1), Semaphore::new(1));
    let mut p = a.try_acquire().unwrap();
    p.merge(b.try_acquire().unwrap());
}

#[test]
#[should_panic(expected = "would overflow MAX_PERMITS")]
fn add_permits_overflow_panics() {
    let sem = Semaphore::new(Semaphore::MAX_PERMITS);
    sem.add_permits(1);
}

#[test]
#[should_panic(expected = "Cannot block the current thread from within a runtime.")]
fn blocking_acquire_in_async_context_panics() {
    let rt = volt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let sem = Semaphore::new(1);
    rt.block_on(async {
        let _ = sem.blocking_acquire();
    });
}

#[test]
fn blocking_acquire_from_a_thread() {
    let sem = Arc::new(Semaphore::new(0));
    let s = sem.clone();
    let th = std::thread::spawn(move || s.blocking_acquire_many_owned(2).unwrap().num_permits());
    sem.add_permits(2);
    assert_eq!(th.join().unwrap(), 2);
}

#[test]
fn works_on_a_foreign_executor() {
    // A minimal executor that is not volt: the semaphore must still work.
    let sem = Arc::new(Semaphore::new(1));
    let p = sem.try_acquire().unwrap();
    let s = sem.clone();
    let th = std::thread::spawn(move || {
        support::foreign_block_on(async move { s.acquire().await.unwrap().forget() })
    });
    std::thread::yield_now();
    drop(p);
    th.join().unwrap();
    assert_eq!(sem.available_permits(), 0);
}

#[volt::test]
async fn acquire_takes_part_in_the_coop_budget() {
    // A task that always finds a permit must still yield.
    use std::sync::atomic::AtomicBool;
    let sem = Arc::new(Semaphore::new(1));
    let flag = Arc::new(AtomicBool::new(false));
    let (s, f) = (sem.clone(), flag.clone());
    let spinner = volt::spawn(async move {
        let mut n = 0u64;
        while !f.load(SeqCst) {
            let _p = s.acquire().await.unwrap();
            n += 1;
        }
        n
    });
    volt::spawn(async move { flag.store(true, SeqCst) })
        .await
        .unwrap();
    assert!(spinner.await.unwrap() > 0);
}

#[test]
fn const_new_and_debug() {
    static SEM: Semaphore = Semaphore::const_new(2);
    assert_eq!(SEM.available_permits(), 2);
    assert!(format!("{SEM:?}").contains("permits: 2"));
}

/// Polls `fut` once with `waker`.
fn poll_once<F: std::future::Future>(
    fut: std::pin::Pin<&mut F>,
    waker: &std::task::Waker,
) -> std::task::Poll<F::Output> {
    fut.poll(&mut std::task::Context::from_waker(waker))
}

/// A waker that does something to the semaphore when woken or dropped.
struct OnWake<F: Fn() + Send + Sync>(F);
impl<F: Fn() + Send + Sync> std::task::Wake for OnWake<F> {
    fn wake(self: Arc<Self>) {
        (self.0)()
    }
}

/// `close` wakes (and so drops) the waiters' wakers after its lock is
/// released, and a permit released after the close is available, not
/// handed to a waiter that is about to fail (tokio's
/// close_*_outside_lock).
#[test]
fn close_wakes_outside_its_lock_and_keeps_later_releases() {
    // The waker adds a permit when woken.
    let sem = Arc::new(Semaphore::new(0));
    let s = sem.clone();
    let waker = std::task::Waker::from(Arc::new(OnWake(move || s.add_permits(1))));
    let mut acq = std::pin::pin!(sem.acquire());
    assert!(poll_once(acq.as_mut(), &waker).is_pending());
    sem.close();
    assert_eq!(sem.available_permits(), 1);

    // The waker holds a permit, released when the close drops it.
    let sem = Arc::new(Semaphore::new(1));
    let permit = sem.clone().try_acquire_owned().unwrap();
    let holder = std::sync::Mutex::new(Some(permit));
    let waker = std::task::Waker::from(Arc::new(OnWake(move || {
        drop(holder.lock().unwrap().take())
    })));
    let mut acq = std::pin::pin!(sem.acquire());
    assert!(poll_once(acq.as_mut(), &waker).is_pending());
    drop(waker);
    sem.close();
    assert_eq!(sem.available_permits(), 1);
    assert!(matches!(
        poll_once(acq.as_mut(), std::task::Waker::noop()),
        std::task::Poll::Ready(Err(_))
    ));
}

/// A task out of coop budget still takes its place in the queue: it is
/// served before a later waiter (FIFO), and dropping it while it holds the
/// permits it was served (out of budget) passes them on.
#[volt::test]
async fn out_of_budget_waiter_keeps_its_place() {
    use std::sync::atomic::AtomicBool;
    use std::task::{Poll, Waker};
    use volt::task::coop::consume_budget;

    fn flag_waker() -> (Arc<AtomicBool>, Waker) {
        let flag = Arc::new(AtomicBool::new(false));
        let f = flag.clone();
        (
            flag,
            Waker::from(Arc::new(OnWake(move || f.store(true, SeqCst)))),
        )
    }
    let sem = Arc::new(Semaphore::new(1));
    let first = sem.clone().try_acquire_owned().unwrap();
    // Spend this task's whole budget.
    while poll_once(std::pin::pin!(consume_budget()), Waker::noop()).is_ready() {}

    let (a_woken, a_waker) = flag_waker();
    let mut a = std::pin::pin!(sem.clone().acquire_owned());
    assert!(poll_once(a.as_mut(), &a_waker).is_pending());
    let (b_woken, b_waker) = flag_waker();
    let mut b = std::pin::pin!(sem.clone().acquire_owned());
    assert!(poll_once(b.as_mut(), &b_waker).is_pending());

    drop(first);
    assert!(a_woken.load(SeqCst), "the first in line is served");
    assert!(!b_woken.load(SeqCst));
    // Still out of budget: `a` holds the permit but does not complete.
    assert!(poll_once(a.as_mut(), &a_waker).is_pending());
    assert_eq!(sem.available_permits(), 0);
    // Dropping it passes the permit on to `b`.
    a.set(sem.clone().acquire_owned());
    assert!(b_woken.load(SeqCst));
    assert!(matches!(
        poll_once(b.as_mut(), Waker::noop()),
        Poll::Pending
    ));
}

/// A task out of coop budget does not take free permits just to hold them
/// across its yield: it yields first, and takes them when it runs again.
#[volt::test]
async fn out_of_budget_task_leaves_free_permits_alone() {
    use std::task::Waker;
    use volt::task::coop::consume_budget;

    let sem = Semaphore::new(1);
    while poll_once(std::pin::pin!(consume_budget()), Waker::noop()).is_ready() {}
    let mut acq = std::pin::pin!(sem.acquire());
    assert!(poll_once(acq.as_mut(), Waker::noop()).is_pending());
    assert_eq!(sem.available_permits(), 1, "nothing taken while yielding");
    assert!(
        sem.try_acquire().is_ok(),
        "another task may take it meanwhile"
    );
}
