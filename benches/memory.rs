//! Bytes of heap per idle task and per channel, volt vs tokio (not a
//! criterion bench: it counts live heap bytes with a global allocator and
//! prints the result).
//!
//! Run with `cargo bench --bench memory`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering::Relaxed};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to the system allocator and counts live bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const TASKS: usize = 100_000;

macro_rules! measure {
    ($rt:ident) => {{
        let rt = $rt::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        // Warm up the runtime's own structures.
        rt.block_on(async { $rt::spawn(async {}).await.unwrap() });
        let before = LIVE.load(Relaxed);
        let handles: Vec<_> = (0..TASKS)
            .map(|_| rt.spawn(std::future::pending::<()>()))
            .collect();
        // Let every task be polled once (so it is idle, not queued).
        rt.block_on(async {
            for _ in 0..64 {
                $rt::task::yield_now().await;
            }
        });
        let handles_bytes = handles.capacity() * std::mem::size_of_val(&handles[0]);
        let after = LIVE.load(Relaxed);
        let per_task = (after - before - handles_bytes as isize) as f64 / TASKS as f64;
        drop(handles);
        drop(rt);
        per_task
    }};
}

/// Live heap bytes that `make` leaves behind, per call, over `n` calls.
fn heap_per<R>(n: usize, mut make: impl FnMut() -> R) -> f64 {
    let mut keep = Vec::with_capacity(n);
    let before = LIVE.load(Relaxed);
    for _ in 0..n {
        keep.push(make());
    }
    let after = LIVE.load(Relaxed);
    let vec_bytes = keep.capacity() * std::mem::size_of::<R>();
    drop(keep);
    (after - before - vec_bytes as isize) as f64 / n as f64
}

/// Heap bytes per queued `u64`, for a channel holding `n` of them.
macro_rules! per_message {
    ($n:expr, $make:expr, |$tx:ident, $v:ident| $send:expr) => {{
        let ($tx, rx) = $make;
        let before = LIVE.load(Relaxed);
        for $v in 0..$n as u64 {
            $send;
        }
        let after = LIVE.load(Relaxed);
        drop(rx);
        (after - before) as f64 / $n as f64
    }};
}

fn row(name: &str, volt: f64, tokio: f64) {
    println!(
        "  {name:<34} volt {volt:8.1}   tokio {tokio:8.1}   volt/tokio {:.2}",
        volt / tokio
    );
}

fn main() {
    let volt = measure!(volt);
    let tokio = measure!(tokio);
    println!("heap bytes per idle task (future = pending::<()>, JoinHandle held):");
    println!("  volt  {volt:8.1}");
    println!("  tokio {tokio:8.1}");
    println!("  ratio volt/tokio {:.2}", volt / tokio);

    const N: usize = 10_000;
    println!("heap bytes per idle channel (both halves held, nothing sent):");
    row(
        "mpsc::channel::<u64>(1024)",
        heap_per(N, || volt::sync::mpsc::channel::<u64>(1024)),
        heap_per(N, || tokio::sync::mpsc::channel::<u64>(1024)),
    );
    row(
        "mpsc::unbounded_channel::<u64>()",
        heap_per(N, volt::sync::mpsc::unbounded_channel::<u64>),
        heap_per(N, tokio::sync::mpsc::unbounded_channel::<u64>),
    );
    row(
        "oneshot::channel::<u64>()",
        heap_per(N, volt::sync::oneshot::channel::<u64>),
        heap_per(N, tokio::sync::oneshot::channel::<u64>),
    );
    row(
        "watch::channel(0u64)",
        heap_per(N, || volt::sync::watch::channel(0u64)),
        heap_per(N, || tokio::sync::watch::channel(0u64)),
    );
    row(
        "broadcast::channel::<u64>(16)",
        heap_per(N, || volt::sync::broadcast::channel::<u64>(16)),
        heap_per(N, || tokio::sync::broadcast::channel::<u64>(16)),
    );
    println!(
        "  volt::channel::bounded::<u64>(1024)  {:8.1}   unbounded {:8.1}",
        heap_per(N, || volt::channel::bounded::<u64>(1024)),
        heap_per(N, volt::channel::unbounded::<u64>),
    );

    const M: usize = 1_000_000;
    println!("heap bytes per queued u64 ({M} queued, unbounded):");
    row(
        "mpsc::unbounded_channel",
        per_message!(M, volt::sync::mpsc::unbounded_channel::<u64>(), |tx, v| tx
            .send(v)
            .unwrap()),
        per_message!(M, tokio::sync::mpsc::unbounded_channel::<u64>(), |tx, v| tx
            .send(v)
            .unwrap()),
    );
    println!(
        "  volt::channel::unbounded              {:8.1}",
        per_message!(M, volt::channel::unbounded::<u64>(), |tx, v| tx
            .try_send(v)
            .unwrap())
    );

    // Memory given back after a burst: send M, receive them all, measure
    // what the channel still holds.
    let (tx, mut rx) = volt::sync::mpsc::unbounded_channel::<u64>();
    let before = LIVE.load(Relaxed);
    for v in 0..M as u64 {
        tx.send(v).unwrap();
    }
    while rx.try_recv().is_ok() {}
    let volt_left = LIVE.load(Relaxed) - before;
    let (ttx, mut trx) = tokio::sync::mpsc::unbounded_channel::<u64>();
    let before = LIVE.load(Relaxed);
    for v in 0..M as u64 {
        ttx.send(v).unwrap();
    }
    while trx.try_recv().is_ok() {}
    let tokio_left = LIVE.load(Relaxed) - before;
    println!("heap bytes an unbounded mpsc still holds after a drained burst of {M}:");
    println!("  volt {volt_left}   tokio {tokio_left}");
}
