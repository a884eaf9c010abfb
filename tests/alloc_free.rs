//! Wakers, timers and channels in a steady flow allocate nothing: cloning,
//! waking (by reference and by value) and dropping a task's waker,
//! re-scheduling the task, creating, filing, resetting and cancelling a
//! `Sleep`, and values moving through an mpsc or unbounded channel once
//! its first blocks exist (they are reused, as tokio's mpsc reuses them)
//! touch no allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::future::poll_fn;
use std::task::Poll;

/// Counts allocations made by the current thread while `COUNTING` is set.
struct CountingAlloc;

std::thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; the bookkeeping only touches
// const-initialized thread-locals without destructors (no allocation).
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(|c| c.get()) {
            ALLOCS.with(|a| a.set(a.get() + 1));
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
static ALLOC: CountingAlloc = CountingAlloc;

fn count_allocs<R>(f: impl FnOnce() -> R) -> (R, usize) {
    ALLOCS.with(|a| a.set(0));
    COUNTING.with(|c| c.set(true));
    let r = f();
    COUNTING.with(|c| c.set(false));
    (r, ALLOCS.with(|a| a.get()))
}

#[test]
fn waker_clone_wake_and_drop_do_not_allocate() {
    let rt = volt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        volt::spawn(async {
            let mut rounds = 0;
            poll_fn(|cx| {
                rounds += 1;
                if rounds > 10_000 {
                    return Poll::Ready(());
                }
                let ((), allocs) = count_allocs(|| {
                    let w = cx.waker().clone();
                    assert!(w.will_wake(cx.waker()));
                    w.wake_by_ref();
                    let w2 = w.clone();
                    drop(w);
                    // Re-queues the task (already notified: a no-op now).
                    w2.wake();
                });
                assert_eq!(allocs, 0, "waker operations allocated in round {rounds}");
                Poll::Pending
            })
            .await
        })
        .await
        .unwrap();
    });
}

#[test]
fn idle_task_woken_from_its_scheduler_does_not_allocate() {
    let rt = volt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let (tx, rx) = std::sync::mpsc::channel::<std::task::Waker>();
        let sleeper = volt::spawn(async move {
            let mut n = 0;
            poll_fn(|cx| {
                n += 1;
                if n > 1_000 {
                    return Poll::Ready(());
                }
                tx.send(cx.waker().clone()).unwrap();
                Poll::Pending
            })
            .await
        });
        let waker_task = volt::spawn(async move {
            for _ in 0..1_000 {
                let w = loop {
                    match rx.try_recv() {
                        Ok(w) => break w,
                        Err(_) => volt::task::yield_now().await,
                    }
                };
                // Waking an idle task pushes it on the local run queue.
                let ((), allocs) = count_allocs(|| w.wake());
                assert_eq!(allocs, 0);
            }
        });
        waker_task.await.unwrap();
        sleeper.await.unwrap();
    });
}

#[test]
fn sleeps_allocate_nothing_beyond_themselves() {
    use std::pin::pin;
    use std::task::{Context, Waker};
    use volt::time::{Duration, Instant, sleep};

    let rt = volt::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    rt.block_on(async {
        // Warm up (first use of thread-locals, the wake list).
        sleep(Duration::from_millis(1)).await;
        let mut cx = Context::from_waker(Waker::noop());
        let ((), allocs) = count_allocs(|| {
            for i in 0..10_000u64 {
                // Create, file (first poll), reset, cancel (drop).
                let mut s = pin!(sleep(Duration::from_millis(1 + i % 5000)));
                assert!(s.as_mut().poll(&mut cx).is_pending());
                s.as_mut()
                    .reset(Instant::now() + Duration::from_secs(1 + i));
                assert!(s.as_mut().poll(&mut cx).is_pending());
            }
        });
        assert_eq!(allocs, 0, "timers allocated");
    });
}

#[test]
fn channels_in_a_steady_flow_reuse_their_blocks() {
    // Values in flight at once: 1 (lockstep), and a window of 40 (more
    // than one block's worth, so several blocks are live at a time).
    for window in [1usize, 40] {
        let (tx, mut rx) = volt::sync::mpsc::channel::<usize>(64);
        let (utx, mut urx) = volt::sync::mpsc::unbounded_channel::<usize>();
        let (ctx, crx) = volt::channel::unbounded::<usize>();
        // Sends `range`, receiving each value `window - 1` sends later
        // (the flow never drains in between: a burst from empty may take
        // a new block, as tokio's may).
        let mut flow = |range: std::ops::Range<usize>| {
            for i in range {
                tx.try_send(i).unwrap();
                utx.send(i).unwrap();
                ctx.try_send(i).unwrap();
                if i + 1 >= window {
                    let j = i + 1 - window;
                    assert_eq!(rx.try_recv(), Ok(j));
                    assert_eq!(urx.try_recv(), Ok(j));
                    assert_eq!(crx.try_recv(), Ok(j));
                }
            }
        };
        // Warm up: the first blocks are allocated.
        flow(0..1_000);
        let ((), allocs) = count_allocs(|| flow(1_000..11_000));
        assert_eq!(allocs, 0, "window {window}: the channels allocated");
    }
}

#[test]
fn channels_in_bursts_of_a_few_blocks_reuse_their_blocks() {
    // Bursts of 80 values (the block list's blocks hold 31), each drained
    // before the next: every burst needs two or three new blocks, and
    // every drain frees as many, which the list keeps for the next burst.
    let (utx, mut urx) = volt::sync::mpsc::unbounded_channel::<usize>();
    let (ctx, crx) = volt::channel::unbounded::<usize>();
    let mut bursts = |rounds: usize| {
        for _ in 0..rounds {
            for i in 0..80 {
                utx.send(i).unwrap();
                ctx.try_send(i).unwrap();
            }
            for i in 0..80 {
                assert_eq!(urx.try_recv(), Ok(i));
                assert_eq!(crx.try_recv(), Ok(i));
            }
        }
    };
    // Warm up: the first blocks are allocated.
    bursts(3);
    let ((), allocs) = count_allocs(|| bursts(100));
    assert_eq!(allocs, 0, "the channels allocated");
}
