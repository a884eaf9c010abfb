//! The engine of `volt::select!`.
//!
//! `select!` is a `macro_rules!` macro in volt that forwards here with the
//! path of the volt crate in braces: `select_internal!({$crate} ...)`.
//!
//! # Semantics (tokio's)
//!
//! 1. Every `if` precondition is evaluated; a false one disables its branch.
//! 2. Every future expression is evaluated, disabled branches included.
//! 3. The futures are polled, starting at a random branch (or at the first
//!    with `biased;`). The first to complete whose output matches its
//!    pattern wins; a completed future whose output does not match disables
//!    its branch and the rest go on. When every branch is disabled, the
//!    `else` branch runs (or `select!` panics without one).
//! 4. The losing futures are dropped, then the winner's handler runs, so a
//!    handler may borrow what the futures borrowed, and `return`, `break`
//!    and `?` in it act on the surrounding code.
//!
//! The generated code is safe Rust: the futures live in one tuple pinned
//! on the stack with `core::pin::pin!`, and each poll reaches them through
//! volt's safe tuple projection (`tuple.rs`). Internal names use
//! `Span::mixed_site()`, so they never clash with the user's.

use crate::tuple;
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::visit_mut::VisitMut;
use syn::{Expr, Pat, Token, braced};

/// At most this many branches (one bit each in the disabled mask).
const MAX_BRANCHES: usize = 64;

struct Branch {
    pat: Pat,
    fut: Expr,
    cond: Option<Expr>,
    handler: Expr,
}

struct Select {
    krate: TokenStream,
    biased: bool,
    branches: Vec<Branch>,
    else_branch: Option<Expr>,
}

/// Parses `{crate}` at the start of an internal macro's input.
pub(crate) fn parse_crate(input: ParseStream<'_>) -> syn::Result<TokenStream> {
    let content;
    braced!(content in input);
    let mut tokens = TokenStream::new();
    while !content.is_empty() {
        tokens.extend(std::iter::once(content.parse::<TokenTree>()?));
    }
    Ok(tokens)
}

/// Parses `biased;` if present.
pub(crate) fn parse_biased(input: ParseStream<'_>) -> syn::Result<bool> {
    if input.peek(syn::Ident) && input.peek2(Token![;]) {
        let fork = input.fork();
        let ident: syn::Ident = fork.parse()?;
        if ident == "biased" {
            input.parse::<syn::Ident>()?;
            input.parse::<Token![;]>()?;
            return Ok(true);
        }
    }
    Ok(false)
}

/// Parses a handler and the comma after it (optional after a block or at
/// the end).
fn parse_handler(input: ParseStream<'_>) -> syn::Result<Expr> {
    let handler: Expr = if input.peek(syn::token::Brace) {
        Expr::Block(input.parse()?)
    } else {
        input.parse()?
    };
    let needs_comma = !matches!(
        handler,
        Expr::Block(_)
            | Expr::If(_)
            | Expr::Match(_)
            | Expr::Loop(_)
            | Expr::While(_)
            | Expr::ForLoop(_)
            | Expr::Unsafe(_)
    );
    if input.is_empty() {
        return Ok(handler);
    }
    if needs_comma || input.peek(Token![,]) {
        input.parse::<Token![,]>()?;
    }
    Ok(handler)
}

impl Parse for Select {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let krate = parse_crate(input)?;
        let biased = parse_biased(input)?;
        let mut branches = Vec::new();
        let mut else_branch = None;

        while !input.is_empty() {
            if input.peek(Token![else]) {
                input.parse::<Token![else]>()?;
                input.parse::<Token![=>]>()?;
                let expr: Expr = input.parse()?;
                if input.peek(Token![,]) {
                    input.parse::<Token![,]>()?;
                }
                if !input.is_empty() {
                    return Err(
                        input.error("the `else` branch must be the last branch of `select!`")
                    );
                }
                else_branch = Some(expr);
                break;
            }
            let pat = Pat::parse_multi_with_leading_vert(input)?;
            input.parse::<Token![=]>()?;
            let fut: Expr = input.parse()?;
            let cond = if input.peek(Token![,]) && input.peek2(Token![if]) {
                input.parse::<Token![,]>()?;
                input.parse::<Token![if]>()?;
                Some(input.parse::<Expr>()?)
            } else {
                None
            };
            input.parse::<Token![=>]>()?;
            let handler = parse_handler(input)?;
            branches.push(Branch {
                pat,
                fut,
                cond,
                handler,
            });
        }

        Ok(Select {
            krate,
            biased,
            branches,
            else_branch,
        })
    }
}

/// Replaces every binding in a pattern with `_`, keeping its shape, so the
/// pattern can be tested against `&output` without moving anything.
struct CleanPattern;

impl VisitMut for CleanPattern {
    fn visit_pat_mut(&mut self, pat: &mut Pat) {
        match pat {
            Pat::Ident(ident) => {
                *pat = match ident.subpat.take() {
                    Some((_, mut sub)) => {
                        self.visit_pat_mut(&mut sub);
                        *sub
                    }
                    None => Pat::Wild(syn::PatWild {
                        attrs: vec![],
                        underscore_token: Default::default(),
                    }),
                };
            }
            Pat::Struct(s) => {
                for field in s.fields.iter_mut() {
                    field.colon_token.get_or_insert_with(Default::default);
                    self.visit_pat_mut(&mut field.pat);
                }
            }
            _ => syn::visit_mut::visit_pat_mut(self, pat),
        }
    }
}

