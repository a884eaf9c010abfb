//! volt's procedural macros.
//!
//! * `#[volt::main]` / `#[volt::test]`: build a runtime around an
//!   `async fn` (see `entry.rs`).
//! * `select_internal!`, `join_internal!`, `try_join_internal!`: the engines
//!   behind volt's `select!`, `join!` and `try_join!` macros, which call
//!   them with the volt crate's path. They are not meant to be used
//!   directly.
//!
//! Users use these through the `volt` crate, never this one. The
//! `tokio_*` attributes are the same entry points for the compat crate
//! named `tokio` (`compat/tokio`).

mod entry;
mod join;
mod select;
mod tuple;

use entry::Facade;
use proc_macro::TokenStream;

/// Marks async function to be executed by the selected runtime. This macro
/// helps set up a `Runtime` without requiring the user to use
/// [Runtime](../volt/runtime/struct.Runtime.html) or
/// [Builder](../volt/runtime/struct.Builder.html) directly.
///
/// Note: This macro is designed to be simplistic and targets applications
/// that do not require a complex setup. If the provided functionality is not
/// sufficient, you may be interested in using
/// [Builder](../volt/runtime/struct.Builder.html), which provides a more
/// powerful interface.
///
/// Note: This macro can be used on any function and not just the `main`
/// function. Using it on a non-main function makes the function behave as
/// if it was synchronous by starting a new runtime each time it is called.
///
/// # Multi-threaded runtime
///
/// To use the multi-threaded runtime, the macro can be configured using
///
/// ```
/// #[volt::main(flavor = "multi_thread", worker_threads = 10)]
/// # async fn main() {}
/// ```
///
/// The `worker_threads` option configures the number of worker threads, and
/// defaults to the number of cpus on the system. This is the default flavor.
///
/// # Current thread runtime
///
/// To use the single-threaded runtime known as the `current_thread`
/// runtime, the macro can be configured using
///
/// ```
/// #[volt::main(flavor = "current_thread")]
/// # async fn main() {}
/// ```
///
/// # Local runtime
///
/// `flavor = "local"` builds a [`LocalRuntime`](../volt/runtime/struct.LocalRuntime.html)
/// (a current-thread runtime finished with `build_local`), on which the
/// body may `spawn_local` tasks that are not `Send`:
///
/// ```
/// #[volt::main(flavor = "local")]
/// async fn main() {
///     let shared = std::rc::Rc::new(5);
///     let task = volt::task::spawn_local(async move { *shared + 1 });
///     assert_eq!(task.await.unwrap(), 6);
/// }
/// ```
///
/// # Naming the runtime
///
/// `name = "..."` sets the runtime's name (`Builder::name`):
///
/// ```
/// #[volt::main(flavor = "current_thread", name = "my-service")]
/// async fn main() {
///     assert_eq!(volt::runtime::Handle::current().name(), Some("my-service"));
/// }
/// ```
///
/// # Configure unhandled panic behavior
///
/// `unhandled_panic = "shutdown_runtime"` shuts the runtime down as soon
/// as a spawned task panics, and `block_on` panics
/// ([`Builder::unhandled_panic`](../volt/runtime/struct.Builder.html#method.unhandled_panic)).
/// The default is `"ignore"`: the panic goes to the task's `JoinHandle`.
/// It requires the `current_thread` (or `local`) flavor:
///
/// ```no_run
/// #[volt::main(flavor = "current_thread", unhandled_panic = "shutdown_runtime")]
/// async fn main() {
///     let _ = volt::spawn(async {
///         panic!("This panic will shutdown the runtime.");
///     })
///     .await;
/// }
/// ```
///
/// # Function arguments
///
/// Arguments are allowed for any functions, aside from `main` which is
/// special.
///
/// # Usage
///
/// ```
/// #[volt::main]
/// async fn main() {
///     println!("Hello world");
/// }
/// ```
///
/// Equivalent code not using `#[volt::main]`
///
/// ```
/// volt::runtime::Builder::new_multi_thread()
///     .enable_all()
///     .build()
///     .unwrap()
///     .block_on(async {
///         println!("Hello world");
///     })
/// ```
///
/// # Rename package
///
/// ```
/// use volt as volt1;
///
/// #[volt1::main(crate = "volt1")]
/// async fn main() {
///     println!("Hello world");
/// }
/// ```
#[proc_macro_attribute]
pub fn main(args: TokenStream, item: TokenStream) -> TokenStream {
    entry::main(args.into(), item.into(), true, Facade::Volt).into()
}

