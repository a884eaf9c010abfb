//! `File`: an open file whose reads, writes and seeks run on the blocking
//! pool.
//!
//! The `std::fs::File` is shared (`Arc`) with the blocking closures. The
//! operation state is `Idle(buffer)` or `Busy(join handle)`; at most one
//! operation is in flight:
//!
//! * read: with unread bytes in the buffer, copy them out; otherwise a
//!   blocking `read` of up to `max_buf_size` bytes fills the buffer.
//! * write: the caller's bytes are copied into the buffer and written by a
//!   blocking `write_all`; `poll_write` returns at once. An error of that
//!   write is reported by the next read, write or flush (tokio's
//!   behaviour), so `flush` before trusting that data reached the file.
//! * seek: unread buffered bytes are discarded and the OS position stepped
//!   back over them first (they were read ahead, not consumed).
//!
//! Methods that take `&self` (`sync_all`, `set_len`, ...) first wait for
//! the operation in flight, under a mutex held only while polling.

use super::{FileTimes, OpenOptions, asyncify};
use crate::io::blocking::{Buf, MAX_BUF, join_error};
use crate::io::{AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};
use crate::task::{JoinHandle, spawn_blocking};

use std::fmt;
use std::fs::{Metadata, Permissions};
use std::future::{Future, poll_fn};
use std::io::{self, Seek, SeekFrom};
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};

/// What a finished blocking operation reports.
enum Operation {
    Read(io::Result<usize>),
    Write(io::Result<()>),
    Seek(io::Result<u64>),
}

enum State {
    Idle(Option<Buf>),
    Busy(JoinHandle<(Operation, Buf)>),
}

struct Inner {
    state: State,
    /// The error of a background write, reported by the next call.
    last_write_err: Option<io::ErrorKind>,
    /// The position the last seek reported.
    pos: u64,
}

