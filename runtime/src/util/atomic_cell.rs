//! A slot that atomically holds an optional `Box<T>` (a worker's core while
//! it is handed between threads).

use crate::loom::sync::atomic::{AtomicPtr, Ordering::AcqRel};
use std::ptr;

pub(crate) struct AtomicCell<T> {
    data: AtomicPtr<T>,
}

// SAFETY: the cell moves a `Box<T>` between threads, which needs `T: Send`;
// shared access only swaps pointers.
unsafe impl<T: Send> Send for AtomicCell<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for AtomicCell<T> {}

impl<T> AtomicCell<T> {
    pub(crate) fn new(data: Option<Box<T>>) -> AtomicCell<T> {
        AtomicCell {
            data: AtomicPtr::new(to_raw(data)),
        }
    }

    /// Stores `val`, returning what was there.
    pub(crate) fn swap(&self, val: Option<Box<T>>) -> Option<Box<T>> {
        // AcqRel: publishes the box we put in, acquires the one we take.
        let old = self.data.swap(to_raw(val), AcqRel);
        from_raw(old)
    }

    pub(crate) fn set(&self, val: Box<T>) {
        let _ = self.swap(Some(val));
    }

    pub(crate) fn take(&self) -> Option<Box<T>> {
        self.swap(None)
    }
}

fn to_raw<T>(data: Option<Box<T>>) -> *mut T {
    data.map_or(ptr::null_mut(), Box::into_raw)
}

fn from_raw<T>(val: *mut T) -> Option<Box<T>> {
    if val.is_null() {
        None
    } else {
        // SAFETY: non-null pointers in the cell come from `Box::into_raw`,
        // and the swap gave us sole ownership.
        Some(unsafe { Box::from_raw(val) })
    }
}

impl<T> Drop for AtomicCell<T> {
    fn drop(&mut self) {
        // Drop the box, if any.
        let _ = self.take();
    }
}
