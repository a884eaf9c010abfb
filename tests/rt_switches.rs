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
