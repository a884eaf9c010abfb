//! `task::Builder` (tokio's API, under `tokio_unstable` there): every
//! spawn method, and tokio's panic outside a runtime.

use volt::task::{Builder, LocalSet};

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
