//! `tracing` instrumentation (feature `tracing`), in the shape tokio emits
//! and tokio-console reads: the same targets, span names and fields, so
//! `console-subscriber` (and any `tracing` layer written for tokio) sees a
//! volt program as it sees a tokio one. Without the feature every function
//! here is an inline no-op and nothing of it is compiled in.
//!
//! * Tasks: a span per task, target `tokio::task`, name `runtime.spawn`,
//!   fields `kind` (`task`, `local`, `blocking`), `task.name`, `task.id`,
//!   `size.bytes` (and `original_size.bytes` when the future was boxed),
//!   `loc.file`/`loc.line`/`loc.col`. The task is polled inside it, which
//!   is what the console's busy time is measured from.
//! * Wakers: an event per `wake`, `wake_by_ref`, `clone` and `drop` of a
//!   task's waker, target `tokio::task::waker`, fields `op` and `task.id`
//!   (the task span's id, kept in the task header). Scheduled time runs from
//!   a wake to the next poll.
//! * Resources (`Sleep`, the semaphores and locks, `Barrier`, `oneshot`,
//!   `mpsc`): a `runtime.resource` span made with the resource, state
//!   updates as events (target `runtime::resource::state_update`), and an
//!   `runtime.resource.async_op` span for each operation that may wait,
//!   whose polls emit `runtime::resource::poll_op` events ([`Resource`],
//!   [`AsyncOp`]).
//! * Runtimes: `DEBUG` events (target `tokio::runtime`) when one starts,
//!   begins shutting down and has stopped.

use crate::task::Id;

#[cfg(feature = "tracing")]
pub use enabled::*;

#[cfg(not(feature = "tracing"))]
pub use disabled::*;

#[cfg(feature = "tracing")]
mod enabled {
    use super::Id;
    use std::cell::Cell;
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use tracing::Instrument;

    std::thread_local! {
        /// The name given by `task::Builder` to the task being spawned.
        static NAME: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
        /// The span of the task being spawned, for its header.
        static SPAWNING: Cell<Option<u64>> = const { Cell::new(None) };
    }

    /// Names the task the current thread spawns next, until dropped.
    pub struct TaskName(Option<String>);

    impl TaskName {
        pub fn set(name: Option<&str>) -> TaskName {
            TaskName(NAME.replace(name.map(str::to_owned)))
        }
    }

    impl Drop for TaskName {
        fn drop(&mut self) {
            NAME.set(self.0.take());
        }
    }

    /// Wraps a task's future in its span (module docs).
    #[track_caller]
    pub fn task<F: Future>(
        future: F,
        kind: &'static str,
        id: Id,
        original_size: Option<usize>,
    ) -> tracing::instrument::Instrumented<F> {
        let location = std::panic::Location::caller();
        let size = std::mem::size_of::<F>();
        let span = NAME.with_borrow(|name| {
            tracing::trace_span!(
                target: "tokio::task",
                "runtime.spawn",
                kind = %kind,
                task.name = %name.as_deref().unwrap_or(""),
                task.id = id.as_u64(),
                original_size.bytes = original_size,
                size.bytes = size,
                loc.file = location.file(),
                loc.line = location.line(),
                loc.col = location.column(),
            )
        });
        SPAWNING.set(span.id().map(|id| id.into_u64()));
        future.instrument(span)
    }

    /// The span id of the task being created on this thread (taken once).
    pub fn take_spawning() -> Option<u64> {
        SPAWNING.take()
    }

    /// A waker of the task whose span is `span` did `op` (`waker.wake`,
    /// `waker.wake_by_ref`, `waker.clone`, `waker.drop`).
    #[inline]
    pub fn waker_op(span: Option<u64>, op: &'static str) {
        if let Some(id) = span {
            tracing::trace!(target: "tokio::task::waker", op = op, task.id = id);
        }
    }

    /// A runtime lifecycle event.
    pub fn runtime_event(handle: &crate::runtime::Handle, what: &'static str) {
        tracing::debug!(
            target: "tokio::runtime",
            id = %handle.id(),
            flavor = ?handle.runtime_flavor(),
            workers = handle.metrics().num_workers(),
            "{what}"
        );
    }

    /// A resource's span (module docs), kept in the resource.
    #[derive(Clone, Debug)]
    pub struct Resource {
        span: tracing::Span,
    }

    impl Resource {
        /// A resource that is not instrumented (`const` constructors).
        pub const fn none() -> Resource {
            Resource {
                span: tracing::Span::none(),
            }
        }

        /// A new resource made at the caller's location. `kind` is the
        /// console's resource kind (`timer`, `Sync`, ...).
        #[track_caller]
        pub fn new(concrete_type: &'static str, kind: &'static str) -> Resource {
            Resource::with(concrete_type, kind, false)
        }

        /// A resource inside another (entered at the time), hidden in the
        /// console's default view: a lock's semaphore, say.
        #[track_caller]
        pub fn internal(concrete_type: &'static str, kind: &'static str) -> Resource {
            Resource::with(concrete_type, kind, true)
        }

