//! `#[volt::main]` and `#[volt::test]`.
//!
//! Both turn an `async fn` into a plain `fn` that builds a runtime and
//! blocks on the function's body:
//!
//! ```text
//! fn main() -> Ret {
//!     let body = async { /* the original body */ };
//!     return volt::runtime::Builder::new_multi_thread()
//!         .enable_all()
//!         .build()
//!         .expect("Failed building the Runtime")
//!         .block_on(body);
//! }
//! ```
//!
//! Arguments (as tokio's): `flavor = "multi_thread" | "current_thread" |
//! "local"` (`local`: a current-thread builder finished with
//! `build_local`, so the body may `spawn_local`), `worker_threads = N`
//! (multi-thread only), `start_paused = bool` (not multi-thread), `crate =
//! "path"`, `unhandled_panic = "ignore" | "shutdown_runtime"` (not
//! multi-thread), `name = "runtime name"`. A wrong argument is a compile
//! error that names it.
//!
//! The same code serves `#[tokio::main]` and `#[tokio::test]` of the
//! compat crate (`compat/tokio`): there the default crate path is
//! `::tokio` and the errors say `tokio::`, so a crate that depends only on
//! the compat crate expands to paths it can resolve ([`Facade`]).

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, MetaNameValue, Token, punctuated::Punctuated};

#[derive(Clone, Copy, PartialEq, Debug)]
enum Flavor {
    CurrentThread,
    MultiThread,
    Local,
}

impl Flavor {
    fn from_str(s: &str) -> Result<Flavor, String> {
        match s {
            "current_thread" => Ok(Flavor::CurrentThread),
            "multi_thread" => Ok(Flavor::MultiThread),
            "local" => Ok(Flavor::Local),
            "single_thread" => {
                Err("The single threaded runtime flavor is called `current_thread`.".to_string())
            }
            "basic_scheduler" => Err(
                "The `basic_scheduler` runtime flavor has been renamed to `current_thread`."
                    .to_string(),
            ),
            "threaded_scheduler" => Err(
                "The `threaded_scheduler` runtime flavor has been renamed to `multi_thread`."
                    .to_string(),
            ),
            _ => Err(format!(
                "No such runtime flavor `{s}`. The runtime flavors are `current_thread`, `local`, and `multi_thread`."
            )),
        }
    }
}

/// The `unhandled_panic` argument: `runtime::UnhandledPanic`'s variants.
#[derive(Clone, Copy, PartialEq, Debug)]
enum UnhandledPanic {
    Ignore,
    ShutdownRuntime,
}

impl UnhandledPanic {
    fn from_str(s: &str) -> Result<UnhandledPanic, String> {
        match s {
            "ignore" => Ok(UnhandledPanic::Ignore),
            "shutdown_runtime" => Ok(UnhandledPanic::ShutdownRuntime),
            _ => Err(format!(
                "No such unhandled panic behavior `{s}`. The unhandled panic behaviors are `ignore` and `shutdown_runtime`."
            )),
        }
    }

    fn to_tokens(self, crate_path: &TokenStream) -> TokenStream {
        match self {
            UnhandledPanic::Ignore => quote! { #crate_path::runtime::UnhandledPanic::Ignore },
            UnhandledPanic::ShutdownRuntime => {
                quote! { #crate_path::runtime::UnhandledPanic::ShutdownRuntime }
            }
        }
    }
}

struct Config {
    flavor: Flavor,
    worker_threads: Option<usize>,
    start_paused: Option<bool>,
    crate_name: Option<syn::Path>,
    unhandled_panic: Option<UnhandledPanic>,
    name: Option<String>,
}

struct Settings {
    flavor: Option<(Flavor, Span)>,
    worker_threads: Option<(usize, Span)>,
    start_paused: Option<(bool, Span)>,
    crate_name: Option<syn::Path>,
    unhandled_panic: Option<(UnhandledPanic, Span)>,
    name: Option<String>,
}

const UNKNOWN_ATTR: &str = "expected one of: `flavor`, `worker_threads`, `start_paused`, `crate`, `unhandled_panic`, `name`.";

fn parse_int(expr: &Expr, span: Span, field: &str) -> syn::Result<usize> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(lit), ..
        }) => lit.base10_parse::<usize>().map_err(|e| {
            syn::Error::new(
                span,
                format!("Failed to parse value of `{field}` as integer: {e}"),
            )
        }),
        _ => Err(syn::Error::new(
            span,
            format!("Failed to parse value of `{field}` as integer."),
        )),
    }
}

