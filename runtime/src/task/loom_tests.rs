//! loom models of the task state machine, wakers and `JoinHandle`.
//!
//! Each model spawns a task on the hand-driven `TestSched` and races one
//! operation from another thread against polling, completion or shutdown.
//! loom checks every interleaving (up to the preemption bound) for data
//! races on the task's cells, lost wake-ups (the model would spin forever),
//! double drops (counters) and leaks (loom reports a leaked `Arc` when a
//! task is never freed, since every task holds its scheduler's `Arc`).

use super::test_sched::TestSched;
use crate::loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use crate::loom::sync::{Arc, Mutex};
use crate::task::JoinHandle;

use loom::thread;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// Runs queued tasks until `join`'s task is complete.
fn run_until_finished<T>(sched: &TestSched, join: &JoinHandle<T>) {
    while !join.is_finished() {
        if !sched.tick() {
            thread::yield_now();
        }
    }
}

fn take_output<T>(join: &mut JoinHandle<T>) -> crate::task::Result<T> {
    let mut cx = Context::from_waker(Waker::noop());
    match Pin::new(join).poll(&mut cx) {
        Poll::Ready(out) => out,
        Poll::Pending => panic!("task not complete"),
    }
}

/// Counts its drops.
struct Counted(Arc<AtomicUsize>);
impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

/// A future that is `Pending` on its first poll (handing its waker to
/// `slot`) and `Ready` on the next.
fn two_step(slot: Arc<Mutex<Option<Waker>>>) -> impl Future<Output = u32> + Send + 'static {
    let mut first = true;
    poll_fn(move |cx| {
        if first {
            first = false;
            *slot.lock() = Some(cx.waker().clone());
            Poll::Pending
        } else {
            Poll::Ready(7)
        }
    })
}

#[test]
fn wake_from_another_thread_while_running() {
    loom::model(|| {
        let sched = TestSched::new();
        let slot = Arc::new(Mutex::new(None));
        let mut join = sched.spawn(two_step(slot.clone()));

        let waker_thread = thread::spawn(move || {
            loop {
                if let Some(w) = slot.lock().take() {
                    w.wake();
                    return;
                }
                thread::yield_now();
            }
        });

        run_until_finished(&sched, &join);
        waker_thread.join().unwrap();
        assert_eq!(take_output(&mut join).unwrap(), 7);
        sched.shutdown();
    });
}

#[test]
fn wake_by_ref_and_self_wake_race() {
    loom::model(|| {
        let sched = TestSched::new();
        let slot = Arc::new(Mutex::new(None::<Waker>));
        let s = slot.clone();
        let polls = Arc::new(AtomicUsize::new(0));
        let p = polls.clone();
        let join = sched.spawn(poll_fn(move |cx| {
            match p.fetch_add(1, SeqCst) {
                0 => {
                    *s.lock() = Some(cx.waker().clone());
                    // Also wake ourselves (a yield) while another thread
                    // may wake us too.
                    cx.waker().wake_by_ref();
                    Poll::Pending
                }
                _ => Poll::Ready(()),
            }
        }));

        let waker_thread = thread::spawn(move || {
            loop {
                let w = slot.lock().take();
                if let Some(w) = w {
                    w.wake_by_ref();
                    return;
                }
                thread::yield_now();
            }
        });

        run_until_finished(&sched, &join);
        waker_thread.join().unwrap();
        // Two wakes, but the task is never queued twice at once.
        assert!(polls.load(SeqCst) >= 2);
        drop(join);
        sched.run_all();
        sched.shutdown();
    });
}

#[test]
fn abort_during_poll() {
    loom::model(|| {
        let sched = TestSched::new();
        let drops = Arc::new(AtomicUsize::new(0));
        let guard = Counted(drops.clone());
        let mut first = true;
        let mut join = sched.spawn(poll_fn(move |cx| {
            let _keep = &guard;
            if first {
                // Yield once (re-queued while the abort races us), then wait
                // for nothing: only the abort ends this task.
                first = false;
                cx.waker().wake_by_ref();
            }
            Poll::<()>::Pending
        }));
        let abort = join.abort_handle();

        let aborter = thread::spawn(move || abort.abort());

        run_until_finished(&sched, &join);
        aborter.join().unwrap();
        assert!(take_output(&mut join).unwrap_err().is_cancelled());
        assert_eq!(drops.load(SeqCst), 1);
        drop(join);
        sched.shutdown();
    });
}

