//! `sleep`, `sleep_until`, `Sleep::reset`: fire order, resets, drops from
//! other threads, cascading through the wheel's levels (paused clock), and
//! the misuse panics.

// Tests hand `Sleep`s out of `block_on` on purpose.
#![allow(clippy::async_yields_async)]

mod support;

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use volt::time::{self, Duration, Instant, sleep, sleep_until};

#[volt::test(start_paused = true)]
async fn sleep_completes_after_its_duration() {
    let start = Instant::now();
    sleep(Duration::from_millis(10)).await;
    assert_eq!(start.elapsed(), Duration::from_millis(10));
}

#[volt::test]
async fn sleep_on_real_clock_waits_at_least_the_duration() {
    let start = std::time::Instant::now();
    sleep(Duration::from_millis(20)).await;
    assert!(start.elapsed() >= Duration::from_millis(20));
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn sleep_on_multi_thread_runtime() {
    let start = std::time::Instant::now();
    let mut handles = Vec::new();
    for i in 0..50u64 {
        handles.push(volt::spawn(async move {
            sleep(Duration::from_millis(1 + i % 10)).await;
            i
        }));
    }
    let mut sum = 0;
    for h in handles {
        sum += h.await.unwrap();
    }
    assert_eq!(sum, (0..50).sum());
    assert!(start.elapsed() >= Duration::from_millis(10));
}

#[volt::test(start_paused = true)]
async fn zero_and_past_deadlines_complete_at_once() {
    let start = Instant::now();
    sleep(Duration::ZERO).await;
    sleep_until(start - Duration::from_millis(5)).await;
    assert_eq!(start.elapsed(), Duration::ZERO);
}

#[volt::test(start_paused = true)]
async fn timers_fire_in_deadline_order() {
    let order = Arc::new(Mutex::new(Vec::new()));
    let mut handles = Vec::new();
    // Spawned in a scrambled order; durations across levels 0..=3.
    for ms in [300u64, 5, 70_000, 64, 1, 4096, 63, 65, 200_000, 4095] {
        let order = order.clone();
        handles.push(volt::spawn(async move {
            sleep(Duration::from_millis(ms)).await;
            order.lock().unwrap().push(ms);
        }));
    }
    for h in handles {
        h.await.unwrap();
    }
    let got = order.lock().unwrap().clone();
    let mut sorted = got.clone();
    sorted.sort_unstable();
    assert_eq!(got, sorted);
}

#[volt::test(start_paused = true)]
async fn cascading_deadlines_fire_on_time() {
    // Milliseconds, seconds, minutes, hours, days: each cascades down the
    // levels and must fire exactly at its deadline on the paused clock.
    for d in [
        Duration::from_millis(3),
        Duration::from_millis(100),
        Duration::from_secs(5),
        Duration::from_secs(300),
        Duration::from_secs(3 * 3600),
        Duration::from_secs(40 * 86400),
        Duration::from_secs(900 * 86400),
    ] {
        let start = Instant::now();
        sleep(d).await;
        assert_eq!(start.elapsed(), d, "sleep of {d:?}");
    }
}

#[volt::test(start_paused = true)]
async fn sub_millisecond_deadlines_round_up() {
    let start = Instant::now();
    sleep(Duration::from_micros(1500)).await;
    let took = start.elapsed();
    assert!(took >= Duration::from_micros(1500), "{took:?}");
    assert!(took <= Duration::from_millis(2), "{took:?}");
}

#[volt::test(start_paused = true)]
async fn reset_to_later_deadline() {
    let start = Instant::now();
    let s = sleep(Duration::from_millis(10));
    volt::pin!(s);
    // Poll once so that the entry is filed, then move it later.
    assert!(
        volt::time::timeout(Duration::from_millis(1), s.as_mut())
            .await
            .is_err()
    );
    s.as_mut().reset(start + Duration::from_millis(50));
    s.as_mut().await;
    assert_eq!(start.elapsed(), Duration::from_millis(50));
    assert!(s.is_elapsed());
}

#[volt::test(start_paused = true)]
async fn reset_to_earlier_deadline() {
    let start = Instant::now();
    let s = sleep(Duration::from_secs(3600));
    volt::pin!(s);
    assert!(
        volt::time::timeout(Duration::from_millis(1), s.as_mut())
            .await
            .is_err()
    );
    s.as_mut().reset(start + Duration::from_millis(20));
    s.as_mut().await;
    assert_eq!(start.elapsed(), Duration::from_millis(20));
}

/// Resetting a polled sleep to a deadline that has passed fires it at
/// once and wakes the task that polled it (tokio-util's `DelayQueue`
/// relies on it: `reset_earlier_after_slot_starts`).
#[volt::test(start_paused = true)]
async fn reset_to_a_past_deadline_wakes_the_poller() {
    let start = Instant::now();
    let (count, waker) = support::counting_waker();
    let s = sleep(Duration::from_secs(3600));
    volt::pin!(s);
    assert!(
        s.as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending()
    );
    time::advance(Duration::from_millis(80)).await;
    assert!(count.count() == 0);
    s.as_mut().reset(start + Duration::from_millis(50));
    assert!(count.count() > 0, "the earlier poller is woken");
    assert!(s.is_elapsed());
    s.as_mut().await;
}

#[volt::test(start_paused = true)]
async fn reset_after_completion_rearms() {
    let start = Instant::now();
    let s = sleep(Duration::from_millis(5));
    volt::pin!(s);
    s.as_mut().await;
    assert!(s.is_elapsed());
    s.as_mut().reset(Instant::now() + Duration::from_millis(5));
    assert!(!s.is_elapsed());
    s.as_mut().await;
    assert_eq!(start.elapsed(), Duration::from_millis(10));
    assert_eq!(s.deadline(), start + Duration::from_millis(10));
}

#[volt::test(start_paused = true)]
async fn is_elapsed_before_first_poll_is_false() {
    let s = sleep(Duration::ZERO);
    assert!(!s.is_elapsed());
    s.await;
}

#[volt::test(start_paused = true)]
async fn huge_durations_saturate() {
    let s = sleep(Duration::MAX);
    assert!(s.deadline() > Instant::now() + Duration::from_secs(86400 * 365 * 20));
    let r = time::timeout(Duration::MAX, async { 7 }).await;
    assert_eq!(r, Ok(7));
    // A timeout whose deadline cannot be represented never fires.
    let r = time::timeout(Duration::MAX, std::future::pending::<()>());
    let r = time::timeout(Duration::from_secs(365 * 86400), r).await;
    assert!(r.is_err());
}

/// Polls a pinned future once with a no-op waker.
fn poll_once<F: Future + ?Sized>(f: Pin<&mut F>) -> Poll<F::Output> {
    let mut cx = Context::from_waker(std::task::Waker::noop());
    f.poll(&mut cx)
}

#[test]
fn sleep_dropped_on_another_thread_is_cancelled() {
    let rt = volt::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    for _ in 0..100 {
        let s = rt.block_on(async {
            let mut s = Box::pin(sleep(Duration::from_millis(30)));
            assert!(poll_once(s.as_mut()).is_pending());
            s
        });
        // Dropped from a plain thread while filed in a worker's wheel.
        std::thread::spawn(move || drop(s)).join().unwrap();
    }
    // The runtime still fires new timers.
    rt.block_on(async { sleep(Duration::from_millis(1)).await });
}

#[test]
fn sleep_moved_between_threads_still_fires() {
    let rt = volt::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let s = rt.block_on(async {
        let mut s = Box::pin(sleep(Duration::from_millis(5)));
        assert!(poll_once(s.as_mut()).is_pending());
        s
    });
    // Awaited on another worker (or the block_on thread).
    rt.block_on(async move { volt::spawn(s).await.unwrap() });
}

#[test]
#[should_panic(
    expected = "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
)]
fn sleep_outside_runtime_panics() {
    drop(sleep(Duration::from_millis(1)));
}