/// A reference to an open file on the filesystem.
///
/// This is a specialized version of [`std::fs::File`] for usage from the
/// async context: reads and writes go through [`AsyncReadExt`] and
/// [`AsyncWriteExt`], seeks through [`AsyncSeekExt`].
///
/// A file is closed when the value is dropped; a write that is still in
/// flight then finishes in the background, and its error is lost. Call
/// [`flush`] (or [`sync_all`] for durability) before dropping a file you
/// wrote.
///
/// ```
/// use volt_runtime::fs::File;
/// use volt_runtime::io::{AsyncReadExt, AsyncWriteExt};
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> std::io::Result<()> {
/// let path = std::env::temp_dir().join(format!("volt-file-doc-{}", std::process::id()));
/// let mut file = File::create(&path).await?;
/// file.write_all(b"hello, world!").await?;
/// file.sync_all().await?;
///
/// let mut contents = String::new();
/// File::open(&path).await?.read_to_string(&mut contents).await?;
/// assert_eq!(contents, "hello, world!");
/// # volt_runtime::fs::remove_file(&path).await?;
/// # Ok(())
/// # }
/// ```
///
/// [`AsyncReadExt`]: crate::io::AsyncReadExt
/// [`AsyncWriteExt`]: crate::io::AsyncWriteExt
/// [`AsyncSeekExt`]: crate::io::AsyncSeekExt
/// [`flush`]: crate::io::AsyncWriteExt::flush
/// [`sync_all`]: File::sync_all
pub struct File {
    std: Arc<std::fs::File>,
    inner: Mutex<Inner>,
    max_buf_size: usize,
}

impl Inner {
    /// Waits for the operation in flight (there must be one) and goes back
    /// to idle, with the operation's buffer. If the blocking task failed
    /// (it panicked, or the pool was shut down and cancelled it), the
    /// buffer went with it: idle with a fresh one, and the error.
    fn poll_busy(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Operation>> {
        let State::Busy(rx) = &mut self.state else {
            unreachable!("poll_busy without an operation in flight");
        };
        let res = ready!(Pin::new(rx).poll(cx));
        // Never leave a finished handle in place: polling it again panics.
        Poll::Ready(match res {
            Ok((op, buf)) => {
                self.state = State::Idle(Some(buf));
                Ok(op)
            }
            Err(_) => {
                self.state = State::Idle(Some(Buf::default()));
                Err(join_error())
            }
        })
    }

    /// Waits for the operation in flight; records a write error.
    fn poll_complete_inflight(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if let State::Busy(_) = self.state {
            match ready!(self.poll_busy(cx)) {
                Ok(Operation::Write(Err(e))) | Err(e) => self.last_write_err = Some(e.kind()),
                Ok(Operation::Seek(Ok(pos))) => self.pos = pos,
                Ok(_) => {}
            }
        }
        Poll::Ready(())
    }

    fn take_buf(&mut self) -> Buf {
        match &mut self.state {
            State::Idle(buf) => buf.take().expect("File buffer present while idle"),
            State::Busy(_) => unreachable!("take_buf while an operation is in flight"),
        }
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Some(e) = self.last_write_err.take() {
            return Poll::Ready(Err(e.into()));
        }
        ready!(self.poll_complete_inflight(cx));
        match self.last_write_err.take() {
            Some(e) => Poll::Ready(Err(e.into())),
            None => Poll::Ready(Ok(())),
        }
    }
}

impl File {
    /// Attempts to open a file in read-only mode.
    ///
    /// # Errors
    ///
    /// The OS's error if `path` does not exist or cannot be read.
    pub async fn open(path: impl AsRef<Path>) -> io::Result<File> {
        let path = path.as_ref().to_owned();
        let std = asyncify(move || std::fs::File::open(path)).await?;
        Ok(File::from_std(std))
    }

    /// Opens a file in write-only mode, creating it if it does not exist
    /// and truncating it if it does.
    pub async fn create(path: impl AsRef<Path>) -> io::Result<File> {
        let path = path.as_ref().to_owned();
        let std = asyncify(move || std::fs::File::create(path)).await?;
        Ok(File::from_std(std))
    }

    /// Opens a file in read-write mode, creating it; fails with
    /// `AlreadyExists` if it exists (atomically).
    pub async fn create_new(path: impl AsRef<Path>) -> io::Result<File> {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .await
    }

    /// Returns a new [`OpenOptions`] object.
    pub fn options() -> OpenOptions {
        OpenOptions::new()
    }

    /// Converts a [`std::fs::File`] to a [`File`].
    pub fn from_std(std: std::fs::File) -> File {
        File {
            std: Arc::new(std),
            inner: Mutex::new(Inner {
                state: State::Idle(Some(Buf::default())),
                last_write_err: None,
                pos: 0,
            }),
            max_buf_size: MAX_BUF,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for the operation in flight and steps the OS position back
    /// over read-ahead bytes, so the std file is where the caller thinks.
    async fn settle(&self) -> io::Result<()> {
        poll_fn(|cx| self.lock().poll_flush(cx)).await?;
        let discarded = {
            let mut inner = self.lock();
            let mut buf = inner.take_buf();
            let n = buf.discard_read();
            inner.state = State::Idle(Some(buf));
            n
        };
        if discarded != 0 {
            let std = self.std.clone();
            asyncify(move || (&*std).seek(SeekFrom::Current(discarded))).await?;
        }
        Ok(())
    }

    /// Runs `f` with the std file on the blocking pool, after the
    /// operation in flight.
    async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&std::fs::File) -> io::Result<T> + Send + 'static,
    ) -> io::Result<T> {
        self.settle().await?;
        let std = self.std.clone();
        asyncify(move || f(&std)).await
    }

    /// Attempts to sync all OS-internal metadata to disk, after any write
    /// in flight.
    pub async fn sync_all(&self) -> io::Result<()> {
        self.run(|f| f.sync_all()).await
    }

    /// Like [`sync_all`](File::sync_all), except that it might not
    /// synchronize file metadata to the filesystem.
    pub async fn sync_data(&self) -> io::Result<()> {
        self.run(|f| f.sync_data()).await
    }

    /// Truncates or extends the underlying file, updating the size of this
    /// file to become `size`. The cursor does not move.
    pub async fn set_len(&self, size: u64) -> io::Result<()> {
        self.run(move |f| f.set_len(size)).await
    }

    /// Queries metadata about the underlying file.
    pub async fn metadata(&self) -> io::Result<Metadata> {
        let std = self.std.clone();
        asyncify(move || std.metadata()).await
    }

    /// Creates a new `File` instance that shares the same underlying file
    /// handle (and cursor) as the existing `File` instance.
    pub async fn try_clone(&self) -> io::Result<File> {
        let std = self.std.clone();
        let std = asyncify(move || std.try_clone()).await?;
        let mut file = File::from_std(std);
        file.max_buf_size = self.max_buf_size;
        Ok(file)
    }

    /// Destructures `File` into a [`std::fs::File`], after the operation
    /// in flight has finished.
    pub async fn into_std(self) -> std::fs::File {
        // A write error here has nowhere to go, as in tokio.
        let _ = self.settle().await;
        Arc::try_unwrap(self.std).expect("Arc::try_unwrap failed")
    }

    /// Tries to immediately destructure `File` into a
    /// [`std::fs::File`]; gives the `File` back if an operation is in
    /// flight.
    #[allow(clippy::result_large_err)]
    pub fn try_into_std(mut self) -> Result<std::fs::File, Self> {
        match Arc::try_unwrap(self.std) {
            Ok(file) => Ok(file),
            Err(std) => {
                self.std = std;
                Err(self)
            }
        }
    }

    /// Changes the permissions on the underlying file.
    pub async fn set_permissions(&self, perm: Permissions) -> io::Result<()> {
        let std = self.std.clone();
        asyncify(move || std.set_permissions(perm)).await
    }

    /// Changes the timestamps of the underlying file (those set in
    /// `times`; the others are left as they are).
    ///
    /// ```no_run
    /// use volt_runtime::fs::{File, FileTimes};
    /// use std::time::SystemTime;
    ///
    /// # async fn dox() -> std::io::Result<()> {
    /// let file = File::options().write(true).open("foo.txt").await?;
    /// file.set_times(FileTimes::new().set_modified(SystemTime::UNIX_EPOCH)).await?;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// The OS's error (for example if the file is not writable, or the
    /// platform does not support one of the timestamps).
    pub async fn set_times(&self, times: FileTimes) -> io::Result<()> {
        let std = self.std.clone();
        asyncify(move || std.set_times(times.into_std())).await
    }

    /// Changes the modification time of the underlying file: a shorthand
    /// for [`set_times`](File::set_times) with only `modified` set.
    ///
    /// # Errors
    ///
    /// As [`set_times`](File::set_times).
    pub async fn set_modified(&self, time: std::time::SystemTime) -> io::Result<()> {
        self.set_times(FileTimes::new().set_modified(time)).await
    }

    /// Sets the largest chunk one blocking read or write moves (default
    /// 2 MiB).
    ///
    /// # Panics
    ///
    /// If `max_buf_size` is 0 (tokio's message).
    #[track_caller]
    pub fn set_max_buf_size(&mut self, max_buf_size: usize) {
        assert!(max_buf_size > 0, "`max_buf_size` must be greater than 0");
        self.max_buf_size = max_buf_size;
    }

    /// The largest chunk one blocking read or write moves.
    pub fn max_buf_size(&self) -> usize {
        self.max_buf_size
    }
}

impl AsyncRead for File {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        dst: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        let inner = me.inner.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = inner.last_write_err.take() {
            return Poll::Ready(Err(e.into()));
        }
        loop {
            match &mut inner.state {
                State::Idle(Some(buf)) if !buf.is_empty() => {
                    buf.copy_to(dst);
                    return Poll::Ready(Ok(()));
                }
                // Nothing asked for: no blocking read (which would also
                // look like EOF).
                State::Idle(_) if dst.remaining() == 0 => return Poll::Ready(Ok(())),
                State::Idle(_) => {
                    let mut buf = inner.take_buf();
                    let std = me.std.clone();
                    let max = dst.remaining().min(me.max_buf_size);
                    inner.state = State::Busy(spawn_blocking(move || {
                        let res = buf.read_from(&mut &*std, max);
                        (Operation::Read(res), buf)
                    }));
                }
                State::Busy(_) => match ready!(inner.poll_busy(cx))? {
                    Operation::Read(res) => {
                        if let State::Idle(Some(buf)) = &mut inner.state {
                            buf.copy_to(dst);
                        }
                        return Poll::Ready(res.map(drop));
                    }
                    Operation::Write(res) => res?,
                    Operation::Seek(res) => {
                        if let Ok(pos) = res {
                            inner.pos = pos;
                        }
                    }
                },
            }
        }
    }
}

impl AsyncWrite for File {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        src: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_vectored(cx, &[io::IoSlice::new(src)])
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    /// One blocking write of as many of the slices as fit in
    /// `max_buf_size`.
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        let inner = me.inner.get_mut().unwrap_or_else(|e| e.into_inner());
        ready!(inner.poll_flush(cx))?;
        let mut buf = inner.take_buf();
        // Read-ahead bytes were not consumed: write where the caller is.
        let back = buf.discard_read();
        let n = buf.copy_from_slices(bufs, me.max_buf_size);
        let std = me.std.clone();
        inner.state = State::Busy(spawn_blocking(move || {
            let res = if back != 0 {
                (&*std).seek(SeekFrom::Current(back)).map(drop)
            } else {
                Ok(())
            };
            let res = res.and_then(|()| buf.write_to(&mut &*std));
            (Operation::Write(res), buf)
        }));
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let inner = self
            .get_mut()
            .inner
            .get_mut()
            .unwrap_or_else(|e| e.into_inner());
        inner.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush(cx)
    }
}

