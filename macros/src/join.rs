//! The engines of `volt::join!` and `volt::try_join!`.
//!
//! Both wrap each future in a `MaybeDone`, keep them in one tuple pinned on
//! the stack (`tuple.rs`) and poll them in one `poll_fn`. Unless `biased;`
//! is given, each poll starts one future further than the previous poll (a
//! rotation), so that no future gets to starve the others of the task's
//! coop budget. `try_join!` returns the
//! first `Err` it sees (dropping the other futures).

use crate::select::{parse_biased, parse_crate};
use crate::tuple;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, Token};

struct Join {
    krate: TokenStream,
    biased: bool,
    futures: Vec<Expr>,
}

impl Parse for Join {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let krate = parse_crate(input)?;
        let biased = parse_biased(input)?;
        let futures = Punctuated::<Expr, Token![,]>::parse_terminated(input)?
            .into_iter()
            .collect();
        Ok(Join {
            krate,
            biased,
            futures,
        })
    }
}

pub(crate) fn join(input: TokenStream, is_try: bool) -> TokenStream {
    let Join {
        krate,
        biased,
        futures,
    } = match syn::parse2(input) {
        Ok(j) => j,
        Err(e) => return e.into_compile_error(),
    };
    let span = Span::mixed_site();
    let support = quote_spanned! {span=> #krate::__macro_support };

    if futures.is_empty() {
        return if is_try {
            quote_spanned! {span=> async { ::core::result::Result::Ok(()) }.await }
        } else {
            quote_spanned! {span=> async {}.await }
        };
    }

    let n = futures.len();
    let count = n as u32;
    let names: Vec<_> = (0..n)
        .map(|i| format_ident!("__volt_fut_{}", i, span = span))
        .collect();
    let skip = format_ident!("__volt_skip", span = span);
    let to_run = format_ident!("__volt_to_run", span = span);
    let is_pending = format_ident!("__volt_is_pending", span = span);
    let rotator = format_ident!("__volt_rotator", span = span);
    let cx = format_ident!("__volt_cx", span = span);
    let all = format_ident!("__volt_futures", span = span);

    let leaves: Vec<TokenStream> = futures
        .iter()
        .map(|fut| quote_spanned! {span=> #support::maybe_done(#fut) })
        .collect();
    let (tuple, projection) = tuple::pinned(&leaves, &all, &names, &support, span);

    let polls = names.iter().map(|name| {
        let on_ready = if is_try {
            quote_spanned! {span=>
                else if #name.as_mut().output_mut().expect("expected completed future").is_err() {
                    return #support::Poll::Ready(::core::result::Result::Err(
                        #name.as_mut().take_output().expect("expected completed future").err().unwrap()
                    ));
                }
            }
        } else {
            quote_spanned! {span=> }
        };
        quote_spanned! {span=>
            if #skip == 0 {
                if #to_run == 0 {
                    break;
                }
                #to_run -= 1;
                if #support::Future::poll(#name.as_mut(), #cx).is_pending() {
                    #is_pending = true;
                } #on_ready
            } else {
                #skip -= 1;
            }
        }
    });

    let outputs = names.iter().map(|name| {
        if is_try {
            quote_spanned! {span=>
                #name.as_mut().take_output().expect("expected completed future").ok().expect("expected Ok(_)")
            }
        } else {
            quote_spanned! {span=>
                #name.as_mut().take_output().expect("expected completed future")
            }
        }
    });

    let ready = if is_try {
        quote_spanned! {span=> #support::Poll::Ready(::core::result::Result::Ok(( #( #outputs, )* ))) }
    } else {
        quote_spanned! {span=> #support::Poll::Ready(( #( #outputs, )* )) }
    };

    let next_skip = if biased {
        quote_spanned! {span=> 0u32 }
    } else {
        quote_spanned! {span=> {
            let s = #rotator;
            #rotator += 1;
            if #rotator == #count {
                #rotator = 0;
            }
            s
        }}
    };

    quote_spanned! {span=> {
        let mut #all = ::core::pin::pin!(#tuple);
        #[allow(unused_mut, unused_variables)]
        let mut #rotator: u32 = 0;
        #support::poll_fn(move |#cx: &mut #support::Context<'_>| {
            #projection
            let mut #is_pending = false;
            let mut #to_run: u32 = #count;
            #[allow(unused_mut)]
            let mut #skip: u32 = #next_skip;
            loop {
                #( #polls )*
            }
            if #is_pending {
                #support::Poll::Pending
            } else {
                #ready
            }
        }).await
    }}
}
