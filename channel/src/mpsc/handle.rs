//! Reference-counted handles shared by the bounded and unbounded halves:
//! strong sender handles (the channel ends for the receiver when the last
//! one goes), weak ones (which may be upgraded while a strong one lives),
//! and the receiver handle (which closes the channel when dropped, unless
//! it is the last handle of all, with nobody left to tell).

use super::chan::Chan;
use crate::bridge::loom::sync::Arc;
use crate::bridge::loom::sync::atomic::Ordering::*;

use std::task::{Context, Poll};

/// A strong sender handle.
pub(super) struct Tx<T> {
    pub(super) chan: Arc<Chan<T>>,
}

impl<T> Tx<T> {
    pub(super) fn new(chan: Arc<Chan<T>>) -> Self {
        Tx { chan }
    }

    pub(super) fn downgrade(&self) -> WeakTx<T> {
        // Relaxed: a counter only read for `weak_count`.
        self.chan.tx_weak_count.fetch_add(1, Relaxed);
        WeakTx {
            chan: self.chan.clone(),
        }
    }

    pub(super) fn same_channel(&self, other: &Tx<T>) -> bool {
        Arc::ptr_eq(&self.chan, &other.chan)
    }

    pub(super) fn strong_count(&self) -> usize {
        self.chan.tx_count.load(Acquire)
    }

    pub(super) fn weak_count(&self) -> usize {
        self.chan.tx_weak_count.load(Relaxed)
    }
}

impl<T> Clone for Tx<T> {
    fn clone(&self) -> Self {
        // Relaxed: made from a live handle, the count stays above zero.
        self.chan.tx_count.fetch_add(1, Relaxed);
        Tx {
            chan: self.chan.clone(),
        }
    }
}

impl<T> Drop for Tx<T> {
    fn drop(&mut self) {
        // AcqRel: the receiver that sees 0 (Acquire) sees all our pushes.
        // The last handle of all (the receiver gone, no weak sender) has
        // nobody to wake: the receiver took its waker when it went.
        if self.chan.tx_count.fetch_sub(1, AcqRel) == 1 && !is_last_handle(&self.chan) {
            self.chan.last_sender_dropped();
        }
    }
}

/// Whether `chan` is the channel's one handle left: every other handle
/// (senders, weak senders, permits, the receiver) holds an `Arc` of its
/// own, and no `Weak` of it is ever made. Nobody is left then to see a
/// close or a wake-up, and none can appear (a new handle is made from an
/// existing one), so the caller may skip them. Only a skip: the data
/// itself is still read through the list's own synchronization, so the
/// count's `Relaxed` load needs no fence.
fn is_last_handle<T>(chan: &Arc<Chan<T>>) -> bool {
    Arc::strong_count(chan) == 1
}

/// A weak sender handle.
pub(super) struct WeakTx<T> {
    chan: Arc<Chan<T>>,
}

impl<T> WeakTx<T> {
    pub(super) fn upgrade(&self) -> Option<Tx<T>> {
        crate::increment_if_nonzero(&self.chan.tx_count).then(|| Tx::new(self.chan.clone()))
    }

    pub(super) fn strong_count(&self) -> usize {
        self.chan.tx_count.load(Acquire)
    }

    pub(super) fn weak_count(&self) -> usize {
        self.chan.tx_weak_count.load(Relaxed)
    }
}

impl<T> Clone for WeakTx<T> {
    fn clone(&self) -> Self {
        self.chan.tx_weak_count.fetch_add(1, Relaxed);
        WeakTx {
            chan: self.chan.clone(),
        }
    }
}

impl<T> Drop for WeakTx<T> {
    fn drop(&mut self) {
        self.chan.tx_weak_count.fetch_sub(1, Relaxed);
    }
}

/// The receiver handle.
pub(super) struct Rx<T> {
    pub(super) chan: Arc<Chan<T>>,
}

// The receiver's operations take `&mut self`: that is what makes it the
// channel's one consumer, which the list's single-consumer pop needs.
impl<T> Rx<T> {
    pub(super) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        // SAFETY: `&mut self`: the one receiver, not shared.
        unsafe { self.chan.poll_recv(cx) }
    }

    pub(super) fn try_recv(&mut self) -> Result<T, bool> {
        // SAFETY: as above.
        unsafe { self.chan.try_recv() }
    }

    pub(super) fn poll_recv_many(
        &mut self,
        cx: &mut Context<'_>,
        buffer: &mut Vec<T>,
        limit: usize,
    ) -> Poll<usize> {
        // SAFETY: as above.
        unsafe { self.chan.poll_recv_many(cx, buffer, limit) }
    }

    pub(super) fn sender_strong_count(&self) -> usize {
        self.chan.tx_count.load(Acquire)
    }

    pub(super) fn sender_weak_count(&self) -> usize {
        self.chan.tx_weak_count.load(Relaxed)
    }
}

impl<T> Drop for Rx<T> {
    fn drop(&mut self) {
        // The last handle (every sender gone) closes nothing: there is
        // nobody to tell. It still drops the values left.
        let close = !is_last_handle(&self.chan);
        // SAFETY: the one receiver, dropped once.
        unsafe { self.chan.rx_drop(close) };
    }
}
