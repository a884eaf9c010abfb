//! The weighted-semaphore contract, one named test per clause, plus
//! regression tests for bugs other runtimes shipped. Futures are polled by
//! hand so every interleaving is explicit.

use super::*;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::task::{Context, Poll, Wake, Waker};

/// A waker that counts its wakes.
struct Flag(AtomicUsize);

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, SeqCst);
    }
}

struct Waiting<'a> {
    fut: Pin<Box<Acquire<'a>>>,
    flag: Arc<Flag>,
}

impl<'a> Waiting<'a> {
    /// Starts an acquire of `n` and polls it once.
    fn start(sem: &'a Semaphore, n: usize) -> (Self, Poll<Result<(), AcquireError>>) {
        let mut w = Waiting {
            fut: Box::pin(sem.acquire(n)),
            flag: Arc::new(Flag(AtomicUsize::new(0))),
        };
        let first = w.poll();
        (w, first)
    }

    fn pending(sem: &'a Semaphore, n: usize) -> Self {
        let (w, first) = Self::start(sem, n);
        assert!(first.is_pending(), "acquire({n}) should wait");
        w
    }

    fn poll(&mut self) -> Poll<Result<(), AcquireError>> {
        let waker = Waker::from(self.flag.clone());
        self.fut.as_mut().poll(&mut Context::from_waker(&waker))
    }

    fn woken(&self) -> usize {
        self.flag.0.load(SeqCst)
    }

    fn is_ready(&mut self) -> bool {
        matches!(self.poll(), Poll::Ready(Ok(())))
    }
}

#[test]
fn strict_fifo() {
    let sem = Semaphore::new(0);
    let mut a = Waiting::pending(&sem, 1);
    let mut b = Waiting::pending(&sem, 1);
    let mut c = Waiting::pending(&sem, 1);
    sem.release(1);
    assert_eq!((a.woken(), b.woken(), c.woken()), (1, 0, 0));
    assert!(a.is_ready());
    assert!(!b.is_ready() && !c.is_ready());
    sem.release(1);
    assert!(b.is_ready());
    assert!(!c.is_ready());
    sem.release(1);
    assert!(c.is_ready());
    assert_eq!(sem.available_permits(), 0);
}

#[test]
fn head_of_line_blocking() {
    let sem = Semaphore::new(10);
    sem.try_acquire(9).unwrap();
    // One permit is free, but the large request at the head takes it.
    let mut big = Waiting::pending(&sem, 10);
    let mut small = Waiting::pending(&sem, 1);
    assert_eq!(sem.available_permits(), 0);
    sem.release(5);
    assert!(!big.is_ready(), "still needs 4");
    assert!(!small.is_ready(), "blocked behind the head");
    assert_eq!(small.woken(), 0);
    sem.release(4);
    assert!(big.is_ready());
    assert!(!small.is_ready(), "the big one holds all 10");
    sem.release(10);
    assert!(small.is_ready());
    assert_eq!(sem.available_permits(), 9);
}

#[test]
fn try_acquire_fails_while_anyone_is_queued() {
    let sem = Semaphore::new(5);
    let _big = Waiting::pending(&sem, 10);
    assert_eq!(sem.available_permits(), 0);
    assert_eq!(sem.try_acquire(1), Err(TryAcquireError::NoPermits));
    // Releases go to the queued waiter, not to the counter.
    sem.release(3);
    assert_eq!(sem.try_acquire(1), Err(TryAcquireError::NoPermits));
}

#[test]
fn cancellation_purity() {
    let sem = Semaphore::new(1);
    // Takes the one permit, waits for two more.
    let a = Waiting::pending(&sem, 3);
    let mut b = Waiting::pending(&sem, 1);
    sem.release(1);
    // `a` has 2 of 3 now. Cancelling it hands both to `b` (1) and the
    // counter (1).
    assert_eq!(b.woken(), 0);
    drop(a);
    assert_eq!(b.woken(), 1);
    assert!(b.is_ready());
    assert_eq!(sem.available_permits(), 1);
    // Nothing leaked: b's permit comes back too.
    sem.release(1);
    assert_eq!(sem.available_permits(), 2);
}

#[test]
fn cancelled_waiter_keeps_no_stale_waker() {
    let sem = Semaphore::new(0);
    let a = Waiting::pending(&sem, 1);
    let flag = a.flag.clone();
    drop(a);
    sem.release(1);
    assert_eq!(flag.0.load(SeqCst), 0, "a cancelled waiter was woken");
    // Its waker was dropped: we hold the last reference.
    assert_eq!(Arc::strong_count(&flag), 1);
    assert_eq!(sem.available_permits(), 1);
}

