//! Misuse panics with tokio's exact messages (so `#[should_panic(expected =
//! ...)]` tests carry over), pointing at the caller's line.

use volt::runtime::{Builder, Handle, Runtime};

const NO_RUNTIME: &str =
    "there is no reactor running, must be called from the context of a Tokio 1.x runtime";

#[test]
#[should_panic(
    expected = "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
)]
fn spawn_outside_runtime() {
    drop(volt::spawn(async {}));
}

#[test]
#[should_panic(
    expected = "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
)]
fn spawn_blocking_outside_runtime() {
    drop(volt::task::spawn_blocking(|| {}));
}

#[test]
#[should_panic(
    expected = "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
)]
fn handle_current_outside_runtime() {
    let _ = Handle::current();
}

#[test]
fn try_current_outside_runtime() {
    let err = Handle::try_current().unwrap_err();
    assert!(err.is_missing_context());
    assert!(!err.is_thread_local_destroyed());
    assert_eq!(err.to_string(), NO_RUNTIME);
}

#[test]
#[should_panic(expected = "Can't get a task id when not inside a task")]
fn task_id_outside_task() {
    let _ = volt::task::id();
}

#[test]
fn try_id_outside_task_and_inside_block_on() {
    assert!(volt::task::try_id().is_none());
    let rt = Builder::new_current_thread().build().unwrap();
    // `block_on` has no task id.
    assert!(rt.block_on(async { volt::task::try_id() }).is_none());
}

#[test]
#[should_panic(expected = "Worker threads cannot be set to 0")]
fn zero_worker_threads() {
    Builder::new_multi_thread().worker_threads(0);
}

#[test]
#[should_panic(expected = "Max blocking threads cannot be set to 0")]
fn zero_blocking_threads() {
    Builder::new_multi_thread().max_blocking_threads(0);
}

#[test]
#[should_panic(expected = "global_queue_interval must be greater than 0")]
fn zero_global_queue_interval() {
    Builder::new_multi_thread().global_queue_interval(0);
}

#[test]
#[should_panic(expected = "event_interval must be greater than 0")]
fn zero_event_interval() {
    Builder::new_multi_thread().event_interval(0);
}

#[test]
#[should_panic(expected = "max_io_events_per_tick must be non-zero")]
fn zero_max_io_events_per_tick() {
    Builder::new_current_thread().max_io_events_per_tick(0);
}

#[test]
#[should_panic(expected = "max_io_events_per_busy_tick must be non-zero")]
fn zero_max_io_events_per_busy_tick() {
    Builder::new_current_thread().max_io_events_per_busy_tick(0);
}

#[test]
#[should_panic(expected = "runtime name shouldn't be empty")]
fn empty_runtime_name() {
    Builder::new_multi_thread().name("  ");
}

#[test]
#[should_panic(expected = "Cannot start a runtime from within a runtime.")]
fn nested_block_on_current_thread() {
    let rt = Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let inner = Builder::new_current_thread().build().unwrap();
        inner.block_on(async {});
    });
}

#[test]
#[should_panic(expected = "Cannot start a runtime from within a runtime.")]
fn handle_block_on_inside_runtime() {
    let rt = Runtime::new().unwrap();
    rt.block_on(async {
        Handle::current().block_on(async {});
    });
}

#[test]
#[should_panic(expected = "can call blocking only when running on the multi-threaded runtime")]
fn block_in_place_on_current_thread() {
    let rt = Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        volt::task::block_in_place(|| {});
    });
}

#[test]
#[should_panic(expected = "`EnterGuard` values dropped out of order.")]
fn enter_guards_dropped_out_of_order() {
    let rt1 = Builder::new_current_thread().build().unwrap();
    let rt2 = Builder::new_current_thread().build().unwrap();
    let enter1 = rt1.enter();
    let enter2 = rt2.enter();
    drop(enter1);
    drop(enter2);
}

/// Where `f`'s panic says it happened (`f` panics on this thread).
fn panic_location(f: impl FnOnce() + std::panic::UnwindSafe) -> (String, u32) {
    let hook = std::panic::take_hook();
    let location = std::sync::Arc::new(std::sync::Mutex::new(None));
    let loc = location.clone();
    // The hook is process-wide and other tests of this binary panic on their
    // own threads at the same time: record only this thread's panic.
    let me = std::thread::current().id();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == me {
            *loc.lock().unwrap() = info.location().map(|l| (l.file().to_string(), l.line()));
        }
    }));
    let res = std::panic::catch_unwind(f);
    std::panic::set_hook(hook);
    assert!(res.is_err());
    location.lock().unwrap().clone().unwrap()
}

#[test]
fn panics_point_at_the_callers_line() {
    let line = line!() + 1;
    let (file, l) = panic_location(|| drop(volt::spawn(async {})));
    assert!(file.ends_with("rt_misuse.rs"), "{file}");
    assert_eq!(l, line);

    // `block_in_place` on a current-thread runtime (tokio's
    // `block_in_place_panic_caller`).
    let rt = Builder::new_current_thread().build().unwrap();
    let line = line!() + 2;
    let (file, l) = panic_location(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async { volt::task::block_in_place(|| {}) })
    }));
    assert!(file.ends_with("rt_misuse.rs"), "{file}");
    assert_eq!(l, line);
}

#[test]
fn join_error_formats_like_tokio() {
    let rt = Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let h = volt::spawn(std::future::pending::<()>());
        let id = h.id();
        h.abort();
        let err = h.await.unwrap_err();
        assert_eq!(err.to_string(), format!("task {id} was cancelled"));
        assert_eq!(format!("{err:?}"), format!("JoinError::Cancelled({id:?})"));
        assert_eq!(format!("{id:?}"), format!("Id({id})"));
        let io: std::io::Error = err.into();
        assert_eq!(io.to_string(), "task was cancelled");
    });
}
