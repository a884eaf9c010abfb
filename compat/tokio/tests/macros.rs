//! The compat crate's macros, used as a crate that depends only on `tokio`
//! uses them: no `volt` in this package's dependencies.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

#[tokio::test]
async fn test_current_thread() {
    assert_eq!(
        tokio::runtime::Handle::current().runtime_flavor(),
        tokio::runtime::RuntimeFlavor::CurrentThread
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_multi_thread() {
    assert_eq!(
        tokio::runtime::Handle::current().runtime_flavor(),
        tokio::runtime::RuntimeFlavor::MultiThread
    );
    assert_eq!(tokio::runtime::Handle::current().metrics().num_workers(), 2);
}

#[tokio::test(start_paused = true)]
async fn test_start_paused() {
    let start = tokio::time::Instant::now();
    tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
    assert!(start.elapsed() >= std::time::Duration::from_secs(3600));
}

#[tokio::test(flavor = "local")]
async fn test_local() {
    let shared = std::rc::Rc::new(5);
    let task = tokio::task::spawn_local(async move { *shared + 1 });
    assert_eq!(task.await.unwrap(), 6);
}

// tokio's `unhandled_panic` argument (behind `tokio_unstable` there)
// expands to `::tokio::runtime::UnhandledPanic`.
#[tokio::test(flavor = "current_thread", unhandled_panic = "shutdown_runtime")]
#[should_panic(
    expected = "a spawned task panicked and the runtime is configured to shut down on unhandled panic"
)]
async fn test_unhandled_panic_shuts_down() {
    let _ = tokio::spawn(async { panic!("boom") }).await;
}

mod renamed {
    use tokio as tokio1;

    #[tokio1::test(crate = "tokio1")]
    async fn test_crate_path() {
        tokio1::task::yield_now().await;
    }
}

#[tokio::test]
async fn test_returns_result() -> Result<(), std::io::Error> {
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main_fn(x: u32) -> u32 {
    x + 1
}

#[test]
fn main_attribute_on_a_function() {
    assert_eq!(main_fn(41), 42);
}

#[tokio::test]
async fn select_join_try_join_pin() {
    let (a, b) = tokio::join!(async { 1 }, async { 2 });
    assert_eq!(a + b, 3);
    let r: Result<(u8, u8), &str> = tokio::try_join!(async { Ok(1) }, async { Err("no") });
    assert_eq!(r, Err("no"));
    let fut = async { 7 };
    tokio::pin!(fut);
    let v = tokio::select! {
        biased;
        v = &mut fut => v,
        _ = tokio::time::sleep(std::time::Duration::from_secs(1)) => 0,
    };
    assert_eq!(v, 7);
}

tokio::task_local! {
    static NUMBER: u32;
}

#[tokio::test]
async fn task_local() {
    let v = NUMBER.scope(3, async { NUMBER.get() }).await;
    assert_eq!(v, 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn spawn_and_sync() {
    let count = Arc::new(AtomicUsize::new(0));
    let sem = Arc::new(tokio::sync::Semaphore::new(2));
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..16 {
        let (count, sem) = (count.clone(), sem.clone());
        set.spawn(async move {
            let _p = sem.acquire().await.unwrap();
            count.fetch_add(1, Ordering::Relaxed);
        });
    }
    while set.join_next().await.is_some() {}
    assert_eq!(count.load(Ordering::Relaxed), 16);
}
