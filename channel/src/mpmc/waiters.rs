//! Where the receivers (or the senders) of an MPMC channel wait.
//!
//! One `WaitQueue` per side: `recv_waiters` for receivers waiting for a
//! value, `send_waiters` for senders waiting for room. Each has:
//!
//! * a *fast slot* (`fast_*_waiter`): one waiter whose waker sits in
//!   `slot_waker`, a plain cell owned by whoever the state `slot` names
//!   (below). A notifier serves it with two CASes and no lock.
//! * an intrusive FIFO list of nodes under a mutex (each node lives in the
//!   waiting future: waiting allocates nothing), advertised by the flag
//!   `has_waiters` (`has_*_waiters`), set under the mutex while the list is
//!   non-empty.
//!
//! A waiter takes the slot only when the slot is empty and the list is
//! empty (checked under the mutex), so the slot always holds the oldest
//! waiter and notifications stay FIFO.
//!
//! # The fast slot
//!
//! ```text
//! from       to         by          when
//! EMPTY      WAITING    registrant  under the lock, its waker stored first
//! WAITING    NOTIFYING  notifier    CAS: the cell is now the notifier's
//! NOTIFYING  NOTIFIED   notifier    CAS, once it has taken the waker out
//! NOTIFYING  ABANDONED  owner       CAS: it leaves before the notifier is done
//! ABANDONED  EMPTY      notifier    its CAS to NOTIFIED failed
//! NOTIFIED   EMPTY      owner       it has seen the notification
//! WAITING    UPDATING   owner       CAS: the cell is now the owner's
//! UPDATING   WAITING    owner       new waker stored; then it re-checks
//! UPDATING   EMPTY      owner       leaving: its waker taken out
//! ```
//!
//! * `EMPTY`: free. Only a registrant holding the list's lock moves it on
//!   (so `EMPTY`, read with Acquire under the lock, gives it the cell).
//! * `WAITING`: the owner's waker is in the cell. Whoever moves the state
//!   out of `WAITING` with a CAS owns the cell: a notifier (to `NOTIFYING`)
//!   or the owner (to `UPDATING`, to replace its waker or to leave).
//! * `NOTIFYING`: a notifier is taking the waker out. It then CASes to
//!   `NOTIFIED`; if the owner left meanwhile (`ABANDONED`) it empties the
//!   slot itself. Nobody waits for anybody.
//! * `NOTIFIED`: the notification is the owner's; the owner empties the
//!   slot.
//! * A notifier treats `UPDATING` as no waiter: the owner stores `WAITING`
//!   again and then re-checks its condition after a fence, as after a
//!   registration, so a value published meanwhile is not missed.
//!
//! A wait through the slot costs the lock, the waker clone and the two
//! CASes of the notifier; the owner's re-poll after its notification is a
//! load and a store.
//!
//! # The Dekker protocol
//!
//! The data path is lock-free, so "a waiter registers" and "a value
//! arrives" race. Both sides write their location, then issue a `SeqCst`
//! fence, then read the other side's location:
//!
//! ```text
//! waiter:   register (slot / has_waiters)  ; fence(SeqCst) ; re-check the queue
//! notifier: publish value (or free a slot) ; fence(SeqCst) ; load slot, has_waiters
//! ```
//!
//! With both fences in the single total order of `SeqCst` operations, at
//! least one side sees the other's write: either the waiter's re-check
//! finds the value, or the notifier finds the waiter. (A `SeqCst` store
//! followed by a `SeqCst` load of a *different* location is not enough on
//! its own: the fences are what the proof needs.)
//!
//! The hot notifiers (every push and pop of the data path) use a cheaper
//! form of the same half. Their change is a `SeqCst` read-modify-write,
//! the claim of a position (CAS on `tail` or `head`), and the flag loads of
//! [`WaitQueue::has_waiters`] are `SeqCst`; a waiter's re-check reads that
//! position after a `SeqCst` fence and waits for a claimed slot to be
//! published. In the total order either the waiter's fence comes before
//! the notifier's flag load (which then sees the registration: C++20
//! [atomics.order]/4.2), or the claim comes before the waiter's fence (and
//! the re-check's fenced load of the position sees the claim: 4.3). On x86
//! this saves an `mfence` per operation (about half the single-threaded
//! cost of a push/pop pair); the CAS is a full barrier already. Loom treats
//! `SeqCst` accesses as `AcqRel` (its README), so under loom the notifier
//! issues the fence as well and the models check the fenced form.
//!
//! # Notifications
//!
//! `notify_one` wakes the oldest waiter: the slot if `WAITING`, else the
//! head of the list (popped, marked `NODE_NOTIFIED`, waker taken before the mark
//! so the owner may free the node as soon as it sees it). A notified waiter
//! that is dropped before using its notification passes it on
//! ([`WaitQueue::leave`] returns whether it must). `notify_all` (on close)
//! wakes everyone. Wakers are always woken with no lock held.

