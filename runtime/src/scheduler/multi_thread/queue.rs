//! The worker's local run queue: a fixed ring of 256 tasks, single
//! producer (its worker), multiple consumers (its worker pops, others
//! steal half).
//!
//! # Indices
//!
//! `tail` (u32) is written only by the owner. `head` packs two u32s:
//!
//! * `real`: the next slot to pop. Owner pops and stealers claims move it.
//! * `steal`: the first slot a stealer is still copying out. Equal to `real`
//!   when no steal is in flight.
//!
//! Slots in `steal..real` are being copied by a stealer and must not be
//! overwritten, so the owner counts free room from `steal`, not `real`.
//!
//! # Protocol
//!
//! * push (owner): if `tail - steal < CAP`, write the slot, then store
//!   `tail + 1` with Release (publishes the slot to stealers). Full: if a
//!   steal is in flight, push the one task to the injector; otherwise move
//!   half the queue plus the task to the injector (claimed with a CAS on
//!   `head`, which fails if a stealer raced us: then retry the push).
//! * pop (owner): CAS `head` forward by one from `real`; the slot is ours.
//! * steal (other worker): only if no steal is in flight (`steal == real`).
//!   1. CAS `head` from `(s, r)` to `(s, r + n)` with `n` half of what is
//!      there: the owner can no longer pop those slots.
//!   2. Copy the `n` slots into the stealer's own queue.
//!   3. CAS `head` to `(r', r')`, releasing the slots to the owner's pushes.
//!      (Retry if the owner popped meanwhile, which only moves `real`.)
//!
//! Orderings: the owner's Release store of `tail` and the stealer's Acquire
//! load of it order the slot writes before the stealer's reads; the
//! stealer's AcqRel CAS in step 3 orders its reads before the owner's later
//! writes of those slots (which follow an Acquire load of `head`).

use crate::loom::cell::UnsafeCell;
use crate::loom::sync::Arc;
use crate::loom::sync::atomic::{AtomicU32, AtomicU64, Ordering::*};
use crate::runtime::metrics::MetricsBatch;
use crate::scheduler::inject::Inject;
use crate::task::Notified;

use std::mem::MaybeUninit;
use std::ptr;

/// Capacity of the ring (smaller under loom to reach the full/overflow
/// paths in few steps).
#[cfg(not(loom))]
pub(crate) const LOCAL_QUEUE_CAPACITY: usize = 256;
#[cfg(loom)]
pub(crate) const LOCAL_QUEUE_CAPACITY: usize = 4;

const MASK: usize = LOCAL_QUEUE_CAPACITY - 1;

/// The owner's end.
pub(crate) struct Local<S: 'static> {
    inner: Arc<Inner<S>>,
}

/// Another worker's end.
pub(crate) struct Steal<S: 'static>(Arc<Inner<S>>);

pub(crate) struct Inner<S: 'static> {
    head: AtomicU64,
    tail: AtomicU32,
    buffer: Box<[UnsafeCell<MaybeUninit<Notified<S>>>; LOCAL_QUEUE_CAPACITY]>,
}

// SAFETY: slots are handed between threads only through the protocol in the
// module docs, which makes every access to a slot exclusive.
unsafe impl<S> Send for Inner<S> {}
// SAFETY: as above.
unsafe impl<S> Sync for Inner<S> {}

fn make_buffer<S>() -> Box<[UnsafeCell<MaybeUninit<Notified<S>>>; LOCAL_QUEUE_CAPACITY]> {
    let mut buffer = Vec::with_capacity(LOCAL_QUEUE_CAPACITY);
    for _ in 0..LOCAL_QUEUE_CAPACITY {
        buffer.push(UnsafeCell::new(MaybeUninit::uninit()));
    }
    match buffer.into_boxed_slice().try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("buffer has the right length"),
    }
}

/// A new queue: the owner's end and the stealers' end.
pub(crate) fn local<S: 'static>() -> (Steal<S>, Local<S>) {
    let inner = Arc::new(Inner {
        head: AtomicU64::new(0),
        tail: AtomicU32::new(0),
        buffer: make_buffer(),
    });
    let local = Local {
        inner: inner.clone(),
    };
    (Steal(inner), local)
}

