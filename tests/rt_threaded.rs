//! Multi-thread scheduler specifics: stealing, the LIFO slot,
//! `block_in_place`, the blocking pool, hooks and shutdown.

mod support;

use support::{DropCounter, Signal, pending_tracked};

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::Duration;
use volt::runtime::{Builder, Runtime};
use volt::task;

fn rt(workers: usize) -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn blocked_worker_has_its_queue_stolen() {
    // One worker blocks the OS thread (badly, without block_in_place); the
    // tasks it spawned first must be stolen and run by the other worker.
    const N: usize = 16;
    let rt = rt(2);
    let (tx, rx) = mpsc::channel();
    rt.block_on(async move {
        volt::spawn(async move {
            for _ in 0..N {
                let tx = tx.clone();
                volt::spawn(async move {
                    let _ = tx.send(());
                });
            }
            // The last spawned task sits in this worker's LIFO slot (not
            // stealable); every other one can be stolen.
            for _ in 0..N - 1 {
                rx.recv().unwrap();
            }
        })
        .await
        .unwrap();
    });
    // Only stealing can have run them. Metrics are published when a worker
    // parks, so wait for the thief to publish.
    let m = rt.metrics();
    while m.worker_steal_count(0) + m.worker_steal_count(1) == 0 {
        thread::yield_now();
    }
}

#[test]
fn lifo_ping_pong_does_not_starve_the_queue() {
    // Two tasks wake each other forever; a third, queued behind them on the
    // single worker, must still run (the LIFO slot is capped).
    let rt = rt(1);
    rt.block_on(async {
        volt::spawn(async {
            let stop = Arc::new(AtomicBool::new(false));
            let (a, b) = (Arc::new(PingPong::default()), Arc::new(PingPong::default()));
            let pinger = {
                let (a, b, stop) = (a.clone(), b.clone(), stop.clone());
                volt::spawn(async move {
                    while !stop.load(SeqCst) {
                        b.ping();
                        a.wait().await;
                    }
                    b.ping();
                })
            };
            let ponger = {
                let (a, b, stop) = (a.clone(), b.clone(), stop.clone());
                volt::spawn(async move {
                    while !stop.load(SeqCst) {
                        b.wait().await;
                        a.ping();
                    }
                    a.ping();
                })
            };
            // Queued behind the ping-pong pair.
            let starving = volt::spawn(async move { stop.store(true, SeqCst) });
            starving.await.unwrap();
            pinger.await.unwrap();
            ponger.await.unwrap();
        })
        .await
        .unwrap();
    });
}

/// A reusable wake-up: `ping` sets a flag and wakes the waiter.
#[derive(Default)]
struct PingPong {
    state: std::sync::Mutex<(bool, Option<std::task::Waker>)>,
}

impl PingPong {
    fn ping(&self) {
        let w = {
            let mut s = self.state.lock().unwrap();
            s.0 = true;
            s.1.take()
        };
        if let Some(w) = w {
            w.wake();
        }
    }

    async fn wait(&self) {
        std::future::poll_fn(|cx| {
            let mut s = self.state.lock().unwrap();
            if std::mem::take(&mut s.0) {
                std::task::Poll::Ready(())
            } else {
                s.1 = Some(cx.waker().clone());
                std::task::Poll::Pending
            }
        })
        .await
    }
}

#[test]
fn block_in_place_lets_other_tasks_run_even_with_one_worker() {
    let rt = rt(1);
    rt.block_on(async {
        volt::spawn(async {
            let (tx, rx) = mpsc::channel();
            // Queued on this worker; runs while we block below.
            volt::spawn(async move { tx.send(7).unwrap() });
            let v = task::block_in_place(move || rx.recv().unwrap());
            assert_eq!(v, 7);
            // Still inside a task and able to await afterwards.
            task::yield_now().await;
            v
        })
        .await
        .unwrap();
    });
}

#[test]
fn block_in_place_nested_and_with_block_on() {
    let rt = rt(2);
    rt.block_on(async {
        volt::spawn(async {
            let v = task::block_in_place(|| {
                task::block_in_place(|| {
                    volt::runtime::Handle::current()
                        .block_on(async { volt::spawn(async { 5 }).await.unwrap() })
                })
            });
            assert_eq!(v, 5);
        })
        .await
        .unwrap();
    });
}

#[test]
fn block_in_place_in_block_on_and_outside_runtime() {
    let rt = rt(1);
    assert_eq!(rt.block_on(async { task::block_in_place(|| 3) }), 3);
    assert_eq!(task::block_in_place(|| 4), 4);
}

