//! `net::unix::pipe`: anonymous pipes, FIFOs opened with `OpenOptions`,
//! descriptors adopted with `from_owned_fd`, and tokio's errors for the
//! wrong kind of file.

use std::io::ErrorKind;
use std::os::unix::io::{AsFd, AsRawFd};
use std::path::PathBuf;
use volt::io::{AsyncReadExt, AsyncWriteExt, Interest};
use volt::net::unix::pipe;

fn temp_path(name: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let p = std::env::temp_dir().join(format!("volt-pipe-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

fn mkfifo(name: &str) -> PathBuf {
    let path = temp_path(name);
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: (test) `c` is a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    path
}

fn is_nonblocking(fd: &impl AsRawFd) -> bool {
    // SAFETY: (test) F_GETFL on an open descriptor.
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
    flags & libc::O_NONBLOCK != 0
}

#[volt::test]
async fn anonymous_pipe_round_trip_and_eof() {
    let (mut tx, mut rx) = pipe::pipe().unwrap();
    assert!(is_nonblocking(&tx) && is_nonblocking(&rx));
    let writer = volt::spawn(async move {
        // More than the pipe holds, so the writer has to wait for the
        // reader at least once.
        for chunk in vec![7u8; 256 * 1024].chunks(10_000) {
            tx.write_all(chunk).await.unwrap();
        }
    });
    let mut got = Vec::new();
    rx.read_to_end(&mut got).await.unwrap();
    writer.await.unwrap();
    assert_eq!(got.len(), 256 * 1024);
    assert!(got.iter().all(|&b| b == 7));
}

#[volt::test]
async fn try_io_and_readiness() {
    let (tx, rx) = pipe::pipe().unwrap();
    let mut buf = [0u8; 16];
    assert_eq!(
        rx.try_read(&mut buf).unwrap_err().kind(),
        ErrorKind::WouldBlock
    );
    tx.writable().await.unwrap();
    assert_eq!(tx.try_write(b"abc").unwrap(), 3);
    let bufs = [std::io::IoSlice::new(b"de"), std::io::IoSlice::new(b"f")];
    assert_eq!(tx.try_write_vectored(&bufs).unwrap(), 3);
    rx.readable().await.unwrap();
    assert_eq!(rx.try_read(&mut buf[..2]).unwrap(), 2);
    let mut rest = Vec::with_capacity(8);
    assert_eq!(rx.try_read_buf(&mut rest).unwrap(), 4);
    assert_eq!((&buf[..2], &rest[..]), (&b"ab"[..], &b"cdef"[..]));

    // The reader gone, writes fail, and once the driver has seen the
    // event, readiness says the write side is closed.
    drop(rx);
    assert_eq!(
        tx.try_write(b"x").unwrap_err().kind(),
        ErrorKind::BrokenPipe
    );
    let mut closed = false;
    for _ in 0..1000 {
        if tx
            .ready(Interest::WRITABLE)
            .await
            .unwrap()
            .is_write_closed()
        {
            closed = true;
            break;
        }
        volt::task::yield_now().await;
    }
    assert!(closed, "WRITE_CLOSED never reported");
}

#[volt::test]
async fn fifo_sender_needs_a_reader_unless_read_write() {
    let path = mkfifo("enxio");
    let err = pipe::OpenOptions::new().open_sender(&path).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::ENXIO));

    let mut rx = pipe::OpenOptions::new().open_receiver(&path).unwrap();
    let mut tx = pipe::OpenOptions::new().open_sender(&path).unwrap();
    tx.write_all(b"through the fifo").await.unwrap();
    drop(tx);
    let mut got = String::new();
    rx.read_to_string(&mut got).await.unwrap();
    assert_eq!(got, "through the fifo");
    drop(rx);

    // Linux: read-write access opens without a reader.
    let mut tx = pipe::OpenOptions::new()
        .read_write(true)
        .open_sender(&path)
        .unwrap();
    tx.write_all(b"early").await.unwrap();
    let mut rx = pipe::OpenOptions::new().open_receiver(&path).unwrap();
    let mut buf = [0u8; 5];
    rx.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"early");
    let _ = std::fs::remove_file(&path);
}

#[volt::test]
async fn regular_files_and_wrong_directions_are_refused() {
    let path = temp_path("regular");
    std::fs::write(&path, b"not a fifo").unwrap();
    let err = pipe::OpenOptions::new().open_receiver(&path).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(err.to_string(), "not a pipe");
    let file = std::fs::File::open(&path).unwrap();
    assert_eq!(
        pipe::Receiver::from_file(file).unwrap_err().to_string(),
        "not a pipe"
    );
    let _ = std::fs::remove_file(&path);

    let (tx, rx) = pipe::pipe().unwrap();
    let tx_fd = tx.into_blocking_fd().unwrap();
    let rx_fd = rx.into_nonblocking_fd().unwrap();
    assert!(!is_nonblocking(&tx_fd));
    assert!(is_nonblocking(&rx_fd));
    let write_end = tx_fd.try_clone().unwrap();
    let err = pipe::Receiver::from_owned_fd(write_end).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(err.to_string(), "not in O_RDONLY or O_RDWR access mode");
    let read_end = rx_fd.try_clone().unwrap();
    let err = pipe::Sender::from_owned_fd(read_end).unwrap_err();
    assert_eq!(err.to_string(), "not in O_WRONLY or O_RDWR access mode");

    // The right directions are adopted, and made non-blocking again.
    let mut tx = pipe::Sender::from_owned_fd(tx_fd).unwrap();
    let mut rx = pipe::Receiver::from_owned_fd(rx_fd).unwrap();
    assert!(is_nonblocking(&tx.as_fd()));
    tx.write_all(b"ok").await.unwrap();
    let mut buf = [0u8; 2];
    rx.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"ok");
}

#[volt::test]
async fn try_io_runs_only_when_ready() {
    use std::io::{Read, Write};
    let (tx, rx) = pipe::pipe().unwrap();
    // The raw syscalls go through `File`s on duplicates of the ends.
    let fd_write =
        |buf: &[u8]| std::fs::File::from(tx.as_fd().try_clone_to_owned().unwrap()).write(buf);
    let fd_read =
        |buf: &mut [u8]| std::fs::File::from(rx.as_fd().try_clone_to_owned().unwrap()).read(buf);
    tx.writable().await.unwrap();
    assert_eq!(tx.try_io(|| fd_write(b"raw")).unwrap(), 3);

    rx.readable().await.unwrap();
    let mut buf = [0u8; 8];
    let n = rx.try_io(|| fd_read(&mut buf)).unwrap();
    assert_eq!(&buf[..n], b"raw");
    // Drained: the read's WouldBlock clears readiness; then `f` is not run.
    let again = rx.try_io(|| fd_read(&mut buf));
    assert_eq!(again.unwrap_err().kind(), ErrorKind::WouldBlock);
    let skipped = rx.try_io(|| -> std::io::Result<()> { panic!("run without readiness") });
    assert_eq!(skipped.unwrap_err().kind(), ErrorKind::WouldBlock);
}