use crate::bridge::loom::cell::UnsafeCell;
use crate::bridge::loom::sync::Mutex;
use crate::bridge::loom::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering::*};
use crate::bridge::{LinkedList, Pointers, WakeList, WakerSlot};

use std::marker::PhantomPinned;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::Waker;

// The fast slot's states (module docs).
const EMPTY: usize = 0;
const WAITING: usize = 1;
const UPDATING: usize = 2;
const NOTIFYING: usize = 3;
const NOTIFIED: usize = 4;
const ABANDONED: usize = 5;

// A list node's states.
/// Linked in a list (or never registered).
pub(super) const NODE_LINKED: u8 = 0;
/// Unlinked by a notifier: try again.
pub(super) const NODE_NOTIFIED: u8 = 1;
/// Unlinked by a peer that completed the operation for the owner (the
/// small-capacity path's hand-off: `super::small`).
pub(super) const NODE_DONE: u8 = 2;

/// The notifier's half of Dekker right after a `SeqCst` claim of a
/// position in the data path: nothing to do on real hardware, the claim
/// was a `SeqCst` read-modify-write and the flag loads that follow are
/// `SeqCst` (module docs have the argument). Loom models `SeqCst` accesses
/// as `AcqRel`, so its models run the fenced form.
#[inline(always)]
pub(crate) fn claimed() {
    #[cfg(loom)]
    crate::bridge::loom::sync::atomic::fence(SeqCst);
}

/// Where a waiter is registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// Not registered.
    None,
    /// In the fast slot.
    Slot,
    /// In the list.
    List,
}

/// What [`WaitQueue::poll_registered`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Polled {
    /// Still waiting, with the new waker: return `Pending`.
    Waiting,
    /// Notified, and out of the queue: try again.
    Notified,
    /// Still waiting, but a notifier may have passed the waiter over while
    /// it replaced its waker: fence, try again, and leave if that works.
    Recheck,
}

/// A list node, embedded (pinned) in a waiting future.
pub(crate) struct Node {
    /// `NODE_LINKED`, `NODE_NOTIFIED` or `NODE_DONE`. A notifier stores the last two
    /// (Release) after it unlinked the node and took its waker (and, for
    /// `DONE`, moved the value); from then on it no longer touches the node.
    state: AtomicU8,
    /// Read and written only under the queue's mutex. A `WakerSlot`, not
    /// an `Option<Waker>`: every `send`/`recv` future builds a node and is
    /// moved while it is empty, which a `WakerSlot` makes cheap (the
    /// bridge's `WakerSlot` docs).
    waker: UnsafeCell<WakerSlot>,
    pointers: Pointers<Node>,
    _p: PhantomPinned,
}

impl Node {
    pub(crate) fn new() -> Self {
        Node {
            state: AtomicU8::new(NODE_LINKED),
            waker: UnsafeCell::new(WakerSlot::new()),
            pointers: Pointers::new(),
            _p: PhantomPinned,
        }
    }

