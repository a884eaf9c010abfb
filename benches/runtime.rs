//! Scheduler benchmarks, volt and tokio side by side in one run.
//!
//! Each workload is written once, as a macro instantiated for both runtimes
//! (`s/tokio/volt/`), so the only difference is the runtime:
//!
//! * `spawn_many_local`: a task spawns 10,000 tasks.
//! * `spawn_many_remote`: a non-runtime thread spawns 10,000 tasks.
//! * `yield_many`: 1,000 tasks each yield 1,000 times.
//! * `chained_spawn`: each task spawns the next, 1,000 deep.
//! * `join_set_100k`: a task spawns 100,000 tasks into a `JoinSet` and
//!   joins them all with `join_next`.
//! * `ping_pong`: 1,000 pairs of tasks exchange a message and an answer
//!   (through a runtime-agnostic one-shot slot defined below, so only the
//!   schedulers' wake paths differ).
//!
//! Compare the two lines of each group: criterion prints their throughput.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, mpsc};
use std::task::{Context, Poll, Waker};

const NUM_SPAWN: usize = 10_000;
const NUM_YIELD_TASKS: usize = 1_000;
const NUM_YIELDS: usize = 1_000;
const CHAIN_DEPTH: usize = 1_000;
const NUM_PINGS: usize = 1_000;
const NUM_JOIN_SET: usize = 100_000;

/// A minimal one-shot channel that works on any executor.
struct Slot<T> {
    inner: Mutex<(Option<T>, Option<Waker>)>,
}

fn oneshot<T>() -> (Arc<Slot<T>>, Arc<Slot<T>>) {
    let s = Arc::new(Slot {
        inner: Mutex::new((None, None)),
    });
    (s.clone(), s)
}

