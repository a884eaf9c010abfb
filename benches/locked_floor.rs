//! The floor under an uncontended bounded mpsc `try_send` + `try_recv`:
//! the same atomic accesses as the channel's path, with nothing else, on
//! one thread. Each locked instruction (a compare-exchange, a
//! `fetch_add`, a `SeqCst` fence) waits for the store buffer to drain,
//! which on the 2-core VM costs 5-9 ns however hot the cache line is.
//!
//! * `three_locked`: what `volt::sync::mpsc` did with a semaphore for its
//!   capacity: the semaphore's take (compare-exchange), the list
//!   position's claim (compare-exchange), the slot's written flag, the
//!   receiver's read and `head` store, and the capacity's release
//!   (`fetch_add`).
//! * `two_locked`: a channel whose capacity and positions share one word
//!   (`volt::sync::mpsc` now: its credits): one compare-exchange checks
//!   the room and claims the position; the receiver's one locked
//!   instruction gives the room back before it looks for waiting senders
//!   (the Dekker half a wake-up needs; here a store of `head` and a
//!   fence).
//! * `one_locked`: the claim alone, no wake-up protocol (a lower bound, not
//!   a design).
//!
//! `cargo bench --bench locked_floor`; not part of the bench report
//! (no competitor: it measures the hardware).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*, fence};

const N: usize = 10_000;
const CAP: u64 = 1 << 20;

/// Each word on a cache line of its own, as in the channel.
#[repr(align(64))]
struct Line<A>(A);

struct Words {
    permits: Line<AtomicU64>,
    tail: Line<AtomicU64>,
    head: Line<AtomicU64>,
    written: Line<AtomicBool>,
}

impl Words {
    fn new() -> Self {
        Words {
            permits: Line(AtomicU64::new(CAP)),
            tail: Line(AtomicU64::new(0)),
            head: Line(AtomicU64::new(0)),
            written: Line(AtomicBool::new(false)),
        }
    }

    /// The slot's publication and the single consumer's read of it.
    fn write_and_read(&self) {
        self.written.0.store(true, Release);
        black_box(self.written.0.load(Acquire));
        let head = self.head.0.load(Relaxed);
        self.head.0.store(head + 1, Release);
    }

    fn three_locked(&self) {
        let p = self.permits.0.load(Relaxed);
        let _ = black_box(self.permits.0.compare_exchange(p, p - 1, AcqRel, Relaxed));
        let t = self.tail.0.load(Relaxed);
        let _ = black_box(self.tail.0.compare_exchange(t, t + 1, SeqCst, Relaxed));
        self.write_and_read();
        self.permits.0.fetch_add(1, Release);
    }

    fn two_locked(&self) {
        let t = self.tail.0.load(Relaxed);
        if t - self.head.0.load(Acquire) < CAP {
            let _ = black_box(self.tail.0.compare_exchange(t, t + 1, SeqCst, Relaxed));
        }
        self.write_and_read();
        fence(SeqCst);
        // The waiting senders' flag.
        black_box(self.permits.0.load(Relaxed));
    }

    fn one_locked(&self) {
        let t = self.tail.0.load(Relaxed);
        let _ = black_box(self.tail.0.compare_exchange(t, t + 1, SeqCst, Relaxed));
        self.write_and_read();
    }
}

fn floor(c: &mut Criterion) {
    let mut g = c.benchmark_group("locked_floor");
    g.throughput(Throughput::Elements(N as u64));
    let words = Words::new();
    g.bench_function("three_locked", |b| {
        b.iter(|| (0..N).for_each(|_| words.three_locked()))
    });
    g.bench_function("two_locked", |b| {
        b.iter(|| (0..N).for_each(|_| words.two_locked()))
    });
    g.bench_function("one_locked", |b| {
        b.iter(|| (0..N).for_each(|_| words.one_locked()))
    });
    g.finish();
}

criterion_group!(benches, floor);
criterion_main!(benches);
