//! The waker bridge's misuse checks (what `blocking_*` methods of the sync
//! and channel crates rely on).

use volt_runtime::bridge;
use volt_runtime::runtime::Builder;

#[test]
fn block_on_outside_a_runtime_runs_the_future() {
    assert_eq!(bridge::block_on(async { 3 }), 3);
    assert!(!bridge::is_inside_runtime());
}

#[test]
#[should_panic(
    expected = "Cannot block the current thread from within a runtime. This happens because a function attempted to block the current thread while the thread is being used to drive asynchronous tasks."
)]
fn block_on_inside_a_runtime_panics_with_tokios_message() {
    let rt = Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        assert!(bridge::is_inside_runtime());
        bridge::block_on(async {});
    });
}

#[test]
fn block_on_in_spawn_blocking_is_allowed() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let v = rt.block_on(async {
        volt_runtime::task::spawn_blocking(|| {
            assert!(!bridge::is_inside_runtime());
            bridge::block_on(async { 4 })
        })
        .await
        .unwrap()
    });
    assert_eq!(v, 4);
}

#[test]
fn wake_list_wakes_after_the_lock() {
    use std::sync::{Arc, Mutex};
    use std::task::{Wake, Waker};

    struct LockChecker(Arc<Mutex<()>>);
    impl Wake for LockChecker {
        fn wake(self: Arc<Self>) {
            // Would deadlock if woken under the lock.
            drop(self.0.lock().unwrap());
        }
    }
    let lock = Arc::new(Mutex::new(()));
    let mut list = bridge::WakeList::new();
    {
        let _guard = lock.lock().unwrap();
        for _ in 0..4 {
            list.push(Waker::from(Arc::new(LockChecker(lock.clone()))));
        }
    }
    list.wake_all();
}
