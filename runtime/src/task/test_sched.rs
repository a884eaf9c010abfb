//! A minimal scheduler for unit tests and loom models of the task module:
//! a locked FIFO of notified tasks that the test drives by hand.
//!
//! It is a handle around a loom `Arc` (under loom), so a task that is never
//! freed shows up as a leaked `Arc` in the model.
//!
//! A thread that holds an [`TestSched::enter`] guard is one where the
//! scheduler "is here" (`Schedule::wake_here`): wakes by value of its tasks
//! on that thread hand the waker's reference to the `Notified` and queue
//! through the guard's handle, as on a worker of the multi-thread runtime.

use crate::loom::sync::{Arc, Mutex};
use crate::task::list::OwnedTasks;
use crate::task::{Id, JoinHandle, Notified, Schedule, Task};

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::panic::Location;
use std::ptr::NonNull;

#[cfg(loom)]
use loom::thread_local;
#[cfg(not(loom))]
use std::thread_local;

thread_local! {
    /// The scheduler whose `enter` guard this thread holds.
    // loom's `thread_local!` takes no `const` initializer.
    #[allow(clippy::missing_const_for_thread_local)]
    static HERE: RefCell<Option<TestSched>> = RefCell::new(None);
}

/// While alive, the scheduler "is here" on this thread.
pub(crate) struct Entered(());

impl Drop for Entered {
    fn drop(&mut self) {
        let sched = HERE.with(|here| here.borrow_mut().take());
        drop(sched);
    }
}

#[derive(Clone)]
pub(crate) struct TestSched {
    inner: Arc<Inner>,
}

struct Inner {
    owned: OwnedTasks<TestSched>,
    queue: Mutex<VecDeque<Notified<TestSched>>>,
}

impl TestSched {
    pub(crate) fn new() -> TestSched {
        TestSched {
            inner: Arc::new(Inner {
                owned: OwnedTasks::new(1),
                queue: Mutex::new(VecDeque::new()),
            }),
        }
    }

    /// Spawns `future` and queues its first poll.
    pub(crate) fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (join, notified) = self.bind(future);
        self.schedule(notified);
        join
    }

    /// Creates a task and returns its first notification instead of
    /// queueing it (for tests of other queues).
    pub(crate) fn bind<F>(&self, future: F) -> (JoinHandle<F::Output>, Notified<TestSched>)
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (join, notified) =
            self.inner
                .owned
                .bind(future, self.clone(), Id::next(), Location::caller());
        (join, notified.expect("scheduler is not shut down"))
    }

    /// Makes this thread one where the scheduler "is here" until the guard
    /// is dropped.
    pub(crate) fn enter(&self) -> Entered {
        HERE.with(|here| *here.borrow_mut() = Some(self.clone()));
        Entered(())
    }

    /// Runs a notification taken from another queue.
    pub(crate) fn run(&self, task: Notified<TestSched>) {
        if let Some(yielded) = self.inner.owned.assert_owner(task).run() {
            self.schedule(yielded);
        }
    }

    /// Runs one queued task; `false` if the queue was empty.
    pub(crate) fn tick(&self) -> bool {
        let task = self.inner.queue.lock().pop_front();
        match task {
            Some(task) => {
                self.run(task);
                true
            }
            None => false,
        }
    }

    /// Runs queued tasks until the queue is empty.
    pub(crate) fn run_all(&self) {
        while self.tick() {}
    }

    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn queued(&self) -> usize {
        self.inner.queue.lock().len()
    }

    /// Cancels every task and drops every queued notification.
    pub(crate) fn shutdown(&self) {
        self.inner.owned.close_and_shutdown_all();
        loop {
            let task = self.inner.queue.lock().pop_front();
            match task {
                Some(task) => drop(task),
                None => break,
            }
        }
        assert!(self.inner.owned.is_empty());
    }
}

impl Schedule for TestSched {
    fn release(&self, task: &Task<Self>) -> Option<Task<Self>> {
        self.inner.owned.remove(task)
    }

    fn owner_id(&self) -> u64 {
        self.inner.owned.id()
    }

    fn schedule(&self, task: Notified<Self>) {
        self.inner.queue.lock().push_back(task);
    }

    fn here_key(&self) -> Option<NonNull<()>> {
        Some(NonNull::from(&*self.inner).cast())
    }

    fn wake_here<R>(
        key: NonNull<()>,
        transition: impl FnOnce() -> (Option<Notified<Self>>, R),
    ) -> Option<R> {
        HERE.with(|here| {
            let here = here.borrow();
            let sched = here.as_ref()?;
            if !std::ptr::eq(key.as_ptr().cast::<Inner>(), &*sched.inner) {
                return None;
            }
            let (task, res) = transition();
            if let Some(task) = task {
                sched.inner.queue.lock().push_back(task);
            }
            Some(res)
        })
    }
}
