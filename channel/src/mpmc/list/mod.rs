//! The unbounded data path: a lock-free linked list of blocks.
//!
//! # Layout
//!
//! Values live in blocks of `BLOCK_CAP` slots linked by `next`. `head` and
//! `tail` are each a block pointer plus an index; the index counts positions
//! shifted left by one, and a block spans `LAP = BLOCK_CAP + 1` positions:
//! the last one is a sentinel that means "the next block is being
//! installed" (whoever sees it waits a moment). The low bit of the index is
//! a flag: in `tail`, *closed*; in `head`, *a next block is known to exist*
//! (so a receiver may skip the emptiness check).
//!
//! Each slot has a `written` flag of its own (one byte) and one `done`
//! bit in a 64-bit word shared by the block's slots: a queued `u64` costs
//! 9.5 bytes (tokio's mpsc: 9). The flag is a byte apart from the bits
//! because only its slot's sender writes it: a plain store publishes the
//! value, where a bit in a shared word would take a locked
//! read-modify-write (measured in `benches/NOTES.md`, "Unbounded").
//!
//! # Protocol
//!
//! A sender claims a position by CAS on `tail.index`. The sender that claims
//! the last slot of a block installs the next block (allocated before the
//! CAS, so nothing allocates while others wait) and moves `tail` past the
//! sentinel with `fetch_add` (which keeps a concurrent close's flag). It then
//! writes its value and stores the slot's `written` flag (Release).
//!
//! A receiver checks emptiness (`SeqCst` fence, then compares with
//! `tail.index`), claims a position by CAS on `head.index`, waits for the
//! slot's `written` flag if the sender is still writing, and reads the value.
//!
//! # Giving memory back
//!
//! A block is freed as soon as every value in it has been read, so a burst
//! of a million messages leaves nothing behind once received. Receivers
//! finish in any order; the last one to leave a block frees it. A slot's
//! `done` bit is set by whichever of two parties passes the slot first:
//! its receiver, when it has read the value, or the block's destruction:
//!
//! * the receiver of the block's last slot starts destruction: it walks the
//!   other slots and sets the `done` bit of each; the first one that was
//!   not set yet (that slot's receiver is still at work) stops the walk;
//! * any other receiver sets its slot's bit when done; if the bit was set
//!   already, the walk stopped there, and the receiver takes it over from
//!   the next slot.
//!
//! Whoever walks past the end frees the block. Both sides set a bit with
//! `fetch_or` and look at that same bit of the old value, so exactly one
//! of the two sees the other's mark, with one locked instruction (`lock
//! bts` on x86) that never retries. A walk loads the word first and marks
//! only the slots it does not see done: when a receiver of the last slot
//! trails the others (the common case), it frees the block after one load.
//!
//! # Reusing a block
//!
//! "Frees" above means: resets the block and parks it in `spare`, room for
//! three blocks, in the first empty slot there (a CAS from null, Release:
//! the reset happens before the next user's accesses); only when all three
//! are taken does the block go back to the allocator. The sender that needs
//! a new block takes a parked one first (a swap, Acquire) and allocates
//! only when there is none. So a channel in a steady flow allocates
//! nothing, as tokio's mpsc reuses its blocks, and a drained burst keeps
//! at most three blocks besides the one `head` is in (tokio's mpsc, too,
//! keeps a few freed blocks linked past its tail). Three, not one: bursts
//! of a few blocks' worth, each drained before the next, free and need two
//! or three blocks a burst, and with one slot all but one of them went
//! back to the allocator (`tests/alloc_free.rs`). A parked block is
//! reachable only through `spare`, and a block is parked only by the side
//! that would have freed it, so reuse adds no case to the protocol: the
//! block's last user is done with it before the reset, as it would be
//! before a free.
//!
//! # Credits
//!
//! A list may also keep a count of *credits* in `tail`'s index, for
//! `sync::mpsc`'s bounded channel: a send then takes a credit and claims
//! its position in one CAS ([`credits`]).
//!
//! # One consumer
//!
//! `sync::mpsc` has one receiver, which pops with [`List::pop_single`]:
//! no claim on `head` (nobody else moves it), no `done` marks (nobody else
//! reads), and the block is freed as soon as its last slot is read. Its
//! emptiness check has no fence: the receiver issues the one fence its
//! wait needs itself (`mpsc/chan.rs`). A list is popped either always this
//! way or never.