    /// The node's state. Acquire: pairs with the Release store of whoever
    /// unlinked it, after its last touch of the node and of its value.
    pub(super) fn state(&self) -> u8 {
        self.state.load(Acquire)
    }

    /// Prepares the node to be linked: stores `waker`, state `NODE_LINKED`.
    ///
    /// # Safety
    ///
    /// The caller holds the lock of the list it is about to link the node
    /// into, and the node is in no list.
    pub(super) unsafe fn arm(&self, waker: &Waker) {
        let old = self.waker.with_mut(|w| {
            // SAFETY: the caller's contract: nobody else touches the cell.
            unsafe { (*w).replace(waker.clone()) }
        });
        debug_assert!(old.is_none(), "a node registers with its old waker taken");
        self.state.store(NODE_LINKED, Relaxed);
    }

    /// Replaces the waker of a linked node.
    ///
    /// # Safety
    ///
    /// The caller holds the lock of the list the node is linked in.
    pub(super) unsafe fn set_waker(&self, waker: &Waker) -> Option<Waker> {
        // SAFETY: the caller's contract.
        self.waker.with_mut(|w| unsafe { (*w).register(waker) })
    }

    /// Takes the waker of a node just unlinked; the caller then calls
    /// [`release`](Self::release).
    ///
    /// # Safety
    ///
    /// The caller holds the lock of the list the node was linked in, and
    /// unlinked it under that lock.
    pub(super) unsafe fn unlinked(&self) -> Option<Waker> {
        // SAFETY: the caller's contract.
        self.waker.with_mut(|w| unsafe { (*w).take() })
    }

    /// Notifies a node just unlinked: takes its waker (to wake after the
    /// unlock) and hands the node back `NODE_NOTIFIED`.
    ///
    /// # Safety
    ///
    /// As for [`unlinked`](Self::unlinked); the node's future is alive
    /// until it sees the state stored here.
    pub(super) unsafe fn notify(node: NonNull<Node>) -> Option<Waker> {
        // SAFETY: the caller's contract.
        unsafe {
            let node = node.as_ref();
            let waker = node.unlinked();
            node.release(NODE_NOTIFIED);
            waker
        }
    }

    /// Hands the unlinked node back to its owner with `state`
    /// (`NODE_NOTIFIED` or `NODE_DONE`): the caller's last touch of the node. Release: the owner
    /// that sees it sees everything the caller did to the node and value.
    pub(super) fn release(&self, state: u8) {
        self.state.store(state, Release);
    }
}

/// A waiting future's node and value cell, side by side. The cell holds a
/// `send`'s value ([`SendWaiter`]), or receives the value a small channel
/// hands to a `recv` ([`RecvWaiter`]; `super::small`). `repr(C)` with the
/// node first: a pointer to the node, popped from a list, is a pointer to
/// the waiter, so the small path reaches the cell without storing its
/// address.
#[repr(C)]
pub(crate) struct Waiter<C> {
    node: Node,
    value: UnsafeCell<C>,
}

/// A `send`'s waiter: its value until it is sent.
pub(crate) type SendWaiter<T> = Waiter<Option<T>>;

/// A `recv`'s waiter: the value handed to it, initialized exactly when its
/// node was released `NODE_DONE` by a hand-off and the value not yet taken.
/// (Uninitialized, not `None`: nothing to write when the future is built.)
pub(crate) type RecvWaiter<T> = Waiter<MaybeUninit<T>>;

impl<C> Waiter<C> {
    pub(crate) fn new(value: C) -> Self {
        Waiter {
            node: Node::new(),
            value: UnsafeCell::new(value),
        }
    }

    /// The node, pinned with the waiter (structural pinning: it is never
    /// moved out of a pinned waiter).
    pub(crate) fn node(self: Pin<&Self>) -> Pin<&Node> {
        // SAFETY: structural pinning of the node field (above).
        unsafe { self.map_unchecked(|w| &w.node) }
    }

