//! An intrusive doubly-linked list.
//!
//! The nodes own their links: a node embeds a [`Pointers`] and the list
//! threads raw pointers through it, so linking and unlinking allocate nothing
//! and unlinking a known node is O(1). Task headers (the runtime's list of
//! owned tasks) and the waiters of `volt-sync` and `volt-channel` live in
//! such lists.
//!
//! # Who may touch what
//!
//! The list itself is not synchronized: every method takes `&mut self`, and
//! the links inside a node are only read or written by the list that holds
//! the node. Callers keep the list behind a lock, and keep a node pinned
//! (never moved, never freed) while it is linked. A node that is not in any
//! list has both links `None`; popping or removing a node resets its links,
//! which is what lets [`LinkedList::remove`] tell "not linked" apart from
//! "linked".
//!
//! # The head's `prev`
//!
//! Every linked node except the head has a valid `prev`. The head's `prev`
//! is *not* maintained: unlinking the head (`pop_front` above all) leaves
//! the new head's `prev` pointing at the node that just left, which may be
//! freed at once. Nothing reads it: the list recognizes its head by
//! comparing with `head`, and `push_front` and `take_guarded` overwrite it.
//! This is what makes a FIFO pop touch one node instead of two. A waiter
//! list popped by one core and pushed by another (a semaphore's queue in a
//! lock convoy) would otherwise write the next waiter's line, usually last
//! written by the other core, inside the critical section of every pop.

use std::cell::UnsafeCell;
use std::fmt;
use std::marker::{PhantomData, PhantomPinned};
use std::ptr::NonNull;

/// How a list reaches the [`Pointers`] of its nodes.
///
/// # Safety
///
/// `pointers` must return the address of a `Pointers` that lives as long as
/// the node and is used by no other list; `from_raw(as_raw(h))` must give back
/// an equivalent handle; a node must not move while it is linked.
pub unsafe trait Link {
    /// The owning handle that goes into and comes out of the list.
    type Handle;
    /// The node type.
    type Target;

    /// The node a handle points at (the handle keeps owning it).
    fn as_raw(handle: &Self::Handle) -> NonNull<Self::Target>;

    /// Rebuilds the handle that `as_raw` took the pointer from.
    ///
    /// # Safety
    /// `ptr` must come from `as_raw` of a handle given to the list.
    unsafe fn from_raw(ptr: NonNull<Self::Target>) -> Self::Handle;

    /// The links embedded in `target`.
    ///
    /// # Safety
    /// `target` must point to a live node.
    unsafe fn pointers(target: NonNull<Self::Target>) -> NonNull<Pointers<Self::Target>>;
}

/// Implements [`Link`] for a pinned intrusive node, the kind every waiter
/// queue uses (semaphore and `Notify` waiters, the channels' waiters, I/O
/// readiness waiters, timer entries): the handle is a `NonNull` to the
/// node that owns nothing, and the node's `$field` holds its links.
///
/// `__pinned_node_link!(pub(crate) WaiterLink => Waiter, pointers);`
///
/// The invoking module promises what [`Link`] requires: `$field` is used
/// by one list at a time, and a node stays pinned (inside its future or
/// entry) while linked and is unlinked, under its list's lock, before it
/// is dropped.
#[macro_export]
#[doc(hidden)]
macro_rules! __pinned_node_link {
    ($vis:vis $link:ident => $node:ty, $field:ident) => {
        $vis struct $link;

        // SAFETY: the invoking module's promise (this macro's docs);
        // `pointers` only takes the address of a field of a live node.
        unsafe impl $crate::bridge::Link for $link {
            type Handle = ::std::ptr::NonNull<$node>;
            type Target = $node;

            fn as_raw(handle: &::std::ptr::NonNull<$node>) -> ::std::ptr::NonNull<$node> {
                *handle
            }

            unsafe fn from_raw(ptr: ::std::ptr::NonNull<$node>) -> ::std::ptr::NonNull<$node> {
                ptr
            }

            unsafe fn pointers(
                target: ::std::ptr::NonNull<$node>,
            ) -> ::std::ptr::NonNull<$crate::bridge::Pointers<$node>> {
                // SAFETY: `target` is live (the trait's contract); no
                // reference to the whole node is made.
                unsafe { ::std::ptr::NonNull::new_unchecked(&raw mut (*target.as_ptr()).$field) }
            }
        }
    };
}

