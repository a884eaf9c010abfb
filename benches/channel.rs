//! MPMC channel benchmarks: `volt::channel` against async-channel, flume and
//! kanal, all on volt's multi-thread runtime (same scheduler, other
//! channel), and tokio's mpsc on tokio for the single-consumer shape.
//!
//! * `mpmc_4p4c_bounded1024`: 4 producers and 4 consumers on `bounded(1024)`
//!   (the headline workload); `mpmc_1p1c_bounded1024`,
//!   `mpmc_16p16c_bounded1024`, `mpmc_4p4c_bounded1`,
//!   `mpmc_4p4c_unbounded`.
//! * `mpsc_4p_bounded1024`, `mpsc_4p_unbounded`: `volt::sync::mpsc`
//!   against `tokio::sync::mpsc`, each on its own runtime.
//!
//! * `oneshot_local` / `oneshot_ping_pong` / `oneshot_cross_task`:
//!   `sync::oneshot`, volt on volt against tokio on tokio.
//! * `broadcast_1s8r`: `sync::broadcast`, one sender and 8 receivers.
//!
//! Each MPMC iteration moves `MSGS` messages in total.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const MSGS: usize = 20_000;

fn volt_rt() -> volt::runtime::Runtime {
    volt::runtime::Builder::new_multi_thread().build().unwrap()
}

/// Moves `MSGS` messages from `$p` producer tasks to `$c` consumer tasks.
/// `$pair` is a `(sender, receiver)`, cloned per task; `$send`/`$recv` use
/// the names given for the clones.
macro_rules! mpmc {
    ($rt:expr, $spawn:path, $p:expr, $c:expr, $pair:expr,
     |$stx:ident, $v:ident| $send:expr, |$srx:ident| $recv:expr) => {{
        let (tx, rx) = $pair;
        $rt.block_on(async move {
            let per_producer = MSGS / $p;
            let per_consumer = MSGS / $c;
            let mut handles = Vec::new();
            for _ in 0..$p {
                let $stx = tx.clone();
                handles.push($spawn(async move {
                    for $v in 0..per_producer {
                        $send;
                    }
                }));
            }
            for _ in 0..$c {
                let $srx = rx.clone();
                handles.push($spawn(async move {
                    for _ in 0..per_consumer {
                        $recv;
                    }
                }));
            }
            for h in handles {
                h.await.unwrap();
            }
        })
    }};
}

fn mpmc(c: &mut Criterion) {
    let rt = volt_rt();
    for (name, p, cons, cap) in [
        ("mpmc_4p4c_bounded1024", 4, 4, Some(1024)),
        ("mpmc_1p1c_bounded1024", 1, 1, Some(1024)),
        ("mpmc_16p16c_bounded1024", 16, 16, Some(1024)),
        ("mpmc_4p4c_bounded1", 4, 4, Some(1)),
        ("mpmc_4p4c_unbounded", 4, 4, None),
    ] {
        let mut g = c.benchmark_group(name);
        g.throughput(Throughput::Elements(MSGS as u64));
        // One bench per library: its constructors and its send/recv calls.
        macro_rules! library {
            ($lib:expr, $bounded:path, $unbounded:path,
             |$tx:ident, $v:ident| $send:expr, |$rx:ident| $recv:expr) => {
                g.bench_function($lib, |b| {
                    b.iter(|| {
                        let pair = match cap {
                            Some(cap) => $bounded(cap),
                            None => $unbounded(),
                        };
                        mpmc!(rt, volt::spawn, p, cons, pair, |$tx, $v| $send, |$rx| $recv)
                    })
                });
            };
        }
        library!(
            "volt",
            volt::channel::bounded::<usize>,
            volt::channel::unbounded,
            |tx, v| tx.send(v).await.unwrap(),
            |rx| rx.recv().await.unwrap()
        );
        library!(
            "async-channel",
            async_channel::bounded::<usize>,
            async_channel::unbounded,
            |tx, v| tx.send(v).await.unwrap(),
            |rx| rx.recv().await.unwrap()
        );
        // flume's async side stalls at capacity 1 with 4 + 4 tasks (on
        // tokio's runtime as well: about 0.3 s per 20,000 messages with long
        // stalls), which makes the run unbounded; it is left out there.
        // With 16 + 16 tasks it now and then loses a receiver's wake-up for
        // good (one receiver sleeps next to hundreds of queued messages;
        // seen on volt's runtime at iterations 2,924 and 7,348 of a loop,
        // and on tokio's at iteration 167,865, so the bug is flume's), which
        // hangs the bench: left out there too.
        if cap != Some(1) && p != 16 {
            library!(
                "flume",
                flume::bounded::<usize>,
                flume::unbounded,
                |tx, v| tx.send_async(v).await.unwrap(),
                |rx| rx.recv_async().await.unwrap()
            );
        }
        library!(
            "kanal",
            kanal::bounded_async::<usize>,
            kanal::unbounded_async,
            |tx, v| tx.send(v).await.unwrap(),
            |rx| rx.recv().await.unwrap()
        );
        g.finish();
    }
}

