//! Constant streams: `empty` (EOF; accepts and discards writes), `sink`
//! (accepts and discards writes) and `repeat` (one byte forever).
//!
//! Each call spends one unit of the task's coop budget, so a loop over an
//! always-ready stream still yields to the scheduler.

use super::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf, SeekFrom};

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// Spends one unit of coop budget (returning `Pending` when it is out).
fn spend(cx: &mut Context<'_>) -> Poll<()> {
    let coop = ready!(crate::coop::poll_proceed(cx));
    coop.made_progress();
    Poll::Ready(())
}

/// `AsyncWrite` that accepts and discards every byte (for `Empty` and
/// `Sink`).
macro_rules! discarding_writer {
    ($t:ident) => {
        impl AsyncWrite for $t {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                ready!(spend(cx));
                Poll::Ready(Ok(buf.len()))
            }

            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[io::IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                ready!(spend(cx));
                Poll::Ready(Ok(bufs.iter().map(|b| b.len()).sum()))
            }

            fn is_write_vectored(&self) -> bool {
                true
            }

            fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                ready!(spend(cx));
                Poll::Ready(Ok(()))
            }

            fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                ready!(spend(cx));
                Poll::Ready(Ok(()))
            }
        }
    };
}

/// An async reader which is always at EOF, and a writer that accepts and
/// discards everything. Made by [`empty()`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Empty {
    _p: (),
}

/// Creates a value that is always at EOF for reads, and ignores all data
/// written.
///
/// ```
/// use volt_runtime::io::{self, AsyncReadExt};
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> io::Result<()> {
/// let mut buffer = String::new();
/// io::empty().read_to_string(&mut buffer).await?;
/// assert!(buffer.is_empty());
/// # Ok(())
/// # }
/// ```
pub fn empty() -> Empty {
    Empty { _p: () }
}

impl AsyncRead for Empty {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        _: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        ready!(spend(cx));
        Poll::Ready(Ok(()))
    }
}

impl AsyncBufRead for Empty {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        ready!(spend(cx));
        Poll::Ready(Ok(&[]))
    }

    fn consume(self: Pin<&mut Self>, _: usize) {}
}

discarding_writer!(Empty);

impl AsyncSeek for Empty {
    fn start_seek(self: Pin<&mut Self>, _: SeekFrom) -> io::Result<()> {
        Ok(())
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        ready!(spend(cx));
        Poll::Ready(Ok(0))
    }
}

/// An async writer which will move data into the void. Made by [`sink()`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Sink {
    _p: (),
}

/// Creates an instance of an async writer which will successfully consume
/// all data.
///
/// ```
/// use volt_runtime::io::{self, AsyncWriteExt};
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> io::Result<()> {
/// let n = io::sink().write(b"abc").await?;
/// assert_eq!(n, 3);
/// # Ok(())
/// # }
/// ```
pub fn sink() -> Sink {
    Sink { _p: () }
}

discarding_writer!(Sink);

/// An async reader which yields one byte over and over. Made by
/// [`repeat()`].
#[derive(Debug, Clone, Copy)]
pub struct Repeat {
    byte: u8,
}

/// Creates an instance of an async reader that infinitely repeats one
/// byte.
///
/// ```
/// use volt_runtime::io::{self, AsyncReadExt};
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> io::Result<()> {
/// let mut buffer = [0; 3];
/// io::repeat(0b101).read_exact(&mut buffer).await?;
/// assert_eq!(buffer, [0b101, 0b101, 0b101]);
/// # Ok(())
/// # }
/// ```
pub fn repeat(byte: u8) -> Repeat {
    Repeat { byte }
}

impl AsyncRead for Repeat {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        ready!(spend(cx));
        let n = buf.remaining();
        buf.initialize_unfilled_to(n).fill(self.byte);
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}
