//! `#[tokio::test]` in each flavor and option, and the macros, through
//! the workspace's `tokio`.

use std::time::Duration;

#[tokio::test]
async fn current_thread() {
    assert_eq!(
        tokio::runtime::Handle::current().runtime_flavor(),
        tokio::runtime::RuntimeFlavor::CurrentThread
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn multi_thread() {
    let handle = tokio::runtime::Handle::current();
    assert_eq!(
        handle.runtime_flavor(),
        tokio::runtime::RuntimeFlavor::MultiThread
    );
    assert_eq!(handle.metrics().num_workers(), 4);
    let sum: u64 = futures::future::join_all((0..100u64).map(|i| tokio::spawn(async move { i })))
        .await
        .into_iter()
        .map(Result::unwrap)
        .sum();
    assert_eq!(sum, 4950);
    let blocking = tokio::task::spawn_blocking(|| std::thread::current().name().map(str::to_owned));
    assert!(blocking.await.unwrap().is_some());
}

#[tokio::test(start_paused = true)]
async fn start_paused() {
    let start = tokio::time::Instant::now();
    let r = tokio::time::timeout(
        Duration::from_secs(5),
        tokio::time::sleep(Duration::from_secs(60)),
    )
    .await;
    assert!(r.is_err());
    assert_eq!(start.elapsed(), Duration::from_secs(5));
}

#[tokio::test]
async fn macros() {
    let (a, b) = tokio::join!(async { 1 }, async { 2 });
    assert_eq!((a, b), (1, 2));
    let r = tokio::try_join!(async { Ok::<_, ()>(1) }, async { Ok(2) });
    assert_eq!(r, Ok((1, 2)));
    let (tx, rx) = tokio::sync::oneshot::channel();
    tx.send(5).unwrap();
    let got = tokio::select! {
        v = rx => v.unwrap(),
        _ = tokio::time::sleep(Duration::from_secs(5)) => 0,
    };
    assert_eq!(got, 5);
}

#[test]
fn runtime_builder() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    assert_eq!(
        rt.block_on(async { tokio::spawn(async { 7 }).await.unwrap() }),
        7
    );
}
