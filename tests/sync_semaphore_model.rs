//! Property test: `Semaphore` against a plain reference model (a counter and
//! a FIFO queue), under random sequences of `acquire_many`, `try_acquire_many`,
//! permit drops, cancellations, `add_permits`, `forget_permits` and `close`.
//!
//! The model: `avail` free permits and a queue of `(future, need)`. A new
//! acquire succeeds at once when the queue is empty and `need <= avail`, else
//! it queues. Whenever permits come back, queued requests are granted from the
//! head, in order, while the head fits; a request that does not fit blocks the
//! ones behind it. While anyone is queued the semaphore's counter is zero
//! (free permits are assigned to the head), so `available_permits()` is
//! `avail` only when the queue is empty. `close` fails every queued and every
//! later acquire.
//!
//! Each future is polled with its own flag-setting waker, so the test also
//! checks that the futures the model grants were woken, and that granted
//! futures resolve with exactly the permits they asked for.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
mod support;

use std::sync::Arc;
use std::task::{Poll, Waker};

use proptest::prelude::*;
use support::{WakeCount, counting_waker, poll_with};
use volt::sync::{AcquireError, OwnedSemaphorePermit, Semaphore, TryAcquireError};

type AcquireFut = Pin<Box<dyn Future<Output = Result<OwnedSemaphorePermit, AcquireError>>>>;

#[derive(Debug, Clone)]
enum Op {
    /// Start `acquire_many_owned(n)` and poll it once.
    Acquire(u32),
    /// `try_acquire_many_owned(n)`.
    TryAcquire(u32),
    /// Drop the `i % len`-th held permit.
    Release(usize),
    /// Drop the `i % len`-th pending acquire future.
    Cancel(usize),
    AddPermits(usize),
    ForgetPermits(usize),
    Close,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (1u32..=4).prop_map(Op::Acquire),
        1 => (1u32..=4).prop_map(Op::TryAcquire),
        4 => any::<usize>().prop_map(Op::Release),
        2 => any::<usize>().prop_map(Op::Cancel),
        1 => (0usize..=3).prop_map(Op::AddPermits),
        1 => (0usize..=3).prop_map(Op::ForgetPermits),
        1 => Just(Op::Close),
    ]
}

struct Pending {
    id: usize,
    need: u32,
    fut: AcquireFut,
    woken: Arc<WakeCount>,
    waker: Waker,
}

struct Harness {
    sem: Arc<Semaphore>,
    // Model state.
    avail: usize,
    queue: VecDeque<(usize, u32)>,
    closed: bool,
    // Real futures and permits, in the model's order.
    pending: Vec<Pending>,
    held: Vec<OwnedSemaphorePermit>,
    next_id: usize,
}

impl Harness {
    fn new(permits: usize) -> Self {
        Harness {
            sem: Arc::new(Semaphore::new(permits)),
            avail: permits,
            queue: VecDeque::new(),
            closed: false,
            pending: Vec::new(),
            held: Vec::new(),
            next_id: 0,
        }
    }

    /// Model: grant queued requests from the head while they fit.
    fn grant(&mut self) -> Vec<usize> {
        let mut granted = Vec::new();
        while let Some(&(id, need)) = self.queue.front() {
            if need as usize > self.avail {
                break;
            }
            self.avail -= need as usize;
            self.queue.pop_front();
            granted.push(id);
        }
        granted
    }

    fn poll(p: &mut Pending) -> Poll<Result<OwnedSemaphorePermit, AcquireError>> {
        poll_with(p.fut.as_mut(), &p.waker)
    }

