//! The bounded data path: a lock-free ring of slots with per-slot sequence
//! numbers (Dmitry Vyukov's bounded MPMC queue).
//!
//! # Indices and stamps
//!
//! `head` and `tail` are *indices*: a position in the buffer in the low bits
//! and a lap count above them. With `mark_bit` the smallest power of two
//! greater than the capacity and `one_lap = 2 * mark_bit`, an index is
//! `lap * one_lap + position`; the bit `mark_bit` itself is free and, in
//! `tail`, means *closed*.
//!
//! Every slot carries a `stamp`, also an index:
//!
//! * `stamp == tail`: the slot is free for the sender that claims `tail`.
//! * `stamp == head + 1`: the slot holds the value for the receiver that
//!   claims `head`.
//!
//! A sender claims `tail` with a CAS, writes the value, then publishes it by
//! storing `stamp = tail + 1` (Release). A receiver claims `head` with a CAS,
//! reads the value, then frees the slot for the next lap by storing `stamp =
//! head + one_lap` (Release). The Acquire load of the stamp before a claim
//! pairs with those stores, so the value (or the slot's emptiness) is
//! visible to whoever claims it next.
//!
//! Emptiness and fullness are decided by comparing the other end after a
//! `SeqCst` fence; a claimed slot whose stamp is not yet published means a
//! sender or receiver is between its CAS and its stamp store, and we spin
//! for that short window.
//!
//! # Waiting callers
//!
//! The fence before the full/empty comparison makes `Full` and `Empty`
//! exact: `try_send` and `try_recv` report them to the user. A future
//! that gets `Full` or `Empty` does not report it: it registers as a
//! waiter, issues its own `fence(SeqCst)` and tries again (the Dekker
//! protocol of `waiters`), so a stale answer before it registers costs at
//! most a registration, and the try after its fence needs no second one.
//! The futures use `push_with::<false>` / `pop_with::<false>`, which skip
//! the fence: two fewer fences per wait (four of the ~26 fences and locked
//! instructions a `bounded(1)` message cost before).
//!
//! Closing sets `mark_bit` in `tail` with `fetch_or`: a push that loses the
//! race to it sees the bit in its CAS and fails, so no value is accepted
//! after a close is observed; values pushed before it are still received.

use crate::bridge::loom::cell::UnsafeCell;
use crate::bridge::loom::sync::atomic::{AtomicUsize, Ordering::*, fence};
use crate::bridge::{Gap, Spaced};
use crate::mpmc::backoff::{Backoff, SHORT_WAIT_MAX_CAP};

use std::mem::{self, MaybeUninit};

/// Why a push failed.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum PushError {
    Full,
    Closed,
}

/// Why a pop failed.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum PopError {
    Empty,
    Closed,
}

struct Slot<T> {
    stamp: AtomicUsize,
    value: UnsafeCell<MaybeUninit<T>>,
}

/// The bounded ring (see the module docs).
///
/// `#[repr(C)]`, for the gaps (`bridge::Spaced`). The fields every
/// operation reads and nothing writes come first, beside what precedes
/// the ring (its channel's flavor tag, also read by every operation and
/// never written), so that the two take one pair of lines, not two; then
/// a gap. Those fields, the receivers' `head`, the senders' `tail` and
/// what follows the ring (its channel's waiters) share no pair of cache
/// lines.
#[repr(C)]
pub(crate) struct Ring<T> {
    buffer: Box<[Slot<T>]>,
    cap: usize,
    mark_bit: usize,
    one_lap: usize,
    _gap: Gap,
    head: Spaced<AtomicUsize>,
    tail: Spaced<AtomicUsize>,
}

// SAFETY: values move between threads through the ring (so `T: Send`), and
// each slot's value is accessed only by the one thread that claimed it.
unsafe impl<T: Send> Send for Ring<T> {}
// SAFETY: as above; shared access only goes through the claim protocol.
unsafe impl<T: Send> Sync for Ring<T> {}

