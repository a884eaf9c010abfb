//! `LocalRuntime`, `Builder::build_local` and `runtime::worker_index`.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

use volt::runtime::{self, Builder, LocalOptions, LocalRuntime};
use volt::task;

#[test]
fn local_runtime_runs_non_send_tasks_from_everywhere() {
    let rt = LocalRuntime::new().unwrap();
    let count = Rc::new(Cell::new(0));
    let c = count.clone();
    rt.spawn_local(async move { c.set(c.get() + 1) });
    let c = count.clone();
    rt.block_on(async move {
        // From the block_on future...
        let c2 = c.clone();
        task::spawn_local(async move { c2.set(c2.get() + 1) })
            .await
            .unwrap();
        // ...and from a Send task of the same runtime.
        volt::spawn(async {
            drop(task::spawn_local(async {}));
        })
        .await
        .unwrap();
        volt::time::sleep(std::time::Duration::from_millis(1)).await;
    });
    assert_eq!(count.get(), 2);
    assert_eq!(rt.metrics().num_workers(), 1);
    let h = rt.spawn_blocking(|| 5);
    assert_eq!(rt.block_on(h).unwrap(), 5);
    rt.shutdown_timeout(std::time::Duration::from_millis(10));
}

#[test]
fn enter_allows_spawn_local() {
    let rt = LocalRuntime::new().unwrap();
    let h = {
        let _g = rt.enter();
        task::spawn_local(async { Rc::new(1) })
    };
    assert_eq!(*rt.block_on(h).unwrap(), 1);
    assert!(format!("{rt:?}").starts_with("LocalRuntime"));
}

#[test]
fn build_local_from_builder() {
    let rt = Builder::new_current_thread()
        .enable_time()
        .build_local(LocalOptions::default())
        .unwrap();
    assert_eq!(rt.block_on(async { runtime::worker_index() }), Some(0));
    let handle = rt.handle().clone();
    rt.shutdown_background();
    drop(handle);
}

#[test]
#[should_panic(expected = "multi_thread is not supported for LocalRuntime")]
fn build_local_multi_thread_panics() {
    let _ = Builder::new_multi_thread().build_local(LocalOptions::default());
}

#[test]
fn worker_index_current_thread() {
    let rt = Builder::new_current_thread().build().unwrap();
    assert_eq!(rt.block_on(async { runtime::worker_index() }), Some(0));
    // Not on the thread owning the driver.
    assert_eq!(
        rt.handle().block_on(async { runtime::worker_index() }),
        None
    );
}

#[test]
fn worker_index_outside_a_runtime() {
    assert_eq!(runtime::worker_index(), None);
}

#[test]
fn worker_index_multi_thread() {
    let rt = Builder::new_multi_thread()
        .worker_threads(3)
        .build()
        .unwrap();
    // The block_on thread is not a worker.
    assert_eq!(rt.block_on(async { runtime::worker_index() }), None);
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    rt.block_on(async {
        let mut hs = Vec::new();
        for _ in 0..100 {
            let seen = seen.clone();
            hs.push(volt::spawn(async move {
                seen.lock().unwrap().push(runtime::worker_index());
            }));
        }
        for h in hs {
            h.await.unwrap();
        }
        // A blocking thread is not a worker either.
        let b = volt::task::spawn_blocking(runtime::worker_index)
            .await
            .unwrap();
        assert_eq!(b, None);
    });
    assert!(
        seen.lock()
            .unwrap()
            .iter()
            .all(|i| matches!(i, Some(0..=2)))
    );
}

#[test]
fn block_on_inside_spawn_blocking_and_nested_enter() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let out = rt.block_on(async {
        let handle = runtime::Handle::current();
        volt::task::spawn_blocking(move || {
            // A blocking thread may block on the runtime's handle.
            handle.block_on(async { volt::spawn(async { 3 }).await.unwrap() })
        })
        .await
        .unwrap()
    });
    assert_eq!(out, 3);

    let other = Builder::new_current_thread().build().unwrap();
    let g1 = rt.enter();
    {
        let _g2 = other.enter();
        assert_eq!(
            runtime::Handle::current().runtime_flavor(),
            runtime::RuntimeFlavor::CurrentThread
        );
    }
    assert_eq!(
        runtime::Handle::current().runtime_flavor(),
        runtime::RuntimeFlavor::MultiThread
    );
    drop(g1);
    assert!(runtime::Handle::try_current().is_err());
}

/// `#[volt::test(flavor = "local")]`: a `LocalRuntime`, so `spawn_local`
/// works without a `LocalSet`.
#[volt::test(flavor = "local")]
async fn test_macro_local_flavor_spawns_local_tasks() {
    let shared = std::rc::Rc::new(std::cell::Cell::new(1));
    let inner = shared.clone();
    volt::task::spawn_local(async move { inner.set(inner.get() + 1) })
        .await
        .unwrap();
    assert_eq!(shared.get(), 2);
}

#[volt::test(flavor = "local", start_paused = true)]
async fn test_macro_local_flavor_can_start_paused() {
    let start = volt::time::Instant::now();
    volt::time::sleep(std::time::Duration::from_secs(3600)).await;
    assert_eq!(start.elapsed(), std::time::Duration::from_secs(3600));
}

#[volt::test(name = "named-by-the-macro")]
async fn test_macro_name_names_the_runtime() {
    assert_eq!(
        volt::runtime::Handle::current().name(),
        Some("named-by-the-macro")
    );
}

/// `spawn_local` through a `LocalRuntime`'s handle entered on another
/// thread panics with tokio's message.
#[test]
#[should_panic(
    expected = "Local tasks can only be spawned on a LocalRuntime from the thread the runtime was created on"
)]
fn spawn_local_through_a_local_runtime_handle_on_another_thread_panics() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = LocalRuntime::new().unwrap();
        tx.send(rt.handle().clone()).unwrap();
    });
    let handle = rx.recv().unwrap();
    let _guard = handle.enter();
    task::spawn_local(async {});
}

/// A plain runtime's handle entered without a `LocalSet`: the usual message.
#[test]
#[should_panic(
    expected = "`spawn_local` called from outside of a `task::LocalSet` or `runtime::LocalRuntime`"
)]
fn spawn_local_under_a_plain_runtime_handle_panics() {
    let rt = Builder::new_current_thread().build().unwrap();
    let _guard = rt.enter();
    task::spawn_local(async {});
}
