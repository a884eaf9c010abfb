//! `UnhandledPanic`: a current-thread runtime or a `LocalSet` that shuts
//! down when a spawned task panics (tokio's semantics and messages; tokio
//! has it behind `tokio_unstable`), and the macros' `unhandled_panic`
//! argument.

mod support;

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, mpsc};

use volt::runtime::{Builder, Runtime, UnhandledPanic};
use volt::task::LocalSet;

use support::foreign_block_on;

const RUNTIME_SHUT_DOWN: &str =
    "a spawned task panicked and the runtime is configured to shut down on unhandled panic";
const LOCAL_SET_SHUT_DOWN: &str =
    "a spawned task panicked and the LocalSet is configured to shutdown on unhandled panic";

fn shutting_down() -> Runtime {
    Builder::new_current_thread()
        .unhandled_panic(UnhandledPanic::ShutdownRuntime)
        .build()
        .unwrap()
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(payload) => payload
            .downcast::<&'static str>()
            .map(|s| s.to_string())
            .unwrap_or_default(),
    }
}

/// Sends on its channel when dropped.
struct DropSignal(mpsc::Sender<()>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

/// A task that never completes and sends on `on_drop` when its future is
/// dropped (polled or not).
fn pending_until_dropped(on_drop: mpsc::Sender<()>) -> impl Future<Output = ()> + Send + 'static {
    let guard = DropSignal(on_drop);
    async move {
        let _guard = guard;
        std::future::pending::<()>().await
    }
}

/// A task that panics.
async fn boom() {
    panic!("boom");
}

#[test]
#[should_panic(
    expected = "a spawned task panicked and the runtime is configured to shut down on unhandled panic"
)]
fn shutdown_on_panic() {
    let rt = shutting_down();
    rt.block_on(async {
        volt::spawn(boom());
        std::future::pending::<()>().await;
    })
}

#[test]
fn the_other_tasks_are_cancelled_and_later_spawns_do_nothing() {
    let rt = shutting_down();
    let (dropped_tx, dropped_rx) = mpsc::channel();
    let res = catch_unwind(AssertUnwindSafe(|| {
        rt.block_on(async {
            volt::spawn(pending_until_dropped(dropped_tx));
            volt::spawn(boom());
            std::future::pending::<()>().await;
        })
    }));
    assert_eq!(panic_message(res.unwrap_err()), RUNTIME_SHUT_DOWN);
    // The pending task was cancelled (its future dropped) by the shutdown.
    dropped_rx.try_recv().unwrap();

    let task = rt.spawn(async { 1 });
    let err = foreign_block_on(task).unwrap_err();
    assert!(err.is_cancelled());

    // Every later `block_on` whose future is not ready panics the same way.
    let res = catch_unwind(AssertUnwindSafe(|| {
        rt.block_on(std::future::pending::<()>())
    }));
    assert_eq!(panic_message(res.unwrap_err()), RUNTIME_SHUT_DOWN);
}

#[test]
fn spawns_do_nothing_after_a_panic_on_another_thread() {
    let rt1 = Arc::new(shutting_down());
    let rt2 = rt1.clone();
    let res = std::thread::spawn(move || {
        rt2.block_on(async {
            volt::spawn(boom());
            std::future::pending::<()>().await;
        })
    })
    .join();
    assert_eq!(panic_message(res.unwrap_err()), RUNTIME_SHUT_DOWN);

    let task = rt1.spawn(async {});
    assert!(foreign_block_on(task).is_err());
}

#[test]
fn every_concurrent_block_on_panics() {
    const N: usize = 2;
    let rt = Arc::new(shutting_down());
    let (started_tx, started_rx) = mpsc::channel();
    let threads: Vec<_> = (0..N)
        .map(|_| {
            let rt = rt.clone();
            let started = started_tx.clone();
            std::thread::spawn(move || {
                rt.block_on(async {
                    started.send(()).unwrap();
                    std::future::pending::<()>().await;
                })
            })
        })
        .collect();
    for _ in 0..N {
        started_rx.recv().unwrap();
    }
    rt.spawn(boom());
    for thread in threads {
        assert_eq!(panic_message(thread.join().unwrap_err()), RUNTIME_SHUT_DOWN);
    }
}

#[test]
fn ignore_forwards_the_panic_to_the_join_handle() {
    for rt in [
        Builder::new_current_thread().build().unwrap(),
        Builder::new_current_thread()
            .unhandled_panic(UnhandledPanic::Ignore)
            .build()
            .unwrap(),
    ] {
        let task1 = rt.spawn(async { panic!("boom") });
        let task2 = rt.spawn(async { "done" });
        rt.block_on(async {
            assert!(task1.await.unwrap_err().is_panic());
            assert_eq!(task2.await.unwrap(), "done");
        });
    }
}

