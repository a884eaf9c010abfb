/// Waits on multiple concurrent branches, returning when the **first**
/// branch completes, cancelling the remaining branches.
///
/// The `select!` macro must be used inside of async functions, closures, and
/// blocks.
///
/// The `select!` macro accepts one or more branches with the following
/// pattern:
///
/// ```text
/// <pattern> = <async expression> (, if <precondition>)? => <handler>,
/// ```
///
/// Additionally, the `select!` macro may include a single, optional `else`
/// branch, which evaluates if none of the other branches match their
/// patterns:
///
/// ```text
/// else => <expression>
/// ```
///
/// The macro aggregates all `<async expression>` expressions and runs them
/// concurrently on the **current** task. Once the **first** expression
/// completes with a value that matches its `<pattern>`, the `select!` macro
/// returns the result of evaluating the completed branch's `<handler>`
/// expression.
///
/// Additionally, each branch may include an optional `if` precondition. If
/// the precondition returns `false`, then the branch is disabled. The
/// provided `<async expression>` is still evaluated but the resulting
/// future is never polled. This capability is useful when using `select!`
/// within a loop.
///
/// The complete lifecycle of a `select!` expression is as follows:
///
/// 1. Evaluate all provided `<precondition>` expressions. If the
///    precondition returns `false`, disable the branch for the remainder of
///    the current call to `select!`. Re-entering `select!` due to a loop
///    clears the "disabled" state.
/// 2. Aggregate the `<async expression>`s from each branch, including the
///    disabled ones. If the branch is disabled, `<async expression>` is
///    still evaluated, but the resulting future is not polled.
/// 3. If **all** branches are disabled: go to step 6.
/// 4. Concurrently await on the results for all remaining
///    `<async expression>`s.
/// 5. Once an `<async expression>` returns a value, attempt to apply the
///    value to the provided `<pattern>`. If the pattern matches, evaluate the
///    `<handler>` and return. If the pattern **does not** match, disable the
///    current branch for the remainder of the current call to `select!`.
///    Continue from step 3.
/// 6. Evaluate the `else` expression. If no else expression is provided,
///    panic.
///
/// # Runtime characteristics
///
/// By running all async expressions on the current task, the expressions
/// are able to run **concurrently** but not in **parallel**. This means all
/// expressions are run on the same thread and if one branch blocks the
/// thread, all other expressions will be unable to continue. If parallelism
/// is required, spawn each async expression using `volt::spawn` and pass
/// the join handle to `select!`.
///
/// # Fairness
///
/// By default, `select!` randomly picks a branch to check first. This
/// provides some level of fairness when calling `select!` in a loop with
/// branches that are always ready.
///
/// This behavior can be overridden by adding `biased;` to the beginning of
/// the macro usage. When `biased;` is given, branches are polled in the
/// order they appear.
///
/// # Panics
///
/// The `select!` macro panics if all branches are disabled **and** there is
/// no provided `else` branch. A branch is disabled when the provided `if`
/// precondition returns `false` **or** when the pattern does not match the
/// result of `<async expression>`.
///
/// # Cancellation safety
///
/// When using `select!` in a loop to receive messages from multiple
/// sources, you should make sure that the receive call is cancellation
/// safe to avoid losing messages. Each volt method documents whether it is
/// cancel safe.
///
/// # Examples
///
/// Basic select with two branches.
///
/// ```
/// async fn do_stuff_async() -> u32 {
///     1
/// }
///
/// async fn more_async_work() -> u32 {
///     2
/// }
///
/// #[volt_runtime::main(crate = "volt_runtime")]
/// async fn main() {
///     volt_runtime::select! {
///         v = do_stuff_async() => {
///             println!("do_stuff_async() completed first with {}", v)
///         }
///         v = more_async_work() => {
///             println!("more_async_work() completed first with {}", v)
///         }
///     };
/// }
/// ```
///
/// Using a pattern that may not match, and `biased;` polling:
///
/// ```
/// #[volt_runtime::main(crate = "volt_runtime")]
/// async fn main() {
///     let out = volt_runtime::select! {
///         biased;
///         Some(v) = async { None::<u32> } => v,
///         Some(v) = async { Some(7u32) } => v * 2,
///         else => 0,
///     };
///     assert_eq!(out, 14);
/// }
/// ```
///
/// Using a precondition to disable a branch:
///
/// ```
/// #[volt_runtime::main(crate = "volt_runtime")]
/// async fn main() {
///     let done = true;
///     let out = volt_runtime::select! {
///         v = async { 1 }, if !done => v,
///         v = async { 2 } => v,
///     };
///     assert_eq!(out, 2);
/// }
/// ```
#[macro_export]
macro_rules! select {
    ($($input:tt)*) => {
        $crate::__macro_support::select_internal!({$crate} $($input)*)
    };
}
