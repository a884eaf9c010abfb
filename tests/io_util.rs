//! `BufReader`, `BufWriter`, `AsyncBufReadExt` (`read_line`, `read_until`,
//! `lines`, `fill_buf`/`consume`), `AsyncReadExt`/`AsyncWriteExt` basics.

use volt::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, BufWriter};
use volt::net::{TcpListener, TcpStream};

#[volt::test]
async fn line_protocol_over_tcp() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = volt::spawn(async move {
        let (s, _) = listener.accept().await.unwrap();
        let (r, w) = s.into_split();
        let mut lines = BufReader::new(r).lines();
        let mut w = BufWriter::new(w);
        while let Some(line) = lines.next_line().await.unwrap() {
            w.write_all(line.to_uppercase().as_bytes()).await.unwrap();
            w.write_all(b"\n").await.unwrap();
            w.flush().await.unwrap();
        }
    });
    let s = TcpStream::connect(addr).await.unwrap();
    let (r, mut w) = s.into_split();
    let mut r = BufReader::new(r);
    for word in ["alpha", "beta", "gamma"] {
        w.write_all(format!("{word}\r\n").as_bytes()).await.unwrap();
        let mut line = String::new();
        r.read_line(&mut line).await.unwrap();
        assert_eq!(line, format!("{}\n", word.to_uppercase()));
    }
    drop(w);
    server.await.unwrap();
}

#[volt::test]
async fn read_until_and_eof() {
    let mut r = BufReader::with_capacity(4, &b"ab,cdefgh,ij"[..]);
    let mut buf = Vec::new();
    assert_eq!(r.read_until(b',', &mut buf).await.unwrap(), 3);
    assert_eq!(buf, b"ab,");
    buf.clear();
    assert_eq!(r.read_until(b',', &mut buf).await.unwrap(), 7);
    assert_eq!(buf, b"cdefgh,");
    buf.clear();
    assert_eq!(r.read_until(b',', &mut buf).await.unwrap(), 2);
    assert_eq!(r.read_until(b',', &mut buf).await.unwrap(), 0);
}

#[volt::test]
async fn fill_buf_and_consume() {
    let mut r = BufReader::with_capacity(3, &b"hello"[..]);
    assert_eq!(r.fill_buf().await.unwrap(), b"hel");
    r.consume(2);
    assert_eq!(r.buffer(), b"l");
    let mut rest = String::new();
    r.read_to_string(&mut rest).await.unwrap();
    assert_eq!(rest, "llo");
}

#[volt::test]
async fn buf_writer_buffers_until_flush_and_passes_big_writes() {
    let mut w = BufWriter::with_capacity(8, Vec::new());
    w.write_all(b"abc").await.unwrap();
    assert!(w.get_ref().is_empty());
    assert_eq!(w.buffer(), b"abc");
    // Larger than the buffer: flushes what is buffered, writes through.
    w.write_all(b"0123456789").await.unwrap();
    assert_eq!(w.get_ref(), b"abc0123456789");
    w.write_all(b"z").await.unwrap();
    w.shutdown().await.unwrap();
    assert_eq!(w.into_inner(), b"abc0123456789z");
}

#[volt::test]
async fn invalid_utf8_line_is_an_error() {
    let mut r = BufReader::new(&[0xffu8, 0xfe, b'\n'][..]);
    let mut s = String::new();
    let err = r.read_line(&mut s).await.unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
    assert!(s.is_empty());
}

#[volt::test]
async fn lines_is_cancel_safe() {
    let (mut client, server) = {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let c = TcpStream::connect(addr).await.unwrap();
        (c, listener.accept().await.unwrap().0)
    };
    let mut lines = BufReader::new(server).lines();
    client.write_all(b"partial").await.unwrap();
    // A select gives up on the line half way: nothing may be lost.
    for _ in 0..3 {
        volt::select! {
            biased;
            _ = lines.next_line() => panic!("the line is not complete"),
            _ = volt::task::yield_now() => {}
        }
    }
    client.write_all(b" line\n").await.unwrap();
    assert_eq!(
        lines.next_line().await.unwrap().as_deref(),
        Some("partial line")
    );
}

