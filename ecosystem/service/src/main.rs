//! `eco-service [ADDR] [STATIC_DIR]`: serves the app until Ctrl-C or
//! SIGTERM (defaults: 127.0.0.1:3000, the current directory).

#[tokio::main]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:3000".into());
    let dir = args.next().unwrap_or_else(|| ".".into());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("listening on {}", listener.local_addr()?);
    // Small responses go out at once: what a latency-minded service sets.
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, eco_service::app(dir.into()))
        .with_graceful_shutdown(eco_service::shutdown_signal())
        .await?;
    println!("shut down");
    Ok(())
}
