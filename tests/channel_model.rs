//! Property test: volt's MPMC channel (bounded: capacities 1, 2, 4 (the
//! small flavor), 5 and 1024 (the ring); and unbounded) and `sync::mpsc`
//! against a `VecDeque` model, under
//! random sequences of `try_send`, `try_recv`, async `send`/`recv` futures
//! polled by hand, cancellation of those futures, and `close`.
//!
//! The model is the queue of *committed* values: a value is committed when
//! `try_send` returns `Ok` or a `send` future resolves `Ok`. Checked after
//! every step:
//!
//! * every value received is the model's front (FIFO, nothing lost, nothing
//!   duplicated, and the value of a cancelled `send` never appears: a
//!   dropped `send` has not sent, at every capacity, also when it is
//!   dropped right after a receive made room for it);
//! * a pending future that resolves when re-polled had been woken since its
//!   previous poll (no lost wake-up), and after each step every future that
//!   can make progress has (the channel wakes the right ones);
//! * `len`, `is_empty`, `is_full`, `is_closed` agree with the model;
//! * after `close`, pending senders get their value back, pending receivers
//!   drain what is left and then fail, and later sends fail.

mod support;

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Poll, Waker};

use proptest::prelude::*;
use support::{WakeCount, counting_waker, poll_with};

#[derive(Debug, Clone)]
enum Op {
    TrySend,
    TryRecv,
    /// Start a `send` future and poll it once.
    Send,
    /// Start a `recv` future and poll it once.
    Recv,
    /// Drop the `i % len`-th pending send future.
    CancelSend(usize),
    /// Drop the `i % len`-th pending recv future.
    CancelRecv(usize),
    /// `try_recv`, then drop the `i % len`-th pending send future before
    /// anything is re-polled: a send woken (granted room) by that receive
    /// and dropped before its next poll must not have sent.
    TryRecvThenCancelSend(usize),
    Close,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::TrySend),
        3 => Just(Op::TryRecv),
        3 => Just(Op::Send),
        3 => Just(Op::Recv),
        1 => any::<usize>().prop_map(Op::CancelSend),
        1 => any::<usize>().prop_map(Op::CancelRecv),
        1 => any::<usize>().prop_map(Op::TryRecvThenCancelSend),
        1 => Just(Op::Close),
    ]
}

type Fut<T> = Pin<Box<dyn Future<Output = T>>>;

struct Pending<T> {
    fut: Fut<T>,
    woken: Arc<WakeCount>,
    seen_wakes: usize,
    waker: Waker,
}

impl<T> Pending<T> {
    fn new(fut: Fut<T>) -> Self {
        let (woken, waker) = counting_waker();
        Pending {
            fut,
            woken,
            seen_wakes: 0,
            waker,
        }
    }

    /// Polls; a re-poll that completes must have been woken since the last.
    fn poll(&mut self, first: bool) -> Poll<T> {
        let wakes = self.woken.count();
        let res = poll_with(self.fut.as_mut(), &self.waker);
        if res.is_ready() && !first {
            assert!(
                wakes > self.seen_wakes,
                "a future completed without being woken"
            );
        }
        self.seen_wakes = wakes;
        res
    }
}

/// The operations a channel flavour offers the harness.
trait Chan {
    fn try_send(&self, v: u32) -> Result<(), (u32, bool)>; // (value, closed?)
    fn try_recv(&self) -> Result<u32, bool>; // Err(closed?)
    fn send(&self, v: u32) -> Fut<Result<(), u32>>;
    fn recv(&self) -> Fut<Option<u32>>;
    fn close(&self);
    fn len(&self) -> usize;
    fn capacity(&self) -> Option<usize>;
    fn is_closed(&self) -> bool;
}

struct Mpmc(volt::channel::Sender<u32>, volt::channel::Receiver<u32>);

impl Chan for Mpmc {
    fn try_send(&self, v: u32) -> Result<(), (u32, bool)> {
        use volt::channel::TrySendError;
        self.0.try_send(v).map_err(|e| match e {
            TrySendError::Full(v) => (v, false),
            TrySendError::Closed(v) => (v, true),
        })
    }
    fn try_recv(&self) -> Result<u32, bool> {
        use volt::channel::TryRecvError;
        self.1
            .try_recv()
            .map_err(|e| matches!(e, TryRecvError::Closed))
    }
    fn send(&self, v: u32) -> Fut<Result<(), u32>> {
        let tx = self.0.clone();
        Box::pin(async move { tx.send(v).await.map_err(|e| e.0) })
    }
    fn recv(&self) -> Fut<Option<u32>> {
        let rx = self.1.clone();
        Box::pin(async move { rx.recv().await.ok() })
    }
    fn close(&self) {
        self.0.close();
    }
    fn len(&self) -> usize {
        self.0.len()
    }
    fn capacity(&self) -> Option<usize> {
        self.0.capacity()
    }
    fn is_closed(&self) -> bool {
        self.1.is_closed()
    }
}

