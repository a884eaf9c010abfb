//! The runtime part of the thread-local context (feature `rt`).

use super::CONTEXT;
use crate::park::CachedParkThread;
use crate::runtime::TryCurrentError;
use crate::scheduler;
use crate::task::Id;
use crate::util::rand::FastRand;

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::marker::PhantomData;

/// Panic message of misuse that tokio users know (kept verbatim so that
/// `#[should_panic(expected = ...)]` tests carry over).
pub(crate) const CONTEXT_MISSING_ERROR: &str =
    "there is no reactor running, must be called from the context of a Tokio 1.x runtime";

/// Polling a timer of a runtime whose driver shut down.
#[cfg_attr(not(feature = "time"), allow(dead_code))]
pub(crate) const RUNTIME_SHUTTING_DOWN_ERROR: &str =
    "A Tokio 1.x context was found, but it is being shutdown.";

/// The thread-local was destroyed (thread teardown).
pub(crate) const THREAD_LOCAL_DESTROYED_ERROR: &str =
    "The Tokio context thread-local variable has been destroyed.";

const ENTER_RUNTIME_ERROR: &str = "Cannot start a runtime from within a runtime. This happens \
    because a function (like `block_on`) attempted to block the \
    current thread while the thread is being used to drive \
    asynchronous tasks. If you are in an async function, use \
    `.await` on the future instead of blocking on it.";

/// The hot runtime fields (no destructor; see the module docs).
pub(crate) struct RtContext {
    /// The scheduler driving tasks on this thread.
    scheduler: Cell<*const scheduler::Context>,
    current_task_id: Cell<Option<Id>>,
    runtime: Cell<EnterRuntime>,
    /// The header of the task whose wake, about to happen, is a deferred
    /// yield (`scheduler/defer.rs`); null if none.
    yielding: Cell<*const ()>,
}

impl RtContext {
    pub(super) const fn new() -> RtContext {
        RtContext {
            scheduler: Cell::new(std::ptr::null()),
            current_task_id: Cell::new(None),
            runtime: Cell::new(EnterRuntime::NotEntered),
            yielding: Cell::new(std::ptr::null()),
        }
    }
}

/// The handle of `Handle::current()` and the nesting depth of its guards
/// (to catch out-of-order drops).
struct CurrentHandle {
    handle: RefCell<Option<scheduler::Handle>>,
    depth: Cell<usize>,
}

std::thread_local! {
    static CURRENT: CurrentHandle = const {
        CurrentHandle {
            handle: RefCell::new(None),
            depth: Cell::new(0),
        }
    };
}

/// Whether this thread is driving a runtime (and so must not block).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EnterRuntime {
    /// Driving a runtime; `block_in_place` is allowed only on the
    /// multi-thread runtime.
    Entered {
        allow_block_in_place: bool,
    },
    NotEntered,
}

impl EnterRuntime {
    pub(crate) fn is_entered(self) -> bool {
        matches!(self, EnterRuntime::Entered { .. })
    }
}

// ----- current handle ---------------------------------------------------------

/// Runs `f` with the current runtime handle.
#[inline]
pub(crate) fn with_current<R>(
    f: impl FnOnce(&scheduler::Handle) -> R,
) -> Result<R, TryCurrentError> {
    match CURRENT.try_with(|ctx| ctx.handle.borrow().as_ref().map(f)) {
        Ok(Some(ret)) => Ok(ret),
        Ok(None) => Err(TryCurrentError::new_no_context()),
        Err(_) => Err(TryCurrentError::new_thread_local_destroyed()),
    }
}

/// Restores the previous current handle when dropped.
pub(crate) struct SetCurrentGuard {
    prev: Option<scheduler::Handle>,
    depth: usize,
    /// Guards are tied to their thread.
    _p: PhantomData<*const ()>,
}

