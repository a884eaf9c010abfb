//! `select!`, `join!`, `try_join!` and `pin!`.
//!
//! The first three are thin `macro_rules!` front ends that hand the volt
//! crate's path (`$crate`) and their input to the proc-macro engines in
//! `volt-macros`; `support` holds what the generated code refers to,
//! `pin_tuple` the pin projection of the tuple their futures live in.

#[macro_use]
mod pin;
#[cfg(feature = "macros")]
#[macro_use]
mod select;
#[cfg(feature = "macros")]
#[macro_use]
mod join;

#[cfg(feature = "macros")]
mod pin_tuple;
#[cfg(feature = "macros")]
#[doc(hidden)]
pub mod support;
