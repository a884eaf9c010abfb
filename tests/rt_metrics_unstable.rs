//! The `RuntimeMetrics` counters tokio has behind `tokio_unstable`:
//! spawned tasks, budget-forced yields, the I/O driver's registrations and
//! ready events, each worker's thread.

use std::thread;

use volt::runtime::{Builder, Runtime};

fn runtimes() -> [Runtime; 2] {
    [
        Builder::new_current_thread().enable_all().build().unwrap(),
        Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap(),
    ]
}

#[test]
fn spawned_tasks_count_counts_every_spawn_but_blocking_ones() {
    for rt in runtimes() {
        let m = rt.metrics();
        assert_eq!(m.spawned_tasks_count(), 0);
        rt.block_on(async {
            for i in 0..10 {
                assert_eq!(volt::spawn(async move { i }).await.unwrap(), i);
            }
            volt::task::spawn_blocking(|| ()).await.unwrap();
        });
        drop(rt.spawn(async {}));
        // Finished tasks stay counted.
        assert_eq!(m.spawned_tasks_count(), 11);
        #[allow(deprecated)]
        let active = m.active_tasks_count();
        assert_eq!(active, m.num_alive_tasks());
    }
}

#[test]
fn budget_forced_yield_count_counts_yields_the_budget_forced() {
    for rt in runtimes() {
        let m = rt.metrics();
        assert_eq!(m.budget_forced_yield_count(), 0);
        rt.block_on(async {
            volt::spawn(async {
                // A budget is 128 units: 1,000 spend it several times over.
                for _ in 0..1_000 {
                    volt::task::consume_budget().await;
                }
            })
            .await
            .unwrap();
        });
        assert!(m.budget_forced_yield_count() >= 1_000 / 128);
    }
}

#[test]
fn io_driver_counts_registrations_and_ready_events() {
    for rt in runtimes() {
        let m = rt.metrics();
        rt.block_on(async {
            let listener = volt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let client = volt::net::TcpStream::connect(addr).await.unwrap();
            let (server, _) = listener.accept().await.unwrap();
            drop((listener, client, server));
        });
        assert_eq!(m.io_driver_fd_registered_count(), 3);
        assert_eq!(m.io_driver_fd_deregistered_count(), 3);
        // At least the accept and the connect's writability were events.
        assert!(m.io_driver_ready_count() >= 1);
    }
    // Without an I/O driver: zeroes.
    let rt = Builder::new_current_thread().build().unwrap();
    let m = rt.metrics();
    rt.block_on(async {});
    assert_eq!(m.io_driver_fd_registered_count(), 0);
    assert_eq!(m.io_driver_ready_count(), 0);
}

#[test]
fn worker_thread_id_names_the_thread_running_each_worker() {
    // Current thread: the building thread, then whoever runs `block_on`.
    let rt = std::sync::Arc::new(Builder::new_current_thread().build().unwrap());
    let m = rt.metrics();
    assert_eq!(m.worker_thread_id(0), Some(thread::current().id()));
    let rt2 = rt.clone();
    let other = thread::spawn(move || {
        rt2.block_on(async {});
        thread::current().id()
    })
    .join()
    .unwrap();
    assert_eq!(m.worker_thread_id(0), Some(other));

    // Multi-thread: each worker's own thread, once it has started.
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let m = rt.metrics();
    while m.worker_park_count(0) == 0 || m.worker_park_count(1) == 0 {
        thread::yield_now();
    }
    let (a, b) = (
        m.worker_thread_id(0).unwrap(),
        m.worker_thread_id(1).unwrap(),
    );
    assert_ne!(a, b);
    assert_ne!(a, thread::current().id());
    let on_worker =
        rt.block_on(async { volt::spawn(async { thread::current().id() }).await.unwrap() });
    assert!(on_worker == a || on_worker == b);
}

/// A budget run dry counts once, however many resources then return
/// `Pending` in the same poll (tokio's `budget_exhaustion_yield_with_joins`).
#[test]
fn a_budget_run_dry_counts_once() {
    let rt = Builder::new_current_thread().build().unwrap();
    let m = rt.metrics();
    let spend = || {
        let mut yielded = false;
        std::future::poll_fn(move |cx| {
            loop {
                if yielded {
                    return std::task::Poll::Ready(());
                }
                let budget = std::pin::pin!(volt::task::consume_budget());
                if std::future::Future::poll(budget, cx).is_pending() {
                    yielded = true;
                    return std::task::Poll::Pending;
                }
            }
        })
    };
    rt.block_on(async { volt::join!(spend(), spend()) });
    assert_eq!(m.budget_forced_yield_count(), 1);
}

/// The current-thread runtime's queue depth is live, as in tokio.
#[test]
fn current_thread_queue_depth_is_live() {
    let rt = Builder::new_current_thread().build().unwrap();
    let m = rt.metrics();
    rt.block_on(async {
        for _ in 0..100 {
            volt::spawn(async {});
        }
        assert_eq!(m.worker_local_queue_depth(0), 100);
    });
}

/// The multi-thread runtime's workers run on pool threads but are not
/// counted as blocking threads (tokio's `num_blocking_threads`).
#[test]
fn workers_are_not_blocking_threads() {
    for rt in runtimes() {
        let m = rt.metrics();
        assert_eq!(m.num_blocking_threads(), 0);
        rt.block_on(rt.spawn_blocking(|| ())).unwrap();
        assert_eq!(m.num_blocking_threads(), 1);
    }
}
