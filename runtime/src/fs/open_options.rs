//! `OpenOptions`: std's builder, with an async `open`.

use super::{File, asyncify};

use std::io;
use std::path::Path;

/// Options and flags which can be used to configure how a file is opened.
///
/// This is a specialized version of [`std::fs::OpenOptions`] for usage
/// from the async context (its `open` runs on the blocking pool).
///
/// ```
/// use volt_runtime::fs::OpenOptions;
/// use volt_runtime::io::AsyncWriteExt;
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> std::io::Result<()> {
/// let path = std::env::temp_dir().join(format!("volt-open-doc-{}", std::process::id()));
/// let mut file = OpenOptions::new().write(true).create(true).open(&path).await?;
/// file.write_all(b"x").await?;
/// file.flush().await?;
/// # volt_runtime::fs::remove_file(&path).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct OpenOptions(std::fs::OpenOptions);

impl OpenOptions {
    /// Creates a blank new set of options ready for configuration; all
    /// options are initially false.
    pub fn new() -> OpenOptions {
        OpenOptions(std::fs::OpenOptions::new())
    }

    /// Sets the option for read access.
    pub fn read(&mut self, read: bool) -> &mut OpenOptions {
        self.0.read(read);
        self
    }

    /// Sets the option for write access.
    pub fn write(&mut self, write: bool) -> &mut OpenOptions {
        self.0.write(write);
        self
    }

    /// Sets the option for the append mode: writes go to the end of the
    /// file.
    pub fn append(&mut self, append: bool) -> &mut OpenOptions {
        self.0.append(append);
        self
    }

    /// Sets the option for truncating a previous file.
    pub fn truncate(&mut self, truncate: bool) -> &mut OpenOptions {
        self.0.truncate(truncate);
        self
    }

    /// Sets the option for creating a new file if it does not exist.
    pub fn create(&mut self, create: bool) -> &mut OpenOptions {
        self.0.create(create);
        self
    }

    /// Sets the option to always create a new file, failing if it already
    /// exists (atomically).
    pub fn create_new(&mut self, create_new: bool) -> &mut OpenOptions {
        self.0.create_new(create_new);
        self
    }

    /// Sets the mode bits that a new file will be created with.
    #[cfg(unix)]
    pub fn mode(&mut self, mode: u32) -> &mut OpenOptions {
        std::os::unix::fs::OpenOptionsExt::mode(&mut self.0, mode);
        self
    }

    /// Passes custom flags to the `flags` argument of `open`.
    #[cfg(unix)]
    pub fn custom_flags(&mut self, flags: i32) -> &mut OpenOptions {
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut self.0, flags);
        self
    }

    /// Opens a file at `path` with the options specified by `self`.
    ///
    /// # Errors
    ///
    /// The OS's error, as [`std::fs::OpenOptions::open`] gives it
    /// (`NotFound`, `PermissionDenied`, `AlreadyExists`, `InvalidInput`
    /// for an invalid combination of options, ...).
    pub async fn open(&self, path: impl AsRef<Path>) -> io::Result<File> {
        let path = path.as_ref().to_owned();
        let opts = self.0.clone();
        let std = asyncify(move || opts.open(path)).await?;
        Ok(File::from_std(std))
    }
}

impl Default for OpenOptions {
    fn default() -> Self {
        Self::new()
    }
}

impl From<std::fs::OpenOptions> for OpenOptions {
    fn from(options: std::fs::OpenOptions) -> OpenOptions {
        OpenOptions(options)
    }
}
