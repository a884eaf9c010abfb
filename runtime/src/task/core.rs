//! The memory layout of a task: one allocation per task.
//!
//! ```text
//! Cell<T, S>  (#[repr(C)], one Box)
//! ├── Header   hot, type-erased: state word, queue link, vtable, id, spawn
//! │            location
//! ├── Core     the scheduler handle and the Stage (future | output | consumed)
//! └── Trailer  cold: owned-tasks list links, join waker
//! ```
//!
//! A type-erased pointer to the `Header` is what queues, wakers and handles
//! hold; the vtable in the header knows the concrete `T` and `S` and the
//! offsets of `Core` and `Trailer`.
//!
//! # Who may touch what
//!
//! * `Header::state`: anyone, atomically (see `state.rs`).
//! * `Header::queue_next`: whoever owns the `Notified` that sits in an
//!   intrusive queue (the global injector), under that queue's lock.
//! * `Header::id`, `Header::spawned_at`: written at allocation, read-only
//!   after (the task hooks' `TaskMeta`).
//! * `Core::stage`: the holder of the RUNNING bit, or after COMPLETE the
//!   `JoinHandle` (if interested) / the completing thread (if not).
//! * `Trailer::owned`: the owned-tasks list, under its shard's lock.
//! * `Trailer::waker`: see JOIN_WAKER in `state.rs`.

use crate::loom::cell::UnsafeCell;
use crate::task::Id;
use crate::task::error::JoinError;
use crate::task::raw::{self, Vtable};
use crate::task::state::State;
use crate::task::{Schedule, SpawnLocation, TaskIdGuard};
use crate::util::linked_list;

use std::future::Future;
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{Context, Poll, Waker};

/// The whole task allocation.
#[repr(C)]
pub(super) struct Cell<T: Future, S> {
    pub(super) header: Header,
    pub(super) core: Core<T, S>,
    pub(super) trailer: Trailer,
}

/// The part of the task every queue and waker touches, independent of `T`.
#[repr(C)]
pub(crate) struct Header {
    pub(super) state: State,
    /// Link for the intrusive global run queue.
    pub(super) queue_next: UnsafeCell<Option<NonNull<Header>>>,
    pub(super) vtable: &'static Vtable,
    pub(super) id: Id,
    /// Where the task was spawned (`TaskMeta::spawned_at`).
    pub(super) spawned_at: SpawnLocation,
    /// The task span's id (`util::trace`), for its wakers' events.
    #[cfg(feature = "tracing")]
    pub(super) tracing_id: Option<u64>,
}

// SAFETY: the non-atomic fields follow the ownership rules in the module
// docs, which make every access exclusive.
unsafe impl Send for Header {}
// SAFETY: as above.
unsafe impl Sync for Header {}

/// The typed part: scheduler handle and stage.
pub(super) struct Core<T: Future, S> {
    pub(super) scheduler: S,
    pub(super) stage: CoreStage<T>,
}

pub(super) struct CoreStage<T: Future> {
    stage: UnsafeCell<Stage<T>>,
}

/// What the task holds right now.
pub(super) enum Stage<T: Future> {
    Running(T),
    Finished(Result<T::Output, JoinError>),
    Consumed,
}

/// Cold fields, at the end of the allocation.
pub(super) struct Trailer {
    /// Links of the owned-tasks list.
    pub(super) owned: linked_list::Pointers<Header>,
    /// Waker of the task awaiting the `JoinHandle`.
    pub(super) waker: UnsafeCell<Option<Waker>>,
}

impl<T: Future, S: Schedule> Cell<T, S> {
    /// Allocates a new task in its initial state.
    pub(super) fn new(
        future: T,
        scheduler: S,
        id: Id,
        spawned_at: SpawnLocation,
    ) -> Box<Cell<T, S>> {
        Box::new(Cell {
            header: Header {
                state: State::new(),
                queue_next: UnsafeCell::new(None),
                vtable: raw::vtable::<T, S>(),
                #[cfg(feature = "tracing")]
                tracing_id: crate::util::trace::take_spawning(),
                id,
                spawned_at,
            },
            core: Core {
                scheduler,
                stage: CoreStage {
                    stage: UnsafeCell::new(Stage::Running(future)),
                },
            },
            trailer: Trailer {
                owned: linked_list::Pointers::new(),
                waker: UnsafeCell::new(None),
            },
        })
    }
}

impl<T: Future> CoreStage<T> {
    /// Polls the future.
    ///
    /// # Safety
    /// The caller holds RUNNING, which makes this access exclusive.
    pub(super) unsafe fn poll(&self, id: Id, mut cx: Context<'_>) -> Poll<T::Output> {
        let res = self.stage.with_mut(|ptr| {
            // SAFETY: exclusive access (caller holds RUNNING).
            let future = match unsafe { &mut *ptr } {
                Stage::Running(future) => future,
                _ => unreachable!("unexpected stage"),
            };
            // SAFETY: the future lives inside the task allocation, which is
            // never moved, and it is dropped in place.
            let future = unsafe { Pin::new_unchecked(future) };
            let _guard = TaskIdGuard::enter(id);
            future.poll(&mut cx)
        });
        if res.is_ready() {
            // Drop the future now, while the task id is still set.
            // SAFETY: exclusive access (caller holds RUNNING).
            unsafe { self.drop_future_or_output(id) };
        }
        res
    }

    /// Drops whatever the stage holds.
    ///
    /// # Safety
    /// Exclusive access to the stage (see the module docs).
    pub(super) unsafe fn drop_future_or_output(&self, id: Id) {
        // SAFETY: forwarded.
        unsafe { self.set_stage(id, Stage::Consumed) }
    }

