//! Asynchronous IO structures specific to Unix-like operating systems.
//!
//! [`AsyncFd`] registers any file descriptor with the runtime's I/O driver
//! and lets tasks wait for it to become readable or writable. The
//! readiness protocol (ticks, per-direction waiters) is the driver's; see
//! `io_driver`.

use crate::io::{Interest, Ready};
use crate::io_driver::{ReadyEvent, Registration};

use std::error::Error;
use std::fmt;
use std::io;
use std::os::unix::io::{AsRawFd, RawFd};
use std::task::{Context, Poll, ready};

/// Associates an IO object backed by a Unix file descriptor with the
/// runtime's reactor, allowing for readiness to be polled. The file
/// descriptor must be of a type that can be used with the OS polling
/// facilities (ie, `poll`, `epoll`, `kqueue`, etc), such as a network
/// socket or pipe, and the file descriptor must have the nonblocking mode
/// set to true.
///
/// Creating an `AsyncFd` registers the file descriptor with the current
/// runtime's reactor; dropping it (or [`into_inner`]) deregisters it. The
/// `AsyncFd` takes ownership of an arbitrary object to represent the IO
/// object. It is intended that the inner object will handle closing the
/// file descriptor when it is dropped, avoiding resource leaks and
/// ensuring that the `AsyncFd` can clean up the registration before
/// closing the file descriptor.
///
/// Readiness is edge-triggered: once a guard says the fd is readable, the
/// caller must drain it until `WouldBlock` and then call
/// [`clear_ready`](AsyncFdReadyGuard::clear_ready) (`try_io` does both).
///
/// # Examples
///
/// ```no_run
/// use std::os::unix::net::UnixStream;
/// use volt_runtime::io::unix::AsyncFd;
///
/// # async fn dox() -> std::io::Result<()> {
/// let (a, _b) = UnixStream::pair()?;
/// a.set_nonblocking(true)?;
/// // SAFETY: `a` owns its descriptor, which stays open while the
/// // `AsyncFd` owns `a`.
/// let fd = unsafe { AsyncFd::register(a)? };
/// let _guard = fd.writable().await?;
/// # Ok(())
/// # }
/// ```
///
/// [`into_inner`]: AsyncFd::into_inner
pub struct AsyncFd<T: AsRawFd> {
    registration: Registration,
    // `None` only while `into_inner` takes it out.
    inner: Option<T>,
}

/// Represents an IO-ready event detected on a particular file descriptor
/// that has not yet been acknowledged. This is a `must_use` structure to
/// help ensure that you do not forget to explicitly clear (or not clear)
/// the event.
#[must_use = "You must explicitly choose whether to clear the readiness state by calling a method on ReadyGuard"]
pub struct AsyncFdReadyGuard<'a, T: AsRawFd> {
    async_fd: &'a AsyncFd<T>,
    event: Option<ReadyEvent>,
}

/// Represents an IO-ready event detected on a particular file descriptor
/// that has not yet been acknowledged (the `&mut` flavour).
#[must_use = "You must explicitly choose whether to clear the readiness state by calling a method on ReadyGuard"]
pub struct AsyncFdReadyMutGuard<'a, T: AsRawFd> {
    async_fd: &'a mut AsyncFd<T>,
    event: Option<ReadyEvent>,
}

/// The error of [`AsyncFdReadyGuard::try_io`]: the operation would have
/// blocked, and the readiness was cleared.
#[derive(Debug)]
pub struct TryIoError(());

/// Error returned by [`register`] or [`register_with_interest`]: the
/// registration failed, and the object is given back.
///
/// [`register`]: AsyncFd::register
/// [`register_with_interest`]: AsyncFd::register_with_interest
pub struct AsyncFdRegisterError<T> {
    inner: T,
    cause: io::Error,
}

/// Deprecated. Use [`AsyncFdRegisterError`] instead.
#[doc(hidden)]
#[deprecated(note = "use `AsyncFdRegisterError` instead")]
pub type AsyncFdTryNewError<T> = AsyncFdRegisterError<T>;

impl<T> AsyncFdRegisterError<T> {
    /// Returns the original object passed to [`AsyncFd::register`] or
    /// [`AsyncFd::register_with_interest`] alongside the error that caused
    /// these functions to fail.
    pub fn into_parts(self) -> (T, io::Error) {
        (self.inner, self.cause)
    }
}

impl<T> fmt::Display for AsyncFdRegisterError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.cause, f)
    }
}

