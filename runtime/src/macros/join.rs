/// Waits on multiple concurrent branches, returning when **all** branches
/// complete.
///
/// The `join!` macro must be used inside of async functions, closures, and
/// blocks.
///
/// The `join!` macro takes a list of async expressions and evaluates them
/// concurrently on the same task. Each async expression evaluates to a
/// future and the futures from each expression are multiplexed on the
/// current task.
///
/// When working with async expressions returning `Result`, `join!` will
/// wait for **all** branches complete regardless if any complete with
/// `Err`. Use [`try_join!`] to return early when `Err` is encountered.
///
/// [`try_join!`]: crate::try_join
///
/// # Notes
///
/// The supplied futures are stored inline and do not require allocating a
/// `Vec`.
///
/// ## Runtime characteristics
///
/// By running all async expressions on the current task, the expressions
/// are able to run **concurrently** but not in **parallel**. This means all
/// expressions are run on the same thread and if one branch blocks the
/// thread, all other expressions will be unable to continue. If parallelism
/// is required, spawn each async expression using `volt::spawn` and pass
/// the join handle to `join!`.
///
/// ## Fairness
///
/// By default, `join!`'s generated future rotates which contained future is
/// polled first whenever it is woken.
///
/// This behavior can be overridden by adding `biased;` to the beginning of
/// the macro usage. When `biased;` is given, the futures are polled in the
/// order they appear.
///
/// # Examples
///
/// Basic join with two branches
///
/// ```
/// async fn do_stuff_async() -> u32 {
///     1
/// }
///
/// async fn more_async_work() -> &'static str {
///     "two"
/// }
///
/// #[volt_runtime::main(crate = "volt_runtime")]
/// async fn main() {
///     let (first, second) = volt_runtime::join!(
///         do_stuff_async(),
///         more_async_work());
///     assert_eq!((first, second), (1, "two"));
/// }
/// ```
///
/// Using the `biased;` mode to control polling order.
///
/// ```
/// #[volt_runtime::main(crate = "volt_runtime")]
/// async fn main() {
///     let (a, b) = volt_runtime::join!(biased; async { 1 }, async { 2 });
///     assert_eq!(a + b, 3);
/// }
/// ```
#[macro_export]
macro_rules! join {
    ($($input:tt)*) => {
        $crate::__macro_support::join_internal!({$crate} $($input)*)
    };
}

/// Waits on multiple concurrent branches, returning when **all** branches
/// complete with `Ok(_)` or on the first `Err(_)`.
///
/// The `try_join!` macro must be used inside of async functions, closures,
/// and blocks.
///
/// Similar to [`join!`], the `try_join!` macro takes a list of async
/// expressions and evaluates them concurrently on the same task. Each async
/// expression evaluates to a future and the futures from each expression
/// are multiplexed on the current task. The `try_join!` macro returns when
/// **all** branches return with `Ok` or when the **first** branch returns
/// with `Err`.
///
/// [`join!`]: crate::join
///
/// # Notes
///
/// The supplied futures are stored inline and do not require allocating a
/// `Vec`.
///
/// ## Runtime characteristics
///
/// By running all async expressions on the current task, the expressions
/// are able to run **concurrently** but not in **parallel**. This means all
/// expressions are run on the same thread and if one branch blocks the
/// thread, all other expressions will be unable to continue. If parallelism
/// is required, spawn each async expression using `volt::spawn` and pass
/// the join handle to `try_join!`.
///
/// ## Fairness
///
/// By default, `try_join!`'s generated future rotates which contained
/// future is polled first whenever it is woken. `biased;` polls them in the
/// order they appear.
///
/// # Examples
///
/// Basic `try_join` with two branches.
///
/// ```
/// async fn do_stuff_async() -> Result<u32, &'static str> {
///     Ok(1)
/// }
///
/// async fn more_async_work() -> Result<u32, &'static str> {
///     Err("nope")
/// }
///
/// #[volt_runtime::main(crate = "volt_runtime")]
/// async fn main() {
///     let res = volt_runtime::try_join!(
///         do_stuff_async(),
///         more_async_work());
///     assert_eq!(res, Err("nope"));
///
///     let ok = volt_runtime::try_join!(do_stuff_async(), do_stuff_async());
///     assert_eq!(ok, Ok((1, 1)));
/// }
/// ```
#[macro_export]
macro_rules! try_join {
    ($($input:tt)*) => {
        $crate::__macro_support::try_join_internal!({$crate} $($input)*)
    };
}
