//! Waiting on volt-sync primitives allocates nothing: 10,000 contended
//! hand-offs through the waiter queue with a counting global allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

struct Counting;

// Counting is per thread: the tests of this binary run in parallel, and each
// one's current-thread runtime polls its tasks on the test's own thread.
thread_local! {
    static ENABLED: Cell<bool> = const { Cell::new(false) };
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; the bookkeeping is two
// const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // `try_with`: the thread-locals may already be gone while a thread
        // exits.
        if ENABLED.try_with(Cell::get).unwrap_or(false) {
            let _ = ALLOCS.try_with(|n| n.set(n.get() + 1));
        }
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const HANDOFFS: usize = 10_000;

/// Runs `task` twice concurrently on a current-thread runtime, counting
/// allocations while they run (after both were spawned and warmed up).
fn count_allocations<F, Fut>(task: F) -> usize
where
    F: Fn(Arc<AtomicUsize>) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let rt = volt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let handoffs = Arc::new(AtomicUsize::new(0));
    rt.block_on(async {
        let a = volt::spawn(task(handoffs.clone()));
        let b = volt::spawn(task(handoffs.clone()));
        // Let both tasks start (and any lazy init happen) before counting.
        volt::task::yield_now().await;
        ALLOCS.set(0);
        ENABLED.set(true);
        a.await.unwrap();
        b.await.unwrap();
        ENABLED.set(false);
    });
    assert!(handoffs.load(SeqCst) >= HANDOFFS);
    ALLOCS.get()
}

#[test]
fn semaphore_acquire_and_acquire_owned_do_not_allocate() {
    let sem = Arc::new(volt::sync::Semaphore::new(1));
    let s = sem.clone();
    let allocs = count_allocations(move |n| {
        let sem = s.clone();
        async move {
            for i in 0..HANDOFFS / 2 {
                if i % 2 == 0 {
                    let _p = sem.acquire().await.unwrap();
                    // Hold the permit across a yield so the other task
                    // queues behind us.
                    volt::task::yield_now().await;
                } else {
                    let _p = sem.clone().acquire_owned().await.unwrap();
                    volt::task::yield_now().await;
                }
                n.fetch_add(1, SeqCst);
            }
        }
    });
    assert_eq!(allocs, 0, "semaphore waiting allocated");
    assert_eq!(sem.available_permits(), 1);
}

#[test]
fn mutex_and_rwlock_waiting_does_not_allocate() {
    let m = Arc::new(volt::sync::Mutex::new(0u64));
    let l = Arc::new(volt::sync::RwLock::new(0u64));
    let (m2, l2) = (m.clone(), l.clone());
    let allocs = count_allocations(move |n| {
        let (m, l) = (m2.clone(), l2.clone());
        async move {
            for i in 0..HANDOFFS / 2 {
                if i % 2 == 0 {
                    let mut g = m.lock().await;
                    volt::task::yield_now().await;
                    *g += 1;
                } else {
                    let mut g = l.write().await;
                    volt::task::yield_now().await;
                    *g += 1;
                    drop(g);
                    let _r = l.read().await;
                }
                n.fetch_add(1, SeqCst);
            }
        }
    });
    assert_eq!(allocs, 0, "lock waiting allocated");
    assert_eq!(
        *m.try_lock().unwrap() + *l.try_read().unwrap(),
        HANDOFFS as u64
    );
}

#[test]
fn channel_waiting_does_not_allocate() {
    // 1: the small, locked path; 5: the ring.
    for cap in [Some(0), Some(1), Some(5), None] {
        let (tx, rx) = match cap {
            Some(c) => volt::channel::bounded::<u64>(c),
            None => volt::channel::unbounded(),
        };
        let allocs = count_allocations(move |n| {
            let (tx, rx) = (tx.clone(), rx.clone());
            async move {
                for i in 0..HANDOFFS as u64 / 2 {
                    // Both tasks send then receive: receivers wait for the
                    // other's value, senders wait for room (or, with
                    // capacity 0, for a receiver).
                    let send = tx.send(i);
                    let recv = rx.recv();
                    let (s, r) = volt::join!(send, recv);
                    s.unwrap();
                    r.unwrap();
                    n.fetch_add(1, SeqCst);
                }
            }
        });
        // The unbounded channel allocates its blocks of 31 values (and
        // frees them once received); waiting itself allocates nothing.
        let limit = if cap.is_none() { HANDOFFS / 31 + 2 } else { 0 };
        assert!(allocs <= limit, "cap {cap:?}: {allocs} allocations");
    }
}