mod credits;
#[cfg(all(test, not(loom)))]
mod layout_tests;

use crate::bridge::loom::cell::UnsafeCell;
use crate::bridge::loom::sync::atomic::{
    AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering::*, fence,
};
use crate::bridge::{Gap, Spaced};
use crate::mpmc::backoff::Backoff;
use crate::mpmc::ring::PopError;

use std::mem::MaybeUninit;
use std::ptr;

/// Slots per block (smaller under loom, to cross blocks in small models).
#[cfg(not(loom))]
const BLOCK_CAP: usize = 31;
#[cfg(loom)]
const BLOCK_CAP: usize = 2;
/// Positions per block: the slots and the sentinel.
const LAP: usize = BLOCK_CAP + 1;

/// Index low bit: `tail` is closed / `head` knows a next block exists.
const MARK_BIT: usize = 1;
const HAS_NEXT: usize = 1;
/// Where positions start in an index of the plain list (the MPMC
/// channels'): just above the flag bit.
const SHIFT_PLAIN: usize = 1;
/// Where positions start in an index of a list with credits (`sync::mpsc`):
/// above the flag bit, 20 bits of credits and `NO_CREDIT`.
pub(crate) const SHIFT_CREDITS: usize = 22;
/// The most credits a list with credits holds (its channel's capacity).
pub(crate) const MAX_CREDITS: usize = (1 << (SHIFT_CREDITS - 2)) - 1;

/// The `done` word holds a bit per slot.
const _: () = assert!(BLOCK_CAP <= 64);

/// A block of slots. A slot's `written` flag has only one writer, its
/// sender, which stores it. The `done` bits (one per slot, see "Giving
/// memory back") are only ever changed with `fetch_or`, so "exactly one
/// side sees the other's mark" holds per slot as it would with a word of
/// its own.
struct Block<T> {
    next: AtomicPtr<Block<T>>,
    values: [UnsafeCell<MaybeUninit<T>>; BLOCK_CAP],
    written: [AtomicBool; BLOCK_CAP],
    done: AtomicU64,
}

impl<T> Block<T> {
    fn new() -> Box<Block<T>> {
        Box::new(Block {
            next: AtomicPtr::new(ptr::null_mut()),
            values: std::array::from_fn(|_| UnsafeCell::new(MaybeUninit::uninit())),
            written: std::array::from_fn(|_| AtomicBool::new(false)),
            done: AtomicU64::new(0),
        })
    }

    /// Sets slot `i`'s `done` bit; returns whether it was set already
    /// (the other side passed first).
    #[inline(always)]
    fn mark_done(&self, i: usize) -> bool {
        let bit = 1 << i;
        // AcqRel: a receiver's Release orders its read of the value before
        // the mark; the Acquire orders whatever the other side did before
        // its mark (a read, or nothing) before our going on with the walk.
        self.done.fetch_or(bit, AcqRel) & bit != 0
    }

    /// Takes the value of slot `i` once it is written, then marks the slot
    /// done: the last slot's receiver starts freeing the block, and one
    /// that finds its bit set already goes on with it.
    ///
    /// # Safety
    ///
    /// `this` is live and the caller claimed slot `i` (its head CAS) and
    /// has not read it yet.
    #[inline(always)]
    unsafe fn take(this: *mut Block<T>, i: usize, spare: &Spare<T>) -> T {
        // SAFETY: live while slot `i` is unread (the caller's contract).
        let block = unsafe { &*this };
        block.wait_write(i);
        // SAFETY: claimed by the caller, written (flag seen, Acquire).
        let value = block.values[i].with(|p| unsafe { (*p).assume_init_read() });
        if i + 1 == BLOCK_CAP {
            // SAFETY: we received the last slot.
            unsafe { Block::destroy(this, 0, spare) };
        } else if block.mark_done(i) {
            // SAFETY: we received slot `i`, and every slot before it is
            // read (the walk marks a slot only once those before it are).
            unsafe { Block::destroy(this, i + 1, spare) };
        }
        value
    }

