//! `tracing` integration (feature `tracing`): a span per task with its id
//! and spawn location, and `DEBUG` events (target `volt::runtime`) when a
//! runtime starts, begins shutting down and has stopped. Without the
//! feature, tasks are not wrapped and no events are emitted.

use crate::task::Id;

#[cfg(feature = "tracing")]
#[track_caller]
pub(crate) fn task<F: std::future::Future>(
    task: F,
    id: Id,
) -> tracing::instrument::Instrumented<F> {
    use tracing::Instrument;
    let location = std::panic::Location::caller();
    let span = tracing::trace_span!(
        target: "volt::task",
        "runtime.spawn",
        kind = "task",
        task.id = id.as_u64(),
        loc.file = location.file(),
        loc.line = location.line(),
        loc.col = location.column(),
    );
    task.instrument(span)
}

#[cfg(not(feature = "tracing"))]
#[inline]
pub(crate) fn task<F>(task: F, _id: Id) -> F {
    task
}

/// A runtime lifecycle event.
#[cfg(feature = "tracing")]
pub(crate) fn runtime_event(handle: &crate::runtime::Handle, what: &'static str) {
    tracing::debug!(
        target: "volt::runtime",
        id = %handle.id(),
        flavor = ?handle.runtime_flavor(),
        workers = handle.metrics().num_workers(),
        "{what}"
    );
}

#[cfg(not(feature = "tracing"))]
#[inline]
pub(crate) fn runtime_event(_handle: &crate::runtime::Handle, _what: &'static str) {}
