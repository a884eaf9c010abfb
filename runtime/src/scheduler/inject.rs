//! The global run queue ("injector").
//!
//! Tasks scheduled from outside a worker (spawns from other threads, wakes
//! from I/O or timers on non-worker threads, local-queue overflow) land here.
//! It is an intrusive FIFO linked through each task header's `queue_next`
//! behind one mutex, so pushing allocates nothing. `len` mirrors the length
//! for lock-free emptiness checks, which workers do often.
//!
//! Once closed (runtime shutdown), pushes drop the task instead; that drop
//! happens after the lock is released since it may run user destructors.

use crate::loom::sync::Mutex;
use crate::loom::sync::atomic::{AtomicUsize, Ordering::*};
use crate::task::{Header, Notified};

use std::marker::PhantomData;
use std::ptr::NonNull;

pub(crate) struct Inject<S: 'static> {
    len: AtomicUsize,
    synced: Mutex<Synced>,
    _p: PhantomData<S>,
}

struct Synced {
    is_closed: bool,
    head: Option<NonNull<Header>>,
    tail: Option<NonNull<Header>>,
}

// SAFETY: the raw pointers are `Notified` handles owned by the queue and
// only touched under the mutex.
unsafe impl Send for Synced {}

impl<S: 'static> Inject<S> {
    pub(crate) fn new() -> Inject<S> {
        Inject {
            len: AtomicUsize::new(0),
            synced: Mutex::new(Synced {
                is_closed: false,
                head: None,
                tail: None,
            }),
            _p: PhantomData,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn len(&self) -> usize {
        // Acquire: pairs with the Release store after a push, so a reader
        // that sees `len > 0` and then locks finds the task.
        self.len.load(Acquire)
    }

    /// Closes the queue; `true` if this call closed it.
    pub(crate) fn close(&self) -> bool {
        let mut synced = self.synced.lock();
        if synced.is_closed {
            return false;
        }
        synced.is_closed = true;
        true
    }

    #[cfg(feature = "rt-multi-thread")]
    pub(crate) fn is_closed(&self) -> bool {
        self.synced.lock().is_closed
    }

    /// Pushes a task; drops it if the queue is closed.
    pub(crate) fn push(&self, task: Notified<S>) {
        let mut synced = self.synced.lock();
        if synced.is_closed {
            drop(synced);
            drop(task);
            return;
        }
        let ptr = task.into_raw();
        // SAFETY: we own the `Notified` and hold the lock.
        unsafe { ptr.as_ref().set_next(None) };
        match synced.tail {
            // SAFETY: the tail is a task owned by this queue.
            Some(tail) => unsafe { tail.as_ref().set_next(Some(ptr)) },
            None => synced.head = Some(ptr),
        }
        synced.tail = Some(ptr);
        // Only writers under the lock change `len`: a load + store suffices.
        let len = self.len.load(Relaxed);
        self.len.store(len + 1, Release);
    }

    /// Pushes many tasks under one lock acquisition.
    #[cfg(feature = "rt-multi-thread")]
    pub(crate) fn push_batch(&self, mut iter: impl Iterator<Item = Notified<S>>) {
        // Link the batch first, outside the lock.
        let Some(first) = iter.next() else { return };
        let first = first.into_raw();
        let mut prev = first;
        let mut count = 1;
        for task in iter {
            let ptr = task.into_raw();
            // SAFETY: we own these tasks; none is in any queue.
            unsafe { prev.as_ref().set_next(Some(ptr)) };
            prev = ptr;
            count += 1;
        }
        // SAFETY: as above.
        unsafe { prev.as_ref().set_next(None) };

        let mut synced = self.synced.lock();
        if synced.is_closed {
            drop(synced);
            let mut curr = Some(first);
            while let Some(ptr) = curr {
                // SAFETY: the chain is ours; each node is a `Notified`.
                unsafe {
                    curr = ptr.as_ref().get_next();
                    drop(Notified::<S>::from_raw_header(ptr));
                }
            }
            return;
        }
        match synced.tail {
            // SAFETY: the tail is a task owned by this queue.
            Some(tail) => unsafe { tail.as_ref().set_next(Some(first)) },
            None => synced.head = Some(first),
        }
        synced.tail = Some(prev);
        let len = self.len.load(Relaxed);
        self.len.store(len + count, Release);
    }

    pub(crate) fn pop(&self) -> Option<Notified<S>> {
        if self.is_empty() {
            return None;
        }
        let mut synced = self.synced.lock();
        let task = self.pop_locked(&mut synced)?;
        Some(task)
    }

    /// Takes up to `n` tasks under one lock acquisition, handing each to
    /// `f` (which runs under the lock, so it must not run user code).
    /// Returns how many were taken.
    #[cfg(feature = "rt-multi-thread")]
    pub(crate) fn pop_n(&self, n: usize, mut f: impl FnMut(Notified<S>)) -> usize {
        if self.is_empty() || n == 0 {
            return 0;
        }
        let mut synced = self.synced.lock();
        let mut taken = 0;
        while taken < n {
            match self.pop_locked(&mut synced) {
                Some(task) => f(task),
                None => break,
            }
            taken += 1;
        }
        taken
    }

    fn pop_locked(&self, synced: &mut Synced) -> Option<Notified<S>> {
        let head = synced.head?;
        // SAFETY: the head is a task owned by this queue, under the lock.
        unsafe {
            synced.head = head.as_ref().get_next();
            if synced.head.is_none() {
                synced.tail = None;
            }
            head.as_ref().set_next(None);
        }
        let len = self.len.load(Relaxed);
        self.len.store(len - 1, Release);
        // SAFETY: the pointer came from `Notified::into_raw`.
        Some(unsafe { Notified::from_raw_header(head) })
    }
}

impl<S: 'static> Drop for Inject<S> {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            assert!(self.pop().is_none(), "queue not empty");
        }
    }
}