    /// Waits until the sender that claimed slot `i` has written it.
    fn wait_write(&self, i: usize) {
        let mut backoff = Backoff::new();
        // Acquire: pairs with the sender's Release store of the flag.
        while !self.written[i].load(Acquire) {
            backoff.snooze();
        }
    }

    /// Waits until the next block is linked.
    fn wait_next(&self) -> *mut Block<T> {
        let mut backoff = Backoff::new();
        loop {
            // Acquire: pairs with the installer's Release store.
            let next = self.next.load(Acquire);
            if !next.is_null() {
                return next;
            }
            backoff.snooze();
        }
    }

    /// Continues the destruction of `this` from slot `start`.
    ///
    /// # Safety
    /// The caller is the receiver of slot `start - 1` (or of the last slot,
    /// with `start == 0`), and every slot before `start` is read.
    unsafe fn destroy(this: *mut Block<T>, start: usize, spare: &Spare<T>) {
        // SAFETY: the block lives until the walk reaches its end.
        let block = unsafe { &*this };
        // Acquire (here and in the `fetch_or`s): a receiver's read of its
        // value (before its Release mark) happens before the free.
        let mut seen = block.done.load(Acquire);
        // The last slot is not walked: its receiver started the walk.
        for i in start..BLOCK_CAP - 1 {
            let bit = 1 << i;
            // A bit seen set is its receiver's: nobody else walks here.
            if seen & bit == 0 {
                seen = block.done.fetch_or(bit, AcqRel);
                if seen & bit == 0 {
                    // Its receiver is still at work and will continue the
                    // walk.
                    return;
                }
            }
        }
        // SAFETY: every slot is read and nobody else walks: we own it.
        unsafe { spare.put(this) };
    }
}

/// Blocks a list keeps for reuse (one under loom: each slot is the same
/// one-block protocol).
#[cfg(not(loom))]
const SPARES: usize = 3;
#[cfg(loom)]
const SPARES: usize = 1;

/// Room for `SPARES` blocks that are done with, for the next ones needed
/// (see "Reusing a block" in the module docs).
struct Spare<T>([AtomicPtr<Block<T>>; SPARES]);

impl<T> Spare<T> {
    fn new() -> Self {
        Spare(std::array::from_fn(|_| AtomicPtr::new(ptr::null_mut())))
    }

    /// A block for the end of the list: a parked one, or a new one.
    fn take(&self) -> Box<Block<T>> {
        for slot in &self.0 {
            // Relaxed: only a hint; the swap below is what takes the block.
            if !slot.load(Relaxed).is_null() {
                // Acquire: pairs with `put`'s Release, so the reset happens
                // before our writes.
                let block = slot.swap(ptr::null_mut(), Acquire);
                if !block.is_null() {
                    // SAFETY: from `Box::into_raw` in `put`; the swap made
                    // it ours alone.
                    return unsafe { Box::from_raw(block) };
                }
            }
        }
        Block::new()
    }

