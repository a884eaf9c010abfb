//! `read_dir` (`ReadDir`, `DirEntry`) and `DirBuilder`.
//!
//! `ReadDir` fetches entries in batches of 32 per blocking call, so
//! walking a large directory does not cost one pool round trip per entry.

use super::asyncify;
use crate::task::{JoinHandle, spawn_blocking};

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::{FileType, Metadata};
use std::future::{Future, poll_fn};
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

const CHUNK_SIZE: usize = 32;

/// Returns a stream over the entries within a directory.
///
/// This is an async version of [`std::fs::read_dir`].
///
/// ```
/// use volt_runtime::fs;
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> std::io::Result<()> {
/// let mut entries = fs::read_dir(".").await?;
/// while let Some(entry) = entries.next_entry().await? {
///     let _name = entry.file_name();
/// }
/// # Ok(())
/// # }
/// ```
pub async fn read_dir(path: impl AsRef<Path>) -> io::Result<ReadDir> {
    let path = path.as_ref().to_owned();
    let std = asyncify(move || std::fs::read_dir(path)).await?;
    Ok(ReadDir(State::Idle(Some(Batch {
        buf: VecDeque::with_capacity(CHUNK_SIZE),
        std,
        done: false,
    }))))
}

struct Batch {
    buf: VecDeque<io::Result<DirEntry>>,
    std: std::fs::ReadDir,
    done: bool,
}

enum State {
    Idle(Option<Batch>),
    Busy(JoinHandle<Batch>),
}

/// Reads the entries in a directory (from [`read_dir`]).
///
/// Entries are yielded in no particular order; `.` and `..` are skipped.
#[must_use = "streams do nothing unless polled"]
pub struct ReadDir(State);

impl std::fmt::Debug for ReadDir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadDir").finish_non_exhaustive()
    }
}

impl ReadDir {
    /// Returns the next entry in the directory stream, or `None` at the
    /// end.
    ///
    /// # Cancel safety
    ///
    /// This method is cancellation safe.
    pub async fn next_entry(&mut self) -> io::Result<Option<DirEntry>> {
        poll_fn(|cx| self.poll_next_entry(cx)).await
    }

    /// Polls for the next directory entry.
    pub fn poll_next_entry(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<DirEntry>>> {
        loop {
            match &mut self.0 {
                State::Idle(batch) => {
                    let b = batch.as_mut().expect("ReadDir batch present while idle");
                    if let Some(entry) = b.buf.pop_front() {
                        return Poll::Ready(entry.map(Some));
                    }
                    if b.done {
                        return Poll::Ready(Ok(None));
                    }
                    let mut b = batch.take().expect("ReadDir batch present while idle");
                    self.0 = State::Busy(spawn_blocking(move || {
                        for _ in 0..CHUNK_SIZE {
                            match b.std.next() {
                                Some(entry) => b.buf.push_back(entry.map(DirEntry::from_std)),
                                None => {
                                    b.done = true;
                                    break;
                                }
                            }
                        }
                        b
                    }));
                }
                State::Busy(rx) => {
                    let batch = ready!(Pin::new(rx).poll(cx))
                        .map_err(|e| io::Error::other(format!("background task failed: {e}")))?;
                    self.0 = State::Idle(Some(batch));
                }
            }
        }
    }
}

/// Entries returned by the [`ReadDir`] stream.
///
/// An instance of `DirEntry` represents an entry inside of a directory on
/// the filesystem; each can be inspected for its path and metadata.
#[derive(Debug)]
pub struct DirEntry {
    std: Arc<std::fs::DirEntry>,
    file_type: Option<FileType>,
}

impl DirEntry {
    fn from_std(std: std::fs::DirEntry) -> DirEntry {
        // The type usually comes free with the directory read (d_type), so
        // ask now, on the pool thread.
        let file_type = std.file_type().ok();
        DirEntry {
            std: Arc::new(std),
            file_type,
        }
    }

    /// Returns the full path to the file that this entry represents (the
    /// `read_dir` path joined with the file name).
    pub fn path(&self) -> PathBuf {
        self.std.path()
    }

    /// Returns the bare file name of this directory entry without any
    /// other leading path component.
    pub fn file_name(&self) -> OsString {
        self.std.file_name()
    }

    /// Returns the underlying `d_ino` field in the contained `dirent`
    /// structure.
    #[cfg(unix)]
    pub fn ino(&self) -> u64 {
        std::os::unix::fs::DirEntryExt::ino(&*self.std)
    }

    /// Returns the metadata for the file that this entry points at (not
    /// following symlinks).
    pub async fn metadata(&self) -> io::Result<Metadata> {
        let std = self.std.clone();
        asyncify(move || std.metadata()).await
    }

    /// Returns the file type for the file that this entry points at (not
    /// following symlinks).
    pub async fn file_type(&self) -> io::Result<FileType> {
        if let Some(ft) = self.file_type {
            return Ok(ft);
        }
        let std = self.std.clone();
        asyncify(move || std.file_type()).await
    }
}

/// A builder for creating directories in various manners.
///
/// This is a specialized version of [`std::fs::DirBuilder`] for usage on
/// the async runtime.
#[derive(Debug, Default)]
pub struct DirBuilder {
    recursive: bool,
    #[cfg(unix)]
    mode: Option<u32>,
}

impl DirBuilder {
    /// Creates a new set of options with default mode/security settings
    /// for all platforms and also non-recursive.
    pub fn new() -> Self {
        Self::default()
    }

    /// Indicates whether to create directories recursively (including all
    /// parent directories). Parents that do not exist are created with
    /// the same security and permissions settings.
    pub fn recursive(&mut self, recursive: bool) -> &mut Self {
        self.recursive = recursive;
        self
    }

    /// Sets the mode to create new directories with (default `0o777`,
    /// masked by the umask).
    #[cfg(unix)]
    pub fn mode(&mut self, mode: u32) -> &mut Self {
        self.mode = Some(mode);
        self
    }

    /// Creates the specified directory with the configured options.
    ///
    /// # Errors
    ///
    /// The OS's error; with `recursive(false)`, `AlreadyExists` if the
    /// directory exists and `NotFound` if a parent is missing.
    pub async fn create(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let path = path.as_ref().to_owned();
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(self.recursive);
        #[cfg(unix)]
        if let Some(mode) = self.mode {
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, mode);
        }
        asyncify(move || builder.create(path)).await
    }
}