/// The links embedded in a node.
pub struct Pointers<T> {
    inner: UnsafeCell<PointersInner<T>>,
}

struct PointersInner<T> {
    prev: Option<NonNull<T>>,
    next: Option<NonNull<T>>,
    /// A linked node must stay where it is.
    _pin: PhantomPinned,
}

// SAFETY: the links are only read or written by the list holding the node,
// which callers keep behind a lock (see the module docs).
unsafe impl<T: Send> Send for Pointers<T> {}
// SAFETY: as above: shared references never touch the links without the
// owning list's lock.
unsafe impl<T: Sync> Sync for Pointers<T> {}

impl<T> Pointers<T> {
    /// Links for a node that is in no list.
    pub const fn new() -> Pointers<T> {
        Pointers {
            inner: UnsafeCell::new(PointersInner {
                prev: None,
                next: None,
                _pin: PhantomPinned,
            }),
        }
    }

    fn get_prev(&self) -> Option<NonNull<T>> {
        // SAFETY: the caller (the list) has exclusive access to the links.
        unsafe { (*self.inner.get()).prev }
    }

    fn get_next(&self) -> Option<NonNull<T>> {
        // SAFETY: as in `get_prev`.
        unsafe { (*self.inner.get()).next }
    }

    fn set_prev(&self, value: Option<NonNull<T>>) {
        // SAFETY: as in `get_prev`.
        unsafe { (*self.inner.get()).prev = value }
    }

    fn set_next(&self, value: Option<NonNull<T>>) {
        // SAFETY: as in `get_prev`.
        unsafe { (*self.inner.get()).next = value }
    }
}

impl<T> Default for Pointers<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> fmt::Debug for Pointers<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pointers").finish_non_exhaustive()
    }
}

/// An intrusive doubly-linked list of `L::Target` nodes.
pub struct LinkedList<L: Link> {
    head: Option<NonNull<L::Target>>,
    tail: Option<NonNull<L::Target>>,
    _marker: PhantomData<*const L>,
}

// SAFETY: the list owns its handles; sending it sends them.
unsafe impl<L: Link> Send for LinkedList<L> where L::Target: Send {}
// SAFETY: every method that touches nodes takes `&mut self`.
unsafe impl<L: Link> Sync for LinkedList<L> where L::Target: Sync {}

/// Shorthand for the links of a node.
///
/// # Safety
/// `node` must be live; the returned reference must not outlive it.
unsafe fn links<'a, L: Link>(node: NonNull<L::Target>) -> &'a Pointers<L::Target> {
    // SAFETY: guaranteed by the caller and by `Link::pointers`.
    unsafe { L::pointers(node).as_ref() }
}

impl<L: Link> LinkedList<L> {
    /// An empty list.
    pub const fn new() -> Self {
        LinkedList {
            head: None,
            tail: None,
            _marker: PhantomData,
        }
    }

