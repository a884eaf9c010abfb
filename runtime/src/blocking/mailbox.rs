//! An idle pool thread's mailbox: how the pool calls one idle thread to the
//! queue (or tells it that the pool shuts down) and wakes that thread alone.
//!
//! # Protocol
//!
//! * A pool thread with nothing to run puts its mailbox on the pool's
//!   [`IdleList`] (under the pool lock), unlocks, and waits on the box.
//! * Whoever takes a box off the list ([`IdleList::call`], by a spawner or
//!   shutdown) posts one piece of mail to it while still holding the pool
//!   lock, and wakes the thread after unlocking the pool ([`Called`]). The
//!   box stays off the list until its thread has taken the mail, so it
//!   never holds two.
//! * The thread takes its mail under the box's own lock. The box's
//!   condition variable has one waiter, its thread, so a notification
//!   wakes exactly the thread the mail is for. The box records whether its
//!   thread sleeps (set and cleared under the box's lock, around the wait):
//!   mail for a thread that has not gone to sleep yet needs no
//!   notification, since the thread looks at the box before it sleeps.
//! * A thread whose wait times out takes the pool lock and looks for its
//!   box on the list ([`IdleList::leave`]). If the box is still there, the
//!   thread removes it and exits; if not, its mail was posted under the
//!   lock the thread now holds, and `leave` returns it.
//! * Lock order: the pool, then a box. A thread never holds its box's lock
//!   while it takes the pool lock.

use crate::loom::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use crate::loom::sync::{Arc, Condvar, Mutex};

use std::time::Instant;

/// What a thread finds in its mailbox.
pub(super) enum Mail {
    /// A task waits in the queue for this thread.
    Work,
    /// The pool shuts down.
    Shutdown,
}

/// One idle thread's mailbox (module docs).
pub(super) struct Mailbox {
    slot: Mutex<Slot>,
    condvar: Condvar,
}

struct Slot {
    mail: Option<Mail>,
    /// The thread waits on the condition variable.
    sleeping: bool,
}

impl Mailbox {
    pub(super) fn new() -> Mailbox {
        Mailbox {
            slot: Mutex::new(Slot {
                mail: None,
                sleeping: false,
            }),
            condvar: Condvar::new(),
        }
    }

    /// Posts `mail`; true if the thread sleeps (and needs a notification).
    fn post(&self, mail: Mail) -> bool {
        let mut slot = self.slot.lock();
        let previous = slot.mail.replace(mail);
        debug_assert!(previous.is_none(), "a mailbox got two pieces of mail");
        slot.sleeping
    }

    /// Waits for mail until `deadline`; `None` if none came by then.
    pub(super) fn wait_until(&self, deadline: Instant) -> Option<Mail> {
        let mut slot = self.slot.lock();
        loop {
            if let Some(mail) = slot.mail.take() {
                return Some(mail);
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            slot.sleeping = true;
            // A spurious or early return only goes round the loop.
            slot = self.condvar.wait_timeout(slot, deadline - now).0;
            slot.sleeping = false;
        }
    }
}

/// The idle threads' mailboxes, the most recently idle last. Lives under
/// the pool lock: every method is called with it held. Keeps `len` in an
/// atomic readable without the lock (the runtime's metrics).
#[derive(Default)]
pub(super) struct IdleList {
    mailboxes: Vec<Arc<Mailbox>>,
    len: Arc<AtomicUsize>,
}

/// A thread called off the idle list; [`wake`](Called::wake) it once the
/// pool is unlocked.
#[must_use = "a called thread may sleep until woken"]
pub(super) struct Called {
    mailbox: Arc<Mailbox>,
    sleeping: bool,
}

impl Called {
    /// Wakes the thread if it went to sleep before the call.
    pub(super) fn wake(self) {
        if self.sleeping {
            self.mailbox.condvar.notify_one();
        }
    }
}

impl IdleList {
    #[cfg(test)]
    fn len(&self) -> usize {
        self.mailboxes.len()
    }

    /// The number of idle threads, readable without the pool lock.
    pub(super) fn len_mirror(&self) -> Arc<AtomicUsize> {
        self.len.clone()
    }

    fn mirror_len(&self) {
        // Relaxed: a metric; the list itself is ordered by the pool lock.
        self.len.store(self.mailboxes.len(), Relaxed);
    }

    /// A thread goes idle; it then waits on `mailbox` (after unlocking).
    pub(super) fn push(&mut self, mailbox: Arc<Mailbox>) {
        self.mailboxes.push(mailbox);
        self.mirror_len();
    }

    /// Takes the most recently idle thread off the list and posts it
    /// `mail`; `None` if no thread is idle.
    pub(super) fn call(&mut self, mail: Mail) -> Option<Called> {
        let mailbox = self.mailboxes.pop()?;
        self.mirror_len();
        let sleeping = mailbox.post(mail);
        Some(Called { mailbox, sleeping })
    }

    /// Takes every thread off the list and posts each one `Shutdown`.
    pub(super) fn call_all_to_shutdown(&mut self) -> Vec<Called> {
        std::iter::from_fn(|| self.call(Mail::Shutdown)).collect()
    }

