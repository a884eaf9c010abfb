/// Pins a value on the stack.
///
/// Calls to `async fn` return anonymous [`Future`] values that are `!Unpin`.
/// These values must be pinned before they can be polled. Calling `.await`
/// will handle this, but consumes the future. If it is required to call
/// `.await` on a `&mut _` reference, the caller is responsible for pinning
/// the future.
///
/// Pinning may be done by allocating with [`Box::pin`] or by using the stack
/// with the `pin!` macro.
///
/// The following will **fail to compile**:
///
/// ```compile_fail
/// async fn my_async_fn() {
///     // async logic here
/// }
///
/// #[volt_runtime::main(crate = "volt_runtime")]
/// async fn main() {
///     let mut future = my_async_fn();
///     (&mut future).await;
/// }
/// ```
///
/// To make this work requires pinning:
///
/// ```
/// use volt_runtime::pin;
///
/// async fn my_async_fn() {
///     // async logic here
/// }
///
/// #[volt_runtime::main(crate = "volt_runtime")]
/// async fn main() {
///     let future = my_async_fn();
///     pin!(future);
///
///     (&mut future).await;
/// }
/// ```
///
/// Pinning is useful when using `select!` and stream operators that require
/// `T: Stream + Unpin`.
///
/// [`Future`]: trait@std::future::Future
/// [`Box::pin`]: std::boxed::Box::pin
///
/// # Usage
///
/// The `pin!` macro takes **identifiers** as arguments. It does **not** work
/// with expressions.
///
/// Multiple values may be passed to `pin!`.
///
/// ```
/// use volt_runtime::pin;
///
/// async fn my_async_fn() {
///     // async logic here
/// }
///
/// #[volt_runtime::main(crate = "volt_runtime")]
/// async fn main() {
///     let future1 = my_async_fn();
///     let future2 = my_async_fn();
///
///     pin!(future1, future2);
///
///     volt_runtime::select! {
///         _ = &mut future1 => {}
///         _ = &mut future2 => {}
///     }
/// }
/// ```
///
/// Because assigning to a variable followed by pinning is common, there is
/// also a variant of the macro that supports doing both in one go.
///
/// ```
/// use volt_runtime::{pin, select};
///
/// async fn my_async_fn() {
///     // async logic here
/// }
///
/// #[volt_runtime::main(crate = "volt_runtime")]
/// async fn main() {
///     pin! {
///         let future1 = my_async_fn();
///         let future2 = my_async_fn();
///     }
///
///     select! {
///         _ = &mut future1 => {}
///         _ = &mut future2 => {}
///     }
/// }
/// ```
#[macro_export]
macro_rules! pin {
    ($($x:ident),*) => { $(
        // Moves the value into a pinned temporary and shadows the original
        // binding, so the unpinned value can never be reached again.
        #[allow(unused_mut)]
        let mut $x = ::core::pin::pin!($x);
    )* };
    ($(
            let $x:ident = $init:expr;
    )*) => {
        $(
            let $x = $init;
            $crate::pin!($x);
        )*
    };
}
