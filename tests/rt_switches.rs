//! The builder switches for tokio's alternative implementations
//! (`enable_alt_timer`, `enable_eager_driver_handoff`,
//! `enable_sharded_blocking_queue`; tokio has them behind
//! `tokio_unstable`): `runtime/switches.rs` says what each does on volt.

use std::sync::mpsc;
use std::time::Duration;

use volt::runtime::Builder;

/// Runs `f` on a thread of its own; fails (instead of hanging the suite)
/// if it does not finish within a minute.
fn within_a_minute(f: impl FnOnce() + Send + 'static) {
    let (done_tx, done_rx) = mpsc::channel();
    std::thread::spawn(move || {
        f();
        done_tx.send(()).unwrap();
    });
    done_rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the runtime stalled");
}

/// A task woken by a timer blocks its worker until a later timer fires.
/// The first timer is fired by the worker sleeping in the driver, which
/// runs the woken task itself; the other worker sleeps on its condition
/// variable. Only the hand-off gets the driver polled again for the
/// second timer (without it this stalls).
#[test]
fn eager_handoff_gets_the_driver_polled_while_its_worker_is_blocked() {
    within_a_minute(|| {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .enable_eager_driver_handoff()
            .build()
            .unwrap();
        for _ in 0..5 {
            let (tx, rx) = mpsc::channel();
            rt.block_on(async move {
                let later = volt::spawn(async move {
                    volt::time::sleep(Duration::from_millis(20)).await;
                    tx.send(()).unwrap();
                });
                let blocker = volt::spawn(async move {
                    volt::time::sleep(Duration::from_millis(5)).await;
                    rx.recv().unwrap();
                });
                blocker.await.unwrap();
                later.await.unwrap();
            });
        }
    });
}

#[test]
fn alt_timer_turns_the_time_driver_on() {
    let rt = Builder::new_multi_thread()
        .enable_alt_timer()
        .build()
        .unwrap();
    // Without the time driver, `sleep` panics ("timers are disabled").
    rt.block_on(async { volt::time::sleep(Duration::from_millis(1)).await });
}

#[test]
fn sharded_blocking_queue_runs_blocking_tasks() {
    let rt = Builder::new_multi_thread()
        .enable_sharded_blocking_queue()
        .build()
        .unwrap();
    let sum: u64 = rt.block_on(async {
        let handles: Vec<_> = (0..64u64)
            .map(|i| volt::task::spawn_blocking(move || i))
            .collect();
        let mut sum = 0;
        for h in handles {
            sum += h.await.unwrap();
        }
        sum
    });
    assert_eq!(sum, 64 * 63 / 2);
}

/// With the alternative timer, a `Sleep` fired by its runtime's shutdown
/// completes when polled afterwards (tokio's `time_alt` behavior); the
/// default timer panics with tokio's shutdown message.
#[test]
fn a_sleep_fired_by_shutdown() {
    use futures_lite_poll::poll_once;
    for alt in [true, false] {
        let mut builder = Builder::new_multi_thread();
        builder.worker_threads(1).enable_time();
        if alt {
            builder.enable_alt_timer();
        }
        let rt = builder.build().unwrap();
        // Made on a worker (the timer files it in that worker's shard).
        #[allow(clippy::async_yields_async)]
        let sleep = rt
            .block_on(rt.spawn(async { volt::time::sleep(Duration::from_secs(3600)) }))
            .unwrap();
        let mut sleep = Box::pin(sleep);
        assert!(poll_once(sleep.as_mut()).is_pending());
        drop(rt);
        let polled =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| poll_once(sleep.as_mut())));
        match alt {
            true => assert!(polled.unwrap().is_ready()),
            false => {
                let err = polled.unwrap_err();
                assert_eq!(
                    err.downcast_ref::<&str>()
                        .copied()
                        .or(err.downcast_ref::<String>().map(|s| s.as_str())),
                    Some("A Tokio 1.x context was found, but it is being shutdown.")
                );
            }
        }
    }
}

mod futures_lite_poll {
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll, Waker};

    /// Polls `f` once with a waker that does nothing.
    pub fn poll_once<F: Future>(f: Pin<&mut F>) -> Poll<F::Output> {
        f.poll(&mut Context::from_waker(Waker::noop()))
    }
}