impl<T> fmt::Debug for AsyncFdRegisterError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.cause, f)
    }
}

impl<T> Error for AsyncFdRegisterError<T> {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.cause)
    }
}

impl<T> From<AsyncFdRegisterError<T>> for io::Error {
    fn from(value: AsyncFdRegisterError<T>) -> Self {
        value.cause
    }
}

const ALL_INTEREST: Interest = Interest::READABLE.add(Interest::WRITABLE);

impl<T: AsRawFd> AsyncFd<T> {
    /// Creates an `AsyncFd` backed by (and taking ownership of) an object
    /// implementing [`AsRawFd`], registered for readability and
    /// writability. On failure, the object is given back inside the error.
    ///
    /// # Safety
    ///
    /// The file descriptor returned by `inner.as_raw_fd()` must be a
    /// valid, open file descriptor, and it must remain open and refer to
    /// the same underlying file description for the entire lifetime of the
    /// `AsyncFd` (until it is dropped, `into_inner` is called, or it is
    /// forgotten); every call to `inner.as_raw_fd()` while owned by this
    /// `AsyncFd` must return that same descriptor. (tokio 1.54 made this
    /// constructor `unsafe` for I/O safety; volt follows.)
    ///
    /// # Panics
    ///
    /// This function panics if there is no current reactor set, or if the
    /// `rt` feature flag is not enabled.
    #[track_caller]
    pub unsafe fn register(inner: T) -> Result<Self, AsyncFdRegisterError<T>> {
        // SAFETY: forwarded; the caller upholds the contract.
        unsafe { Self::register_with_interest(inner, ALL_INTEREST) }
    }

    /// Creates an `AsyncFd` backed by (and taking ownership of) an object
    /// implementing [`AsRawFd`], with a particular [`Interest`]. On
    /// failure, the object is given back inside the error.
    ///
    /// # Safety
    ///
    /// As [`register`](AsyncFd::register).
    ///
    /// # Panics
    ///
    /// This function panics if there is no current reactor set.
    #[track_caller]
    pub unsafe fn register_with_interest(
        inner: T,
        interest: Interest,
    ) -> Result<Self, AsyncFdRegisterError<T>> {
        let fd = inner.as_raw_fd();
        match Registration::new_with_interest(&mut mio::unix::SourceFd(&fd), interest) {
            Ok(registration) => Ok(AsyncFd {
                registration,
                inner: Some(inner),
            }),
            Err(cause) => Err(AsyncFdRegisterError { inner, cause }),
        }
    }