#[test]
#[should_panic(expected = "A Tokio 1.x context was found, but timers are disabled. \
                           Call `enable_time` on the runtime builder to enable timers.")]
fn sleep_without_enable_time_panics() {
    let rt = volt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        sleep(Duration::from_millis(1)).await;
    });
}

/// A 60 s sleep created in a current-thread runtime that is then dropped.
fn sleep_of_dropped_runtime() -> Pin<Box<time::Sleep>> {
    let rt = volt::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let s = rt.block_on(async { Box::pin(sleep(Duration::from_secs(60))) });
    drop(rt);
    s
}

/// Polls `s` once, expecting tokio's panic for a runtime that shut down.
fn assert_poll_panics_with_shutdown_message(s: Pin<&mut time::Sleep>) {
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| poll_once(s))).unwrap_err();
    let msg = err
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| err.downcast_ref::<String>().cloned());
    assert_eq!(
        msg.as_deref(),
        Some("A Tokio 1.x context was found, but it is being shutdown.")
    );
}

#[test]
fn sleep_after_shutdown_panics_with_tokio_message() {
    let mut s = sleep_of_dropped_runtime();
    assert_poll_panics_with_shutdown_message(s.as_mut());
}

#[test]
fn pending_sleep_is_woken_by_shutdown() {
    // A task outside the runtime waits on a runtime's sleep; shutting the
    // runtime down wakes it (then polling panics, as in tokio).
    let rt = volt::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let mut s = rt.block_on(async { Box::pin(sleep(Duration::from_secs(3600))) });
    let woken = Arc::new(std::sync::atomic::AtomicBool::new(false));
    struct Flag(Arc<std::sync::atomic::AtomicBool>);
    impl std::task::Wake for Flag {
        fn wake(self: Arc<Self>) {
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
    let waker = std::task::Waker::from(Arc::new(Flag(woken.clone())));
    {
        let _g = rt.enter();
        assert!(
            s.as_mut()
                .poll(&mut Context::from_waker(&waker))
                .is_pending()
        );
    }
    drop(rt);
    assert!(woken.load(std::sync::atomic::Ordering::SeqCst));
}

#[test]
fn many_timers_created_and_cancelled_do_not_leak() {
    // Memory is the futures themselves: filing and cancelling a million
    // entries leaves every wheel empty (checked by firing a new timer
    // promptly after) and allocates nothing per entry.
    let rt = volt::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    rt.block_on(async {
        let mut s = Box::pin(sleep(Duration::from_secs(1)));
        for i in 0..1_000_000u64 {
            s.as_mut()
                .reset(Instant::now() + Duration::from_millis(1 + i % 100_000));
        }
        drop(s);
        for _ in 0..10_000 {
            let mut s = Box::pin(sleep(Duration::from_millis(10)));
            assert!(poll_once(s.as_mut()).is_pending());
        }
        let start = Instant::now();
        sleep(Duration::from_millis(1)).await;
        assert_eq!(start.elapsed(), Duration::from_millis(1));
    });
}

// A `Sleep` takes its runtime's handle only when it is first polled; these
// check that it still belongs to the runtime it was created in.

#[test]
fn sleep_first_polled_on_another_runtime_keeps_its_own_timer() {
    // Created under a paused clock, first polled inside a runtime whose
    // clock is real: only the paused runtime's `advance` may fire it.
    let paused = volt::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    let other = volt::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let mut s = paused.block_on(async { Box::pin(sleep(Duration::from_secs(3600))) });
    let s = other.block_on(async move {
        assert!(poll_once(s.as_mut()).is_pending());
        s
    });
    paused.block_on(async move {
        time::advance(Duration::from_secs(3600)).await;
        s.await;
    });
}

#[test]
fn sleep_first_polled_off_runtime_fires() {
    let rt = volt::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let mut s = rt.block_on(async { Box::pin(sleep(Duration::from_millis(5))) });
    // A plain thread with no runtime polls it, parking until woken.
    std::thread::spawn(move || {
        struct Unpark(std::thread::Thread);
        impl std::task::Wake for Unpark {
            fn wake(self: Arc<Self>) {
                self.0.unpark();
            }
        }
        let waker = std::task::Waker::from(Arc::new(Unpark(std::thread::current())));
        while s
            .as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending()
        {
            std::thread::park();
        }
    })
    .join()
    .unwrap();
    drop(rt);
}

#[test]
fn unpolled_sleep_after_runtime_dropped_resets_then_panics_on_poll() {
    let mut s = sleep_of_dropped_runtime();
    // As tokio: resetting a sleep of a shut-down runtime does not panic...
    let deadline = s.deadline() + Duration::from_secs(1);
    s.as_mut().reset(deadline);
    assert_eq!(s.deadline(), deadline);
    // ...polling it does.
    assert_poll_panics_with_shutdown_message(s.as_mut());
}
