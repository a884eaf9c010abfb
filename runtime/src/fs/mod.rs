//! Asynchronous file and directory utilities, run on the blocking pool.
//!
//! Like tokio's `fs`, this module wraps `std::fs`: every call runs the std
//! function on the runtime's blocking pool (`spawn_blocking`) and awaits
//! it, because regular files have no readiness model an I/O driver could
//! poll. For many small operations, prefer one `spawn_blocking` that does
//! them all with `std::fs`; for bulk data, [`File`] reads and writes in
//! chunks of up to 2 MiB per blocking call.
//!
//! # Cancel safety
//!
//! Dropping one of these futures does not stop the blocking call: a
//! started `write`, `rename` or `remove_file` runs to completion even if
//! nobody awaits it.
//!
//! ```
//! use volt_runtime::fs;
//!
//! # #[volt_runtime::main(crate = "volt_runtime")]
//! # async fn main() -> std::io::Result<()> {
//! let dir = std::env::temp_dir().join(format!("volt-fs-doc-{}", std::process::id()));
//! fs::create_dir_all(&dir).await?;
//! fs::write(dir.join("hello.txt"), b"hello").await?;
//! assert_eq!(fs::read_to_string(dir.join("hello.txt")).await?, "hello");
//! fs::remove_dir_all(&dir).await?;
//! # Ok(())
//! # }
//! ```

mod dir;
mod file;
mod file_times;
mod open_options;

pub use dir::{DirBuilder, DirEntry, ReadDir, read_dir};
pub use file::File;
pub use file_times::FileTimes;
pub use open_options::OpenOptions;

use std::io;
use std::path::{Path, PathBuf};

/// Runs `f` on the blocking pool and awaits its result.
pub(crate) async fn asyncify<F, T>(f: F) -> io::Result<T>
where
    F: FnOnce() -> io::Result<T> + Send + 'static,
    T: Send + 'static,
{
    match crate::task::spawn_blocking(f).await {
        Ok(res) => res,
        // tokio's error, whatever happened to the task.
        Err(_) => Err(super::io::blocking::join_error()),
    }
}

macro_rules! path_fns {
    ($($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ident),*) -> $ret:ty = $std:path;)*) => {$(
        $(#[$doc])*
        pub async fn $name($($arg: impl AsRef<$ty>),*) -> io::Result<$ret> {
            $(let $arg = $arg.as_ref().to_owned();)*
            asyncify(move || $std($(&$arg),*)).await
        }
    )*};
}

path_fns! {
    /// Reads the entire contents of a file into a bytes vector.
    ///
    /// This is an async version of [`std::fs::read`].
    fn read(path: Path) -> Vec<u8> = std::fs::read;
    /// Reads the entire contents of a file into a string.
    ///
    /// This is an async version of [`std::fs::read_to_string`].
    fn read_to_string(path: Path) -> String = std::fs::read_to_string;
    /// Copies the contents of one file to another, including permission
    /// bits; returns the number of bytes copied. Overwrites `to`.
    ///
    /// This is an async version of [`std::fs::copy`].
    fn copy(from: Path, to: Path) -> u64 = std::fs::copy;
    /// Renames a file or directory to a new name, replacing the original
    /// file if `to` already exists.
    ///
    /// This is an async version of [`std::fs::rename`].
    fn rename(from: Path, to: Path) -> () = std::fs::rename;
    /// Removes a file from the filesystem.
    ///
    /// This is an async version of [`std::fs::remove_file`].
    fn remove_file(path: Path) -> () = std::fs::remove_file;
    /// Removes an existing, empty directory.
    ///
    /// This is an async version of [`std::fs::remove_dir`].
    fn remove_dir(path: Path) -> () = std::fs::remove_dir;
    /// Removes a directory at this path, after removing all its contents.
    /// Use carefully!
    ///
    /// This is an async version of [`std::fs::remove_dir_all`].
    fn remove_dir_all(path: Path) -> () = std::fs::remove_dir_all;
    /// Creates a new, empty directory at the provided path (its parent
    /// must exist).
    ///
    /// This is an async version of [`std::fs::create_dir`].
    fn create_dir(path: Path) -> () = std::fs::create_dir;
    /// Recursively creates a directory and all of its parent components if
    /// they are missing.
    ///
    /// This is an async version of [`std::fs::create_dir_all`].
    fn create_dir_all(path: Path) -> () = std::fs::create_dir_all;
    /// Given a path, queries the file system to get information about a
    /// file, directory, etc. (following symlinks).
    ///
    /// This is an async version of [`std::fs::metadata`].
    fn metadata(path: Path) -> std::fs::Metadata = std::fs::metadata;
    /// Queries the file system metadata for a path without following
    /// symlinks.
    ///
    /// This is an async version of [`std::fs::symlink_metadata`].
    fn symlink_metadata(path: Path) -> std::fs::Metadata = std::fs::symlink_metadata;
    /// Returns the canonical, absolute form of a path with all
    /// intermediate components normalized and symbolic links resolved.
    ///
    /// This is an async version of [`std::fs::canonicalize`].
    fn canonicalize(path: Path) -> PathBuf = std::fs::canonicalize;
    /// Returns `Ok(true)` if the path points at an existing entity,
    /// `Ok(false)` if it does not, and an error if that cannot be told
    /// (for example, permission denied on a parent).
    ///
    /// This is an async version of [`std::fs::exists`].
    fn try_exists(path: Path) -> bool = std::fs::exists;
    /// Creates a new hard link on the filesystem: `link` becomes another
    /// name for `original`.
    ///
    /// This is an async version of [`std::fs::hard_link`].
    fn hard_link(original: Path, link: Path) -> () = std::fs::hard_link;
    /// Reads a symbolic link, returning the file that the link points to.
    ///
    /// This is an async version of [`std::fs::read_link`].
    fn read_link(path: Path) -> PathBuf = std::fs::read_link;
}

/// Creates a new symbolic link on the filesystem: `link` points to
/// `original`.
///
/// This is an async version of [`std::os::unix::fs::symlink`].
#[cfg(unix)]
pub async fn symlink(original: impl AsRef<Path>, link: impl AsRef<Path>) -> io::Result<()> {
    let (original, link) = (original.as_ref().to_owned(), link.as_ref().to_owned());
    asyncify(move || std::os::unix::fs::symlink(original, link)).await
}

/// Creates a future that will open a file for writing and write the entire
/// contents of `contents` to it (creating or truncating it).
///
/// This is an async version of [`std::fs::write`].
pub async fn write(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    let contents = contents.as_ref().to_owned();
    asyncify(move || std::fs::write(path, contents)).await
}

/// Changes the permissions found on a file or a directory.
///
/// This is an async version of [`std::fs::set_permissions`].
pub async fn set_permissions(path: impl AsRef<Path>, perm: std::fs::Permissions) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::set_permissions(path, perm)).await
}
