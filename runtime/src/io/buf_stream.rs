//! `BufStream`: a `BufReader` around a `BufWriter` around a stream.

use super::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, BufReader, BufWriter, ReadBuf};

use pin_project_lite::pin_project;
use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{Context, Poll};

pin_project! {
    /// Wraps a type that is [`AsyncWrite`] and [`AsyncRead`], and buffers
    /// its input and output.
    ///
    /// It can be excessively inefficient to work directly with something
    /// that implements [`AsyncWrite`] and [`AsyncRead`]. For example, every
    /// `write`, however small, has to traverse the syscall interface, and
    /// similarly, every read has to do the same. The [`BufWriter`] and
    /// [`BufReader`] types aid with these problems respectively, but do so
    /// in only one direction. `BufStream` wraps one in the other so that
    /// both directions are buffered.
    ///
    /// Remember to `flush` before expecting the peer to see a write.
    ///
    /// ```
    /// use volt_runtime::io::{self, AsyncBufReadExt, AsyncWriteExt, BufStream};
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime")]
    /// # async fn main() -> io::Result<()> {
    /// let (client, server) = io::duplex(64);
    /// let (mut client, mut server) = (BufStream::new(client), BufStream::new(server));
    /// client.write_all(b"hello\n").await?;
    /// client.flush().await?;
    /// let mut line = String::new();
    /// server.read_line(&mut line).await?;
    /// assert_eq!(line, "hello\n");
    /// # Ok(())
    /// # }
    /// ```
    #[derive(Debug)]
    pub struct BufStream<RW> {
        #[pin]
        inner: BufReader<BufWriter<RW>>,
    }
}

impl<RW: AsyncRead + AsyncWrite> BufStream<RW> {
    /// Wraps a type in both [`BufWriter`] and [`BufReader`], with the
    /// default buffer sizes.
    pub fn new(stream: RW) -> BufStream<RW> {
        BufStream {
            inner: BufReader::new(BufWriter::new(stream)),
        }
    }

    /// Creates a `BufStream` with the specified [`BufReader`] and
    /// [`BufWriter`] capacities.
    ///
    /// # Panics
    ///
    /// If `reader_capacity` is 0.
    #[track_caller]
    pub fn with_capacity(
        reader_capacity: usize,
        writer_capacity: usize,
        stream: RW,
    ) -> BufStream<RW> {
        BufStream {
            inner: BufReader::with_capacity(
                reader_capacity,
                BufWriter::with_capacity(writer_capacity, stream),
            ),
        }
    }

    /// Gets a reference to the underlying I/O object.
    pub fn get_ref(&self) -> &RW {
        self.inner.get_ref().get_ref()
    }

    /// Gets a mutable reference to the underlying I/O object. Reading or
    /// writing through it bypasses (and may confuse) the buffers.
    pub fn get_mut(&mut self) -> &mut RW {
        self.inner.get_mut().get_mut()
    }

    /// Gets a pinned mutable reference to the underlying I/O object.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut RW> {
        self.project().inner.get_pin_mut().get_pin_mut()
    }

    /// Consumes this `BufStream`, returning the underlying I/O object.
    /// Buffered data (read but not consumed, written but not flushed) is
    /// lost.
    pub fn into_inner(self) -> RW {
        self.inner.into_inner().into_inner()
    }
}

impl<RW> From<BufReader<BufWriter<RW>>> for BufStream<RW> {
    fn from(b: BufReader<BufWriter<RW>>) -> Self {
        BufStream { inner: b }
    }
}

impl<RW> From<BufWriter<BufReader<RW>>> for BufStream<RW> {
    /// Turns the layers around (a `BufStream` reads through a `BufReader`
    /// over a `BufWriter`), keeping the buffered input and the unflushed
    /// output.
    fn from(b: BufWriter<BufReader<RW>>) -> Self {
        let (writer_shell, reader) = b.replace_inner(());
        let (reader_shell, rw) = reader.replace_inner(());
        let (writer, ()) = writer_shell.replace_inner(rw);
        let (inner, ()) = reader_shell.replace_inner(writer);
        BufStream { inner }
    }
}

impl<RW: AsyncRead> AsyncRead for BufStream<RW>
where
    RW: AsyncWrite,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.project().inner.poll_read(cx, buf)
    }
}

impl<RW: AsyncRead + AsyncWrite> AsyncBufRead for BufStream<RW> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.project().inner.poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.project().inner.consume(amt)
    }
}

impl<RW: AsyncRead + AsyncWrite> AsyncWrite for BufStream<RW> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_shutdown(cx)
    }
}

/// Seeks through both buffers: the write buffer is flushed, the read
/// buffer discarded.
impl<RW: AsyncRead + AsyncWrite + AsyncSeek> AsyncSeek for BufStream<RW> {
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        self.project().inner.start_seek(position)
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        self.project().inner.poll_complete(cx)
    }
}