    /// The value cell. Its owner touches it only while the node is in no
    /// list; while it is linked, only the holder of the list's lock does.
    pub(crate) fn value(&self) -> &UnsafeCell<C> {
        &self.value
    }

    /// The waiter whose node `node` is.
    ///
    /// # Safety
    ///
    /// `node` is the node of a live, pinned `Waiter<C>` (of this `C`), and
    /// was derived from a pointer to the whole waiter. (`repr(C)` puts the
    /// node at offset 0.)
    pub(crate) unsafe fn of<'a>(node: NonNull<Node>) -> &'a Waiter<C> {
        // SAFETY: the node is the waiter's first field; the caller's contract.
        unsafe { node.cast::<Waiter<C>>().as_ref() }
    }
}

// SAFETY: the waker cell is only touched under the lock of the list the
// node is in, the state is atomic, and the links belong to the list (also
// under the lock).
unsafe impl Send for Node {}
// SAFETY: as above.
unsafe impl Sync for Node {}

// The list's promise (`__pinned_node_link!`): `pointers` is a field of the
// node used by this list only; nodes stay pinned in their futures while
// linked and are unlinked before drop.
volt_runtime::__pinned_node_link!(pub(super) NodeLink => Node, pointers);

/// One side's waiters (see the module docs).
pub(crate) struct WaitQueue {
    /// The fast slot's state (module docs).
    slot: AtomicUsize,
    /// The Dekker flag: the list may be non-empty.
    has_waiters: AtomicBool,
    /// The fast slot's waker; owned as `slot` says.
    slot_waker: UnsafeCell<WakerSlot>,
    list: Mutex<LinkedList<NodeLink>>,
}

// SAFETY: the fast slot's waker cell is touched only by whoever the slot's
// state makes its owner (module docs), the list's cells only under the
// mutex; everything else is atomic. `Waker` is `Send + Sync`.
unsafe impl Send for WaitQueue {}
// SAFETY: as above.
unsafe impl Sync for WaitQueue {}

impl WaitQueue {
    pub(crate) fn new() -> Self {
        WaitQueue {
            slot: AtomicUsize::new(EMPTY),
            has_waiters: AtomicBool::new(false),
            slot_waker: UnsafeCell::new(WakerSlot::new()),
            list: Mutex::new(LinkedList::new()),
        }
    }

    /// Registers a waiter with `waker`. The caller must then issue
    /// `fence(SeqCst)` and re-check its condition (the Dekker protocol).
    pub(crate) fn register(&self, node: Pin<&Node>, waker: &Waker) -> Place {
        let mut list = self.list.lock();
        // Acquire: whoever emptied the slot is done with its cell. Only
        // lock holders move the slot out of EMPTY, so it stays ours (a
        // stale non-EMPTY just sends us to the list).
        if list.is_empty() && self.slot.load(Acquire) == EMPTY {
            let old = self.slot_waker.with_mut(|w| {
                // SAFETY: EMPTY, under the lock: the cell is ours.
                unsafe { (*w).register(waker) }
            });
            // Release: a notifier that sees WAITING sees the waker too
            // (the fence the caller issues next orders it for Dekker).
            self.slot.store(WAITING, Release);
            drop(list);
            drop(old);
            return Place::Slot;
        }
        // SAFETY: under the lock, and the node is not linked (Place::None).
        unsafe { node.arm(waker) };
        list.push_back(NonNull::from(&*node));
        self.has_waiters.store(true, Relaxed);
        Place::List
    }

