//! An axum service of the kind a tokio user runs, written only against
//! `tokio` and its ecosystem: routes with JSON, static files through
//! tower-http's `ServeDir`, `TraceLayer`, `TimeoutLayer`, graceful shutdown.
//!
//! Built through volt's compat crate (see `../Cargo.toml`), every crate in
//! it runs on volt; `scripts/ecosystem.sh` builds it on tokio too.

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use axum::extract::Path;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;
use tower_http::services::ServeDir;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

/// How long a request may take before `TimeoutLayer` answers 408.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);

/// A JSON body the routes take and give.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    pub id: u64,
    pub name: String,
    pub tags: Vec<String>,
}

/// The service: `/` (text), `/items/{id}` (JSON), `POST /echo` (JSON
/// round trip), `/sleep/{ms}` (a timer), `/static/*` (files under
/// `static_dir`).
pub fn app(static_dir: PathBuf) -> Router {
    Router::new()
        .route("/", get(|| async { "Hello, World!" }))
        .route("/items/{id}", get(item))
        .route(
            "/echo",
            post(|Json(item): Json<Item>| async move { Json(item) }),
        )
        .route("/sleep/{ms}", get(sleep))
        .nest_service("/static", ServeDir::new(static_dir))
        .layer(TraceLayer::new_for_http())
        .layer(TimeoutLayer::with_status_code(
            http::StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIMEOUT,
        ))
}

async fn item(Path(id): Path<u64>) -> Json<Item> {
    Json(Item {
        id,
        name: format!("item-{id}"),
        tags: vec!["a".into(), "b".into()],
    })
}

async fn sleep(Path(ms): Path<u64>) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// Serves `app` on `listener` until `shutdown` completes, then lets the
/// requests in flight finish (axum's graceful shutdown).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
}

/// Completes on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}
