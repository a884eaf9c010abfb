//! The waker bridge: everything `volt-sync` and `volt-channel` need from the
//! runtime, and nothing else.
//!
//! Sync and channel know nothing of the scheduler's internals. Their futures
//! take part in the runtime through:
//!
//! * task wakers (any `Waker`: volt's are a refcount and a queue push, but
//!   a foreign executor's work too, so these futures run anywhere);
//! * [`WakeList`]: collect wakers under a lock, wake them after unlocking;
//! * [`AtomicWaker`]: a lock-free waker slot for one waiting task;
//! * [`WakerSlot`]: the `Option<Waker>` to embed in futures that are built
//!   and moved on every call (fully defined when empty: cheap to move);
//! * the cooperative budget: [`poll_proceed`] before completing, so a task
//!   that always finds its lock or channel ready still yields after 128
//!   operations (outside volt the budget is unconstrained);
//! * [`block_on`] for `blocking_*` methods, which panics with tokio's
//!   message when called from a thread that drives a runtime;
//! * the intrusive [`LinkedList`] for zero-allocation waiter queues, and the
//!   [`loom`] shim so their protocols can be model-checked;
//! * with `tracing`, `trace`: the resource and async-op spans
//!   tokio-console reads.
//!
//! This module is public only for the workspace's crates; it is hidden from
//! the docs and not part of volt's stable API.

pub use crate::coop::{
    RestoreOnPending, has_budget_remaining, poll_budget_available, poll_proceed,
};
pub use crate::loom;
pub use crate::util::CachePadded;
pub use crate::util::atomic_waker::AtomicWaker;
pub use crate::util::linked_list::{GuardedLinkedList, Link, LinkedList, Pointers};
pub use crate::util::spaced::{Gap, Spaced};
pub use crate::util::wake_list::{NUM_WAKERS, WakeList};
pub use crate::util::waker_slot::WakerSlot;

/// The instrumentation tokio-console reads (`util::trace`).
#[cfg(feature = "tracing")]
pub mod trace {
    pub use crate::util::trace::{AsyncOp, PollScope, Resource, Traced, async_op};
}

use std::future::Future;

/// Message of `blocking_*` methods called from an async context (tokio's).
pub const BLOCK_IN_ASYNC_CONTEXT: &str = "Cannot block the current thread from within a runtime. This \
    happens because a function attempted to block the current \
    thread while the thread is being used to drive asynchronous \
    tasks.";

/// Blocks the current thread until `f` completes.
///
/// # Panics
///
/// With [`BLOCK_IN_ASYNC_CONTEXT`] if the thread drives a volt runtime.
#[track_caller]
pub fn block_on<F: Future>(f: F) -> F::Output {
    #[cfg(feature = "rt")]
    {
        let mut e = crate::context::try_enter_blocking_region().expect(BLOCK_IN_ASYNC_CONTEXT);
        e.block_on(f).expect("failed to park thread")
    }
    #[cfg(not(feature = "rt"))]
    {
        crate::park::CachedParkThread::new()
            .block_on(f)
            .expect("failed to park thread")
    }
}

/// Whether the current thread drives a volt runtime (so it must not block).
pub fn is_inside_runtime() -> bool {
    #[cfg(feature = "rt")]
    {
        crate::context::current_enter_context().is_entered()
    }
    #[cfg(not(feature = "rt"))]
    {
        false
    }
}

/// A random number in `0..n` from the current thread's generator.
pub fn thread_rng_n(n: u32) -> u32 {
    crate::context::thread_rng_n(n)
}
