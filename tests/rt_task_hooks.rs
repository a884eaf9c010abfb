//! Task hooks (`Builder::on_task_spawn`, `on_before_task_poll`,
//! `on_after_task_poll`, `on_task_terminate`, `TaskMeta`): tokio's
//! `task_hooks` tests (tokio has the API behind `tokio_unstable`; volt
//! offers it stable), plus where each hook runs and does not, the ids and
//! spawn locations they see, and what a hook's panic does.

use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};

use volt::runtime::{Builder, LocalOptions, TaskMeta};
use volt::task::{Id, JoinSet, LocalSet};

const TASKS: usize = 8;
const ITERATIONS: usize = 64;

/// A hook that counts its calls and checks the spawn location is a line
/// of this file (`#[track_caller]` carried through every spawn path).
fn location_hook(
    event: &'static str,
    count: &Arc<AtomicUsize>,
) -> impl Fn(&TaskMeta<'_>) + Send + Sync + use<> {
    let count = Arc::clone(count);
    move |meta| {
        assert_eq!(
            meta.spawned_at().file(),
            file!(),
            "wrong location in {event}"
        );
        count.fetch_add(1, SeqCst);
    }
}

/// A hook that records `(event, id)` in `log`.
fn logging_hook(
    event: &'static str,
    log: &Arc<Mutex<Vec<(&'static str, Id)>>>,
) -> impl Fn(&TaskMeta<'_>) + Send + Sync + use<> {
    let log = Arc::clone(log);
    move |meta| log.lock().unwrap().push((event, meta.id()))
}

fn counters() -> [Arc<AtomicUsize>; 3] {
    std::array::from_fn(|_| Arc::new(AtomicUsize::new(0)))
}

#[test]
fn spawn_task_hook_fires() {
    let count = Arc::new(AtomicUsize::new(0));
    let ids = Arc::new(Mutex::new(HashSet::new()));
    let (count2, ids2) = (count.clone(), ids.clone());
    let rt = Builder::new_current_thread()
        .on_task_spawn(move |meta| {
            ids2.lock().unwrap().insert(meta.id());
            count2.fetch_add(1, SeqCst);
        })
        .build()
        .unwrap();
    let mut handle_ids = HashSet::new();
    for _ in 0..TASKS {
        handle_ids.insert(rt.spawn(std::future::pending::<()>()).id());
    }
    assert_eq!(count.load(SeqCst), TASKS);
    // The hook saw each task's own id.
    assert_eq!(*ids.lock().unwrap(), handle_ids);
}

#[test]
fn terminate_task_hook_fires() {
    let count = Arc::new(AtomicUsize::new(0));
    let count2 = count.clone();
    let rt = Builder::new_current_thread()
        .on_task_terminate(move |_| {
            count2.fetch_add(1, SeqCst);
        })
        .build()
        .unwrap();
    for _ in 0..TASKS {
        rt.spawn(std::future::ready(()));
    }
    rt.block_on(async {
        for _ in 0..ITERATIONS {
            volt::task::yield_now().await;
        }
    });
    assert_eq!(count.load(SeqCst), TASKS);
}

fn spawn_locations(builder: &mut Builder) {
    let [spawns, starts, ends] = counters();
    let rt = builder
        .on_task_spawn(location_hook("on_task_spawn", &spawns))
        .on_before_task_poll(location_hook("on_before_task_poll", &starts))
        .on_after_task_poll(location_hook("on_after_task_poll", &ends))
        .build()
        .unwrap();
    let task = rt.spawn(async { volt::task::yield_now().await });
    rt.block_on(async move {
        // `Runtime::spawn` above, `volt::spawn` and `Handle::spawn` here.
        task.await.unwrap();
        volt::spawn(async {}).await.unwrap();
        let handle = volt::runtime::Handle::current();
        handle.spawn(async {}).await.unwrap();
    });
    drop(rt);
    assert_eq!(spawns.load(SeqCst), 3);
    // The yielding task was polled twice, the others once each.
    assert_eq!(starts.load(SeqCst), 4);
    assert_eq!(ends.load(SeqCst), 4);
}

#[test]
fn task_hook_spawn_location_current_thread() {
    spawn_locations(&mut Builder::new_current_thread());
}

#[test]
fn task_hook_spawn_location_multi_thread() {
    spawn_locations(Builder::new_multi_thread().worker_threads(2));
}

#[test]
fn task_hook_spawn_location_builder_and_join_set() {
    for mut builder in [Builder::new_current_thread(), Builder::new_multi_thread()] {
        let spawns = Arc::new(AtomicUsize::new(0));
        let rt = builder
            .on_task_spawn(location_hook("builder", &spawns))
            .build()
            .unwrap();
        rt.block_on(async {
            let builder = volt::task::Builder::new().name("builder_spawn");
            builder.spawn(async {}).unwrap().await.unwrap();
            let handle = volt::runtime::Handle::current();
            let builder = volt::task::Builder::new().name("builder_spawn_on");
            builder.spawn_on(async {}, &handle).unwrap().await.unwrap();

            let mut set = JoinSet::new();
            set.spawn(async {});
            set.spawn_on(async {}, &handle);
            set.build_task().name("in_set").spawn(async {}).unwrap();
            set.join_all().await;
        });
        assert_eq!(spawns.load(SeqCst), 5);
    }
}

/// For one task: spawn first, then poll pairs, terminate last, all with
/// the task's own id (`task::id()` inside it, `JoinHandle::id()`).
#[test]
fn hooks_run_in_order_with_the_task_id() {
    for mut builder in [Builder::new_current_thread(), Builder::new_multi_thread()] {
        let log = Arc::new(Mutex::new(Vec::new()));
        let rt = builder
            .on_task_spawn(logging_hook("spawn", &log))
            .on_before_task_poll(logging_hook("before", &log))
            .on_after_task_poll(logging_hook("after", &log))
            .on_task_terminate(logging_hook("terminate", &log))
            .build()
            .unwrap();
        let task = rt.spawn(async {
            volt::task::yield_now().await;
            volt::task::id()
        });
        let handle_id = task.id();
        let inner_id = rt.block_on(task).unwrap();
        drop(rt);
        assert_eq!(inner_id, handle_id);
        let log = log.lock().unwrap();
        let events: Vec<_> = log.iter().map(|(event, _)| *event).collect();
        // The last poll completes the task: it terminates inside that
        // poll, before the after-poll hook (tokio's order too).
        assert_eq!(
            events,
            ["spawn", "before", "after", "before", "terminate", "after"]
        );
        assert!(log.iter().all(|(_, id)| *id == handle_id));
    }
}

/// Aborted, panicked, cancelled at shutdown without a poll, and blocking
/// tasks all terminate through the hook; a blocking task has no spawn or
/// poll hooks (as in tokio).
#[test]
fn terminate_hook_sees_every_way_a_task_ends() {
    for mut builder in [Builder::new_current_thread(), Builder::new_multi_thread()] {
        let [spawns, polls, ends] = counters();
        let ids = Arc::new(Mutex::new(Vec::new()));
        let ids2 = ids.clone();
        let ends2 = ends.clone();
        let rt = builder
            .on_task_spawn(location_hook("spawn", &spawns))
            .on_before_task_poll(location_hook("poll", &polls))
            .on_task_terminate(move |meta| {
                ids2.lock().unwrap().push(meta.id());
                ends2.fetch_add(1, SeqCst);
            })
            .build()
            .unwrap();
        let (aborted, panicked, blocking) = rt.block_on(async {
            let aborted = volt::spawn(std::future::pending::<()>());
            let aborted_id = aborted.id();
            aborted.abort();
            assert!(aborted.await.unwrap_err().is_cancelled());
            let panicked = volt::spawn(async { panic!("boom") });
            let panicked_id = panicked.id();
            assert!(panicked.await.unwrap_err().is_panic());
            let blocking = volt::task::spawn_blocking(|| 7);
            let blocking_id = blocking.id();
            assert_eq!(blocking.await.unwrap(), 7);
            // Never polled: it ends with the runtime.
            let _idle = volt::spawn(std::future::pending::<()>());
            (aborted_id, panicked_id, blocking_id)
        });
        drop(rt);
        assert_eq!(spawns.load(SeqCst), 3, "blocking tasks have no spawn hook");
        assert_eq!(ends.load(SeqCst), 4);
        let ids = ids.lock().unwrap();
        for id in [aborted, panicked, blocking] {
            assert!(ids.contains(&id));
        }
        // The pending task was polled at most once before shutdown; the
        // aborted one possibly never; the panicking one once.
        assert!((1..=3).contains(&polls.load(SeqCst)));
    }
}

#[test]
fn local_runtime_spawn_local_has_hooks_and_local_set_has_none() {
    let [spawns, polls, ends] = counters();
    let ends2 = ends.clone();
    let rt = Builder::new_current_thread()
        .on_task_spawn(location_hook("spawn", &spawns))
        .on_before_task_poll(location_hook("poll", &polls))
        .on_task_terminate(move |_| {
            ends2.fetch_add(1, SeqCst);
        })
        .build_local(LocalOptions::default())
        .unwrap();
    let local = rt.spawn_local(async { std::rc::Rc::new(1) });
    rt.block_on(async {
        assert_eq!(*local.await.unwrap(), 1);
        volt::task::spawn_local(async {}).await.unwrap();
        // A plain `LocalSet`'s tasks get no hooks, as in tokio.
        let set = LocalSet::new();
        set.run_until(async { volt::task::spawn_local(async {}).await.unwrap() })
            .await;
    });
    assert_eq!(spawns.load(SeqCst), 2);
    assert_eq!(polls.load(SeqCst), 2);
    assert_eq!(ends.load(SeqCst), 2);
}

/// A spawn hook's panic unwinds out of the spawn call and no task is
/// made; a poll or terminate hook's panic is caught and the task and the
/// runtime go on.
#[test]
fn hook_panics() {
    let rt = Builder::new_current_thread()
        .on_task_spawn(|_| panic!("spawn hook"))
        .build()
        .unwrap();
    let _enter = rt.enter();
    let err = catch_unwind(AssertUnwindSafe(|| volt::spawn(async {}))).unwrap_err();
    assert_eq!(err.downcast_ref::<&str>(), Some(&"spawn hook"));
    assert_eq!(rt.metrics().num_alive_tasks(), 0);
    drop(_enter);

    for mut builder in [Builder::new_current_thread(), Builder::new_multi_thread()] {
        let rt = builder
            .on_before_task_poll(|_| panic!("before poll hook"))
            .on_after_task_poll(|_| panic!("after poll hook"))
            .on_task_terminate(|_| panic!("terminate hook"))
            .build()
            .unwrap();
        let out = rt.block_on(async {
            let task = volt::spawn(async {
                volt::task::yield_now().await;
                5
            });
            task.await.unwrap()
        });
        assert_eq!(out, 5);
        assert_eq!(rt.block_on(rt.spawn(async { 6 })).unwrap(), 6);
    }
}

/// The last call of each setter wins.
#[test]
fn setting_a_hook_twice_replaces_it() {
    let [first, second, _] = counters();
    let rt = Builder::new_current_thread()
        .on_task_spawn(location_hook("first", &first))
        .on_task_spawn(location_hook("second", &second))
        .build()
        .unwrap();
    rt.block_on(rt.spawn(async {})).unwrap();
    assert_eq!(first.load(SeqCst), 0);
    assert_eq!(second.load(SeqCst), 1);
}
