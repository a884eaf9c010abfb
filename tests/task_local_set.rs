//! `LocalSet` and `spawn_local`: `!Send` tasks, inside current-thread and
//! multi-thread runtimes, wakes from other threads, drop behaviour, misuse.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use volt::sync::oneshot;
use volt::task::{self, JoinSet, LocalSet};

#[volt::test]
async fn run_until_drives_non_send_tasks() {
    let local = LocalSet::new();
    let data = Rc::new(Cell::new(0));
    let d = data.clone();
    let out = local
        .run_until(async move {
            let h = task::spawn_local(async move {
                d.set(d.get() + 1);
                task::yield_now().await;
                d.set(d.get() + 1);
                Rc::new("not send")
            });
            h.await.unwrap()
        })
        .await;
    assert_eq!(*out, "not send");
    assert_eq!(data.get(), 2);
}

#[test]
fn local_set_inside_a_multi_thread_runtime() {
    let rt = volt::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let local = LocalSet::new();
    let thread = std::thread::current().id();
    let count = local.block_on(&rt, async move {
        let counter = Rc::new(RefCell::new(0));
        let mut handles = Vec::new();
        for _ in 0..100 {
            let c = counter.clone();
            handles.push(task::spawn_local(async move {
                // Local tasks run on the thread that drives the set.
                assert_eq!(std::thread::current().id(), thread);
                // Wait on something completed by another worker.
                let (tx, rx) = oneshot::channel();
                volt::spawn(async move { tx.send(1).unwrap() });
                *c.borrow_mut() += rx.await.unwrap();
            }));
        }
        for h in handles {
            h.await.unwrap();
        }
        counter.take()
    });
    assert_eq!(count, 100);
}

#[volt::test]
async fn awaiting_the_set_runs_all_tasks() {
    let local = LocalSet::new();
    let done = Rc::new(Cell::new(0));
    for _ in 0..10 {
        let d = done.clone();
        local.spawn_local(async move {
            task::yield_now().await;
            d.set(d.get() + 1);
        });
    }
    local.await;
    assert_eq!(done.get(), 10);
}

#[volt::test]
async fn tasks_spawned_before_running_start_with_the_set() {
    let local = LocalSet::new();
    let (tx, rx) = oneshot::channel();
    local.spawn_local(async move { tx.send(Rc::new(5)).unwrap() });
    let v = local.run_until(async move { rx.await.unwrap() }).await;
    assert_eq!(*v, 5);
}

#[volt::test]
async fn unfinished_tasks_stay_for_the_next_run() {
    let local = LocalSet::new();
    let (tx, rx) = oneshot::channel::<()>();
    let finished = Rc::new(Cell::new(false));
    let f = finished.clone();
    local.spawn_local(async move {
        rx.await.unwrap();
        f.set(true);
    });
    local.run_until(task::yield_now()).await;
    assert!(!finished.get());
    tx.send(()).unwrap();
    local.await;
    assert!(finished.get());
}

#[test]
fn dropping_the_set_drops_pending_tasks_on_its_thread() {
    // The `Rc` makes the guard (and the task) `!Send`.
    struct OnDrop(
        std::thread::ThreadId,
        Arc<AtomicBool>,
        #[allow(dead_code)] Rc<()>,
    );
    impl Drop for OnDrop {
        fn drop(&mut self) {
            assert_eq!(std::thread::current().id(), self.0);
            self.1.store(true, Ordering::SeqCst);
        }
    }
    let rt = volt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dropped = Arc::new(AtomicBool::new(false));
    let local = LocalSet::new();
    let guard = OnDrop(std::thread::current().id(), dropped.clone(), Rc::new(()));
    let h = local.spawn_local(async move {
        let _guard = guard;
        std::future::pending::<()>().await;
    });
    local.block_on(&rt, task::yield_now());
    assert!(!dropped.load(Ordering::SeqCst));
    drop(local);
    assert!(dropped.load(Ordering::SeqCst));
    let err = rt.block_on(h).unwrap_err();
    assert!(err.is_cancelled());
}

#[test]
#[should_panic(
    expected = "`spawn_local` called from outside of a `task::LocalSet` or `runtime::LocalRuntime`"
)]
fn spawn_local_outside_a_local_set_panics() {
    let rt = volt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        drop(task::spawn_local(async {}));
    });
}

#[volt::test]
async fn enter_lets_spawn_local_find_the_set() {
    let local = LocalSet::new();
    let h = {
        let _guard = local.enter();
        task::spawn_local(async { Rc::new(3) })
    };
    let v = local.run_until(h).await.unwrap();
    assert_eq!(*v, 3);
}

