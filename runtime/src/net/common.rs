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
//!
//! The stream halves (`split`, `into_split`) are in `super::halves`.

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

            $crate::net::common::read_readiness_methods!("stream");
            $crate::net::common::write_readiness_methods!("stream");

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
            /// connection; `NotConnected` (the peer already reset it)
            /// counts as done, as in tokio.
            pub(crate) fn shutdown_std(&self, how: std::net::Shutdown) -> io::Result<()> {
                match self.io.shutdown(how) {
                    Err(e) if e.kind() == io::ErrorKind::NotConnected => Ok(()),
                    res => res,
                }
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

/// The read-side readiness methods (`readable`, `poll_read_ready`,
/// `try_read`, `try_read_vectored`, `try_read_buf`) of a type with an
/// `io: PollEvented<E>` field where `&E: Read` and a `ready` method; `$what`
/// names the object in the docs. Expands inside an `impl` block.
macro_rules! read_readiness_methods {
    ($what:literal) => {
        #[doc = concat!("Waits for the ", $what, " to become readable.")]
        ///
        /// This function is equivalent to `ready(Interest::READABLE)` and
        /// is usually paired with `try_read()`.
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
        #[doc = concat!("If the ", $what, " is not currently ready for reading, this method")]
        /// will store a clone of the `Waker` from the provided `Context`;
        /// when it becomes ready for reading, `Waker::wake` will be called
        /// on the waker. Only the last task to call it is woken.
        pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            self.io.registration().poll_read_ready(cx).map_ok(|_| ())
        }

        #[doc = concat!("Tries to read data from the ", $what, " into the provided buffer,")]
        /// returning how many bytes were read.
        ///
        /// Receives any pending data but does not wait for new data to
        /// arrive. If data is not yet available,
        /// `Err(io::ErrorKind::WouldBlock)` is returned (and the readiness
        /// cleared): wait with `readable()`.
        pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
            use std::io::Read;
            self.io
                .registration()
                .try_io(Interest::READABLE, || (&*self.io).read(buf))
        }

        #[doc = concat!("Tries to read data from the ", $what, " into the provided buffers,")]
        /// in order, returning how many bytes were read.
        pub fn try_read_vectored(&self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
            use std::io::Read;
            self.io
                .registration()
                .try_io(Interest::READABLE, || (&*self.io).read_vectored(bufs))
        }

        #[doc = concat!("Tries to read data from the ", $what, " into the spare capacity of")]
        /// `buf`, advancing it; returns how many bytes were read
        /// (`WouldBlock` if none are ready).
        pub fn try_read_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
            use std::io::Read;
            self.io.registration().try_io(Interest::READABLE, || {
                $crate::net::common::recv_into(buf, |dst| (&*self.io).read(dst))
            })
        }
    };
}

pub(crate) use read_readiness_methods;

/// The write-side readiness methods (`writable`, `poll_write_ready`,
/// `try_write`, `try_write_vectored`); as `read_readiness_methods!` with
/// `&E: Write`.
macro_rules! write_readiness_methods {
    ($what:literal) => {
        #[doc = concat!("Waits for the ", $what, " to become writable.")]
        ///
        /// This function is equivalent to `ready(Interest::WRITABLE)` and
        /// is usually paired with `try_write()`.
        ///
        /// # Cancel safety
        ///
        /// As [`ready`](Self::ready).
        pub async fn writable(&self) -> io::Result<()> {
            self.ready(Interest::WRITABLE).await?;
            Ok(())
        }

        /// Polls for write readiness: as for reading, only the waker of the
        /// latest call is woken.
        pub fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            self.io.registration().poll_write_ready(cx).map_ok(|_| ())
        }

        #[doc = concat!("Tries to write a buffer to the ", $what, ", returning how many bytes")]
        /// were written.
        ///
        #[doc = concat!("Only part of the buffer may be written. If the ", $what, " is not ready")]
        /// to write data, `Err(io::ErrorKind::WouldBlock)` is returned.
        pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
            use std::io::Write;
            self.io
                .registration()
                .try_io(Interest::WRITABLE, || (&*self.io).write(buf))
        }

        #[doc = concat!("Tries to write several buffers to the ", $what, ", in order, returning")]
        /// how many bytes were written.
        pub fn try_write_vectored(&self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
            use std::io::Write;
            self.io
                .registration()
                .try_io(Interest::WRITABLE, || (&*self.io).write_vectored(bufs))
        }
    };
}

pub(crate) use write_readiness_methods;

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

// Receiving waits for `READABLE | ERROR`, as tokio's UDP socket does: an
// ICMP error (port unreachable after a send on a connected socket) raises
// only `EPOLLERR`, and the pending `recv` must wake to return it.
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
                    .async_io(
                        crate::io::Interest::READABLE | crate::io::Interest::ERROR,
                        || crate::net::common::recv_into(buf, |dst| self.io.recv(dst)),
                    )
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
                    .async_io(
                        crate::io::Interest::READABLE | crate::io::Interest::ERROR,
                        || {
                            crate::net::common::recv_into(buf, |dst| {
                                let (n, a) = self.io.recv_from(dst)?;
                                from = Some(a);
                                Ok(n)
                            })
                        },
                    )
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
                self.async_io(
                    crate::io::Interest::READABLE | crate::io::Interest::ERROR,
                    || self.io.recv(buf),
                )
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

/// Runs a read or receive syscall into the spare capacity of `buf` and
/// advances it by what was read (the `try_read_buf`/`recv_buf` family of
/// the sockets and pipes).
pub(crate) fn recv_into<B: bytes::BufMut>(
    buf: &mut B,
    recv: impl FnOnce(&mut [u8]) -> std::io::Result<usize>,
) -> std::io::Result<usize> {
    let dst = buf.chunk_mut();
    // SAFETY: every caller's `recv` is a `read(2)`/`recv(2)`/`recvfrom(2)`
    // on a socket or pipe, which only writes into the buffer, so handing
    // it uninitialized bytes is fine.
    let dst = unsafe {
        &mut *(dst.as_uninit_slice_mut() as *mut [std::mem::MaybeUninit<u8>] as *mut [u8])
    };
    let n = recv(dst)?;
    // SAFETY: the kernel initialized the first `n` bytes.
    unsafe { buf.advance_mut(n) };
    Ok(n)
}