fn parse_string(expr: &Expr, span: Span, field: &str) -> syn::Result<String> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Ok(s.value()),
        Expr::Lit(ExprLit {
            lit: Lit::Verbatim(s),
            ..
        }) => Ok(s.to_string()),
        Expr::Path(p) if p.path.get_ident().is_some() => {
            Ok(p.path.get_ident().unwrap().to_string())
        }
        _ => Err(syn::Error::new(
            span,
            format!("Failed to parse value of `{field}` as string."),
        )),
    }
}

fn parse_bool(expr: &Expr, span: Span, field: &str) -> syn::Result<bool> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        }) => Ok(b.value),
        _ => Err(syn::Error::new(
            span,
            format!("Failed to parse value of `{field}` as bool."),
        )),
    }
}

fn parse_path(expr: &Expr, span: Span, field: &str) -> syn::Result<syn::Path> {
    let s = parse_string(expr, span, field)?;
    syn::parse_str::<syn::Path>(&s).map_err(|e| {
        syn::Error::new(
            span,
            format!("Failed to parse value of `{field}` as path: \"{e}\""),
        )
    })
}

/// The crate the attribute is used through: `volt`, or the compat crate
/// named `tokio`. It gives the default `crate` path of the expansion and
/// the attribute's name in error messages, so both name what the user
/// wrote.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Facade {
    Volt,
    Tokio,
}

impl Facade {
    fn crate_path(self) -> TokenStream {
        match self {
            Facade::Volt => quote! { ::volt },
            Facade::Tokio => quote! { ::tokio },
        }
    }

    fn name(self) -> &'static str {
        match self {
            Facade::Volt => "volt",
            Facade::Tokio => "tokio",
        }
    }
}

/// Reads the `name = value` arguments, each at most once.
fn parse_settings(args: Punctuated<MetaNameValue, Token![,]>) -> syn::Result<Settings> {
    let mut settings = Settings {
        flavor: None,
        worker_threads: None,
        start_paused: None,
        crate_name: None,
        unhandled_panic: None,
        name: None,
    };
    for arg in args {
        let ident = arg
            .path
            .get_ident()
            .ok_or_else(|| syn::Error::new_spanned(&arg.path, "Must have specified ident"))?
            .to_string()
            .to_lowercase();
        let span = arg.value.span();
        let twice = |field: &str| syn::Error::new(span, format!("`{field}` set multiple times."));
        match ident.as_str() {
            "worker_threads" => {
                if settings.worker_threads.is_some() {
                    return Err(twice("worker_threads"));
                }
                let n = parse_int(&arg.value, span, "worker_threads")?;
                if n == 0 {
                    return Err(syn::Error::new(span, "`worker_threads` may not be 0."));
                }
                settings.worker_threads = Some((n, span));
            }
            "flavor" => {
                if settings.flavor.is_some() {
                    return Err(twice("flavor"));
                }
                let s = parse_string(&arg.value, span, "flavor")?;
                let flavor = Flavor::from_str(&s).map_err(|e| syn::Error::new(span, e))?;
                settings.flavor = Some((flavor, span));
            }
            "start_paused" => {
                if settings.start_paused.is_some() {
                    return Err(twice("start_paused"));
                }
                settings.start_paused = Some((parse_bool(&arg.value, span, "start_paused")?, span));
            }
            "crate" => {
                if settings.crate_name.is_some() {
                    return Err(twice("crate"));
                }
                settings.crate_name = Some(parse_path(&arg.value, span, "crate")?);
            }
            "unhandled_panic" => {
                if settings.unhandled_panic.is_some() {
                    return Err(twice("unhandled_panic"));
                }
                let s = parse_string(&arg.value, span, "unhandled_panic")?;
                let behavior =
                    UnhandledPanic::from_str(&s).map_err(|e| syn::Error::new(span, e))?;
                settings.unhandled_panic = Some((behavior, span));
            }
            "name" => {
                if settings.name.is_some() {
                    return Err(twice("name"));
                }
                settings.name = Some(parse_string(&arg.value, span, "name")?);
            }
            "core_threads" => {
                return Err(syn::Error::new_spanned(
                    &arg.path,
                    "Attribute `core_threads` is renamed to `worker_threads`",
                ));
            }
            name => {
                return Err(syn::Error::new_spanned(
                    &arg.path,
                    format!("Unknown attribute {name} is specified; {UNKNOWN_ATTR}"),
                ));
            }
        }
    }
    Ok(settings)
}

