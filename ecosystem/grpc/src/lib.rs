//! A tonic service with a unary and a server-streaming method, written
//! against `tokio` and tokio-stream only.

use std::pin::Pin;

use tokio_stream::Stream;
use tonic::{Request, Response, Status};

include!(concat!(env!("OUT_DIR"), "/hello.Greeter.rs"));

pub use greeter_client::GreeterClient;
pub use greeter_server::{Greeter, GreeterServer};

/// The request: whom to greet, and how many greetings to stream.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HelloRequest {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(uint32, tag = "2")]
    pub count: u32,
}

/// One greeting.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HelloReply {
    #[prost(string, tag = "1")]
    pub message: String,
}

/// The service: `say_hello` answers once; `say_hello_stream` sends
/// `count` greetings from a spawned task through an mpsc channel.
#[derive(Debug, Default)]
pub struct MyGreeter;

type ReplyStream = Pin<Box<dyn Stream<Item = Result<HelloReply, Status>> + Send>>;

#[tonic::async_trait]
impl Greeter for MyGreeter {
    async fn say_hello(
        &self,
        request: Request<HelloRequest>,
    ) -> Result<Response<HelloReply>, Status> {
        let name = request.into_inner().name;
        if name.is_empty() {
            return Err(Status::invalid_argument("name is empty"));
        }
        Ok(Response::new(HelloReply {
            message: format!("Hello {name}!"),
        }))
    }

    type SayHelloStreamStream = ReplyStream;

    async fn say_hello_stream(
        &self,
        request: Request<HelloRequest>,
    ) -> Result<Response<Self::SayHelloStreamStream>, Status> {
        let req = request.into_inner();
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        tokio::spawn(async move {
            for i in 0..req.count {
                let reply = HelloReply {
                    message: format!("Hello {} #{i}", req.name),
                };
                if tx.send(Ok(reply)).await.is_err() {
                    break;
                }
            }
        });
        Ok(Response::new(Box::pin(
            tokio_stream::wrappers::ReceiverStream::new(rx),
        )))
    }
}
