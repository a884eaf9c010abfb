//! Bytes of heap per idle task, volt vs tokio (not a criterion bench: it
//! counts allocations with a global allocator and prints the result).
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

fn main() {
    let volt = measure!(volt);
    let tokio = measure!(tokio);
    println!("heap bytes per idle task (future = pending::<()>, JoinHandle held):");
    println!("  volt  {volt:8.1}");
    println!("  tokio {tokio:8.1}");
    println!("  ratio volt/tokio {:.2}", volt / tokio);
}
