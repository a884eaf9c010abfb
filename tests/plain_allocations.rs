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
use std::cell::Cell;
use std::sync::Arc;

struct Recording;

// Per thread: the tests of this binary run in parallel, each on its own
// thread, and each looks only at what its own thread allocated.
thread_local! {
    static MAX_ALIGN: Cell<usize> = const { Cell::new(0) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; the bookkeeping is two
// const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for Recording {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // `try_with`: the thread-locals may already be gone while a thread
        // exits.
        let _ = MAX_ALIGN.try_with(|a| a.set(a.get().max(layout.align())));
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
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

/// Runs `f` and returns the largest alignment this thread allocated with
/// while it ran.
fn max_align(f: impl FnOnce()) -> usize {
    MAX_ALIGN.set(0);
    let before = ALLOCATIONS.get();
    f();
    assert!(ALLOCATIONS.get() > before, "nothing was allocated");
    MAX_ALIGN.get()
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