/// Makes `handle` the current handle until the guard drops; `None` if the
/// thread-local is gone.
pub(crate) fn try_set_current(handle: &scheduler::Handle) -> Option<SetCurrentGuard> {
    CURRENT
        .try_with(|ctx| {
            let prev = ctx.handle.replace(Some(handle.clone()));
            let depth = ctx.depth.get() + 1;
            ctx.depth.set(depth);
            SetCurrentGuard {
                prev,
                depth,
                _p: PhantomData,
            }
        })
        .ok()
}

impl std::fmt::Debug for SetCurrentGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SetCurrentGuard")
            .field("depth", &self.depth)
            .finish()
    }
}

impl Drop for SetCurrentGuard {
    fn drop(&mut self) {
        let _ = CURRENT.try_with(|ctx| {
            let depth = ctx.depth.get();
            if depth != self.depth {
                if !std::thread::panicking() {
                    panic!(
                        "`EnterGuard` values dropped out of order. Guards returned by \
                         `tokio::runtime::Handle::enter()` must be dropped in the reverse \
                         order as they were acquired."
                    );
                } else {
                    // Just return... this will leave handles in a wonky state
                    // though, but we're panicking anyway.
                    return;
                }
            }
            *ctx.handle.borrow_mut() = self.prev.take();
            ctx.depth.set(depth - 1);
        });
    }
}

// ----- scheduler context ------------------------------------------------------

/// Runs `f` with `cx` set as this thread's scheduler context.
pub(crate) fn set_scheduler<R>(cx: &scheduler::Context, f: impl FnOnce() -> R) -> R {
    struct Reset(*const scheduler::Context);
    impl Drop for Reset {
        fn drop(&mut self) {
            let _ = CONTEXT.try_with(|ctx| ctx.rt.scheduler.set(self.0));
        }
    }
    let prev = CONTEXT.with(|ctx| ctx.rt.scheduler.replace(cx));
    let _reset = Reset(prev);
    f()
}

/// Runs `f` with the scheduler context driving this thread, if any.
#[inline]
pub(crate) fn with_scheduler<R>(f: impl FnOnce(Option<&scheduler::Context>) -> R) -> R {
    let mut f = Some(f);
    CONTEXT
        .try_with(|ctx| {
            let ptr = ctx.rt.scheduler.get();
            let f = f.take().unwrap();
            if ptr.is_null() {
                f(None)
            } else {
                // SAFETY: `set_scheduler` stores a pointer to a context that
                // outlives the call it wraps, and resets it on exit; we are
                // inside that call (same thread).
                f(Some(unsafe { &*ptr }))
            }
        })
        .unwrap_or_else(|_| (f.take().unwrap())(None))
}

// ----- deferred yield ---------------------------------------------------------

/// Marks the running task headed at `header` as yielding: when its poll
/// hands it back as woken, the scheduler defers it.
pub(crate) fn set_yielding(header: *const ()) {
    let _ = CONTEXT.try_with(|ctx| ctx.rt.yielding.set(header));
}

/// Clears the mark; `true` if it named `header`.
pub(crate) fn take_yielding(header: *const ()) -> bool {
    CONTEXT
        .try_with(|ctx| ctx.rt.yielding.replace(std::ptr::null()) == header)
        .unwrap_or(false)
}

// ----- task id ----------------------------------------------------------------

pub(crate) fn current_task_id() -> Option<Id> {
    CONTEXT
        .try_with(|ctx| ctx.rt.current_task_id.get())
        .unwrap_or(None)
}

pub(crate) fn set_current_task_id(id: Option<Id>) -> Option<Id> {
    CONTEXT
        .try_with(|ctx| ctx.rt.current_task_id.replace(id))
        .unwrap_or(None)
}

// ----- entering a runtime -----------------------------------------------------

