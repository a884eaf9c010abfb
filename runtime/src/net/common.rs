//! What `TcpStream` and `UnixStream` share, written once as macros:
//!
//! * `stream_io_methods!`: the readiness and `try_*` methods, the
//!   `AsyncRead`/`AsyncWrite` impls (reads and writes wait for readiness
//!   of their own direction; `flush` is a no-op; `shutdown` shuts the
//!   write direction), `Debug` and the fd impls. The stream type must have
//!   a field `io: PollEvented<E>` where `&E: Read + Write` and `E` has
//!   `shutdown(Shutdown)`.
//! * `datagram_io_methods!`: the same for datagram sockets (`UdpSocket`,
//!   `UnixDatagram`): readiness, `send`/`recv` to and from the connected
//!   peer, `try_io`/`async_io`, `take_error`.
//! * `fd_impls!`: `Debug` (the mio source's), `AsRawFd`, `AsFd` for any
//!   type with an `io: PollEvented<_>` field.
//! * `stream_halves!`: `split` (borrowed halves) and `into_split` (owned
//!   halves that share an `Arc`). The reader and writer wait on separate
//!   wakers, so the halves can be driven from different tasks at once.
//!   The owned write half shuts the write direction down when dropped
//!   (unless `forget` is called), as tokio's does.

