//! `Notify`, `Barrier`, `OnceCell`, `SetOnce` through the public API.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use volt::sync::{Barrier, Notify, OnceCell, SetOnce, SetOnceError};

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn notify_one_wakes_one_waiter_per_call() {
    let notify = Arc::new(Notify::new());
    let done = Arc::new(AtomicUsize::new(0));
    let registered = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..10)
        .map(|_| {
            let (n, d, r) = (notify.clone(), done.clone(), registered.clone());
            volt::spawn(async move {
                let mut notified = std::pin::pin!(n.notified());
                // In the queue before anyone notifies: several notify_one
                // calls with nobody waiting would store a single permit.
                notified.as_mut().enable();
                r.fetch_add(1, SeqCst);
                notified.await;
                d.fetch_add(1, SeqCst);
            })
        })
        .collect();
    while registered.load(SeqCst) < 10 {
        volt::task::yield_now().await;
    }
    for _ in 0..10 {
        notify.notify_one();
    }
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(done.load(SeqCst), 10);
}

#[volt::test]
async fn notify_waiters_reaches_all_current_waiters_only() {
    let notify = Arc::new(Notify::new());
    let tasks: Vec<_> = (0..50)
        .map(|_| {
            let n = notify.clone();
            volt::spawn(async move { n.notified().await })
        })
        .collect();
    volt::task::yield_now().await;
    notify.notify_waiters();
    for t in tasks {
        t.await.unwrap();
    }
    // No permit left behind.
    let late = notify.notified();
    let mut late = std::pin::pin!(late);
    assert!(!late.as_mut().enable());
}

#[volt::test]
async fn notified_owned_moves_into_a_task() {
    let notify = Arc::new(Notify::new());
    let fut = notify.clone().notified_owned();
    let t = volt::spawn(fut);
    notify.notify_waiters();
    t.await.unwrap();
}

#[volt::test(flavor = "multi_thread", worker_threads = 4)]
async fn barrier_releases_in_generations_with_one_leader_each() {
    let barrier = Arc::new(Barrier::new(5));
    let leaders = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..5)
        .map(|_| {
            let (b, l) = (barrier.clone(), leaders.clone());
            volt::spawn(async move {
                for _ in 0..20 {
                    if b.wait().await.is_leader() {
                        l.fetch_add(1, SeqCst);
                    }
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(leaders.load(SeqCst), 20);
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn barrier_with_more_tasks_than_n_releases_them_n_at_a_time() {
    let barrier = Arc::new(Barrier::new(4));
    let entered = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..12)
        .map(|_| {
            let (b, e) = (barrier.clone(), entered.clone());
            volt::spawn(async move {
                e.fetch_add(1, SeqCst);
                let leader = b.wait().await.is_leader();
                // Whoever leaves, a whole generation has arrived.
                assert!(e.load(SeqCst) >= 4);
                leader
            })
        })
        .collect();
    let mut leaders = 0;
    for t in tasks {
        leaders += usize::from(t.await.unwrap());
    }
    assert_eq!(leaders, 3);
}

#[volt::test]
async fn barrier_counts_a_cancelled_wait_as_arrived() {
    use std::future::Future;
    use std::task::{Context, Poll, Waker};
    let barrier = Barrier::new(2);
    let mut cx = Context::from_waker(Waker::noop());
    {
        let mut wait = std::pin::pin!(barrier.wait());
        assert!(wait.as_mut().poll(&mut cx).is_pending());
    }
    // As tokio's: the dropped wait arrived, so this one leads (polled by
    // hand: were it not counted, awaiting it would hang, not fail).
    let mut second = std::pin::pin!(barrier.wait());
    match second.as_mut().poll(&mut cx) {
        Poll::Ready(res) => assert!(res.is_leader()),
        Poll::Pending => panic!("the cancelled wait was not counted as arrived"),
    }
}

#[volt::test]
async fn barrier_of_zero_is_a_barrier_of_one() {
    assert!(Barrier::new(0).wait().await.is_leader());
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_cell_initializes_exactly_once() {
    let cell = Arc::new(OnceCell::new());
    let calls = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let (cell, calls) = (cell.clone(), calls.clone());
            volt::spawn(async move {
                *cell
                    .get_or_init(|| async {
                        calls.fetch_add(1, SeqCst);
                        volt::task::yield_now().await;
                        42
                    })
                    .await
            })
        })
        .collect();
    for t in tasks {
        assert_eq!(t.await.unwrap(), 42);
    }
    assert_eq!(calls.load(SeqCst), 1);
    assert!(cell.set(1).unwrap_err().is_already_init_err());
}

#[volt::test]
async fn once_cell_failed_or_cancelled_init_lets_the_next_try() {
    let cell = Arc::new(OnceCell::<u32>::new());
    assert_eq!(
        cell.get_or_try_init(|| async { Err("nope") }).await,
        Err("nope")
    );
    let c = cell.clone();
    let stuck = volt::spawn(async move { *c.get_or_init(std::future::pending).await });
    volt::task::yield_now().await;
    // Someone is initializing.
    assert!(cell.set(1).unwrap_err().is_initializing_err());
    stuck.abort();
    let _ = stuck.await;
    assert_eq!(*cell.get_or_init(|| async { 7 }).await, 7);
    let mut cell = Arc::try_unwrap(cell).unwrap();
    assert_eq!(cell.get_mut(), Some(&mut 7));
    assert_eq!(cell.take(), Some(7));
    assert!(cell.get().is_none());
    assert_eq!(OnceCell::new_with(Some(2)).into_inner(), Some(2));
    assert_eq!(OnceCell::from(3).clone().get(), Some(&3));
}

#[test]
fn once_cell_drops_its_value_once() {
    struct D(Arc<AtomicUsize>);
    impl Drop for D {
        fn drop(&mut self) {
            self.0.fetch_add(1, SeqCst);
        }
    }
    let drops = Arc::new(AtomicUsize::new(0));
    let cell = OnceCell::new();
    assert!(cell.set(D(drops.clone())).is_ok());
    drop(cell);
    assert_eq!(drops.load(SeqCst), 1);
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_once_wakes_every_waiter() {
    let once = Arc::new(SetOnce::new());
    let waiters: Vec<_> = (0..10)
        .map(|_| {
            let o = once.clone();
            volt::spawn(async move { *o.wait().await })
        })
        .collect();
    volt::task::yield_now().await;
    once.set(5).unwrap();
    assert_eq!(once.set(6), Err(SetOnceError(6)));
    for w in waiters {
        assert_eq!(w.await.unwrap(), 5);
    }
    assert_eq!(SetOnce::from(1).into_inner(), Some(1));
    assert_eq!(SetOnce::<u8>::new().into_inner(), None);
    assert_eq!(SetOnceError(1).to_string(), "SetOnceError");
}
