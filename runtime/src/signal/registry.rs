//! The process-wide signal registry: one slot per signal number, one
//! self-pipe, and the dispatch that turns a delivered signal into wake-ups.
//!
//! # Protocol
//!
//! * The handler (installed once per signal number through
//!   `signal-hook-registry`, never removed, as in tokio) does only
//!   async-signal-safe work: `pending.store(true)`, then a non-blocking
//!   one-byte `write` to the pipe (a full pipe is fine: it is readable
//!   already).
//! * Each runtime's I/O driver registers the pipe's read end (the same fd
//!   in every `epoll` set that uses signals) and, when it reports
//!   readable, calls [`dispatch`]: drain the pipe, then for each slot
//!   whose `pending` swaps true→false, bump `seq` and wake the listeners.
//!   Draining before swapping means a signal that lands in between leaves
//!   its flag for this pass and a byte for the next (empty) one: none is
//!   lost.
//! * A listener remembers the `seq` it has seen. `poll` compares, and if
//!   nothing new, stores its waker under the slot's mutex and compares
//!   again; `dispatch` bumps `seq` before taking that mutex to wake, so a
//!   bump is either seen by the second compare or followed by a wake.
//!   Several signals between two polls coalesce into one notification
//!   (tokio's semantics).

use std::io::{self, Read, Write};
use std::os::unix::io::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::task::{Context, Poll, Waker};

/// Signal numbers 0..=SLOTS-1 can be listened for (covers the real-time
/// signals on Linux).
const SLOTS: usize = 65;

pub(crate) struct Slot {
    /// Set by the handler; cleared by `dispatch`.
    pending: AtomicBool,
    /// Deliveries dispatched so far.
    seq: AtomicU64,
    /// Parked listeners, keyed by listener slot.
    waiters: Mutex<slab::Slab<Waker>>,
    /// The handler install's result (once per signal number).
    init: OnceLock<Result<(), Option<i32>>>,
}

pub(crate) struct Globals {
    receiver: mio::unix::pipe::Receiver,
    sender: mio::unix::pipe::Sender,
    slots: Vec<Slot>,
}

pub(crate) fn globals() -> &'static Globals {
    static GLOBALS: OnceLock<Globals> = OnceLock::new();
    GLOBALS.get_or_init(|| {
        let (sender, receiver) = mio::unix::pipe::new().expect("failed to create the signal pipe");
        Globals {
            receiver,
            sender,
            slots: (0..SLOTS)
                .map(|_| Slot {
                    pending: AtomicBool::new(false),
                    seq: AtomicU64::new(0),
                    waiters: Mutex::new(slab::Slab::new()),
                    init: OnceLock::new(),
                })
                .collect(),
        }
    })
}

impl Globals {
    pub(crate) fn pipe_fd(&self) -> std::os::unix::io::RawFd {
        self.receiver.as_raw_fd()
    }

    pub(crate) fn slot(&self, signum: i32) -> Option<&Slot> {
        usize::try_from(signum).ok().and_then(|i| self.slots.get(i))
    }

    /// Installs the handler for `signum` (once).
    pub(crate) fn enable(&'static self, signum: i32) -> io::Result<()> {
        if signum <= 0 || signal_hook_registry::FORBIDDEN.contains(&signum) {
            return Err(io::Error::other(format!(
                "Refusing to register signal {signum}"
            )));
        }
        let slot = self
            .slot(signum)
            .ok_or_else(|| io::Error::other("signal too large"))?;
        slot.init
            .get_or_init(|| {
                // SAFETY: the action only stores to an atomic and writes to
                // a non-blocking pipe: both async-signal-safe, no allocation
                // and no locks.
                unsafe { signal_hook_registry::register(signum, move || self.record(signum)) }
                    .map(drop)
                    .map_err(|e| e.raw_os_error())
            })
            .map_err(|e| {
                e.map_or_else(
                    || io::Error::other("registering signal handler failed"),
                    io::Error::from_raw_os_error,
                )
            })
    }

    /// The signal handler's work (async-signal-safe).
    fn record(&self, signum: i32) {
        if let Some(slot) = self.slot(signum) {
            // SeqCst: ordered before the pipe write that makes a driver
            // look (the write is a syscall; the fence is belt and braces).
            slot.pending.store(true, Ordering::SeqCst);
        }
        // Errors (a full pipe) are fine: the pipe is readable already.
        let _ = (&self.sender).write(&[1]);
    }
}

/// Drains the pipe and wakes listeners of every signal delivered since
/// the last dispatch. Called by an I/O driver when the pipe is readable.
pub(crate) fn dispatch() {
    let g = globals();
    let mut buf = [0u8; 128];
    loop {
        match (&g.receiver).read(&mut buf) {
            Ok(0) => break,
            Ok(_) => continue,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            // WouldBlock: drained (another driver may have raced us to it).
            Err(_) => break,
        }
    }
    for slot in &g.slots {
        // SeqCst pairs with the handler's store: a delivery is either
        // taken here or its flag stays set for the next pass.
        if slot.pending.swap(false, Ordering::SeqCst) {
            // Release: a listener that sees the new seq (Acquire) sees
            // everything before the delivery was dispatched.
            slot.seq.fetch_add(1, Ordering::Release);
            let waiters = slot.waiters.lock().unwrap_or_else(|e| e.into_inner());
            for (_, w) in waiters.iter() {
                w.wake_by_ref();
            }
        }
    }
}

/// One listener's view of a slot.
#[derive(Debug)]
pub(crate) struct Listener {
    signum: i32,
    seen: u64,
    key: Option<usize>,
}

impl Listener {
    /// A listener that will see deliveries from now on.
    pub(crate) fn new(signum: i32) -> Listener {
        let slot = globals().slot(signum).expect("enabled signal has a slot");
        Listener {
            signum,
            seen: slot.seq.load(Ordering::Acquire),
            key: None,
        }
    }

    fn slot(&self) -> &'static Slot {
        globals()
            .slot(self.signum)
            .expect("enabled signal has a slot")
    }

    /// `Ready` once a delivery newer than the last one seen was dispatched.
    pub(crate) fn poll(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let slot = self.slot();
        if self.take_new(slot) {
            return Poll::Ready(());
        }
        {
            let mut waiters = slot.waiters.lock().unwrap_or_else(|e| e.into_inner());
            match self.key {
                Some(k) => {
                    if !waiters[k].will_wake(cx.waker()) {
                        waiters[k] = cx.waker().clone();
                    }
                }
                None => self.key = Some(waiters.insert(cx.waker().clone())),
            }
        }
        // A dispatch between the first check and the insert bumped seq
        // without waking us: check again.
        if self.take_new(slot) {
            return Poll::Ready(());
        }
        Poll::Pending
    }

    fn take_new(&mut self, slot: &Slot) -> bool {
        let cur = slot.seq.load(Ordering::Acquire);
        if cur != self.seen {
            self.seen = cur;
            true
        } else {
            false
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Some(k) = self.key.take() {
            let mut waiters = self
                .slot()
                .waiters
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            waiters.remove(k);
        }
    }
}