macro_rules! stream_io_methods {
    ($stream:ident) => {
        impl $stream {
            /// Waits for any of the requested ready states.
            ///
            /// This function is usually paired with `try_read()` or
            /// `try_write()`. It can be used to concurrently read / write
            /// to the same socket on a single task without splitting the
            /// socket.
            ///
            /// # Cancel safety
            ///
            /// This method is cancel safe. Once a readiness event occurs,
            /// the method will continue to return immediately until the
            /// readiness event is consumed by an attempt to read or write
            /// that fails with `WouldBlock` or `Poll::Pending`.
            pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
                let event = self.io.registration().readiness(interest).await?;
                Ok(event.ready)
            }

            /// Waits for the socket to become readable.
            ///
            /// This function is equivalent to `ready(Interest::READABLE)`
            /// and is usually paired with `try_read()`.
            ///
            /// # Cancel safety
            ///
            /// As [`ready`](Self::ready).
            pub async fn readable(&self) -> io::Result<()> {
                self.ready(Interest::READABLE).await?;
                Ok(())
            }

            /// Polls for read readiness.
            ///
            /// If the stream is not currently ready for reading, this
            /// method will store a clone of the `Waker` from the provided
            /// `Context`; when the stream becomes ready for reading,
            /// `Waker::wake` will be called on the waker. Only the last
            /// task to call it is woken.
            pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.io.registration().poll_read_ready(cx).map_ok(|_| ())
            }

            /// Tries to read data from the stream into the provided
            /// buffer, returning how many bytes were read.
            ///
            /// Receives any pending data from the socket but does not wait
            /// for new data to arrive. If data is not yet available,
            /// `Err(io::ErrorKind::WouldBlock)` is returned (and the
            /// readiness cleared): wait with `readable()`.
            pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
                use std::io::Read;
                self.io
                    .registration()
                    .try_io(Interest::READABLE, || (&*self.io).read(buf))
            }

            /// Tries to read data from the stream into the provided
            /// buffers, returning how many bytes were read.
            pub fn try_read_vectored(&self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
                use std::io::Read;
                self.io
                    .registration()
                    .try_io(Interest::READABLE, || (&*self.io).read_vectored(bufs))
            }

            /// Tries to read data from the stream into the spare capacity
            /// of `buf`, advancing it; returns how many bytes were read
            /// (`WouldBlock` if none are ready).
            pub fn try_read_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
                use std::io::Read;
                self.io.registration().try_io(Interest::READABLE, || {
                    let dst = buf.chunk_mut();
                    // SAFETY: the socket's `read` is the `read(2)` syscall,
                    // which only writes into the buffer.
                    let dst = unsafe {
                        &mut *(dst.as_uninit_slice_mut() as *mut [std::mem::MaybeUninit<u8>]
                            as *mut [u8])
                    };
                    let n = (&*self.io).read(dst)?;
                    // SAFETY: the kernel initialized the first `n` bytes.
                    unsafe { buf.advance_mut(n) };
                    Ok(n)
                })
            }

            /// Waits for the socket to become writable.
            ///
            /// This function is equivalent to `ready(Interest::WRITABLE)`
            /// and is usually paired with `try_write()`.
            ///
            /// # Cancel safety
            ///
            /// As [`ready`](Self::ready).
            pub async fn writable(&self) -> io::Result<()> {
                self.ready(Interest::WRITABLE).await?;
                Ok(())
            }

            /// Polls for write readiness (see [`poll_read_ready`]).
            ///
            /// [`poll_read_ready`]: Self::poll_read_ready
            pub fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.io.registration().poll_write_ready(cx).map_ok(|_| ())
            }

            /// Tries to write a buffer to the stream, returning how many
            /// bytes were written.
            ///
            /// Only part of the buffer may be written. If the stream is
            /// not ready to write data, `Err(io::ErrorKind::WouldBlock)`
            /// is returned.
            pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
                use std::io::Write;
                self.io
                    .registration()
                    .try_io(Interest::WRITABLE, || (&*self.io).write(buf))
            }

            /// Tries to write several buffers to the stream, returning how
            /// many bytes were written.
            pub fn try_write_vectored(&self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
                use std::io::Write;
                self.io
                    .registration()
                    .try_io(Interest::WRITABLE, || (&*self.io).write_vectored(bufs))
            }

            /// Tries to read or write from the socket using a
            /// user-provided IO operation.
            ///
            /// If the socket is ready, the provided closure is called. The
            /// closure should attempt to perform IO operation on the
            /// socket by manually calling the appropriate syscall. If the
            /// operation fails because the socket is not actually ready,
            /// then the closure should return a `WouldBlock` error and the
            /// readiness flag is cleared.
            pub fn try_io<R>(
                &self,
                interest: Interest,
                f: impl FnOnce() -> io::Result<R>,
            ) -> io::Result<R> {
                self.io.registration().try_io(interest, f)
            }

            /// Reads or writes from the socket using a user-provided IO
            /// operation, waiting for readiness and retrying on
            /// `WouldBlock`.
            pub async fn async_io<R>(
                &self,
                interest: Interest,
                f: impl FnMut() -> io::Result<R>,
            ) -> io::Result<R> {
                self.io.registration().async_io(interest, f).await
            }

            /// Shuts down the read, write, or both halves of this
            /// connection.
            pub(crate) fn shutdown_std(&self, how: std::net::Shutdown) -> io::Result<()> {
                self.io.shutdown(how)
            }

            /// The read path shared with the split halves.
            pub(crate) fn poll_read_priv(
                &self,
                cx: &mut Context<'_>,
                buf: &mut ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                self.io.poll_read(cx, buf)
            }

            /// The write path shared with the split halves.
            pub(crate) fn poll_write_priv(
                &self,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                self.io.poll_write(cx, buf)
            }

            pub(crate) fn poll_write_vectored_priv(
                &self,
                cx: &mut Context<'_>,
                bufs: &[io::IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                self.io.poll_write_vectored(cx, bufs)
            }
        }

        impl AsyncRead for $stream {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                self.poll_read_priv(cx, buf)
            }
        }

        impl AsyncWrite for $stream {
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

            #[inline]
            fn is_write_vectored(&self) -> bool {
                true
            }

            #[inline]
            fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                // Stream sockets have nothing to flush.
                Poll::Ready(Ok(()))
            }

            fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.shutdown_std(std::net::Shutdown::Write)?;
                Poll::Ready(Ok(()))
            }
        }

        crate::net::common::fd_impls!($stream);
    };
}

pub(crate) use stream_io_methods;

