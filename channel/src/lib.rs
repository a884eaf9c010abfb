//! volt's channels (`volt::channel`, and `volt::sync::{mpsc, oneshot,
//! watch, broadcast}`).
//!
//! This crate is a stub until the channels land: it fixes the dependency
//! direction (runtime ← sync ← channel ← volt).

#[doc(hidden)]
pub use volt_sync::__bridge;