    /// Creates an `AsyncFd` registered for readability and writability.
    #[track_caller]
    #[deprecated(
        note = "unsound due to lack of I/O safety; use `AsyncFd::register` instead (see https://github.com/tokio-rs/tokio/pull/8587)"
    )]
    pub fn new(inner: T) -> io::Result<Self> {
        // SAFETY: not guaranteed: this is the deprecated, unchecked API,
        // kept for compatibility exactly as tokio keeps it.
        unsafe { Ok(Self::register(inner)?) }
    }

    /// Creates an `AsyncFd` with a particular [`Interest`].
    #[track_caller]
    #[deprecated(
        note = "unsound due to lack of I/O safety; use `AsyncFd::register_with_interest` instead (see https://github.com/tokio-rs/tokio/pull/8587)"
    )]
    pub fn with_interest(inner: T, interest: Interest) -> io::Result<Self> {
        // SAFETY: not guaranteed: the deprecated, unchecked API (as tokio).
        unsafe { Ok(Self::register_with_interest(inner, interest)?) }
    }

    /// Creates an `AsyncFd`, giving the object back on failure.
    #[track_caller]
    #[deprecated(
        note = "unsound due to lack of I/O safety; use `AsyncFd::register` instead (see https://github.com/tokio-rs/tokio/pull/8587)"
    )]
    pub fn try_new(inner: T) -> Result<Self, AsyncFdRegisterError<T>> {
        // SAFETY: not guaranteed: the deprecated, unchecked API (as tokio).
        unsafe { Self::register(inner) }
    }

    /// Creates an `AsyncFd` with a particular [`Interest`], giving the
    /// object back on failure.
    #[track_caller]
    #[deprecated(
        note = "unsound due to lack of I/O safety; use `AsyncFd::register_with_interest` instead (see https://github.com/tokio-rs/tokio/pull/8587)"
    )]
    pub fn try_with_interest(
        inner: T,
        interest: Interest,
    ) -> Result<Self, AsyncFdRegisterError<T>> {
        // SAFETY: not guaranteed: the deprecated, unchecked API (as tokio).
        unsafe { Self::register_with_interest(inner, interest) }
    }

    /// Returns a shared reference to the backing object of this
    /// [`AsyncFd`].
    #[inline]
    pub fn get_ref(&self) -> &T {
        self.inner.as_ref().expect("inner taken")
    }

    /// Returns a mutable reference to the backing object of this
    /// [`AsyncFd`].
    #[inline]
    pub fn get_mut(&mut self) -> &mut T {
        self.inner.as_mut().expect("inner taken")
    }

    fn take_inner(&mut self) -> Option<T> {
        let inner = self.inner.take()?;
        let fd = inner.as_raw_fd();
        let _ = self.registration.deregister(&mut mio::unix::SourceFd(&fd));
        Some(inner)
    }

    /// Deregisters this file descriptor and returns ownership of the
    /// backing object.
    pub fn into_inner(mut self) -> T {
        self.take_inner().expect("inner taken")
    }

    /// Polls for read readiness.
    ///
    /// If the file descriptor is not currently ready for reading, this
    /// method will store a clone of the [`Waker`] from the provided
    /// [`Context`]. When the file descriptor becomes ready for reading,
    /// [`Waker::wake`] will be called. Only the waker of the most recent
    /// call is woken.
    ///
    /// [`Waker`]: std::task::Waker
    /// [`Waker::wake`]: std::task::Waker::wake
    pub fn poll_read_ready<'a>(
        &'a self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'a, T>>> {
        let event = ready!(self.registration.poll_read_ready(cx))?;
        Poll::Ready(Ok(AsyncFdReadyGuard {
            async_fd: self,
            event: Some(event),
        }))
    }

    /// Polls for read readiness (the `&mut` flavour).
    pub fn poll_read_ready_mut<'a>(
        &'a mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyMutGuard<'a, T>>> {
        let event = ready!(self.registration.poll_read_ready(cx))?;
        Poll::Ready(Ok(AsyncFdReadyMutGuard {
            async_fd: self,
            event: Some(event),
        }))
    }

    /// Polls for write readiness (see [`poll_read_ready`]).
    ///
    /// [`poll_read_ready`]: Self::poll_read_ready
    pub fn poll_write_ready<'a>(
        &'a self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'a, T>>> {
        let event = ready!(self.registration.poll_write_ready(cx))?;
        Poll::Ready(Ok(AsyncFdReadyGuard {
            async_fd: self,
            event: Some(event),
        }))
    }

    /// Polls for write readiness (the `&mut` flavour).
    pub fn poll_write_ready_mut<'a>(
        &'a mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyMutGuard<'a, T>>> {
        let event = ready!(self.registration.poll_write_ready(cx))?;
        Poll::Ready(Ok(AsyncFdReadyMutGuard {
            async_fd: self,
            event: Some(event),
        }))
    }

    /// Waits for any of the requested ready states, returning a
    /// [`AsyncFdReadyGuard`] that must be dropped to resume polling for the
    /// requested ready states.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. Once a readiness event occurs, the
    /// method will continue to return immediately until the readiness event
    /// is consumed by an attempt to perform the I/O that returns
    /// `WouldBlock` (or `clear_ready`).
    pub async fn ready(&self, interest: Interest) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        let event = self.registration.readiness(interest).await?;
        Ok(AsyncFdReadyGuard {
            async_fd: self,
            event: Some(event),
        })
    }

    /// Waits for any of the requested ready states (the `&mut` flavour).
    ///
    /// # Cancel safety
    ///
    /// As [`ready`](Self::ready).
    pub async fn ready_mut(
        &mut self,
        interest: Interest,
    ) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        let event = self.registration.readiness(interest).await?;
        Ok(AsyncFdReadyMutGuard {
            async_fd: self,
            event: Some(event),
        })
    }

    /// Waits for the file descriptor to become readable, returning a
    /// [`AsyncFdReadyGuard`] that must be dropped to resume read-readiness
    /// polling.
    ///
    /// # Cancel safety
    ///
    /// As [`ready`](Self::ready).
    pub async fn readable(&self) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        self.ready(Interest::READABLE).await
    }

    /// Waits for the file descriptor to become readable (the `&mut`
    /// flavour).
    ///
    /// # Cancel safety
    ///
    /// As [`ready`](Self::ready).
    pub async fn readable_mut(&mut self) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        self.ready_mut(Interest::READABLE).await
    }

    /// Waits for the file descriptor to become writable, returning a
    /// [`AsyncFdReadyGuard`] that must be dropped to resume write-readiness
    /// polling.
    ///
    /// # Cancel safety
    ///
    /// As [`ready`](Self::ready).
    pub async fn writable(&self) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        self.ready(Interest::WRITABLE).await
    }

    /// Waits for the file descriptor to become writable (the `&mut`
    /// flavour).
    ///
    /// # Cancel safety
    ///
    /// As [`ready`](Self::ready).
    pub async fn writable_mut(&mut self) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        self.ready_mut(Interest::WRITABLE).await
    }

    /// Reads or writes from the file descriptor using a user-provided IO
    /// operation: waits for readiness of `interest`, runs `f`, and on
    /// `WouldBlock` clears the readiness and waits again.
    ///
    /// # Cancel safety
    ///
    /// As [`ready`](Self::ready); `f` is only run when the fd is ready.
    pub async fn async_io<R>(
        &self,
        interest: Interest,
        mut f: impl FnMut(&T) -> io::Result<R>,
    ) -> io::Result<R> {
        loop {
            let mut guard = self.ready(interest).await?;
            match guard.try_io(|fd| f(fd.get_ref())) {
                Ok(res) => return res,
                Err(TryIoError(())) => continue,
            }
        }
    }

    /// As [`async_io`](Self::async_io), with `&mut` access to the inner
    /// object.
    pub async fn async_io_mut<R>(
        &mut self,
        interest: Interest,
        mut f: impl FnMut(&mut T) -> io::Result<R>,
    ) -> io::Result<R> {
        loop {
            let mut guard = self.ready_mut(interest).await?;
            match guard.try_io(|fd| f(fd.get_mut())) {
                Ok(res) => return res,
                Err(TryIoError(())) => continue,
            }
        }
    }

    /// Tries an I/O operation once, without waiting: if the fd looks ready
    /// for `interest`, runs `f`; a `WouldBlock` from `f` clears that
    /// readiness (so the next `readable()`/`writable()` waits) and is
    /// returned. If the fd does not look ready, returns `WouldBlock`
    /// without running `f`.
    ///
    /// ```
    /// use std::io::{Read, Write};
    /// use std::os::unix::net::UnixStream;
    /// use volt_runtime::io::{Interest, unix::AsyncFd};
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime")]
    /// # async fn main() -> std::io::Result<()> {
    /// let (a, mut b) = UnixStream::pair()?;
    /// a.set_nonblocking(true)?;
    /// // SAFETY: `a` owns its descriptor for as long as the `AsyncFd` owns `a`.
    /// let fd = unsafe { AsyncFd::register(a) }?;
    /// let mut buf = [0; 4];
    /// // Nothing to read yet (or not known to be readable): WouldBlock.
    /// let err = fd.try_io(Interest::READABLE, |s| (&*s).read(&mut buf)).unwrap_err();
    /// assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
    ///
    /// b.write_all(b"ping")?;
    /// fd.readable().await?.retain_ready();
    /// assert_eq!(fd.try_io(Interest::READABLE, |s| (&*s).read(&mut buf))?, 4);
    /// # Ok(())
    /// # }
    /// ```
    pub fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce(&T) -> io::Result<R>,
    ) -> io::Result<R> {
        self.registration.try_io(interest, || f(self.get_ref()))
    }

    /// As [`try_io`](Self::try_io), with `&mut` access to the inner
    /// object.
    pub fn try_io_mut<R>(
        &mut self,
        interest: Interest,
        f: impl FnOnce(&mut T) -> io::Result<R>,
    ) -> io::Result<R> {
        let inner = self.inner.as_mut().expect("inner taken");
        self.registration.try_io(interest, || f(inner))
    }
}

