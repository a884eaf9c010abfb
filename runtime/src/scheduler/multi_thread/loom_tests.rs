//! loom models of the multi-thread scheduler's lock-free parts: the local
//! queue (push, pop, steal-half, overflow), the park/notify protocol, and
//! the LIFO slot against stealing (a displaced task is stolen by a parked
//! worker, the slot's own task never is; with the slot disabled, a lone
//! woken task is).

use crate::driver::{Cfg, Driver};
use crate::loom::sync::Arc;
use crate::loom::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use crate::runtime::metrics::{MetricsBatch, WorkerMetrics};
use crate::scheduler::inject::Inject;
use crate::scheduler::multi_thread::idle::Idle;
use crate::scheduler::multi_thread::park::{Parker, Unparker};
use crate::scheduler::multi_thread::queue::{self, LOCAL_QUEUE_CAPACITY};
use crate::task::test_sched::TestSched;

use loom::thread;

fn stats() -> MetricsBatch {
    MetricsBatch::new(&WorkerMetrics::default())
}

/// Binds `n` tasks that each bump `ran` once.
fn tasks(
    sched: &TestSched,
    ran: &Arc<AtomicUsize>,
    n: usize,
) -> Vec<crate::task::Notified<TestSched>> {
    (0..n)
        .map(|_| {
            let ran = ran.clone();
            let (join, notified) = sched.bind(async move {
                ran.fetch_add(1, SeqCst);
            });
            drop(join);
            notified
        })
        .collect()
}

/// A worker's parker on a driver with neither I/O nor time (a condvar).
fn parker() -> (Parker, Arc<crate::driver::Handle>) {
    let (driver, driver_handle) = Driver::new(Cfg {
        enable_io: false,
        enable_time: false,
        start_paused: false,
        enable_pausing: false,
        timer_shards: 1,
        alt_timer: false,
        nevents: 1024,
        nevents_busy: None,
    })
    .unwrap();
    (Parker::new(driver), Arc::new(driver_handle))
}

/// A worker's park step (`Context::park`): it parks; if nobody searches
/// any more and `work_pending`, it notifies a sleeper (in these models
/// always itself); it sleeps until notified. Notified workers start out
/// searching (the caller sets that).
fn park_until_notified(
    idle: &Idle,
    park: &mut Parker,
    driver_handle: &crate::driver::Handle,
    index: usize,
    is_searching: bool,
    work_pending: impl FnOnce() -> bool,
) {
    let nobody_searches = idle.transition_worker_to_parked(index, is_searching);
    if nobody_searches && work_pending() && idle.worker_to_notify().is_some() {
        park.unpark().unpark(driver_handle);
    }
    loop {
        park.park(driver_handle);
        if !idle.is_parked(index) {
            return;
        }
    }
}

#[test]
fn steal_while_owner_pops() {
    loom::model(|| {
        let sched = TestSched::new();
        let ran = Arc::new(AtomicUsize::new(0));
        let inject = Arc::new(Inject::new());
        let (steal, mut local) = queue::local();
        let mut st = stats();
        for t in tasks(&sched, &ran, 3) {
            local.push_back_or_overflow(t, &inject, &mut st);
        }

        let thief = {
            let sched = sched.clone();
            thread::spawn(move || {
                let (_, mut mine) = queue::local();
                let mut st = stats();
                let mut n = 0;
                if let Some(t) = steal.steal_into(&mut mine, &mut st) {
                    sched.run(t);
                    n += 1;
                }
                while let Some(t) = mine.pop() {
                    sched.run(t);
                    n += 1;
                }
                n
            })
        };

        let mut n = 0;
        while let Some(t) = local.pop() {
            sched.run(t);
            n += 1;
        }
        n += thief.join().unwrap();
        assert_eq!(n, 3);
        assert_eq!(ran.load(SeqCst), 3);
        assert!(inject.is_empty());
        sched.shutdown();
    });
}

#[test]
fn overflow_while_a_thief_steals() {
    loom::model(|| {
        let sched = TestSched::new();
        let ran = Arc::new(AtomicUsize::new(0));
        let inject = Arc::new(Inject::new());
        let (steal, mut local) = queue::local();
        let mut st = stats();
        let all = tasks(&sched, &ran, LOCAL_QUEUE_CAPACITY + 2);
        let mut all = all.into_iter();
        for t in all.by_ref().take(LOCAL_QUEUE_CAPACITY) {
            local.push_back_or_overflow(t, &inject, &mut st);
        }

        let thief = {
            let sched = sched.clone();
            thread::spawn(move || {
                let (_, mut mine) = queue::local();
                let mut st = stats();
                if let Some(t) = steal.steal_into(&mut mine, &mut st) {
                    sched.run(t);
                }
                while let Some(t) = mine.pop() {
                    sched.run(t);
                }
            })
        };

        // Full queue: these overflow (or fill the room the thief made).
        for t in all {
            local.push_back_or_overflow(t, &inject, &mut st);
        }
        while let Some(t) = local.pop() {
            sched.run(t);
        }
        thief.join().unwrap();
        while let Some(t) = inject.pop() {
            sched.run(t);
        }
        assert_eq!(ran.load(SeqCst), LOCAL_QUEUE_CAPACITY + 2);
        sched.shutdown();
    });
}

