//! A tour of the volt runtime doing real concurrent work.
//!
//! Run it with `cargo run --release --example demo`. It
//!
//! 1. counts the primes below 2,000,000 with 2,000 tasks (one per range),
//!    fanning the results back in through their `JoinHandle`s;
//! 2. passes a token around a ring of 1,000 tasks 100 times (every hop is a
//!    wake-up handled by the scheduler);
//! 3. races a fast and a slow computation with `select!`, and joins two
//!    with `try_join!`;
//! 4. hashes a buffer on the blocking pool while tasks keep running;
//! 5. prints what the scheduler did: polls, steals, LIFO hits, parks.
//!
//! (The networking issue will turn this into a server; until then this is
//! the main example.)

use std::future::poll_fn;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};
use std::time::Instant;

const PRIME_LIMIT: u64 = 2_000_000;
const RANGES: u64 = 2_000;
const RING: usize = 1_000;
const LAPS: u64 = 100;

#[volt::main]
async fn main() {
    let started = Instant::now();
    let rt = volt::runtime::Handle::current();
    println!(
        "volt demo: {} worker threads ({:?} runtime)",
        rt.metrics().num_workers(),
        rt.runtime_flavor()
    );

    // 1. Fan-out / fan-in.
    let t = Instant::now();
    let step = PRIME_LIMIT / RANGES;
    let handles: Vec<_> = (0..RANGES)
        .map(|i| volt::spawn(async move { count_primes(i * step, (i + 1) * step) }))
        .collect();
    let mut primes = 0;
    for h in handles {
        primes += h.await.expect("prime task panicked");
    }
    println!(
        "[1] {primes} primes below {PRIME_LIMIT}, counted by {RANGES} tasks in {:.1?}",
        t.elapsed()
    );
    assert_eq!(primes, 148_933);

    // 2. A token ring: every hop wakes the next task.
    let t = Instant::now();
    let hops = token_ring(RING, LAPS).await;
    println!(
        "[2] token passed {hops} times around a ring of {RING} tasks in {:.1?} ({:.0} ns/hop)",
        t.elapsed(),
        t.elapsed().as_nanos() as f64 / hops as f64
    );

    // 3. select! and try_join!.
    let winner = volt::select! {
        n = volt::spawn(async { count_primes(0, 1_000) }) => format!("the small range ({} primes)", n.unwrap()),
        n = volt::spawn(async { count_primes(0, 5_000_000) }) => format!("the large range ({} primes)", n.unwrap()),
    };
    let both: Result<(u64, u64), volt::task::JoinError> = volt::try_join!(
        async { volt::spawn(async { count_primes(0, 10_000) }).await },
        async { volt::spawn(async { count_primes(10_000, 20_000) }).await },
    );
    let (a, b) = both.expect("both tasks succeed");
    println!("[3] select! was won by {winner}; try_join! counted {a} + {b} primes");

    // 4. Blocking work off the async workers.
    let t = Instant::now();
    let ticks = Arc::new(AtomicU64::new(0));
    let ticker = {
        let ticks = ticks.clone();
        volt::spawn(async move {
            loop {
                ticks.fetch_add(1, Relaxed);
                volt::task::yield_now().await;
            }
        })
    };
    let digest = volt::task::spawn_blocking(|| fnv1a(&vec![0xA5u8; 64 << 20]))
        .await
        .expect("hash task panicked");
    ticker.abort();
    println!(
        "[4] hashed 64 MiB on the blocking pool (fnv1a = {digest:016x}) in {:.1?}; \
         meanwhile a task ran {} times",
        t.elapsed(),
        ticks.load(Relaxed)
    );

    // 5. What the scheduler did.
    let m = rt.metrics();
    for w in 0..m.num_workers() {
        println!(
            "[5] worker {w}: {} polls, {} stolen, {} from the LIFO slot, {} from the global queue, parked {} times, busy {:.1?}",
            m.worker_poll_count(w),
            m.worker_steal_count(w),
            m.worker_lifo_count(w),
            m.worker_injector_pull_count(w),
            m.worker_park_count(w),
            m.worker_total_busy_duration(w),
        );
    }
    println!("done in {:.1?}", started.elapsed());
}

/// Counts the primes in `from..to`, yielding to the scheduler now and then.
fn count_primes(from: u64, to: u64) -> u64 {
    (from.max(2)..to).filter(|&n| is_prime(n)).count() as u64
}

fn is_prime(n: u64) -> bool {
    if n < 4 {
        return n >= 2;
    }
    if n % 2 == 0 {
        return false;
    }
    let mut d = 3;
    while d * d <= n {
        if n % d == 0 {
            return false;
        }
        d += 2;
    }
    true
}

fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf29ce484222325, |h, b| {
        (h ^ *b as u64).wrapping_mul(0x100000001b3)
    })
}

/// A mailbox for the ring: a counter slot and the waker of its owner.
#[derive(Default)]
struct Mailbox {
    state: Mutex<(Option<u64>, Option<Waker>)>,
}

impl Mailbox {
    fn put(&self, v: u64) {
        let waker = {
            let mut s = self.state.lock().unwrap();
            s.0 = Some(v);
            s.1.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }

    async fn take(&self) -> u64 {
        poll_fn(|cx| {
            let mut s = self.state.lock().unwrap();
            match s.0.take() {
                Some(v) => Poll::Ready(v),
                None => {
                    s.1 = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
        .await
    }
}

/// Passes a counter around `n` tasks `laps` times; returns the hops made.
async fn token_ring(n: usize, laps: u64) -> u64 {
    let boxes: Arc<Vec<Mailbox>> = Arc::new((0..n).map(|_| Mailbox::default()).collect());
    let total = n as u64 * laps;
    let mut handles = Vec::with_capacity(n);
    for i in 0..n {
        let boxes = boxes.clone();
        handles.push(volt::spawn(async move {
            loop {
                let hop = boxes[i].take().await;
                if hop >= total {
                    // Tell the next one to stop too, then stop.
                    boxes[(i + 1) % n].put(hop);
                    return;
                }
                boxes[(i + 1) % n].put(hop + 1);
            }
        }));
    }
    boxes[0].put(0);
    for h in handles {
        h.await.expect("ring task panicked");
    }
    total
}
