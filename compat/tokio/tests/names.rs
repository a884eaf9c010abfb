//! `Debug` output that names a type says `tokio::`, as code written
//! against tokio expects (tokio's `fs_file::file_debug_fmt`).

#[tokio::test]
async fn file_debug_names_tokio() {
    let path = std::env::temp_dir().join(format!("compat-names-{}", std::process::id()));
    std::fs::write(&path, b"x").unwrap();
    let file = tokio::fs::File::open(&path).await.unwrap();
    assert!(format!("{file:?}").starts_with("tokio::fs::File { std: File { fd:"));
    std::fs::remove_file(path).unwrap();
}
