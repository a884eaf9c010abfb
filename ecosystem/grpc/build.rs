//! Generates the `Greeter` client and server from a Rust description of
//! the service (no .proto file, so no protoc).

use tonic_build::manual::{Builder, Method, Service};

fn main() {
    let method = |name: &str, route: &str, streaming: bool| {
        let b = Method::builder()
            .name(name)
            .route_name(route)
            .input_type("crate::HelloRequest")
            .output_type("crate::HelloReply")
            .codec_path("tonic_prost::ProstCodec");
        if streaming {
            b.server_streaming().build()
        } else {
            b.build()
        }
    };
    let greeter = Service::builder()
        .name("Greeter")
        .package("hello")
        .method(method("say_hello", "SayHello", false))
        .method(method("say_hello_stream", "SayHelloStream", true))
        .build();
    Builder::new().compile(&[greeter]);
}