#[test]
fn blocking_tasks_beyond_the_cap_queue_up() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(2)
        .build()
        .unwrap();
    let running = Arc::new(AtomicUsize::new(0));
    let max_seen = Arc::new(AtomicUsize::new(0));
    rt.block_on(async {
        let handles: Vec<_> = (0..20)
            .map(|i| {
                let running = running.clone();
                let max_seen = max_seen.clone();
                task::spawn_blocking(move || {
                    let now = running.fetch_add(1, SeqCst) + 1;
                    max_seen.fetch_max(now, SeqCst);
                    // Give others a chance to overlap if the cap leaked.
                    thread::yield_now();
                    running.fetch_sub(1, SeqCst);
                    i
                })
            })
            .collect();
        let mut sum = 0;
        for h in handles {
            sum += h.await.unwrap();
        }
        assert_eq!(sum, (0..20).sum());
    });
    assert!(
        max_seen.load(SeqCst) <= 2,
        "max concurrent = {}",
        max_seen.load(SeqCst)
    );
}

#[test]
fn thread_hooks_and_names() {
    let starts = Arc::new(AtomicUsize::new(0));
    let stops = Arc::new(AtomicUsize::new(0));
    let (s1, s2) = (starts.clone(), stops.clone());
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("hooked")
        .thread_stack_size(4 * 1024 * 1024)
        .on_thread_start(move || {
            s1.fetch_add(1, SeqCst);
        })
        .on_thread_stop(move || {
            s2.fetch_add(1, SeqCst);
        })
        .build()
        .unwrap();
    let name = rt.block_on(async {
        volt::spawn(async { thread::current().name().map(String::from) })
            .await
            .unwrap()
    });
    assert_eq!(name.as_deref(), Some("hooked"));
    let name = rt
        .block_on(rt.spawn_blocking(|| thread::current().name().map(String::from)))
        .unwrap();
    assert_eq!(name.as_deref(), Some("hooked"));
    drop(rt);
    assert!(starts.load(SeqCst) >= 2);
    assert_eq!(starts.load(SeqCst), stops.load(SeqCst));
}

#[test]
fn thread_name_fn_is_called_per_thread() {
    let counter = Arc::new(AtomicUsize::new(0));
    let c = counter.clone();
    let rt = Builder::new_multi_thread()
        .worker_threads(3)
        .thread_name_fn(move || format!("pool-{}", c.fetch_add(1, SeqCst)))
        .build()
        .unwrap();
    let name = rt.block_on(async {
        volt::spawn(async { thread::current().name().unwrap().to_string() })
            .await
            .unwrap()
    });
    assert!(name.starts_with("pool-"), "{name}");
    drop(rt);
    assert!(counter.load(SeqCst) >= 3);
}

#[test]
fn park_hooks_are_called() {
    let parks = Arc::new(AtomicUsize::new(0));
    let unparks = Arc::new(AtomicUsize::new(0));
    let (p, u) = (parks.clone(), unparks.clone());
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .on_thread_park(move || {
            p.fetch_add(1, SeqCst);
        })
        .on_thread_unpark(move || {
            u.fetch_add(1, SeqCst);
        })
        .build()
        .unwrap();
    // A task that waits on a signal set from a plain thread makes the
    // worker park and unpark at least once.
    let s = Signal::new();
    let s2 = s.clone();
    let h = rt.spawn(async move { s2.wait().await });
    while rt.metrics().worker_park_count(0) == 0 {
        thread::yield_now();
    }
    s.set();
    rt.block_on(h).unwrap();
    drop(rt);
    assert!(parks.load(SeqCst) >= 1);
    assert!(unparks.load(SeqCst) >= 1);
}

#[test]
fn shutdown_timeout_does_not_wait_for_a_stuck_blocking_task() {
    let rt = rt(1);
    let (tx, rx) = mpsc::channel::<()>();
    let (started_tx, started_rx) = mpsc::channel();
    rt.spawn_blocking(move || {
        started_tx.send(()).unwrap();
        // Blocks until the test ends.
        let _ = rx.recv();
    });
    started_rx.recv().unwrap();
    rt.shutdown_timeout(Duration::from_millis(10));
    drop(tx);
}

#[test]
fn shutdown_background_from_async_context() {
    let rt = rt(1);
    rt.block_on(async {
        let inner = Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        let drops = DropCounter::new();
        inner.spawn(pending_tracked(drops.track()));
        inner.shutdown_background();
    });
}

