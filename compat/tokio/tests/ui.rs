//! Compile errors of `#[tokio::main]` and `#[tokio::test]` name the
//! attribute as the user wrote it (trybuild).

#[test]
fn errors_name_tokio() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