#[volt::test]
async fn nested_local_sets_spawn_on_the_innermost() {
    let outer = LocalSet::new();
    let inner = LocalSet::new();
    let inner_id = inner.id();
    assert_ne!(outer.id(), inner_id);
    outer
        .run_until(async {
            inner
                .run_until(async {
                    let h = task::spawn_local(async { 1 });
                    assert_eq!(h.await.unwrap(), 1);
                })
                .await;
        })
        .await;
}

#[volt::test]
async fn join_set_spawn_local_and_spawn_local_on() {
    let local = LocalSet::new();
    let mut set = JoinSet::new();
    set.spawn_local_on(async { Rc::new(1) }, &local);
    let v = local
        .run_until(async move {
            set.spawn_local(async { Rc::new(2) });
            let mut sum = 0;
            while let Some(r) = set.join_next().await {
                sum += *r.unwrap();
            }
            sum
        })
        .await;
    assert_eq!(v, 3);
}

#[volt::test]
async fn wake_from_another_thread_reaches_a_local_task() {
    let local = LocalSet::new();
    let (tx, rx) = oneshot::channel::<u32>();
    let v = local
        .run_until(async move {
            let h = task::spawn_local(async move { rx.await.unwrap() });
            // Sent from a plain thread: the wake-up crosses threads.
            std::thread::spawn(move || tx.send(9).unwrap());
            h.await.unwrap()
        })
        .await;
    assert_eq!(v, 9);
}

#[volt::test]
async fn a_panicking_local_task_does_not_take_the_set_down() {
    let local = LocalSet::new();
    local
        .run_until(async {
            let h = task::spawn_local(async { panic!("local boom") });
            assert!(h.await.unwrap_err().is_panic());
            let h = task::spawn_local(async { 1 });
            assert_eq!(h.await.unwrap(), 1);
        })
        .await;
}

/// Records `a0`, yields, records `a1`; a second task records `b`.
fn yield_order_tasks(
    log: &Rc<RefCell<Vec<&'static str>>>,
) -> (LocalSet, [task::JoinHandle<()>; 2]) {
    let local = LocalSet::new();
    let (l1, l2) = (log.clone(), log.clone());
    let a = local.spawn_local(async move {
        l1.borrow_mut().push("a0");
        task::yield_now().await;
        l1.borrow_mut().push("a1");
    });
    let b = local.spawn_local(async move { l2.borrow_mut().push("b") });
    (local, [a, b])
}

#[volt::test]
async fn a_yielding_local_task_goes_behind_the_queued_ones() {
    // The scheduler loop, not the task, re-queues a yielded task: at the
    // back, so `b` runs between the two halves of `a`.
    let log = Rc::new(RefCell::new(Vec::new()));
    let (local, handles) = yield_order_tasks(&log);
    local
        .run_until(async move {
            for h in handles {
                h.await.unwrap();
            }
        })
        .await;
    assert_eq!(*log.borrow(), ["a0", "b", "a1"]);
}

/// `block_in_place` inside a `LocalSet` panics with tokio's message on the
/// multi-thread runtime too (the worker's core would move away from the
/// set's `!Send` tasks), from `run_until` and from a local task.
#[volt::test(flavor = "multi_thread", worker_threads = 1)]
#[should_panic = "can call blocking only when running on the multi-threaded runtime"]
async fn block_in_place_in_a_local_set_panics() {
    volt::task::LocalSet::new()
        .run_until(async { volt::task::block_in_place(|| {}) })
        .await;
}

#[volt::test(flavor = "multi_thread", worker_threads = 1)]
async fn block_in_place_in_a_local_task_panics() {
    let local = volt::task::LocalSet::new();
    let task = local.spawn_local(async { volt::task::block_in_place(|| {}) });
    local.await;
    let err = task.await.unwrap_err();
    let payload = err.into_panic();
    let msg = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied());
    assert_eq!(
        msg,
        Some("can call blocking only when running on the multi-threaded runtime")
    );
}

/// A `LocalSet` kept in a thread-local is dropped when the thread exits,
/// possibly after volt's own thread-locals: no abort.
#[test]
fn local_set_in_a_thread_local_drops_at_thread_exit() {
    thread_local! {
        static SET: volt::task::LocalSet = volt::task::LocalSet::new();
    }
    let rt = volt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let handle = rt.handle().clone();
    std::thread::spawn(move || {
        SET.with(|set| {
            set.spawn_local(std::future::pending::<()>());
            handle.block_on(set.run_until(async {}));
        })
    })
    .join()
    .unwrap();
}
