//! Weak handles of the live runtimes, by id.
//!
//! A `Sleep` remembers only the id of the runtime it was created in until
//! it first needs that runtime's timer driver (see `time::sleep`): creating
//! and dropping a sleep that is never polled, the common case of a
//! `timeout` around a future that is ready at once, then touches no
//! reference count. When such a sleep is first polled on a thread whose
//! current runtime is not its own (another runtime, or a plain thread), it
//! finds its runtime here.
//!
//! Runtimes register when they are built; an entry whose runtime is gone
//! is pruned at the next registration. The lock is taken only on those two
//! rare paths, never per sleep.

use super::Handle;
use super::current_thread;
#[cfg(feature = "rt-multi-thread")]
use super::multi_thread;

use std::sync::{Mutex, PoisonError, Weak};

enum WeakHandle {
    CurrentThread(Weak<current_thread::Handle>),
    #[cfg(feature = "rt-multi-thread")]
    MultiThread(Weak<multi_thread::Handle>),
}

impl WeakHandle {
    fn upgrade(&self) -> Option<Handle> {
        match self {
            WeakHandle::CurrentThread(w) => w.upgrade().map(Handle::CurrentThread),
            #[cfg(feature = "rt-multi-thread")]
            WeakHandle::MultiThread(w) => w.upgrade().map(Handle::MultiThread),
        }
    }

    fn is_alive(&self) -> bool {
        match self {
            WeakHandle::CurrentThread(w) => w.strong_count() > 0,
            #[cfg(feature = "rt-multi-thread")]
            WeakHandle::MultiThread(w) => w.strong_count() > 0,
        }
    }
}

/// `(owned_id, handle)` of every runtime built and not yet pruned.
static RUNTIMES: Mutex<Vec<(u64, WeakHandle)>> = Mutex::new(Vec::new());

/// Records a newly built runtime.
pub(crate) fn register(handle: &Handle) {
    let weak = match handle {
        Handle::CurrentThread(h) => WeakHandle::CurrentThread(std::sync::Arc::downgrade(h)),
        #[cfg(feature = "rt-multi-thread")]
        Handle::MultiThread(h) => WeakHandle::MultiThread(std::sync::Arc::downgrade(h)),
    };
    // Nothing can panic while the lock is held, so poison carries no
    // broken invariant.
    let mut runtimes = RUNTIMES.lock().unwrap_or_else(PoisonError::into_inner);
    runtimes.retain(|(_, w)| w.is_alive());
    runtimes.push((handle.owned_id(), weak));
}

/// The runtime with this id, if any handle of it is still alive.
pub(crate) fn find(id: u64) -> Option<Handle> {
    let runtimes = RUNTIMES.lock().unwrap_or_else(PoisonError::into_inner);
    runtimes
        .iter()
        .find(|(rt, _)| *rt == id)
        .and_then(|(_, w)| w.upgrade())
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn finds_live_runtimes_only() {
        let rt = crate::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let id = rt.handle().inner.owned_id();
        let found = find(id).expect("a live runtime is registered");
        assert_eq!(found.owned_id(), id);
        drop(found);
        drop(rt);
        assert!(find(id).is_none(), "a dropped runtime is not found");
    }
}