    /// Whether the list holds no node.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head.is_none()
    }

    /// The first node, without unlinking it.
    #[inline]
    pub fn front(&self) -> Option<NonNull<L::Target>> {
        self.head
    }

    /// The last node, without unlinking it.
    #[inline]
    pub fn back(&self) -> Option<NonNull<L::Target>> {
        self.tail
    }

    /// Links `handle` at the front.
    pub fn push_front(&mut self, handle: L::Handle) {
        let node = L::as_raw(&handle);
        std::mem::forget(handle);
        // SAFETY: the handle owned a live node; it now belongs to the list.
        let p = unsafe { links::<L>(node) };
        debug_assert!(self.head != Some(node));
        p.set_next(self.head);
        p.set_prev(None);
        match self.head {
            // SAFETY: `head` is a live node of this list.
            Some(head) => unsafe { links::<L>(head) }.set_prev(Some(node)),
            None => self.tail = Some(node),
        }
        self.head = Some(node);
    }

    /// Links `handle` at the back.
    pub fn push_back(&mut self, handle: L::Handle) {
        let node = L::as_raw(&handle);
        std::mem::forget(handle);
        // SAFETY: the handle owned a live node; it now belongs to the list.
        let p = unsafe { links::<L>(node) };
        debug_assert!(self.tail != Some(node));
        p.set_prev(self.tail);
        p.set_next(None);
        match self.tail {
            // SAFETY: `tail` is a live node of this list.
            Some(tail) => unsafe { links::<L>(tail) }.set_next(Some(node)),
            None => self.head = Some(node),
        }
        self.tail = Some(node);
    }

    /// Unlinks and returns the first node.
    pub fn pop_front(&mut self) -> Option<L::Handle> {
        let node = self.head?;
        // SAFETY: `node` is linked in this list, so it is live and ours.
        unsafe { self.unlink(node) };
        // SAFETY: the node came from a handle given to `push_*`.
        Some(unsafe { L::from_raw(node) })
    }

    /// Unlinks and returns the last node.
    pub fn pop_back(&mut self) -> Option<L::Handle> {
        let node = self.tail?;
        // SAFETY: `node` is linked in this list, so it is live and ours.
        unsafe { self.unlink(node) };
        // SAFETY: the node came from a handle given to `push_*`.
        Some(unsafe { L::from_raw(node) })
    }

    /// Unlinks `node` if it is linked in this list, and returns its handle.
    /// Returns `None` for a node that is in no list.
    ///
    /// # Safety
    ///
    /// `node` must be live, and either linked in this list or in no list.
    pub unsafe fn remove(&mut self, node: NonNull<L::Target>) -> Option<L::Handle> {
        // SAFETY: `node` is live (caller's contract).
        let p = unsafe { links::<L>(node) };
        if p.get_prev().is_none() && self.head != Some(node) {
            // Not the head and no predecessor: not linked.
            return None;
        }
        // SAFETY: linked in this list (caller's contract + the check above).
        unsafe { self.unlink(node) };
        // SAFETY: the node came from a handle given to `push_*`.
        Some(unsafe { L::from_raw(node) })
    }

    /// Whether `node` is linked in this list (assuming it is in this list or
    /// in none).
    ///
    /// # Safety
    /// `node` must be live, and either linked in this list or in no list.
    pub unsafe fn is_linked(&self, node: NonNull<L::Target>) -> bool {
        // SAFETY: `node` is live (caller's contract).
        let p = unsafe { links::<L>(node) };
        p.get_prev().is_some() || self.head == Some(node)
    }

    /// The node after `node`, for walking the list under its lock.
    ///
    /// # Safety
    /// `node` must be linked in this list.
    pub unsafe fn next(&self, node: NonNull<L::Target>) -> Option<NonNull<L::Target>> {
        // SAFETY: `node` is linked in this list (caller's contract).
        unsafe { links::<L>(node) }.get_next()
    }

    /// # Safety
    /// `node` must be linked in this list.
    unsafe fn unlink(&mut self, node: NonNull<L::Target>) {
        // SAFETY: `node` and its neighbours are linked in this list.
        unsafe {
            let p = links::<L>(node);
            let next = p.get_next();
            if self.head == Some(node) {
                // The new head keeps its stale `prev` (see the module docs).
                self.head = next;
                if next.is_none() {
                    self.tail = None;
                }
            } else {
                let prev = p.get_prev();
                debug_assert!(
                    prev.is_some(),
                    "a linked node that is not the head has a prev"
                );
                if let Some(prev) = prev {
                    links::<L>(prev).set_next(next);
                }
                match next {
                    Some(next) => links::<L>(next).set_prev(prev),
                    None => self.tail = prev,
                }
            }
            p.set_prev(None);
            p.set_next(None);
        }
    }
}

