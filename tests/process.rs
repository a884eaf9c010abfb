//! `volt::process`: spawn, output, status, piped stdio, wait/try_wait,
//! kill, kill_on_drop, errors.

use std::process::Stdio;
use std::time::Duration;
use volt::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use volt::process::Command;

#[volt::test]
async fn output_captures_stdout_stderr_and_status() {
    let out = Command::new("sh")
        .arg("-c")
        .arg("echo out; echo err >&2; exit 3")
        .output()
        .await
        .unwrap();
    assert_eq!(out.stdout, b"out\n");
    assert_eq!(out.stderr, b"err\n");
    assert_eq!(out.status.code(), Some(3));
}

#[volt::test]
async fn status_of_true_and_false() {
    assert!(Command::new("true").status().await.unwrap().success());
    assert!(!Command::new("false").status().await.unwrap().success());
}

#[volt::test]
async fn missing_program_is_not_found() {
    let err = Command::new("/definitely/not/here").spawn().unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn piped_stdin_to_stdout() {
    let mut child = Command::new("cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let writer = volt::spawn(async move {
        for i in 0..1000 {
            stdin
                .write_all(format!("line {i}\n").as_bytes())
                .await
                .unwrap();
        }
        // Dropping stdin closes the pipe: cat sees EOF.
    });
    let mut lines = BufReader::new(stdout).lines();
    let mut n = 0;
    while let Some(line) = lines.next_line().await.unwrap() {
        assert_eq!(line, format!("line {n}"));
        n += 1;
    }
    assert_eq!(n, 1000);
    writer.await.unwrap();
    assert!(child.wait().await.unwrap().success());
    // Waiting again returns the same status; the id is gone.
    assert!(child.wait().await.unwrap().success());
    assert_eq!(child.id(), None);
}

#[volt::test]
async fn large_output_does_not_deadlock() {
    // More than a pipe buffer on both streams: both must be drained
    // while waiting.
    let out = Command::new("sh")
        .arg("-c")
        .arg("head -c 300000 /dev/zero; head -c 300000 /dev/zero >&2")
        .output()
        .await
        .unwrap();
    assert_eq!((out.stdout.len(), out.stderr.len()), (300_000, 300_000));
}

#[volt::test]
async fn kill_and_try_wait() {
    let mut child = Command::new("sleep").arg("1000").spawn().unwrap();
    assert!(child.id().is_some());
    assert!(child.try_wait().unwrap().is_none());
    child.kill().await.unwrap();
    let status = child.try_wait().unwrap().unwrap();
    assert!(!status.success());
    // Killing a child already reaped is a no-op (tokio 1.54; older tokio
    // returned `InvalidInput`), and `kill` then returns at once.
    child.start_kill().unwrap();
    child.kill().await.unwrap();
}

#[volt::test]
async fn output_closes_a_piped_stdin_so_the_child_can_finish() {
    // `cat` exits only at the end of its stdin; `output` (and
    // `wait_with_output`) close our end first, as tokio's do.
    let out = Command::new("sh")
        .arg("-c")
        .arg("cat; echo done")
        .stdin(Stdio::piped())
        .output()
        .await
        .unwrap();
    assert_eq!(out.stdout, b"done\n");
    let mut child = Command::new("cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .as_mut()
        .unwrap()
        .write_all(b"hi")
        .await
        .unwrap();
    let out = child.wait_with_output().await.unwrap();
    assert_eq!(out.stdout, b"hi");
}

#[volt::test]
async fn kill_on_drop_kills() {
    let child = Command::new("sleep")
        .arg("1000")
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let pid = child.id().unwrap();
    drop(child);
    // The process is gone (killed, then reaped in the background): poll
    // with `kill -0` until it reports no such process.
    let mut gone = false;
    for _ in 0..2000 {
        let alive = std::process::Command::new("kill")
            .args(["-0", &pid.to_string()])
            .stderr(Stdio::null())
            .status()
            .unwrap()
            .success();
        if !alive {
            gone = true;
            break;
        }
        volt::task::yield_now().await;
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(gone, "process {pid} survived kill_on_drop");
}

#[volt::test]
async fn many_concurrent_children() {
    let mut set = volt::task::JoinSet::new();
    for i in 0..20 {
        set.spawn(async move {
            let out = Command::new("sh")
                .arg("-c")
                .arg(format!("echo {i}"))
                .output()
                .await
                .unwrap();
            assert_eq!(String::from_utf8(out.stdout).unwrap().trim(), i.to_string());
        });
    }
    while let Some(r) = set.join_next().await {
        r.unwrap();
    }
}

#[volt::test]
async fn stderr_readable_while_running() {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("echo ready >&2; read x; exit 0")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = child.stderr.take().unwrap();
    let mut buf = [0u8; 6];
    err.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"ready\n");
    // wait() closes stdin, so `read` ends and the shell exits.
    assert!(child.wait().await.unwrap().success());
}

#[volt::test]
async fn status_and_output_futures_do_not_borrow_the_command() {
    // Spawned at the call, owning nothing of the `Command`: the future can
    // be a task of its own, and the command reused while it runs.
    let status = volt::spawn(Command::new("true").status())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success());

    let mut cmd = Command::new("echo");
    cmd.arg("first");
    let first = cmd.output();
    cmd.arg("second");
    let second = cmd.output();
    let (first, second) = (first.await.unwrap(), second.await.unwrap());
    assert_eq!(first.stdout, b"first\n");
    assert_eq!(second.stdout, b"first second\n");
}

/// A child spawned in one runtime and awaited in another, after the first
/// has shut down: the exit watch moves to the current runtime (tokio's
/// `process_spawned_and_wait_in_different_runtime`). `cat` runs until
/// `wait` closes its stdin, so the wait cannot find it already exited.
#[test]
fn child_spawned_in_a_dropped_runtime_is_awaited_in_another() {
    let mut child = volt::runtime::Runtime::new().unwrap().block_on(async {
        Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap()
    });
    let status = volt::runtime::Runtime::new()
        .unwrap()
        .block_on(async { child.wait().await })
        .unwrap();
    assert!(status.success());
}

#[volt::test]
async fn spawn_with_uses_the_callers_spawn_and_watches_the_child() {
    let mut seen_program = None;
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("read line; echo \"got $line\"; exit 4")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn_with(|std| {
            // The configured command, arguments and streams included.
            seen_program = Some(std.get_program().to_owned());
            std.spawn()
        })
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"x\n").await.unwrap();
    drop(stdin);
    let out = child.wait_with_output().await.unwrap();
    assert_eq!(seen_program.as_deref(), Some(std::ffi::OsStr::new("sh")));
    assert_eq!(out.stdout, b"got x\n");
    assert_eq!(out.status.code(), Some(4));
}

#[volt::test]
async fn spawn_with_returns_the_spawn_functions_error() {
    let err = Command::new("true")
        .spawn_with(|_| Err(std::io::Error::other("refused")))
        .unwrap_err();
    assert_eq!(err.to_string(), "refused");
}