impl<T> Ring<T> {
    /// A ring of `cap` slots; `cap >= 1`.
    ///
    /// # Panics
    ///
    /// If the index has no room for `cap` (`one_lap` past `usize::MAX`) or
    /// the slots cannot be allocated: a panic the caller can catch, where
    /// an infallible allocation would abort the process.
    #[track_caller]
    pub(crate) fn new(cap: usize) -> Self {
        assert!(cap >= 1, "ring capacity must be positive");
        let mark_bit = cap
            .checked_add(1)
            .and_then(usize::checked_next_power_of_two)
            .filter(|&bit| bit.checked_mul(2).is_some());
        let mut buffer = Vec::new();
        let (Some(mark_bit), Ok(())) = (mark_bit, buffer.try_reserve_exact(cap)) else {
            panic!(
                "channel capacity {cap} is too large: its {cap} slots of {} bytes \
                 are allocated up front (an unbounded channel allocates as it fills)",
                mem::size_of::<Slot<T>>()
            );
        };
        let one_lap = mark_bit * 2;
        buffer.extend((0..cap).map(|i| Slot {
            stamp: AtomicUsize::new(i),
            value: UnsafeCell::new(MaybeUninit::uninit()),
        }));
        let buffer = buffer.into_boxed_slice();
        Ring {
            buffer,
            cap,
            mark_bit,
            one_lap,
            _gap: Gap::new(),
            head: Spaced::new(AtomicUsize::new(0)),
            tail: Spaced::new(AtomicUsize::new(0)),
        }
    }

    pub(crate) fn capacity(&self) -> usize {
        self.cap
    }

    /// The slot at `index`'s position. Unchecked: on the hot path of every
    /// push and pop the bounds check cost measurable instructions.
    #[inline(always)]
    fn slot(&self, index: usize) -> &Slot<T> {
        let pos = index & (self.mark_bit - 1);
        debug_assert!(pos < self.cap, "an index's position is below the capacity");
        // SAFETY: `pos < cap == buffer.len()`: `next` wraps at `cap`.
        unsafe { self.buffer.get_unchecked(pos) }
    }

    /// The slot at `index`'s position and the index after `index`, both
    /// computed before the caller's Acquire load of the stamp (after it the
    /// ring's fields would be read again): for the single attempts, which
    /// always use both. The retry loops compute `next` only for a claim.
    #[inline(always)]
    fn locate(&self, index: usize) -> (&Slot<T>, usize) {
        (self.slot(index), self.next(index))
    }

    /// The index after `index`.
    #[inline(always)]
    fn next(&self, index: usize) -> usize {
        let pos = index & (self.mark_bit - 1);
        if pos + 1 < self.cap {
            index + 1
        } else {
            (index & !(self.one_lap - 1)).wrapping_add(self.one_lap)
        }
    }

    /// Writes `value` into the slot of `tail` and publishes it.
    ///
    /// # Safety
    ///
    /// The caller claimed `tail` (its CAS moved `tail` past it) and saw the
    /// slot free (`stamp == tail`).
    #[inline(always)]
    unsafe fn fill(slot: &Slot<T>, tail: usize, value: T) {
        // SAFETY: the slot is ours until we publish the stamp, and free.
        slot.value.with_mut(|p| unsafe { (*p).write(value) });
        // Release: publishes the value to the receiver that sees this stamp.
        slot.stamp.store(tail + 1, Release);
    }

    /// Reads the value out of the slot of `head` and frees the slot for the
    /// next lap.
    ///
    /// # Safety
    ///
    /// The caller claimed `head` (its CAS moved `head` past it) and saw the
    /// value published (`stamp == head + 1`).
    #[inline(always)]
    unsafe fn empty(&self, slot: &Slot<T>, head: usize) -> T {
        // SAFETY: the slot is ours until we free it, and holds a value.
        let value = slot.value.with(|p| unsafe { (*p).assume_init_read() });
        // Release: our read happens before the next lap's write here.
        slot.stamp.store(head.wrapping_add(self.one_lap), Release);
        value
    }

    /// One attempt at [`push_with`](Self::push_with) for the common case
    /// (the slot at `tail` is free and nobody else claims it meanwhile).
    /// `Err` gives the value back whenever `push_with` would have to look
    /// further: full, closed, or a lost race. Small enough to inline into
    /// `send`.
    #[inline(always)]
    pub(crate) fn try_push(&self, value: T) -> Result<usize, T> {
        let tail = self.tail.load(Relaxed);
        let (slot, next) = self.locate(tail);
        // Acquire and SeqCst: as in `push_with`. A closed `tail` (mark bit set)
        // never equals a stamp, so it fails here.
        if slot.stamp.load(Acquire) != tail
            || self
                .tail
                .compare_exchange_weak(tail, next, SeqCst, Relaxed)
                .is_err()
        {
            return Err(value);
        }
        // SAFETY: the CAS claimed `tail`, whose slot is free.
        unsafe { Self::fill(slot, tail, value) };
        Ok(tail)
    }

