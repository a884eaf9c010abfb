//! The futures of `join!`, `try_join!` and `select!` live in one tuple,
//! pinned once; each poll projects it to one `Pin<&mut _>` per future with
//! volt's `__macro_support::PinTuple` (see `runtime/src/macros/pin_tuple.rs`
//! for why that is sound).
//!
//! `PinTuple` is implemented for tuples of up to [`ARITY`] fields, so more
//! futures than that are nested: groups of `ARITY` (or of `ARITY^2`, ...)
//! in a tuple of groups. [`nest`] builds the tuple and [`project`] the
//! matching `let` statements, from the same grouping.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote_spanned};
use syn::Ident;

/// The largest tuple `PinTuple` is implemented for.
const ARITY: usize = 16;

/// How many leaves each part holds when `n` leaves are split into at most
/// `ARITY` parts (a power of `ARITY`).
fn part_size(n: usize) -> usize {
    let mut size = 1;
    while size * ARITY < n {
        size *= ARITY;
    }
    size
}

/// The tuple of `leaves` to pin as `pinned`, and the statements that bind
/// each of `names` to its leaf: what both macros generate.
pub(crate) fn pinned(
    leaves: &[TokenStream],
    pinned: &Ident,
    names: &[Ident],
    support: &TokenStream,
    span: Span,
) -> (TokenStream, TokenStream) {
    let tuple = nest(leaves, span);
    let projection = project(
        quote_spanned! {span=> #pinned.as_mut() },
        names,
        support,
        span,
    );
    (tuple, projection)
}

/// A (nested) tuple expression of `leaves`.
fn nest(leaves: &[TokenStream], span: Span) -> TokenStream {
    if leaves.len() <= ARITY {
        return quote_spanned! {span=> ( #( #leaves, )* ) };
    }
    let parts = leaves
        .chunks(part_size(leaves.len()))
        .map(|part| nest(part, span));
    quote_spanned! {span=> ( #( #parts, )* ) }
}

/// Statements binding each of `names` to a `Pin<&mut _>` of its leaf of
/// the tuple [`nest`] built, given `pinned`, an expression of type
/// `Pin<&mut Tuple>`.
fn project(pinned: TokenStream, names: &[Ident], support: &TokenStream, span: Span) -> TokenStream {
    if names.len() <= ARITY {
        return quote_spanned! {span=>
            #[allow(unused_mut)]
            let ( #( mut #names, )* ) = #support::PinTuple::project(#pinned);
        };
    }
    let size = part_size(names.len());
    let parts: Vec<&[Ident]> = names.chunks(size).collect();
    // Named after the part's first leaf and its size, so that the names of
    // different levels differ.
    let part_names: Vec<Ident> = parts
        .iter()
        .map(|part| format_ident!("{}_part{}", part[0], size, span = span))
        .collect();
    let inner = parts
        .iter()
        .zip(&part_names)
        .map(|(part, name)| project(quote_spanned! {span=> #name }, part, support, span));
    quote_spanned! {span=>
        let ( #( #part_names, )* ) = #support::PinTuple::project(#pinned);
        #( #inner )*
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_powers_of_the_arity() {
        assert_eq!(part_size(1), 1);
        assert_eq!(part_size(16), 1);
        assert_eq!(part_size(17), 16);
        assert_eq!(part_size(256), 16);
        assert_eq!(part_size(257), 256);
    }

    #[test]
    fn nesting_keeps_the_order() {
        let span = Span::call_site();
        let leaves: Vec<TokenStream> = (0..17).map(|i| quote::quote!(#i)).collect();
        let s = nest(&leaves, span).to_string().replace(' ', "");
        assert_eq!(
            s,
            "((0i32,1i32,2i32,3i32,4i32,5i32,6i32,7i32,8i32,9i32,10i32,11i32,12i32,13i32,14i32,15i32,),(16i32,),)"
        );
    }
}
