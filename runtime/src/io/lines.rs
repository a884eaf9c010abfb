//! `AsyncBufReadExt` (line and delimiter reads), `Lines` and `Split`.

use super::AsyncBufRead;
use super::read_ext::append_utf8;

use pin_project_lite::pin_project;
use std::future::{Future, poll_fn};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// Reads into `buf` up to and including `delim` (or EOF); returns how many
/// bytes were appended by this call (across `Pending`s, `read` counts).
fn poll_read_until<R: AsyncBufRead + ?Sized>(
    mut reader: Pin<&mut R>,
    cx: &mut Context<'_>,
    delim: u8,
    buf: &mut Vec<u8>,
    read: &mut usize,
) -> Poll<io::Result<usize>> {
    loop {
        let (done, used) = {
            let available = ready_retry!(reader.as_mut().poll_fill_buf(cx))?;
            match available.iter().position(|&b| b == delim) {
                Some(i) => {
                    buf.extend_from_slice(&available[..=i]);
                    (true, i + 1)
                }
                None => {
                    buf.extend_from_slice(available);
                    (available.is_empty(), available.len())
                }
            }
        };
        reader.as_mut().consume(used);
        *read += used;
        if done || used == 0 {
            return Poll::Ready(Ok(std::mem::replace(read, 0)));
        }
    }
}

/// An extension trait which adds utility methods to [`AsyncBufRead`]
/// types.
pub trait AsyncBufReadExt: AsyncBufRead {
    /// Reads all bytes into `buf` until the delimiter `byte` or EOF is
    /// reached (the delimiter is included). Returns the number of bytes
    /// read; 0 means EOF.
    ///
    /// # Cancel safety
    ///
    /// If the method is used as the event in a `select!` statement and
    /// some other branch completes first, then some data may have been
    /// partially read. Any partially read bytes are appended to `buf`, and
    /// the method can be called again to continue reading until `byte`.
    fn read_until<'a>(
        &'a mut self,
        byte: u8,
        buf: &'a mut Vec<u8>,
    ) -> impl Future<Output = io::Result<usize>> + 'a
    where
        Self: Unpin,
    {
        let mut read = 0;
        poll_fn(move |cx| poll_read_until(Pin::new(&mut *self), cx, byte, buf, &mut read))
    }

    /// Reads all bytes until a newline (the `0xA` byte) is reached, and
    /// appends them to the provided `String` buffer (newline included).
    /// Returns the number of bytes read; 0 means EOF.
    ///
    /// Fails with `InvalidData` if the bytes are not UTF-8 (then `buf`
    /// is left unchanged; the error wraps the `Utf8Error`, as tokio's). If
    /// an I/O error is encountered, `buf` gets the bytes read so far if
    /// they are valid UTF-8, as in tokio.
    ///
    /// # Cancel safety
    ///
    /// This method is not cancellation safe: bytes read before the
    /// cancellation are lost for the line (use [`lines`] for a cancel-safe
    /// line reader).
    ///
    /// [`lines`]: AsyncBufReadExt::lines
    fn read_line<'a>(
        &'a mut self,
        buf: &'a mut String,
    ) -> impl Future<Output = io::Result<usize>> + 'a
    where
        Self: Unpin,
    {
        async move {
            let mut bytes = Vec::new();
            match self.read_until(b'\n', &mut bytes).await {
                Ok(n) => append_utf8(buf, bytes).map(|()| n),
                Err(e) => {
                    // tokio keeps what was read before the error (if UTF-8).
                    if let Ok(s) = String::from_utf8(bytes) {
                        buf.push_str(&s);
                    }
                    Err(e)
                }
            }
        }
    }

    /// Returns the contents of the internal buffer, filling it with more
    /// data from the inner reader if it is empty.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    fn fill_buf(&mut self) -> impl Future<Output = io::Result<&[u8]>> + '_
    where
        Self: Unpin,
    {
        let mut me = Some(self);
        poll_fn(move |cx| {
            let r = me.take().expect("polled after completion");
            match Pin::new(&mut *r).poll_fill_buf(cx) {
                Poll::Pending => {
                    me = Some(r);
                    Poll::Pending
                }
                // EOF: polling again would start another read (a `File`
                // does), so answer from here.
                Poll::Ready(Ok([])) => Poll::Ready(Ok(&[][..])),
                // Re-borrow for the full lifetime to return the slice: a
                // non-empty buffer is returned again, without I/O.
                Poll::Ready(Ok(_)) => Poll::Ready(match Pin::new(r).poll_fill_buf(cx) {
                    Poll::Ready(res) => res,
                    Poll::Pending => unreachable!("a filled buffer stays filled"),
                }),
                Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            }
        })
    }

    /// Tells this buffer that `amt` bytes have been consumed from the
    /// buffer, so they should no longer be returned in calls to `read`.
    fn consume(&mut self, amt: usize)
    where
        Self: Unpin,
    {
        std::pin::Pin::new(self).consume(amt);
    }

    /// Returns a stream over the lines of this reader (without the newline
    /// and a trailing `\r`).
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::io::AsyncBufReadExt;
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime")]
    /// # async fn main() -> std::io::Result<()> {
    /// let mut lines = (&b"a\r\nb\nc"[..]).lines();
    /// assert_eq!(lines.next_line().await?, Some("a".to_string()));
    /// assert_eq!(lines.next_line().await?, Some("b".to_string()));
    /// assert_eq!(lines.next_line().await?, Some("c".to_string()));
    /// assert_eq!(lines.next_line().await?, None);
    /// # Ok(())
    /// # }
    /// ```
    fn lines(self) -> Lines<Self>
    where
        Self: Sized,
    {
        Lines {
            reader: self,
            bytes: Vec::new(),
            read: 0,
        }
    }

    /// Returns a stream of the contents of this reader split on the byte
    /// `byte` (segments without the delimiter).
    ///
    /// ```
    /// use volt_runtime::io::AsyncBufReadExt;
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime")]
    /// # async fn main() -> std::io::Result<()> {
    /// let reader: &[u8] = b"a,b,,c";
    /// let mut parts = AsyncBufReadExt::split(reader, b',');
    /// let mut all = Vec::new();
    /// while let Some(p) = parts.next_segment().await? {
    ///     all.push(p);
    /// }
    /// assert_eq!(all, [&b"a"[..], b"b", b"", b"c"]);
    /// # Ok(())
    /// # }
    /// ```
    fn split(self, byte: u8) -> Split<Self>
    where
        Self: Sized,
    {
        Split {
            reader: self,
            buf: Vec::new(),
            delim: byte,
            read: 0,
        }
    }
}

