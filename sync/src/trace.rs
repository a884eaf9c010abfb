//! tokio-console instrumentation of the primitives (feature `tracing`):
//! the runtime's [`Resource`] and async-op spans, or, without the
//! feature, zero-sized stand-ins whose methods do nothing, so the
//! primitives carry no cost and no `cfg` at every use.

#[cfg(feature = "tracing")]
pub use volt_runtime::bridge::trace::{AsyncOp, PollScope, Resource, async_op};

#[cfg(not(feature = "tracing"))]
pub use disabled::{AsyncOp, PollScope, Resource, async_op};

#[cfg(not(feature = "tracing"))]
mod disabled {
    /// No resource span.
    #[derive(Clone, Debug)]
    pub struct Resource;

    impl Resource {
        #[inline(always)]
        pub fn new(_concrete_type: &'static str, _kind: &'static str) -> Resource {
            Resource
        }

        #[inline(always)]
        pub fn async_op(&self, _source: &'static str) -> AsyncOp {
            AsyncOp
        }
    }

    /// No async-op spans.
    #[derive(Debug)]
    pub struct AsyncOp;

    impl AsyncOp {
        #[inline(always)]
        pub fn poll<R>(
            &self,
            _op_name: &'static str,
            f: impl FnOnce() -> std::task::Poll<R>,
        ) -> std::task::Poll<R> {
            f()
        }

        #[inline(always)]
        pub fn enter_poll(&self, _op_name: &'static str) -> PollScope {
            PollScope
        }
    }

    /// No spans entered.
    #[derive(Debug)]
    pub struct PollScope;

    impl PollScope {
        #[inline(always)]
        pub fn done<R>(self, res: std::task::Poll<R>) -> std::task::Poll<R> {
            res
        }
    }

    /// The future itself.
    #[inline(always)]
    pub fn async_op<F>(_resource: &Resource, _source: &'static str, _op: &'static str, f: F) -> F {
        f
    }
}

/// A resource that const constructors can build: not instrumented (as
/// tokio's `const_new`).
#[cfg(feature = "tracing")]
pub const fn none() -> Resource {
    Resource::none()
}

#[cfg(not(feature = "tracing"))]
pub const fn none() -> Resource {
    Resource
}

/// A state update of a resource (target `runtime::resource::state_update`);
/// used by volt-channel too.
#[cfg(feature = "tracing")]
#[macro_export]
#[doc(hidden)]
macro_rules! __trace_state {
    ($resource:expr, $($fields:tt)*) => {
        $resource.in_scope(|| {
            $crate::__bridge_tracing::trace!(target: "runtime::resource::state_update", $($fields)*)
        })
    };
}

/// Without `tracing`: the values are evaluated, nothing is emitted.
#[cfg(not(feature = "tracing"))]
#[macro_export]
#[doc(hidden)]
macro_rules! __trace_state {
    ($resource:expr, $($($key:ident).+ = $value:expr),* $(,)?) => {{
        let _ = &$resource;
        $(let _ = &$value;)*
    }};
}

pub use crate::__trace_state as state;
