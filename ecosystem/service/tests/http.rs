//! The axum service served to reqwest and to hyper-util's client, all on
//! whatever `tokio` this workspace resolves to.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use bytes::Bytes;
use eco_service::Item;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A directory with `small.txt` (4 KiB) and `big.bin` (1 MiB), written
/// once per process: the tests run in parallel, and rewriting a file
/// (truncate, then write) under another test's request would serve it
/// short (a range past the truncated end answers 416).
fn static_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("eco-service-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("small.txt"), vec![b'x'; 4096]).unwrap();
        std::fs::write(
            dir.join("big.bin"),
            (0..1 << 20).map(|i| i as u8).collect::<Vec<_>>(),
        )
        .unwrap();
        dir
    })
    .clone()
}

type Server = JoinHandle<std::io::Result<()>>;

/// Starts `app` on a free port; dropping the sender shuts it down.
async fn start_app(app: axum::Router) -> (SocketAddr, oneshot::Sender<()>, Server) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = oneshot::channel::<()>();
    let server = tokio::spawn(eco_service::serve(listener, app, async {
        let _ = rx.await;
    }));
    (addr, tx, server)
}

async fn start() -> (SocketAddr, oneshot::Sender<()>, Server) {
    start_app(eco_service::app(static_dir())).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routes_json_and_concurrent_requests() {
    let (addr, stop, server) = start().await;
    let client = reqwest::Client::new();
    let base = format!("http://{addr}");

    assert_eq!(
        client
            .get(&base)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
        "Hello, World!"
    );

    let mut set = tokio::task::JoinSet::new();
    for id in 0..64u64 {
        let (client, base) = (client.clone(), base.clone());
        set.spawn(async move {
            let item: Item = client
                .get(format!("{base}/items/{id}"))
                .send()
                .await?
                .json()
                .await?;
            assert_eq!(item.id, id);
            let back: Item = client
                .post(format!("{base}/echo"))
                .json(&item)
                .send()
                .await?
                .json()
                .await?;
            assert_eq!(back, item);
            Ok::<_, reqwest::Error>(())
        });
    }
    while let Some(r) = set.join_next().await {
        r.unwrap().unwrap();
    }
    drop(stop);
    server.await.unwrap().unwrap();
}

#[tokio::test]
async fn serve_dir_with_range_and_timeouts() {
    let (addr, stop, server) = start().await;
    let client = reqwest::Client::new();
    let base = format!("http://{addr}");

    let small = client
        .get(format!("{base}/static/small.txt"))
        .send()
        .await
        .unwrap();
    assert_eq!(small.status(), 200);
    assert_eq!(small.bytes().await.unwrap().len(), 4096);

    let part = client
        .get(format!("{base}/static/big.bin"))
        .header("Range", "bytes=1000-1009")
        .send()
        .await
        .unwrap();
    assert_eq!(part.status(), 206);
    let want: Vec<u8> = (1000..1010).map(|i| i as u8).collect();
    assert_eq!(part.bytes().await.unwrap().as_ref(), &want[..]);

    let missing = client
        .get(format!("{base}/static/nope"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);

    // tower-http's TimeoutLayer answers 408 when the handler is too slow.
    let slow = client
        .get(format!("{base}/sleep/10000"))
        .send()
        .await
        .unwrap();
    assert_eq!(slow.status(), 408);

    // reqwest's own timeout, on the client's timer.
    let err = client
        .get(format!("{base}/sleep/1000"))
        .timeout(Duration::from_millis(50))
        .send()
        .await
        .unwrap_err();
    assert!(err.is_timeout(), "{err:?}");

    drop(stop);
    server.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_lets_requests_in_flight_finish() {
    // `/gate` tells the test that its request is inside the handler, then
    // waits for the test to let it answer.
    let (entered_tx, entered_rx) = tokio::sync::mpsc::channel::<()>(1);
    let release = std::sync::Arc::new(tokio::sync::Notify::new());
    let gate_release = release.clone();
    let app = eco_service::app(static_dir()).route(
        "/gate",
        axum::routing::get(move || async move {
            let released = gate_release.notified();
            entered_tx.send(()).await.unwrap();
            released.await;
            "released"
        }),
    );
    let (addr, stop, server) = start_app(app).await;
    let slow = tokio::spawn(async move {
        reqwest::get(format!("http://{addr}/gate"))
            .await?
            .text()
            .await
    });
    let mut entered_rx = entered_rx;
    entered_rx.recv().await.unwrap();
    drop(stop);
    // The server stops accepting, but the request in flight completes.
    tokio::task::yield_now().await;
    assert!(!server.is_finished());
    release.notify_one();
    assert_eq!(slow.await.unwrap().unwrap(), "released");
    server.await.unwrap().unwrap();
}

#[tokio::test]
async fn hyper_util_client_with_tokio_executor_and_timer() {
    let (addr, stop, server) = start().await;
    let client = Client::builder(TokioExecutor::new())
        .timer(TokioTimer::new())
        .pool_idle_timeout(Duration::from_secs(5))
        .build_http::<Full<Bytes>>();
    for _ in 0..3 {
        let resp = client
            .get(format!("http://{addr}/").parse().unwrap())
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        let body = resp.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(&body[..], b"Hello, World!");
    }
    drop(stop);
    server.await.unwrap().unwrap();
}