impl AsyncSeek for File {
    fn start_seek(self: Pin<&mut Self>, mut pos: SeekFrom) -> io::Result<()> {
        let me = self.get_mut();
        let inner = me.inner.get_mut().unwrap_or_else(|e| e.into_inner());
        if let State::Busy(_) = inner.state {
            return Err(io::Error::other(
                "other file operation is pending, call poll_complete before start_seek",
            ));
        }
        let mut buf = inner.take_buf();
        let back = buf.discard_read();
        if let SeekFrom::Current(offset) = &mut pos {
            *offset += back;
        }
        let std = me.std.clone();
        inner.state = State::Busy(spawn_blocking(move || {
            let res = (&*std).seek(pos);
            (Operation::Seek(res), buf)
        }));
        Ok(())
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let inner = self
            .get_mut()
            .inner
            .get_mut()
            .unwrap_or_else(|e| e.into_inner());
        loop {
            match &mut inner.state {
                State::Idle(_) => return Poll::Ready(Ok(inner.pos)),
                State::Busy(_) => match ready!(inner.poll_busy(cx))? {
                    Operation::Seek(res) => {
                        if let Ok(pos) = res {
                            inner.pos = pos;
                        }
                        return Poll::Ready(res);
                    }
                    Operation::Write(Err(e)) => inner.last_write_err = Some(e.kind()),
                    _ => {}
                },
            }
        }
    }
}