/// `stream_halves!(Stream, Addr)` generates `ReadHalf`, `WriteHalf`,
/// `OwnedReadHalf`, `OwnedWriteHalf`, `ReuniteError` and
/// `Stream::{split, into_split}` in the calling module. Extra read-half
/// methods (TCP's `peek`) go in the optional trailing block.
macro_rules! stream_halves {
    ($stream:ident, $addr:ty $(, { $($read_extra:tt)* })?) => {
        use crate::io::{AsyncRead, AsyncWrite, Interest, ReadBuf, Ready};

        use std::error::Error;
        use std::fmt;
        use std::io;
        use std::net::Shutdown;
        use std::pin::Pin;
        use std::sync::Arc;
        use std::task::{Context, Poll};

        #[doc = concat!("Borrowed read half of a [`", stringify!($stream), "`], created by [`split`].")]
        ///
        #[doc = concat!("[`split`]: ", stringify!($stream), "::split()")]
        #[derive(Debug)]
        pub struct ReadHalf<'a>(&'a $stream);

        #[doc = concat!("Borrowed write half of a [`", stringify!($stream), "`], created by [`split`].")]
        ///
        /// Note that in the [`AsyncWrite`] implementation of this type,
        /// `poll_shutdown` will shut down the stream in the write
        /// direction.
        ///
        #[doc = concat!("[`split`]: ", stringify!($stream), "::split()")]
        #[derive(Debug)]
        pub struct WriteHalf<'a>(&'a $stream);

        #[doc = concat!("Owned read half of a [`", stringify!($stream), "`], created by [`into_split`].")]
        ///
        #[doc = concat!("[`into_split`]: ", stringify!($stream), "::into_split()")]
        #[derive(Debug)]
        pub struct OwnedReadHalf {
            inner: Arc<$stream>,
        }

        #[doc = concat!("Owned write half of a [`", stringify!($stream), "`], created by [`into_split`].")]
        ///
        /// Dropping it shuts down the write direction of the stream
        /// (`shutdown` in the [`AsyncWrite`] implementation does it
        /// explicitly).
        ///
        #[doc = concat!("[`into_split`]: ", stringify!($stream), "::into_split()")]
        #[derive(Debug)]
        pub struct OwnedWriteHalf {
            inner: Arc<$stream>,
            shutdown_on_drop: bool,
        }

        /// Error indicating that two halves were not from the same socket,
        /// and thus could not be reunited.
        #[derive(Debug)]
        pub struct ReuniteError(pub OwnedReadHalf, pub OwnedWriteHalf);

        impl fmt::Display for ReuniteError {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "tried to reunite halves that are not from the same socket")
            }
        }

        impl Error for ReuniteError {}

        impl $stream {
            #[doc = concat!("Splits a `", stringify!($stream), "` into a read half and a write half, which can")]
            /// be used to read and write the stream concurrently.
            ///
            /// This method is more efficient than `into_split`, but the
            /// halves cannot be moved into independently spawned tasks.
            pub fn split<'a>(&'a mut self) -> (ReadHalf<'a>, WriteHalf<'a>) {
                (ReadHalf(&*self), WriteHalf(&*self))
            }

            #[doc = concat!("Splits a `", stringify!($stream), "` into a read half and a write half, which can")]
            /// be used to read and write the stream concurrently.
            ///
            /// Unlike `split`, the owned halves can be moved to separate
            /// tasks, however this comes at the cost of a heap allocation.
            ///
            /// **Note:** Dropping the write half will shut down the write
            /// half of the stream. This is equivalent to calling
            /// `shutdown()` on the stream.
            pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
                let arc = Arc::new(self);
                (
                    OwnedReadHalf { inner: arc.clone() },
                    OwnedWriteHalf {
                        inner: arc,
                        shutdown_on_drop: true,
                    },
                )
            }
        }

        macro_rules! half_common {
            () => {
                /// Returns the remote address that this stream is
                /// connected to.
                pub fn peer_addr(&self) -> io::Result<$addr> {
                    self.stream().peer_addr()
                }

                /// Returns the local address that this stream is bound to.
                pub fn local_addr(&self) -> io::Result<$addr> {
                    self.stream().local_addr()
                }

                /// Waits for any of the requested ready states (see the
                /// stream's `ready`).
                ///
                /// # Cancel safety
                ///
                /// As the stream's `ready`.
                pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
                    self.stream().ready(interest).await
                }
            };
        }

        macro_rules! read_half {
            () => {
                half_common!();

                /// Waits for the socket to become readable.
                ///
                /// # Cancel safety
                ///
                /// As the stream's `readable`.
                pub async fn readable(&self) -> io::Result<()> {
                    self.stream().readable().await
                }

                /// Tries to read data from the stream (see the stream's
                /// `try_read`).
                pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
                    self.stream().try_read(buf)
                }

                /// Tries to read data from the stream into several buffers
                /// (see the stream's `try_read_vectored`).
                pub fn try_read_vectored(&self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
                    self.stream().try_read_vectored(bufs)
                }

                $($($read_extra)*)?
            };
        }

        macro_rules! write_half {
            () => {
                half_common!();

                /// Waits for the socket to become writable.
                ///
                /// # Cancel safety
                ///
                /// As the stream's `writable`.
                pub async fn writable(&self) -> io::Result<()> {
                    self.stream().writable().await
                }

                /// Tries to write a buffer (see the stream's `try_write`).
                pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
                    self.stream().try_write(buf)
                }

                /// Tries to write several buffers (see the stream's
                /// `try_write_vectored`).
                pub fn try_write_vectored(&self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
                    self.stream().try_write_vectored(bufs)
                }
            };
        }

        impl ReadHalf<'_> {
            fn stream(&self) -> &$stream {
                self.0
            }

            read_half!();
        }

        impl WriteHalf<'_> {
            fn stream(&self) -> &$stream {
                self.0
            }

            write_half!();
        }

        impl OwnedReadHalf {
            fn stream(&self) -> &$stream {
                &self.inner
            }

            /// Attempts to put the two halves back together and recover
            /// the original socket. Succeeds only if the two halves
            /// originated from the same call to `into_split`.
            pub fn reunite(self, other: OwnedWriteHalf) -> Result<$stream, ReuniteError> {
                reunite(self, other)
            }

            read_half!();
        }

        impl OwnedWriteHalf {
            fn stream(&self) -> &$stream {
                &self.inner
            }

            /// Attempts to put the two halves back together and recover
            /// the original socket. Succeeds only if the two halves
            /// originated from the same call to `into_split`.
            pub fn reunite(self, other: OwnedReadHalf) -> Result<$stream, ReuniteError> {
                reunite(other, self)
            }

            /// Destroys the write half, but doesn't close the write half
            /// of the stream until the read half is dropped. If the read
            /// half has already been dropped, this closes the stream.
            pub fn forget(mut self) {
                self.shutdown_on_drop = false;
                drop(self);
            }

            write_half!();
        }

        fn reunite(read: OwnedReadHalf, mut write: OwnedWriteHalf) -> Result<$stream, ReuniteError> {
            if Arc::ptr_eq(&read.inner, &write.inner) {
                write.shutdown_on_drop = false;
                let inner = write.inner.clone();
                drop(write);
                drop(read);
                Ok(Arc::try_unwrap(inner)
                    .expect(concat!(stringify!($stream), ": try_unwrap failed in reunite")))
            } else {
                Err(ReuniteError(read, write))
            }
        }

        impl Drop for OwnedWriteHalf {
            fn drop(&mut self) {
                if self.shutdown_on_drop {
                    let _ = self.inner.shutdown_std(Shutdown::Write);
                }
            }
        }

        impl AsyncRead for ReadHalf<'_> {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                self.0.poll_read_priv(cx, buf)
            }
        }

        impl AsyncRead for OwnedReadHalf {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                self.inner.poll_read_priv(cx, buf)
            }
        }

        macro_rules! async_write_half {
            ($t:ty, $after_shutdown:expr) => {
                impl AsyncWrite for $t {
                    fn poll_write(
                        self: Pin<&mut Self>,
                        cx: &mut Context<'_>,
                        buf: &[u8],
                    ) -> Poll<io::Result<usize>> {
                        self.stream().poll_write_priv(cx, buf)
                    }

                    fn poll_write_vectored(
                        self: Pin<&mut Self>,
                        cx: &mut Context<'_>,
                        bufs: &[io::IoSlice<'_>],
                    ) -> Poll<io::Result<usize>> {
                        self.stream().poll_write_vectored_priv(cx, bufs)
                    }

                    fn is_write_vectored(&self) -> bool {
                        true
                    }

                    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                        Poll::Ready(Ok(()))
                    }

                    fn poll_shutdown(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                        let res = self.stream().shutdown_std(Shutdown::Write);
                        if res.is_ok() {
                            #[allow(clippy::redundant_closure_call)]
                            ($after_shutdown)(&mut *self);
                        }
                        Poll::Ready(res)
                    }
                }

                impl AsRef<$stream> for $t {
                    fn as_ref(&self) -> &$stream {
                        self.stream()
                    }
                }
            };
        }

        async_write_half!(WriteHalf<'_>, |_: &mut WriteHalf<'_>| {});
        // Already shut down: nothing more to do on drop.
        async_write_half!(OwnedWriteHalf, |h: &mut OwnedWriteHalf| h.shutdown_on_drop = false);

        impl AsRef<$stream> for ReadHalf<'_> {
            fn as_ref(&self) -> &$stream {
                self.0
            }
        }

        impl AsRef<$stream> for OwnedReadHalf {
            fn as_ref(&self) -> &$stream {
                &self.inner
            }
        }
    };
}