    /// Parks `block` (reset to new) for reuse, or frees it if every slot
    /// holds a block already.
    ///
    /// # Safety
    ///
    /// `block` is from `Box::into_raw`, and its last user is done with it:
    /// the caller owns it alone (every value in it is read).
    unsafe fn put(&self, block: *mut Block<T>) {
        // SAFETY: ours alone (the caller's contract), so `&mut` is sound.
        let b = unsafe { &mut *block };
        // Plain writes through `&mut` (a few vector stores): the Release
        // CAS below publishes them, and nobody else can reach the block
        // before it. The values need no reset: every one was read out.
        b.next = AtomicPtr::new(ptr::null_mut());
        b.written = std::array::from_fn(|_| AtomicBool::new(false));
        b.done = AtomicU64::new(0);
        for slot in &self.0 {
            // Relaxed: only a hint; the CAS below is what parks the block.
            // Release: the reset happens before `take`'s Acquire swap.
            if slot.load(Relaxed).is_null()
                && slot
                    .compare_exchange(ptr::null_mut(), block, Release, Relaxed)
                    .is_ok()
            {
                return;
            }
        }
        // SAFETY: as above.
        drop(unsafe { Box::from_raw(block) });
    }
}

impl<T> Drop for Spare<T> {
    fn drop(&mut self) {
        for slot in &self.0 {
            // Relaxed: `&mut self` synchronizes with every handle.
            let block = slot.load(Relaxed);
            if !block.is_null() {
                // SAFETY: parked by `put`, so ours; its values were all read.
                drop(unsafe { Box::from_raw(block) });
            }
        }
    }
}

struct Position<T> {
    index: AtomicUsize,
    block: AtomicPtr<Block<T>>,
}

/// The unbounded list (see the module docs).
///
/// `#[repr(C)]`, for the gaps (`bridge::Spaced`): what precedes the list
/// (a channel's flavor tag, read by every operation, or the counts of the
/// `Arc` it is in), the receivers' `head`, the senders' `tail` and the
/// parked blocks share no pair of cache lines. The list ends with the
/// parked blocks: what holds it puts a gap after it (the unbounded
/// flavor its own; in mpsc's channel the semaphore, which starts with
/// one), so that two gaps never lie back to back.
#[repr(C)]
pub(crate) struct List<T, const SHIFT: usize = SHIFT_PLAIN> {
    _lead: Gap,
    head: Spaced<Position<T>>,
    tail: Spaced<Position<T>>,
    /// Touched once per block by each side.
    spare: Spare<T>,
}

// SAFETY: values move between threads through the list (`T: Send`); each
// slot is accessed by its one claimant, and blocks by the protocol above.
unsafe impl<T: Send, const SHIFT: usize> Send for List<T, SHIFT> {}
// SAFETY: as above.
unsafe impl<T: Send, const SHIFT: usize> Sync for List<T, SHIFT> {}

/// `Ok(tail)` if `tail` shows position `head` claimed by a sender, else
/// `Empty` (or `Closed`).
#[inline(always)]
fn claimed_past<const SHIFT: usize>(head: usize, tail: usize) -> Result<usize, PopError> {
    if head >> SHIFT == tail >> SHIFT {
        return Err(if tail & MARK_BIT != 0 {
            PopError::Closed
        } else {
            PopError::Empty
        });
    }
    Ok(tail)
}

impl<T, const SHIFT: usize> List<T, SHIFT> {
    pub(crate) fn new() -> Self {
        Self::with_index(0)
    }

    fn with_index(tail: usize) -> Self {
        List {
            _lead: Gap::new(),
            head: Spaced::new(Position {
                index: AtomicUsize::new(0),
                block: AtomicPtr::new(ptr::null_mut()),
            }),
            tail: Spaced::new(Position {
                index: AtomicUsize::new(tail),
                block: AtomicPtr::new(ptr::null_mut()),
            }),
            spare: Spare::new(),
        }
    }

    /// Pushes `value`; gives it back if the list is closed.
    ///
    /// Inlined: the common case, a slot before the last of an installed
    /// block claimed at the first try, is the slow path's first round with
    /// nothing else to do (no block to install, no retry).
    #[inline]
    pub(crate) fn push(&self, value: T) -> Result<(), T> {
        self.push_as::<false>(value)
    }

