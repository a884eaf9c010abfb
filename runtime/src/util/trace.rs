//! `tracing` integration (feature `tracing`): a span per task with its id
//! and spawn location. Without the feature, tasks are not wrapped.

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
