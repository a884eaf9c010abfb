//! MPMC channels as a user compares them: each peer crate on the runtime
//! its users run it on (kanal, flume and async-channel on tokio's
//! multi-thread runtime) against `volt::channel` on volt's.
//!
//! Every group is `mpmc_{P}p{C}c_{capacity}`: P producer tasks send
//! `MSGS` values in all and drop their senders; C consumer tasks loop on
//! `recv().await` until the channel is closed. Shapes: 1p1c, 4p4c, 16p16c;
//! capacities `bounded(1)`, `bounded(1024)`, unbounded. Both runtimes have
//! their default worker count (one per core).
//!
//! `channel_life_bounded16_peers` is a channel's life as a request uses
//! one, `LIVES` times in one task: create `bounded(16)`, send one value,
//! drop the sender, receive twice (the value, then the end), drop the
//! receiver. It is what creating the channel's state costs.
//!
//! flume is left out where its async side stalls or loses wake-ups in this
//! shape on any runtime (`bounded(1)` with several tasks per side, and
//! 16p16c; `benches/channel.rs` has the details).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const MSGS: usize = 200_000;
const LIVES: usize = 10_000;

/// Runs the shape on `$rt` with `$spawn`; `$pair` is `(sender, receiver)`.
macro_rules! shape {
    ($rt:expr, $spawn:path, $p:expr, $c:expr, $pair:expr,
     |$stx:ident, $v:ident| $send:expr, |$srx:ident| $recv:expr) => {{
        let (tx, rx) = $pair;
        $rt.block_on(async move {
            let per_producer = MSGS / $p;
            let mut handles = Vec::new();
            for _ in 0..$p {
                let $stx = tx.clone();
                handles.push($spawn(async move {
                    for $v in 0..per_producer {
                        $send;
                    }
                }));
            }
            drop(tx);
            let mut consumers = Vec::new();
            for _ in 0..$c {
                let $srx = rx.clone();
                consumers.push($spawn(async move {
                    let mut n = 0usize;
                    while $recv {
                        n += 1;
                    }
                    n
                }));
            }
            drop(rx);
            for h in handles {
                h.await.unwrap();
            }
            let mut total = 0;
            for h in consumers {
                total += h.await.unwrap();
            }
            assert_eq!(total, per_producer * $p);
        })
    }};
}

fn peers(c: &mut Criterion) {
    let volt_rt = volt::runtime::Builder::new_multi_thread().build().unwrap();
    let tokio_rt = tokio::runtime::Builder::new_multi_thread().build().unwrap();
    for (p, cons) in [(1, 1), (4, 4), (16, 16)] {
        for cap in [Some(1), Some(1024), None] {
            let cap_name = cap.map_or("unbounded".to_string(), |c| format!("bounded{c}"));
            let mut g = c.benchmark_group(format!("mpmc_{p}p{cons}c_{cap_name}_peers"));
            g.throughput(Throughput::Elements(MSGS as u64));
            g.sample_size(10);
            macro_rules! library {
                ($lib:expr, $rt:expr, $spawn:path, $bounded:path, $unbounded:path,
                 |$tx:ident, $v:ident| $send:expr, |$rx:ident| $recv:expr) => {
                    g.bench_function($lib, |b| {
                        b.iter(|| {
                            let pair = match cap {
                                Some(cap) => $bounded(cap),
                                None => $unbounded(),
                            };
                            shape!($rt, $spawn, p, cons, pair, |$tx, $v| $send, |$rx| $recv)
                        })
                    });
                };
            }
            library!(
                "volt",
                volt_rt,
                volt::spawn,
                volt::channel::bounded::<usize>,
                volt::channel::unbounded,
                |tx, v| tx.send(v).await.unwrap(),
                |rx| rx.recv().await.is_ok()
            );
            library!(
                "kanal",
                tokio_rt,
                tokio::spawn,
                kanal::bounded_async::<usize>,
                kanal::unbounded_async,
                |tx, v| tx.send(v).await.unwrap(),
                |rx| rx.recv().await.is_ok()
            );
            library!(
                "async-channel",
                tokio_rt,
                tokio::spawn,
                async_channel::bounded::<usize>,
                async_channel::unbounded,
                |tx, v| tx.send(v).await.unwrap(),
                |rx| rx.recv().await.is_ok()
            );
            if (cap != Some(1) || p == 1) && p != 16 {
                library!(
                    "flume",
                    tokio_rt,
                    tokio::spawn,
                    flume::bounded::<usize>,
                    flume::unbounded,
                    |tx, v| tx.send_async(v).await.unwrap(),
                    |rx| rx.recv_async().await.is_ok()
                );
            }
            g.finish();
        }
    }
}

fn lives(c: &mut Criterion) {
    let volt_rt = volt::runtime::Builder::new_multi_thread().build().unwrap();
    let tokio_rt = tokio::runtime::Builder::new_multi_thread().build().unwrap();
    let mut g = c.benchmark_group("channel_life_bounded16_peers");
    g.throughput(Throughput::Elements(LIVES as u64));
    macro_rules! life {
        ($lib:expr, $rt:expr, $bounded:path, |$tx:ident, $v:ident| $send:expr, |$rx:ident| $recv:expr) => {
            g.bench_function($lib, |b| {
                b.iter(|| {
                    $rt.block_on(async {
                        for $v in 0..LIVES {
                            let ($tx, $rx) = $bounded(16);
                            $send;
                            drop($tx);
                            assert!($recv);
                            assert!(!$recv);
                        }
                    })
                })
            });
        };
    }
    life!(
        "volt",
        volt_rt,
        volt::channel::bounded::<usize>,
        |tx, v| tx.send(v).await.unwrap(),
        |rx| rx.recv().await.is_ok()
    );
    life!(
        "kanal",
        tokio_rt,
        kanal::bounded_async::<usize>,
        |tx, v| tx.send(v).await.unwrap(),
        |rx| rx.recv().await.is_ok()
    );
    life!(
        "async-channel",
        tokio_rt,
        async_channel::bounded::<usize>,
        |tx, v| tx.send(v).await.unwrap(),
        |rx| rx.recv().await.is_ok()
    );
    life!(
        "flume",
        tokio_rt,
        flume::bounded::<usize>,
        |tx, v| tx.send_async(v).await.unwrap(),
        |rx| rx.recv_async().await.is_ok()
    );
    g.finish();
}

criterion_group!(benches, peers, lives);
criterion_main!(benches);