    /// `push` (`CREDIT == false`), or `push_with_credit`.
    #[inline(always)]
    fn push_as<const CREDIT: bool>(&self, value: T) -> Result<(), T> {
        // Acquire: as in `push_slow`.
        let tail = self.tail.index.load(Acquire);
        let block = self.tail.block.load(Acquire);
        let offset = (tail >> SHIFT) % LAP;
        if CREDIT && !Self::has_credit(tail) {
            return Err(value);
        }
        // Not closed, not the last slot or the sentinel, first block there.
        if tail & MARK_BIT == 0 && offset + 1 < BLOCK_CAP && !block.is_null() {
            // SeqCst: as in `push_slow`.
            if self
                .tail
                .index
                .compare_exchange_weak(tail, Self::claim::<CREDIT>(tail), SeqCst, Relaxed)
                .is_ok()
            {
                // As in `push_slow`, `block` is `tail`'s block (the block
                // pointer moves only while `tail` is at the sentinel).
                // SAFETY: it is live: our slot in it is unread.
                let block = unsafe { &*block };
                // SAFETY: claimed by the CAS, so only we write it.
                block.values[offset].with_mut(|p| unsafe { (*p).write(value) });
                // Release: publishes the value to its receiver.
                block.written[offset].store(true, Release);
                return Ok(());
            }
        }
        self.push_slow::<CREDIT>(value)
    }

    #[inline(never)]
    fn push_slow<const CREDIT: bool>(&self, value: T) -> Result<(), T> {
        let mut backoff = Backoff::new();
        // Acquire: the block pointer read with it must be initialized.
        let mut tail = self.tail.index.load(Acquire);
        let mut block = self.tail.block.load(Acquire);
        let mut next_block: Option<Box<Block<T>>> = None;
        loop {
            if tail & MARK_BIT != 0 || (CREDIT && !Self::has_credit(tail)) {
                return Err(value);
            }
            let offset = (tail >> SHIFT) % LAP;
            if offset == BLOCK_CAP {
                // The next block is being installed.
                backoff.snooze();
                tail = self.tail.index.load(Acquire);
                block = self.tail.block.load(Acquire);
                continue;
            }
            // We may claim the last slot: have the next block ready, so we
            // do not allocate while others wait on the sentinel.
            if offset + 1 == BLOCK_CAP && next_block.is_none() {
                next_block = Some(self.spare.take());
            }
            if block.is_null() {
                // The very first push installs the first block.
                let new = Box::into_raw(next_block.take().unwrap_or_else(|| self.spare.take()));
                // Release: publishes the block's initialization.
                if self
                    .tail
                    .block
                    .compare_exchange(block, new, Release, Relaxed)
                    .is_ok()
                {
                    self.head.block.store(new, Release);
                    block = new;
                } else {
                    // SAFETY: `new` was never published; it is still ours.
                    next_block = Some(unsafe { Box::from_raw(new) });
                    tail = self.tail.index.load(Acquire);
                    block = self.tail.block.load(Acquire);
                    continue;
                }
            }
            let new_tail = Self::claim::<CREDIT>(tail);
            // SeqCst: the claim takes part in the receivers' emptiness
            // check (their fence and tail load).
            match self
                .tail
                .index
                .compare_exchange_weak(tail, new_tail, SeqCst, Acquire)
            {
                Ok(_) => {
                    if offset + 1 == BLOCK_CAP {
                        let next = Box::into_raw(next_block.take().expect("allocated above"));
                        self.tail.block.store(next, Release);
                        // fetch_add, not store: keeps a concurrent close.
                        self.tail.index.fetch_add(1 << SHIFT, Release);
                        // SAFETY: `block` is live: its last slot (ours) is
                        // not read yet, so nobody has freed it.
                        unsafe { (*block).next.store(next, Release) };
                    }
                    // SAFETY: as above; the slot is ours by the CAS.
                    let block = unsafe { &*block };
                    // SAFETY: claimed by the CAS, so only we write it.
                    block.values[offset].with_mut(|p| unsafe { (*p).write(value) });
                    // Release: publishes the value to its receiver.
                    block.written[offset].store(true, Release);
                    return Ok(());
                }
                Err(t) => {
                    tail = t;
                    block = self.tail.block.load(Acquire);
                    backoff.spin();
                }
            }
        }
    }

