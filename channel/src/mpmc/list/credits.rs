//! Credits: a count kept in a list's `tail` index beside the position.
//!
//! `sync::mpsc`'s bounded channel keeps its free room here (see
//! `mpsc/chan.rs`, "Credits"), so a send takes a unit of room and claims
//! its position in one compare-exchange. The index of such a list (`SHIFT
//! == SHIFT_CREDITS`) is, from the low bit up: the list's closed flag
//! (`MARK_BIT`, never set by `sync::mpsc`), the credit count, `NO_CREDIT`,
//! then the position. A claim adds to the position only and a credit's
//! take or return to the count only, each in a CAS that sees the other's
//! changes; the count never carries into `NO_CREDIT` (it stays at or under
//! the capacity it started from, which fits: the caller's to keep).
//!
//! Positions take `64 - SHIFT_CREDITS` bits and wrap there, the head's the
//! same way (it shifts by the same amount); `LAP` divides that power of
//! two (outside loom, whose models never get near it), so a position's
//! block offset and the head-tail comparisons hold across the wrap.

use super::{List, MAX_CREDITS, SHIFT_CREDITS};
use crate::bridge::loom::sync::atomic::Ordering::*;

/// Credits (module docs).
impl<T, const SHIFT: usize> List<T, SHIFT> {
    /// One credit, in the index.
    const CREDIT_ONE: usize = 1 << 1;
    /// Index bit: no credit may be added or taken (the channel is closed,
    /// or has no credits at all). Set only with the count at zero, which
    /// then stays there.
    const NO_CREDIT: usize = 1 << (SHIFT - 1);
    /// Index bits: the credit count.
    const CREDITS: usize = Self::NO_CREDIT.wrapping_sub(Self::CREDIT_ONE);

    /// A list whose `tail` starts with `credits` credits (`None`: never
    /// any; the channel is unbounded, or its capacity is over
    /// [`MAX_CREDITS`]).
    pub(crate) fn with_credits(credits: Option<usize>) -> Self {
        const { assert!(SHIFT == SHIFT_CREDITS, "a list with credits") };
        match credits {
            Some(n) => {
                assert!(n <= MAX_CREDITS);
                Self::with_index(n * Self::CREDIT_ONE)
            }
            None => Self::with_index(Self::NO_CREDIT),
        }
    }

    /// A list with credits whose head and tail start at `position` (a
    /// multiple of `LAP`): tests of the positions' wrap.
    #[cfg(all(test, not(loom)))]
    pub(crate) fn with_credits_at(credits: usize, position: usize) -> Self {
        let list = Self::with_credits(Some(credits));
        let (head, tail) = (&list.head.index, &list.tail.index);
        // Relaxed: not shared yet.
        head.store(position << SHIFT, Relaxed);
        tail.store(tail.load(Relaxed) | position << SHIFT, Relaxed);
        list
    }

    /// Whether the index `tail` has a credit to take (the count is zero
    /// whenever `NO_CREDIT` is set).
    #[inline(always)]
    pub(super) fn has_credit(tail: usize) -> bool {
        tail & Self::CREDITS != 0
    }

    /// The index after claiming the position at `tail` (and taking one
    /// credit if `CREDIT`).
    #[inline(always)]
    pub(super) fn claim<const CREDIT: bool>(tail: usize) -> usize {
        let next = tail.wrapping_add(1 << SHIFT);
        if CREDIT {
            next - Self::CREDIT_ONE
        } else {
            next
        }
    }

    /// Takes a credit and claims a position for `value` in one CAS; gives
    /// the value back when there is no credit to take.
    #[inline]
    pub(crate) fn push_with_credit(&self, value: T) -> Result<(), T> {
        self.push_as::<true>(value)
    }

    /// Takes a credit without a position (a reservation; its `push` claims
    /// one later).
    #[inline]
    pub(crate) fn take_credit(&self) -> bool {
        // Relaxed: the CAS below is what counts.
        let mut tail = self.tail.index.load(Relaxed);
        while Self::has_credit(tail) {
            // Acquire: a credit synchronizes with its return (the slot it
            // stood for was read before). Relaxed on failure: retried.
            match self.tail.index.compare_exchange_weak(
                tail,
                tail - Self::CREDIT_ONE,
                Acquire,
                Relaxed,
            ) {
                Ok(_) => return true,
                Err(t) => tail = t,
            }
        }
        false
    }

    /// Gives a credit back; false if credits are closed (the caller gives
    /// it to the channel's semaphore instead). The caller keeps the count
    /// at or under the capacity it started from, which fits.
    #[inline]
    pub(crate) fn return_credit(&self) -> bool {
        // Relaxed: the CAS below is what counts.
        let mut tail = self.tail.index.load(Relaxed);
        while tail & Self::NO_CREDIT == 0 {
            // SeqCst: one half of the Dekker pair with a sender that queued
            // on the semaphore after finding no credit (the caller then
            // loads the semaphore's waiters flag; the sender fences and
            // loads the credits). Release: publishes the read of the slot.
            match self.tail.index.compare_exchange_weak(
                tail,
                tail + Self::CREDIT_ONE,
                SeqCst,
                Relaxed,
            ) {
                Ok(_) => return true,
                Err(t) => tail = t,
            }
        }
        false
    }

    /// Takes every credit (and closes credits if `close`); returns how
    /// many there were.
    pub(crate) fn drain_credits(&self, close: bool) -> usize {
        let flag = if close { Self::NO_CREDIT } else { 0 };
        // Relaxed: the CAS below is what counts.
        let mut tail = self.tail.index.load(Relaxed);
        loop {
            let n = (tail & Self::CREDITS) / Self::CREDIT_ONE;
            if n == 0 && tail & flag == flag {
                return 0;
            }
            // SeqCst: as `return_credit`'s (it is the same Dekker pair).
            match self.tail.index.compare_exchange_weak(
                tail,
                (tail & !Self::CREDITS) | flag,
                SeqCst,
                Relaxed,
            ) {
                Ok(_) => return n,
                Err(t) => tail = t,
            }
        }
    }

    /// Whether a credit is there now (a snapshot, to skip work before a
    /// take that would fail).
    #[inline]
    pub(crate) fn has_credit_now(&self) -> bool {
        // Relaxed: a hint; the take's CAS decides.
        Self::has_credit(self.tail.index.load(Relaxed))
    }

    /// Credits there now (a snapshot).
    pub(crate) fn credits(&self) -> usize {
        // SeqCst: the load of the sender's Dekker half (see
        // `return_credit`), after its fence.
        (self.tail.index.load(SeqCst) & Self::CREDITS) / Self::CREDIT_ONE
    }
}
