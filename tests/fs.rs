//! `volt::fs`: whole-file helpers, `File` reads/writes/seeks through the
//! blocking pool, directories, metadata, errors with the OS's codes.

use std::io::{ErrorKind, SeekFrom};
use std::path::PathBuf;
use volt::fs::{self, File, OpenOptions};
use volt::io::{AsyncBufReadExt, AsyncReadExt, AsyncSeekExt, AsyncWriteExt, BufReader};

/// A fresh directory under the temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("volt-fs-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[volt::test]
async fn whole_file_helpers() {
    let d = TempDir::new("helpers");
    let a = d.0.join("a.txt");
    fs::write(&a, "hello").await.unwrap();
    assert_eq!(fs::read(&a).await.unwrap(), b"hello");
    assert_eq!(fs::read_to_string(&a).await.unwrap(), "hello");
    let b = d.0.join("b.txt");
    assert_eq!(fs::copy(&a, &b).await.unwrap(), 5);
    let c = d.0.join("c.txt");
    fs::rename(&b, &c).await.unwrap();
    assert!(!fs::try_exists(&b).await.unwrap());
    assert!(fs::try_exists(&c).await.unwrap());
    fs::hard_link(&c, d.0.join("h.txt")).await.unwrap();
    fs::symlink(&c, d.0.join("s.txt")).await.unwrap();
    assert!(
        fs::symlink_metadata(d.0.join("s.txt"))
            .await
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_link(d.0.join("s.txt")).await.unwrap(), c);
    assert_eq!(fs::metadata(&c).await.unwrap().len(), 5);
    assert_eq!(
        fs::canonicalize(&c).await.unwrap(),
        std::fs::canonicalize(&c).unwrap()
    );
    let mut perms = fs::metadata(&c).await.unwrap().permissions();
    perms.set_readonly(true);
    fs::set_permissions(&c, perms).await.unwrap();
    assert!(fs::metadata(&c).await.unwrap().permissions().readonly());
    fs::remove_file(&a).await.unwrap();
    assert_eq!(fs::read(&a).await.unwrap_err().kind(), ErrorKind::NotFound);
}

#[volt::test]
async fn directories() {
    let d = TempDir::new("dirs");
    let deep = d.0.join("x/y/z");
    fs::create_dir_all(&deep).await.unwrap();
    assert_eq!(
        fs::create_dir(&deep).await.unwrap_err().kind(),
        ErrorKind::AlreadyExists
    );
    fs::DirBuilder::new()
        .recursive(true)
        .create(d.0.join("p/q"))
        .await
        .unwrap();
    for i in 0..70 {
        fs::write(d.0.join(format!("f{i}")), [i as u8])
            .await
            .unwrap();
    }
    let mut names = Vec::new();
    let mut rd = fs::read_dir(&d.0).await.unwrap();
    while let Some(e) = rd.next_entry().await.unwrap() {
        if e.file_type().await.unwrap().is_file() {
            assert_eq!(e.metadata().await.unwrap().len(), 1);
        }
        assert_eq!(e.path(), d.0.join(e.file_name()));
        names.push(e.file_name().into_string().unwrap());
    }
    // 70 files (more than two batches) + "x" + "p".
    assert_eq!(names.len(), 72);
    fs::remove_dir(&deep).await.unwrap();
    assert_eq!(
        fs::remove_dir(d.0.join("x")).await.unwrap_err().kind(),
        ErrorKind::DirectoryNotEmpty
    );
    fs::remove_dir_all(d.0.join("x")).await.unwrap();
    assert!(!fs::try_exists(d.0.join("x")).await.unwrap());
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_write_read_seek() {
    let d = TempDir::new("file");
    let p = d.0.join("data.bin");
    let mut f = File::create(&p).await.unwrap();
    let data: Vec<u8> = (0..3_000_000u32).map(|i| (i % 253) as u8).collect();
    f.write_all(&data).await.unwrap();
    f.flush().await.unwrap();
    f.sync_all().await.unwrap();
    assert_eq!(f.metadata().await.unwrap().len(), data.len() as u64);
    drop(f);

    let mut f = File::open(&p).await.unwrap();
    let mut got = Vec::new();
    f.read_to_end(&mut got).await.unwrap();
    assert_eq!(got, data);

    // Seek after a partial (read-ahead) read lands where the caller is.
    let mut f = BufReader::new(File::open(&p).await.unwrap());
    let mut first = [0u8; 10];
    f.read_exact(&mut first).await.unwrap();
    let mut inner = f.into_inner();
    assert_eq!(inner.seek(SeekFrom::Start(1000)).await.unwrap(), 1000);
    let mut b = [0u8; 4];
    inner.read_exact(&mut b).await.unwrap();
    assert_eq!(&b, &data[1000..1004]);
    // Current-relative seek accounts for bytes read ahead but not used.
    let pos = inner.seek(SeekFrom::Current(0)).await.unwrap();
    assert_eq!(pos, 1004);
}

#[volt::test]
async fn write_after_partial_read_writes_at_the_cursor() {
    let d = TempDir::new("rw");
    let p = d.0.join("rw.txt");
    fs::write(&p, "0123456789").await.unwrap();
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&p)
        .await
        .unwrap();
    let mut two = [0u8; 2];
    f.read_exact(&mut two).await.unwrap();
    f.write_all(b"AB").await.unwrap();
    f.flush().await.unwrap();
    drop(f);
    assert_eq!(fs::read_to_string(&p).await.unwrap(), "01AB456789");
}