    /// The receivers' emptiness check at position `head`: the tail index if
    /// a sender has claimed `head`, else `Empty` (or `Closed`).
    ///
    /// Only "empty" needs the fence: a tail seen past `head` is a claim
    /// whatever the ordering, so the fence is skipped when the first look
    /// finds one (most pops of a busy list).
    #[inline(always)]
    fn tail_past(&self, head: usize) -> Result<usize, PopError> {
        // Relaxed: the value is published by its slot's `written` flag, which
        // the pop waits for; this load only finds out whether it may.
        let tail = self.tail.index.load(Relaxed);
        if head >> SHIFT != tail >> SHIFT {
            return Ok(tail);
        }
        // SeqCst fence: one half of the Dekker pair with the senders'
        // `SeqCst` claims (and the waiters' flags, see `waiters.rs`).
        fence(SeqCst);
        claimed_past::<SHIFT>(head, self.tail.index.load(Relaxed))
    }

    /// Pops the oldest value.
    ///
    /// The first try, inlined into the caller, is the loop's first round
    /// for a slot before the last of its block (the same atomic accesses:
    /// under loom each is a branch point) and returns `Empty` or `Closed`
    /// itself; a lost claim or the block's last slot goes on out of line
    /// from what this try loaded. (The block is touched only after the
    /// claim: before it, another receiver may have read the block's last
    /// slot and freed it.)
    #[inline]
    pub(crate) fn pop(&self) -> Result<T, PopError> {
        let head = self.head.index.load(Acquire);
        let block = self.head.block.load(Acquire);
        let offset = (head >> SHIFT) % LAP;
        if offset + 1 >= BLOCK_CAP || block.is_null() {
            return self.pop_slow(head, block);
        }
        let mut new_head = head.wrapping_add(1 << SHIFT);
        if head & HAS_NEXT == 0 {
            let tail = self.tail_past(head)?;
            // The tail is in a later block: skip this check until then.
            if (head >> SHIFT) / LAP != (tail >> SHIFT) / LAP {
                new_head |= HAS_NEXT;
            }
        }
        // SeqCst: pairs with the senders' claims, as in `pop_slow`.
        if let Err(head) = self
            .head
            .index
            .compare_exchange_weak(head, new_head, SeqCst, Acquire)
        {
            return self.pop_contended(head);
        }
        // SAFETY: our slot in `block` is claimed and not read yet, so the
        // block is live.
        Ok(unsafe { Block::take(block, offset, &self.spare) })
    }

    /// [`pop`](Self::pop) after its inlined try lost the claim to another
    /// receiver; `head` is what the failed CAS found. Backs off first.
    #[inline(never)]
    fn pop_contended(&self, head: usize) -> Result<T, PopError> {
        let mut backoff = Backoff::new();
        backoff.spin();
        self.pop_loop(head, self.head.block.load(Acquire), backoff)
    }

    /// [`pop`](Self::pop) with `head` and `block` as its inlined try
    /// loaded them (no reload: under contention each is a cache miss).
    #[inline(never)]
    fn pop_slow(&self, head: usize, block: *mut Block<T>) -> Result<T, PopError> {
        self.pop_loop(head, block, Backoff::new())
    }

