//! A websocket echo server with tokio-tungstenite.

use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpListener;

/// Accepts websocket connections and echoes every text and binary message.
pub async fn echo_server(listener: TcpListener) {
    while let Ok((stream, _)) = listener.accept().await {
        tokio::spawn(async move {
            let Ok(mut ws) = tokio_tungstenite::accept_async(stream).await else {
                return;
            };
            while let Some(Ok(msg)) = ws.next().await {
                if (msg.is_text() || msg.is_binary()) && ws.send(msg).await.is_err() {
                    break;
                }
            }
        });
    }
}
