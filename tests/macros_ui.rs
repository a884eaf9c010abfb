//! Compile errors of volt's macros name the faulty argument (trybuild).

#[test]
fn macro_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
