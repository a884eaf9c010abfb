//! `JoinSet`: completion order, ids, aborts, detach, shutdown, panics,
//! `join_all`, `try_join_next`, `FromIterator`/`Extend`, 100,000 tasks.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use volt::sync::oneshot;
use volt::task::JoinSet;

#[volt::test]
async fn results_come_back_in_completion_order() {
    let mut set = JoinSet::new();
    let mut senders = Vec::new();
    for i in 0..5 {
        let (tx, rx) = oneshot::channel::<()>();
        senders.push(tx);
        set.spawn(async move {
            rx.await.unwrap();
            i
        });
    }
    assert_eq!(set.len(), 5);
    // Release them in a scrambled order, one at a time.
    let order = [3usize, 0, 4, 1, 2];
    let mut senders: Vec<Option<_>> = senders.into_iter().map(Some).collect();
    for &i in &order {
        senders[i].take().unwrap().send(()).unwrap();
        assert_eq!(set.join_next().await.unwrap().unwrap(), i);
    }
    assert!(set.is_empty());
    assert!(set.join_next().await.is_none());
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_thousand_tasks() {
    let mut set = JoinSet::new();
    for i in 0..100_000u64 {
        set.spawn(async move { i });
    }
    assert_eq!(set.len(), 100_000);
    let mut sum = 0;
    let mut n = 0;
    while let Some(r) = set.join_next().await {
        sum += r.unwrap();
        n += 1;
    }
    assert_eq!(n, 100_000);
    assert_eq!(sum, (0..100_000u64).sum());
}

/// Regression: a `join_next` that ran out of coop budget after taking a
/// completed entry lost it, and the set hung with tasks left.
#[volt::test]
async fn join_next_survives_running_out_of_budget() {
    let mut set = JoinSet::new();
    for i in 0..10_000u32 {
        set.spawn(async move { i });
    }
    // Let them all complete first, so every join_next finds work ready.
    for _ in 0..100 {
        volt::task::yield_now().await;
    }
    let mut n = 0;
    while let Some(r) = set.join_next().await {
        r.unwrap();
        n += 1;
    }
    assert_eq!(n, 10_000);
}

#[volt::test]
async fn join_next_with_id_reports_the_task_id() {
    let mut set = JoinSet::new();
    let a = set.spawn(async { "a" });
    let (id, v) = set.join_next_with_id().await.unwrap().unwrap();
    assert_eq!(id, a.id());
    assert_eq!(v, "a");

    let b = set.spawn(std::future::pending::<&str>());
    b.abort();
    let err = set.join_next_with_id().await.unwrap().unwrap_err();
    assert!(err.is_cancelled());
    assert_eq!(err.id(), b.id());
}

#[volt::test]
async fn abort_all_and_shutdown() {
    let mut set = JoinSet::new();
    for _ in 0..10 {
        set.spawn(std::future::pending::<()>());
    }
    set.abort_all();
    let mut cancelled = 0;
    while let Some(r) = set.join_next().await {
        assert!(r.unwrap_err().is_cancelled());
        cancelled += 1;
    }
    assert_eq!(cancelled, 10);

    for _ in 0..10 {
        set.spawn(std::future::pending::<()>());
    }
    set.shutdown().await;
    assert!(set.is_empty());
}

struct CountDrop(Arc<AtomicUsize>);
impl Drop for CountDrop {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[volt::test]
async fn dropping_the_set_aborts_every_task() {
    let dropped = Arc::new(AtomicUsize::new(0));
    let mut set = JoinSet::new();
    for _ in 0..20 {
        let guard = CountDrop(dropped.clone());
        set.spawn(async move {
            let _guard = guard;
            std::future::pending::<()>().await;
        });
    }
    volt::task::yield_now().await;
    drop(set);
    // The aborted tasks are cancelled on the runtime: give it a turn.
    for _ in 0..10 {
        volt::task::yield_now().await;
    }
    assert_eq!(dropped.load(Ordering::SeqCst), 20);
}

#[volt::test]
async fn detach_all_keeps_tasks_running() {
    let (tx, rx) = oneshot::channel();
    let mut set = JoinSet::new();
    set.spawn(async move {
        volt::task::yield_now().await;
        tx.send(7).unwrap();
    });
    set.detach_all();
    assert!(set.is_empty());
    drop(set);
    assert_eq!(rx.await.unwrap(), 7);
}

#[volt::test]
async fn panics_come_back_as_join_errors() {
    let mut set = JoinSet::new();
    set.spawn(async { panic!("boom") });
    let err = set.join_next().await.unwrap().unwrap_err();
    assert!(err.is_panic());
    assert_eq!(*err.into_panic().downcast::<&str>().unwrap(), "boom");
}

#[volt::test]
async fn join_all_collects_and_resumes_panics() {
    let set: JoinSet<_> = (0..10).map(|i| async move { i * i }).collect();
    let mut out = set.join_all().await;
    out.sort_unstable();
    assert_eq!(out, (0..10).map(|i| i * i).collect::<Vec<_>>());

    let mut set = JoinSet::new();
    set.spawn(async { 1 });
    set.spawn(async { panic!("inner boom") });
    let res = volt::spawn(set.join_all()).await;
    let err = res.unwrap_err();
    assert!(err.is_panic());
    assert_eq!(*err.into_panic().downcast::<&str>().unwrap(), "inner boom");
}

#[volt::test]
async fn try_join_next_does_not_wait() {
    let mut set = JoinSet::new();
    assert!(set.try_join_next().is_none());
    let (tx, rx) = oneshot::channel::<()>();
    set.spawn(async move {
        let _ = rx.await;
        5
    });
    assert!(set.try_join_next().is_none());
    tx.send(()).unwrap();
    // Wait until it has finished, without join_next.
    loop {
        if let Some(r) = set.try_join_next_with_id() {
            assert_eq!(r.unwrap().1, 5);
            break;
        }
        volt::task::yield_now().await;
    }
    assert!(set.is_empty());
}

#[volt::test]
async fn extend_spawn_blocking_and_spawn_on() {
    let mut set = JoinSet::new();
    set.extend((0..3).map(|i| async move { i }));
    set.spawn_blocking(|| 10);
    set.spawn_on(async { 20 }, &volt::runtime::Handle::current());
    set.spawn_blocking_on(|| 30, &volt::runtime::Handle::current());
    let mut out = Vec::new();
    while let Some(r) = set.join_next().await {
        out.push(r.unwrap());
    }
    out.sort_unstable();
    assert_eq!(out, [0, 1, 2, 10, 20, 30]);
}

#[volt::test]
async fn join_next_is_cancel_safe() {
    let mut set = JoinSet::new();
    let (tx, rx) = oneshot::channel::<()>();
    set.spawn(async move {
        rx.await.unwrap();
        1
    });
    volt::select! {
        biased;
        _ = set.join_next() => panic!("nothing finished yet"),
        _ = volt::task::yield_now() => {}
    }
    assert_eq!(set.len(), 1);
    tx.send(()).unwrap();
    assert_eq!(set.join_next().await.unwrap().unwrap(), 1);
}

#[volt::test]
async fn slots_are_reused_without_mixing_up_entries() {
    let mut set = JoinSet::new();
    for round in 0..50u32 {
        for i in 0..10 {
            set.spawn(async move { round * 100 + i });
        }
        let mut got = Vec::new();
        while let Some(r) = set.join_next().await {
            got.push(r.unwrap());
        }
        got.sort_unstable();
        assert_eq!(got, (0..10).map(|i| round * 100 + i).collect::<Vec<_>>());
    }
    assert_eq!(format!("{set:?}"), "JoinSet { len: 0 }");
}

/// The parent waker a poll replaces is dropped after the set's lock is
/// released: here dropping it drives a runtime, which completes a task of
/// the set, whose wake takes that lock.
#[test]
fn replaced_parent_waker_is_dropped_outside_the_lock() {
    use std::task::{Context, Wake, Waker};
    struct DriveOnDrop(volt::runtime::Runtime);
    impl Wake for DriveOnDrop {
        fn wake(self: Arc<Self>) {}
    }
    impl Drop for DriveOnDrop {
        fn drop(&mut self) {
            self.0.block_on(volt::task::yield_now());
        }
    }
    let rt = volt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut set = volt::task::JoinSet::new();
    set.spawn_on(async { 42 }, rt.handle());
    let waker = Waker::from(Arc::new(DriveOnDrop(rt)));
    assert!(
        set.poll_join_next(&mut Context::from_waker(&waker))
            .is_pending()
    );
    drop(waker);
    // Replacing the waker runs the task (in the old waker's drop).
    assert!(
        set.poll_join_next(&mut Context::from_waker(Waker::noop()))
            .is_pending()
    );
    assert_eq!(set.try_join_next().unwrap().unwrap(), 42);
}