impl From<std::fs::File> for File {
    fn from(std: std::fs::File) -> Self {
        Self::from_std(std)
    }
}

impl From<std::os::fd::OwnedFd> for File {
    /// Takes ownership of an open file descriptor (as
    /// `std::fs::File::from(fd)` then [`File::from_std`]).
    fn from(fd: std::os::fd::OwnedFd) -> Self {
        Self::from_std(std::fs::File::from(fd))
    }
}

impl fmt::Debug for File {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The path the user wrote: `tokio::fs::File` through the compat
        // crate (feature `compat-names`), as tokio prints it.
        let name = if cfg!(feature = "compat-names") {
            "tokio::fs::File"
        } else {
            "volt::fs::File"
        };
        fmt.debug_struct(name).field("std", &self.std).finish()
    }
}

#[cfg(unix)]
impl std::os::unix::io::AsRawFd for File {
    fn as_raw_fd(&self) -> std::os::unix::io::RawFd {
        self.std.as_raw_fd()
    }
}

#[cfg(unix)]
impl std::os::unix::io::AsFd for File {
    fn as_fd(&self) -> std::os::unix::io::BorrowedFd<'_> {
        use std::os::unix::io::AsRawFd;
        // SAFETY: the descriptor is owned by `self.std`, which lives as
        // long as `self` (the borrow's lifetime).
        unsafe { std::os::unix::io::BorrowedFd::borrow_raw(self.std.as_raw_fd()) }
    }
}

#[cfg(unix)]
impl std::os::unix::io::FromRawFd for File {
    unsafe fn from_raw_fd(fd: std::os::unix::io::RawFd) -> Self {
        // SAFETY: the caller guarantees `fd` is an open, owned descriptor.
        std::fs::File::from(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) }).into()
    }
}