impl<T: AsRawFd> AsRawFd for AsyncFd<T> {
    fn as_raw_fd(&self) -> RawFd {
        self.get_ref().as_raw_fd()
    }
}

impl<T: std::os::unix::io::AsFd + AsRawFd> std::os::unix::io::AsFd for AsyncFd<T> {
    fn as_fd(&self) -> std::os::unix::io::BorrowedFd<'_> {
        self.get_ref().as_fd()
    }
}

impl<T: fmt::Debug + AsRawFd> fmt::Debug for AsyncFd<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncFd")
            .field("inner", &self.inner)
            .finish()
    }
}

impl<T: AsRawFd> Drop for AsyncFd<T> {
    fn drop(&mut self) {
        let _ = self.take_inner();
    }
}

macro_rules! guard_methods {
    () => {
        /// Indicates to the runtime that the file descriptor is no longer
        /// ready. All internal readiness flags will be cleared, and the
        /// runtime will wait for the next edge-triggered readiness
        /// notification from the OS.
        ///
        /// This method should only be called if the I/O operation returned
        /// `WouldBlock`; clearing after a successful operation may lose an
        /// event (edge-triggered readiness).
        pub fn clear_ready(&mut self) {
            if let Some(event) = self.event.take() {
                self.async_fd.registration.clear_readiness(event);
            }
        }

        /// Indicates to the runtime that the file descriptor is no longer
        /// ready for the readiness states in `ready`. The other states stay
        /// set.
        pub fn clear_ready_matching(&mut self, ready: Ready) {
            if let Some(mut event) = self.event.take() {
                self.async_fd.registration.clear_readiness(ReadyEvent {
                    ready: event.ready & ready,
                    ..event
                });
                event.ready = event.ready - ready;
                if !event.ready.is_empty() {
                    self.event = Some(event);
                }
            }
        }

        /// This method should be invoked when you intentionally want to
        /// keep the ready flag asserted.
        ///
        /// While this function is itself a no-op, it satisfies the
        /// `#[must_use]` constraint on the guard.
        pub fn retain_ready(&mut self) {
            // no-op
        }

        /// Get the [`Ready`] value associated with this guard.
        ///
        /// This method will return the empty readiness state if
        /// [`clear_ready`](Self::clear_ready) has been called on the guard.
        pub fn ready(&self) -> Ready {
            match &self.event {
                Some(event) => event.ready,
                None => Ready::EMPTY,
            }
        }
    };
}