    /// One attempt at [`pop_with`](Self::pop_with): `None` whenever it
    /// would have to look further (empty, closed, or a lost race).
    #[inline(always)]
    pub(crate) fn try_pop(&self) -> Option<T> {
        let head = self.head.load(Relaxed);
        let (slot, next) = self.locate(head);
        // Acquire and SeqCst: as in `pop_with`.
        if slot.stamp.load(Acquire) != head + 1
            || self
                .head
                .compare_exchange_weak(head, next, SeqCst, Relaxed)
                .is_err()
        {
            return None;
        }
        // SAFETY: the CAS claimed `head`, whose slot holds a published value.
        Some(unsafe { self.empty(slot, head) })
    }

    /// Waits for a peer that holds the boundary slot (see `backoff`).
    #[inline(always)]
    fn wait_at_boundary(&self, backoff: &mut Backoff) {
        if (2..=SHORT_WAIT_MAX_CAP).contains(&self.cap) {
            backoff.spin_short();
        } else {
            backoff.spin();
        }
    }

    /// Pushes `value`, or gives it back with the reason. On success returns
    /// the index the value was stored at (its ticket). With `EXACT` false
    /// (a sender that waits when the ring is full) `Full` may be stale
    /// ("Waiting callers" in the module docs).
    #[inline(always)]
    pub(crate) fn push_with<const EXACT: bool>(&self, value: T) -> Result<usize, (T, PushError)> {
        let mut backoff = Backoff::new();
        let mut tail = self.tail.load(Relaxed);
        loop {
            if tail & self.mark_bit != 0 {
                return Err((value, PushError::Closed));
            }
            let slot = self.slot(tail);
            // Acquire: pairs with the receiver's Release store that freed
            // the slot, so its read of the old value happened before our
            // write.
            let stamp = slot.stamp.load(Acquire);
            if stamp == tail {
                // SeqCst: the claim takes part in the emptiness check of
                // `pop_with` (its fence and tail load).
                match self
                    .tail
                    .compare_exchange_weak(tail, self.next(tail), SeqCst, Relaxed)
                {
                    Ok(_) => {
                        // SAFETY: the CAS claimed `tail`, whose slot is free.
                        unsafe { Self::fill(slot, tail, value) };
                        return Ok(tail);
                    }
                    Err(t) => {
                        tail = t;
                        backoff.spin();
                    }
                }
            } else if stamp.wrapping_add(self.one_lap) == tail + 1 {
                // The slot still holds last lap's value: full, unless a
                // receiver has claimed it and is reading it.
                if EXACT {
                    fence(SeqCst);
                }
                let head = self.head.load(Relaxed);
                if head.wrapping_add(self.one_lap) == tail {
                    return Err((value, PushError::Full));
                }
                // The receiver's step is short: a small ring looks again
                // soon. In a large ring many threads wait here at once and
                // the CAS backoff's long waits keep them off the peer's
                // lines (the table in `backoff`: on 16 cores short waits
                // halve the time at capacity 3 and nearly double it at
                // 1024).
                self.wait_at_boundary(&mut backoff);
                tail = self.tail.load(Relaxed);
            } else {
                // Our `tail` is stale: the slot already moved on (a claimed
                // but unpublished slot still shows `stamp == tail` and fails
                // the CAS above instead). Reload at once; wait only if the
                // reload tells us nothing new.
                let t = self.tail.load(Relaxed);
                if t == tail {
                    backoff.snooze();
                }
                tail = t;
            }
        }
    }

