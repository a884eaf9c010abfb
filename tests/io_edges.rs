//! The io helpers at their edges, as tokio 1.54 behaves (each found by
//! running tokio's own io test files against volt): `Interrupted` is
//! retried, vectored writes reach writers that take them, an in-memory
//! pipe never wakes or drops a waker under its lock, zero-length
//! operations finish at once, `read_to_end` does not grow a vector sized
//! for the data, and the capacity checks panic with tokio's messages.

use std::future::Future;
use std::io::{self, IoSlice};
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use volt::io::{
    AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncSeek, AsyncSeekExt, AsyncWrite, AsyncWriteExt,
    BufReader, BufWriter, ReadBuf,
};

/// A reader and writer that fails every other call with `Interrupted`,
/// serves `data` two bytes at a time, and keeps what is written.
#[derive(Default)]
struct Flaky {
    data: Vec<u8>,
    written: Vec<u8>,
    calls: usize,
    vectored: bool,
}

impl Flaky {
    fn interrupt(&mut self) -> bool {
        self.calls += 1;
        self.calls % 2 == 1
    }
}

impl AsyncRead for Flaky {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        if me.interrupt() {
            return Poll::Ready(Err(io::ErrorKind::Interrupted.into()));
        }
        let n = me.data.len().min(2).min(buf.remaining());
        buf.put_slice(&me.data[..n]);
        me.data.drain(..n);
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Flaky {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        if me.interrupt() {
            return Poll::Ready(Err(io::ErrorKind::Interrupted.into()));
        }
        let n = buf.len().min(2);
        me.written.extend_from_slice(&buf[..n]);
        Poll::Ready(Ok(n))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        assert!(
            me.vectored,
            "a vectored write to a writer that prefers plain ones"
        );
        let mut n = 0;
        for b in bufs {
            me.written.extend_from_slice(b);
            n += b.len();
        }
        Poll::Ready(Ok(n))
    }

    fn is_write_vectored(&self) -> bool {
        self.vectored
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// Polls `fut` once.
fn now_or_never<F: Future>(fut: F) -> Option<F::Output> {
    match pin!(fut).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => Some(v),
        Poll::Pending => None,
    }
}

fn flaky(data: &[u8]) -> Flaky {
    Flaky {
        data: data.to_vec(),
        ..Flaky::default()
    }
}

#[volt::test]
async fn interrupted_is_retried_by_the_helpers() {
    let mut buf = [0; 5];
    flaky(b"hello").read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"hello");

    let mut all = Vec::new();
    flaky(b"hello world").read_to_end(&mut all).await.unwrap();
    assert_eq!(all, b"hello world");

    let mut s = String::new();
    flaky(b"text").read_to_string(&mut s).await.unwrap();
    assert_eq!(s, "text");

    assert_eq!(flaky(&[0, 0, 1, 2]).read_u32().await.unwrap(), 0x0102);

    let mut line = String::new();
    BufReader::new(flaky(b"one\ntwo"))
        .read_line(&mut line)
        .await
        .unwrap();
    assert_eq!(line, "one\n");

    let mut w = Flaky::default();
    w.write_all(b"hello").await.unwrap();
    w.write_u16(0x0102).await.unwrap();
    let mut src = &b"buf"[..];
    w.write_all_buf(&mut src).await.unwrap();
    assert_eq!(w.written, b"hello\x01\x02buf");

    let mut w = Flaky::default();
    let copied = volt::io::copy(&mut flaky(b"copy me"), &mut w)
        .await
        .unwrap();
    assert_eq!((copied, &w.written[..]), (7, &b"copy me"[..]));

    let mut w = Flaky::default();
    let mut r = BufReader::new(flaky(b"buffered"));
    volt::io::copy_buf(&mut r, &mut w).await.unwrap();
    assert_eq!(w.written, b"buffered");

    let mut w = BufWriter::new(Flaky::default());
    w.write_all(b"flushed").await.unwrap();
    w.flush().await.unwrap();
    assert_eq!(w.get_ref().written, b"flushed");
}

#[volt::test]
async fn vectored_writes_reach_writers_that_take_them() {
    // write_buf and write_all_buf hand every chunk over in one call.
    let mut w = Flaky {
        vectored: true,
        calls: 1, // the next call is not interrupted
        ..Flaky::default()
    };
    let mut src = bytes::Buf::chain(&b"hello "[..], &b"world"[..]);
    assert_eq!(w.write_buf(&mut src).await.unwrap(), 11);
    assert_eq!(w.written, b"hello world");

    // Sink, duplex and simplex take all the slices at once.
    let bufs = [
        IoSlice::new(b""),
        IoSlice::new(b"hello"),
        IoSlice::new(b"world"),
    ];
    let mut sink = volt::io::sink();
    assert!(sink.is_write_vectored());
    assert_eq!(sink.write_vectored(&bufs).await.unwrap(), 10);
    let (mut a, mut b) = volt::io::duplex(64);
    assert!(a.is_write_vectored());
    assert_eq!(a.write_vectored(&bufs).await.unwrap(), 10);
    drop(a);
    let mut got = Vec::new();
    b.read_to_end(&mut got).await.unwrap();
    assert_eq!(got, b"helloworld");

    // A BufWriter over a writer that takes one slice at a time buffers as
    // many whole slices as fit rather than passing the first one down.
    let mut w = BufWriter::with_capacity(8, flaky(b""));
    let bufs = [
        IoSlice::new(b"foo "),
        IoSlice::new(b"bar "),
        IoSlice::new(b"baz"),
    ];
    assert_eq!(w.write_vectored(&bufs).await.unwrap(), 8);
    assert_eq!(w.buffer(), b"foo bar ");
    assert!(w.get_ref().written.is_empty());
}