    /// Stores the output.
    ///
    /// # Safety
    /// Exclusive access to the stage.
    pub(super) unsafe fn store_output(&self, id: Id, output: Result<T::Output, JoinError>) {
        // SAFETY: forwarded.
        unsafe { self.set_stage(id, Stage::Finished(output)) }
    }

    /// Takes the output out, leaving `Consumed`.
    ///
    /// # Safety
    /// Exclusive access to the stage, and the task is complete.
    pub(super) unsafe fn take_output(&self) -> Result<T::Output, JoinError> {
        self.stage.with_mut(|ptr| {
            // SAFETY: exclusive access (caller's contract).
            match std::mem::replace(unsafe { &mut *ptr }, Stage::Consumed) {
                Stage::Finished(output) => output,
                _ => panic!("JoinHandle polled after completion"),
            }
        })
    }

    /// # Safety
    /// Exclusive access to the stage.
    unsafe fn set_stage(&self, id: Id, stage: Stage<T>) {
        // The old stage's destructor may look at `task::id()`.
        let _guard = TaskIdGuard::enter(id);
        // Assign in place: the old stage (a pinned future) is dropped where
        // it lives, never moved first. Moving it out before dropping it
        // would break `Pin`'s drop guarantee: an intrusive entry (a timer,
        // a semaphore waiter) unlinks itself by its address, and a moved
        // copy unlinks nothing, leaving a dangling node in the list. Panic
        // safety comes from assignment's drop-and-replace semantics: if the
        // old value's destructor panics, the new value is still written
        // during unwinding, so nothing is dropped twice.
        // SAFETY: exclusive access to the stage (the caller's contract).
        self.stage.with_mut(|ptr| unsafe { *ptr = stage });
    }
}

impl Header {
    /// The task id, readable by anyone holding a reference.
    pub(crate) fn id(&self) -> Id {
        self.id
    }

    /// Where the task was spawned.
    pub(crate) fn spawned_at(&self) -> SpawnLocation {
        self.spawned_at
    }

    /// The queue link, for the global injector.
    ///
    /// # Safety
    /// The caller owns the `Notified` and holds the queue's lock.
    pub(crate) unsafe fn set_next(&self, next: Option<NonNull<Header>>) {
        // SAFETY: caller's contract.
        self.queue_next.with_mut(|ptr| unsafe { *ptr = next });
    }

    /// # Safety
    /// As `set_next`.
    pub(crate) unsafe fn get_next(&self) -> Option<NonNull<Header>> {
        // SAFETY: caller's contract.
        self.queue_next.with(|ptr| unsafe { *ptr })
    }

    /// The trailer of the task that `me` heads.
    ///
    /// # Safety
    /// `me` must point to the header of a live task.
    pub(super) unsafe fn get_trailer(me: NonNull<Header>) -> NonNull<Trailer> {
        // SAFETY: `trailer_offset` is the offset of the trailer in this
        // task's `Cell`, and the cell is live.
        unsafe {
            let offset = me.as_ref().vtable.trailer_offset;
            me.cast::<u8>().add(offset).cast::<Trailer>()
        }
    }
}

impl Trailer {
    /// # Safety
    /// The caller owns the waker field (JOIN_WAKER protocol).
    pub(super) unsafe fn set_waker(&self, waker: Option<Waker>) {
        // SAFETY: caller's contract.
        self.waker.with_mut(|ptr| unsafe { *ptr = waker });
    }

    /// # Safety
    /// The caller may read the waker field (JOIN_WAKER protocol).
    pub(super) unsafe fn will_wake(&self, waker: &Waker) -> bool {
        // SAFETY: caller's contract.
        self.waker.with(|ptr| unsafe {
            (*ptr)
                .as_ref()
                .expect("join waker missing")
                .will_wake(waker)
        })
    }

    /// # Safety
    /// The task is complete and JOIN_WAKER is set.
    pub(super) unsafe fn wake_join(&self) {
        // SAFETY: caller's contract.
        self.waker.with(|ptr| match unsafe { &*ptr } {
            Some(waker) => waker.wake_by_ref(),
            None => panic!("join waker missing"),
        });
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn header_stays_small() {
        // Hot fields of every queue operation fit in one cache line.
        assert!(std::mem::size_of::<Header>() <= 64);
    }

    // The `tracing` feature adds a span id to the header and a span to the
    // future: such tasks are past the fast bins whatever the header holds.
    #[test]
    #[cfg(all(target_pointer_width = "64", not(feature = "tracing")))]
    fn small_task_fits_malloc_fast_bins() {
        // A task of a small future (two captured handles, as in the
        // `spawn_many_*` benches) stays within 120 bytes: glibc serves
        // requests up to 120 bytes from its fast bins, freed by another
        // thread without the arena lock. Past it, every task a worker steals
        // and frees contends with the spawner's `malloc` on that lock
        // (`benches/NOTES.md`, "Runtime": twice the spawn time).
        type S = std::sync::Arc<crate::scheduler::multi_thread::Handle>;
        let (tx, _rx) = std::sync::mpsc::sync_channel::<()>(1);
        let rem = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(1));
        let future = async move {
            let _ = (&tx, &rem);
        };
        fn cell_size<F: Future>(_: &F) -> usize {
            std::mem::size_of::<Cell<F, S>>()
        }
        assert!(cell_size(&future) <= 120, "{}", cell_size(&future));
    }
}