fn unpack(n: u64) -> (u32, u32) {
    ((n >> 32) as u32, n as u32)
}

fn pack(steal: u32, real: u32) -> u64 {
    ((steal as u64) << 32) | real as u64
}

impl<S: 'static> Inner<S> {
    /// The owner's own view of `tail` (only the owner writes it).
    fn tail_owner(&self) -> u32 {
        // Relaxed: only this thread ever stores to `tail`.
        self.tail.load(Relaxed)
    }

    fn len(&self) -> u32 {
        let (_, head) = unpack(self.head.load(Acquire));
        let tail = self.tail.load(Acquire);
        tail.wrapping_sub(head)
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// # Safety
    /// The caller has exclusive access to the slot (protocol).
    unsafe fn write(&self, pos: u32, task: Notified<S>) {
        self.buffer[pos as usize & MASK].with_mut(|ptr| {
            // SAFETY: caller's contract.
            unsafe { ptr::write((*ptr).as_mut_ptr(), task) }
        });
    }

    /// # Safety
    /// The caller has exclusive access to an initialized slot (protocol).
    unsafe fn read(&self, pos: u32) -> Notified<S> {
        self.buffer[pos as usize & MASK].with(|ptr| {
            // SAFETY: caller's contract.
            unsafe { ptr::read((*ptr).as_ptr()) }
        })
    }
}