/// `mpsc_4p_bounded1024` / `mpsc_4p_bounded1` / `mpsc_4p_unbounded`: 4 producer tasks, one
/// consumer task; `volt::sync::mpsc` on volt against `tokio::sync::mpsc`
/// on tokio (what a user switching gets).
fn mpsc_shape(c: &mut Criterion) {
    let vrt = volt_rt();
    let trt = tokio::runtime::Builder::new_multi_thread().build().unwrap();
    macro_rules! four_to_one {
        ($rt:expr, $spawn:path, $pair:expr, |$stx:ident, $v:ident| $send:expr) => {{
            let (tx, mut rx) = $pair;
            $rt.block_on(async move {
                let mut handles = Vec::new();
                for _ in 0..4 {
                    let $stx = tx.clone();
                    handles.push($spawn(async move {
                        for $v in 0..MSGS / 4 {
                            $send;
                        }
                    }));
                }
                drop(tx);
                handles.push($spawn(async move {
                    for _ in 0..MSGS {
                        rx.recv().await.unwrap();
                    }
                }));
                for h in handles {
                    h.await.unwrap();
                }
            })
        }};
    }
    // `bounded1`: every send waits for the one slot.
    for cap in [1024, 1] {
        let mut g = c.benchmark_group(format!("mpsc_4p_bounded{cap}"));
        g.throughput(Throughput::Elements(MSGS as u64));
        g.bench_function("volt", |b| {
            b.iter(|| {
                four_to_one!(
                    vrt,
                    volt::spawn,
                    volt::sync::mpsc::channel::<usize>(cap),
                    |tx, v| tx.send(v).await.unwrap()
                )
            })
        });
        g.bench_function("tokio", |b| {
            b.iter(|| {
                four_to_one!(
                    trt,
                    tokio::spawn,
                    tokio::sync::mpsc::channel::<usize>(cap),
                    |tx, v| tx.send(v).await.unwrap()
                )
            })
        });
        g.finish();
    }
    let mut g = c.benchmark_group("mpsc_4p_unbounded");
    g.throughput(Throughput::Elements(MSGS as u64));
    g.bench_function("volt", |b| {
        b.iter(|| {
            four_to_one!(
                vrt,
                volt::spawn,
                volt::sync::mpsc::unbounded_channel::<usize>(),
                |tx, v| tx.send(v).unwrap()
            )
        })
    });
    g.bench_function("tokio", |b| {
        b.iter(|| {
            four_to_one!(
                trt,
                tokio::spawn,
                tokio::sync::mpsc::unbounded_channel::<usize>(),
                |tx, v| tx.send(v).unwrap()
            )
        })
    });
    g.finish();
}

/// Two spawned tasks bounce a ball `$n` times. Every hop is a fresh
/// oneshot: the ball carries the sender for the answer and the receiver
/// of the next ball, so nothing but oneshots and task wake-ups is measured
/// (no spawn per round, no other channel, no thread hand-off from
/// `block_on`).
macro_rules! oneshot_ping_pong {
    ($rt:expr, $krate:ident, $n:expr) => {{
        use ::$krate::sync::oneshot;
        struct Ball(oneshot::Sender<()>, oneshot::Receiver<Ball>);
        $rt.block_on(async {
            let (first_tx, first_rx) = oneshot::channel::<Ball>();
            let ponger = ::$krate::spawn(async move {
                let mut next = first_rx;
                // Ends when the pinger drops its last sender.
                while let Ok(Ball(pong, following)) = next.await {
                    pong.send(()).unwrap();
                    next = following;
                }
            });
            let pinger = ::$krate::spawn(async move {
                let mut tx = first_tx;
                for _ in 0..$n {
                    let (pong_tx, pong_rx) = oneshot::channel();
                    let (next_tx, next_rx) = oneshot::channel();
                    assert!(tx.send(Ball(pong_tx, next_rx)).is_ok());
                    pong_rx.await.unwrap();
                    tx = next_tx;
                }
            });
            pinger.await.unwrap();
            ponger.await.unwrap();
        })
    }};
}