#[test]
fn release_wakes_exactly_the_head_waiters_that_fit() {
    let sem = Semaphore::new(0);
    let a = Waiting::pending(&sem, 1);
    let b = Waiting::pending(&sem, 2);
    let c = Waiting::pending(&sem, 1);
    sem.release(3);
    assert_eq!((a.woken(), b.woken(), c.woken()), (1, 1, 0));
}

#[test]
fn no_starvation_of_a_large_request_among_busy_small_ones() {
    let sem = Semaphore::new(2);
    sem.try_acquire(1).unwrap();
    // The large request queues with 1 of 2.
    let mut big = Waiting::pending(&sem, 2);
    for _ in 0..100 {
        // Busy small requesters keep coming; none jumps ahead.
        assert_eq!(sem.try_acquire(1), Err(TryAcquireError::NoPermits));
        let small = Waiting::pending(&sem, 1);
        drop(small);
    }
    sem.release(1);
    assert!(big.is_ready());
}

#[test]
fn close_fails_queued_and_later_acquires() {
    let sem = Semaphore::new(1);
    let mut a = Waiting::pending(&sem, 2);
    let mut b = Waiting::pending(&sem, 1);
    sem.close();
    assert!(a.woken() >= 1 && b.woken() >= 1);
    assert!(matches!(a.poll(), Poll::Ready(Err(_))));
    assert!(matches!(b.poll(), Poll::Ready(Err(_))));
    let (_c, first) = Waiting::start(&sem, 1);
    assert!(matches!(first, Poll::Ready(Err(_))));
    assert_eq!(sem.try_acquire(1), Err(TryAcquireError::Closed));
    // The permit `a` had taken was handed back.
    assert_eq!(sem.available_permits(), 1);
}

#[test]
fn served_then_dropped_waiter_passes_its_permits_on() {
    let sem = Semaphore::new(0);
    // `a` sits in the fast slot, `b` in the list.
    let a = Waiting::pending(&sem, 1);
    let mut b = Waiting::pending(&sem, 1);
    sem.release(1);
    assert_eq!(a.woken(), 1);
    // Woken, then dropped before it picked its permit up.
    drop(a);
    assert_eq!(b.woken(), 1);
    assert!(b.is_ready());
}

#[test]
fn removing_the_head_by_cancellation_wakes_the_next() {
    let sem = Semaphore::new(0);
    let head = Waiting::pending(&sem, 2);
    let mut next = Waiting::pending(&sem, 1);
    sem.release(1);
    assert_eq!(next.woken(), 0);
    drop(head);
    assert_eq!(next.woken(), 1);
    assert!(next.is_ready());
}

#[test]
fn list_waiter_served_then_dropped_passes_permits_on() {
    let sem = Semaphore::new(0);
    let a = Waiting::pending(&sem, 1); // fast slot
    let b = Waiting::pending(&sem, 1); // list
    let mut c = Waiting::pending(&sem, 1); // list
    sem.release(2);
    assert_eq!((a.woken(), b.woken(), c.woken()), (1, 1, 0));
    drop(b);
    assert_eq!(c.woken(), 1);
    assert!(c.is_ready());
    drop(a);
    assert_eq!(sem.available_permits(), 1);
}

/// A waker that checks, when woken or dropped, that the semaphore's lock
/// is free.
struct LockChecker {
    sem: *const Semaphore,
    checks: AtomicUsize,
}

// SAFETY: used on one thread only, while the semaphore lives.
unsafe impl Send for LockChecker {}
// SAFETY: as above.
unsafe impl Sync for LockChecker {}

impl LockChecker {
    fn check(&self) {
        // SAFETY: the semaphore outlives the waker's use in the test.
        let sem = unsafe { &*self.sem };
        assert!(
            sem.waiters.try_lock().is_some(),
            "waker used under the lock"
        );
        self.checks.fetch_add(1, SeqCst);
    }
}

impl Wake for LockChecker {
    fn wake(self: Arc<Self>) {
        self.check();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.check();
    }
}

#[test]
fn wakers_are_never_woken_under_the_lock() {
    let sem = Semaphore::new(0);
    let checker = Arc::new(LockChecker {
        sem: &sem,
        checks: AtomicUsize::new(0),
    });
    let waker = Waker::from(checker.clone());
    let mut cx = Context::from_waker(&waker);
    let mut futs: Vec<_> = (0..40).map(|_| Box::pin(sem.acquire(1))).collect();
    for f in &mut futs {
        assert!(f.as_mut().poll(&mut cx).is_pending());
    }
    // More than one WakeList's worth of wake-ups in one release.
    sem.release(40);
    assert_eq!(checker.checks.load(SeqCst), 40);
    let mut futs2: Vec<_> = (0..5).map(|_| Box::pin(sem.acquire(1))).collect();
    for f in &mut futs2 {
        assert!(f.as_mut().poll(&mut cx).is_pending());
    }
    sem.close();
    assert_eq!(checker.checks.load(SeqCst), 45);
}

