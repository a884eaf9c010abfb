//! How often a busy multi-thread worker takes from the global queue.
//!
//! A worker busy with local work takes a task from the global queue every
//! `global_queue_interval` ticks. Unless the builder sets the interval, the
//! worker tunes it from its mean task poll time, so that remote work waits
//! about the same *time* whatever the tasks cost (tokio's behaviour; see
//! `runtime/src/scheduler/multi_thread/tuning.rs`).
//!
//! The probe: one worker runs a chain of tasks, each spawning the next
//! (always local work), and counts them. The test thread keeps the global
//! queue full of probe tasks; a worker runs one each time it checks the
//! global queue, and it reports how many chain tasks ran since the one
//! before. That count grows with the interval. The tests compare such
//! counts with each other, never with a clock.
//!
//! The mean poll time the tuning works from is also a metric
//! (`RuntimeMetrics::worker_mean_poll_time`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use volt::runtime::{Builder, Runtime};

/// Probes whose counts are kept.
const KEPT: usize = 50;
/// Probes before those on a tuned runtime: the first measurement comes
/// after `event_interval` (61) ticks, one check at the initial interval.
const WARM_UP: usize = 20;
/// Probes in flight at once: enough to find one at every check.
const IN_FLIGHT: usize = 32;

/// One link of the chain: counts itself and spawns the next. A slow link
/// spins for `spin` first (work, not a sleep: the poll itself is long).
fn link(run: Arc<AtomicBool>, count: Arc<AtomicUsize>, spin: Duration) {
    if !run.load(Relaxed) {
        return;
    }
    let start = Instant::now();
    while start.elapsed() < spin {
        std::hint::spin_loop();
    }
    count.fetch_add(1, Relaxed);
    volt::spawn(async move { link(run, count, spin) });
}

/// Runs a chain of links that each poll for `spin`, and returns the median
/// count of chain tasks between two global-queue checks, after `warm_up`
/// checks (at least one: the first count starts with the chain).
fn median_links_per_check(rt: &Runtime, spin: Duration, warm_up: usize) -> usize {
    let run = Arc::new(AtomicBool::new(true));
    let count = Arc::new(AtomicUsize::new(0));
    {
        let (run, count) = (run.clone(), count.clone());
        rt.spawn(async move { link(run, count, spin) });
    }
    // Probes queued before the chain runs would be taken in one batch by
    // an idle worker, not one per check.
    while count.load(Relaxed) == 0 {
        std::thread::yield_now();
    }

    let (tx, rx) = std::sync::mpsc::channel();
    let in_flight = Arc::new(AtomicUsize::new(0));
    let mut counts = Vec::with_capacity(warm_up + KEPT);
    while counts.len() < warm_up + KEPT {
        // Spawned from outside the runtime: each probe is remote work.
        if in_flight.load(Relaxed) < IN_FLIGHT {
            in_flight.fetch_add(1, Relaxed);
            let (tx, count, in_flight) = (tx.clone(), count.clone(), in_flight.clone());
            rt.spawn(async move {
                let _ = tx.send(count.swap(0, Relaxed));
                in_flight.fetch_sub(1, Relaxed);
            });
        } else {
            counts.push(rx.recv().unwrap());
            counts.extend(rx.try_iter());
        }
    }
    run.store(false, Relaxed);

    let mut kept = counts.split_off(warm_up.max(1));
    kept.sort_unstable();
    kept[kept.len() / 2]
}

fn one_worker() -> Builder {
    let mut b = Builder::new_multi_thread();
    b.worker_threads(1);
    b
}

#[test]
fn slow_tasks_make_a_busy_worker_check_the_global_queue_more_often() {
    let tuned = one_worker().build().unwrap();
    let fixed = one_worker().global_queue_interval(61).build().unwrap();

    // Polls of 100 µs: tuned to the floor of 2 ticks (the target is
    // 200 µs between checks), where a fixed 61 lets 61 ticks pass.
    let slow = Duration::from_micros(100);
    let tuned_slow = median_links_per_check(&tuned, slow, WARM_UP);
    let fixed_slow = median_links_per_check(&fixed, slow, 0);
    assert!(
        tuned_slow * 8 <= fixed_slow,
        "tuned {tuned_slow} chain tasks per check, fixed 61: {fixed_slow}"
    );

    // Fast polls on the same runtime bring the interval back up.
    let tuned_fast = median_links_per_check(&tuned, Duration::ZERO, WARM_UP);
    assert!(
        tuned_fast >= 4 * tuned_slow,
        "fast: {tuned_fast} chain tasks per check, slow: {tuned_slow}"
    );
}

#[test]
fn a_set_interval_is_kept_whatever_the_poll_time() {
    let rt = one_worker().global_queue_interval(7).build().unwrap();
    let slow = median_links_per_check(&rt, Duration::from_micros(100), 0);
    let fast = median_links_per_check(&rt, Duration::ZERO, 0);
    // The same interval either way. (Not an exact count: a tick runs up
    // to 4 links, one regular poll and 3 from the LIFO slot.)
    assert!(
        slow <= 2 * fast && fast <= 2 * slow,
        "slow: {slow} chain tasks per check, fast: {fast}"
    );
}

/// Spawns `left` links in a chain, each polling for `spin`, and reports
/// on `done` after the last.
fn bounded_chain(left: usize, spin: Duration, done: std::sync::mpsc::Sender<()>) {
    let start = Instant::now();
    while start.elapsed() < spin {
        std::hint::spin_loop();
    }
    if left == 0 {
        let _ = done.send(());
    } else {
        volt::spawn(async move { bounded_chain(left - 1, spin, done) });
    }
}

#[test]
fn workers_publish_their_mean_poll_time() {
    let rt = one_worker().build().unwrap();
    let m = rt.metrics();
    let (tx, rx) = std::sync::mpsc::channel();
    rt.spawn(async move { bounded_chain(200, Duration::from_micros(50), tx) });
    rx.recv().unwrap();
    // Joins the worker, which publishes its metrics as it shuts down.
    drop(rt);
    // Every poll took at least 50 µs; the average only keeps a trace of
    // its seed (3.3 µs) after 200 polls.
    let mean = m.worker_mean_poll_time(0);
    assert!(mean >= Duration::from_micros(45), "{mean:?}");

    // Not measured on the current-thread runtime (as in tokio).
    let rt = Builder::new_current_thread().build().unwrap();
    rt.block_on(async { volt::spawn(async {}).await.unwrap() });
    assert_eq!(rt.metrics().worker_mean_poll_time(0), Duration::ZERO);
}