    /// A registered waiter is polled again, with `waker`.
    pub(crate) fn poll_registered(&self, place: Place, node: Pin<&Node>, waker: &Waker) -> Polled {
        match place {
            Place::None => Polled::Notified,
            Place::Slot => {
                // Acquire: pairs with the notifier's CASes.
                let mut state = self.slot.load(Acquire);
                loop {
                    if state != WAITING {
                        // Notified (the usual reason for this poll).
                        self.slot_notified(state);
                        return Polled::Notified;
                    }
                    // Take the cell to store the new waker. Acquire: as above.
                    match self
                        .slot
                        .compare_exchange(WAITING, UPDATING, Acquire, Acquire)
                    {
                        Ok(_) => break,
                        Err(actual) => state = actual,
                    }
                }
                let old = self.slot_waker.with_mut(|w| {
                    // SAFETY: UPDATING: the cell is ours.
                    unsafe { (*w).register(waker) }
                });
                // Release: publishes the waker to the next notifier.
                self.slot.store(WAITING, Release);
                drop(old);
                Polled::Recheck
            }
            Place::List => {
                if node.state() != NODE_LINKED {
                    return Polled::Notified;
                }
                let list = self.list.lock();
                if node.state() != NODE_LINKED {
                    return Polled::Notified;
                }
                // SAFETY: we hold the lock of the list the node is in.
                let old = unsafe { node.set_waker(waker) };
                drop(list);
                drop(old);
                Polled::Waiting
            }
        }
    }

    /// Leaves the queue. Returns `true` if the waiter had been notified
    /// (and so consumed a notification it did not act on).
    pub(crate) fn leave(&self, place: Place, node: Pin<&Node>) -> bool {
        match place {
            Place::None => false,
            Place::Slot => {
                // Acquire: decides the race with a notifier's CAS.
                match self
                    .slot
                    .compare_exchange(WAITING, UPDATING, Acquire, Acquire)
                {
                    Ok(_) => {
                        // Our waker must not stay behind: take it before
                        // the slot is free for the next registrant.
                        let waker = self.slot_waker.with_mut(|w| {
                            // SAFETY: UPDATING: the cell is ours.
                            unsafe { (*w).take() }
                        });
                        // Release: the next registrant sees the cell empty.
                        self.slot.store(EMPTY, Release);
                        drop(waker);
                        false
                    }
                    Err(state) => {
                        self.slot_notified(state);
                        true
                    }
                }
            }
            Place::List => {
                if node.state() != NODE_LINKED {
                    return true;
                }
                let mut list = self.list.lock();
                if node.state() != NODE_LINKED {
                    return true;
                }
                // SAFETY: the node is pinned in the caller's future and
                // linked in this list (not notified, so not popped).
                unsafe { list.remove(NonNull::from(&*node)) };
                if list.is_empty() {
                    self.has_waiters.store(false, Relaxed);
                }
                // SAFETY: under the lock, just unlinked.
                let waker = unsafe { node.unlinked() };
                drop(list);
                drop(waker);
                false
            }
        }
    }

    /// The owner of the slot, found notified (`state` is `NOTIFYING` or
    /// `NOTIFIED`), gives the slot up: empties it, or leaves that to the
    /// notifier still taking the waker out.
    fn slot_notified(&self, mut state: usize) {
        if state == NOTIFYING {
            // Success: once ABANDONED we touch neither the slot nor its
            // cell again, so no ordering is needed (AcqRel is the
            // conservative choice, free on x86). Failure, Acquire: NOTIFIED
            // came with the notifier's Release after its take, and our
            // EMPTY store below must come after that take.
            match self
                .slot
                .compare_exchange(NOTIFYING, ABANDONED, AcqRel, Acquire)
            {
                // The notifier empties the slot when it is done.
                Ok(_) => return,
                Err(actual) => state = actual,
            }
        }
        debug_assert_eq!(state, NOTIFIED, "fast slot owner lost its slot");
        // Release: the next registrant (under the lock) sees the slot free,
        // after the notifier's take (which our Acquire load ordered).
        self.slot.store(EMPTY, Release);
    }