    /// The pop loop, from `head` and `block` (loaded in that order).
    #[inline(always)]
    fn pop_loop(
        &self,
        mut head: usize,
        mut block: *mut Block<T>,
        mut backoff: Backoff,
    ) -> Result<T, PopError> {
        loop {
            let offset = (head >> SHIFT) % LAP;
            if offset == BLOCK_CAP {
                // Another receiver is moving to the next block.
                backoff.snooze();
                head = self.head.index.load(Acquire);
                block = self.head.block.load(Acquire);
                continue;
            }
            let mut new_head = head.wrapping_add(1 << SHIFT);
            if new_head & HAS_NEXT == 0 {
                let tail = self.tail_past(head)?;
                // The tail is in a later block: skip this check until then.
                if (head >> SHIFT) / LAP != (tail >> SHIFT) / LAP {
                    new_head |= HAS_NEXT;
                }
            }
            if block.is_null() {
                // The first push is still installing the first block.
                backoff.snooze();
                head = self.head.index.load(Acquire);
                block = self.head.block.load(Acquire);
                continue;
            }
            // SeqCst: pairs with the senders' claims, as above.
            match self
                .head
                .index
                .compare_exchange_weak(head, new_head, SeqCst, Acquire)
            {
                Ok(_) => {
                    // SAFETY: our slot in `block` is not read yet, so the
                    // block is live.
                    unsafe {
                        if offset + 1 == BLOCK_CAP {
                            let next = (*block).wait_next();
                            let mut next_index = (new_head & !HAS_NEXT).wrapping_add(1 << SHIFT);
                            if !(*next).next.load(Relaxed).is_null() {
                                next_index |= HAS_NEXT;
                            }
                            self.head.block.store(next, Release);
                            self.head.index.store(next_index, Release);
                        }
                        return Ok(Block::take(block, offset, &self.spare));
                    }
                }
                Err(h) => {
                    head = h;
                    block = self.head.block.load(Acquire);
                    backoff.spin();
                }
            }
        }
    }

    /// Pops the oldest value, for a list with one consumer (mpsc).
    ///
    /// With one consumer nobody else moves `head` or reads a slot, so
    /// there is no claim: a written slot is taken with a load of its
    /// `written` flag and a store of `head`, and a block is freed as soon as
    /// its last slot is read (no `done` marks). Only an unwritten
    /// slot needs an emptiness check: the comparison with `tail` tells
    /// "nothing sent" from "a sender has claimed the slot and is writing
    /// it" (then we wait for the write). Unlike [`pop`](Self::pop)'s, the
    /// check has no fence: an "empty" is a snapshot, which sees every push
    /// that happens before the pop. A receiver that waits on it issues its
    /// own `fence(SeqCst)` between advertising its wait and its last look
    /// (the Dekker pair with the senders' `SeqCst` claims).
    ///
    /// # Safety
    ///
    /// Every pop of this list is a `pop_single`, and no two run at the same
    /// time (the caller holds the one receiver by `&mut`).
    #[inline]
    pub(crate) unsafe fn pop_single(&self) -> Result<T, PopError> {
        // The common case inlined: a written slot before the last of its
        // block (no block to leave).
        // Relaxed: only we store `head` (the stores are Release for `len`).
        let head = self.head.index.load(Relaxed);
        // Acquire: the first push publishes the first block here.
        let block = self.head.block.load(Acquire);
        let offset = (head >> SHIFT) % LAP;
        if offset + 1 < BLOCK_CAP
            && !block.is_null()
            // SAFETY: a non-null head block is live until we leave it.
            && unsafe { (*block).written[offset].load(Acquire) }
        {
            // SAFETY: written (flag seen, Acquire), and only we read slots.
            let value = unsafe { (*block).values[offset].with(|p| (*p).assume_init_read()) };
            // Release: `len` reads it.
            self.head
                .index
                .store(head.wrapping_add(1 << SHIFT), Release);
            return Ok(value);
        }
        // SAFETY: the caller's contract.
        unsafe { self.pop_single_slow() }
    }

