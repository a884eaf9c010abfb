//! tokio-util and tokio-stream on the workspace's `tokio`.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use tokio_stream::wrappers::{BroadcastStream, IntervalStream, ReceiverStream, TcpListenerStream};
use tokio_util::codec::{Framed, LinesCodec};
use tokio_util::sync::{CancellationToken, PollSemaphore};
use tokio_util::time::DelayQueue;

#[tokio::test]
async fn framed_lines_over_tcp() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let mut incoming = TcpListenerStream::new(listener);
        let stream = incoming.next().await.unwrap().unwrap();
        let mut framed = Framed::new(stream, LinesCodec::new());
        while let Some(line) = framed.next().await {
            framed.send(line.unwrap().to_uppercase()).await.unwrap();
        }
    });
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut framed = Framed::new(stream, LinesCodec::new());
    for word in ["one", "two", "three"] {
        framed.send(word).await.unwrap();
        assert_eq!(framed.next().await.unwrap().unwrap(), word.to_uppercase());
    }
    drop(framed);
    server.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_token_stops_children() {
    let token = CancellationToken::new();
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let child = token.child_token();
        tasks.push(tokio::spawn(async move {
            tokio::select! {
                _ = child.cancelled() => true,
                _ = tokio::time::sleep(Duration::from_secs(60)) => false,
            }
        }));
    }
    token.cancel();
    for t in tasks {
        assert!(t.await.unwrap());
    }
}

#[tokio::test]
async fn poll_semaphore_limits() {
    let sem = std::sync::Arc::new(tokio::sync::Semaphore::new(2));
    let mut poll = PollSemaphore::new(sem.clone());
    let a = poll.next().await.unwrap();
    let b = poll.next().await.unwrap();
    assert_eq!(sem.available_permits(), 0);
    let waiter = tokio::spawn(async move { poll.next().await.map(|p| p.num_permits()) });
    tokio::task::yield_now().await;
    assert!(!waiter.is_finished());
    drop(a);
    assert_eq!(waiter.await.unwrap(), Some(1));
    drop(b);
}

#[tokio::test(start_paused = true)]
async fn delay_queue_in_paused_time() {
    let mut queue = DelayQueue::new();
    queue.insert("late", Duration::from_secs(30));
    queue.insert("early", Duration::from_secs(10));
    let key = queue.insert("removed", Duration::from_secs(20));
    queue.remove(&key);
    let start = tokio::time::Instant::now();
    assert_eq!(queue.next().await.unwrap().into_inner(), "early");
    assert_eq!(start.elapsed(), Duration::from_secs(10));
    assert_eq!(queue.next().await.unwrap().into_inner(), "late");
    assert_eq!(start.elapsed(), Duration::from_secs(30));
    assert!(queue.next().await.is_none());
}

#[tokio::test(start_paused = true)]
async fn stream_wrappers() {
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    tokio::spawn(async move {
        for i in 0..5 {
            tx.send(i).await.unwrap();
        }
    });
    let got: Vec<i32> = ReceiverStream::new(rx).collect().await;
    assert_eq!(got, vec![0, 1, 2, 3, 4]);

    let ticks = IntervalStream::new(tokio::time::interval(Duration::from_secs(1)));
    let start = tokio::time::Instant::now();
    assert_eq!(ticks.take(3).count().await, 3);
    assert_eq!(start.elapsed(), Duration::from_secs(2));

    let (btx, brx) = tokio::sync::broadcast::channel(8);
    let stream = BroadcastStream::new(brx);
    btx.send("a").unwrap();
    btx.send("b").unwrap();
    drop(btx);
    let got: Vec<_> = stream.map(Result::unwrap).collect().await;
    assert_eq!(got, vec!["a", "b"]);

    let slow = tokio_stream::StreamExt::timeout(
        tokio_stream::iter([1]).then(|v| async move {
            tokio::time::sleep(Duration::from_secs(5)).await;
            v
        }),
        Duration::from_secs(1),
    );
    tokio::pin!(slow);
    assert!(slow.next().await.unwrap().is_err());
}
