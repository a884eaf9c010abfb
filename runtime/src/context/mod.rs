//! The per-thread runtime context.
//!
//! One thread-local struct holds everything volt needs to know about "where
//! am I running":
//!
//! * `current`: the runtime handle set by `Runtime::enter`, `block_on`,
//!   worker and blocking threads (what `Handle::current` and `spawn` use);
//!   guards nest and must be dropped in reverse order.
//! * `scheduler`: the scheduler context of the worker (or `block_on` call)
//!   that is polling tasks on this thread, if any. Wakes check it to push a
//!   task to the local queue instead of the global one.
//! * `runtime`: whether this thread is *inside* a runtime (driving tasks),
//!   which forbids blocking (`block_on`, `blocking_*`).
//! * `current_task_id`: the id of the task being polled or dropped.
//! * `budget`: the cooperative budget of the task being polled.
//! * `rng`: per-thread random numbers (`select!`, steal victims).
//!
//! Only the owning thread touches its context; all fields are `Cell`s or
//! `RefCell`s.
//!
//! The hot fields (budget, task id, scheduler pointer, entered flag, rng)
//! live in a thread-local without a destructor, so that reaching them is a
//! plain TLS offset access with no lazy-registration check; the current
//! handle, which needs dropping, lives in a second thread-local.

use crate::coop::Budget;
use crate::util::rand::FastRand;

use std::cell::Cell;

#[cfg(feature = "rt")]
mod rt_context;
#[cfg(feature = "rt")]
pub(crate) use rt_context::*;

pub(crate) struct Context {
    #[cfg(feature = "rt")]
    pub(crate) rt: rt_context::RtContext,
    rng: Cell<Option<FastRand>>,
    budget: Cell<Budget>,
}

std::thread_local! {
    pub(crate) static CONTEXT: Context = const {
        Context {
            #[cfg(feature = "rt")]
            rt: rt_context::RtContext::new(),
            rng: Cell::new(None),
            budget: Cell::new(Budget::unconstrained()),
        }
    };
}

/// Replaces this thread's generator (tests).
#[cfg(all(test, not(loom), feature = "rt"))]
pub(crate) fn set_thread_rng(rng: FastRand) {
    CONTEXT.with(|ctx| ctx.rng.set(Some(rng)));
}

/// A random number in `0..n` from this thread's generator.
pub(crate) fn thread_rng_n(n: u32) -> u32 {
    CONTEXT
        .try_with(|ctx| {
            let mut rng = ctx.rng.get().unwrap_or_else(FastRand::new);
            let ret = rng.fastrand_n(n);
            ctx.rng.set(Some(rng));
            ret
        })
        .unwrap_or_else(|_| FastRand::new().fastrand_n(n))
}

/// Runs `f` with this thread's budget cell; `Err` if the thread-local is
/// gone (thread teardown).
#[inline]
pub(crate) fn budget<R>(f: impl FnOnce(&Cell<Budget>) -> R) -> Result<R, std::thread::AccessError> {
    CONTEXT.try_with(|ctx| f(&ctx.budget))
}
