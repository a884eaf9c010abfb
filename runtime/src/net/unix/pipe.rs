//! Unix pipe types: tokio's `net::unix::pipe`.
//!
//! A pipe end is a mio pipe registered with the I/O driver for its one
//! direction only (a [`Sender`] for writability, a [`Receiver`] for
//! readability), so a reader and a writer never share a readiness slot.
//! The ends come from [`pipe`] (an anonymous pipe), from a FIFO opened with
//! [`OpenOptions`], or from a descriptor the caller already owns
//! (`from_file`, `from_owned_fd`, which check that it is a pipe opened for
//! the right direction and make it non-blocking; the `_unchecked` variants
//! trust the caller). `into_blocking_fd`/`into_nonblocking_fd` deregister
//! the end and hand the descriptor back.
//!
//! Error messages and kinds are tokio's: "not a pipe", "not in O_WRONLY or
//! O_RDWR access mode", "not in O_RDONLY or O_RDWR access mode", all
//! `InvalidInput`.

use crate::io::{AsyncRead, AsyncWrite, Interest, ReadBuf, Ready};
use crate::io_driver::PollEvented;

use mio::unix::pipe as mio_pipe;
use std::fs::File;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Creates a new anonymous Unix pipe, both ends registered with the current
/// runtime.
///
/// To talk to a child process, `Stdio::piped()` with
/// [`process::Command`](crate::process::Command) is usually simpler.
///
/// ```
/// use volt_runtime::io::{AsyncReadExt, AsyncWriteExt};
/// use volt_runtime::net::unix::pipe;
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> std::io::Result<()> {
/// let (mut tx, mut rx) = pipe::pipe()?;
/// tx.write_all(b"hello").await?;
/// drop(tx);
/// let mut got = String::new();
/// rx.read_to_string(&mut got).await?;
/// assert_eq!(got, "hello");
/// # Ok(())
/// # }
/// ```
///
/// # Errors
///
/// The OS's error if the pipe cannot be created.
///
/// # Panics
///
/// Outside a runtime with I/O enabled.
#[track_caller]
pub fn pipe() -> io::Result<(Sender, Receiver)> {
    let (tx, rx) = mio_pipe::new()?;
    Ok((Sender::from_mio(tx)?, Receiver::from_mio(rx)?))
}

/// Options and flags which can be used to configure how a FIFO file is
/// opened: call [`new`](Self::new), set options, then
/// [`open_receiver`](Self::open_receiver) or
/// [`open_sender`](Self::open_sender) with the FIFO's path.
///
/// ```no_run
/// use volt_runtime::net::unix::pipe;
///
/// # fn dox() -> std::io::Result<()> {
/// const FIFO_NAME: &str = "path/to/a/fifo";
/// let rx = pipe::OpenOptions::new().open_receiver(FIFO_NAME)?;
/// let tx = pipe::OpenOptions::new().open_sender(FIFO_NAME)?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct OpenOptions {
    #[cfg(target_os = "linux")]
    read_write: bool,
    unchecked: bool,
}

impl OpenOptions {
    /// Creates a blank new set of options, all `false`.
    pub fn new() -> OpenOptions {
        OpenOptions {
            #[cfg(target_os = "linux")]
            read_write: false,
            unchecked: false,
        }
    }

    /// Opens the FIFO in read-write access mode (defined only on Linux).
    ///
    /// A [`Sender`] opened this way does not fail with `ENXIO` when no
    /// reader has the FIFO open yet, but data it wrote is lost if it is
    /// dropped before a reader opens the FIFO. A [`Receiver`] opened this
    /// way holds a writing end too, so it never sees end-of-file: a read
    /// waits for the next writer instead (so `read_to_end` may wait
    /// forever).
    #[cfg(target_os = "linux")]
    pub fn read_write(&mut self, value: bool) -> &mut Self {
        self.read_write = value;
        self
    }

    /// Skips the check that the opened file is a FIFO.
    pub fn unchecked(&mut self, value: bool) -> &mut Self {
        self.unchecked = value;
        self
    }

    /// Opens the FIFO at `path` for reading and registers it with the
    /// current runtime.
    ///
    /// # Errors
    ///
    /// `InvalidInput` ("not a pipe") if the file is not a FIFO (unless
    /// [`unchecked`](Self::unchecked)); the OS's error otherwise.
    ///
    /// # Panics
    ///
    /// Outside a runtime with I/O enabled.
    #[track_caller]
    pub fn open_receiver<P: AsRef<Path>>(&self, path: P) -> io::Result<Receiver> {
        let file = self.open(path.as_ref(), PipeEnd::Receiver)?;
        Receiver::from_file_unchecked(file)
    }

    /// Opens the FIFO at `path` for writing and registers it with the
    /// current runtime.
    ///
    /// # Errors
    ///
    /// `InvalidInput` ("not a pipe") if the file is not a FIFO (unless
    /// [`unchecked`](Self::unchecked)); `ENXIO` if no process has the FIFO
    /// open for reading (unless [`read_write`](Self::read_write)); the OS's
    /// error otherwise.
    ///
    /// # Panics
    ///
    /// Outside a runtime with I/O enabled.
    #[track_caller]
    pub fn open_sender<P: AsRef<Path>>(&self, path: P) -> io::Result<Sender> {
        let file = self.open(path.as_ref(), PipeEnd::Sender)?;
        Sender::from_file_unchecked(file)
    }

