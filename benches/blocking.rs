//! The blocking pool and `fs`, volt and tokio side by side in one run.
//!
//! Each workload is written once, as a macro instantiated for both runtimes
//! (multi-thread, default worker count):
//!
//! * `blocking_burst_64x300`: 64 tasks each `spawn_blocking` a tiny
//!   closure 300 times, awaiting each call.
//! * `blocking_burst_512x40`: the same with 512 tasks, 40 calls each.
//! * `blocking_sequential`: one task, 2,000 calls one after another.
//! * `blocking_mixed`: the 64-task burst (100 calls each) while 8 other
//!   calls block for 2 ms each, 20 times over.
//! * `fs_open_metadata_read_64`: 64 tasks each open a 4 KiB file, read its
//!   metadata and `read_to_end` it, 60 times.
//! * `fs_read_1m_64`: 64 tasks each open a 1 MiB file and read it in
//!   64 KiB chunks (tower-http `ServeDir`'s pattern for a large file), 4
//!   times.
//!
//! After the groups it prints how many threads each runtime's pool holds
//! (threads named after the runtime, counted in `/proc/self/task`): the
//! pool must not start more threads than tokio's for the same load.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::path::Path;
use std::time::Duration;

const BURST_TASKS: usize = 64;
const BURST_CALLS: usize = 300;
const WIDE_TASKS: usize = 512;
const WIDE_CALLS: usize = 40;
const SEQ_CALLS: usize = 2_000;
const MIXED_CALLS: usize = 100;
const FS_TASKS: usize = 64;
const FS_ROUNDS: usize = 60;
const BIG_FILE: usize = 1 << 20;
const BIG_CHUNK: usize = 64 * 1024;
const BIG_ROUNDS: usize = 4;

macro_rules! workloads {
    ($m:ident, $rt:ident) => {
        pub mod $m {
            use super::*;

            pub fn runtime() -> ::$rt::runtime::Runtime {
                ::$rt::runtime::Builder::new_multi_thread()
                    .thread_name(concat!(stringify!($rt), "-bench"))
                    .enable_all()
                    .build()
                    .unwrap()
            }

            async fn burst(tasks: usize, calls: usize) {
                let mut set = ::$rt::task::JoinSet::new();
                for i in 0..tasks {
                    set.spawn(async move {
                        let mut sum = 0usize;
                        for j in 0..calls {
                            sum += ::$rt::task::spawn_blocking(move || i ^ j).await.unwrap();
                        }
                        std::hint::black_box(sum);
                    });
                }
                while let Some(r) = set.join_next().await {
                    r.unwrap();
                }
            }

            pub fn burst_64(rt: &::$rt::runtime::Runtime) {
                rt.block_on(burst(BURST_TASKS, BURST_CALLS));
            }

            pub fn burst_512(rt: &::$rt::runtime::Runtime) {
                rt.block_on(burst(WIDE_TASKS, WIDE_CALLS));
            }

            pub fn sequential(rt: &::$rt::runtime::Runtime) {
                rt.block_on(async {
                    ::$rt::spawn(async {
                        for i in 0..SEQ_CALLS {
                            let v = ::$rt::task::spawn_blocking(move || i + 1).await.unwrap();
                            assert_eq!(v, i + 1);
                        }
                    })
                    .await
                    .unwrap()
                });
            }

            pub fn mixed(rt: &::$rt::runtime::Runtime) {
                rt.block_on(async {
                    let slow = ::$rt::spawn(async {
                        for _ in 0..20 {
                            let calls: Vec<_> = (0..8)
                                .map(|_| {
                                    ::$rt::task::spawn_blocking(|| {
                                        std::thread::sleep(Duration::from_millis(2))
                                    })
                                })
                                .collect();
                            for c in calls {
                                c.await.unwrap();
                            }
                        }
                    });
                    burst(BURST_TASKS, MIXED_CALLS).await;
                    slow.await.unwrap();
                });
            }

            /// Runs `FS_TASKS` tasks, each `task(path)`, and joins them.
            fn on_fs_tasks<F, Fut>(rt: &::$rt::runtime::Runtime, path: &Path, task: F)
            where
                F: Fn(std::path::PathBuf) -> Fut,
                Fut: std::future::Future<Output = ()> + Send + 'static,
            {
                rt.block_on(async {
                    let mut set = ::$rt::task::JoinSet::new();
                    for _ in 0..FS_TASKS {
                        set.spawn(task(path.to_path_buf()));
                    }
                    while let Some(r) = set.join_next().await {
                        r.unwrap();
                    }
                });
            }

            pub fn fs_64(rt: &::$rt::runtime::Runtime, path: &Path) {
                use ::$rt::io::AsyncReadExt;
                on_fs_tasks(rt, path, |path| async move {
                    let mut buf = Vec::with_capacity(4096);
                    for _ in 0..FS_ROUNDS {
                        let mut f = ::$rt::fs::File::open(&path).await.unwrap();
                        let len = f.metadata().await.unwrap().len();
                        buf.clear();
                        f.read_to_end(&mut buf).await.unwrap();
                        assert_eq!(buf.len() as u64, len);
                    }
                });
            }

            pub fn fs_big_64(rt: &::$rt::runtime::Runtime, path: &Path) {
                use ::$rt::io::AsyncReadExt;
                on_fs_tasks(rt, path, |path| async move {
                    let mut chunk = vec![0u8; BIG_CHUNK];
                    for _ in 0..BIG_ROUNDS {
                        let mut f = ::$rt::fs::File::open(&path).await.unwrap();
                        let mut total = 0;
                        loop {
                            match f.read(&mut chunk).await.unwrap() {
                                0 => break,
                                n => total += n,
                            }
                        }
                        assert_eq!(total, BIG_FILE);
                    }
                });
            }
        }
    };
}

