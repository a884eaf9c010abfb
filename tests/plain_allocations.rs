//! Shared state that services create per request (locks, semaphores,
//! channels) is allocated with the allocator's plain alignment, never
//! over-aligned: an over-aligned `Arc` goes through `posix_memalign`, which
//! glibc serves outside its per-thread cache at several times the cost
//! (`benches/NOTES.md`, "Creating shared state"). The hot words inside are
//! kept apart by gaps instead (`volt_runtime::util::spaced`).
//!
//! A counting global allocator records the largest alignment asked for while
//! each value is created, used and dropped.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Recording;

static MAX_ALIGN: AtomicUsize = AtomicUsize::new(0);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only records the layouts.
unsafe impl GlobalAlloc for Recording {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        MAX_ALIGN.fetch_max(layout.align(), Relaxed);
        ALLOCATIONS.fetch_add(1, Relaxed);
        // SAFETY: the caller's contract is ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is ours.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Recording = Recording;

/// The alignment the system allocator gives every `malloc` on 64-bit
/// targets; anything above it takes the aligned path.
const PLAIN: usize = 16;

/// Runs `f` and returns the largest alignment it allocated with. The tests
/// in this file run one at a time (a mutex), so nobody else allocates in
/// the window but the test harness's own thread, which is idle.
fn max_align(f: impl FnOnce()) -> usize {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    MAX_ALIGN.store(0, Relaxed);
    let before = ALLOCATIONS.load(Relaxed);
    f();
    assert!(ALLOCATIONS.load(Relaxed) > before, "nothing was allocated");
    MAX_ALIGN.load(Relaxed)
}

#[track_caller]
fn assert_plain(what: &str, f: impl FnOnce()) {
    let align = max_align(f);
    assert!(
        align <= PLAIN,
        "{what} allocated with alignment {align}, above the plain {PLAIN}"
    );
}

#[test]
fn locks_and_semaphores_in_an_arc() {
    assert_plain("Arc<Mutex>", || {
        let m = Arc::new(volt::sync::Mutex::new(0u64));
        *m.try_lock().unwrap() += 1;
    });
    assert_plain("Arc<RwLock>", || {
        let l = Arc::new(volt::sync::RwLock::new(0u64));
        *l.try_write().unwrap() += 1;
    });
    assert_plain("Arc<Semaphore>", || {
        let s = Arc::new(volt::sync::Semaphore::new(4));
        drop(s.try_acquire().unwrap());
    });
    assert_plain("Arc<Notify>", || {
        let n = Arc::new(volt::sync::Notify::new());
        n.notify_one();
    });
    assert_plain("Arc<Barrier>", || {
        drop(Arc::new(volt::sync::Barrier::new(2)))
    });
    assert_plain("Arc<OnceCell>", || {
        let c = Arc::new(volt::sync::OnceCell::<u64>::new());
        c.set(1).unwrap();
    });
}

#[test]
fn the_tokio_compatible_channels() {
    assert_plain("mpsc::channel", || {
        let (tx, mut rx) = volt::sync::mpsc::channel(16);
        tx.try_send(1u64).unwrap();
        assert_eq!(rx.try_recv(), Ok(1));
    });
    assert_plain("mpsc::unbounded_channel", || {
        let (tx, mut rx) = volt::sync::mpsc::unbounded_channel();
        tx.send(1u64).unwrap();
        assert_eq!(rx.try_recv(), Ok(1));
    });
    assert_plain("oneshot::channel", || {
        let (tx, mut rx) = volt::sync::oneshot::channel();
        tx.send(1u64).unwrap();
        assert_eq!(rx.try_recv(), Ok(1));
    });
    assert_plain("watch::channel", || {
        let (tx, rx) = volt::sync::watch::channel(0u64);
        tx.send(1).unwrap();
        assert_eq!(*rx.borrow(), 1);
    });
    assert_plain("broadcast::channel", || {
        let (tx, mut rx) = volt::sync::broadcast::channel(16);
        tx.send(1u64).unwrap();
        assert_eq!(rx.try_recv(), Ok(1));
    });
}

#[test]
fn every_volt_channel_flavor() {
    for cap in [0, 1, 4, 5, 1024] {
        assert_plain(&format!("channel::bounded({cap})"), || {
            let (tx, rx) = volt::channel::bounded::<u64>(cap);
            if cap > 0 {
                tx.try_send(1).unwrap();
                assert_eq!(rx.try_recv(), Ok(1));
            }
        });
    }
    assert_plain("channel::unbounded", || {
        let (tx, rx) = volt::channel::unbounded::<u64>();
        tx.try_send(1).unwrap();
        assert_eq!(rx.try_recv(), Ok(1));
    });
}