/// tokio-style mpsc: one receiver, so `recv` futures are run one at a time
/// (the harness never starts a second while one is pending).
struct Mpsc(
    volt::sync::mpsc::Sender<u32>,
    Arc<volt::sync::Mutex<volt::sync::mpsc::Receiver<u32>>>,
    usize,
);

impl Chan for Mpsc {
    fn try_send(&self, v: u32) -> Result<(), (u32, bool)> {
        use volt::sync::mpsc::error::TrySendError;
        self.0.try_send(v).map_err(|e| match e {
            TrySendError::Full(v) => (v, false),
            TrySendError::Closed(v) => (v, true),
        })
    }
    fn try_recv(&self) -> Result<u32, bool> {
        use volt::sync::mpsc::error::TryRecvError;
        let mut rx = self.1.try_lock().expect("no recv future pending");
        rx.try_recv()
            .map_err(|e| matches!(e, TryRecvError::Disconnected))
    }
    fn send(&self, v: u32) -> Fut<Result<(), u32>> {
        let tx = self.0.clone();
        Box::pin(async move { tx.send(v).await.map_err(|e| e.0) })
    }
    fn recv(&self) -> Fut<Option<u32>> {
        let rx = self.1.clone();
        Box::pin(async move { rx.try_lock().expect("one recv at a time").recv().await })
    }
    fn close(&self) {
        self.1.try_lock().expect("no recv future pending").close();
    }
    fn len(&self) -> usize {
        self.2 - self.0.capacity()
    }
    fn capacity(&self) -> Option<usize> {
        Some(self.2)
    }
    fn is_closed(&self) -> bool {
        self.0.is_closed()
    }
}

struct Harness<C: Chan> {
    chan: C,
    multi_recv: bool,
    model: VecDeque<u32>,
    closed: bool,
    next: u32,
    sends: Vec<(u32, Pending<Result<(), u32>>)>,
    recvs: Vec<Pending<Option<u32>>>,
}

impl<C: Chan> Harness<C> {
    fn new(chan: C, multi_recv: bool) -> Self {
        Harness {
            chan,
            multi_recv,
            model: VecDeque::new(),
            closed: false,
            next: 0,
            sends: Vec::new(),
            recvs: Vec::new(),
        }
    }

    fn full(&self) -> bool {
        self.chan.capacity().is_some_and(|c| self.model.len() >= c)
    }

    fn received(&mut self, v: u32) {
        assert_eq!(
            Some(v),
            self.model.pop_front(),
            "received out of order or twice"
        );
    }

    fn step(&mut self, op: &Op) {
        self.apply(op);
        self.settle();
        self.check();
    }

    /// Does `op`, re-polling nothing.
    fn apply(&mut self, op: &Op) {
        match *op {
            Op::TrySend => {
                let v = self.next;
                self.next += 1;
                match self.chan.try_send(v) {
                    Ok(()) => {
                        assert!(!self.closed, "try_send succeeded after close");
                        self.model.push_back(v);
                    }
                    Err((back, closed)) => {
                        assert_eq!(back, v);
                        assert_eq!(closed, self.closed);
                        if !closed {
                            assert!(self.full() || !self.sends.is_empty());
                        }
                    }
                }
            }
            Op::TryRecv => {
                if !self.multi_recv && !self.recvs.is_empty() {
                    return;
                }
                match self.chan.try_recv() {
                    Ok(v) => self.received(v),
                    Err(closed) => {
                        assert!(self.model.is_empty(), "try_recv failed with values queued");
                        assert_eq!(closed, self.closed);
                    }
                }
            }
            Op::Send => {
                let v = self.next;
                self.next += 1;
                let mut p = Pending::new(self.chan.send(v));
                match p.poll(true) {
                    Poll::Ready(Ok(())) => self.model.push_back(v),
                    Poll::Ready(Err(back)) => {
                        assert!(self.closed);
                        assert_eq!(back, v);
                    }
                    Poll::Pending => {
                        assert!(!self.closed);
                        self.sends.push((v, p));
                    }
                }
            }
            Op::Recv => {
                if !self.multi_recv && !self.recvs.is_empty() {
                    return;
                }
                let mut p = Pending::new(self.chan.recv());
                match p.poll(true) {
                    Poll::Ready(Some(v)) => self.received(v),
                    Poll::Ready(None) => assert!(self.closed && self.model.is_empty()),
                    Poll::Pending => self.recvs.push(p),
                }
            }
            Op::CancelSend(i) => {
                if !self.sends.is_empty() {
                    let i = i % self.sends.len();
                    drop(self.sends.remove(i));
                }
            }
            Op::CancelRecv(i) => {
                if !self.recvs.is_empty() {
                    let i = i % self.recvs.len();
                    drop(self.recvs.remove(i));
                }
            }
            Op::TryRecvThenCancelSend(i) => {
                self.apply(&Op::TryRecv);
                self.apply(&Op::CancelSend(i));
            }
            Op::Close => {
                if !self.multi_recv && !self.recvs.is_empty() {
                    return;
                }
                self.chan.close();
                self.closed = true;
            }
        }
    }

