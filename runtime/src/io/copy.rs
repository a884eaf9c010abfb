//! `copy`, `copy_buf`, `copy_bidirectional`: pump bytes from readers to
//! writers.
//!
//! A `CopyBuffer` holds one chunk (8 KiB by default) between a read and
//! the writes that drain it. When the reader has nothing ready it flushes
//! the writer first (so a buffered writer does not sit on data while the
//! copy waits), and each loop turn spends one unit of the task's coop
//! budget, so copying between two always-ready in-memory streams still
//! yields to the scheduler.

use super::{AsyncBufRead, AsyncRead, AsyncWrite, ReadBuf};

use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// Default chunk size of `copy` (tokio's).
const DEFAULT_BUF_SIZE: usize = 8 * 1024;

/// One direction of a copy: a chunk in flight and what it has done.
#[derive(Debug)]
struct CopyBuffer {
    read_done: bool,
    need_flush: bool,
    pos: usize,
    cap: usize,
    amt: u64,
    buf: Box<[u8]>,
}

impl CopyBuffer {
    fn new(size: usize) -> Self {
        CopyBuffer {
            read_done: false,
            need_flush: false,
            pos: 0,
            cap: 0,
            amt: 0,
            buf: vec![0; size].into_boxed_slice(),
        }
    }

    /// Copies until the reader's EOF has been written and flushed; returns
    /// the total bytes copied.
    fn poll_copy<R, W>(
        &mut self,
        cx: &mut Context<'_>,
        mut reader: Pin<&mut R>,
        mut writer: Pin<&mut W>,
    ) -> Poll<io::Result<u64>>
    where
        R: AsyncRead + ?Sized,
        W: AsyncWrite + ?Sized,
    {
        loop {
            let coop = ready!(crate::coop::poll_proceed(cx));
            if self.pos == self.cap && !self.read_done {
                let mut rb = ReadBuf::new(&mut self.buf);
                match reader.as_mut().poll_read(cx, &mut rb) {
                    Poll::Ready(Ok(())) => {
                        let n = rb.filled().len();
                        self.pos = 0;
                        self.cap = n;
                        self.read_done = n == 0;
                    }
                    Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => {
                        // Nothing to read now: push out what was written.
                        if self.need_flush {
                            ready!(writer.as_mut().poll_flush(cx))?;
                            self.need_flush = false;
                        }
                        return Poll::Pending;
                    }
                }
            }
            while self.pos < self.cap {
                let n = ready_retry!(
                    writer
                        .as_mut()
                        .poll_write(cx, &self.buf[self.pos..self.cap])
                )?;
                if n == 0 {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "write zero byte into writer",
                    )));
                }
                self.pos += n;
                self.amt += n as u64;
                self.need_flush = true;
            }
            coop.made_progress();
            if self.read_done {
                ready!(writer.as_mut().poll_flush(cx))?;
                self.need_flush = false;
                return Poll::Ready(Ok(self.amt));
            }
        }
    }
}

/// Asynchronously copies the entire contents of a reader into a writer.
///
/// Returns the number of bytes copied. The writer is flushed at the end
/// (and whenever the reader has nothing ready).
///
/// # Errors
///
/// The first error returned by the reader or the writer; `WriteZero` if
/// the writer accepts no bytes.
///
/// # Cancel safety
///
/// Not cancel safe: bytes read but not yet written when the future is
/// dropped are lost.
///
/// # Examples
///
/// ```
/// use volt_runtime::io;
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> io::Result<()> {
/// let mut reader: &[u8] = b"hello";
/// let mut writer: Vec<u8> = vec![];
/// io::copy(&mut reader, &mut writer).await?;
/// assert_eq!(&b"hello"[..], &writer[..]);
/// # Ok(())
/// # }
/// ```
pub async fn copy<'a, R, W>(reader: &'a mut R, writer: &'a mut W) -> io::Result<u64>
where
    R: AsyncRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    let mut buf = CopyBuffer::new(DEFAULT_BUF_SIZE);
    poll_fn(|cx| buf.poll_copy(cx, Pin::new(&mut *reader), Pin::new(&mut *writer))).await
}

