//! `stream_halves!`: the borrowed and owned halves of a byte stream,
//! written once for `TcpStream` and `UnixStream`.
//!
//! `split` borrows the stream and returns a `ReadHalf` and a `WriteHalf`;
//! `into_split` moves it into an `Arc` shared by an `OwnedReadHalf` and an
//! `OwnedWriteHalf`, which `reunite` puts back together (or fails with a
//! `ReuniteError` holding both halves if they came from different
//! streams). The reader and writer wait on separate wakers of the same
//! registration, so the halves can be driven from different tasks at once.
//! The owned write half shuts the write direction down when dropped
//! (unless `forget` is called), as tokio's does.

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

                /// Tries to read data from the stream into the spare
                /// capacity of `buf`, advancing it (see the stream's
                /// `try_read_buf`).
                pub fn try_read_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
                    self.stream().try_read_buf(buf)
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