    /// Pops the oldest value. With `EXACT` false (a receiver that waits
    /// when the ring is empty) `Empty` may be stale ("Waiting callers" in
    /// the module docs).
    #[inline(always)]
    pub(crate) fn pop_with<const EXACT: bool>(&self) -> Result<T, PopError> {
        let mut backoff = Backoff::new();
        let mut head = self.head.load(Relaxed);
        loop {
            let slot = self.slot(head);
            // Acquire: pairs with the sender's Release stamp store.
            let stamp = slot.stamp.load(Acquire);
            if stamp == head + 1 {
                match self
                    .head
                    .compare_exchange_weak(head, self.next(head), SeqCst, Relaxed)
                {
                    Ok(_) => {
                        // SAFETY: the CAS claimed `head`, whose slot holds a
                        // published value.
                        return Ok(unsafe { self.empty(slot, head) });
                    }
                    Err(h) => {
                        head = h;
                        backoff.spin();
                    }
                }
            } else if stamp == head {
                // Nothing published here yet: empty, unless a sender has
                // claimed the slot and is writing it.
                if EXACT {
                    fence(SeqCst);
                }
                let tail = self.tail.load(Relaxed);
                if tail & !self.mark_bit == head {
                    return Err(if tail & self.mark_bit != 0 {
                        PopError::Closed
                    } else {
                        PopError::Empty
                    });
                }
                // As in `push_with`.
                self.wait_at_boundary(&mut backoff);
                head = self.head.load(Relaxed);
            } else {
                // Our `head` is stale (as in `push_with`): reload at once.
                let h = self.head.load(Relaxed);
                if h == head {
                    backoff.snooze();
                }
                head = h;
            }
        }
    }

    /// Takes back the value pushed at `ticket`, if no receiver has claimed
    /// it yet (the rendezvous sender's cancellation).
    pub(crate) fn unpush(&self, ticket: usize) -> Option<T> {
        let slot = self.slot(ticket);
        // Acquire: as in `pop_with`.
        if slot.stamp.load(Acquire) != ticket + 1 {
            return None;
        }
        self.head
            .compare_exchange(ticket, self.next(ticket), SeqCst, Relaxed)
            .ok()?;
        // SAFETY: the CAS claimed `ticket` as a receiver would; its value
        // is published (stamp checked above) and nobody took it.
        Some(unsafe { self.empty(slot, ticket) })
    }

    /// Whether the value pushed at `ticket` has been claimed by a receiver.
    pub(crate) fn is_taken(&self, ticket: usize) -> bool {
        // Acquire: pairs with the receiver's head CAS.
        self.head.load(Acquire) != ticket
    }

    /// Marks the ring closed; true if this call closed it.
    pub(crate) fn close(&self) -> bool {
        // SeqCst: takes part in the same fence-based checks as a push.
        self.tail.fetch_or(self.mark_bit, SeqCst) & self.mark_bit == 0
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.tail.load(SeqCst) & self.mark_bit != 0
    }

    /// Number of values in the ring (a snapshot).
    pub(crate) fn len(&self) -> usize {
        loop {
            let tail = self.tail.load(SeqCst);
            let head = self.head.load(SeqCst);
            // A consistent pair: tail did not move while we read head.
            if self.tail.load(SeqCst) == tail {
                let hix = head & (self.mark_bit - 1);
                let tix = tail & (self.mark_bit - 1);
                return if hix < tix {
                    tix - hix
                } else if hix > tix {
                    self.cap - hix + tix
                } else if tail & !self.mark_bit == head {
                    0
                } else {
                    self.cap
                };
            }
        }
    }
}

impl<T> Drop for Ring<T> {
    fn drop(&mut self) {
        // Drop the values still queued: from head to tail.
        // Relaxed: `&mut self` already synchronizes with every handle.
        let mut head = self.head.load(Relaxed);
        let tail = self.tail.load(Relaxed) & !self.mark_bit;
        while head != tail {
            let slot = self.slot(head);
            // SAFETY: exclusive access (`&mut self`); positions between head
            // and tail hold published values (every push completed, since
            // all handles are gone).
            slot.value.with_mut(|p| unsafe { (*p).assume_init_drop() });
            head = self.next(head);
        }
    }
}

#[cfg(all(test, not(loom)))]
mod layout_tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    /// The gaps of the struct's docs, and no over-alignment.
    #[test]
    fn the_positions_are_kept_apart() {
        let gap = size_of::<Gap>();
        let word = size_of::<AtomicUsize>();
        let head = offset_of!(Ring<u64>, head);
        let tail = offset_of!(Ring<u64>, tail);
        for shared in [
            offset_of!(Ring<u64>, buffer),
            offset_of!(Ring<u64>, cap),
            offset_of!(Ring<u64>, mark_bit),
            offset_of!(Ring<u64>, one_lap),
        ] {
            assert!(head >= shared + word + gap);
        }
        assert!(tail >= head + word + gap);
        assert!(size_of::<Ring<u64>>() >= tail + word + gap);
        assert!(align_of::<Ring<u64>>() <= 8);
    }
}