/// Asynchronously copies the entire contents of a buffered reader into a
/// writer, writing straight from the reader's buffer (no extra copy).
///
/// Returns the number of bytes copied.
///
/// # Cancel safety
///
/// Not cancel safe in general; bytes are consumed from the reader only
/// once written, so none are lost between the two.
///
/// # Examples
///
/// ```
/// use volt_runtime::io;
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> io::Result<()> {
/// let mut reader: &[u8] = b"hello";
/// let mut writer: Vec<u8> = vec![];
/// io::copy_buf(&mut reader, &mut writer).await?;
/// assert_eq!(b"hello", &writer[..]);
/// # Ok(())
/// # }
/// ```
pub async fn copy_buf<'a, R, W>(reader: &'a mut R, writer: &'a mut W) -> io::Result<u64>
where
    R: AsyncBufRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    let mut amt = 0u64;
    poll_fn(|cx| {
        loop {
            let coop = ready!(crate::coop::poll_proceed(cx));
            let mut r = Pin::new(&mut *reader);
            let w = Pin::new(&mut *writer);
            let buf = match r.as_mut().poll_fill_buf(cx) {
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Poll::Ready(res) => res?,
                Poll::Pending => {
                    ready!(w.poll_flush(cx))?;
                    return Poll::Pending;
                }
            };
            if buf.is_empty() {
                ready!(w.poll_flush(cx))?;
                return Poll::Ready(Ok(amt));
            }
            let n = ready_retry!(w.poll_write(cx, buf))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            r.consume(n);
            amt += n as u64;
            coop.made_progress();
        }
    })
    .await
}

/// Where one direction of a bidirectional copy is.
enum Direction {
    Copying(CopyBuffer),
    ShuttingDown(u64),
    Done(u64),
}

fn poll_direction<A, B>(
    cx: &mut Context<'_>,
    state: &mut Direction,
    mut r: Pin<&mut A>,
    mut w: Pin<&mut B>,
) -> Poll<io::Result<u64>>
where
    A: AsyncRead + ?Sized,
    B: AsyncWrite + ?Sized,
{
    loop {
        match state {
            Direction::Copying(buf) => {
                let n = ready!(buf.poll_copy(cx, r.as_mut(), w.as_mut()))?;
                *state = Direction::ShuttingDown(n);
            }
            Direction::ShuttingDown(n) => {
                ready!(w.as_mut().poll_shutdown(cx))?;
                *state = Direction::Done(*n);
            }
            Direction::Done(n) => return Poll::Ready(Ok(*n)),
        }
    }
}

/// Copies data in both directions between `a` and `b`, until both reach
/// EOF.
///
/// When one side reads EOF, the other side's write half is shut down
/// (after flushing), and the copy goes on in the other direction. Returns
/// `(bytes a→b, bytes b→a)`.
///
/// # Errors
///
/// The first error of either direction; the other direction stops then.
///
/// # Cancel safety
///
/// Not cancel safe: bytes in flight are lost if the future is dropped.
///
/// # Examples
///
/// ```
/// use volt_runtime::io::{self, AsyncReadExt, AsyncWriteExt};
///
/// # #[volt_runtime::main(crate = "volt_runtime")]
/// # async fn main() -> io::Result<()> {
/// let (mut client, mut a) = io::duplex(64);
/// let (mut b, mut server) = io::duplex(64);
/// let proxy = volt_runtime::spawn(async move { io::copy_bidirectional(&mut a, &mut b).await });
/// client.write_all(b"ping").await?;
/// client.shutdown().await?;
/// let mut got = Vec::new();
/// server.read_to_end(&mut got).await?;
/// assert_eq!(got, b"ping");
/// drop(server);
/// assert_eq!(proxy.await.unwrap()?, (4, 0));
/// # Ok(())
/// # }
/// ```
pub async fn copy_bidirectional<A, B>(a: &mut A, b: &mut B) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    copy_bidirectional_with_sizes(a, b, DEFAULT_BUF_SIZE, DEFAULT_BUF_SIZE).await
}

/// [`copy_bidirectional`] with the chunk size of each direction given:
/// `a_to_b_buf_size` for `a`→`b`, `b_to_a_buf_size` for `b`→`a`.
///
/// # Panics
///
/// When polled, if either size is 0 (tokio's messages).
///
/// # Cancel safety
///
/// Not cancel safe: bytes in flight are lost if the future is dropped.
pub async fn copy_bidirectional_with_sizes<A, B>(
    a: &mut A,
    b: &mut B,
    a_to_b_buf_size: usize,
    b_to_a_buf_size: usize,
) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    assert!(
        a_to_b_buf_size > 0,
        "`a_to_b_buf_size` must be greater than 0"
    );
    assert!(
        b_to_a_buf_size > 0,
        "`b_to_a_buf_size` must be greater than 0"
    );
    let mut a_to_b = Direction::Copying(CopyBuffer::new(a_to_b_buf_size));
    let mut b_to_a = Direction::Copying(CopyBuffer::new(b_to_a_buf_size));
    poll_fn(|cx| {
        let ab = poll_direction(cx, &mut a_to_b, Pin::new(&mut *a), Pin::new(&mut *b))?;
        let ba = poll_direction(cx, &mut b_to_a, Pin::new(&mut *b), Pin::new(&mut *a))?;
        let ab = ready!(ab);
        let ba = ready!(ba);
        Poll::Ready(Ok((ab, ba)))
    })
    .await
}