    /// Re-polls every pending future (senders first, then receivers, each
    /// in start order) until none makes progress.
    fn settle(&mut self) {
        loop {
            let mut progress = false;
            let mut i = 0;
            while i < self.sends.len() {
                match self.sends[i].1.poll(false) {
                    Poll::Ready(Ok(())) => {
                        let (v, _) = self.sends.remove(i);
                        self.model.push_back(v);
                        progress = true;
                    }
                    Poll::Ready(Err(back)) => {
                        let (v, _) = self.sends.remove(i);
                        assert!(self.closed);
                        assert_eq!(back, v);
                        progress = true;
                    }
                    Poll::Pending => i += 1,
                }
            }
            let mut i = 0;
            while i < self.recvs.len() {
                match self.recvs[i].poll(false) {
                    Poll::Ready(Some(v)) => {
                        self.recvs.remove(i);
                        self.received(v);
                        progress = true;
                    }
                    Poll::Ready(None) => {
                        self.recvs.remove(i);
                        assert!(self.closed && self.model.is_empty());
                        progress = true;
                    }
                    Poll::Pending => i += 1,
                }
            }
            if !progress {
                break;
            }
        }
    }

    fn check(&self) {
        // Whatever could progress did: no receiver waits on a non-empty
        // channel, no sender on one with room, nobody on a closed one
        // (receivers only once it is drained).
        if !self.model.is_empty() {
            assert!(
                self.recvs.is_empty(),
                "a receiver waits while values are queued"
            );
        }
        if !self.full() {
            assert!(self.sends.is_empty(), "a sender waits while there is room");
        }
        if self.closed {
            assert!(self.sends.is_empty());
            if self.model.is_empty() {
                assert!(self.recvs.is_empty());
            }
        }
        assert_eq!(self.chan.len(), self.model.len());
        assert_eq!(self.chan.is_closed(), self.closed);
    }

    /// Closes and drains: every committed value comes out, in order.
    fn finish(mut self) {
        self.recvs.clear();
        self.chan.close();
        self.closed = true;
        self.settle();
        while let Ok(v) = self.chan.try_recv() {
            self.received(v);
        }
        assert!(self.model.is_empty(), "values lost: {:?}", self.model);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn mpmc_bounded_matches_model(
        cap in prop::sample::select(vec![1usize, 2, 4, 5, 1024]),
        ops in proptest::collection::vec(op(), 1..80),
    ) {
        let (tx, rx) = volt::channel::bounded(cap);
        let mut h = Harness::new(Mpmc(tx, rx), true);
        for op in &ops {
            h.step(op);
        }
        h.finish();
    }

    #[test]
    fn mpmc_unbounded_matches_model(ops in proptest::collection::vec(op(), 1..80)) {
        let (tx, rx) = volt::channel::unbounded();
        let mut h = Harness::new(Mpmc(tx, rx), true);
        for op in &ops {
            h.step(op);
        }
        h.finish();
    }

    #[test]
    fn mpsc_bounded_matches_model(cap in 1usize..=4, ops in proptest::collection::vec(op(), 1..80)) {
        let (tx, rx) = volt::sync::mpsc::channel(cap);
        let mut h = Harness::new(Mpsc(tx, Arc::new(volt::sync::Mutex::new(rx)), cap), false);
        for op in &ops {
            h.step(op);
        }
        h.finish();
    }
}