        #[track_caller]
        fn with(concrete_type: &'static str, kind: &'static str, is_internal: bool) -> Resource {
            let location = std::panic::Location::caller();
            let span = tracing::trace_span!(
                "runtime.resource",
                concrete_type = concrete_type,
                kind = kind,
                is_internal = is_internal,
                inherits_child_attrs = true,
                loc.file = location.file(),
                loc.line = location.line(),
                loc.col = location.column(),
            );
            Resource { span }
        }

        /// Runs `f` inside the resource's span: a state update event
        /// (`state!`) or a child resource made there.
        pub fn in_scope<R>(&self, f: impl FnOnce() -> R) -> R {
            self.span.in_scope(f)
        }

        /// An operation on the resource that may wait; `source` names it
        /// (`Semaphore::acquire`).
        pub fn async_op(&self, source: &'static str) -> AsyncOp {
            let async_op = self.span.in_scope(|| {
                tracing::trace_span!(
                    "runtime.resource.async_op",
                    source = source,
                    inherits_child_attrs = true
                )
            });
            let poll = async_op.in_scope(|| tracing::trace_span!("runtime.resource.async_op.poll"));
            AsyncOp {
                resource: self.span.clone(),
                poll,
                _async_op: async_op,
            }
        }
    }

    /// An operation's spans (module docs); dropped with the operation.
    #[derive(Debug)]
    pub struct AsyncOp {
        resource: tracing::Span,
        poll: tracing::Span,
        _async_op: tracing::Span,
    }

    impl AsyncOp {
        /// Polls inside the operation's spans and reports the result as
        /// the poll op `op_name`.
        pub fn poll<R>(&self, op_name: &'static str, f: impl FnOnce() -> Poll<R>) -> Poll<R> {
            let _resource = self.resource.enter();
            let _poll = self.poll.enter();
            let res = f();
            tracing::trace!(
                target: "runtime::resource::poll_op",
                op_name = op_name,
                is_ready = res.is_ready(),
            );
            res
        }

        /// [`poll`](Self::poll) for an owner that must be borrowed mutably
        /// while it polls (`Sleep`): the spans are entered through clones,
        /// so the guard borrows nothing; [`PollScope::done`] reports the
        /// result. (tokio's `Sleep` enters clones the same way.)
        pub fn enter_poll(&self, op_name: &'static str) -> PollScope {
            let resource = self.resource.clone().entered();
            PollScope {
                _poll: self.poll.clone().entered(),
                _resource: resource,
                op_name,
            }
        }
    }

    /// One poll inside an [`AsyncOp`]'s spans ([`AsyncOp::enter_poll`]).
    /// The fields drop in order: the poll span is left before the
    /// resource's.
    #[derive(Debug)]
    pub struct PollScope {
        _poll: tracing::span::EnteredSpan,
        _resource: tracing::span::EnteredSpan,
        op_name: &'static str,
    }

    impl PollScope {
        /// Reports `res` as the poll op's result (inside the spans, which
        /// are left when `self` drops on return).
        pub fn done<R>(self, res: Poll<R>) -> Poll<R> {
            tracing::trace!(
                target: "runtime::resource::poll_op",
                op_name = self.op_name,
                is_ready = res.is_ready(),
            );
            res
        }
    }

    pin_project_lite::pin_project! {
        /// A future polled as an [`AsyncOp`].
        #[derive(Debug)]
        pub struct Traced<F> {
            #[pin]
            future: F,
            op: AsyncOp,
            op_name: &'static str,
        }
    }

    impl<F: Future> Future for Traced<F> {
        type Output = F::Output;

        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
            let this = self.project();
            let future = this.future;
            this.op.poll(this.op_name, || future.poll(cx))
        }
    }

    /// `future`, polled as the operation `source` on `resource`.
    pub fn async_op<F: Future>(
        resource: &Resource,
        source: &'static str,
        op_name: &'static str,
        future: F,
    ) -> Traced<F> {
        Traced {
            future,
            op: resource.async_op(source),
            op_name,
        }
    }
}

#[cfg(not(feature = "tracing"))]
mod disabled {
    use super::Id;

    /// Without `tracing`, names go nowhere.
    pub struct TaskName;

    impl TaskName {
        #[inline]
        pub fn set(_name: Option<&str>) -> TaskName {
            TaskName
        }
    }

    #[inline]
    pub fn task<F>(future: F, _kind: &'static str, _id: Id, _original_size: Option<usize>) -> F {
        future
    }

    #[inline]
    pub fn runtime_event(_handle: &crate::runtime::Handle, _what: &'static str) {}
}

/// A state update of a resource: `state!(resource, permits = 3,
/// permits.op = "override")`, emitted inside its span (target
/// `runtime::resource::state_update`). Nothing without `tracing`.
#[macro_export]
#[doc(hidden)]
macro_rules! __trace_state {
    ($resource:expr, $($fields:tt)*) => {
        #[cfg(feature = "tracing")]
        $resource.in_scope(|| {
            $crate::__tracing::trace!(target: "runtime::resource::state_update", $($fields)*)
        });
    };
}