impl<L: Link> LinkedList<L> {
    /// Moves every node into a [`GuardedLinkedList`] threaded through
    /// `guard`, leaving this list empty.
    ///
    /// # Safety
    ///
    /// `guard` must be a live node that is in no list, must not move, and
    /// must outlive the returned list's use; every node must leave the
    /// guarded list (by `pop_back` or by `remove` on this list) before
    /// `guard` goes away.
    pub unsafe fn take_guarded(&mut self, guard: NonNull<L::Target>) -> GuardedLinkedList<L> {
        // SAFETY: `guard` is live (caller's contract); the nodes are linked
        // in this list.
        unsafe {
            let g = links::<L>(guard);
            match (self.head.take(), self.tail.take()) {
                (Some(head), Some(tail)) => {
                    g.set_next(Some(head));
                    g.set_prev(Some(tail));
                    links::<L>(head).set_prev(Some(guard));
                    links::<L>(tail).set_next(Some(guard));
                }
                _ => {
                    g.set_next(Some(guard));
                    g.set_prev(Some(guard));
                }
            }
        }
        GuardedLinkedList {
            guard,
            _marker: PhantomData,
        }
    }
}

/// A circular list closed by a guard node: every node always has both
/// neighbours, so a node can be unlinked with [`LinkedList::remove`] of the
/// list it came from (which then touches only the neighbours' links, never
/// that list's ends). `Notify::notify_waiters` uses it to wake waiters in
/// batches, releasing its lock in between, while any of them may cancel.
pub struct GuardedLinkedList<L: Link> {
    guard: NonNull<L::Target>,
    _marker: PhantomData<*const L>,
}

impl<L: Link> GuardedLinkedList<L> {
    /// Unlinks and returns the node that was last in the original list.
    pub fn pop_back(&mut self) -> Option<L::Handle> {
        // SAFETY: the guard and every node in the ring are live (contract of
        // `take_guarded`), and the caller holds the lock that protects them.
        unsafe {
            let g = links::<L>(self.guard);
            let last = g.get_prev().expect("guarded list is circular");
            if last == self.guard {
                return None;
            }
            let p = links::<L>(last);
            let prev = p.get_prev().expect("guarded list is circular");
            links::<L>(prev).set_next(Some(self.guard));
            g.set_prev(Some(prev));
            p.set_prev(None);
            p.set_next(None);
            Some(L::from_raw(last))
        }
    }

    /// Whether no node is left.
    pub fn is_empty(&self) -> bool {
        // SAFETY: as in `pop_back`.
        unsafe { links::<L>(self.guard).get_prev() == Some(self.guard) }
    }
}

impl<L: Link> fmt::Debug for GuardedLinkedList<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GuardedLinkedList").finish_non_exhaustive()
    }
}

impl<L: Link> Default for LinkedList<L> {
    fn default() -> Self {
        Self::new()
    }
}

