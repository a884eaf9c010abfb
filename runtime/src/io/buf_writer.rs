//! `BufWriter`: buffers small writes into large ones.

use super::buf_reader::DEFAULT_BUF_SIZE;
use super::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

use pin_project_lite::pin_project;
use std::fmt;
use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

pin_project! {
    /// Wraps a writer and buffers its output.
    ///
    /// It can be excessively inefficient to work directly with something
    /// that implements [`AsyncWrite`]. A `BufWriter` keeps an in-memory
    /// buffer of data and writes it to an underlying writer in large,
    /// infrequent batches.
    ///
    /// `BufWriter` can improve the speed of programs that make *small* and
    /// *repeated* write calls to the same file or network socket.
    ///
    /// When the `BufWriter` is dropped, the contents of its buffer will be
    /// discarded: call [`flush`] (or `shutdown`) before dropping it.
    ///
    /// [`flush`]: crate::io::AsyncWriteExt::flush
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::io::{AsyncWriteExt, BufWriter};
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime")]
    /// # async fn main() -> std::io::Result<()> {
    /// let mut w = BufWriter::new(Vec::new());
    /// w.write_all(b"hello ").await?;
    /// w.write_all(b"world").await?;
    /// assert!(w.get_ref().is_empty()); // still buffered
    /// w.flush().await?;
    /// assert_eq!(w.get_ref(), b"hello world");
    /// # Ok(())
    /// # }
    /// ```
    pub struct BufWriter<W> {
        #[pin]
        inner: W,
        buf: Vec<u8>,
        written: usize,
        // A seek waiting for the buffer to be flushed first.
        seek_state: Option<SeekFrom>,
    }
}

impl<W> BufWriter<W> {
    /// Puts `inner` in place of the wrapped writer, keeping the unflushed
    /// output and a pending seek, and returns the old writer (see
    /// `BufReader::replace_inner`).
    pub(crate) fn replace_inner<W2>(self, inner: W2) -> (BufWriter<W2>, W) {
        let writer = BufWriter {
            inner,
            buf: self.buf,
            written: self.written,
            seek_state: self.seek_state,
        };
        (writer, self.inner)
    }
}

impl<W: AsyncWrite> BufWriter<W> {
    /// Creates a new `BufWriter` with a default buffer capacity. The
    /// default is currently 8 KB, but may change in the future.
    pub fn new(inner: W) -> Self {
        Self::with_capacity(DEFAULT_BUF_SIZE, inner)
    }

    /// Creates a new `BufWriter` with the specified buffer capacity.
    pub fn with_capacity(cap: usize, inner: W) -> Self {
        Self {
            inner,
            buf: Vec::with_capacity(cap),
            written: 0,
            seek_state: None,
        }
    }

    /// `poll_write_vectored` over a writer that takes one slice at a time:
    /// buffers as many whole slices as fit (flushing first if the first
    /// does not), so the caller's slices still leave in few writes; a first
    /// slice as large as the buffer goes straight to the writer.
    fn poll_write_slices(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let mut bufs = bufs.iter().skip_while(|b| b.is_empty());
        let Some(first) = bufs.next() else {
            return Poll::Ready(Ok(0));
        };
        if first.len() > self.buf.capacity() - self.buf.len() {
            ready!(self.as_mut().flush_buf(cx))?;
        }
        let me = self.project();
        if first.len() >= me.buf.capacity() {
            return me.inner.poll_write(cx, first);
        }
        me.buf.extend_from_slice(first);
        let mut n = first.len();
        for b in bufs {
            if b.len() > me.buf.capacity() - me.buf.len() {
                break;
            }
            me.buf.extend_from_slice(b);
            n += b.len();
        }
        Poll::Ready(Ok(n))
    }

    /// Writes the whole buffer out (what is left of it).
    fn flush_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut me = self.project();
        let len = me.buf.len();
        let mut ret = Ok(());
        while *me.written < len {
            match ready!(me.inner.as_mut().poll_write(cx, &me.buf[*me.written..])) {
                Ok(0) => {
                    ret = Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "failed to write the buffered data",
                    ));
                    break;
                }
                Ok(n) => *me.written += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    ret = Err(e);
                    break;
                }
            }
        }
        if *me.written > 0 {
            me.buf.drain(..*me.written);
        }
        *me.written = 0;
        Poll::Ready(ret)
    }

    /// Gets a reference to the underlying writer.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// Gets a mutable reference to the underlying writer.
    ///
    /// It is inadvisable to directly write to the underlying writer.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// Gets a pinned mutable reference to the underlying writer.
    ///
    /// It is inadvisable to directly write to the underlying writer.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut W> {
        self.project().inner
    }

    /// Consumes this `BufWriter`, returning the underlying writer.
    ///
    /// Note that any leftover data in the internal buffer is lost.
    pub fn into_inner(self) -> W {
        self.inner
    }

    /// Returns a reference to the internally buffered data.
    pub fn buffer(&self) -> &[u8] {
        &self.buf
    }
}

impl<W: AsyncWrite> AsyncWrite for BufWriter<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.buf.len() + buf.len() > self.buf.capacity() {
            ready!(self.as_mut().flush_buf(cx))?;
        }

        let me = self.project();
        if buf.len() >= me.buf.capacity() {
            me.inner.poll_write(cx, buf)
        } else {
            Poll::Ready(io::Write::write(me.buf, buf))
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if !self.inner.is_write_vectored() {
            return self.poll_write_slices(cx, bufs);
        }
        let total = bufs.iter().fold(0usize, |n, b| n.saturating_add(b.len()));
        if total > self.buf.capacity() - self.buf.len() {
            ready!(self.as_mut().flush_buf(cx))?;
        }
        let me = self.project();
        if total >= me.buf.capacity() {
            me.inner.poll_write_vectored(cx, bufs)
        } else {
            for b in bufs {
                me.buf.extend_from_slice(b);
            }
            Poll::Ready(Ok(total))
        }
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.as_mut().flush_buf(cx))?;
        self.get_pin_mut().poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.as_mut().flush_buf(cx))?;
        self.get_pin_mut().poll_shutdown(cx)
    }
}

/// A `BufWriter` of a stream passes reads through.
impl<W: AsyncWrite + AsyncRead> AsyncRead for BufWriter<W> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.get_pin_mut().poll_read(cx, buf)
    }
}

impl<W: AsyncWrite + AsyncBufRead> AsyncBufRead for BufWriter<W> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.get_pin_mut().poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.get_pin_mut().consume(amt);
    }
}

impl<W: fmt::Debug> fmt::Debug for BufWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BufWriter")
            .field("writer", &self.inner)
            .field(
                "buffer",
                &format_args!("{}/{}", self.buf.len(), self.buf.capacity()),
            )
            .field("written", &self.written)
            .finish()
    }
}

/// Seeking flushes the buffer first (in `poll_complete`), then seeks the
/// inner writer.
impl<W: AsyncWrite + AsyncSeek> AsyncSeek for BufWriter<W> {
    fn start_seek(self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        *self.project().seek_state = Some(pos);
        Ok(())
    }

    fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        if let Some(pos) = self.seek_state {
            ready!(self.as_mut().flush_buf(cx))?;
            let me = self.as_mut().project();
            *me.seek_state = None;
            me.inner.start_seek(pos)?;
        }
        self.project().inner.poll_complete(cx)
    }
}