/// `#[main]` for builds without the `rt-multi-thread` feature: defaults to
/// (and only allows) the current-thread runtime.
#[proc_macro_attribute]
pub fn main_rt(args: TokenStream, item: TokenStream) -> TokenStream {
    entry::main(args.into(), item.into(), false, Facade::Volt).into()
}

/// Marks async function to be executed by runtime, suitable to test
/// environment. This macro helps set up a `Runtime` without requiring the
/// user to use [Runtime](../volt/runtime/struct.Runtime.html) or
/// [Builder](../volt/runtime/struct.Builder.html) directly.
///
/// # Multi-threaded runtime
///
/// To use the multi-threaded runtime, the macro can be configured using
///
/// ```
/// #[volt::test(flavor = "multi_thread", worker_threads = 1)]
/// async fn my_test() {
///     assert!(true);
/// }
/// ```
///
/// The `worker_threads` option configures the number of worker threads, and
/// defaults to the number of cpus on the system.
///
/// # Current thread runtime
///
/// The default test runtime is single-threaded. Each test gets a separate
/// current-thread runtime.
///
/// ```
/// #[volt::test]
/// async fn my_test() {
///     assert!(true);
/// }
/// ```
///
/// ## Configure the runtime to start with time paused
///
/// ```
/// #[volt::test(start_paused = true)]
/// async fn my_test() {
///     assert!(true);
/// }
/// ```
///
/// Note that `start_paused` requires the `test-util` feature to be enabled.
///
/// ## Configure unhandled panic behavior
///
/// `unhandled_panic = "shutdown_runtime"` fails the test as soon as a
/// spawned task panics, even if nothing awaits its `JoinHandle`
/// (current-thread flavors only):
///
/// ```no_run
/// #[volt::test(flavor = "current_thread", unhandled_panic = "shutdown_runtime")]
/// async fn my_test() {
///     let _ = volt::spawn(async {
///         panic!("This panic will shutdown the runtime.");
///     })
///     .await;
/// }
/// # fn main() {}
/// ```
///
/// # Rename package
///
/// ```
/// use volt as volt1;
///
/// #[volt1::test(crate = "volt1")]
/// async fn my_test() {
///     println!("Hello world");
/// }
/// ```
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    entry::test(args.into(), item.into(), true, Facade::Volt).into()
}

/// `#[test]` for builds without the `rt-multi-thread` feature.
#[proc_macro_attribute]
pub fn test_rt(args: TokenStream, item: TokenStream) -> TokenStream {
    entry::test(args.into(), item.into(), false, Facade::Volt).into()
}

/// `#[tokio::main]` of the compat crate (`compat/tokio`): `#[main]` whose
/// expansion names `::tokio` and whose errors say `tokio::main`.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn tokio_main(args: TokenStream, item: TokenStream) -> TokenStream {
    entry::main(args.into(), item.into(), true, Facade::Tokio).into()
}

/// `#[tokio::main]` of the compat crate without `rt-multi-thread`.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn tokio_main_rt(args: TokenStream, item: TokenStream) -> TokenStream {
    entry::main(args.into(), item.into(), false, Facade::Tokio).into()
}

/// `#[tokio::test]` of the compat crate.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn tokio_test(args: TokenStream, item: TokenStream) -> TokenStream {
    entry::test(args.into(), item.into(), true, Facade::Tokio).into()
}

/// `#[tokio::test]` of the compat crate without `rt-multi-thread`.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn tokio_test_rt(args: TokenStream, item: TokenStream) -> TokenStream {
    entry::test(args.into(), item.into(), false, Facade::Tokio).into()
}

/// The engine of `volt::select!` (input: `{crate path} branches...`).
#[doc(hidden)]
#[proc_macro]
pub fn select_internal(input: TokenStream) -> TokenStream {
    select::select(input.into()).into()
}

/// The engine of `volt::join!` (input: `{crate path} futures...`).
#[doc(hidden)]
#[proc_macro]
pub fn join_internal(input: TokenStream) -> TokenStream {
    join::join(input.into(), false).into()
}

/// The engine of `volt::try_join!` (input: `{crate path} futures...`).
#[doc(hidden)]
#[proc_macro]
pub fn try_join_internal(input: TokenStream) -> TokenStream {
    join::join(input.into(), true).into()
}
