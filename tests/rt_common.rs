//! Behaviour every runtime flavor must have: each test runs on the
//! current-thread runtime, a one-worker and a four-worker multi-thread
//! runtime.

mod support;

macro_rules! rt_test {
    ($($t:tt)*) => {
        mod current_thread {
            $($t)*

            fn rt() -> std::sync::Arc<volt::runtime::Runtime> {
                volt::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap()
                    .into()
            }
        }

        mod threaded_scheduler_1_thread {
            $($t)*

            fn rt() -> std::sync::Arc<volt::runtime::Runtime> {
                volt::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .enable_all()
                    .build()
                    .unwrap()
                    .into()
            }
        }

        mod threaded_scheduler_4_threads {
            $($t)*

            fn rt() -> std::sync::Arc<volt::runtime::Runtime> {
                volt::runtime::Builder::new_multi_thread()
                    .worker_threads(4)
                    .enable_all()
                    .build()
                    .unwrap()
                    .into()
            }
        }
    }
}

rt_test! {
    use crate::support::{pending_tracked, DropCounter, Signal};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
    use std::sync::{mpsc, Arc, Barrier};
    use std::thread;
    use volt::runtime::Handle;
    use volt::task;

    #[test]
    fn block_on_sync() {
        let rt = rt();
        let mut win = false;
        rt.block_on(async {
            win = true;
        });
        assert!(win);
    }

    #[test]
    fn spawn_one_join() {
        let rt = rt();
        let out = rt.block_on(async { volt::spawn(async { "ZOMG" }).await.unwrap() });
        assert_eq!(out, "ZOMG");
    }

    #[test]
    fn spawn_two_and_from_outside() {
        let rt = rt();
        let a = rt.spawn(async { 1 });
        let b = rt.handle().spawn(async { 2 });
        let (a, b) = rt.block_on(async { (a.await.unwrap(), b.await.unwrap()) });
        assert_eq!(a + b, 3);
    }

    #[test]
    fn spawn_many_from_block_on() {
        const ITER: usize = 200;
        let rt = rt();
        let out = rt.block_on(async {
            let handles: Vec<_> = (0..ITER).map(|i| volt::spawn(async move { i })).collect();
            let mut out = Vec::new();
            for h in handles {
                out.push(h.await.unwrap());
            }
            out
        });
        assert_eq!(out, (0..ITER).collect::<Vec<_>>());
    }

    #[test]
    fn spawn_many_from_task_with_yields() {
        const ITER: usize = 1_000;
        let rt = rt();
        let count = Arc::new(AtomicUsize::new(0));
        let c = count.clone();
        rt.block_on(async move {
            volt::spawn(async move {
                let mut hs = vec![];
                for _ in 0..ITER {
                    let c = c.clone();
                    hs.push(volt::spawn(async move {
                        task::yield_now().await;
                        c.fetch_add(1, SeqCst);
                    }));
                }
                for h in hs {
                    h.await.unwrap();
                }
            })
            .await
            .unwrap();
        });
        assert_eq!(count.load(SeqCst), ITER);
    }

    #[test]
    fn spawn_from_other_thread_idle() {
        let rt = rt();
        let handle = rt.handle().clone();
        let (tx, rx) = mpsc::channel();
        let th = thread::spawn(move || {
            handle.spawn(async move {
                tx.send(()).unwrap();
            })
        });
        let jh = th.join().unwrap();
        rt.block_on(async {
            jh.await.unwrap();
        });
        rx.recv().unwrap();
    }

    #[test]
    fn woken_from_many_threads() {
        // Thousands of tasks, each woken once by a plain OS thread.
        const TASKS: usize = 2_000;
        const THREADS: usize = 4;
        let rt = rt();
        let signals: Vec<Signal> = (0..TASKS).map(|_| Signal::new()).collect();
        let done = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = signals
            .iter()
            .cloned()
            .map(|s| {
                let done = done.clone();
                rt.spawn(async move {
                    s.wait().await;
                    done.fetch_add(1, SeqCst);
                })
            })
            .collect();
        let per = TASKS / THREADS;
        let wakers: Vec<_> = (0..THREADS)
            .map(|t| {
                let mine: Vec<Signal> = signals[t * per..(t + 1) * per].to_vec();
                thread::spawn(move || {
                    for s in mine {
                        s.set();
                    }
                })
            })
            .collect();
        rt.block_on(async {
            for h in handles {
                h.await.unwrap();
            }
        });
        for w in wakers {
            w.join().unwrap();
        }
        assert_eq!(done.load(SeqCst), TASKS);
    }

    #[test]
    fn join_handle_is_finished_and_id() {
        let rt = rt();
        rt.block_on(async {
            let s = Signal::new();
            let s2 = s.clone();
            let h = volt::spawn(async move {
                s2.wait().await;
                task::id()
            });
            assert!(!h.is_finished());
            let id = h.id();
            s.set();
            let mut h = h;
            let inner = (&mut h).await.unwrap();
            assert_eq!(inner, id);
            assert!(h.is_finished());
        });
    }

    #[test]
    fn dropping_join_handle_detaches() {
        let rt = rt();
        let (tx, rx) = mpsc::channel();
        rt.block_on(async move {
            let s = Signal::new();
            let s2 = s.clone();
            drop(volt::spawn(async move {
                s2.wait().await;
                tx.send("ran").unwrap();
            }));
            s.set();
            // The detached task still runs to completion.
            volt::spawn(async {}).await.unwrap();
        });
        assert_eq!(rx.recv().unwrap(), "ran");
    }

    #[test]
    fn abort_idle_task() {
        let rt = rt();
        let drops = DropCounter::new();
        let d = drops.track();
        rt.block_on(async move {
            let h = volt::spawn(pending_tracked(d));
            task::yield_now().await;
            h.abort();
            let err = h.await.unwrap_err();
            assert!(err.is_cancelled());
            assert!(!err.is_panic());
        });
        assert_eq!(drops.count(), 1);
    }

    #[test]
    fn abort_before_first_poll() {
        let rt = rt();
        let drops = DropCounter::new();
        let d = drops.track();
        let h = rt.spawn(pending_tracked(d));
        h.abort();
        let err = rt.block_on(h).unwrap_err();
        assert!(err.is_cancelled());
        assert_eq!(drops.count(), 1);
    }

    #[test]
    fn abort_running_task_cancels_at_next_yield() {
        let rt = rt();
        rt.block_on(async {
            let reached = Arc::new(AtomicBool::new(false));
            let r2 = reached.clone();
            let (tx, rx) = std::sync::mpsc::channel::<task::AbortHandle>();
            let h = volt::spawn(async move {
                // Abort ourselves while running: we are cancelled at the
                // next `.await` that yields.
                let me = rx.recv().unwrap();
                me.abort();
                task::yield_now().await;
                r2.store(true, SeqCst);
            });
            tx.send(h.abort_handle()).unwrap();
            let err = h.await.unwrap_err();
            assert!(err.is_cancelled());
            assert!(!reached.load(SeqCst));
        });
    }

    #[test]
    fn abort_after_completion_keeps_output() {
        let rt = rt();
        rt.block_on(async {
            let h = volt::spawn(async { 5 });
            while !h.is_finished() {
                task::yield_now().await;
            }
            h.abort();
            assert_eq!(h.await.unwrap(), 5);
        });
    }

    #[test]
    fn abort_handle_outlives_task_and_reports_finished() {
        let rt = rt();
        rt.block_on(async {
            let h = volt::spawn(async { 1 });
            let ah = h.abort_handle();
            let ah2 = ah.clone();
            assert_eq!(ah.id(), h.id());
            assert_eq!(h.await.unwrap(), 1);
            assert!(ah.is_finished());
            ah2.abort();
        });
    }

    #[test]
    fn panic_in_task_is_a_join_error_and_worker_survives() {
        let rt = rt();
        rt.block_on(async {
            for i in 0..4 {
                let err = volt::spawn(async move { panic!("boom {i}") }).await.unwrap_err();
                assert!(err.is_panic());
                let id = err.id();
                assert_eq!(err.to_string(), format!("task {id} panicked with message \"boom {i}\""));
                assert_eq!(*err.into_panic().downcast::<String>().unwrap(), format!("boom {i}"));
            }
            // The runtime still runs tasks.
            assert_eq!(volt::spawn(async { 3 }).await.unwrap(), 3);
        });
    }

    #[test]
    fn panic_in_drop_during_abort_is_reported() {
        struct PanicOnDrop;
        impl Drop for PanicOnDrop {
            fn drop(&mut self) {
                panic!("drop panic");
            }
        }
        let rt = rt();
        rt.block_on(async {
            let started = Signal::new();
            let s2 = started.clone();
            let h = volt::spawn(async move {
                let _p = PanicOnDrop;
                s2.set();
                std::future::pending::<()>().await
            });
            // The guard must exist before the abort.
            started.wait().await;
            h.abort();
            let err = h.await.unwrap_err();
            assert!(err.is_panic());
            assert_eq!(volt::spawn(async { 1 }).await.unwrap(), 1);
        });
    }

    #[test]
    fn output_dropped_once_whether_or_not_read() {
        let rt = rt();
        let drops = DropCounter::new();
        let (a, b, c) = (drops.track(), drops.track(), drops.track());
        rt.block_on(async move {
            // Read by the JoinHandle.
            let out = volt::spawn(async move { a }).await.unwrap();
            drop(out);
            // JoinHandle dropped before completion: dropped by the task.
            let s = Signal::new();
            let s2 = s.clone();
            drop(volt::spawn(async move {
                s2.wait().await;
                b
            }));
            s.set();
            // JoinHandle dropped after completion without reading.
            let h = volt::spawn(async move { c });
            while !h.is_finished() {
                task::yield_now().await;
            }
            drop(h);
            // Let the detached task finish.
            for _ in 0..10 {
                task::yield_now().await;
            }
        });
        drop(rt);
        assert_eq!(drops.count(), 3);
    }

    #[test]
    fn shutdown_drops_pending_tasks_and_cancels_join_handles() {
        const N: usize = 500;
        let rt = rt();
        let drops = DropCounter::new();
        let handles: Vec<_> = (0..N).map(|_| rt.spawn(pending_tracked(drops.track()))).collect();
        // Let them all start.
        rt.block_on(async {
            for _ in 0..3 {
                task::yield_now().await;
            }
        });
        drop(rt);
        assert_eq!(drops.count(), N);
        // JoinHandles still resolve, on another runtime.
        let other = volt::runtime::Builder::new_current_thread().build().unwrap();
        other.block_on(async move {
            for h in handles {
                assert!(h.await.unwrap_err().is_cancelled());
            }
        });
    }

    #[test]
    fn spawn_after_shutdown_is_cancelled() {
        let rt = rt();
        let handle = rt.handle().clone();
        drop(rt);
        let drops = DropCounter::new();
        let h = handle.spawn(pending_tracked(drops.track()));
        assert_eq!(drops.count(), 1);
        let other = volt::runtime::Builder::new_current_thread().build().unwrap();
        assert!(other.block_on(h).unwrap_err().is_cancelled());
    }

    #[test]
    fn tasks_spawned_in_drop_during_shutdown_are_cancelled() {
        struct SpawnOnDrop(DropCounter);
        impl Drop for SpawnOnDrop {
            fn drop(&mut self) {
                let t = self.0.track();
                // The runtime is shutting down: the task is dropped at once.
                drop(volt::spawn(pending_tracked(t)));
            }
        }
        let rt = rt();
        let drops = DropCounter::new();
        // Built outside the future, so it is dropped whether or not the
        // task ever ran.
        let guard = SpawnOnDrop(drops.clone());
        rt.spawn(async move {
            let _s = guard;
            std::future::pending::<()>().await
        });
        rt.block_on(task::yield_now());
        drop(rt);
        assert_eq!(drops.count(), 1);
    }

    #[test]
    fn spawn_blocking_returns_and_sees_handle() {
        let rt = rt();
        let out = rt.block_on(async {
            task::spawn_blocking(|| {
                // The blocking thread is in the runtime's context...
                let h = Handle::current();
                // ...and may block on it.
                h.block_on(async { volt::spawn(async { 21 }).await.unwrap() * 2 })
            })
            .await
            .unwrap()
        });
        assert_eq!(out, 42);
    }

    #[test]
    fn spawn_blocking_panic_is_join_error() {
        let rt = rt();
        rt.block_on(async {
            let err = task::spawn_blocking(|| panic!("blocking boom")).await.unwrap_err();
            assert!(err.is_panic());
        });
    }

    #[test]
    fn yield_now_lets_others_run() {
        let rt = rt();
        rt.block_on(async {
            let flag = Arc::new(AtomicBool::new(false));
            let f2 = flag.clone();
            let h = volt::spawn(async move {
                while !f2.load(SeqCst) {
                    task::yield_now().await;
                }
            });
            let setter = volt::spawn(async move { flag.store(true, SeqCst) });
            setter.await.unwrap();
            h.await.unwrap();
        });
    }

    #[test]
    fn budget_forces_a_busy_task_to_yield() {
        // A task that only ever consumes budget must still let another task
        // on the same worker run.
        let rt = rt();
        rt.block_on(async {
            let flag = Arc::new(AtomicBool::new(false));
            let f2 = flag.clone();
            let (started_tx, started_rx) = volt::sync::oneshot::channel();
            let busy = volt::spawn(async move {
                let mut started = Some(started_tx);
                let mut n = 0u64;
                while !f2.load(SeqCst) {
                    task::consume_budget().await;
                    n += 1;
                    // The setter is spawned only once we are busy.
                    if let Some(tx) = started.take() {
                        tx.send(()).unwrap();
                    }
                }
                n
            });
            started_rx.await.unwrap();
            volt::spawn(async move { flag.store(true, SeqCst) }).await.unwrap();
            assert!(busy.await.unwrap() > 0);
        });
    }

    #[test]
    fn unconstrained_never_runs_out_of_budget() {
        let rt = rt();
        rt.block_on(async {
            volt::spawn(task::unconstrained(async {
                for _ in 0..1_000 {
                    task::consume_budget().await;
                    assert!(task::coop::has_budget_remaining());
                }
            }))
            .await
            .unwrap();
        });
    }

    #[test]
    fn block_on_in_runtime_panics_with_tokio_message() {
        let rt = rt();
        let rt2 = rt.clone();
        let res = rt.block_on(async move {
            volt::spawn(async move {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rt2.block_on(async {})))
            })
            .await
            .unwrap()
        });
        let err = res.unwrap_err();
        let msg = err.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| err.downcast_ref::<String>().cloned()).unwrap();
        assert!(msg.starts_with("Cannot start a runtime from within a runtime."), "{msg}");
    }

    #[test]
    fn handle_block_on_from_std_thread() {
        // (On the current-thread runtime `Handle::block_on` does not run
        // spawned tasks, as in tokio: wait on the blocking pool instead.)
        let rt = rt();
        let handle = rt.handle().clone();
        let v = thread::spawn(move || handle.block_on(async { task::spawn_blocking(|| 9).await.unwrap() }))
            .join()
            .unwrap();
        assert_eq!(v, 9);
    }

    #[test]
    fn enter_makes_spawn_work() {
        let rt = rt();
        let h = {
            let _g = rt.enter();
            volt::spawn(async { 4 })
        };
        assert_eq!(rt.block_on(h).unwrap(), 4);
    }

    #[test]
    fn num_alive_tasks_tracks_pending_tasks() {
        let rt = rt();
        let metrics = rt.metrics();
        let s = Signal::new();
        let handles: Vec<_> = (0..10)
            .map(|_| {
                let s = s.clone();
                rt.spawn(async move { s.wait().await })
            })
            .collect();
        assert_eq!(metrics.num_alive_tasks(), 10);
        s.set();
        rt.block_on(async move {
            for h in handles {
                h.await.unwrap();
            }
        });
        assert_eq!(metrics.num_alive_tasks(), 0);
    }

    #[test]
    fn barrier_of_tasks_across_threads() {
        // Tasks on the runtime and plain threads meet at a std barrier
        // through spawn_blocking.
        let rt = rt();
        let barrier = Arc::new(Barrier::new(2));
        let b1 = barrier.clone();
        let th = thread::spawn(move || b1.wait());
        rt.block_on(async move {
            task::spawn_blocking(move || barrier.wait()).await.unwrap();
        });
        th.join().unwrap();
    }

    #[test]
    fn waker_will_wake_and_clone_do_not_allocate_new_identity() {
        let rt = rt();
        rt.block_on(async {
            volt::spawn(async {
                std::future::poll_fn(|cx| {
                    let w = cx.waker().clone();
                    assert!(w.will_wake(cx.waker()));
                    std::task::Poll::Ready(())
                })
                .await
            })
            .await
            .unwrap();
        });
    }
}

/// Current-thread only: its single queue makes the order deterministic. A
/// yielded task is re-queued by the scheduler loop, at the back, so `b` runs
/// between the two halves of `a`.
#[test]
fn a_yielding_task_goes_behind_the_queued_ones_on_current_thread() {
    let rt = volt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    rt.block_on(async {
        let (l1, l2) = (log.clone(), log.clone());
        let a = volt::spawn(async move {
            l1.lock().unwrap().push("a0");
            volt::task::yield_now().await;
            l1.lock().unwrap().push("a1");
        });
        let b = volt::spawn(async move { l2.lock().unwrap().push("b") });
        a.await.unwrap();
        b.await.unwrap();
    });
    assert_eq!(*log.lock().unwrap(), ["a0", "b", "a1"]);
}