#[test]
fn acquire_zero_and_max_permits() {
    let sem = Semaphore::new(0);
    let (_w, first) = Waiting::start(&sem, 0);
    assert!(matches!(first, Poll::Ready(Ok(()))));
    let big = Semaphore::new(Semaphore::MAX_PERMITS);
    assert_eq!(big.available_permits(), Semaphore::MAX_PERMITS);
}

#[test]
#[should_panic(expected = "a semaphore may not have more than MAX_PERMITS permits")]
fn too_many_permits_panics() {
    let _ = Semaphore::new(Semaphore::MAX_PERMITS + 1);
}

#[test]
#[should_panic(expected = "would overflow MAX_PERMITS")]
fn adding_too_many_permits_panics() {
    let sem = Semaphore::new(Semaphore::MAX_PERMITS);
    sem.release(1);
}

#[test]
fn forget_permits_saturates_and_keeps_closed() {
    let sem = Semaphore::new(3);
    assert_eq!(sem.forget_permits(2), 2);
    assert_eq!(sem.forget_permits(5), 1);
    sem.close();
    assert_eq!(sem.forget_permits(1), 0);
    assert!(sem.is_closed());
}

/// Stress twin of the loom model `list_waiter_completing_on_a_spurious_poll`:
/// a list waiter spin-polls (no wake-up) and frees its node the moment it
/// sees the grant. Run under Miri or a sanitizer, a releaser touching the
/// node after publishing the grant is reported as a use after free.
#[test]
fn list_waiter_completing_on_a_spurious_poll_stress() {
    let rounds = if cfg!(miri) { 20 } else { 2_000 };
    for _ in 0..rounds {
        let sem = Arc::new(Semaphore::new(0));
        let mut first = Box::pin(sem.acquire(1));
        let noop = Waker::noop();
        assert!(
            first
                .as_mut()
                .poll(&mut Context::from_waker(noop))
                .is_pending()
        );
        let s = sem.clone();
        let listed = std::thread::spawn(move || {
            let mut acq = Box::pin(s.acquire(1));
            while acq
                .as_mut()
                .poll(&mut Context::from_waker(Waker::noop()))
                .is_pending()
            {
                std::thread::yield_now();
            }
        });
        sem.release(2);
        listed.join().unwrap();
        drop(first);
    }
}

/// The last waiter leaving with nothing assigned leaves `WAITERS` set (a
/// "maybe"); the next release clears it and later ones go lock-free. The
/// count is right at every step.
#[test]
fn waiters_flag_left_behind_is_cleared_by_the_next_release() {
    let sem = Semaphore::new(0);
    let w = Waiting::pending(&sem, 1);
    let l = Waiting::pending(&sem, 1);
    drop(w);
    drop(l);
    assert_eq!(sem.available_permits(), 0);
    assert_eq!(sem.try_acquire(1), Err(TryAcquireError::NoPermits));
    sem.release(1);
    assert_eq!(sem.permits.load(SeqCst) & WAITERS, 0);
    assert_eq!(sem.available_permits(), 1);
    sem.release(2);
    assert_eq!(sem.available_permits(), 3);
    assert_eq!(sem.try_acquire(3), Ok(()));
    // A new waiter after all that is still served in order.
    let mut w = Waiting::pending(&sem, 2);
    sem.release(1);
    assert!(w.poll().is_pending());
    sem.release(2);
    assert!(w.poll().is_ready());
    assert_eq!(sem.available_permits(), 1);
}

/// `forget_permits` keeps both flags.
#[test]
fn forget_permits_keeps_the_waiters_flag() {
    let sem = Semaphore::new(0);
    let mut w = Waiting::pending(&sem, 1);
    assert_eq!(sem.forget_permits(5), 0);
    sem.release(1);
    assert!(w.poll().is_ready());
}

/// The gaps of the struct's docs: nothing before the semaphore, and none of
/// the waiters' fields, shares a 128-byte pair of lines with the permit
/// word; nothing after it shares one with the waiters' mutex. And no
/// over-alignment, so that an `Arc` of a lock is a plain allocation.
#[test]
fn the_permit_word_is_kept_apart() {
    use std::mem::{align_of, offset_of, size_of};
    let gap = size_of::<crate::bridge::Gap>();
    let permits = offset_of!(Semaphore, permits);
    assert!(permits >= gap);
    let after_permits = permits + size_of::<AtomicUsize>() + gap;
    assert!(offset_of!(Semaphore, fast) >= after_permits);
    assert!(offset_of!(Semaphore, fast_waker) >= after_permits);
    let waiters = offset_of!(Semaphore, waiters);
    assert!(waiters >= after_permits);
    assert!(size_of::<Semaphore>() >= waiters + size_of::<Mutex<Waitlist>>() + gap);
    assert!(align_of::<Semaphore>() <= 8);
}
