//! `AsyncSeek` and `AsyncSeekExt`.
//!
//! A seek is two steps, as in tokio: `start_seek` submits the position
//! (for a file on the blocking pool, it queues the seek), `poll_complete`
//! waits for the resulting offset. `poll_complete` with no seek started
//! reports the current position.

use std::future::{Future, poll_fn};
use std::io::{self, SeekFrom};
use std::ops::DerefMut;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// Seek bytes asynchronously.
///
/// This trait is analogous to [`std::io::Seek`], but integrates with the
/// asynchronous task system. Utilities for working with `AsyncSeek` values
/// are provided by [`AsyncSeekExt`].
pub trait AsyncSeek {
    /// Attempts to seek to an offset, in bytes, in a stream.
    ///
    /// A seek beyond the end of a stream is allowed, but behavior is
    /// defined by the implementation. If this function returns
    /// successfully, then the job has been submitted; call `poll_complete`
    /// for the result.
    ///
    /// # Errors
    ///
    /// Seeking can fail, for example because it might involve flushing a
    /// buffer; a seek while another is in progress fails.
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()>;

    /// Waits for a seek operation to complete, returning the new position
    /// in the stream (from its start). With no seek in progress, this
    /// returns the current position.
    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>>;
}

macro_rules! deref_async_seek {
    () => {
        fn start_seek(mut self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
            Pin::new(&mut **self).start_seek(pos)
        }

        fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
            Pin::new(&mut **self).poll_complete(cx)
        }
    };
}

impl<T: ?Sized + AsyncSeek + Unpin> AsyncSeek for Box<T> {
    deref_async_seek!();
}

impl<T: ?Sized + AsyncSeek + Unpin> AsyncSeek for &mut T {
    deref_async_seek!();
}

impl<P> AsyncSeek for Pin<P>
where
    P: DerefMut + Unpin,
    P::Target: AsyncSeek,
{
    fn start_seek(self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        self.get_mut().as_mut().start_seek(pos)
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        self.get_mut().as_mut().poll_complete(cx)
    }
}

impl<T: AsRef<[u8]> + Unpin> AsyncSeek for io::Cursor<T> {
    fn start_seek(mut self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        io::Seek::seek(&mut *self, pos).map(drop)
    }

    fn poll_complete(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<u64>> {
        Poll::Ready(Ok(self.get_mut().position()))
    }
}

/// An extension trait that adds utility methods to [`AsyncSeek`] types.
///
/// ```
/// use std::io::{Cursor, SeekFrom};
/// use volt_runtime::io::{AsyncReadExt, AsyncSeekExt};
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> std::io::Result<()> {
/// let mut cursor = Cursor::new(b"abcdefg".to_vec());
/// cursor.seek(SeekFrom::Start(3)).await?;
/// let mut buf = [0; 2];
/// cursor.read_exact(&mut buf).await?;
/// assert_eq!(&buf, b"de");
/// assert_eq!(cursor.stream_position().await?, 5);
/// # Ok(())
/// # }
/// ```
pub trait AsyncSeekExt: AsyncSeek {
    /// Creates a future which will seek an IO object, and then yield the
    /// new position in the object and the object itself.
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe: if cancelled after `start_seek`, the seek may or
    /// may not have happened.
    fn seek(&mut self, pos: SeekFrom) -> impl Future<Output = io::Result<u64>> + '_
    where
        Self: Unpin,
    {
        let mut pos = Some(pos);
        poll_fn(move |cx| {
            if let Some(p) = pos {
                // Finish whatever seek was in flight before starting ours.
                ready!(Pin::new(&mut *self).poll_complete(cx))?;
                Pin::new(&mut *self).start_seek(p)?;
                pos = None;
            }
            Pin::new(&mut *self).poll_complete(cx)
        })
    }

    /// Seeks to the start of the stream (`seek(SeekFrom::Start(0))`).
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe (as [`seek`](AsyncSeekExt::seek)).
    fn rewind(&mut self) -> impl Future<Output = io::Result<()>> + '_
    where
        Self: Unpin,
    {
        async move { self.seek(SeekFrom::Start(0)).await.map(drop) }
    }

    /// Returns the current seek position from the start of the stream.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    fn stream_position(&mut self) -> impl Future<Output = io::Result<u64>> + '_
    where
        Self: Unpin,
    {
        self.seek(SeekFrom::Current(0))
    }
}

impl<S: AsyncSeek + ?Sized> AsyncSeekExt for S {}