    fn open(&self, path: &Path, end: PipeEnd) -> io::Result<File> {
        let mut options = std::fs::OpenOptions::new();
        options
            .read(end == PipeEnd::Receiver)
            .write(end == PipeEnd::Sender)
            .custom_flags(libc::O_NONBLOCK);
        #[cfg(target_os = "linux")]
        if self.read_write {
            options.read(true).write(true);
        }
        let file = options.open(path)?;
        if !self.unchecked && !is_pipe(file.as_fd())? {
            return Err(not_a_pipe());
        }
        Ok(file)
    }
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions::new()
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum PipeEnd {
    Sender,
    Receiver,
}

/// The methods both ends share: construction from a descriptor (checked
/// or not), `ready`, `try_io`, and giving the descriptor back. `$dir`,
/// `$verb` and `$mode` word the docs and the access-mode check.
macro_rules! pipe_end {
    (
        $end:ident,
        $mio:ty,
        $interest:expr,
        $which:expr,
        $dir:literal,
        $verb:literal,
        $mode:literal,
        $states:literal
    ) => {
        impl $end {
            #[track_caller]
            pub(crate) fn from_mio(end: $mio) -> io::Result<$end> {
                let io = PollEvented::new_with_interest(end, $interest)?;
                Ok($end { io })
            }

            #[doc = concat!("Creates a `", stringify!($end), "` from a [`File`] that is a pipe (or FIFO)")]
            #[doc = concat!("opened for ", $dir, "; makes it non-blocking.")]
            ///
            /// # Errors
            ///
            #[doc = concat!("`InvalidInput` if it is not a pipe or has no ", $verb, " access.")]
            ///
            /// # Panics
            ///
            /// Outside a runtime with I/O enabled.
            #[track_caller]
            pub fn from_file(file: File) -> io::Result<$end> {
                $end::from_owned_fd(file.into())
            }

            #[doc = concat!("Creates a `", stringify!($end), "` from an [`OwnedFd`] that is a pipe (or FIFO)")]
            #[doc = concat!("opened for ", $dir, "; makes it non-blocking.")]
            ///
            /// # Errors
            ///
            #[doc = concat!("`InvalidInput` (\"not a pipe\", \"not in ", $mode, " or O_RDWR access")]
            /// mode"), or the OS's error.
            ///
            /// # Panics
            ///
            /// Outside a runtime with I/O enabled.
            #[track_caller]
            pub fn from_owned_fd(owned_fd: OwnedFd) -> io::Result<$end> {
                check_pipe_end(owned_fd.as_fd(), $which)?;
                $end::from_owned_fd_unchecked(owned_fd)
            }

            #[doc = concat!("Creates a `", stringify!($end), "` from a [`File`] without checking it: the")]
            #[doc = concat!("caller makes sure it is the ", $dir, " end of a pipe, in non-blocking mode.")]
            ///
            /// # Panics
            ///
            /// Outside a runtime with I/O enabled.
            #[track_caller]
            pub fn from_file_unchecked(file: File) -> io::Result<$end> {
                $end::from_owned_fd_unchecked(file.into())
            }

            #[doc = concat!("Creates a `", stringify!($end), "` from an [`OwnedFd`] without checking it: the")]
            #[doc = concat!("caller makes sure it is the ", $dir, " end of a pipe, in non-blocking mode.")]
            ///
            /// # Panics
            ///
            /// Outside a runtime with I/O enabled.
            #[track_caller]
            pub fn from_owned_fd_unchecked(owned_fd: OwnedFd) -> io::Result<$end> {
                $end::from_mio(<$mio>::from(owned_fd))
            }

            #[doc = concat!("Waits for any of the requested ready states (", $states, ").")]
            #[doc = concat!("The answer may be a false positive (the ", $verb, " then fails with")]
            /// `WouldBlock`) or an empty set: check it.
            ///
            /// # Cancel safety
            ///
            /// This method is cancel safe. Once a readiness event occurs, the
            /// method will continue to return immediately until the readiness
            #[doc = concat!("event is consumed by an attempt to ", $verb, " that fails with `WouldBlock`")]
            /// or `Poll::Pending`.
            pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
                let event = self.io.registration().readiness(interest).await?;
                Ok(event.ready)
            }

            #[doc = concat!("Tries a user-provided ", $verb, " operation once: if the pipe looks")]
            /// ready, runs `f` (which should make the syscall itself and
            /// return `WouldBlock` if it would block, which clears the
            /// readiness); otherwise returns `WouldBlock` without running it.
            pub fn try_io<R>(&self, f: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
                self.io
                    .registration()
                    .try_io($interest, || self.io.try_io(f))
            }

            /// Deregisters the pipe end and returns its descriptor in
            /// blocking mode.
            pub fn into_blocking_fd(self) -> io::Result<OwnedFd> {
                let fd = self.into_nonblocking_fd()?;
                set_nonblocking(fd.as_fd(), false)?;
                Ok(fd)
            }

            /// Deregisters the pipe end and returns its descriptor, still in
            /// non-blocking mode.
            pub fn into_nonblocking_fd(self) -> io::Result<OwnedFd> {
                Ok(OwnedFd::from(self.io.into_inner()?))
            }
        }

        impl AsRawFd for $end {
            fn as_raw_fd(&self) -> RawFd {
                self.io.as_raw_fd()
            }
        }

        impl AsFd for $end {
            fn as_fd(&self) -> BorrowedFd<'_> {
                self.io.as_fd()
            }
        }
    };
}