/// Checks the arguments against each other and the enabled features.
fn build_config(
    args: Punctuated<MetaNameValue, Token![,]>,
    is_test: bool,
    rt_multi_thread: bool,
    facade: Facade,
) -> syn::Result<Config> {
    let settings = parse_settings(args)?;
    let default_flavor = if is_test || !rt_multi_thread {
        Flavor::CurrentThread
    } else {
        Flavor::MultiThread
    };
    let flavor = settings.flavor.map(|(f, _)| f).unwrap_or(default_flavor);
    let macro_name = format!(
        "{}::{}",
        facade.name(),
        if is_test { "test" } else { "main" }
    );

    if flavor == Flavor::MultiThread && !rt_multi_thread {
        let span = settings
            .flavor
            .map(|(_, s)| s)
            .unwrap_or_else(Span::call_site);
        return Err(syn::Error::new(
            span,
            "The default runtime flavor is `multi_thread`, but the `rt-multi-thread` feature is disabled.",
        ));
    }
    if let (Flavor::CurrentThread | Flavor::Local, Some((_, span))) =
        (flavor, settings.worker_threads)
    {
        return Err(syn::Error::new(
            span,
            format!(
                "The `worker_threads` option requires the `multi_thread` runtime flavor. Use `#[{macro_name}(flavor = \"multi_thread\")]`"
            ),
        ));
    }
    if let (Flavor::MultiThread, Some((_, span))) = (flavor, settings.start_paused) {
        return Err(syn::Error::new(
            span,
            format!(
                "The `start_paused` option requires the `current_thread` runtime flavor. Use `#[{macro_name}(flavor = \"current_thread\")]`"
            ),
        ));
    }
    if let (Flavor::MultiThread, Some((_, span))) = (flavor, settings.unhandled_panic) {
        return Err(syn::Error::new(
            span,
            format!(
                "The `unhandled_panic` option requires the `current_thread` runtime flavor. Use `#[{macro_name}(flavor = \"current_thread\")]`"
            ),
        ));
    }

    Ok(Config {
        flavor,
        worker_threads: settings.worker_threads.map(|(n, _)| n),
        start_paused: settings.start_paused.map(|(b, _)| b),
        crate_name: settings.crate_name,
        unhandled_panic: settings.unhandled_panic.map(|(u, _)| u),
        name: settings.name,
    })
}