impl<S: 'static> Local<S> {
    /// Number of queued tasks.
    pub(crate) fn len(&self) -> usize {
        self.inner.len() as usize
    }

    /// Free slots the owner can fill without overflowing.
    pub(crate) fn remaining_slots(&self) -> usize {
        let (steal, _) = unpack(self.inner.head.load(Acquire));
        let tail = self.inner.tail_owner();
        LOCAL_QUEUE_CAPACITY - tail.wrapping_sub(steal) as usize
    }

    pub(crate) fn max_capacity(&self) -> usize {
        LOCAL_QUEUE_CAPACITY
    }

    /// Whether tasks are queued (some may be about to be stolen).
    pub(crate) fn has_tasks(&self) -> bool {
        !self.inner.is_empty()
    }

    /// Pushes tasks the caller knows fit (at most `remaining_slots()`).
    pub(crate) fn push_back(&mut self, tasks: impl ExactSizeIterator<Item = Notified<S>>) {
        let len = tasks.len();
        assert!(len <= LOCAL_QUEUE_CAPACITY);
        if len == 0 {
            return;
        }
        let (steal, _) = unpack(self.inner.head.load(Acquire));
        let mut tail = self.inner.tail_owner();
        // Only the owner pushes, and stealers only free slots: the room the
        // caller saw is still there.
        assert!(
            LOCAL_QUEUE_CAPACITY - (tail.wrapping_sub(steal) as usize) >= len,
            "queue is not full; tail = {tail}; head = {steal}"
        );
        for task in tasks {
            // SAFETY: `tail` is a free slot past every reader's range.
            unsafe { self.inner.write(tail, task) };
            tail = tail.wrapping_add(1);
        }
        // Release: publishes the slots to stealers.
        self.inner.tail.store(tail, Release);
    }

    /// Puts `task` in the worker's LIFO `slot` (which only the owner ever
    /// touches: it is not stealable). The task it displaces goes to the
    /// back of this queue, where thieves can take it. Returns `true` if a
    /// task was displaced: the caller then notifies a parked worker, so that
    /// the displaced task is not stuck behind a long poll of the LIFO task
    /// (loom model `lifo_displacement_is_stolen_by_a_parked_worker`).
    pub(crate) fn push_lifo(
        &mut self,
        slot: &mut Option<Notified<S>>,
        task: Notified<S>,
        inject: &Inject<S>,
        stats: &mut MetricsBatch,
    ) -> bool {
        match slot.replace(task) {
            Some(prev) => {
                self.push_back_or_overflow(prev, inject, stats);
                true
            }
            None => false,
        }
    }

    /// Pushes one task; on a full queue, moves half of it to `inject`.
    pub(crate) fn push_back_or_overflow(
        &mut self,
        mut task: Notified<S>,
        inject: &Inject<S>,
        stats: &mut MetricsBatch,
    ) {
        let tail = loop {
            let head = self.inner.head.load(Acquire);
            let (steal, real) = unpack(head);
            let tail = self.inner.tail_owner();
            if tail.wrapping_sub(steal) < LOCAL_QUEUE_CAPACITY as u32 {
                // There is room.
                break tail;
            } else if steal != real {
                // A stealer is copying out half the queue: room soon. Hand
                // this one task to the global queue instead of waiting.
                inject.push(task);
                return;
            } else {
                // Full with no steal in flight: move half to the injector.
                match self.push_overflow(task, real, tail, inject, stats) {
                    Ok(()) => return,
                    // A stealer took tasks meanwhile: retry the fast path.
                    Err(v) => task = v,
                }
            }
        };
        // SAFETY: `tail` is a free slot (checked against `steal` above).
        unsafe { self.inner.write(tail, task) };
        // Release: publishes the slot to stealers.
        self.inner.tail.store(tail.wrapping_add(1), Release);
    }

    #[inline(never)]
    fn push_overflow(
        &mut self,
        task: Notified<S>,
        head: u32,
        tail: u32,
        inject: &Inject<S>,
        stats: &mut MetricsBatch,
    ) -> Result<(), Notified<S>> {
        const NUM_TASKS_TAKEN: u32 = (LOCAL_QUEUE_CAPACITY / 2) as u32;
        assert_eq!(
            tail.wrapping_sub(head) as usize,
            LOCAL_QUEUE_CAPACITY,
            "queue is not full; tail = {tail}; head = {head}"
        );
        let prev = pack(head, head);
        // Claim the first half. If a stealer moved `head`, back off: the
        // queue is no longer full.
        if self
            .inner
            .head
            .compare_exchange(
                prev,
                pack(
                    head.wrapping_add(NUM_TASKS_TAKEN),
                    head.wrapping_add(NUM_TASKS_TAKEN),
                ),
                Release,
                Relaxed,
            )
            .is_err()
        {
            return Err(task);
        }
        // The claimed slots are ours: move them out, oldest first, then the
        // new task.
        let inner = &*self.inner;
        let batch = (0..NUM_TASKS_TAKEN).map(|i| {
            // SAFETY: slots `head..head + NUM_TASKS_TAKEN` were claimed by
            // the CAS above and are initialized.
            unsafe { inner.read(head.wrapping_add(i)) }
        });
        inject.push_batch(batch.chain(std::iter::once(task)));
        stats.incr_overflow_count();
        Ok(())
    }

    /// Pops the oldest task.
    pub(crate) fn pop(&mut self) -> Option<Notified<S>> {
        let mut head = self.inner.head.load(Acquire);
        let idx = loop {
            let (steal, real) = unpack(head);
            // Only the owner writes `tail`.
            let tail = self.inner.tail_owner();
            if real == tail {
                return None;
            }
            let next_real = real.wrapping_add(1);
            // A steal in flight keeps its `steal` index.
            let next = if steal == real {
                pack(next_real, next_real)
            } else {
                assert_ne!(steal, next_real);
                pack(steal, next_real)
            };
            // AcqRel: claims the slot against stealers' claims.
            match self
                .inner
                .head
                .compare_exchange(head, next, AcqRel, Acquire)
            {
                Ok(_) => break real,
                Err(actual) => head = actual,
            }
        };
        // SAFETY: the CAS claimed slot `idx`, which the owner wrote earlier.
        Some(unsafe { self.inner.read(idx) })
    }
}

impl<S: 'static> Drop for Local<S> {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            assert!(self.pop().is_none(), "queue not empty");
        }
    }
}