impl<L: Link> fmt::Debug for LinkedList<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LinkedList")
            .field("head", &self.head)
            .field("tail", &self.tail)
            .finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::pin::Pin;

    struct Node {
        value: i32,
        pointers: Pointers<Node>,
    }

    struct NodeLink;

    // SAFETY: `pointers` is a field of the node, used by one list at a time;
    // nodes are pinned boxes owned by the test.
    unsafe impl Link for NodeLink {
        type Handle = NonNull<Node>;
        type Target = Node;

        fn as_raw(handle: &NonNull<Node>) -> NonNull<Node> {
            *handle
        }

        unsafe fn from_raw(ptr: NonNull<Node>) -> NonNull<Node> {
            ptr
        }

        unsafe fn pointers(target: NonNull<Node>) -> NonNull<Pointers<Node>> {
            // SAFETY: `target` is live (trait contract).
            unsafe { NonNull::from(&(*target.as_ptr()).pointers) }
        }
    }

    fn node(value: i32) -> Pin<Box<Node>> {
        Box::pin(Node {
            value,
            pointers: Pointers::new(),
        })
    }

    fn ptr(n: &Pin<Box<Node>>) -> NonNull<Node> {
        NonNull::from(&**n)
    }

    fn drain(list: &mut LinkedList<NodeLink>) -> Vec<i32> {
        let mut out = vec![];
        while let Some(n) = list.pop_front() {
            // SAFETY: every node in the list is alive for the whole test.
            out.push(unsafe { n.as_ref() }.value);
        }
        out
    }

    #[test]
    fn push_pop_both_ends() {
        let (a, b, c) = (node(1), node(2), node(3));
        let mut list = LinkedList::<NodeLink>::new();
        assert!(list.is_empty());
        list.push_back(ptr(&a));
        list.push_back(ptr(&b));
        list.push_front(ptr(&c));
        assert_eq!(drain(&mut list), vec![3, 1, 2]);
        assert!(list.is_empty());

        list.push_back(ptr(&a));
        list.push_back(ptr(&b));
        // SAFETY: nodes are alive.
        assert_eq!(unsafe { list.pop_back().unwrap().as_ref() }.value, 2);
        // SAFETY: nodes are alive.
        assert_eq!(unsafe { list.pop_back().unwrap().as_ref() }.value, 1);
        assert!(list.pop_back().is_none());
    }

    #[test]
    fn remove_middle_head_tail_and_unlinked() {
        let nodes: Vec<_> = (0..5).map(node).collect();
        let mut list = LinkedList::<NodeLink>::new();
        for n in &nodes {
            list.push_back(ptr(n));
        }
        // SAFETY: nodes are alive and linked in `list` or in none.
        unsafe {
            assert!(list.remove(ptr(&nodes[2])).is_some());
            assert!(list.remove(ptr(&nodes[2])).is_none(), "already unlinked");
            assert!(list.remove(ptr(&nodes[0])).is_some());
            assert!(list.remove(ptr(&nodes[4])).is_some());
            assert!(!list.is_linked(ptr(&nodes[4])));
            assert!(list.is_linked(ptr(&nodes[3])));
        }
        assert_eq!(drain(&mut list), vec![1, 3]);
        // SAFETY: node is alive and in no list.
        assert!(unsafe { list.remove(ptr(&nodes[1])) }.is_none());
    }

    /// `pop_front` leaves the new head's `prev` pointing at the popped node.
    /// Freeing that node first lets Miri catch any read through it.
    #[test]
    fn stale_head_prev_is_never_followed() {
        let (b, c, d) = (node(1), node(2), node(3));
        let mut list = LinkedList::<NodeLink>::new();
        for round in 0..4 {
            let a = node(0);
            list.push_back(ptr(&a));
            list.push_back(ptr(&b));
            list.push_back(ptr(&c));
            // SAFETY: nodes are alive.
            assert_eq!(unsafe { list.pop_front().unwrap().as_ref() }.value, 0);
            drop(a);
            // SAFETY: every node but the freed `a` is alive and linked in
            // `list` or in none.
            unsafe {
                assert!(list.is_linked(ptr(&b)));
                match round {
                    // Remove the head with the stale `prev`.
                    0 => {
                        assert!(list.remove(ptr(&b)).is_some());
                        assert!(!list.is_linked(ptr(&b)));
                        assert_eq!(drain(&mut list), vec![2]);
                    }
                    // Push in front of it.
                    1 => {
                        list.push_front(ptr(&d));
                        assert!(list.remove(ptr(&b)).is_some());
                        assert_eq!(drain(&mut list), vec![3, 2]);
                    }
                    // Pop it from the back, as the last node.
                    2 => {
                        assert_eq!(list.pop_back().unwrap().as_ref().value, 2);
                        assert_eq!(list.pop_back().unwrap().as_ref().value, 1);
                        assert!(list.is_empty());
                    }
                    // Remove the node after it, then it.
                    _ => {
                        assert!(list.remove(ptr(&c)).is_some());
                        assert!(list.remove(ptr(&b)).is_some());
                        assert!(list.is_empty() && list.back().is_none());
                    }
                }
            }
        }
    }
}