fn parse_knobs(
    mut input: syn::ItemFn,
    is_test: bool,
    config: Config,
    facade: Facade,
) -> TokenStream {
    input.sig.asyncness = None;

    // If type mismatch occurs, the current rustc points to the last statement.
    let (last_stmt_start_span, last_stmt_end_span) = {
        let mut last_stmt = input
            .block
            .stmts
            .last()
            .map(ToTokens::into_token_stream)
            .unwrap_or_default()
            .into_iter();
        let start = last_stmt.next().map_or_else(Span::call_site, |t| t.span());
        let end = last_stmt.last().map_or(start, |t| t.span());
        (start, end)
    };

    let crate_path = config
        .crate_name
        .map(ToTokens::into_token_stream)
        .unwrap_or_else(|| facade.crate_path());

    let mut rt = match config.flavor {
        Flavor::CurrentThread | Flavor::Local => quote_spanned! {last_stmt_start_span=>
            #crate_path::runtime::Builder::new_current_thread()
        },
        Flavor::MultiThread => quote_spanned! {last_stmt_start_span=>
            #crate_path::runtime::Builder::new_multi_thread()
        },
    };
    if let Some(v) = config.worker_threads {
        rt = quote_spanned! {last_stmt_start_span=> #rt.worker_threads(#v) };
    }
    if let Some(v) = config.start_paused {
        rt = quote_spanned! {last_stmt_start_span=> #rt.start_paused(#v) };
    }
    if let Some(v) = config.unhandled_panic {
        let v = v.to_tokens(&crate_path);
        rt = quote_spanned! {last_stmt_start_span=> #rt.unhandled_panic(#v) };
    }
    if let Some(v) = &config.name {
        rt = quote_spanned! {last_stmt_start_span=> #rt.name(#v) };
    }
    let build = if config.flavor == Flavor::Local {
        quote_spanned! {last_stmt_start_span=>
            build_local(::core::default::Default::default())
        }
    } else {
        quote_spanned! {last_stmt_start_span=> build() }
    };

    let header = if is_test {
        quote! { #[::core::prelude::v1::test] }
    } else {
        quote! {}
    };

    let body = &input.block;
    let brace_token = input.block.brace_token;
    let output_type = match &input.sig.output {
        // For functions with no return value syn doesn't print anything,
        // but that doesn't work as `Output` for our boxed `Future`, so
        // default to `()` (the same type as the function output).
        syn::ReturnType::Default => quote! { () },
        syn::ReturnType::Type(_, ret_type) => quote! { #ret_type },
    };

    let body = if is_test {
        // Type-erase the body in tests: keeps compile times down when a
        // crate has many of them.
        quote! {
            let body = async #body;
            let body = ::core::pin::pin!(body);
            let body: ::core::pin::Pin<&mut dyn ::core::future::Future<Output = #output_type>> = body;
        }
    } else {
        quote! { let body = async #body; }
    };

    let last_block = quote_spanned! {last_stmt_end_span=>
        #[allow(clippy::expect_used, clippy::diverging_sub_expression, clippy::needless_return)]
        {
            return #rt
                .enable_all()
                .#build
                .expect("Failed building the Runtime")
                .block_on(body);
        }
    };

    let new_block: syn::Block =
        syn::parse2(quote! { { #body #last_block } }).expect("generated block parses");
    *input.block = syn::Block {
        brace_token,
        stmts: new_block.stmts,
    };

    quote! {
        #header
        #input
    }
}

fn token_stream_with_error(mut tokens: TokenStream, error: syn::Error) -> TokenStream {
    tokens.extend(error.into_compile_error());
    tokens
}

pub(crate) fn main(
    args: TokenStream,
    item: TokenStream,
    rt_multi_thread: bool,
    facade: Facade,
) -> TokenStream {
    let input: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(it) => it,
        // On a parse error, keep the item so that other errors still show.
        Err(e) => return token_stream_with_error(item, e),
    };

    let config = if input.sig.ident == "main" && !input.sig.inputs.is_empty() {
        let msg = "the main function cannot accept arguments";
        Err(syn::Error::new_spanned(&input.sig.ident, msg))
    } else if input.sig.asyncness.is_none() {
        let msg = "the `async` keyword is missing from the function declaration";
        Err(syn::Error::new_spanned(input.sig.fn_token, msg))
    } else {
        Punctuated::<MetaNameValue, Token![,]>::parse_terminated
            .parse2(args)
            .and_then(|args| build_config(args, false, rt_multi_thread, facade))
    };

    match config {
        Ok(config) => parse_knobs(input, false, config, facade),
        Err(e) => token_stream_with_error(parse_knobs(input, false, fallback_config(), facade), e),
    }
}

pub(crate) fn test(
    args: TokenStream,
    item: TokenStream,
    rt_multi_thread: bool,
    facade: Facade,
) -> TokenStream {
    let input: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(it) => it,
        Err(e) => return token_stream_with_error(item, e),
    };

    let config = if let Some(attr) = input.attrs.iter().find(|attr| is_test_attribute(attr)) {
        let msg = "second test attribute is supplied, consider removing or changing the order of your test attributes";
        Err(syn::Error::new_spanned(attr, msg))
    } else if !input.sig.inputs.is_empty() {
        let msg = "the test function cannot accept arguments";
        Err(syn::Error::new_spanned(&input.sig.inputs, msg))
    } else if input.sig.asyncness.is_none() {
        let msg = "the `async` keyword is missing from the function declaration";
        Err(syn::Error::new_spanned(input.sig.fn_token, msg))
    } else {
        Punctuated::<MetaNameValue, Token![,]>::parse_terminated
            .parse2(args)
            .and_then(|args| build_config(args, true, rt_multi_thread, facade))
    };

    match config {
        Ok(config) => parse_knobs(input, true, config, facade),
        Err(e) => token_stream_with_error(parse_knobs(input, true, fallback_config(), facade), e),
    }
}

/// Used to still expand the function when the arguments are wrong, so that
/// only the argument error is reported.
fn fallback_config() -> Config {
    Config {
        flavor: Flavor::CurrentThread,
        worker_threads: None,
        start_paused: None,
        crate_name: None,
        unhandled_panic: None,
        name: None,
    }
}

/// Whether `attr` is `#[test]` or `#[::core::prelude::v1::test]` and the
/// like.
fn is_test_attribute(attr: &syn::Attribute) -> bool {
    let path = match &attr.meta {
        syn::Meta::Path(path) => path,
        _ => return false,
    };
    let candidates = [
        ["core", "prelude", "*", "test"],
        ["std", "prelude", "*", "test"],
    ];
    if path.leading_colon.is_none()
        && path.segments.len() == 1
        && path.segments[0].arguments.is_none()
        && path.segments[0].ident == "test"
    {
        return true;
    } else if path.segments.len() != candidates[0].len() {
        return false;
    }
    candidates.into_iter().any(|segments| {
        path.segments.iter().zip(segments).all(|(segment, path)| {
            segment.arguments.is_none() && (path == "*" || segment.ident == path)
        })
    })
}