impl<'a, Inner: AsRawFd> AsyncFdReadyGuard<'a, Inner> {
    guard_methods!();

    /// Performs the provided IO operation.
    ///
    /// If `f` returns a [`WouldBlock`] error, the readiness state
    /// associated with this file descriptor is cleared, and the method
    /// returns `Err(TryIoError::WouldBlock)`. You will typically need to
    /// poll the `AsyncFd` again when this happens.
    ///
    /// [`WouldBlock`]: std::io::ErrorKind::WouldBlock
    pub fn try_io<R>(
        &mut self,
        f: impl FnOnce(&'a AsyncFd<Inner>) -> io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        let result = f(self.async_fd);
        match result {
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => {
                self.clear_ready();
                Err(TryIoError(()))
            }
            result => Ok(result),
        }
    }

    /// Returns a shared reference to the inner [`AsyncFd`].
    pub fn get_ref(&self) -> &'a AsyncFd<Inner> {
        self.async_fd
    }

    /// Returns a shared reference to the backing object of the inner
    /// [`AsyncFd`].
    pub fn get_inner(&self) -> &'a Inner {
        self.get_ref().get_ref()
    }
}

impl<Inner: AsRawFd> AsyncFdReadyMutGuard<'_, Inner> {
    guard_methods!();

    /// Performs the provided IO operation (see
    /// [`AsyncFdReadyGuard::try_io`]).
    pub fn try_io<R>(
        &mut self,
        f: impl FnOnce(&mut AsyncFd<Inner>) -> io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        let result = f(self.async_fd);
        match result {
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => {
                self.clear_ready();
                Err(TryIoError(()))
            }
            result => Ok(result),
        }
    }

    /// Returns a shared reference to the inner [`AsyncFd`].
    pub fn get_ref(&self) -> &AsyncFd<Inner> {
        self.async_fd
    }

    /// Returns a mutable reference to the inner [`AsyncFd`].
    pub fn get_mut(&mut self) -> &mut AsyncFd<Inner> {
        self.async_fd
    }

    /// Returns a shared reference to the backing object of the inner
    /// [`AsyncFd`].
    pub fn get_inner(&self) -> &Inner {
        self.get_ref().get_ref()
    }

    /// Returns a mutable reference to the backing object of the inner
    /// [`AsyncFd`].
    pub fn get_inner_mut(&mut self) -> &mut Inner {
        self.get_mut().get_mut()
    }
}

impl<T: fmt::Debug + AsRawFd> fmt::Debug for AsyncFdReadyGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadyGuard")
            .field("async_fd", &self.async_fd)
            .finish()
    }
}

impl<T: fmt::Debug + AsRawFd> fmt::Debug for AsyncFdReadyMutGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MutReadyGuard")
            .field("async_fd", &self.async_fd)
            .finish()
    }
}
