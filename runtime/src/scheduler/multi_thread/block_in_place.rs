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

use super::worker::{run, with_current};
use crate::{context, coop, scheduler};

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

    let mut had_entered = false;
    let mut take_core = false;

    let setup_result = with_current(|maybe_cx| {
        match (context::current_enter_context(), maybe_cx.is_some()) {
            (context::EnterRuntime::Entered { .. }, true) => {
                // On a worker thread of this runtime; but not inside a
                // `LocalSet`: its `!Send` tasks live on this thread, and the
                // worker's core would move to another (tokio refuses too).
                if crate::task::local::in_local_set() {
                    return Err(
                        "can call blocking only when running on the multi-threaded runtime",
                    );
                }
                had_entered = true;
            }
            (
                context::EnterRuntime::Entered {
                    allow_block_in_place,
                },
                false,
            ) => {
                // Driving a runtime but not as a worker: fine only inside
                // the multi-thread runtime's `block_on`.
                if allow_block_in_place && !crate::task::local::in_local_set() {
                    had_entered = true;
                    return Ok(());
                } else {
                    return Err(
                        "can call blocking only when running on the multi-threaded runtime",
                    );
                }
            }
            (context::EnterRuntime::NotEntered, true) => {
                // Nested `block_in_place`: already set up.
                return Ok(());
            }
            (context::EnterRuntime::NotEntered, false) => {
                // Outside any runtime: just run the closure.
                return Ok(());
            }
        }

        let cx = maybe_cx.expect("no .is_some() == false cases above should lead here");

        // Deferred yields live in this thread's context, not in the core:
        // queue them before the core leaves.
        cx.defer.wake();

        // Without a core (already handed away), blocking is fine.
        let mut core = match cx.core.borrow_mut().take() {
            Some(core) => core,
            None => return Ok(()),
        };

        // The LIFO task is not stealable: put it where others can reach it.
        if let Some(task) = core.lifo_slot.take() {
            core.run_queue.push_back_or_overflow(
                task,
                &cx.worker.handle.shared.inject,
                &mut core.stats,
            );
        }

        take_core = true;
        assert!(core.park.is_some());

        // Give the core to a new thread, which runs it while we block.
        cx.worker.core.set(core);
        let worker = cx.worker.clone();
        let spawner = cx.worker.handle.blocking_spawner.clone();
        let rt = crate::runtime::Handle {
            inner: scheduler::Handle::MultiThread(cx.worker.handle.clone()),
        };
        spawner.spawn_blocking(&rt, move || run(worker));
        Ok(())
    });

    if let Err(panic_message) = setup_result {
        panic!("{}", panic_message);
    }

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