impl<T> Slot<T> {
    fn send(&self, v: T) {
        let waker = {
            let mut g = self.inner.lock().unwrap();
            g.0 = Some(v);
            g.1.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }

    fn recv(self: Arc<Self>) -> Recv<T> {
        Recv(self)
    }
}

struct Recv<T>(Arc<Slot<T>>);

impl<T> Future for Recv<T> {
    type Output = T;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let mut g = self.0.inner.lock().unwrap();
        match g.0.take() {
            Some(v) => Poll::Ready(v),
            None => {
                g.1 = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

macro_rules! workloads {
    ($m:ident, $rt:ident) => {
        pub mod $m {
            use super::*;

            pub fn runtime() -> ::$rt::runtime::Runtime {
                ::$rt::runtime::Builder::new_multi_thread()
                    .enable_all()
                    .build()
                    .unwrap()
            }

            pub fn spawn_many_local(rt: &::$rt::runtime::Runtime) {
                let (tx, rx) = mpsc::sync_channel(1);
                let rem = Arc::new(AtomicUsize::new(NUM_SPAWN));
                rt.spawn(async move {
                    for _ in 0..NUM_SPAWN {
                        let tx = tx.clone();
                        let rem = rem.clone();
                        ::$rt::spawn(async move {
                            if 1 == rem.fetch_sub(1, Relaxed) {
                                tx.send(()).unwrap();
                            }
                        });
                    }
                });
                rx.recv().unwrap();
            }

            pub fn join_set_100k(rt: &::$rt::runtime::Runtime) {
                rt.block_on(async {
                    ::$rt::spawn(async {
                        let mut set = ::$rt::task::JoinSet::new();
                        for i in 0..NUM_JOIN_SET {
                            set.spawn(async move { i });
                        }
                        let mut sum = 0usize;
                        while let Some(r) = set.join_next().await {
                            sum += r.unwrap();
                        }
                        assert_eq!(sum, NUM_JOIN_SET * (NUM_JOIN_SET - 1) / 2);
                    })
                    .await
                    .unwrap()
                })
            }

            pub fn spawn_many_remote(rt: &::$rt::runtime::Runtime) {
                let (tx, rx) = mpsc::sync_channel(1);
                let rem = Arc::new(AtomicUsize::new(NUM_SPAWN));
                let handle = rt.handle();
                for _ in 0..NUM_SPAWN {
                    let tx = tx.clone();
                    let rem = rem.clone();
                    handle.spawn(async move {
                        if 1 == rem.fetch_sub(1, Relaxed) {
                            tx.send(()).unwrap();
                        }
                    });
                }
                rx.recv().unwrap();
            }

            pub fn yield_many(rt: &::$rt::runtime::Runtime) {
                let (tx, rx) = mpsc::sync_channel(NUM_YIELD_TASKS);
                for _ in 0..NUM_YIELD_TASKS {
                    let tx = tx.clone();
                    rt.spawn(async move {
                        for _ in 0..NUM_YIELDS {
                            ::$rt::task::yield_now().await;
                        }
                        tx.send(()).unwrap();
                    });
                }
                for _ in 0..NUM_YIELD_TASKS {
                    rx.recv().unwrap();
                }
            }

            pub fn chained_spawn(rt: &::$rt::runtime::Runtime) {
                fn iter(done_tx: mpsc::SyncSender<()>, n: usize) {
                    if n == 0 {
                        done_tx.send(()).unwrap();
                    } else {
                        ::$rt::spawn(async move {
                            iter(done_tx, n - 1);
                        });
                    }
                }
                let (done_tx, done_rx) = mpsc::sync_channel(1);
                rt.spawn(async move {
                    iter(done_tx, CHAIN_DEPTH);
                });
                done_rx.recv().unwrap();
            }

            pub fn ping_pong(rt: &::$rt::runtime::Runtime) {
                let (done_tx, done_rx) = mpsc::sync_channel(1);
                let rem = Arc::new(AtomicUsize::new(NUM_PINGS));
                rt.spawn(async move {
                    for _ in 0..NUM_PINGS {
                        let rem = rem.clone();
                        let done_tx = done_tx.clone();
                        ::$rt::spawn(async move {
                            let (tx1, rx1) = oneshot::<()>();
                            let (tx2, rx2) = oneshot::<()>();
                            ::$rt::spawn(async move {
                                rx1.recv().await;
                                tx2.send(());
                            });
                            tx1.send(());
                            rx2.recv().await;
                            if 1 == rem.fetch_sub(1, Relaxed) {
                                done_tx.send(()).unwrap();
                            }
                        });
                    }
                });
                done_rx.recv().unwrap();
            }

            pub fn spawn_many_current_thread(rt: &::$rt::runtime::Runtime) {
                rt.block_on(async {
                    let mut handles = Vec::with_capacity(NUM_SPAWN);
                    for i in 0..NUM_SPAWN {
                        handles.push(::$rt::spawn(async move { i }));
                    }
                    for h in handles {
                        h.await.unwrap();
                    }
                });
            }
        }
    };
}

workloads!(volt_bench, volt);
workloads!(tokio_bench, tokio);

fn bench(c: &mut Criterion) {
    let volt_rt = volt_bench::runtime();
    let tokio_rt = tokio_bench::runtime();

    macro_rules! group {
        ($name:literal, $elems:expr, $f:ident) => {{
            let mut g = c.benchmark_group($name);
            g.throughput(Throughput::Elements($elems as u64));
            g.bench_function("volt", |b| b.iter(|| volt_bench::$f(&volt_rt)));
            g.bench_function("tokio", |b| b.iter(|| tokio_bench::$f(&tokio_rt)));
            g.finish();
        }};
    }

    group!("spawn_many_local", NUM_SPAWN, spawn_many_local);
    group!("spawn_many_remote", NUM_SPAWN, spawn_many_remote);
    group!("chained_spawn", CHAIN_DEPTH, chained_spawn);
    group!("ping_pong", NUM_PINGS, ping_pong);

    let mut g = c.benchmark_group("join_set_100k");
    g.sample_size(10);
    g.throughput(Throughput::Elements(NUM_JOIN_SET as u64));
    g.bench_function("volt", |b| b.iter(|| volt_bench::join_set_100k(&volt_rt)));
    g.bench_function("tokio", |b| {
        b.iter(|| tokio_bench::join_set_100k(&tokio_rt))
    });
    g.finish();

    let mut g = c.benchmark_group("yield_many");
    g.sample_size(10);
    g.throughput(Throughput::Elements((NUM_YIELD_TASKS * NUM_YIELDS) as u64));
    g.bench_function("volt", |b| b.iter(|| volt_bench::yield_many(&volt_rt)));
    g.bench_function("tokio", |b| b.iter(|| tokio_bench::yield_many(&tokio_rt)));
    g.finish();

    let volt_ct = ::volt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let tokio_ct = ::tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut g = c.benchmark_group("spawn_many_current_thread");
    g.throughput(Throughput::Elements(NUM_SPAWN as u64));
    g.bench_function("volt", |b| {
        b.iter(|| volt_bench::spawn_many_current_thread(&volt_ct))
    });
    g.bench_function("tokio", |b| {
        b.iter(|| tokio_bench::spawn_many_current_thread(&tokio_ct))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