    /// Every future the model granted (or failed by close) was woken and now
    /// resolves; the others stay pending.
    fn settle(&mut self, granted: &[usize]) {
        let mut i = 0;
        while i < self.pending.len() {
            let id = self.pending[i].id;
            let done = granted.contains(&id) || self.closed;
            if !done {
                i += 1;
                continue;
            }
            let mut p = self.pending.remove(i);
            assert!(
                p.woken.count() > 0,
                "future {id} resolved by the model but not woken"
            );
            match Self::poll(&mut p) {
                Poll::Ready(Ok(permit)) => {
                    assert!(!self.closed || granted.contains(&id));
                    assert_eq!(permit.num_permits(), p.need as usize);
                    self.held.push(permit);
                }
                Poll::Ready(Err(_)) => assert!(self.closed, "acquire failed on an open semaphore"),
                Poll::Pending => panic!("future {id} granted by the model is still pending"),
            }
        }
        for p in &mut self.pending {
            assert!(
                Self::poll(p).is_pending(),
                "future {} completed out of turn",
                p.id
            );
        }
        let expect = if self.queue.is_empty() || self.closed {
            self.avail
        } else {
            0
        };
        assert_eq!(self.sem.available_permits(), expect, "available_permits");
        assert_eq!(self.sem.is_closed(), self.closed);
    }

    fn apply(&mut self, op: Op) {
        let mut granted = Vec::new();
        match op {
            Op::Acquire(n) => {
                let id = self.next_id;
                self.next_id += 1;
                let (woken, waker) = counting_waker();
                let mut p = Pending {
                    id,
                    need: n,
                    fut: Box::pin(self.sem.clone().acquire_many_owned(n)),
                    woken,
                    waker,
                };
                match Self::poll(&mut p) {
                    Poll::Ready(Ok(permit)) => {
                        assert!(!self.closed);
                        assert!(self.queue.is_empty() && n as usize <= self.avail);
                        self.avail -= n as usize;
                        self.held.push(permit);
                    }
                    Poll::Ready(Err(_)) => assert!(self.closed),
                    Poll::Pending => {
                        assert!(!self.closed);
                        assert!(!self.queue.is_empty() || n as usize > self.avail);
                        self.queue.push_back((id, n));
                        self.pending.push(p);
                    }
                }
            }
            Op::TryAcquire(n) => match self.sem.clone().try_acquire_many_owned(n) {
                Ok(permit) => {
                    assert!(!self.closed && self.queue.is_empty() && n as usize <= self.avail);
                    self.avail -= n as usize;
                    self.held.push(permit);
                }
                Err(TryAcquireError::Closed) => assert!(self.closed),
                Err(TryAcquireError::NoPermits) => {
                    assert!(!self.closed && (!self.queue.is_empty() || n as usize > self.avail));
                }
            },
            Op::Release(i) => {
                if !self.held.is_empty() {
                    let permit = self.held.remove(i % self.held.len());
                    self.avail += permit.num_permits();
                    drop(permit);
                    granted = self.grant();
                }
            }
            Op::Cancel(i) => {
                if !self.pending.is_empty() {
                    let p = self.pending.remove(i % self.pending.len());
                    self.queue.retain(|&(id, _)| id != p.id);
                    drop(p);
                    // The head may have been holding back smaller requests.
                    granted = self.grant();
                }
            }
            Op::AddPermits(n) => {
                self.sem.add_permits(n);
                self.avail += n;
                granted = self.grant();
            }
            Op::ForgetPermits(n) => {
                // Only free permits in the counter can be forgotten.
                let free = if self.queue.is_empty() { self.avail } else { 0 };
                let forgot = self.sem.forget_permits(n);
                assert_eq!(forgot, n.min(free));
                self.avail -= forgot;
            }
            Op::Close => {
                self.sem.close();
                self.closed = true;
                // Queued requests fail; what was assigned to them comes back.
                self.queue.clear();
            }
        }
        self.settle(&granted);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn semaphore_matches_counter_and_queue_model(
        permits in 0usize..=4,
        ops in proptest::collection::vec(op(), 1..60),
    ) {
        let mut h = Harness::new(permits);
        for op in ops {
            h.apply(op);
        }
        // Dropping every future and permit gives every permit back.
        let Harness { sem, pending, held, avail, .. } = h;
        drop(pending);
        let outstanding: usize = held.iter().map(|p| p.num_permits()).sum();
        drop(held);
        prop_assert_eq!(sem.available_permits(), avail + outstanding);
    }
}
