//! Deterministic unit tests of the task state machine through a hand-driven
//! scheduler.

use super::test_sched::TestSched;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

fn poll_join<T>(join: &mut crate::task::JoinHandle<T>) -> Poll<crate::task::Result<T>> {
    let mut cx = Context::from_waker(Waker::noop());
    Pin::new(join).poll(&mut cx)
}

struct Counted(Arc<AtomicUsize>);
impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

#[test]
fn runs_to_completion_and_is_freed() {
    let sched = TestSched::new();
    let drops = Arc::new(AtomicUsize::new(0));
    let out = Counted(drops.clone());
    let mut join = sched.spawn(async move { out });
    assert!(poll_join(&mut join).is_pending());
    sched.run_all();
    match poll_join(&mut join) {
        Poll::Ready(Ok(out)) => drop(out),
        _ => panic!("expected output"),
    }
    assert_eq!(drops.load(SeqCst), 1);
    drop(join);
    sched.shutdown();
}

#[test]
#[should_panic(expected = "JoinHandle polled after completion")]
fn polling_join_handle_after_completion_panics() {
    let sched = TestSched::new();
    let mut join = sched.spawn(async { 1 });
    sched.run_all();
    assert!(poll_join(&mut join).is_ready());
    let _ = poll_join(&mut join);
}

#[test]
fn self_wake_requeues_once() {
    let sched = TestSched::new();
    let polls = Arc::new(AtomicUsize::new(0));
    let p = polls.clone();
    let mut join = sched.spawn(poll_fn(move |cx| {
        if p.fetch_add(1, SeqCst) < 3 {
            // Woken twice while running: still queued once.
            cx.waker().wake_by_ref();
            #[allow(clippy::waker_clone_wake)] // exercises wake by value
            cx.waker().clone().wake();
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    }));
    for _ in 0..3 {
        assert!(sched.tick());
        assert_eq!(sched.queued(), 1);
    }
    assert!(sched.tick());
    assert_eq!(sched.queued(), 0);
    assert!(matches!(poll_join(&mut join), Poll::Ready(Ok(()))));
    assert_eq!(polls.load(SeqCst), 4);
    sched.shutdown();
}

#[test]
fn waker_outlives_task() {
    let sched = TestSched::new();
    let slot: Arc<Mutex<Option<Waker>>> = Arc::default();
    let s = slot.clone();
    let join = sched.spawn(poll_fn(move |cx| {
        *s.lock().unwrap() = Some(cx.waker().clone());
        Poll::Ready(())
    }));
    drop(join);
    sched.run_all();
    // The task is complete; waking it is a no-op and the last reference
    // (the waker) frees it.
    let w = slot.lock().unwrap().take().unwrap();
    w.wake_by_ref();
    assert_eq!(sched.queued(), 0);
    w.wake();
    sched.shutdown();
}

/// Wakes by value where the scheduler "is here" hand the waker's reference
/// to the `Notified` (`raw.rs`, `wake_by_val`): a wake of an idle task, of
/// a queued one, of a running one (by the task itself) and of a complete
/// one, each freeing exactly what it must (Miri checks leaks and frees).
#[test]
fn wake_by_val_where_the_scheduler_is_here() {
    let sched = TestSched::new();
    let _here = sched.enter();
    let slot: Arc<Mutex<Vec<Waker>>> = Arc::default();
    let s = slot.clone();
    let polls = Arc::new(AtomicUsize::new(0));
    let p = polls.clone();
    let mut join = sched.spawn(poll_fn(move |cx| {
        let n = p.fetch_add(1, SeqCst);
        s.lock().unwrap().push(cx.waker().clone());
        s.lock().unwrap().push(cx.waker().clone());
        match n {
            0 => Poll::Pending,
            1 => {
                // Running: the wake only sets NOTIFIED.
                #[allow(clippy::waker_clone_wake)] // exercises wake by value
                cx.waker().clone().wake();
                Poll::Pending
            }
            _ => Poll::Ready(()),
        }
    }));
    sched.run_all();
    assert_eq!(polls.load(SeqCst), 1);
    let mut wakers = std::mem::take(&mut *slot.lock().unwrap());
    // Idle: queued, with the first waker's reference.
    wakers.pop().unwrap().wake();
    assert_eq!(sched.queued(), 1);
    // Queued: nothing but the second waker's reference dropped.
    wakers.pop().unwrap().wake();
    assert_eq!(sched.queued(), 1);
    sched.run_all();
    assert_eq!(polls.load(SeqCst), 3, "the self-wake ran it once more");
    assert!(matches!(poll_join(&mut join), Poll::Ready(Ok(()))));
    drop(join);
    // Complete: the wakers' references go, the last one frees the task.
    for waker in std::mem::take(&mut *slot.lock().unwrap()) {
        waker.wake();
    }
    assert_eq!(sched.queued(), 0);
    sched.shutdown();
}

/// A wake by value of another scheduler's task, on a thread where one
/// scheduler "is here", takes the general path.
#[test]
fn wake_by_val_of_another_schedulers_task() {
    let here = TestSched::new();
    let other = TestSched::new();
    let _here = here.enter();
    let slot: Arc<Mutex<Option<Waker>>> = Arc::default();
    let s = slot.clone();
    let mut join = other.spawn(poll_fn(move |cx| {
        let mut s = s.lock().unwrap();
        if s.is_some() {
            return Poll::Ready(5);
        }
        *s = Some(cx.waker().clone());
        Poll::Pending
    }));
    other.run_all();
    let waker = slot.lock().unwrap().as_ref().unwrap().clone();
    waker.wake();
    assert_eq!((here.queued(), other.queued()), (0, 1));
    other.run_all();
    assert!(matches!(poll_join(&mut join), Poll::Ready(Ok(5))));
    drop(slot.lock().unwrap().take());
    other.shutdown();
    here.shutdown();
}

#[test]
fn join_waker_is_replaced_and_woken() {
    struct Flag(AtomicUsize);
    impl std::task::Wake for Flag {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, SeqCst);
        }
    }
    let sched = TestSched::new();
    let slot: Arc<Mutex<Option<Waker>>> = Arc::default();
    let s = slot.clone();
    let mut join = sched.spawn(poll_fn(move |cx| {
        let mut s = s.lock().unwrap();
        if s.is_none() {
            *s = Some(cx.waker().clone());
            Poll::Pending
        } else {
            Poll::Ready(5)
        }
    }));
    sched.run_all();
    let (a, b) = (
        Arc::new(Flag(AtomicUsize::new(0))),
        Arc::new(Flag(AtomicUsize::new(0))),
    );
    let (wa, wb) = (Waker::from(a.clone()), Waker::from(b.clone()));
    assert!(
        Pin::new(&mut join)
            .poll(&mut Context::from_waker(&wa))
            .is_pending()
    );
    // Same waker again: kept. A different one: replaces it.
    assert!(
        Pin::new(&mut join)
            .poll(&mut Context::from_waker(&wa))
            .is_pending()
    );
    assert!(
        Pin::new(&mut join)
            .poll(&mut Context::from_waker(&wb))
            .is_pending()
    );
    slot.lock().unwrap().as_ref().unwrap().wake_by_ref();
    sched.run_all();
    assert_eq!(a.0.load(SeqCst), 0);
    assert_eq!(b.0.load(SeqCst), 1);
    assert!(matches!(
        Pin::new(&mut join).poll(&mut Context::from_waker(&wb)),
        Poll::Ready(Ok(5))
    ));
    drop(slot.lock().unwrap().take());
    sched.shutdown();
}