#[test]
fn dropping_a_runtime_in_async_context_panics_with_tokio_message() {
    let rt = rt(1);
    let msg = rt.block_on(async {
        let inner = Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(inner)))
            .unwrap_err();
        err.downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| err.downcast_ref::<String>().cloned())
            .unwrap_or_default()
    });
    assert_eq!(
        msg,
        "Cannot drop a runtime in a context where blocking is not allowed. \
         This happens when a runtime is dropped from within an asynchronous context."
    );
}

#[test]
fn metrics_report_workers_parks_and_busy_time() {
    let rt = rt(2);
    let m = rt.metrics();
    assert_eq!(m.num_workers(), 2);
    rt.block_on(async {
        for _ in 0..100 {
            volt::spawn(async { task::yield_now().await })
                .await
                .unwrap();
        }
    });
    // Workers park when idle; wait until both did at least once.
    while m.worker_park_count(0) == 0 || m.worker_park_count(1) == 0 {
        thread::yield_now();
    }
    let polls: u64 = (0..2).map(|w| m.worker_poll_count(w)).sum();
    assert!(polls >= 100, "polls = {polls}");
    assert!((0..2).any(|w| !m.worker_total_busy_duration(w).is_zero()));
    assert!(m.worker_park_unpark_count(0) >= m.worker_park_count(0));
}

#[test]
fn local_queue_depth_and_schedule_count_see_local_spawns() {
    let rt = rt(1);
    let m = rt.metrics();
    let (queued_tx, queued_rx) = mpsc::channel();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let done = rt.spawn(async move {
        // Spawned on the worker: the first goes to the LIFO slot, each next
        // one takes the slot and pushes the previous one into the queue.
        let hs: Vec<_> = (0..5).map(|i| volt::spawn(async move { i })).collect();
        queued_tx.send(()).unwrap();
        // Hold the only worker (badly, on purpose) while the test looks.
        go_rx.recv().unwrap();
        let mut sum = 0;
        for h in hs {
            sum += h.await.unwrap();
        }
        sum
    });
    queued_rx.recv().unwrap();
    assert_eq!(m.worker_local_queue_depth(0), 4);
    go_tx.send(()).unwrap();
    assert_eq!(rt.block_on(done).unwrap(), 10);
    assert_eq!(m.worker_local_queue_depth(0), 0);
    // Published when the worker parks; it parks once idle.
    while m.worker_local_schedule_count(0) < 5 {
        thread::yield_now();
    }
    assert!(m.worker_noop_count(0) <= m.worker_park_count(0));
}

#[test]
fn global_queue_depth_counts_remote_spawns_before_they_run() {
    let rt = Builder::new_current_thread().build().unwrap();
    for _ in 0..5 {
        let h = rt.handle().clone();
        // Spawned from another thread: goes through the global queue, which
        // nobody drains until block_on runs.
        thread::spawn(move || drop(h.spawn(async {})))
            .join()
            .unwrap();
    }
    assert_eq!(rt.metrics().global_queue_depth(), 5);
    rt.block_on(async {
        for _ in 0..10 {
            task::yield_now().await;
        }
    });
    assert_eq!(rt.metrics().global_queue_depth(), 0);
}

#[test]
fn disable_lifo_slot_still_runs_everything() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .disable_lifo_slot()
        .global_queue_interval(7)
        .event_interval(3)
        .build()
        .unwrap();
    let n = rt.block_on(async {
        let mut hs = vec![];
        for i in 0..500u64 {
            hs.push(volt::spawn(async move {
                task::yield_now().await;
                i
            }));
        }
        let mut s = 0;
        for h in hs {
            s += h.await.unwrap();
        }
        s
    });
    assert_eq!(n, 499 * 500 / 2);
    assert_eq!(
        (0..2)
            .map(|w| rt.metrics().worker_lifo_count(w))
            .sum::<u64>(),
        0
    );
}

#[test]
fn disable_lifo_slot_lets_an_idle_worker_take_a_task_woken_behind_a_long_poll() {
    // What the option is for: a task woken by a poll that then runs long
    // (here: blocks its worker until the woken task has run) must not wait
    // for that poll when another worker is idle. With the LIFO slot it
    // would (the slot is not stealable, as in tokio).
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .disable_lifo_slot()
        .build()
        .unwrap();
    for _ in 0..20 {
        let (waiting_tx, waiting_rx) = mpsc::channel();
        let (ran_tx, ran_rx) = mpsc::channel();
        let (wake_tx, mut wake_rx) = volt::sync::oneshot::channel::<()>();
        rt.spawn(async move {
            std::future::poll_fn(|cx| {
                let r = std::pin::Pin::new(&mut wake_rx).poll(cx);
                if r.is_pending() {
                    let _ = waiting_tx.send(());
                }
                r
            })
            .await
            .unwrap();
            ran_tx.send(()).unwrap();
        });
        // The task waits on `wake_rx` (registered, idle).
        waiting_rx.recv().unwrap();
        let long = rt.spawn(async move {
            // Queues the waiting task on this worker...
            wake_tx.send(()).unwrap();
            // ...and blocks it until the task ran elsewhere (the timeout
            // only turns a hang into a failure).
            ran_rx.recv_timeout(Duration::from_secs(20)).is_ok()
        });
        assert!(
            rt.block_on(long).unwrap(),
            "the woken task waited for the long poll"
        );
    }
}