/// Marks the thread as driving `handle`'s runtime for the duration of `f`.
///
/// # Panics
/// With tokio's message if the thread already drives a runtime.
#[track_caller]
pub(crate) fn enter_runtime<F, R>(handle: &scheduler::Handle, allow_block_in_place: bool, f: F) -> R
where
    F: FnOnce(&mut BlockingRegionGuard) -> R,
{
    let maybe_guard = CONTEXT.with(|ctx| {
        if ctx.rt.runtime.get().is_entered() {
            None
        } else {
            ctx.rt.runtime.set(EnterRuntime::Entered {
                allow_block_in_place,
            });
            // With a fixed seed, the thread's generator comes from the
            // runtime while it is entered (`runtime/rng_seed.rs`).
            let old_rng = handle
                .seed_generator()
                .next_entry_seed()
                .map(|seed| ctx.rng.replace(Some(seed.rng())));
            Some(EnterRuntimeGuard {
                blocking: BlockingRegionGuard::new(),
                _handle: try_set_current(handle),
                old_rng,
            })
        }
    });
    if let Some(mut guard) = maybe_guard {
        return f(&mut guard.blocking);
    }
    panic!("{}", ENTER_RUNTIME_ERROR);
}

struct EnterRuntimeGuard {
    blocking: BlockingRegionGuard,
    /// Restores the previous current handle (dropped after the flag reset).
    _handle: Option<SetCurrentGuard>,
    /// The thread's generator before the runtime's replaced it, if it did.
    old_rng: Option<Option<FastRand>>,
}

impl Drop for EnterRuntimeGuard {
    fn drop(&mut self) {
        let _ = CONTEXT.try_with(|ctx| {
            assert!(ctx.rt.runtime.get().is_entered());
            ctx.rt.runtime.set(EnterRuntime::NotEntered);
            if let Some(old_rng) = self.old_rng {
                ctx.rng.set(old_rng);
            }
        });
    }
}

/// Whether this thread drives a runtime right now.
pub(crate) fn current_enter_context() -> EnterRuntime {
    CONTEXT
        .try_with(|ctx| ctx.rt.runtime.get())
        .unwrap_or(EnterRuntime::NotEntered)
}

/// Runs `f` as if the thread were not driving a runtime (for
/// `block_in_place`), restoring the previous state afterwards.
#[cfg(feature = "rt-multi-thread")]
pub(crate) fn exit_runtime<F: FnOnce() -> R, R>(f: F) -> R {
    struct Reset(EnterRuntime);
    impl Drop for Reset {
        fn drop(&mut self) {
            let _ = CONTEXT.try_with(|ctx| {
                assert!(
                    !ctx.rt.runtime.get().is_entered(),
                    "closure claimed permanent executor"
                );
                ctx.rt.runtime.set(self.0);
            });
        }
    }
    let was = CONTEXT.with(|ctx| {
        let e = ctx.rt.runtime.get();
        assert!(e.is_entered(), "asked to exit when not entered");
        ctx.rt.runtime.set(EnterRuntime::NotEntered);
        e
    });
    let _reset = Reset(was);
    f()
}

/// Proof that the thread may block (it drives no runtime).
#[derive(Debug)]
pub(crate) struct BlockingRegionGuard {
    _p: PhantomData<*const ()>,
}

/// `Some` if the current thread may block.
pub(crate) fn try_enter_blocking_region() -> Option<BlockingRegionGuard> {
    CONTEXT
        .try_with(|ctx| {
            if ctx.rt.runtime.get().is_entered() {
                None
            } else {
                Some(BlockingRegionGuard::new())
            }
        })
        // A destroyed thread-local means the thread drives no runtime.
        .unwrap_or_else(|_| Some(BlockingRegionGuard::new()))
}

impl BlockingRegionGuard {
    fn new() -> BlockingRegionGuard {
        BlockingRegionGuard { _p: PhantomData }
    }

    /// Blocks the thread on `f`; `Err` only if the thread-local parker is
    /// gone.
    pub(crate) fn block_on<F: Future>(
        &mut self,
        f: F,
    ) -> Result<F::Output, std::thread::AccessError> {
        let mut park = CachedParkThread::new();
        park.block_on(f)
    }
}