#[test]
fn a_task_that_catches_its_own_panic_is_not_unhandled() {
    let rt = shutting_down();
    let out = rt.block_on(async {
        volt::spawn(async { catch_unwind(|| panic!("caught")).is_err() })
            .await
            .unwrap()
    });
    assert!(out);
}

#[test]
fn shutdown_runtime_on_the_multi_thread_builder_panics() {
    let res = catch_unwind(|| {
        Builder::new_multi_thread().unhandled_panic(UnhandledPanic::ShutdownRuntime);
    });
    assert_eq!(
        panic_message(res.unwrap_err()),
        "UnhandledPanic::ShutdownRuntime is only supported in current thread runtime"
    );
    // `Ignore` is the default there, and accepted.
    Builder::new_multi_thread()
        .unhandled_panic(UnhandledPanic::Ignore)
        .worker_threads(1)
        .build()
        .unwrap();
}

#[test]
fn a_local_runtime_shuts_down_too() {
    let rt = Builder::new_current_thread()
        .unhandled_panic(UnhandledPanic::ShutdownRuntime)
        .build_local(Default::default())
        .unwrap();
    let (dropped_tx, dropped_rx) = mpsc::channel();
    let res = catch_unwind(AssertUnwindSafe(|| {
        rt.block_on(async {
            // A `Send` task, on the runtime's own scheduler.
            volt::spawn(pending_until_dropped(dropped_tx));
            // A local task's panic shuts the whole runtime down.
            volt::task::spawn_local(boom());
            std::future::pending::<()>().await;
        })
    }));
    assert_eq!(panic_message(res.unwrap_err()), RUNTIME_SHUT_DOWN);
    dropped_rx.try_recv().unwrap();
    let task = rt.handle().spawn(async {});
    assert!(foreign_block_on(task).unwrap_err().is_cancelled());
}

#[volt::test]
#[should_panic(
    expected = "a spawned task panicked and the LocalSet is configured to shutdown on unhandled panic"
)]
async fn local_set_shutdown_on_panic() {
    LocalSet::new()
        .unhandled_panic(UnhandledPanic::ShutdownRuntime)
        .run_until(async {
            volt::task::spawn_local(boom());
            std::future::pending::<()>().await;
        })
        .await;
}

#[test]
fn local_set_cancels_its_other_tasks() {
    let rt = Builder::new_current_thread().build().unwrap();
    let (dropped_tx, dropped_rx) = mpsc::channel();
    let mut local = LocalSet::new();
    local.unhandled_panic(UnhandledPanic::ShutdownRuntime);
    let res = catch_unwind(AssertUnwindSafe(|| {
        local.block_on(&rt, async {
            volt::task::spawn_local(pending_until_dropped(dropped_tx));
            volt::task::spawn_local(boom());
            std::future::pending::<()>().await;
        })
    }));
    assert_eq!(panic_message(res.unwrap_err()), LOCAL_SET_SHUT_DOWN);
    dropped_rx.try_recv().unwrap();
}

#[test]
fn local_set_behavior_cannot_change_once_started() {
    let mut local = LocalSet::new();
    drop(local.spawn_local(async {}));
    let res = catch_unwind(AssertUnwindSafe(|| {
        local.unhandled_panic(UnhandledPanic::Ignore);
    }));
    assert_eq!(
        panic_message(res.unwrap_err()),
        "Unhandled Panic behavior modified after starting LocalSet"
    );
}

#[volt::test(flavor = "current_thread", unhandled_panic = "shutdown_runtime")]
#[should_panic(
    expected = "a spawned task panicked and the runtime is configured to shut down on unhandled panic"
)]
async fn macro_shutdown_runtime() {
    let _ = volt::spawn(async {
        panic!("This panic should shutdown the runtime.");
    })
    .await;
}

#[volt::test(flavor = "current_thread", unhandled_panic = "ignore")]
async fn macro_ignore() {
    let res = volt::spawn(async {
        panic!("This panic should be forwarded to rt as an error.");
    })
    .await;
    assert!(res.is_err());
}

#[volt::test(flavor = "local", unhandled_panic = "shutdown_runtime")]
#[should_panic(
    expected = "a spawned task panicked and the runtime is configured to shut down on unhandled panic"
)]
async fn macro_local_flavor_shutdown_runtime() {
    let _ = volt::task::spawn_local(async {
        panic!("This panic should shutdown the runtime.");
    })
    .await;
}