#[test]
fn join_handle_dropped_concurrently_with_completion() {
    loom::model(|| {
        let sched = TestSched::new();
        let drops = Arc::new(AtomicUsize::new(0));
        let out = Counted(drops.clone());
        let join = sched.spawn(async move { out });

        let dropper = thread::spawn(move || drop(join));

        sched.run_all();
        dropper.join().unwrap();
        // The output was dropped exactly once: by the task or the handle.
        assert_eq!(drops.load(SeqCst), 1);
        sched.shutdown();
    });
}

#[test]
fn join_waker_registration_races_completion() {
    loom::model(|| {
        let sched = TestSched::new();
        let slot = Arc::new(Mutex::new(None));
        let join = sched.spawn(two_step(slot.clone()));
        // First poll: the task parks its waker in `slot`.
        assert!(sched.tick());

        // loom's `block_on` parks the thread between polls: a lost join
        // wake-up is a deadlock loom reports.
        let joiner = thread::spawn(move || loom::future::block_on(join).unwrap());

        // Wake and complete the task concurrently with the joiner.
        slot.lock().take().unwrap().wake();
        sched.run_all();
        assert_eq!(joiner.join().unwrap(), 7);
        sched.shutdown();
    });
}

#[test]
fn wake_after_complete_races_completion() {
    loom::model(|| {
        let sched = TestSched::new();
        let slot = Arc::new(Mutex::new(None::<Waker>));
        let s = slot.clone();
        let join = sched.spawn(poll_fn(move |cx| {
            // Keep a waker and complete at once.
            *s.lock() = Some(cx.waker().clone());
            Poll::Ready(())
        }));
        drop(join);

        let waker_thread = thread::spawn(move || {
            loop {
                let w = slot.lock().take();
                if let Some(w) = w {
                    // Woken after (or while) the task completes.
                    w.wake_by_ref();
                    w.wake();
                    return;
                }
                thread::yield_now();
            }
        });

        sched.run_all();
        waker_thread.join().unwrap();
        // A stale notification may have been queued; running it frees
        // nothing twice.
        sched.run_all();
        sched.shutdown();
    });
}

#[test]
fn shutdown_races_a_remote_wake() {
    loom::model(|| {
        let sched = TestSched::new();
        let slot = Arc::new(Mutex::new(None));
        let drops = Arc::new(AtomicUsize::new(0));
        let guard = Counted(drops.clone());
        let inner = two_step(slot.clone());
        let mut join = sched.spawn(async move {
            let _g = guard;
            inner.await
        });
        assert!(sched.tick());

        let done = Arc::new(AtomicBool::new(false));
        let d = done.clone();
        let waker_thread = thread::spawn(move || {
            if let Some(w) = slot.lock().take() {
                w.wake();
            }
            d.store(true, SeqCst);
        });

        sched.shutdown();
        waker_thread.join().unwrap();
        assert!(done.load(SeqCst));
        // Drop any notification the wake queued after shutdown.
        sched.shutdown();
        assert!(take_output(&mut join).unwrap_err().is_cancelled());
        assert_eq!(drops.load(SeqCst), 1);
    });
}

/// A wake by value that hands its reference to the `Notified` (on the
/// thread where the scheduler "is here") races a wake by value from
/// another thread (which adds a reference and drops its own): the task is
/// queued at most once at a time, runs to completion and is freed.
#[test]
fn wake_here_races_a_remote_wake() {
    loom::model(|| {
        let sched = TestSched::new();
        let _here = sched.enter();
        let slot = Arc::new(Mutex::new(None));
        let mut join = sched.spawn(two_step(slot.clone()));
        assert!(sched.tick());
        let waker = slot.lock().take().expect("the first poll stored its waker");
        let remote = waker.clone();
        let waker_thread = thread::spawn(move || remote.wake());
        waker.wake();
        run_until_finished(&sched, &join);
        waker_thread.join().unwrap();
        assert_eq!(take_output(&mut join).unwrap(), 7);
        drop(join);
        sched.shutdown();
    });
}