/// One worker runs the real idle/park protocol against a remote spawner:
/// the task pushed on the global queue must be found (a lost wake-up makes
/// the worker park forever, which loom reports as a deadlock).
#[test]
fn remote_push_never_loses_the_wakeup() {
    loom::model(|| {
        let sched = TestSched::new();
        let ran = Arc::new(AtomicUsize::new(0));
        let (mut park, driver_handle) = parker();
        let unpark = park.unpark();
        let idle = Arc::new(Idle::new(1));
        let inject = Arc::new(Inject::new());
        let task = tasks(&sched, &ran, 1).pop().unwrap();

        let spawner = {
            let (idle, inject, dh) = (idle.clone(), inject.clone(), driver_handle.clone());
            thread::spawn(move || {
                inject.push(task);
                if let Some(index) = idle.worker_to_notify() {
                    assert_eq!(index, 0);
                    unpark.unpark(&dh);
                }
            })
        };

        // The worker's loop, reduced to one worker and the global queue.
        let mut is_searching = false;
        loop {
            if let Some(t) = inject.pop() {
                if is_searching {
                    idle.transition_worker_from_searching();
                }
                sched.run(t);
                break;
            }
            // Out of work: search (the only worker may always search)...
            if !is_searching {
                is_searching = idle.transition_worker_to_searching();
            }
            if let Some(t) = inject.pop() {
                if is_searching {
                    idle.transition_worker_from_searching();
                }
                sched.run(t);
                break;
            }
            // ...then park (we are the only worker, so a wake-up for the
            // work a parker's re-check finds is for ourselves).
            park_until_notified(&idle, &mut park, &driver_handle, 0, is_searching, || {
                !inject.is_empty()
            });
            is_searching = true;
        }

        spawner.join().unwrap();
        assert_eq!(ran.load(SeqCst), 1);
        sched.shutdown();
    });
}

/// What the LIFO models share, in a runtime of two workers: worker 1's
/// parker, and worker 0's queue as thieves see it (`steal`).
struct TwoWorkers {
    sched: TestSched,
    ran: Arc<AtomicUsize>,
    park: Parker,
    driver_handle: Arc<crate::driver::Handle>,
    idle: Arc<Idle>,
    inject: Arc<Inject<TestSched>>,
    steal: queue::Steal<TestSched>,
}

/// The shared parts, the handle that wakes worker 1, and worker 0's queue.
fn two_workers() -> (TwoWorkers, Unparker, queue::Local<TestSched>) {
    let (park, driver_handle) = parker();
    let unpark = park.unpark();
    let (steal, local) = queue::local();
    let w = TwoWorkers {
        sched: TestSched::new(),
        ran: Arc::new(AtomicUsize::new(0)),
        park,
        driver_handle,
        idle: Arc::new(Idle::new(2)),
        inject: Arc::new(Inject::new()),
        steal,
    };
    (w, unpark, local)
}

/// Worker 0's `notify_parked`: the only worker it can wake is worker 1.
fn notify_worker_1(idle: &Idle, unpark: &Unparker, driver_handle: &crate::driver::Handle) {
    if let Some(index) = idle.worker_to_notify() {
        assert_eq!(index, 1);
        unpark.unpark(driver_handle);
    }
}

/// Worker 1's loop (`Context::run`, `Core::steal_work`, `park`), reduced
/// to stealing from worker 0 (through `w.steal`) until it has run one
/// task; returns what else it stole. Worker 0 never parks, so a wake-up for
/// the work a parker's re-check finds is for worker 1 itself.
fn steal_one_as_worker_1(w: &mut TwoWorkers) -> Option<crate::task::Notified<TestSched>> {
    let (_, mut mine) = queue::local();
    let mut st = stats();
    let mut is_searching = false;
    let stolen = loop {
        if !is_searching {
            is_searching = w.idle.transition_worker_to_searching();
        }
        if is_searching {
            if let Some(t) = w.steal.steal_into(&mut mine, &mut st) {
                // Found work: stop searching before running it.
                w.idle.transition_worker_from_searching();
                break t;
            }
        }
        park_until_notified(
            &w.idle,
            &mut w.park,
            &w.driver_handle,
            1,
            is_searching,
            || !w.steal.is_empty(),
        );
        is_searching = true;
    };
    w.sched.run(stolen);
    mine.pop()
}

