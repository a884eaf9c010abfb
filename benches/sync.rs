//! Synchronization benchmarks: volt's primitives on volt's runtime against
//! tokio's on tokio's (what a user switching gets), and async-lock's
//! (smol family: fast but unfair, a releasing task may take the lock
//! straight back) on volt's runtime (same scheduler, other primitive).
//!
//! * `semaphore_8x2`: 8 tasks on 2 permits, acquire + release (the seeds'
//!   workload); `semaphore_64x2`: 64 tasks; `semaphore_8x2_yield`: holding
//!   the permit across a yield, so the wait queue is really used;
//!   `semaphore_uncontended`: one task.
//! * `mutex_8`: 8 tasks increment a counter; `mutex_uncontended`.
//! * `rwlock_8`: 8 tasks, one write in ten.
//!
//! Each iteration performs `OPS` operations in total.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::sync::Arc;

const OPS: usize = 10_000;

fn volt_rt() -> volt::runtime::Runtime {
    volt::runtime::Builder::new_multi_thread().build().unwrap()
}

fn tokio_rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().build().unwrap()
}

/// Runs `tasks` copies of `body` (each `OPS / tasks` times) on a runtime.
macro_rules! run_tasks {
    ($rt:expr, $spawn:path, $tasks:expr, $shared:expr, |$s:ident| $body:expr) => {{
        let shared = $shared;
        $rt.block_on(async {
            let per_task = OPS / $tasks;
            let handles: Vec<_> = (0..$tasks)
                .map(|_| {
                    let $s = shared.clone();
                    $spawn(async move {
                        for _ in 0..per_task {
                            $body;
                        }
                    })
                })
                .collect();
            for h in handles {
                h.await.unwrap();
            }
        })
    }};
}

fn semaphores(c: &mut Criterion) {
    let vrt = volt_rt();
    let trt = tokio_rt();

    for (name, tasks, permits, yield_holding) in [
        ("semaphore_8x2", 8, 2, false),
        ("semaphore_64x2", 64, 2, false),
        ("semaphore_8x2_yield", 8, 2, true),
        ("semaphore_uncontended", 1, 1, false),
    ] {
        let mut g = c.benchmark_group(name);
        g.throughput(Throughput::Elements(OPS as u64));
        g.bench_function("volt", |b| {
            let sem = Arc::new(volt::sync::Semaphore::new(permits));
            b.iter(|| {
                run_tasks!(vrt, volt::spawn, tasks, sem.clone(), |s| {
                    let _p = s.acquire().await.unwrap();
                    if yield_holding {
                        volt::task::yield_now().await;
                    }
                })
            })
        });
        g.bench_function("tokio", |b| {
            let sem = Arc::new(tokio::sync::Semaphore::new(permits));
            b.iter(|| {
                run_tasks!(trt, tokio::spawn, tasks, sem.clone(), |s| {
                    let _p = s.acquire().await.unwrap();
                    if yield_holding {
                        tokio::task::yield_now().await;
                    }
                })
            })
        });
        g.bench_function("async-lock", |b| {
            let sem = Arc::new(async_lock::Semaphore::new(permits));
            b.iter(|| {
                run_tasks!(vrt, volt::spawn, tasks, sem.clone(), |s| {
                    let _p = s.acquire().await;
                    if yield_holding {
                        volt::task::yield_now().await;
                    }
                })
            })
        });
        g.finish();
    }
}

fn mutexes(c: &mut Criterion) {
    let vrt = volt_rt();
    let trt = tokio_rt();

    for (name, tasks) in [("mutex_8", 8), ("mutex_uncontended", 1)] {
        let mut g = c.benchmark_group(name);
        g.throughput(Throughput::Elements(OPS as u64));
        g.bench_function("volt", |b| {
            let m = Arc::new(volt::sync::Mutex::new(0u64));
            b.iter(|| run_tasks!(vrt, volt::spawn, tasks, m.clone(), |m| *m.lock().await += 1))
        });
        g.bench_function("tokio", |b| {
            let m = Arc::new(tokio::sync::Mutex::new(0u64));
            b.iter(|| {
                run_tasks!(trt, tokio::spawn, tasks, m.clone(), |m| *m.lock().await +=
                    1)
            })
        });
        g.bench_function("async-lock", |b| {
            let m = Arc::new(async_lock::Mutex::new(0u64));
            b.iter(|| run_tasks!(vrt, volt::spawn, tasks, m.clone(), |m| *m.lock().await += 1))
        });
        g.finish();
    }

    let mut g = c.benchmark_group("rwlock_8");
    g.throughput(Throughput::Elements(OPS as u64));
    g.bench_function("volt", |b| {
        let l = Arc::new(volt::sync::RwLock::new(0u64));
        let n = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        b.iter(|| {
            run_tasks!(vrt, volt::spawn, 8, (l.clone(), n.clone()), |s| {
                if s.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 10 == 0 {
                    *s.0.write().await += 1;
                } else {
                    let _ = *s.0.read().await;
                }
            })
        })
    });
    g.bench_function("tokio", |b| {
        let l = Arc::new(tokio::sync::RwLock::new(0u64));
        let n = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        b.iter(|| {
            run_tasks!(trt, tokio::spawn, 8, (l.clone(), n.clone()), |s| {
                if s.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 10 == 0 {
                    *s.0.write().await += 1;
                } else {
                    let _ = *s.0.read().await;
                }
            })
        })
    });
    g.bench_function("async-lock", |b| {
        let l = Arc::new(async_lock::RwLock::new(0u64));
        let n = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        b.iter(|| {
            run_tasks!(vrt, volt::spawn, 8, (l.clone(), n.clone()), |s| {
                if s.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 10 == 0 {
                    *s.0.write().await += 1;
                } else {
                    let _ = *s.0.read().await;
                }
            })
        })
    });
    g.finish();
}

criterion_group!(benches, semaphores, mutexes);
criterion_main!(benches);
