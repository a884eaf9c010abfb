//! tonic client and server in one process: unary and server streaming.

use eco_grpc::{GreeterClient, GreeterServer, HelloRequest, MyGreeter};
use tokio_stream::wrappers::TcpListenerStream;
use tokio_stream::StreamExt;

async fn start() -> (
    String,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<()>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        tonic::transport::Server::builder()
            .add_service(GreeterServer::new(MyGreeter))
            .serve_with_incoming_shutdown(TcpListenerStream::new(listener), async {
                let _ = rx.await;
            })
            .await
            .unwrap();
    });
    (url, tx, server)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unary_and_errors() {
    let (url, stop, server) = start().await;
    let mut client = GreeterClient::connect(url).await.unwrap();
    let reply = client
        .say_hello(HelloRequest {
            name: "volt".into(),
            count: 0,
        })
        .await
        .unwrap();
    assert_eq!(reply.into_inner().message, "Hello volt!");
    let err = client
        .say_hello(HelloRequest {
            name: String::new(),
            count: 0,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument);

    let mut set = tokio::task::JoinSet::new();
    for i in 0..32 {
        let mut client = client.clone();
        set.spawn(async move {
            let r = client
                .say_hello(HelloRequest {
                    name: format!("{i}"),
                    count: 0,
                })
                .await;
            assert_eq!(r.unwrap().into_inner().message, format!("Hello {i}!"));
        });
    }
    while let Some(r) = set.join_next().await {
        r.unwrap();
    }
    drop(client);
    drop(stop);
    server.await.unwrap();
}

#[tokio::test]
async fn server_streaming() {
    let (url, stop, server) = start().await;
    let mut client = GreeterClient::connect(url).await.unwrap();
    let stream = client
        .say_hello_stream(HelloRequest {
            name: "s".into(),
            count: 10,
        })
        .await
        .unwrap()
        .into_inner();
    let got: Vec<String> = stream.map(|r| r.unwrap().message).collect().await;
    assert_eq!(got.len(), 10);
    assert_eq!(got[9], "Hello s #9");
    drop(client);
    drop(stop);
    server.await.unwrap();
}