/// Writing end of a Unix pipe.
///
/// Made by [`pipe`], by [`OpenOptions::open_sender`] from a FIFO, or from a
/// descriptor with [`from_file`](Self::from_file) /
/// [`from_owned_fd`](Self::from_owned_fd). Opening a FIFO for writing fails
/// with `NotFound` (no such file), `InvalidInput` (not a FIFO) or `ENXIO`
/// (no reader has it open yet: retry later, or use
/// [`OpenOptions::read_write`] on Linux).
///
/// A write of at most `PIPE_BUF` bytes (4096 on Linux), including a
/// vectored one, is atomic: [`try_write`](Self::try_write) writes it whole
/// or fails with `WouldBlock`.
#[derive(Debug)]
pub struct Sender {
    io: PollEvented<mio_pipe::Sender>,
}

pipe_end!(
    Sender,
    mio_pipe::Sender,
    Interest::WRITABLE,
    PipeEnd::Sender,
    "writing",
    "write",
    "O_WRONLY",
    "[`Ready::WRITABLE`], [`Ready::WRITE_CLOSED`]"
);

impl Sender {
    crate::net::common::write_readiness_methods!("pipe");
}

impl AsyncWrite for Sender {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// Reading end of a Unix pipe.
///
/// Made by [`pipe`], by [`OpenOptions::open_receiver`] from a FIFO, or from
/// a descriptor with [`from_file`](Self::from_file) /
/// [`from_owned_fd`](Self::from_owned_fd). A read returns end-of-file (or
/// `read_exact` fails with `UnexpectedEof`) once every writing end is
/// closed; reopen the FIFO to wait for the next writer, or open it with
/// [`OpenOptions::read_write`] on Linux to never see end-of-file.
#[derive(Debug)]
pub struct Receiver {
    io: PollEvented<mio_pipe::Receiver>,
}

pipe_end!(
    Receiver,
    mio_pipe::Receiver,
    Interest::READABLE,
    PipeEnd::Receiver,
    "reading",
    "read",
    "O_RDONLY",
    "[`Ready::READABLE`], [`Ready::READ_CLOSED`]"
);

impl Receiver {
    crate::net::common::read_readiness_methods!("pipe");
}

impl AsyncRead for Receiver {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.io.poll_read(cx, buf)
    }
}

fn not_a_pipe() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "not a pipe")
}

/// Whether `fd` is a pipe or FIFO (`fstat`'s `S_IFIFO`).
fn is_pipe(fd: BorrowedFd<'_>) -> io::Result<bool> {
    let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `fd` is open for the borrow; `fstat` fills `stat` on success.
    if unsafe { libc::fstat(fd.as_raw_fd(), stat.as_mut_ptr()) } == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fstat` succeeded, so it initialized `stat`.
    let mode = unsafe { stat.assume_init() }.st_mode;
    Ok(mode & libc::S_IFMT == libc::S_IFIFO)
}

/// `fcntl(F_GETFL)`.
fn file_flags(fd: BorrowedFd<'_>) -> io::Result<libc::c_int> {
    // SAFETY: `fd` is open for the borrow; F_GETFL reads its status flags.
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
    if flags == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(flags)
    }
}

/// Sets or clears `O_NONBLOCK`.
fn set_nonblocking(fd: BorrowedFd<'_>, nonblocking: bool) -> io::Result<()> {
    let flags = file_flags(fd)?;
    let new = if nonblocking {
        flags | libc::O_NONBLOCK
    } else {
        flags & !libc::O_NONBLOCK
    };
    // SAFETY: `fd` is open for the borrow; F_SETFL only changes its flags.
    if new != flags && unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, new) } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The checks of `from_owned_fd`: a pipe, opened for `end`'s direction;
/// then makes it non-blocking.
fn check_pipe_end(fd: BorrowedFd<'_>, end: PipeEnd) -> io::Result<()> {
    if !is_pipe(fd)? {
        return Err(not_a_pipe());
    }
    let mode = file_flags(fd)? & libc::O_ACCMODE;
    let (ok, msg) = match end {
        PipeEnd::Sender => (
            mode == libc::O_WRONLY || mode == libc::O_RDWR,
            "not in O_WRONLY or O_RDWR access mode",
        ),
        PipeEnd::Receiver => (
            mode == libc::O_RDONLY || mode == libc::O_RDWR,
            "not in O_RDONLY or O_RDWR access mode",
        ),
    };
    if !ok {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, msg));
    }
    set_nonblocking(fd, true)
}
