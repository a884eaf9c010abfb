//! A hierarchical timing wheel: 6 levels of 64 slots at 1 ms per tick.
//!
//! # Layout
//!
//! Level `L` has 64 slots of `64^L` ticks each, so it spans `64^(L+1)`
//! ticks: level 0 covers the next 64 ms one millisecond per slot, level 5
//! about 2.2 years (2^36 ms) at 2^30 ms per slot. An entry due at tick
//! `when` lives at the lowest level whose span contains both `elapsed` (the
//! wheel's current time) and `when`: the level of the highest 6-bit group in
//! which the two differ, in the slot given by `when`'s bits of that group.
//! Deadlines past the top level's span are filed in the top level too (their
//! slot aliases a nearer one); when that slot comes due they are simply
//! filed again.
//!
//! Each level keeps a 64-bit occupancy bitmap, so finding the next expiring
//! slot is a rotate and a `trailing_zeros` per level; the first level with
//! an occupied slot holds the earliest deadline (lower levels only hold
//! entries inside the current window of the level above). Above level 0
//! the search starts after the current slot: only entries beyond the span
//! can sit there, and they are a full turn away.
//!
//! # Advancing
//!
//! `poll(now)` repeatedly takes the next expiring slot whose start is `<=
//! now`, moves `elapsed` to that start, and re-files the slot's entries:
//! those due (`when <= elapsed`) go to the `pending` list, the others drop
//! to a lower level. It hands out pending entries one at a time, so the
//! caller can release the shard's lock between batches of wake-ups while
//! every remaining entry stays findable (and removable) in the wheel.
//!
//! Entries are intrusive [`TimerShared`]s: insertion and removal are O(1)
//! and allocate nothing. Every entry records the list it sits in
//! (`Position`) so removal never recomputes it.
//!
//! # Who may touch what
//!
//! A `Wheel` lives inside a shard's mutex: every method takes `&mut self`,
//! and the entries' links and positions are only touched through it.

use super::entry::{EntryList, Position, TimerShared};

use std::ptr::NonNull;

/// Number of levels.
pub(crate) const NUM_LEVELS: usize = 6;
/// Slots per level.
const LEVEL_MULT: usize = 64;
/// Bits of a tick per level.
const LEVEL_BITS: u32 = 6;
/// The largest distance (in ticks) between `elapsed` and a deadline the
/// wheel represents without aliasing.
pub(crate) const MAX_DURATION: u64 = (1 << (LEVEL_BITS as usize * NUM_LEVELS)) - 1;

/// One level: an occupancy bitmap and its slots.
struct Level {
    level: usize,
    occupied: u64,
    slots: [EntryList; LEVEL_MULT],
}

/// Where and when the next slot expires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Expiration {
    pub(crate) level: usize,
    pub(crate) slot: usize,
    /// The first tick the slot covers.
    pub(crate) deadline: u64,
}

/// The timing wheel of one shard.
pub(crate) struct Wheel {
    /// Ticks processed so far: every entry's deadline is later.
    elapsed: u64,
    levels: Box<[Level]>,
    /// Due entries not yet handed out by `poll`.
    pending: EntryList,
}

/// `insert` refused the entry: its deadline is not after `elapsed`.
#[derive(Debug)]
pub(crate) struct AlreadyElapsed;

impl Wheel {
    pub(crate) fn new() -> Wheel {
        Wheel {
            elapsed: 0,
            levels: (0..NUM_LEVELS).map(Level::new).collect(),
            pending: EntryList::new(),
        }
    }

    /// The tick the wheel has been advanced to.
    #[cfg(all(test, not(loom)))]
    pub(crate) fn elapsed(&self) -> u64 {
        self.elapsed
    }

    /// Files `entry` to fire at `when`.
    ///
    /// # Safety
    ///
    /// `entry` is live, pinned and in no list, and stays so until it is
    /// removed or handed out by `poll`; its `when` is `when`.
    pub(crate) unsafe fn insert(
        &mut self,
        entry: NonNull<TimerShared>,
        when: u64,
    ) -> Result<(), AlreadyElapsed> {
        if when <= self.elapsed {
            return Err(AlreadyElapsed);
        }
        let level = level_for(self.elapsed, when);
        // SAFETY: caller's contract (live, unlinked, not moving).
        unsafe { self.levels[level].add(entry, when) };
        Ok(())
    }

    /// Takes `entry` out of the wheel.
    ///
    /// # Safety
    ///
    /// `entry` is live and was inserted into this wheel and not yet removed
    /// or handed out.
    pub(crate) unsafe fn remove(&mut self, entry: NonNull<TimerShared>) {
        // SAFETY: live (caller); positions are only touched under the
        // wheel's lock, which `&mut self` stands for.
        let pos = unsafe { entry.as_ref().position() };
        match pos {
            Position::Pending => {
                // SAFETY: the position says the entry is in `pending`.
                unsafe { self.pending.remove(entry) };
            }
            Position::Slot { level, slot } => {
                // SAFETY: the position says where it is.
                unsafe { self.levels[level as usize].remove(entry, slot as usize) };
            }
            Position::None => debug_assert!(false, "removing an entry that is in no list"),
        }
        // SAFETY: as above.
        unsafe { entry.as_ref().set_position(Position::None) };
    }

    /// Hands out one entry due at or before `now`, or `None` when none is
    /// due (then `elapsed` becomes `now`).
    pub(crate) fn poll(&mut self, now: u64) -> Option<NonNull<TimerShared>> {
        loop {
            if let Some(entry) = self.pending.pop_front() {
                // SAFETY: entries in the wheel are live (insert contract).
                unsafe { entry.as_ref().set_position(Position::None) };
                return Some(entry);
            }
            match self.next_expiration() {
                Some(exp) if exp.deadline <= now => self.process_expiration(exp),
                _ => {
                    // Safe to jump: nothing is due before the next
                    // expiration, so every entry's level stays the same.
                    if now > self.elapsed {
                        self.elapsed = now;
                    }
                    return None;
                }
            }
        }
    }