impl<R: AsyncBufRead + ?Sized> AsyncBufReadExt for R {}

pin_project! {
    /// Reads lines from an [`AsyncBufRead`].
    ///
    /// This type is usually created using the
    /// [`lines`](AsyncBufReadExt::lines) method.
    #[derive(Debug)]
    #[must_use = "streams do nothing unless polled"]
    pub struct Lines<R> {
        #[pin]
        reader: R,
        bytes: Vec<u8>,
        read: usize,
    }
}

impl<R: AsyncBufRead> Lines<R> {
    /// Returns the next line in the stream.
    ///
    /// # Cancel safety
    ///
    /// This method is cancellation safe: a partially read line is kept
    /// and completed by the next call.
    pub async fn next_line(&mut self) -> io::Result<Option<String>>
    where
        R: Unpin,
    {
        poll_fn(|cx| Pin::new(&mut *self).poll_next_line(cx)).await
    }

    /// Obtains a mutable reference to the underlying reader.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// Obtains a reference to the underlying reader.
    pub fn get_ref(&self) -> &R {
        &self.reader
    }

    /// Unwraps this `Lines<R>`, returning the underlying reader.
    ///
    /// Note that any leftover data in the internal buffer is lost.
    pub fn into_inner(self) -> R {
        self.reader
    }

    /// Polls for the next line in the stream.
    pub fn poll_next_line(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<Option<String>>> {
        let me = self.project();
        let n = ready!(poll_read_until(me.reader, cx, b'\n', me.bytes, me.read))?;
        if n == 0 && me.bytes.is_empty() {
            return Poll::Ready(Ok(None));
        }
        let mut bytes = std::mem::take(me.bytes);
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
            if bytes.last() == Some(&b'\r') {
                bytes.pop();
            }
        }
        // tokio's error wraps the `FromUtf8Error` here.
        Poll::Ready(
            String::from_utf8(bytes)
                .map(Some)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e)),
        )
    }
}

pin_project! {
    /// Splitter for the [`split`](AsyncBufReadExt::split) method.
    #[derive(Debug)]
    #[must_use = "streams do nothing unless polled"]
    pub struct Split<R> {
        #[pin]
        reader: R,
        buf: Vec<u8>,
        delim: u8,
        read: usize,
    }
}

impl<R: AsyncBufRead> Split<R> {
    /// Returns the next segment in the stream.
    ///
    /// # Cancel safety
    ///
    /// This method is cancellation safe: a partially read segment is kept
    /// and completed by the next call.
    pub async fn next_segment(&mut self) -> io::Result<Option<Vec<u8>>>
    where
        R: Unpin,
    {
        poll_fn(|cx| Pin::new(&mut *self).poll_next_segment(cx)).await
    }

    /// Polls for the next segment in the stream.
    pub fn poll_next_segment(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<Option<Vec<u8>>>> {
        let me = self.project();
        let n = ready!(poll_read_until(me.reader, cx, *me.delim, me.buf, me.read))?;
        if n == 0 && me.buf.is_empty() {
            return Poll::Ready(Ok(None));
        }
        let mut segment = std::mem::take(me.buf);
        if segment.last() == Some(me.delim) {
            segment.pop();
        }
        Poll::Ready(Ok(Some(segment)))
    }
}
