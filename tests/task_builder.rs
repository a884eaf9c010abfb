//! `task::Builder` and `task::join_set::Builder` (tokio's APIs, under
//! `tokio_unstable` there): every spawn method, and tokio's panic outside
//! a runtime.

use volt::task::{Builder, JoinSet, LocalSet};

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn builder_spawns_every_kind_of_task() {
    let h = Builder::new().name("plain").spawn(async { 1 }).unwrap();
    assert_eq!(h.await.unwrap(), 1);
    let handle = volt::runtime::Handle::current();
    let h = Builder::new()
        .name("on")
        .spawn_on(async { 2 }, &handle)
        .unwrap();
    assert_eq!(h.await.unwrap(), 2);
    let h = Builder::new().spawn_blocking(|| 3).unwrap();
    assert_eq!(h.await.unwrap(), 3);
    let h = Builder::new()
        .name("blocking-on")
        .spawn_blocking_on(|| 4, &handle)
        .unwrap();
    assert_eq!(h.await.unwrap(), 4);
}

#[test]
fn builder_spawns_local_tasks() {
    let rt = volt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let local = LocalSet::new();
    let shared = std::rc::Rc::new(5);
    let s = shared.clone();
    let h = Builder::new()
        .name("local-on")
        .spawn_local_on(async move { *s + 1 }, &local)
        .unwrap();
    assert_eq!(local.block_on(&rt, h).unwrap(), 6);
    let got = local.block_on(&rt, async move {
        Builder::new()
            .name("local")
            .spawn_local(async move { *shared + 2 })
            .unwrap()
            .await
            .unwrap()
    });
    assert_eq!(got, 7);
}

#[test]
#[should_panic(
    expected = "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
)]
fn builder_spawn_outside_a_runtime_panics_as_tokio() {
    let _ = Builder::new().name("nowhere").spawn(async {});
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn join_set_builder_spawns_every_kind_of_task_into_the_set() {
    let mut set = JoinSet::new();
    let handle = volt::runtime::Handle::current();
    set.build_task().name("plain").spawn(async { 1 }).unwrap();
    set.build_task()
        .name("on")
        .spawn_on(async { 2 }, &handle)
        .unwrap();
    set.build_task().spawn_blocking(|| 3).unwrap();
    set.build_task()
        .name("blocking-on")
        .spawn_blocking_on(|| 4, &handle)
        .unwrap();
    assert_eq!(set.len(), 4);
    let mut got = set.join_all().await;
    got.sort();
    assert_eq!(got, [1, 2, 3, 4]);
}

#[volt::test]
async fn join_set_builder_returns_the_tasks_abort_handle() {
    let mut set = JoinSet::new();
    let abort = set
        .build_task()
        .name("pending")
        .spawn(std::future::pending::<()>())
        .unwrap();
    abort.abort();
    assert!(set.join_next().await.unwrap().unwrap_err().is_cancelled());
    assert!(set.is_empty());
}

#[test]
fn join_set_builder_spawns_local_tasks() {
    let rt = volt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let local = LocalSet::new();
    let mut set = JoinSet::new();
    let shared = std::rc::Rc::new(5);
    let s = shared.clone();
    set.build_task()
        .name("local-on")
        .spawn_local_on(async move { *s + 1 }, &local)
        .unwrap();
    let got = local.block_on(&rt, async move {
        set.build_task()
            .name("local")
            .spawn_local(async move { *shared + 2 })
            .unwrap();
        let mut got = set.join_all().await;
        got.sort();
        got
    });
    assert_eq!(got, [6, 7]);
}

#[test]
#[should_panic(
    expected = "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
)]
fn join_set_builder_spawn_outside_a_runtime_panics_as_tokio() {
    let mut set = JoinSet::new();
    let _ = set.build_task().name("nowhere").spawn(async {});
}

#[test]
fn join_set_builder_debug_names_its_parts() {
    let mut set = JoinSet::<()>::new();
    let b = set.build_task().name("x");
    let s = format!("{b:?}");
    assert!(s.starts_with("join_set::Builder { joinset: JoinSet"), "{s}");
    assert!(s.contains("name: Some(\"x\")"), "{s}");
}
