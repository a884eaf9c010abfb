//! The compat crate's version is the tokio release volt follows: the
//! registry `tokio` in the workspace's `Cargo.lock`, which
//! `scripts/api_diff.py` compares volt's API against.

#[test]
fn version_is_the_locked_tokio() {
    let lock = include_str!("../../../Cargo.lock");
    let locked = lock
        .split("[[package]]")
        .filter(|p| p.contains("\nname = \"tokio\"\n") && p.contains("source = \"registry+"))
        .find_map(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
        .map(|v| v.trim_end_matches('"'))
        .expect("Cargo.lock has the registry's tokio");
    assert_eq!(
        env!("CARGO_PKG_VERSION"),
        locked,
        "compat/tokio's version must be the tokio in Cargo.lock"
    );
}
