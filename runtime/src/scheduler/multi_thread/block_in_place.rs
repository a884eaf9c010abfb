//! `block_in_place`: a worker thread that must block hands its core to a
//! fresh thread first.
//!
//! # Protocol
//!
//! The calling task runs on a worker thread that holds the core in its
//! context. `block_in_place` queues the context's deferred wakes (they live
//! in the thread's context, not the core), moves the LIFO task to the
//! stealable queue, puts the core in the worker's `AtomicCell` and starts a
//! new thread running the worker loop, which takes it from there. The
//! calling thread then runs the closure outside the runtime with an
//! unconstrained budget. When the closure returns (or unwinds), the thread
//! takes the core back from the cell if the new thread has not taken it
//! yet; if it has, the task finishes its poll without a core and the
//! thread leaves the worker loop (`Context::run_task`).
//!
//! Outside a worker (the multi-thread runtime's `block_on`), on a thread
//! whose core is already away (nested calls), or outside any runtime, the
//! closure just runs. Inside a `LocalSet`, or on a current-thread runtime,
//! it panics with tokio's message.

use super::worker::{Context, run, with_current};
use crate::{context, coop, scheduler};

/// tokio's message for `block_in_place` where it cannot work.
const NOT_MULTI_THREAD: &str = "can call blocking only when running on the multi-threaded runtime";

/// Where `block_in_place` was called from.
enum Caller {
    /// Outside any runtime, or nested in a `block_in_place`: just run.
    Outside,
    /// The multi-thread runtime's `block_on`: leave the runtime to run.
    BlockOn,
    /// A worker thread: hand the core away, then leave the runtime.
    Worker,
}

/// Where we are, or tokio's panic message where blocking is refused.
fn caller(maybe_cx: Option<&Context>) -> Result<Caller, &'static str> {
    match (context::current_enter_context(), maybe_cx.is_some()) {
        // On a worker thread of this runtime; but not inside a `LocalSet`:
        // its `!Send` tasks live on this thread, and the worker's core would
        // move to another (tokio refuses too).
        (context::EnterRuntime::Entered { .. }, true) if crate::task::local::in_local_set() => {
            Err(NOT_MULTI_THREAD)
        }
        (context::EnterRuntime::Entered { .. }, true) => Ok(Caller::Worker),
        // Driving a runtime but not as a worker: fine only inside the
        // multi-thread runtime's `block_on`.
        (
            context::EnterRuntime::Entered {
                allow_block_in_place,
            },
            false,
        ) => {
            if allow_block_in_place && !crate::task::local::in_local_set() {
                Ok(Caller::BlockOn)
            } else {
                Err(NOT_MULTI_THREAD)
            }
        }
        // Nested `block_in_place` (already set up), or outside any runtime.
        (context::EnterRuntime::NotEntered, _) => Ok(Caller::Outside),
    }
}

/// Gives the worker's core to a new thread, which runs the worker loop
/// while this one blocks; returns whether there was a core to give (and so
/// one to take back afterwards).
fn hand_off_core(cx: &Context) -> bool {
    // Deferred yields live in this thread's context, not in the core:
    // queue them before the core leaves.
    cx.defer.wake();

    // Without a core (already handed away), blocking is fine.
    let Some(mut core) = cx.core.borrow_mut().take() else {
        return false;
    };

    // The LIFO task is not stealable: put it where others can reach it.
    if let Some(task) = core.lifo_slot.take() {
        core.run_queue.push_back_or_overflow(
            task,
            &cx.worker.handle.shared.inject,
            &mut core.stats,
        );
    }
    assert!(core.park.is_some());

    // Give the core to a new thread, which runs it while we block.
    cx.worker.core.set(core);
    let worker = cx.worker.clone();
    let spawner = cx.worker.handle.blocking_spawner.clone();
    let rt = crate::runtime::Handle {
        inner: scheduler::Handle::MultiThread(cx.worker.handle.clone()),
    };
    if let Err(crate::blocking::pool::SpawnError::NoThreads(e)) =
        spawner.spawn_worker(&rt, false, move || run(worker))
    {
        panic!("OS can't spawn worker thread: {e}")
    }
    true
}

#[track_caller]
pub(crate) fn block_in_place<F, R>(f: F) -> R
where
    F: FnOnce() -> R,
{
    // Takes the core back (if no other thread took it) when the blocking
    // section ends, even by panic.
    struct Reset {
        take_core: bool,
        budget: coop::Budget,
    }

    impl Drop for Reset {
        fn drop(&mut self) {
            with_current(|maybe_cx| {
                if let Some(cx) = maybe_cx {
                    if self.take_core {
                        let core = cx.worker.core.take();
                        if core.is_some() {
                            // This thread runs the worker again.
                            cx.worker.handle.shared.worker_metrics[cx.worker.index].set_thread_id();
                        }
                        let mut cx_core = cx.core.borrow_mut();
                        assert!(cx_core.is_none());
                        *cx_core = core;
                    }
                    // Re-entering the runtime: the task's budget again.
                    coop::set(self.budget);
                }
            });
        }
    }

    // (left the runtime, core to take back)
    let setup = with_current(|maybe_cx| -> Result<(bool, bool), &str> {
        Ok(match caller(maybe_cx)? {
            Caller::Outside => (false, false),
            Caller::BlockOn => (true, false),
            Caller::Worker => (
                true,
                hand_off_core(maybe_cx.expect("a worker has a context")),
            ),
        })
    });
    // Not a closure: the panic must name the caller's line (#[track_caller]).
    let (had_entered, take_core) = match setup {
        Ok(setup) => setup,
        Err(message) => panic!("{}", message),
    };

    if had_entered {
        // Blocking code is not limited by the task budget.
        let _reset = Reset {
            take_core,
            budget: coop::stop(),
        };
        context::exit_runtime(f)
    } else {
        f()
    }
}