#[volt::test]
async fn buf_stream_from_buf_writer_over_buf_reader_keeps_both_buffers() {
    use volt::io::{AsyncWriteExt as _, BufStream, duplex};
    let (mut peer, ours) = duplex(64);
    peer.write_all(b"hello world").await.unwrap();

    // Read a prefix: the BufReader buffers the rest of what arrived.
    let mut reader = BufReader::new(ours);
    let mut hello = [0u8; 5];
    reader.read_exact(&mut hello).await.unwrap();
    // Write without flushing: the BufWriter holds it.
    let mut writer = BufWriter::new(reader);
    writer.write_all(b"abc").await.unwrap();

    let mut stream = BufStream::from(writer);
    let mut rest = [0u8; 6];
    stream.read_exact(&mut rest).await.unwrap();
    assert_eq!((&hello, &rest), (b"hello", b" world"));
    stream.flush().await.unwrap();
    let mut got = [0u8; 3];
    peer.read_exact(&mut got).await.unwrap();
    assert_eq!(&got, b"abc");
}

#[volt::test]
async fn join_is_buf_read_when_its_reader_is() {
    let mut joined = volt::io::join(BufReader::new(&b"one\ntwo\n"[..]), Vec::new());
    let mut line = String::new();
    joined.read_line(&mut line).await.unwrap();
    assert_eq!(line, "one\n");
    let mut lines = joined.lines();
    assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("two"));
}

#[test]
fn read_buf_is_a_buf_mut() {
    use bytes::BufMut;
    let mut storage = [0u8; 8];
    let mut buf = volt::io::ReadBuf::new(&mut storage);
    assert_eq!(buf.remaining_mut(), 8);
    buf.put_slice(b"abc");
    buf.put_u8(b'd');
    assert_eq!(buf.filled(), b"abcd");
    assert_eq!(buf.remaining_mut(), 4);
}

/// A reader that yields `data` once, then fails.
struct ThenFail(Option<Vec<u8>>);

impl volt::io::AsyncRead for ThenFail {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
        buf: &mut volt::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(match self.0.take() {
            Some(data) => {
                buf.put_slice(&data);
                Ok(())
            }
            None => Err(std::io::Error::other("boom")),
        })
    }
}

#[volt::test]
async fn eof_errors_are_tokios() {
    let mut short: &[u8] = b"abc";
    let err = short.read_exact(&mut [0u8; 5]).await.unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
    assert_eq!(err.to_string(), "early eof");
    let mut short: &[u8] = b"a";
    let err = short.read_u16().await.unwrap_err();
    assert_eq!(
        (err.kind(), err.to_string()),
        (
            std::io::ErrorKind::UnexpectedEof,
            "unexpected end of file".to_string()
        )
    );
}

#[volt::test]
async fn utf8_errors_are_tokios() {
    use std::str::Utf8Error;
    use std::string::FromUtf8Error;
    // read_line: the Utf8Error of the whole string (index counts the
    // prefix already in `buf`), and `buf` unchanged.
    let mut r = BufReader::new(&b"q\xffz\n"[..]);
    let mut buf = String::from("ab");
    let err = r.read_line(&mut buf).await.unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
    assert_eq!(
        err.to_string(),
        "invalid utf-8 sequence of 1 bytes from index 3"
    );
    assert!(err.get_ref().unwrap().downcast_ref::<Utf8Error>().is_some());
    assert_eq!(buf, "ab");
    // read_to_string: the same.
    let mut r: &[u8] = b"xx\xff";
    let mut buf = String::from("prefix");
    let err = r.read_to_string(&mut buf).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid utf-8 sequence of 1 bytes from index 8"
    );
    assert_eq!(buf, "prefix");
    // lines: the FromUtf8Error of the line.
    let mut lines = BufReader::new(&b"ok\n\xffcd\n"[..]).lines();
    lines.next_line().await.unwrap();
    let err = lines.next_line().await.unwrap_err();
    assert!(
        err.get_ref()
            .unwrap()
            .downcast_ref::<FromUtf8Error>()
            .is_some()
    );
}

#[volt::test]
async fn read_line_keeps_what_it_read_before_an_io_error() {
    let mut r = BufReader::new(ThenFail(Some(b"partial".to_vec())));
    let mut buf = String::from(">");
    assert_eq!(r.read_line(&mut buf).await.unwrap_err().to_string(), "boom");
    assert_eq!(buf, ">partial");
    // ... unless it is not UTF-8; read_to_string keeps nothing.
    let mut r = BufReader::new(ThenFail(Some(b"bad\xff".to_vec())));
    let mut buf = String::from(">");
    r.read_line(&mut buf).await.unwrap_err();
    assert_eq!(buf, ">");
    let mut r = ThenFail(Some(b"xyz".to_vec()));
    let mut buf = String::from(">");
    r.read_to_string(&mut buf).await.unwrap_err();
    assert_eq!(buf, ">");
}