#[volt::test]
async fn pipes_do_zero_length_operations_at_once() {
    let (mut reader, _peer) = volt::io::duplex(1);
    assert!(matches!(now_or_never(reader.read(&mut [])), Some(Ok(0))));
    let (mut writer, _peer) = volt::io::duplex(1);
    writer.write_all(b"x").await.unwrap(); // full
    assert!(matches!(now_or_never(writer.write(&[])), Some(Ok(0))));
    let (mut writer, peer) = volt::io::duplex(1);
    drop(peer);
    let err = writer.write(&[]).await.unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
}

/// The waker a pending read replaces is dropped after the pipe's lock is
/// released: dropping it here drops the peer end, which takes that lock.
#[test]
fn duplex_drops_a_replaced_waker_outside_its_lock() {
    struct OwnsPeer(#[allow(dead_code)] volt::io::DuplexStream);
    impl Wake for OwnsPeer {
        fn wake(self: Arc<Self>) {}
    }
    let (mut reader, peer) = volt::io::duplex(1);
    let mut read = pin!(async move { reader.read(&mut [0; 1]).await.unwrap() });
    let waker = Waker::from(Arc::new(OwnsPeer(peer)));
    assert!(
        read.as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending()
    );
    drop(waker);
    let mut cx = Context::from_waker(Waker::noop());
    // Replacing the waker drops the peer (closing the pipe); then EOF.
    assert!(read.as_mut().poll(&mut cx).is_pending());
    assert_eq!(read.as_mut().poll(&mut cx), Poll::Ready(0));
}

#[volt::test]
async fn read_to_end_does_not_grow_a_vector_sized_for_the_data() {
    for cap in [32, 40, 64] {
        let data: Vec<u8> = (0..cap as u8).collect();
        let mut buf = Vec::with_capacity(cap);
        (&data[..]).read_to_end(&mut buf).await.unwrap();
        assert_eq!(buf, data);
        assert_eq!(buf.capacity(), cap);
    }
}

#[volt::test]
async fn fill_buf_at_the_end_of_a_file() {
    let path = std::env::temp_dir().join(format!("volt-fill-buf-{}", std::process::id()));
    std::fs::write(&path, b"hello").unwrap();
    let mut file = BufReader::new(volt::fs::File::open(&path).await.unwrap());
    let mut contents = Vec::new();
    loop {
        let buf = file.fill_buf().await.unwrap();
        if buf.is_empty() {
            break;
        }
        contents.extend_from_slice(buf);
        let n = buf.len();
        file.consume(n);
    }
    assert_eq!(contents, b"hello");
    std::fs::remove_file(&path).unwrap();
}

/// A relative seek whose offset minus the buffered bytes underflows `i64`
/// takes two seeks of the inner reader instead of failing.
#[volt::test]
async fn buf_reader_seek_that_underflows_seeks_twice() {
    struct Counter(u64);
    impl AsyncRead for Counter {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            while buf.remaining() > 0 {
                buf.put_slice(&[self.0 as u8]);
                self.0 = self.0.wrapping_add(1);
            }
            Poll::Ready(Ok(()))
        }
    }
    impl AsyncSeek for Counter {
        fn start_seek(mut self: Pin<&mut Self>, pos: io::SeekFrom) -> io::Result<()> {
            self.0 = match pos {
                io::SeekFrom::Start(n) => n,
                io::SeekFrom::Current(n) => self.0.wrapping_add(n as u64),
                io::SeekFrom::End(n) => u64::MAX.wrapping_add(n as u64),
            };
            Ok(())
        }
        fn poll_complete(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<u64>> {
            Poll::Ready(Ok(self.0))
        }
    }
    let mut r = BufReader::with_capacity(5, Counter(0));
    assert_eq!(r.fill_buf().await.unwrap(), &[0, 1, 2, 3, 4]);
    assert_eq!(r.seek(io::SeekFrom::End(-5)).await.unwrap(), u64::MAX - 5);
    assert_eq!(r.fill_buf().await.unwrap().len(), 5);
    let to = r.seek(io::SeekFrom::Current(i64::MIN)).await.unwrap();
    assert_eq!(to, 9_223_372_036_854_775_802);
    assert_eq!(r.get_ref().0, to);
}

#[test]
#[should_panic(expected = "capacity must be greater than zero")]
fn buf_reader_of_zero_capacity_panics() {
    BufReader::with_capacity(0, &b""[..]);
}

/// `#[track_caller]` through `BufStream::with_capacity` and
/// `BufReader::with_capacity`: the panic names the caller's line.
#[test]
fn buf_stream_of_zero_capacity_panics_at_the_caller() {
    use std::sync::Mutex;
    use volt::io::{BufStream, empty};
    let location = Arc::new(Mutex::new(None));
    let (loc, me) = (location.clone(), std::thread::current().id());
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == me {
            *loc.lock().unwrap() = info.location().map(|l| (l.file().to_string(), l.line()));
        }
    }));
    let line = line!() + 1;
    let res = std::panic::catch_unwind(|| BufStream::with_capacity(0, 8, empty()));
    std::panic::set_hook(hook);
    assert!(res.is_err());
    let (file, l) = location.lock().unwrap().clone().unwrap();
    assert!(file.ends_with("io_edges.rs"), "{file}");
    assert_eq!(l, line);
}

#[volt::test]
#[should_panic(expected = "`b_to_a_buf_size` must be greater than 0")]
async fn copy_bidirectional_with_a_zero_size_panics() {
    let (mut a, mut b) = volt::io::duplex(8);
    let _ = volt::io::copy_bidirectional_with_sizes(&mut a, &mut b, 8, 0).await;
}