#[volt::test]
async fn open_options_and_set_len() {
    let d = TempDir::new("opts");
    let p = d.0.join("o.txt");
    let f = File::create_new(&p).await.unwrap();
    assert_eq!(
        File::create_new(&p).await.unwrap_err().kind(),
        ErrorKind::AlreadyExists
    );
    f.set_len(100).await.unwrap();
    assert_eq!(f.metadata().await.unwrap().len(), 100);
    drop(f);
    let mut f = OpenOptions::new().append(true).open(&p).await.unwrap();
    f.write_all(b"tail").await.unwrap();
    f.flush().await.unwrap();
    assert_eq!(fs::metadata(&p).await.unwrap().len(), 104);
    let std = f.into_std().await;
    assert_eq!(std.metadata().unwrap().len(), 104);
    assert_eq!(
        File::open(d.0.join("missing")).await.unwrap_err().kind(),
        ErrorKind::NotFound
    );
}

#[volt::test]
async fn lines_of_a_file() {
    let d = TempDir::new("lines");
    let p = d.0.join("l.txt");
    fs::write(&p, "a\nb\nc\n").await.unwrap();
    let mut lines = BufReader::new(File::open(&p).await.unwrap()).lines();
    let mut all = Vec::new();
    while let Some(l) = lines.next_line().await.unwrap() {
        all.push(l);
    }
    assert_eq!(all, ["a", "b", "c"]);
}

#[volt::test]
async fn set_times_and_set_modified() {
    use std::time::{Duration, SystemTime};
    use volt::fs::FileTimes;
    let dir = TempDir::new("times");
    let path = dir.0.join("f");
    let file = File::create(&path).await.unwrap();
    let then = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    let later = then + Duration::from_secs(60);
    file.set_times(FileTimes::new().set_accessed(then).set_modified(later))
        .await
        .unwrap();
    let meta = fs::metadata(&path).await.unwrap();
    assert_eq!(
        (meta.accessed().unwrap(), meta.modified().unwrap()),
        (then, later)
    );

    // Only `modified` changes; the access time stays.
    file.set_modified(then).await.unwrap();
    let meta = fs::metadata(&path).await.unwrap();
    assert_eq!(
        (meta.accessed().unwrap(), meta.modified().unwrap()),
        (then, then)
    );
}