workloads!(volt_bench, volt);
workloads!(tokio_bench, tokio);

/// Threads of this process whose name starts with `prefix`.
fn threads_named(prefix: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|dir| {
            dir.filter_map(Result::ok)
                .filter(|t| {
                    std::fs::read_to_string(t.path().join("comm"))
                        .is_ok_and(|name| name.starts_with(prefix))
                })
                .count()
        })
        .unwrap_or(0)
}

fn bench(c: &mut Criterion) {
    let volt_rt = volt_bench::runtime();
    let tokio_rt = tokio_bench::runtime();
    let file = std::env::temp_dir().join(format!("volt-bench-fs-{}", std::process::id()));
    std::fs::write(&file, vec![b'v'; 4096]).unwrap();
    let big = std::env::temp_dir().join(format!("volt-bench-fs-1m-{}", std::process::id()));
    std::fs::write(&big, vec![b'v'; BIG_FILE]).unwrap();

    macro_rules! group {
        ($name:literal, $elems:expr, $f:ident $(, $arg:expr)?) => {{
            let mut g = c.benchmark_group($name);
            g.throughput(Throughput::Elements($elems as u64));
            g.bench_function("volt", |b| b.iter(|| volt_bench::$f(&volt_rt $(, $arg)?)));
            g.bench_function("tokio", |b| b.iter(|| tokio_bench::$f(&tokio_rt $(, $arg)?)));
            g.finish();
        }};
    }

    group!("blocking_burst_64x300", BURST_TASKS * BURST_CALLS, burst_64);
    group!("blocking_burst_512x40", WIDE_TASKS * WIDE_CALLS, burst_512);
    group!("blocking_sequential", SEQ_CALLS, sequential);
    group!("blocking_mixed", BURST_TASKS * MIXED_CALLS, mixed);
    group!(
        "fs_open_metadata_read_64",
        FS_TASKS * FS_ROUNDS,
        fs_64,
        &file
    );
    group!("fs_read_1m_64", FS_TASKS * BIG_ROUNDS, fs_big_64, &big);

    println!(
        "blocking pool threads after the load: volt {}, tokio {}",
        threads_named("volt-bench"),
        threads_named("tokio-bench")
    );
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_file(&big);
}

criterion_group!(benches, bench);
criterion_main!(benches);