    /// For a thread whose wait on `mailbox` timed out: takes it off the
    /// list and returns `None` (the thread exits), or, if a caller took it
    /// off first, returns the mail posted then (under the lock held now).
    pub(super) fn leave(&mut self, mailbox: &Arc<Mailbox>) -> Option<Mail> {
        match self.mailboxes.iter().position(|m| Arc::ptr_eq(m, mailbox)) {
            Some(index) => {
                self.mailboxes.remove(index);
                self.mirror_len();
                None
            }
            None => {
                let mail = mailbox.slot.lock().mail.take();
                debug_assert!(mail.is_some(), "a mailbox off the idle list holds mail");
                mail
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::time::Duration;

    fn is_work(mail: Option<Mail>) -> bool {
        matches!(mail, Some(Mail::Work))
    }

    #[test]
    fn mail_posted_before_the_wait_is_found_without_sleeping() {
        let mut idle = IdleList::default();
        let mailbox = Arc::new(Mailbox::new());
        idle.push(mailbox.clone());
        let called = idle.call(Mail::Work).unwrap();
        assert!(!called.sleeping, "the thread had not gone to sleep");
        called.wake();
        assert!(is_work(mailbox.wait_until(Instant::now())));
        assert_eq!(idle.len(), 0);
    }

    #[test]
    fn calls_go_to_the_most_recently_idle_thread() {
        let mut idle = IdleList::default();
        let (first, last) = (Arc::new(Mailbox::new()), Arc::new(Mailbox::new()));
        idle.push(first.clone());
        idle.push(last.clone());
        idle.call(Mail::Work).unwrap().wake();
        assert!(is_work(last.wait_until(Instant::now())));
        assert!(first.wait_until(Instant::now()).is_none());
    }

    #[test]
    fn a_wait_with_no_mail_times_out_and_leaves_the_list() {
        let mut idle = IdleList::default();
        let mailbox = Arc::new(Mailbox::new());
        idle.push(mailbox.clone());
        assert!(
            mailbox
                .wait_until(Instant::now() + Duration::from_millis(1))
                .is_none()
        );
        assert!(idle.leave(&mailbox).is_none());
        assert_eq!(idle.len(), 0);
        assert!(idle.call(Mail::Work).is_none());
    }

    #[test]
    fn a_call_that_beats_the_leave_is_not_lost() {
        let mut idle = IdleList::default();
        let mailbox = Arc::new(Mailbox::new());
        idle.push(mailbox.clone());
        assert!(mailbox.wait_until(Instant::now()).is_none());
        // The wait ended; a spawner calls the thread before it relocks.
        idle.call(Mail::Work).unwrap().wake();
        assert!(is_work(idle.leave(&mailbox)));
    }

    #[test]
    fn a_sleeping_thread_is_woken_by_its_call() {
        let idle = Arc::new(Mutex::new(IdleList::default()));
        let mailbox = Arc::new(Mailbox::new());
        idle.lock().push(mailbox.clone());
        let thread = std::thread::spawn(move || {
            let far = Instant::now() + Duration::from_secs(3600);
            matches!(mailbox.wait_until(far), Some(Mail::Shutdown))
        });
        // Call it once it sleeps, or at once: either way it gets the mail.
        let called = idle.lock().call_all_to_shutdown();
        assert_eq!(called.len(), 1);
        called.into_iter().for_each(Called::wake);
        assert!(thread.join().unwrap());
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::loom::thread;
    use std::time::Duration;

    /// One idle thread's box on a list, and a spawner thread that calls
    /// the most recently idle thread (true if it found one).
    fn idle_thread_and_spawner() -> (
        Arc<Mutex<IdleList>>,
        Arc<Mailbox>,
        loom::thread::JoinHandle<bool>,
    ) {
        let idle = Arc::new(Mutex::new(IdleList::default()));
        let mailbox = Arc::new(Mailbox::new());
        idle.lock().push(mailbox.clone());
        let list = idle.clone();
        let spawner = thread::spawn(move || {
            let called = list.lock().call(Mail::Work);
            called.map(Called::wake).is_some()
        });
        (idle, mailbox, spawner)
    }

    /// A thread whose wait times out races a spawner's call: the call
    /// reaches the thread, or finds it gone, never both or neither.
    #[test]
    fn loom_mailbox_timeout_races_a_call() {
        loom::model(|| {
            let (idle, mailbox, spawner) = idle_thread_and_spawner();
            // The deadline has passed: only mail already posted is taken.
            let mail = match mailbox.wait_until(Instant::now()) {
                Some(mail) => Some(mail),
                None => idle.lock().leave(&mailbox),
            };
            let found = spawner.join().unwrap();
            assert_eq!(matches!(mail, Some(Mail::Work)), found);
            assert_eq!(idle.lock().len(), 0);
        });
    }

    /// A thread that waits (loom's timed wait never times out) is woken by
    /// the call, whether the call comes before or after it sleeps: no
    /// notification is skipped that it needs.
    #[test]
    fn loom_mailbox_call_wakes_a_sleeping_thread() {
        loom::model(|| {
            let (_idle, mailbox, spawner) = idle_thread_and_spawner();
            let far = Instant::now() + Duration::from_secs(3600);
            assert!(matches!(mailbox.wait_until(far), Some(Mail::Work)));
            assert!(spawner.join().unwrap());
        });
    }
}
