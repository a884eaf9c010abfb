//! Uncontended fast paths: one task, nothing to wait for, the cost of one
//! operation. Volt inside `block_on` on volt's multi-thread runtime,
//! tokio inside `block_on` on tokio's, as a user's code runs them:
//!
//! * `fast_mpsc_try_send_try_recv`: `try_send` then `try_recv` on a
//!   bounded(1024) mpsc channel;
//! * `fast_oneshot`: create a oneshot, send, await the receiver;
//! * `fast_watch_send_borrow`: `send`, then `borrow_and_update` on a
//!   receiver;
//! * `fast_broadcast_1to4`: one `send` to 4 receivers, each `try_recv`;
//! * `fast_barrier_1`: `Barrier::new(1)` and `wait`;
//! * `fast_once_cell`: `OnceCell::new()` and `get_or_init`;
//! * `fast_arc_mutex`: `Arc::new(Mutex::new(..))`, one `lock`, drop: a
//!   lock created per request (what the allocation of shared state costs,
//!   `benches/NOTES.md`, "Creating shared state");
//! * `fast_mpsc_life`: a channel's life as a request uses one: create
//!   `channel(16)`, `send().await` one value, drop the sender, `recv()`
//!   twice (the value, then the end), drop the receiver.
//!
//! Each iteration runs `N` operations; criterion's throughput line is the
//! rate, its time / `N` the nanoseconds per operation.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const N: usize = 10_000;

macro_rules! workloads {
    ($m:ident, $k:ident) => {
        mod $m {
            use ::$k::sync::{Barrier, Mutex, OnceCell, broadcast, mpsc, oneshot, watch};
            use std::hint::black_box;
            use std::sync::Arc;

            pub async fn mpsc_pair() {
                let (tx, mut rx) = mpsc::channel::<usize>(1024);
                for i in 0..super::N {
                    tx.try_send(i).unwrap();
                    black_box(rx.try_recv().unwrap());
                }
            }

            pub async fn oneshot() {
                for i in 0..super::N {
                    let (tx, rx) = oneshot::channel::<usize>();
                    tx.send(i).unwrap();
                    black_box(rx.await.unwrap());
                }
            }

            pub async fn watch_pair() {
                let (tx, mut rx) = watch::channel(0usize);
                for i in 0..super::N {
                    tx.send(i).unwrap();
                    black_box(*rx.borrow_and_update());
                }
            }

            pub async fn broadcast_1to4() {
                let (tx, mut r1) = broadcast::channel::<usize>(16);
                let (mut r2, mut r3, mut r4) = (tx.subscribe(), tx.subscribe(), tx.subscribe());
                for i in 0..super::N {
                    tx.send(i).unwrap();
                    black_box(r1.try_recv().unwrap());
                    black_box(r2.try_recv().unwrap());
                    black_box(r3.try_recv().unwrap());
                    black_box(r4.try_recv().unwrap());
                }
            }

            pub async fn barrier() {
                for _ in 0..super::N {
                    let b = Barrier::new(1);
                    black_box(b.wait().await.is_leader());
                }
            }

            pub async fn once_cell() {
                for i in 0..super::N {
                    let cell = OnceCell::new();
                    black_box(*cell.get_or_init(|| async move { i }).await);
                }
            }

            pub async fn arc_mutex() {
                for i in 0..super::N {
                    let m = black_box(Arc::new(Mutex::new(0usize)));
                    *m.lock().await += i;
                }
            }

            pub async fn mpsc_life() {
                for i in 0..super::N {
                    let (tx, mut rx) = mpsc::channel::<usize>(16);
                    tx.send(i).await.unwrap();
                    drop(tx);
                    black_box(rx.recv().await);
                    black_box(rx.recv().await);
                }
            }
        }
    };
}

workloads!(volt_ops, volt);
workloads!(tokio_ops, tokio);

fn bench(c: &mut Criterion) {
    let vrt = volt::runtime::Builder::new_multi_thread().build().unwrap();
    let trt = tokio::runtime::Builder::new_multi_thread().build().unwrap();
    macro_rules! group {
        ($name:literal, $f:ident) => {{
            let mut g = c.benchmark_group($name);
            g.throughput(Throughput::Elements(N as u64));
            g.bench_function("volt", |b| b.iter(|| vrt.block_on(volt_ops::$f())));
            g.bench_function("tokio", |b| b.iter(|| trt.block_on(tokio_ops::$f())));
            g.finish();
        }};
    }
    group!("fast_mpsc_try_send_try_recv", mpsc_pair);
    group!("fast_oneshot", oneshot);
    group!("fast_watch_send_borrow", watch_pair);
    group!("fast_broadcast_1to4", broadcast_1to4);
    group!("fast_barrier_1", barrier);
    group!("fast_once_cell", once_cell);
    group!("fast_arc_mutex", arc_mutex);
    group!("fast_mpsc_life", mpsc_life);
}

criterion_group!(benches, bench);
criterion_main!(benches);