    /// The tick of the next slot to expire (a lower bound of the earliest
    /// deadline), if any entry is filed.
    pub(crate) fn next_expiration_time(&self) -> Option<u64> {
        if !self.pending.is_empty() {
            return Some(self.elapsed);
        }
        self.next_expiration().map(|e| e.deadline)
    }

    fn next_expiration(&self) -> Option<Expiration> {
        self.levels
            .iter()
            .find_map(|level| level.next_expiration(self.elapsed))
    }

    /// Moves time to the slot's start and re-files its entries.
    fn process_expiration(&mut self, exp: Expiration) {
        debug_assert!(exp.deadline >= self.elapsed);
        self.elapsed = exp.deadline;
        let mut entries = self.levels[exp.level].take_slot(exp.slot);
        while let Some(entry) = entries.pop_front() {
            // SAFETY: entries in the wheel are live (insert contract); we
            // hold the wheel.
            let when = unsafe { entry.as_ref().cached_when() };
            if when <= self.elapsed {
                // SAFETY: live, and just unlinked.
                unsafe { entry.as_ref().set_position(Position::Pending) };
                self.pending.push_back(entry);
            } else {
                let level = level_for(self.elapsed, when);
                // SAFETY: live and unlinked.
                unsafe { self.levels[level].add(entry, when) };
            }
        }
    }
}

impl Level {
    fn new(level: usize) -> Level {
        Level {
            level,
            occupied: 0,
            slots: std::array::from_fn(|_| EntryList::new()),
        }
    }

    /// # Safety
    /// `entry` is live and unlinked.
    unsafe fn add(&mut self, entry: NonNull<TimerShared>, when: u64) {
        let slot = slot_for(when, self.level);
        // SAFETY: live (caller).
        unsafe {
            entry.as_ref().set_cached_when(when);
            entry.as_ref().set_position(Position::Slot {
                level: self.level as u8,
                slot: slot as u8,
            })
        };
        self.slots[slot].push_back(entry);
        self.occupied |= 1 << slot;
    }

    /// # Safety
    /// `entry` is live and in `slot` of this level.
    unsafe fn remove(&mut self, entry: NonNull<TimerShared>, slot: usize) {
        // SAFETY: the caller says it is in this list.
        unsafe { self.slots[slot].remove(entry) };
        if self.slots[slot].is_empty() {
            self.occupied &= !(1 << slot);
        }
    }

    fn take_slot(&mut self, slot: usize) -> EntryList {
        self.occupied &= !(1 << slot);
        std::mem::take(&mut self.slots[slot])
    }

    fn next_expiration(&self, elapsed: u64) -> Option<Expiration> {
        if self.occupied == 0 {
            return None;
        }
        let slot_range = slot_range(self.level);
        let now_slot = slot_for(elapsed, self.level);
        // Above level 0 the current slot only ever holds entries filed
        // beyond the wheel's span (an in-span entry differs from `elapsed`
        // in this level's bits, so it sits in another slot): they are a
        // full turn away and must not hide a later slot of this turn.
        // Search from the next slot there; level 0's current slot is due.
        let skip = usize::from(self.level > 0);
        let rotated = self
            .occupied
            .rotate_right(((now_slot + skip) % LEVEL_MULT) as u32);
        // Slots ahead of the current one: 0..=64 (64: only the current
        // slot is occupied, next turn).
        let ahead = u64::from(rotated.trailing_zeros()) + skip as u64;
        let slot = ((now_slot as u64 + ahead) % LEVEL_MULT as u64) as usize;
        let now_slot_start = elapsed & !(slot_range - 1);
        let deadline = now_slot_start.saturating_add(ahead * slot_range);
        Some(Expiration {
            level: self.level,
            slot,
            deadline,
        })
    }
}

/// Ticks covered by one slot of `level`.
fn slot_range(level: usize) -> u64 {
    (LEVEL_MULT as u64).pow(level as u32)
}

fn slot_for(tick: u64, level: usize) -> usize {
    ((tick >> (level as u32 * LEVEL_BITS)) % LEVEL_MULT as u64) as usize
}

/// The level an entry due at `when` belongs to while the wheel is at
/// `elapsed`: the 6-bit group of the highest bit in which they differ.
fn level_for(elapsed: u64, when: u64) -> usize {
    const SLOT_MASK: u64 = (1 << LEVEL_BITS) - 1;
    let mut masked = (elapsed ^ when) | SLOT_MASK;
    if masked >= MAX_DURATION {
        // Beyond the wheel's span: park it in the top level.
        masked = MAX_DURATION - 1;
    }
    let significant = 63 - masked.leading_zeros() as usize;
    significant / LEVEL_BITS as usize
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn level_for_groups_of_six_bits() {
        assert_eq!(level_for(0, 1), 0);
        assert_eq!(level_for(0, 63), 0);
        assert_eq!(level_for(0, 64), 1);
        assert_eq!(level_for(0, 4095), 1);
        assert_eq!(level_for(0, 4096), 2);
        assert_eq!(level_for(100, 127), 0);
        assert_eq!(level_for(127, 128), 1);
        assert_eq!(level_for(0, MAX_DURATION), 5);
        assert_eq!(level_for(0, u64::MAX - 10), 5);
    }

    #[test]
    fn slot_for_levels() {
        assert_eq!(slot_for(65, 0), 1);
        assert_eq!(slot_for(65, 1), 1);
        assert_eq!(slot_for(64 * 64 * 3, 2), 3);
    }
}