pub(crate) use stream_halves;

macro_rules! fd_impls {
    ($t:ident) => {
        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                (*self.io).fmt(f)
            }
        }

        impl std::os::unix::io::AsRawFd for $t {
            fn as_raw_fd(&self) -> std::os::unix::io::RawFd {
                std::os::unix::io::AsRawFd::as_raw_fd(&*self.io)
            }
        }

        impl std::os::unix::io::AsFd for $t {
            fn as_fd(&self) -> std::os::unix::io::BorrowedFd<'_> {
                // SAFETY: the fd stays open as long as `self` (it owns it).
                unsafe {
                    std::os::unix::io::BorrowedFd::borrow_raw(
                        std::os::unix::io::AsRawFd::as_raw_fd(&*self.io),
                    )
                }
            }
        }
    };
}

pub(crate) use fd_impls;

macro_rules! datagram_io_methods {
    ($t:ident, $addr:ty, $wrap:expr) => {
        impl $t {
            /// Receives a single datagram from the connected peer into the
            /// spare capacity of `buf`, advancing it; returns its length.
            ///
            /// # Cancel safety
            ///
            /// Cancel safe: if cancelled, no datagram was received.
            pub async fn recv_buf<B: bytes::BufMut>(&self, buf: &mut B) -> std::io::Result<usize> {
                self.io
                    .registration()
                    .async_io(crate::io::Interest::READABLE, || {
                        crate::net::common::recv_into(buf, |dst| self.io.recv(dst))
                    })
                    .await
            }

            /// Tries to receive a single datagram from the connected peer
            /// into `buf` without waiting (`WouldBlock` if none).
            pub fn try_recv_buf<B: bytes::BufMut>(&self, buf: &mut B) -> std::io::Result<usize> {
                self.io
                    .registration()
                    .try_io(crate::io::Interest::READABLE, || {
                        crate::net::common::recv_into(buf, |dst| self.io.recv(dst))
                    })
            }

            /// Receives a single datagram into the spare capacity of `buf`;
            /// returns its length and the sender's address.
            ///
            /// # Cancel safety
            ///
            /// Cancel safe: if cancelled, no datagram was received.
            pub async fn recv_buf_from<B: bytes::BufMut>(
                &self,
                buf: &mut B,
            ) -> std::io::Result<(usize, $addr)> {
                let mut from = None;
                let n = self
                    .io
                    .registration()
                    .async_io(crate::io::Interest::READABLE, || {
                        crate::net::common::recv_into(buf, |dst| {
                            let (n, a) = self.io.recv_from(dst)?;
                            from = Some(a);
                            Ok(n)
                        })
                    })
                    .await?;
                #[allow(clippy::redundant_closure_call)]
                Ok((n, ($wrap)(from.expect("recv_from gave an address"))))
            }

            /// Tries to receive a single datagram into `buf` without
            /// waiting; returns its length and the sender's address.
            pub fn try_recv_buf_from<B: bytes::BufMut>(
                &self,
                buf: &mut B,
            ) -> std::io::Result<(usize, $addr)> {
                let mut from = None;
                let n = self
                    .io
                    .registration()
                    .try_io(crate::io::Interest::READABLE, || {
                        crate::net::common::recv_into(buf, |dst| {
                            let (n, a) = self.io.recv_from(dst)?;
                            from = Some(a);
                            Ok(n)
                        })
                    })?;
                #[allow(clippy::redundant_closure_call)]
                Ok((n, ($wrap)(from.expect("recv_from gave an address"))))
            }

            /// Waits for any of the requested ready states.
            ///
            /// # Cancel safety
            ///
            /// This method is cancel safe. Once a readiness event occurs, the
            /// method will continue to return immediately until the readiness event
            /// is consumed by an attempt to read or write that fails with
            /// `WouldBlock` or `Poll::Pending`.
            pub async fn ready(
                &self,
                interest: crate::io::Interest,
            ) -> std::io::Result<crate::io::Ready> {
                let event = self.io.registration().readiness(interest).await?;
                Ok(event.ready)
            }

            /// Waits for the socket to become writable.
            ///
            /// # Cancel safety
            ///
            /// As [`ready`](Self::ready).
            pub async fn writable(&self) -> std::io::Result<()> {
                self.ready(crate::io::Interest::WRITABLE).await?;
                Ok(())
            }

            /// Polls for write/send readiness.
            pub fn poll_send_ready(
                &self,
                cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                self.io.registration().poll_write_ready(cx).map_ok(|_| ())
            }

            /// Sends data on the socket to the remote address that the socket is
            /// connected to.
            ///
            /// # Cancel safety
            ///
            /// This method is cancel safe. If `send` is used as the event in a
            /// `select!` statement and some other branch completes first, then it
            /// is guaranteed that the message was not sent.
            pub async fn send(&self, buf: &[u8]) -> std::io::Result<usize> {
                self.async_io(crate::io::Interest::WRITABLE, || self.io.send(buf))
                    .await
            }

            /// Attempts to send data on the socket to the remote address to which
            /// it was previously `connect`ed.
            pub fn poll_send(
                &self,
                cx: &mut std::task::Context<'_>,
                buf: &[u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                self.io
                    .registration()
                    .poll_io(cx, crate::io_driver::Direction::Write, || self.io.send(buf))
            }

            /// Tries to send data on the socket to the remote address to which it
            /// is connected, without waiting.
            pub fn try_send(&self, buf: &[u8]) -> std::io::Result<usize> {
                self.io
                    .registration()
                    .try_io(crate::io::Interest::WRITABLE, || self.io.send(buf))
            }

            /// Waits for the socket to become readable.
            ///
            /// # Cancel safety
            ///
            /// As [`ready`](Self::ready).
            pub async fn readable(&self) -> std::io::Result<()> {
                self.ready(crate::io::Interest::READABLE).await?;
                Ok(())
            }

            /// Polls for read/receive readiness.
            pub fn poll_recv_ready(
                &self,
                cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                self.io.registration().poll_read_ready(cx).map_ok(|_| ())
            }

            /// Receives a single datagram message on the socket from the remote
            /// address to which it is connected. On success, returns the number of
            /// bytes read.
            ///
            /// # Cancel safety
            ///
            /// This method is cancel safe. If `recv` is used as the event in a
            /// `select!` statement and some other branch completes first, it is
            /// guaranteed that no messages were received on this socket.
            pub async fn recv(&self, buf: &mut [u8]) -> std::io::Result<usize> {
                self.async_io(crate::io::Interest::READABLE, || self.io.recv(buf))
                    .await
            }

            /// Attempts to receive a single datagram message on the socket from
            /// the remote address to which it is `connect`ed.
            pub fn poll_recv(
                &self,
                cx: &mut std::task::Context<'_>,
                buf: &mut crate::io::ReadBuf<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                let n = std::task::ready!(self.io.registration().poll_io(
                    cx,
                    crate::io_driver::Direction::Read,
                    || { self.io.recv(buf.initialize_unfilled()) }
                ))?;
                buf.advance(n);
                std::task::Poll::Ready(Ok(()))
            }

            /// Tries to receive a single datagram message on the socket from the
            /// remote address to which it is connected, without waiting.
            pub fn try_recv(&self, buf: &mut [u8]) -> std::io::Result<usize> {
                self.io
                    .registration()
                    .try_io(crate::io::Interest::READABLE, || self.io.recv(buf))
            }

            /// Tries to read or write from the socket using a user-provided IO
            /// operation (see the streams' `try_io`).
            pub fn try_io<R>(
                &self,
                interest: crate::io::Interest,
                f: impl FnOnce() -> std::io::Result<R>,
            ) -> std::io::Result<R> {
                self.io.registration().try_io(interest, f)
            }

            /// Reads or writes from the socket using a user-provided IO operation,
            /// waiting for readiness and retrying on `WouldBlock`.
            pub async fn async_io<R>(
                &self,
                interest: crate::io::Interest,
                f: impl FnMut() -> std::io::Result<R>,
            ) -> std::io::Result<R> {
                self.io.registration().async_io(interest, f).await
            }

            /// Returns the value of the `SO_ERROR` option.
            pub fn take_error(&self) -> std::io::Result<Option<std::io::Error>> {
                self.io.take_error()
            }
        }
    };
}

pub(crate) use datagram_io_methods;

/// Runs a receive syscall into the spare capacity of `buf` and advances it
/// by what was received.
pub(crate) fn recv_into<B: bytes::BufMut>(
    buf: &mut B,
    recv: impl FnOnce(&mut [u8]) -> std::io::Result<usize>,
) -> std::io::Result<usize> {
    let dst = buf.chunk_mut();
    // SAFETY: `recv` is a socket receive syscall (`recv`/`recvfrom`), which
    // only writes into the buffer.
    let dst = unsafe {
        &mut *(dst.as_uninit_slice_mut() as *mut [std::mem::MaybeUninit<u8>] as *mut [u8])
    };
    let n = recv(dst)?;
    // SAFETY: the kernel initialized the first `n` bytes.
    unsafe { buf.advance_mut(n) };
    Ok(n)
}