#[test]
fn runtime_ids_names_and_flavors() {
    let a = rt(1);
    let b = Builder::new_current_thread().name("b-rt").build().unwrap();
    assert_ne!(a.handle().id(), b.handle().id());
    assert_eq!(b.handle().name(), Some("b-rt"));
    assert_eq!(a.handle().name(), None);
    assert_eq!(
        a.handle().runtime_flavor(),
        volt::runtime::RuntimeFlavor::MultiThread
    );
    assert_eq!(
        b.handle().runtime_flavor(),
        volt::runtime::RuntimeFlavor::CurrentThread
    );
    assert_eq!(b.metrics().num_workers(), 1);
}

#[test]
fn many_runtimes_in_parallel_threads() {
    let threads: Vec<_> = (0..4)
        .map(|i| {
            thread::spawn(move || {
                let rt = rt(2);
                rt.block_on(async move { volt::spawn(async move { i * 2 }).await.unwrap() })
            })
        })
        .collect();
    let sum: i32 = threads.into_iter().map(|t| t.join().unwrap()).sum();
    assert_eq!(sum, 12);
}

#[test]
fn abort_storm_from_other_threads() {
    // Tasks woken and aborted concurrently from other threads: every task
    // ends exactly once, cancelled or completed.
    const N: usize = 2_000;
    let rt = rt(2);
    let drops = DropCounter::new();
    let signals: Vec<Signal> = (0..N).map(|_| Signal::new()).collect();
    let handles: Vec<_> = signals
        .iter()
        .cloned()
        .map(|s| {
            let t = drops.track();
            rt.spawn(async move {
                let _t = t;
                s.wait().await;
            })
        })
        .collect();
    let aborts: Vec<_> = handles.iter().map(|h| h.abort_handle()).collect();
    let waker_thread = thread::spawn(move || signals.iter().for_each(Signal::set));
    let abort_thread = thread::spawn(move || aborts.iter().for_each(|a| a.abort()));
    waker_thread.join().unwrap();
    abort_thread.join().unwrap();
    rt.block_on(async move {
        for h in handles {
            match h.await {
                Ok(()) => {}
                Err(e) => assert!(e.is_cancelled()),
            }
        }
    });
    drop(rt);
    assert_eq!(drops.count(), N);
}

#[test]
fn idle_workers_sleep_instead_of_spinning() {
    // Once the runtime has nothing to do, every worker parks and stays
    // parked: its park count stops moving.
    let rt = rt(2);
    rt.block_on(async {
        for _ in 0..10 {
            volt::spawn(async {}).await.unwrap();
        }
    });
    let m = rt.metrics();
    let parked = |w: usize| m.worker_park_unpark_count(w) % 2 == 1;
    while !(parked(0) && parked(1)) {
        thread::yield_now();
    }
    let before: Vec<u64> = (0..2).map(|w| m.worker_park_count(w)).collect();
    // Observing that nothing happens takes some wall time; nothing is
    // ordered by this sleep.
    thread::sleep(Duration::from_millis(100));
    let after: Vec<u64> = (0..2).map(|w| m.worker_park_count(w)).collect();
    // A notification sent just before a worker parked (the last spawn's
    // wake-up) may still wake it once, and it parks again at once; a
    // spinning worker would park hundreds of times in this window.
    for w in 0..2 {
        assert!(
            after[w] - before[w] <= 2,
            "worker {w} keeps waking up while idle: {before:?} -> {after:?}"
        );
    }
    while !(parked(0) && parked(1)) {
        thread::yield_now();
    }
}