#[test]
fn shutdown_cancels_idle_and_queued_tasks() {
    let sched = TestSched::new();
    let drops = Arc::new(AtomicUsize::new(0));
    let (a, b) = (Counted(drops.clone()), Counted(drops.clone()));
    let mut idle = sched.spawn(async move {
        let _a = a;
        std::future::pending::<()>().await
    });
    sched.run_all();
    let mut queued = sched.spawn(async move {
        let _b = b;
        std::future::pending::<()>().await
    });
    sched.shutdown();
    assert_eq!(drops.load(SeqCst), 2);
    assert!(matches!(poll_join(&mut idle), Poll::Ready(Err(e)) if e.is_cancelled()));
    assert!(matches!(poll_join(&mut queued), Poll::Ready(Err(e)) if e.is_cancelled()));
}

#[test]
fn abort_of_idle_task_schedules_its_cancellation() {
    let sched = TestSched::new();
    let mut join = sched.spawn(std::future::pending::<()>());
    sched.run_all();
    join.abort();
    assert_eq!(sched.queued(), 1);
    // Aborting twice queues nothing more.
    join.abort_handle().abort();
    assert_eq!(sched.queued(), 1);
    sched.run_all();
    assert!(matches!(poll_join(&mut join), Poll::Ready(Err(e)) if e.is_cancelled()));
    sched.shutdown();
}