    /// Serves the fast slot's waiter, if it is waiting: returns its waker
    /// (a `WAITING` slot always holds one), or `None` if nobody waits there.
    #[inline]
    fn notify_slot(&self) -> Option<Waker> {
        // The plain load first spares the list's waiters (the slot is
        // rarely theirs) a failed CAS: a locked instruction either way.
        // It cannot read an older value than `has_waiters` just did (read-
        // read coherence), so skipping is the CAS failing.
        // Acquire (CAS): see the waker the owner stored before WAITING.
        if self.slot.load(Relaxed) != WAITING
            || self
                .slot
                .compare_exchange(WAITING, NOTIFYING, Acquire, Relaxed)
                .is_err()
        {
            return None;
        }
        let waker = self.slot_waker.with_mut(|w| {
            // SAFETY: NOTIFYING: the cell is ours.
            unsafe { (*w).take() }
        });
        debug_assert!(waker.is_some(), "a WAITING slot holds its waker");
        // Release: the owner that sees NOTIFIED sees the cell emptied.
        if self
            .slot
            .compare_exchange(NOTIFYING, NOTIFIED, Release, Relaxed)
            .is_err()
        {
            // ABANDONED: the owner left, counting the notification as
            // received; the slot is ours to empty. Release: as above, for
            // the next registrant.
            self.slot.store(EMPTY, Release);
        }
        waker
    }

    /// Whether anyone may be waiting. The caller has just published its
    /// change with a `SeqCst` read-modify-write or issued `fence(SeqCst)`
    /// after it (the Dekker protocol, module docs).
    #[inline]
    pub(crate) fn has_waiters(&self) -> bool {
        // SeqCst: after a `SeqCst` claim these loads are the notifier's
        // half of Dekker (no fence); after a fence they cost nothing more
        // (a plain load on x86).
        self.slot.load(SeqCst) == WAITING || self.has_waiters.load(SeqCst)
    }

    /// Wakes the oldest waiter, if any. Call after the fence (see
    /// [`has_waiters`](Self::has_waiters)).
    #[inline]
    pub(crate) fn notify_one(&self) {
        if self.has_waiters() {
            self.notify_one_slow();
        }
    }

    #[inline(never)]
    fn notify_one_slow(&self) {
        if let Some(waker) = self.notify_slot() {
            waker.wake();
            return;
        }
        if !self.has_waiters.load(Relaxed) {
            return;
        }
        let mut list = self.list.lock();
        let Some(node) = list.pop_front() else {
            return;
        };
        if list.is_empty() {
            self.has_waiters.store(false, Relaxed);
        }
        // The node was linked, so its future is alive and pinned until it
        // sees the state `notify` stores.
        // SAFETY: we hold the lock and unlinked the node under it (above).
        let waker = unsafe { Node::notify(node) };
        drop(list);
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Wakes every waiter (on close; the rendezvous path's hand-off waiters
    /// after each pop). Call after the fence, as
    /// [`notify_one`](Self::notify_one): with nobody waiting it takes no
    /// lock.
    #[inline]
    pub(crate) fn notify_all(&self) {
        if self.has_waiters() {
            self.notify_all_slow();
        }
    }

    #[inline(never)]
    fn notify_all_slow(&self) {
        if let Some(waker) = self.notify_slot() {
            waker.wake();
        }
        let mut wakers = WakeList::new();
        let mut list = self.list.lock();
        while let Some(node) = list.pop_front() {
            // SAFETY: as in `notify_one_slow`.
            if let Some(waker) = unsafe { Node::notify(node) } {
                wakers.push(waker);
            }
            if !wakers.can_push() {
                // Wake a full batch with the lock released.
                drop(list);
                wakers.wake_all();
                list = self.list.lock();
            }
        }
        self.has_waiters.store(false, Relaxed);
        drop(list);
        wakers.wake_all();
    }
}

impl Drop for WaitQueue {
    fn drop(&mut self) {
        // Futures borrow the channel, so none can be registered now.
        debug_assert!(self.list.get_mut().is_empty());
    }
}