#[test]
fn a_burst_of_blocking_calls_reuses_pool_threads() {
    // 64 tasks each await a stream of tiny blocking calls: at most 64 are
    // in flight, so the pool needs at most 64 threads for them, plus the
    // threads between a call's return and their next look at the queue.
    // (A pool that starts a thread whenever none is idle at that instant
    // reaches its 512-thread cap here.)
    let rt = rt(2);
    rt.block_on(async {
        let mut set = task::JoinSet::new();
        for i in 0..64usize {
            set.spawn(async move {
                for j in 0..50usize {
                    assert_eq!(task::spawn_blocking(move || i ^ j).await.unwrap(), i ^ j);
                }
            });
        }
        while let Some(r) = set.join_next().await {
            r.unwrap();
        }
    });
    let threads = rt.metrics().num_blocking_threads();
    assert!(
        threads <= 2 * 64 + 2,
        "{threads} pool threads for 64 calls in flight"
    );
}

#[test]
fn blocking_calls_that_wait_for_each_other_each_get_a_thread() {
    // Eight calls that only return together: each needs its own thread,
    // even when the previous round's threads are still finishing (a call
    // queued for a finishing thread must not wait behind another call).
    let rt = rt(2);
    rt.block_on(async {
        for _ in 0..50 {
            let barrier = Arc::new(std::sync::Barrier::new(8));
            let calls: Vec<_> = (0..8)
                .map(|_| {
                    let barrier = barrier.clone();
                    volt::spawn(async move {
                        task::spawn_blocking(move || {
                            barrier.wait();
                        })
                        .await
                        .unwrap()
                    })
                })
                .collect();
            for call in calls {
                call.await.unwrap();
            }
        }
    });
}

#[test]
fn blocking_threads_exit_after_keep_alive() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .thread_keep_alive(Duration::from_millis(1))
        .build()
        .unwrap();
    let m = rt.metrics();
    // Before any call (the worker's own pool thread is not counted).
    let before = m.num_blocking_threads();
    rt.block_on(async {
        let hs: Vec<_> = (0..4)
            .map(|_| task::spawn_blocking(thread::yield_now))
            .collect();
        for h in hs {
            h.await.unwrap();
        }
    });
    // Idle blocking threads leave once the keep-alive passes.
    while m.num_blocking_threads() > before {
        thread::yield_now();
    }
    assert_eq!(m.num_blocking_threads(), before);
}

#[test]
fn the_blocking_thread_idle_last_takes_the_next_call() {
    // The pool posts a call to its most recently idle thread and wakes only
    // that one; the others stay idle (and can reach their keep-alive).
    let rt = Builder::new_current_thread().build().unwrap();
    let m = rt.metrics();
    rt.block_on(async {
        // Three threads: each call waits for the other two.
        let barrier = Arc::new(std::sync::Barrier::new(3));
        let calls: Vec<_> = (0..3)
            .map(|_| {
                let barrier = barrier.clone();
                task::spawn_blocking(move || {
                    barrier.wait();
                })
            })
            .collect();
        for call in calls {
            call.await.unwrap();
        }
    });
    let all_idle = || {
        while m.num_idle_blocking_threads() < 3 {
            thread::yield_now();
        }
    };
    all_idle();
    let mut ran_on = Vec::new();
    for _ in 0..10 {
        let call = rt.spawn_blocking(|| thread::current().id());
        ran_on.push(rt.block_on(call).unwrap());
        all_idle();
    }
    assert!(ran_on.windows(2).all(|w| w[0] == w[1]), "{ran_on:?}");
    assert_eq!(m.num_blocking_threads(), 3);
}

#[test]
fn current_thread_block_on_from_two_threads_shares_the_core() {
    let rt = Arc::new(Builder::new_current_thread().build().unwrap());
    let s = Signal::new();
    let (rt2, s2) = (rt.clone(), s.clone());
    let other = thread::spawn(move || {
        rt2.block_on(async move {
            // Runs on whichever thread holds the core.
            volt::spawn(async move { s2.wait().await }).await.unwrap();
            1
        })
    });
    let mine = rt.block_on(async move {
        volt::spawn(async move { s.set() }).await.unwrap();
        2
    });
    assert_eq!(mine + other.join().unwrap(), 3);
}

#[test]
fn panic_in_block_on_leaves_the_runtime_usable() {
    for rt in [Builder::new_current_thread().build().unwrap(), rt(1)] {
        let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            rt.block_on(async { panic!("in block_on") })
        }));
        assert!(res.is_err());
        assert_eq!(
            rt.block_on(async { volt::spawn(async { 5 }).await.unwrap() }),
            5
        );
    }
}

/// `shutdown_timeout(Duration::MAX)` waits for good (no `Instant`
/// overflow panic).
#[test]
fn shutdown_timeout_of_duration_max() {
    let rt = volt::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    rt.spawn_blocking(|| {});
    rt.shutdown_timeout(std::time::Duration::MAX);
}
