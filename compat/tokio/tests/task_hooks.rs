//! The task hooks through tokio's paths (`tokio::runtime::TaskMeta`,
//! `Builder::on_task_spawn` and the rest; tokio has them behind
//! `tokio_unstable`, volt offers them stable).

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};

use tokio::runtime::{Builder, TaskMeta};

#[test]
fn task_hooks_through_the_tokio_name() {
    let events = Arc::new(Mutex::new(Vec::new()));
    let polls = Arc::new(AtomicUsize::new(0));
    let (spawned, ended, polled) = (events.clone(), events.clone(), polls.clone());
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .on_task_spawn(move |meta: &TaskMeta<'_>| {
            assert_eq!(meta.spawned_at().file(), file!());
            spawned.lock().unwrap().push(("spawn", meta.id()));
        })
        .on_before_task_poll(move |_| {
            polled.fetch_add(1, SeqCst);
        })
        .on_task_terminate(move |meta| ended.lock().unwrap().push(("terminate", meta.id())))
        .build()
        .unwrap();
    let task = rt.spawn(async { tokio::task::yield_now().await });
    let id = task.id();
    rt.block_on(task).unwrap();
    drop(rt);
    assert_eq!(*events.lock().unwrap(), [("spawn", id), ("terminate", id)]);
    assert_eq!(polls.load(SeqCst), 2);
}
