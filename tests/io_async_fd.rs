//! `AsyncFd`: readable/writable with a Unix socket pair, separate reader
//! and writer wake-ups, `try_io` clearing readiness, `into_inner`.

use std::future::Future;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;

use volt::io::Interest;
use volt::io::unix::AsyncFd;

fn pair() -> (UnixStream, UnixStream) {
    let (a, b) = UnixStream::pair().unwrap();
    a.set_nonblocking(true).unwrap();
    b.set_nonblocking(true).unwrap();
    (a, b)
}

#[volt::test]
async fn readable_after_the_peer_writes() {
    let (a, mut b) = pair();
    // SAFETY: `a` owns its descriptor for as long as the `AsyncFd` owns `a`.
    let fd = unsafe { AsyncFd::register(a) }.unwrap();
    let reader = volt::spawn(async move {
        loop {
            let mut guard = fd.readable().await.unwrap();
            let mut buf = [0u8; 8];
            match guard.try_io(|inner| inner.get_ref().read(&mut buf)) {
                Ok(res) => return buf[..res.unwrap()].to_vec(),
                Err(_would_block) => continue,
            }
        }
    });
    volt::task::yield_now().await;
    b.write_all(b"hi").unwrap();
    assert_eq!(reader.await.unwrap(), b"hi");
}

#[volt::test]
async fn a_waiting_writer_is_not_woken_by_readability() {
    let (a, mut b) = pair();
    // Fill a's send buffer so that it is not writable.
    let mut a = a;
    let chunk = [0u8; 65536];
    loop {
        match a.write(&chunk) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
            Err(e) => panic!("{e}"),
        }
    }
    let fd = std::sync::Arc::new(
        // SAFETY: `a` owns its descriptor for as long as the `AsyncFd` owns `a`.
        unsafe { AsyncFd::register_with_interest(a, Interest::READABLE | Interest::WRITABLE) }
            .unwrap(),
    );
    // Counts the writer task's polls: a wake-up by readability would poll
    // it again (and find it still not writable).
    let polls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (fd2, polls2) = (fd.clone(), polls.clone());
    let writer = volt::spawn(async move {
        let mut fut = std::pin::pin!(fd2.writable());
        std::future::poll_fn(|cx| {
            polls2.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            fut.as_mut()
                .poll(cx)
                .map(|g| g.map(|mut g| g.retain_ready()))
        })
        .await
        .unwrap();
    });
    volt::task::yield_now().await;
    assert_eq!(polls.load(std::sync::atomic::Ordering::SeqCst), 1);
    // Make `a` readable: the writer must stay asleep.
    b.write_all(b"x").unwrap();
    let mut g = fd.readable().await.unwrap();
    assert!(g.ready().is_readable());
    g.retain_ready();
    // Give a (wrongly) woken writer every chance to run.
    for _ in 0..10 {
        volt::task::yield_now().await;
    }
    assert_eq!(polls.load(std::sync::atomic::Ordering::SeqCst), 1);
    // Drain b's receive side: a becomes writable and the writer wakes.
    let mut sink = vec![0u8; 1 << 20];
    volt::task::spawn_blocking(move || {
        b.set_nonblocking(false).unwrap();
        let mut total = 0;
        while total < 65536 {
            total += b.read(&mut sink).unwrap();
        }
    })
    .await
    .unwrap();
    writer.await.unwrap();
    assert_eq!(polls.load(std::sync::atomic::Ordering::SeqCst), 2);
}

#[volt::test]
async fn async_io_retries_until_ready_and_into_inner_gives_back() {
    let (a, mut b) = pair();
    // SAFETY: `a` owns its descriptor for as long as the `AsyncFd` owns `a`.
    let fd = unsafe { AsyncFd::register(a) }.unwrap();
    let t = volt::spawn(async move {
        let mut buf = [0u8; 4];
        let n = fd
            .async_io(Interest::READABLE, |s| (&*s).read(&mut buf))
            .await
            .unwrap();
        (buf[..n].to_vec(), fd.into_inner())
    });
    volt::task::yield_now().await;
    b.write_all(b"abcd").unwrap();
    let (got, inner) = t.await.unwrap();
    assert_eq!(got, b"abcd");
    inner.set_nonblocking(false).unwrap();
}

#[volt::test]
async fn register_gives_the_object_back_on_error() {
    // A regular file cannot be registered with epoll.
    let f = std::fs::File::open("/dev/null").unwrap();
    // SAFETY: `f` owns its descriptor for as long as the `AsyncFd` owns it.
    match unsafe { AsyncFd::register(f) } {
        Ok(_) => {} // some kernels accept it; nothing to check then
        Err(e) => {
            let (_file, err) = e.into_parts();
            assert!(err.raw_os_error().is_some());
        }
    }
}

#[volt::test]
#[allow(deprecated)]
async fn deprecated_constructors_still_work_as_in_tokio() {
    let (a, _b) = pair();
    let fd = AsyncFd::new(a).unwrap();
    let _ = fd.writable().await.unwrap();
    let (c, _d) = pair();
    let fd: Result<AsyncFd<_>, volt::io::unix::AsyncFdTryNewError<_>> = AsyncFd::try_new(c);
    assert!(fd.is_ok());
}

#[volt::test]
async fn try_io_without_a_guard() {
    let (a, mut b) = pair();
    // SAFETY: `a` owns its descriptor for as long as the `AsyncFd` owns `a`.
    let mut fd = unsafe { AsyncFd::register(a) }.unwrap();
    let mut buf = [0u8; 8];
    // Not known to be readable: `f` is not run.
    let mut ran = false;
    let err = fd
        .try_io(Interest::READABLE, |_| {
            ran = true;
            Ok(0)
        })
        .unwrap_err();
    assert_eq!((err.kind(), ran), (std::io::ErrorKind::WouldBlock, false));

    b.write_all(b"one").unwrap();
    fd.readable().await.unwrap().retain_ready();
    let n = fd
        .try_io(Interest::READABLE, |s| (&*s).read(&mut buf))
        .unwrap();
    assert_eq!(&buf[..n], b"one");
    // Drained: the next read's WouldBlock clears the readiness, so a
    // second try does not even run `f`.
    let err = fd
        .try_io_mut(Interest::READABLE, |s| s.read(&mut buf))
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
    let err = fd
        .try_io_mut(Interest::READABLE, |_| -> std::io::Result<()> {
            panic!("run without readiness")
        })
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);

    b.write_all(b"two").unwrap();
    fd.readable_mut().await.unwrap().retain_ready();
    let n = fd
        .try_io_mut(Interest::READABLE, |s| s.read(&mut buf))
        .unwrap();
    assert_eq!(&buf[..n], b"two");
}