pub(crate) fn select(input: TokenStream) -> TokenStream {
    let select: Select = match syn::parse2(input) {
        Ok(s) => s,
        Err(e) => return e.into_compile_error(),
    };
    let Select {
        krate,
        biased,
        branches,
        else_branch,
    } = select;

    if branches.is_empty() {
        return match else_branch {
            Some(els) => quote! { { #els } },
            None => quote! { ::core::compile_error!("select! requires at least one branch.") },
        };
    }
    if branches.len() > MAX_BRANCHES {
        return syn::Error::new(
            Span::call_site(),
            format!("select! supports at most {MAX_BRANCHES} branches"),
        )
        .into_compile_error();
    }

    let span = Span::mixed_site();
    let support = quote! { #krate::__macro_support };
    let n = branches.len();
    let count = n as u32;
    let out_enum = format_ident!("__VoltSelectOut", span = span);
    let variants: Vec<_> = (0..n)
        .map(|i| format_ident!("_{}", i, span = span))
        .collect();
    let futs: Vec<_> = (0..n)
        .map(|i| format_ident!("__volt_fut_{}", i, span = span))
        .collect();
    let disabled = format_ident!("__volt_disabled", span = span);
    let cx = format_ident!("__volt_cx", span = span);
    let out = format_ident!("__volt_out", span = span);
    let output = format_ident!("__volt_output", span = span);
    let is_pending = format_ident!("__volt_is_pending", span = span);
    let start = format_ident!("__volt_start", span = span);
    let branch = format_ident!("__volt_branch", span = span);
    let futures_init = format_ident!("__volt_futures_init", span = span);
    let all = format_ident!("__volt_futures", span = span);
    // One bit per branch in the smallest integer that holds them (it is
    // part of the generated future's size).
    let mask_ty = match n {
        0..=8 => quote! { u8 },
        9..=16 => quote! { u16 },
        17..=32 => quote! { u32 },
        _ => quote! { u64 },
    };

    let preconditions = branches.iter().enumerate().filter_map(|(i, b)| {
        b.cond.as_ref().map(|c| {
            let i = i as u32;
            quote_spanned! {span=>
                if !(#c) {
                    #disabled |= (1 as #mask_ty) << #i;
                }
            }
        })
    });

    let fut_exprs = branches.iter().map(|b| &b.fut);
    // The expressions go in a tuple of their own first, as written, so that
    // temporaries in them live as long as the `select!` (temporary
    // lifetime extension); then each is turned into its future.
    let leaves: Vec<TokenStream> = (0..n)
        .map(syn::Index::from)
        .map(|i| quote_spanned! {span=> #support::IntoFuture::into_future(#futures_init.#i) })
        .collect();
    let (tuple, projection) = tuple::pinned(&leaves, &all, &futs, &support, span);

    let start_expr = if biased {
        quote! { 0u32 }
    } else {
        quote! { #support::thread_rng_n(#count) }
    };

    let poll_arms = branches.iter().enumerate().map(|(i, b)| {
        let f = &futs[i];
        let variant = &variants[i];
        let mut clean = b.pat.clone();
        CleanPattern.visit_pat_mut(&mut clean);
        let i = i as u32;
        quote_spanned! {span=>
            #i => {
                let mask = (1 as #mask_ty) << #i;
                if #disabled & mask == mask {
                    continue;
                }
                let #out = match #support::Future::poll(#f.as_mut(), #cx) {
                    #support::Poll::Ready(out) => out,
                    #support::Poll::Pending => {
                        #is_pending = true;
                        continue;
                    }
                };
                // Completed: whatever the pattern says, it won't be polled
                // again.
                #disabled |= mask;
                #[allow(unused_variables, unused_mut, clippy::redundant_pattern_matching)]
                match &#out {
                    #clean => {}
                    _ => continue,
                }
                return #support::Poll::Ready(#out_enum::#variant(#out));
            }
        }
    });

    let handler_arms = branches.iter().enumerate().map(|(i, b)| {
        let variant = &variants[i];
        let pat = &b.pat;
        let handler = &b.handler;
        quote_spanned! {span=>
            #out_enum::#variant(#pat) => #handler,
        }
    });

    let else_expr = match else_branch {
        Some(e) => quote! { #e },
        None => quote! { ::core::panic!("all branches are disabled and there is no else branch") },
    };

    quote_spanned! {span=> {
        #[allow(non_camel_case_types)]
        enum #out_enum<#(#variants,)*> {
            #( #variants(#variants), )*
            Disabled,
        }

        let mut #disabled: #mask_ty = 0;
        #( #preconditions )*

        let mut #output = {
            let #futures_init = ( #( #fut_exprs, )* );
            let mut #all = ::core::pin::pin!(#tuple);
            #support::poll_fn(move |#cx: &mut #support::Context<'_>| {
                #support::ready!(#support::poll_budget_available(#cx));
                #projection
                let mut #is_pending = false;
                let #start: u32 = #start_expr;
                for i in 0..#count {
                    #[allow(clippy::modulo_one)]
                    let #branch = (#start + i) % #count;
                    match #branch {
                        #( #poll_arms )*
                        _ => ::core::unreachable!("reaching this means there probably is an off by one bug"),
                    }
                }
                if #is_pending {
                    #support::Poll::Pending
                } else {
                    #support::Poll::Ready(#out_enum::Disabled)
                }
            }).await
        };

        #[allow(unreachable_patterns, unused_mut)]
        match #output {
            #( #handler_arms )*
            #out_enum::Disabled => #else_expr,
            _ => ::core::unreachable!("failed to match bind"),
        }
    }}
}
