//! sqlx with SQLite on `tokio` (its `runtime-tokio` feature).
