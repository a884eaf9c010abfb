//! Timer benchmarks, volt against tokio in the same run (both multi-thread
//! runtimes with their default worker count, time enabled).
//!
//! * `sleep_100k_tasks`: 100,000 tasks each sleep 1-50 ms (spread evenly),
//!   all spawned at once; one iteration is the wall time until all are
//!   done (ideal: a little over 50 ms). Before the criterion groups, one
//!   run per runtime prints the overhead beyond 50 ms and the p50/p99
//!   lateness of the wake-ups (how long after its deadline each task ran).
//! * `sleep_create_drop`: create and drop a `Sleep` (never polled), the
//!   cost of a timer that is not needed in the end.
//! * `timeout_ready`: `timeout(1 s, ready future).await`, the common case
//!   in services (the guarded operation finishes in time).
//! * `sleep_poll_cancel`: create a `Sleep`, poll it once (files the
//!   timer), drop it (cancels): the cost of a timeout that did not fire
//!   on a future that had to wait.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::{Duration, Instant};

const TASKS: u64 = 100_000;

fn volt_rt() -> volt::runtime::Runtime {
    volt::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn tokio_rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Spawns `TASKS` sleepers; returns (wall time, lateness of each wake).
macro_rules! sleepers {
    ($rt:expr, $spawn:path, $sleep:path) => {{
        $rt.block_on(async {
            let start = Instant::now();
            let handles: Vec<_> = (0..TASKS)
                .map(|i| {
                    $spawn(async move {
                        let d = Duration::from_millis(1 + i % 50);
                        let due = Instant::now() + d;
                        $sleep(d).await;
                        Instant::now().saturating_duration_since(due)
                    })
                })
                .collect();
            let mut late = Vec::with_capacity(TASKS as usize);
            for h in handles {
                late.push(h.await.unwrap());
            }
            (start.elapsed(), late)
        })
    }};
}

fn report_lateness() {
    let vrt = volt_rt();
    let trt = tokio_rt();
    // Warm both up once.
    let _ = sleepers!(vrt, volt::spawn, volt::time::sleep);
    let _ = sleepers!(trt, tokio::spawn, tokio::time::sleep);
    for _ in 0..3 {
        for (name, (wall, mut late)) in [
            ("volt", sleepers!(vrt, volt::spawn, volt::time::sleep)),
            ("tokio", sleepers!(trt, tokio::spawn, tokio::time::sleep)),
        ] {
            late.sort_unstable();
            let p = |q: f64| late[((late.len() as f64 - 1.0) * q) as usize];
            println!(
                "sleep_100k_tasks {name:<5}: wall {:6.1} ms (overhead beyond 50 ms: {:5.1} ms), lateness p50 {:5.2} ms p99 {:5.2} ms max {:5.2} ms",
                wall.as_secs_f64() * 1e3,
                wall.saturating_sub(Duration::from_millis(50)).as_secs_f64() * 1e3,
                p(0.5).as_secs_f64() * 1e3,
                p(0.99).as_secs_f64() * 1e3,
                p(1.0).as_secs_f64() * 1e3,
            );
        }
    }
}

fn sleep_many(c: &mut Criterion) {
    report_lateness();
    let vrt = volt_rt();
    let trt = tokio_rt();
    let mut g = c.benchmark_group("sleep_100k_tasks");
    g.sample_size(10);
    g.throughput(Throughput::Elements(TASKS));
    g.bench_function("volt", |b| {
        b.iter(|| sleepers!(vrt, volt::spawn, volt::time::sleep).0)
    });
    g.bench_function("tokio", |b| {
        b.iter(|| sleepers!(trt, tokio::spawn, tokio::time::sleep).0)
    });
    g.finish();
}

/// Runs `iters` iterations of `$body` inside the runtime (on a worker, as
/// service code would) and returns the time they took.
macro_rules! in_runtime {
    ($rt:expr, $spawn:path, $iters:expr, $body:expr) => {{
        let iters = $iters;
        $rt.block_on(async move {
            $spawn(async move {
                let start = Instant::now();
                for _ in 0..iters {
                    $body;
                }
                start.elapsed()
            })
            .await
            .unwrap()
        })
    }};
}

fn sleep_create_drop(c: &mut Criterion) {
    let vrt = volt_rt();
    let trt = tokio_rt();
    let mut g = c.benchmark_group("sleep_create_drop");
    g.throughput(Throughput::Elements(1));
    g.bench_function("volt", |b| {
        b.iter_custom(|iters| {
            in_runtime!(vrt, volt::spawn, iters, {
                drop(black_box(volt::time::sleep(Duration::from_millis(10))))
            })
        })
    });
    g.bench_function("tokio", |b| {
        b.iter_custom(|iters| {
            in_runtime!(trt, tokio::spawn, iters, {
                drop(black_box(tokio::time::sleep(Duration::from_millis(10))))
            })
        })
    });
    g.finish();
}

fn timeout_ready(c: &mut Criterion) {
    let vrt = volt_rt();
    let trt = tokio_rt();
    let mut g = c.benchmark_group("timeout_ready");
    g.throughput(Throughput::Elements(1));
    g.bench_function("volt", |b| {
        b.iter_custom(|iters| {
            in_runtime!(vrt, volt::spawn, iters, {
                let r =
                    volt::time::timeout(Duration::from_secs(1), async { black_box(1u64) }).await;
                black_box(r.unwrap());
            })
        })
    });
    g.bench_function("tokio", |b| {
        b.iter_custom(|iters| {
            in_runtime!(trt, tokio::spawn, iters, {
                let r =
                    tokio::time::timeout(Duration::from_secs(1), async { black_box(1u64) }).await;
                black_box(r.unwrap());
            })
        })
    });
    g.finish();
}

fn poll_once<F: std::future::Future>(f: std::pin::Pin<&mut F>) {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    assert!(f.poll(&mut cx).is_pending());
}

fn sleep_poll_cancel(c: &mut Criterion) {
    let vrt = volt_rt();
    let trt = tokio_rt();
    let mut g = c.benchmark_group("sleep_poll_cancel");
    g.throughput(Throughput::Elements(1));
    g.bench_function("volt", |b| {
        b.iter_custom(|iters| {
            in_runtime!(vrt, volt::spawn, iters, {
                let s = volt::time::sleep(Duration::from_secs(1));
                let mut s = std::pin::pin!(s);
                poll_once(s.as_mut());
            })
        })
    });
    g.bench_function("tokio", |b| {
        b.iter_custom(|iters| {
            in_runtime!(trt, tokio::spawn, iters, {
                let s = tokio::time::sleep(Duration::from_secs(1));
                let mut s = std::pin::pin!(s);
                poll_once(s.as_mut());
            })
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    sleep_create_drop,
    timeout_ready,
    sleep_poll_cancel,
    sleep_many
);
criterion_main!(benches);
