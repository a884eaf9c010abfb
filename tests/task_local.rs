//! `task_local!`: scopes, nesting, values across `.await` points and
//! threads, `sync_scope`, `try_with`/`get`, misuse panics.

use volt::task::{self, AccessError};

volt::task_local! {
    static NUMBER: u32;
    pub static NAME: String;
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn value_survives_awaits_and_thread_hops() {
    let h = volt::spawn(NUMBER.scope(7, async {
        for _ in 0..100 {
            assert_eq!(NUMBER.get(), 7);
            task::yield_now().await;
        }
        NUMBER.get()
    }));
    assert_eq!(h.await.unwrap(), 7);
}

#[volt::test]
async fn nested_scopes_shadow_and_restore() {
    NUMBER
        .scope(1, async {
            assert_eq!(NUMBER.get(), 1);
            NUMBER
                .scope(2, async {
                    assert_eq!(NUMBER.get(), 2);
                    task::yield_now().await;
                    assert_eq!(NUMBER.get(), 2);
                })
                .await;
            assert_eq!(NUMBER.get(), 1);
        })
        .await;
    let err: AccessError = NUMBER.try_with(|v| *v).unwrap_err();
    assert_eq!(err, NUMBER.try_with(|_| ()).unwrap_err());
}

#[volt::test]
async fn concurrent_scopes_do_not_leak_into_each_other() {
    let a = volt::spawn(NAME.scope("a".to_string(), async {
        for _ in 0..50 {
            assert_eq!(NAME.with(|n| n.clone()), "a");
            task::yield_now().await;
        }
    }));
    let b = volt::spawn(NAME.scope("b".to_string(), async {
        for _ in 0..50 {
            assert_eq!(NAME.get(), "b");
            task::yield_now().await;
        }
    }));
    a.await.unwrap();
    b.await.unwrap();
    assert!(NAME.try_with(|_| ()).is_err());
}

#[test]
fn sync_scope_and_errors() {
    let r = NUMBER.sync_scope(5, || NUMBER.get() * 2);
    assert_eq!(r, 10);
    assert_eq!(NUMBER.sync_scope(6, || NUMBER.try_get()), Ok(6));
    assert!(NUMBER.try_get().is_err());
    let err = NUMBER.try_with(|v| *v).unwrap_err();
    assert_eq!(err.to_string(), "task-local value not set");
    assert_eq!(format!("{err:?}"), "AccessError");
    assert_eq!(format!("{NUMBER:?}"), "LocalKey { .. }");
}

#[test]
#[should_panic(expected = "cannot access a task-local storage value without setting it first")]
fn with_outside_a_scope_panics() {
    NUMBER.with(|_| ());
}

#[test]
#[should_panic(
    expected = "cannot enter a task-local scope while the task-local storage is borrowed"
)]
fn scope_inside_with_panics() {
    NUMBER.sync_scope(1, || {
        NUMBER.with(|_| {
            NUMBER.sync_scope(2, || ());
        })
    });
}

#[volt::test]
async fn take_value_and_debug() {
    let fut = NUMBER.scope(3, async {});
    let mut fut = std::pin::pin!(fut);
    assert_eq!(format!("{fut:?}"), "TaskLocalFuture { value: 3 }");
    assert_eq!(fut.as_mut().take_value(), Some(3));
    assert_eq!(fut.as_mut().take_value(), None);
}

#[test]
fn the_inner_future_is_dropped_inside_the_scope() {
    struct CheckOnDrop;
    impl Drop for CheckOnDrop {
        fn drop(&mut self) {
            assert_eq!(NUMBER.get(), 11);
        }
    }
    let guard = CheckOnDrop;
    let fut = NUMBER.scope(11, async move {
        let _g = guard;
        std::future::pending::<()>().await;
    });
    drop(fut);
}
