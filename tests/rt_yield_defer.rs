//! Deferred yields: `yield_now` and an exhausted coop budget wake their
//! task only after the scheduler has polled the driver, as tokio does
//! (`runtime/src/scheduler/defer.rs`).

mod support;

use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::task::Poll;
use support::{counting_waker, poll_with};
use volt::runtime::{Builder, Handle, Runtime};
use volt::task;

fn current_thread() -> Runtime {
    Builder::new_current_thread().enable_all().build().unwrap()
}

fn multi_thread(workers: usize) -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap()
}

/// The runtimes on which one thread both runs the task and owns the
/// driver, so that "the driver was polled before the task ran again" is
/// deterministic.
fn single_driver_thread_runtimes() -> [Runtime; 2] {
    [current_thread(), multi_thread(1)]
}

/// A Unix socket with a byte waiting that volt can learn of only from its
/// driver: the volt end was seen empty (which clears the readiness a new
/// stream starts with) before the peer wrote. A socket pair has no network
/// stack in between, so the byte and the epoll event are there as soon as
/// `write` returns. Call inside a runtime.
fn byte_only_the_driver_knows_of() -> (volt::net::UnixStream, std::os::unix::net::UnixStream) {
    use std::io::Write;
    let (ours, mut theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    ours.set_nonblocking(true).unwrap();
    let ours = volt::net::UnixStream::from_std(ours).unwrap();
    let err = ours.try_read(&mut [0u8; 1]).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
    theirs.write_all(b"x").unwrap();
    (ours, theirs)
}

/// A task that yields in a loop while its socket has data: the driver must
/// report it within a few yields. With immediate re-queueing the task ran
/// `event_interval` (61) times before the driver was polled.
fn yield_loop_sees_io(use_budget: bool) {
    for rt in single_driver_thread_runtimes() {
        let yields = rt.block_on(async {
            task::spawn(async move {
                let (ours, _theirs) = byte_only_the_driver_knows_of();
                let seen = AtomicBool::new(false);
                let mut yields = 0;
                volt::join!(
                    async {
                        while !seen.load(SeqCst) {
                            if use_budget {
                                // More than one task budget: at least one
                                // forced yield per round.
                                for _ in 0..128 {
                                    task::consume_budget().await;
                                }
                            } else {
                                task::yield_now().await;
                            }
                            yields += 1;
                            assert!(yields < 10, "the driver was not polled between yields");
                        }
                    },
                    async {
                        ours.readable().await.unwrap();
                        seen.store(true, SeqCst);
                    }
                );
                yields
            })
            .await
            .unwrap()
        });
        assert!(yields >= 1);
    }
}

#[test]
fn yield_now_waits_for_the_driver() {
    yield_loop_sees_io(false);
}

#[test]
fn exhausted_budget_waits_for_the_driver() {
    yield_loop_sees_io(true);
}

/// The same for a `LocalSet`'s task: its waker is not the runtime's, so it
/// takes the general path (the context's waker list).
#[test]
fn local_task_yield_waits_for_the_driver() {
    let rt = current_thread();
    let local = task::LocalSet::new();
    local.block_on(&rt, async {
        let (ours, _theirs) = byte_only_the_driver_knows_of();
        let seen = std::rc::Rc::new(std::cell::Cell::new(false));
        let flag = seen.clone();
        let yielder = task::spawn_local(async move {
            let mut yields = 0;
            while !flag.get() {
                task::yield_now().await;
                yields += 1;
                assert!(yields < 10, "the driver was not polled between yields");
            }
        });
        ours.readable().await.unwrap();
        seen.set(true);
        yielder.await.unwrap();
    });
}

/// While the task that yielded is still running, its wake has not happened;
/// by the time it runs again, it has.
#[test]
fn deferred_wake_happens_before_the_task_runs_again() {
    for rt in [current_thread(), multi_thread(1), multi_thread(4)] {
        rt.block_on(async {
            task::spawn(async {
                let (count, waker) = counting_waker();
                let mut other = pin!(task::yield_now());
                assert!(poll_with(other.as_mut(), &waker).is_pending());
                assert_eq!(count.count(), 0, "woken while the yielding task runs");
                task::yield_now().await;
                assert_eq!(count.count(), 1);
            })
            .await
            .unwrap();
        });
    }
}

/// A `block_on` future that yields on a current-thread runtime keeps the
/// thread polling (it must not sleep with a wake pending).
#[test]
fn block_on_future_that_yields_completes() {
    let rt = current_thread();
    rt.block_on(async {
        for _ in 0..100 {
            task::yield_now().await;
        }
    });
}

/// Wakes deferred by the last poll of a current-thread `block_on` future are
/// not lost when `block_on` returns.
#[test]
fn wakes_deferred_by_the_last_block_on_poll_happen() {
    let rt = current_thread();
    let (count, waker) = counting_waker();
    rt.block_on(async {
        let mut other = pin!(task::yield_now());
        assert!(poll_with(other.as_mut(), &waker).is_pending());
        assert_eq!(count.count(), 0);
    });
    assert_eq!(count.count(), 1);
}

/// A deferred wake is delivered before the worker's core moves to another
/// thread in `block_in_place`.
#[test]
fn block_in_place_delivers_deferred_wakes_first() {
    for rt in [multi_thread(1), multi_thread(4)] {
        rt.block_on(async {
            task::spawn(async {
                let (count, waker) = counting_waker();
                let mut other = pin!(task::yield_now());
                assert!(poll_with(other.as_mut(), &waker).is_pending());
                assert_eq!(count.count(), 0);
                task::block_in_place(|| assert_eq!(count.count(), 1));
            })
            .await
            .unwrap();
        });
    }
}

/// Inside `block_in_place` the thread drives no core: a yield there wakes at
/// once (deferring it would hang this `block_on`).
#[test]
fn yield_inside_block_in_place_does_not_hang() {
    let rt = multi_thread(2);
    let out = rt.block_on(async {
        task::spawn(async {
            task::block_in_place(|| {
                Handle::current().block_on(async {
                    task::yield_now().await;
                    7
                })
            })
        })
        .await
        .unwrap()
    });
    assert_eq!(out, 7);
}

/// Outside any runtime a yield is an immediate wake.
#[test]
fn yield_outside_a_runtime_wakes_at_once() {
    let (count, waker) = counting_waker();
    let mut y = pin!(task::yield_now());
    assert!(poll_with(y.as_mut(), &waker).is_pending());
    assert_eq!(count.count(), 1);
    assert_eq!(poll_with(y.as_mut(), &waker), Poll::Ready(()));
}

/// A wake deferred by an `on_thread_park` hook (a `yield_now` polled there)
/// keeps the thread from sleeping: it is delivered right after the driver
/// is polled.
#[test]
fn yield_in_on_thread_park_is_delivered() {
    use std::sync::Arc;
    use volt::sync::Notify;

    struct NotifyWaker(Notify);
    impl std::task::Wake for NotifyWaker {
        fn wake(self: Arc<Self>) {
            self.0.notify_one();
        }
    }

    for multi in [false, true] {
        let notify = Arc::new(NotifyWaker(Notify::new()));
        let waker = std::task::Waker::from(notify.clone());
        let once = AtomicBool::new(false);
        let hook = move || {
            if !once.swap(true, SeqCst) {
                let mut y = pin!(task::yield_now());
                let _ = poll_with(y.as_mut(), &waker);
            }
        };
        let mut builder = if multi {
            let mut b = Builder::new_multi_thread();
            b.worker_threads(1);
            b
        } else {
            Builder::new_current_thread()
        };
        let rt = builder.enable_all().on_thread_park(hook).build().unwrap();
        rt.block_on(notify.0.notified());
    }
}
