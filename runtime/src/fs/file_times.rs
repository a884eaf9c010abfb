//! `FileTimes`: the timestamps [`File::set_times`](super::File::set_times)
//! applies, tokio's `fs::FileTimes`. It records the times itself (rather
//! than wrapping `std::fs::FileTimes`, which has no getters) and becomes
//! the std type on the blocking thread that makes the syscall.

use std::time::SystemTime;

/// Timestamps for a file: each one set is applied by
/// [`File::set_times`](super::File::set_times), each one left unset is
/// left unchanged.
///
/// ```no_run
/// use volt_runtime::fs::{File, FileTimes};
/// use std::time::{Duration, SystemTime};
///
/// # async fn dox() -> std::io::Result<()> {
/// let file = File::options().write(true).open("foo.txt").await?;
/// let yesterday = SystemTime::now() - Duration::from_secs(86_400);
/// file.set_times(FileTimes::new().set_accessed(yesterday).set_modified(yesterday))
///     .await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
#[must_use = "must be applied to a file via `File::set_times` to have any effect"]
pub struct FileTimes {
    accessed: Option<SystemTime>,
    modified: Option<SystemTime>,
}

impl FileTimes {
    /// Creates a new empty `FileTimes`: unset timestamps are left
    /// unchanged.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the last access time.
    pub fn set_accessed(mut self, t: SystemTime) -> Self {
        self.accessed = Some(t);
        self
    }

    /// Sets the last modification time.
    pub fn set_modified(mut self, t: SystemTime) -> Self {
        self.modified = Some(t);
        self
    }

    pub(crate) fn into_std(self) -> std::fs::FileTimes {
        let mut times = std::fs::FileTimes::new();
        if let Some(t) = self.accessed {
            times = times.set_accessed(t);
        }
        if let Some(t) = self.modified {
            times = times.set_modified(t);
        }
        times
    }
}