/// The LIFO slot against stealing. Worker 0 polls a task that wakes `x`
/// (into the empty LIFO slot: one runnable task is not worth a wake-up)
/// and then `y`, which takes the slot and displaces `x` into the stealable
/// queue; then worker 0 blocks in a long poll. Worker 1 is idle and runs
/// the real search/park protocol: it must be woken and steal `x` (a lost
/// notification deadlocks it, which loom reports), and it must never get
/// `y`, which stays in worker 0's slot until worker 0 runs it.
#[test]
fn lifo_displacement_is_stolen_by_a_parked_worker() {
    loom::model(|| {
        let (mut w, unpark, mut local) = two_workers();
        let mut x_and_y = tasks(&w.sched, &w.ran, 2);
        let (y, x) = (x_and_y.pop().unwrap(), x_and_y.pop().unwrap());

        let owner = {
            let (idle, inject, dh) = (w.idle.clone(), w.inject.clone(), w.driver_handle.clone());
            thread::spawn(move || {
                let mut st = stats();
                let mut lifo_slot = None;
                // `Handle::schedule_local`: notify when a task was displaced.
                for task in [x, y] {
                    if local.push_lifo(&mut lifo_slot, task, &inject, &mut st) {
                        notify_worker_1(&idle, &unpark, &dh);
                    }
                }
                // Worker 0 blocks in a long poll here; its queue stays
                // stealable, its slot does not.
                (local, lifo_slot)
            })
        };

        let mine = steal_one_as_worker_1(&mut w);
        assert!(mine.is_none(), "only `x` was stealable");
        assert_eq!(w.ran.load(SeqCst), 1);

        // Worker 0's poll ends: it runs the LIFO task.
        let (local, mut lifo_slot) = owner.join().unwrap();
        assert!(!local.has_tasks());
        w.sched
            .run(lifo_slot.take().expect("`y` stayed in the slot"));
        assert_eq!(w.ran.load(SeqCst), 2);
        assert!(w.inject.is_empty());
        w.sched.shutdown();
    });
}

/// `disable_lifo_slot`: worker 0 polls a task that wakes `x`, which goes to
/// the back of its (stealable) queue and notifies a parked worker even
/// though it is the only task waiting; then worker 0 blocks in a long poll.
/// Worker 1 must be woken and steal `x` (a lost notification deadlocks it).
#[test]
fn disabled_lifo_wake_is_stolen_by_a_parked_worker() {
    disabled_lifo_wake_model(false);
}

/// A worker refused searching parks without a searcher's duties, but the
/// searcher that refused it may stop before it is counted as parked. Here
/// worker 0 searches; worker 1 finds no work, may not search (half of the
/// workers already do) and parks. Meanwhile worker 0 finds work (it stops
/// searching and, as the last searcher, notifies), then queues a task and
/// notifies again, and blocks in a long poll. Both notifications may come
/// while worker 1 still counts as unparked and so wake nobody: worker 1
/// must then see the task itself when it parks (a lost wake-up deadlocks
/// it, which loom reports).
#[test]
fn a_worker_refused_searching_does_not_miss_work() {
    disabled_lifo_wake_model(true);
}

/// The two models above; `worker_0_searching`: worker 0 starts out
/// searching and stops as its thread begins.
fn disabled_lifo_wake_model(worker_0_searching: bool) {
    loom::model(move || {
        let (mut w, unpark, mut local) = two_workers();
        let x = tasks(&w.sched, &w.ran, 1).pop().unwrap();
        if worker_0_searching {
            assert!(w.idle.transition_worker_to_searching());
        }

        let owner = {
            let (idle, inject, dh) = (w.idle.clone(), w.inject.clone(), w.driver_handle.clone());
            thread::spawn(move || {
                // `Core::transition_from_searching` as worker 0 runs what
                // it found...
                if worker_0_searching && idle.transition_worker_from_searching() {
                    notify_worker_1(&idle, &unpark, &dh);
                }
                // ...which wakes `x` (`Handle::schedule_local`, slot off).
                local.push_back_or_overflow(x, &inject, &mut stats());
                notify_worker_1(&idle, &unpark, &dh);
                local
            })
        };

        let mine = steal_one_as_worker_1(&mut w);
        assert!(mine.is_none());
        assert_eq!(w.ran.load(SeqCst), 1);
        let local = owner.join().unwrap();
        assert!(!local.has_tasks());
        assert!(w.inject.is_empty());
        w.sched.shutdown();
    });
}