    /// [`pop_single`](Self::pop_single) from the start.
    ///
    /// # Safety
    ///
    /// As for `pop_single`.
    #[inline(never)]
    unsafe fn pop_single_slow(&self) -> Result<T, PopError> {
        // Relaxed: only we store `head` (the stores are Release for `len`).
        let head = self.head.index.load(Relaxed);
        // Acquire: the first push publishes the first block here.
        let mut block = self.head.block.load(Acquire);
        // Never the sentinel: we step over it when we leave a block.
        let offset = (head >> SHIFT) % LAP;
        // SAFETY: a non-null head block is live until we free it (below).
        if block.is_null() || !unsafe { (*block).written[offset].load(Acquire) } {
            // Nothing written here: empty, or a sender is writing it.
            // Relaxed: a snapshot (doc comment); the value is published by
            // its `written` flag, which we wait for.
            claimed_past::<SHIFT>(head, self.tail.index.load(Relaxed))?;
            // A sender has claimed the slot; it may still be installing
            // the first block, or writing.
            let mut backoff = Backoff::new();
            while block.is_null() {
                backoff.snooze();
                block = self.head.block.load(Acquire);
            }
            // SAFETY: as above.
            unsafe { (*block).wait_write(offset) };
        }
        // SAFETY: the slot is written (flag seen, Acquire) and only we
        // read slots; the block is live (we have not left it).
        let value = unsafe { (*block).values[offset].with(|p| (*p).assume_init_read()) };
        if offset + 1 == BLOCK_CAP {
            // SAFETY: the block is live; its last slot's sender links the
            // next block before it writes the slot.
            let next = unsafe { (*block).wait_next() };
            self.head.block.store(next, Release);
            // Past the last slot and the sentinel. Release: `len` reads it.
            self.head
                .index
                .store(head.wrapping_add(2 << SHIFT), Release);
            // Every slot of the block is written and read, so every sender
            // that claimed one is done with it (its last access is the
            // `written` store we saw), and no other reader exists.
            // SAFETY: so the block is ours alone, from `Box::into_raw`.
            unsafe { self.spare.put(block) };
        } else {
            // Release: `len` reads it.
            self.head
                .index
                .store(head.wrapping_add(1 << SHIFT), Release);
        }
        Ok(value)
    }

    /// Marks the list closed; true if this call closed it.
    pub(crate) fn close(&self) -> bool {
        // SeqCst: seen by the receivers' fenced emptiness check.
        self.tail.index.fetch_or(MARK_BIT, SeqCst) & MARK_BIT == 0
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.tail.index.load(SeqCst) & MARK_BIT != 0
    }

    /// Number of values in the list (a snapshot).
    pub(crate) fn len(&self) -> usize {
        loop {
            let tail = self.tail.index.load(SeqCst);
            let head = self.head.index.load(SeqCst);
            if self.tail.index.load(SeqCst) != tail {
                continue;
            }
            let (mut tail, mut head) = (tail >> SHIFT, head >> SHIFT);
            // Rebase both on the head's block.
            let base = head - head % LAP;
            // Positions wrap at the index's width, both the same way.
            tail = tail.wrapping_sub(base) & (usize::MAX >> SHIFT);
            head -= base;
            if head == BLOCK_CAP {
                head = 0;
                tail -= LAP;
            }
            if tail % LAP == BLOCK_CAP {
                tail += 1;
            }
            // Positions between them, less the sentinels crossed.
            return tail - head - tail / LAP;
        }
    }
}

impl<T, const SHIFT: usize> Drop for List<T, SHIFT> {
    fn drop(&mut self) {
        // Relaxed: `&mut self` synchronizes with every handle.
        let mut head = self.head.index.load(Relaxed) >> SHIFT;
        let tail = self.tail.index.load(Relaxed) >> SHIFT;
        let mut block = self.head.block.load(Relaxed);
        // SAFETY: exclusive access; positions in [head, tail) hold written,
        // unread values, and blocks from `block` on are still allocated.
        unsafe {
            while head != tail {
                let offset = head % LAP;
                if offset < BLOCK_CAP {
                    (*block).values[offset].with_mut(|p| (*p).assume_init_drop());
                } else {
                    let next = (*block).next.load(Relaxed);
                    drop(Box::from_raw(block));
                    block = next;
                }
                // Positions wrap at the index's width.
                head = (head + 1) & (usize::MAX >> SHIFT);
            }
            if !block.is_null() {
                drop(Box::from_raw(block));
            }
        }
    }
}