/// `oneshot_local`: create, send and receive a oneshot in one task (the
/// channel's own cost). `oneshot_ping_pong`: two tasks answer each other
/// through fresh oneshots ([`oneshot_ping_pong!`]). `oneshot_cross_task`:
/// a spawned task sends, `block_on` awaits (a request/response hop, spawn
/// and two thread wake-ups included).
fn oneshot(c: &mut Criterion) {
    const N: usize = 10_000;
    let vrt = volt_rt();
    let trt = tokio::runtime::Builder::new_multi_thread().build().unwrap();
    let mut g = c.benchmark_group("oneshot_local");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("volt", |b| {
        b.iter(|| {
            vrt.block_on(async {
                for i in 0..N {
                    let (tx, rx) = volt::sync::oneshot::channel();
                    tx.send(i).unwrap();
                    assert_eq!(rx.await, Ok(i));
                }
            })
        })
    });
    g.bench_function("tokio", |b| {
        b.iter(|| {
            trt.block_on(async {
                for i in 0..N {
                    let (tx, rx) = tokio::sync::oneshot::channel();
                    tx.send(i).unwrap();
                    assert_eq!(rx.await, Ok(i));
                }
            })
        })
    });
    g.finish();
    let mut g = c.benchmark_group("oneshot_ping_pong");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("volt", |b| b.iter(|| oneshot_ping_pong!(vrt, volt, N)));
    g.bench_function("tokio", |b| b.iter(|| oneshot_ping_pong!(trt, tokio, N)));
    g.finish();
    let mut g = c.benchmark_group("oneshot_cross_task");
    g.throughput(Throughput::Elements(N as u64 / 10));
    g.bench_function("volt", |b| {
        b.iter(|| {
            vrt.block_on(async {
                for i in 0..N / 10 {
                    let (tx, rx) = volt::sync::oneshot::channel();
                    volt::spawn(async move { tx.send(i).unwrap() });
                    assert_eq!(rx.await, Ok(i));
                }
            })
        })
    });
    g.bench_function("tokio", |b| {
        b.iter(|| {
            trt.block_on(async {
                for i in 0..N / 10 {
                    let (tx, rx) = tokio::sync::oneshot::channel();
                    tokio::spawn(async move { tx.send(i).unwrap() });
                    assert_eq!(rx.await, Ok(i));
                }
            })
        })
    });
    g.finish();
}

/// `broadcast_1s8r`: one sender task, 8 receiver tasks, capacity 1024; the
/// sender yields whenever the ring is full so nobody lags. `broadcast_4s4r`:
/// 4 sender tasks, 4 receivers. Volt on volt against tokio on tokio.
fn broadcast(c: &mut Criterion) {
    const N: usize = 5_000;
    let vrt = volt_rt();
    let trt = tokio::runtime::Builder::new_multi_thread().build().unwrap();
    macro_rules! one_to_eight {
        ($rt:expr, $spawn:path, $yield_now:path, $channel:path) => {{
            $rt.block_on(async {
                let (tx, rx) = $channel(1024);
                let mut handles: Vec<_> = (0..8)
                    .map(|_| {
                        let mut rx = tx.subscribe();
                        $spawn(async move {
                            for _ in 0..N {
                                rx.recv().await.unwrap();
                            }
                        })
                    })
                    .collect();
                drop(rx);
                handles.push($spawn(async move {
                    for i in 0..N {
                        while tx.len() >= 1024 {
                            $yield_now().await;
                        }
                        tx.send(i).unwrap();
                    }
                }));
                for h in handles {
                    h.await.unwrap();
                }
            })
        }};
    }
    let mut g = c.benchmark_group("broadcast_1s8r");
    g.throughput(Throughput::Elements((N * 8) as u64));
    g.bench_function("volt", |b| {
        b.iter(|| {
            one_to_eight!(
                vrt,
                volt::spawn,
                volt::task::yield_now,
                volt::sync::broadcast::channel::<usize>
            )
        })
    });
    g.bench_function("tokio", |b| {
        b.iter(|| {
            one_to_eight!(
                trt,
                tokio::spawn,
                tokio::task::yield_now,
                tokio::sync::broadcast::channel::<usize>
            )
        })
    });
    g.finish();

    // `broadcast_4s4r`: 4 sender tasks contend for the tail, 4 receivers
    // read until the channel closes (a receiver that lags counts what it
    // missed, so every run accounts for all values).
    const M: usize = 5_000;
    macro_rules! four_to_four {
        ($rt:expr, $k:ident) => {{
            use ::$k::sync::broadcast::{self, error::RecvError};
            $rt.block_on(async {
                let (tx, rx) = broadcast::channel::<usize>(1024);
                let readers: Vec<_> = (0..4)
                    .map(|_| {
                        let mut rx = tx.subscribe();
                        ::$k::spawn(async move {
                            let mut seen = 0;
                            loop {
                                match rx.recv().await {
                                    Ok(_) => seen += 1,
                                    Err(RecvError::Lagged(n)) => seen += n as usize,
                                    Err(RecvError::Closed) => return seen,
                                }
                            }
                        })
                    })
                    .collect();
                drop(rx);
                let senders: Vec<_> = (0..4)
                    .map(|_| {
                        let tx = tx.clone();
                        ::$k::spawn(async move {
                            for i in 0..M {
                                tx.send(i).unwrap();
                                if i % 64 == 63 {
                                    ::$k::task::yield_now().await;
                                }
                            }
                        })
                    })
                    .collect();
                drop(tx);
                for h in senders {
                    h.await.unwrap();
                }
                for h in readers {
                    assert_eq!(h.await.unwrap(), 4 * M);
                }
            })
        }};
    }
    let mut g = c.benchmark_group("broadcast_4s4r");
    g.throughput(Throughput::Elements((M * 4 * 4) as u64));
    g.bench_function("volt", |b| b.iter(|| four_to_four!(vrt, volt)));
    g.bench_function("tokio", |b| b.iter(|| four_to_four!(trt, tokio)));
    g.finish();
}

criterion_group!(benches, mpmc, mpsc_shape, oneshot, broadcast);
criterion_main!(benches);