#[volt::test]
async fn file_from_owned_fd() {
    let dir = TempDir::new("ownedfd");
    let path = dir.0.join("f");
    std::fs::write(&path, b"from an fd").unwrap();
    let fd = std::os::fd::OwnedFd::from(std::fs::File::open(&path).unwrap());
    let mut file = File::from(fd);
    let mut got = String::new();
    file.read_to_string(&mut got).await.unwrap();
    assert_eq!(got, "from an fd");
}

/// A `File` whose blocking task fails (here: cancelled by a blocking pool
/// that is already shut down) reports an error and stays usable; polling
/// again never touches the finished task (which would panic).
#[test]
fn file_survives_a_failed_blocking_task() {
    use std::future::Future;
    use std::task::{Context, Waker};

    fn poll_once<F: Future>(fut: F) {
        let _ = std::pin::pin!(fut).poll(&mut Context::from_waker(Waker::noop()));
    }
    let path = std::env::temp_dir().join(format!("volt-fs-dead-pool-{}", std::process::id()));
    std::fs::write(&path, b"xxxx").unwrap();
    let rt = volt::runtime::Builder::new_multi_thread().build().unwrap();
    let handle = rt.handle().clone();
    rt.shutdown_timeout(std::time::Duration::ZERO);
    let _enter = handle.enter();
    let std = std::fs::File::options()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    let mut file = volt::fs::File::from_std(std);
    for _ in 0..2 {
        poll_once(file.read(&mut [0; 4]));
        poll_once(file.seek(std::io::SeekFrom::Start(0)));
        poll_once(file.write(b"z"));
        poll_once(file.flush());
    }
    drop(file);
    std::fs::remove_file(&path).unwrap();
}

#[volt::test]
async fn file_edges_as_tokio() {
    let path = std::env::temp_dir().join(format!("volt-fs-edges-{}", std::process::id()));
    std::fs::write(&path, b"hello").unwrap();

    // An empty read is no read (and no EOF).
    let mut file = volt::fs::File::open(&path).await.unwrap();
    assert_eq!(file.read(&mut []).await.unwrap(), 0);
    let mut buf = [0; 16];
    assert_eq!(file.read(&mut buf).await.unwrap(), 5);

    // Vectored writes go out whole; try_clone keeps the buffer size.
    let mut file = volt::fs::File::create(&path).await.unwrap();
    assert!(volt::io::AsyncWrite::is_write_vectored(&file));
    let bufs = [
        std::io::IoSlice::new(b"hello "),
        std::io::IoSlice::new(b"world"),
    ];
    assert_eq!(file.write_vectored(&bufs).await.unwrap(), 11);
    file.flush().await.unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"hello world");
    file.set_max_buf_size(7);
    assert_eq!(file.try_clone().await.unwrap().max_buf_size(), 7);
    let zero = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| file.set_max_buf_size(0)));
    assert!(zero.is_err());
    volt::fs::remove_file(&path).await.unwrap();
}

/// After the runtime shut down, `fs` helpers fail with tokio's
/// "background task failed", and stdout/stderr writes with the runtime's
/// shutdown error (their blocking calls are mandatory: once spawned they
/// run, but none can be spawned any more).
#[test]
fn blocking_io_after_shutdown_fails_as_tokio() {
    use volt::runtime::{Builder, Handle, is_rt_shutdown_err};
    let rt = Builder::new_current_thread().build().unwrap();
    let _enter = rt.enter();
    rt.shutdown_timeout(std::time::Duration::from_secs(1000));
    let err = Handle::current()
        .block_on(fs::read_to_string("Cargo.toml"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Other);
    assert_eq!(err.get_ref().unwrap().to_string(), "background task failed");
    for res in [
        Handle::current().block_on(async { volt::io::stdout().write_all(b"x").await }),
        Handle::current().block_on(async { volt::io::stderr().write_all(b"x").await }),
    ] {
        assert!(is_rt_shutdown_err(&res.unwrap_err()));
    }
}