impl<S: 'static> Steal<S> {
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of queued tasks, as seen from another thread (a moment
    /// later it may differ; `tail` only grows, so it is never negative).
    pub(crate) fn len(&self) -> usize {
        self.0.len() as usize
    }

    /// Steals half of this queue into `dst`; returns one of the stolen tasks
    /// to run at once.
    pub(crate) fn steal_into(
        &self,
        dst: &mut Local<S>,
        dst_stats: &mut MetricsBatch,
    ) -> Option<Notified<S>> {
        // Only steal into a queue with room for half of ours.
        let dst_tail = dst.inner.tail_owner();
        let (steal, _) = unpack(dst.inner.head.load(Acquire));
        if dst_tail.wrapping_sub(steal) > LOCAL_QUEUE_CAPACITY as u32 / 2 {
            return None;
        }

        let mut n = self.steal_into2(dst, dst_tail);
        if n == 0 {
            return None;
        }
        dst_stats.incr_steal_count(n as u16);
        dst_stats.incr_steal_operations();

        // Keep the last stolen task to run now.
        n -= 1;
        let ret_pos = dst_tail.wrapping_add(n);
        // SAFETY: `steal_into2` initialized `dst_tail..dst_tail + n + 1`,
        // which only we (the owner of `dst`) may touch.
        let ret = unsafe { dst.inner.read(ret_pos) };
        if n == 0 {
            return Some(ret);
        }
        // Release: publishes the stolen slots to stealers of `dst`.
        dst.inner.tail.store(dst_tail.wrapping_add(n), Release);
        Some(ret)
    }

    /// Moves half of this queue into `dst`'s slots from `dst_tail` on
    /// (without publishing them). Returns how many.
    fn steal_into2(&self, dst: &mut Local<S>, dst_tail: u32) -> u32 {
        let mut prev_packed = self.0.head.load(Acquire);
        let mut next_packed;

        let n = loop {
            let (src_head_steal, src_head_real) = unpack(prev_packed);
            let src_tail = self.0.tail.load(Acquire);

            // Another thread is already stealing from this queue.
            if src_head_steal != src_head_real {
                return 0;
            }

            // Steal half, rounded up.
            let n = src_tail.wrapping_sub(src_head_real);
            let n = n - n / 2;
            if n == 0 {
                return 0;
            }

            let steal_to = src_head_real.wrapping_add(n);
            assert_ne!(src_head_steal, steal_to);
            next_packed = pack(src_head_steal, steal_to);

            // Claim the tasks. AcqRel: Acquire orders the slot reads below
            // after the owner's writes; Release publishes the claim.
            match self
                .0
                .head
                .compare_exchange(prev_packed, next_packed, AcqRel, Acquire)
            {
                Ok(_) => break n,
                Err(actual) => prev_packed = actual,
            }
        };

        assert!(n <= LOCAL_QUEUE_CAPACITY as u32 / 2, "actual = {n}");

        let (first, _) = unpack(next_packed);

        // Copy the claimed tasks.
        for i in 0..n {
            let src_pos = first.wrapping_add(i);
            let dst_pos = dst_tail.wrapping_add(i);
            // SAFETY: we claimed `first..first + n` of the source (its owner
            // will not overwrite them until the CAS below); the destination
            // slots are free and only we, its owner, write them.
            unsafe {
                let task = self.0.read(src_pos);
                dst.inner.write(dst_pos, task);
            }
        }

        // Release the claimed slots to the source's owner.
        let mut prev_packed = next_packed;
        loop {
            let head = unpack(prev_packed).1;
            next_packed = pack(head, head);
            // AcqRel: our reads of the slots happen before the owner reuses
            // them.
            match self
                .0
                .head
                .compare_exchange(prev_packed, next_packed, AcqRel, Acquire)
            {
                Ok(_) => return n,
                Err(actual) => {
                    // The owner popped meanwhile (moved `real` only).
                    let (actual_steal, actual_real) = unpack(actual);
                    assert_ne!(actual_steal, actual_real);
                    prev_packed = actual;
                }
            }
        }
    }
}

impl<S: 'static> Clone for Steal<S> {
    fn clone(&self) -> Steal<S> {
        Steal(self.0.clone())
    }
}
