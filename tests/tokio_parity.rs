//! Side-by-side behaviour checks: each scenario is written once, as a
//! macro over the runtime crate's name, expanded for `volt` and for
//! `tokio` (the dev-dependency), run on each crate's own runtime, and the
//! two transcripts must be equal. A difference here is a place where code
//! moved from tokio would behave differently on volt.
//!
//! The scenarios record what a program can observe: error kinds,
//! `Display` and `Debug` of errors, whether a future is ready on its first
//! poll, which values come out in which order. Timing-dependent facts are
//! kept out (time is paused where it matters).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// What happened, in order.
type Transcript = Vec<String>;

/// Polls once with a no-op waker: `"ready"` or `"pending"`.
fn first_poll<F: Future>(f: Pin<&mut F>) -> &'static str {
    match f.poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(_) => "ready",
        Poll::Pending => "pending",
    }
}

/// Runs both expansions of a scenario and compares the transcripts.
macro_rules! parity {
    ($name:ident, $scenario:ident, flavor = $flavor:literal) => {
        #[test]
        fn $name() {
            #[volt::main(flavor = $flavor)]
            async fn on_volt() -> Transcript {
                $scenario!(volt)
            }
            #[tokio::main(flavor = $flavor)]
            async fn on_tokio() -> Transcript {
                $scenario!(tokio)
            }
            let (v, t) = (on_volt(), on_tokio());
            assert_eq!(v, t, "volt (left) and tokio (right) differ");
            assert!(!v.is_empty());
        }
    };
}

/// EOF and UTF-8 errors of the read helpers, and what they leave in the
/// caller's buffer.
macro_rules! io_errors {
    ($rt:ident) => {{
        use $rt::io::{AsyncBufReadExt as _, AsyncReadExt as _, BufReader};
        let mut out = Transcript::new();
        let mut short: &[u8] = b"abc";
        let e = short.read_exact(&mut [0u8; 5]).await.unwrap_err();
        out.push(format!("read_exact: {:?} {e}", e.kind()));
        let mut short: &[u8] = b"a";
        let e = short.read_u32().await.unwrap_err();
        out.push(format!("read_u32: {:?} {e}", e.kind()));

        let mut r = BufReader::new(&b"ok\nq\xffz\nafter\n"[..]);
        let mut buf = String::new();
        r.read_line(&mut buf).await.unwrap();
        let e = r.read_line(&mut buf).await.unwrap_err();
        let is_utf8 = e.get_ref().unwrap().is::<std::str::Utf8Error>();
        out.push(format!(
            "read_line: {:?} {e} utf8={is_utf8} buf={buf:?}",
            e.kind()
        ));
        let mut next = String::new();
        r.read_line(&mut next).await.unwrap();
        out.push(format!("read_line after: {next:?}"));

        let mut r: &[u8] = b"xx\xff";
        let mut buf = String::from("prefix");
        let e = r.read_to_string(&mut buf).await.unwrap_err();
        out.push(format!("read_to_string: {e} buf={buf:?}"));

        let mut lines = BufReader::new(&b"a\r\nb\n\xff\nc"[..]).lines();
        while let Some(l) = lines.next_line().await.transpose() {
            match l {
                Ok(l) => out.push(format!("line {l:?}")),
                Err(e) => {
                    let from = e.get_ref().unwrap().is::<std::string::FromUtf8Error>();
                    out.push(format!("line error {e} from_utf8={from}"));
                }
            }
        }
        out
    }};
}
parity!(io_errors_match, io_errors, flavor = "current_thread");

/// `Display` and `Debug` of the sync and time errors.
macro_rules! error_strings {
    ($rt:ident) => {{
        use $rt::sync::{broadcast, mpsc, oneshot, watch};
        let mut out = Transcript::new();
        let mut show =
            |what: &str, d: String, dbg: String| out.push(format!("{what}: {d} | {dbg}"));

        let (tx, rx) = mpsc::channel::<u8>(1);
        tx.try_send(1).unwrap();
        let e = tx.try_send(2).unwrap_err();
        show("mpsc full", e.to_string(), format!("{e:?}"));
        let e = tx
            .send_timeout(3, std::time::Duration::from_millis(1))
            .await
            .unwrap_err();
        show("mpsc timeout", e.to_string(), format!("{e:?}"));
        drop(rx);
        let e = tx.try_send(4).unwrap_err();
        show("mpsc closed", e.to_string(), format!("{e:?}"));
        let e = tx.send(5).await.unwrap_err();
        show("mpsc send", e.to_string(), format!("{e:?}"));
        let (tx, mut rx) = mpsc::unbounded_channel::<u8>();
        let e = rx.try_recv().unwrap_err();
        show("mpsc empty", e.to_string(), format!("{e:?}"));
        drop(tx);
        let e = rx.try_recv().unwrap_err();
        show("mpsc disconnected", e.to_string(), format!("{e:?}"));

        let (tx, rx) = oneshot::channel::<u8>();
        drop(tx);
        let e = rx.await.unwrap_err();
        show("oneshot", e.to_string(), format!("{e:?}"));
        let (_tx, mut rx) = oneshot::channel::<u8>();
        let e = rx.try_recv().unwrap_err();
        show("oneshot empty", e.to_string(), format!("{e:?}"));

        let (tx, mut rx) = broadcast::channel::<u8>(1);
        tx.send(1).unwrap();
        tx.send(2).unwrap();
        let e = rx.recv().await.unwrap_err();
        show("broadcast lagged", e.to_string(), format!("{e:?}"));
        rx.recv().await.unwrap();
        let e = rx.try_recv().unwrap_err();
        show("broadcast empty", e.to_string(), format!("{e:?}"));
        drop(tx);
        let e = rx.recv().await.unwrap_err();
        show("broadcast closed", e.to_string(), format!("{e:?}"));

        let (tx, mut rx) = watch::channel(0u8);
        drop(tx);
        let e = rx.changed().await.unwrap_err();
        show("watch", e.to_string(), format!("{e:?}"));

        let sem = $rt::sync::Semaphore::new(0);
        let e = sem.try_acquire().unwrap_err();
        show("semaphore empty", e.to_string(), format!("{e:?}"));
        sem.close();
        let e = sem.acquire().await.unwrap_err();
        show("semaphore closed", e.to_string(), format!("{e:?}"));
        let m = $rt::sync::Mutex::new(0);
        let _g = m.lock().await;
        let e = m.try_lock().unwrap_err();
        show("mutex", e.to_string(), format!("{e:?}"));
        let cell = $rt::sync::OnceCell::new();
        cell.set(1).unwrap();
        let e = cell.set(2).unwrap_err();
        show("once cell", e.to_string(), format!("{e:?}"));

        let e = $rt::time::timeout(
            std::time::Duration::from_millis(1),
            std::future::pending::<()>(),
        )
        .await
        .unwrap_err();
        show("elapsed", e.to_string(), format!("{e:?}"));
        let e = $rt::spawn(async { panic!("boom") }).await.unwrap_err();
        // Task ids differ between runtimes (and runs): each becomes `#`.
        let digits = |s: String| {
            let mut out = String::new();
            for c in s.chars() {
                if !c.is_ascii_digit() {
                    out.push(c);
                } else if !out.ends_with('#') {
                    out.push('#');
                }
            }
            out
        };
        show(
            "join panic",
            digits(e.to_string()),
            digits(format!("{e:?}")),
        );
        let h = $rt::spawn(std::future::pending::<()>());
        h.abort();
        let e = h.await.unwrap_err();
        show(
            "join cancelled",
            digits(e.to_string()),
            digits(format!("{e:?}")),
        );
        out
    }};
}
parity!(
    error_strings_match,
    error_strings,
    flavor = "current_thread"
);

/// Paused time: which sleeps and interval ticks are ready on their first
/// poll, and the instants intervals report.
macro_rules! paused_time {
    ($rt:ident) => {{
        use $rt::time::{self, Duration, Instant, MissedTickBehavior};
        let ms = Duration::from_millis;
        let mut out = Transcript::new();
        time::pause();
        let start = Instant::now();
        time::advance(ms(100)).await;
        out.push(format!(
            "until now: {}",
            first_poll(std::pin::pin!(time::sleep_until(Instant::now())))
        ));
        out.push(format!(
            "zero: {}",
            first_poll(std::pin::pin!(time::sleep(Duration::ZERO)))
        ));
        out.push(format!(
            "past: {}",
            first_poll(std::pin::pin!(time::sleep_until(start)))
        ));
        let ahead = Instant::now() + Duration::from_micros(10);
        out.push(format!(
            "10us ahead: {}",
            first_poll(std::pin::pin!(time::sleep_until(ahead)))
        ));
        for behavior in [
            MissedTickBehavior::Burst,
            MissedTickBehavior::Delay,
            MissedTickBehavior::Skip,
        ] {
            let base = Instant::now();
            let mut interval = time::interval(ms(300));
            interval.set_missed_tick_behavior(behavior);
            let mut ticks = Vec::new();
            for step in [0, 100, 200, 650, 100, 300] {
                time::advance(ms(step)).await;
                while let Poll::Ready(t) =
                    interval.poll_tick(&mut Context::from_waker(Waker::noop()))
                {
                    ticks.push((t - base).as_millis());
                }
            }
            out.push(format!("{behavior:?}: {ticks:?}"));
        }
        let mut interval = time::interval(ms(300));
        interval.tick().await;
        time::advance(ms(50)).await;
        interval.reset_immediately();
        out.push(format!(
            "reset_immediately: {}",
            first_poll(std::pin::pin!(interval.tick()))
        ));
        out
    }};
}
parity!(paused_time_matches, paused_time, flavor = "current_thread");

/// Child processes: `output` with a piped stdin, killing a reaped child,
/// `status` futures that outlive their `Command`.
macro_rules! processes {
    ($rt:ident) => {{
        use std::process::Stdio;
        use $rt::process::Command;
        let mut out = Transcript::new();
        let o = Command::new("sh")
            .args(["-c", "cat; echo done; exit 3"])
            .stdin(Stdio::piped())
            .output()
            .await
            .unwrap();
        out.push(format!("output: {:?} {:?}", o.status.code(), o.stdout));
        let mut child = Command::new("sleep").arg("100").spawn().unwrap();
        child.kill().await.unwrap();
        out.push(format!(
            "kill again: {:?}",
            child.start_kill().map_err(|e| e.kind())
        ));
        out.push(format!("id after: {:?}", child.id()));
        let status = $rt::spawn(Command::new("true").status())
            .await
            .unwrap()
            .unwrap();
        out.push(format!("spawned status: {status}"));
        let e = Command::new("/nonexistent/volt-parity")
            .status()
            .await
            .unwrap_err();
        out.push(format!("missing program: {:?}", e.kind()));
        out
    }};
}
parity!(processes_match, processes, flavor = "current_thread");

/// Waiter order of the locks and the semaphore: who is woken, and whether
/// a newcomer can barge past a queued waiter.
macro_rules! lock_order {
    ($rt:ident) => {{
        let mut out = Transcript::new();
        let noop = Waker::noop();
        let mut cx = Context::from_waker(noop);
        let rw = $rt::sync::RwLock::new(0);
        let r1 = rw.read().await;
        let mut w = std::pin::pin!(rw.write());
        out.push(format!(
            "writer behind reader: {:?}",
            w.as_mut().poll(&mut cx).is_ready()
        ));
        let mut r2 = std::pin::pin!(rw.read());
        out.push(format!(
            "reader behind writer: {:?}",
            r2.as_mut().poll(&mut cx).is_ready()
        ));
        out.push(format!("try_read behind writer: {}", rw.try_read().is_ok()));
        drop(r1);
        let g = w.as_mut().poll(&mut cx);
        out.push(format!("writer after reader left: {}", g.is_ready()));
        drop(g);
        out.push(format!(
            "reader after writer left: {}",
            r2.as_mut().poll(&mut cx).is_ready()
        ));

        let sem = $rt::sync::Semaphore::new(2);
        let held = sem.acquire_many(2).await.unwrap();
        let mut big = std::pin::pin!(sem.acquire_many(2));
        out.push(format!(
            "big queued: {}",
            big.as_mut().poll(&mut cx).is_pending()
        ));
        let mut small = std::pin::pin!(sem.acquire());
        out.push(format!(
            "small behind big: {}",
            small.as_mut().poll(&mut cx).is_pending()
        ));
        drop(held);
        out.push(format!(
            "try_acquire behind big: {}",
            sem.try_acquire().is_ok()
        ));
        let b = big.as_mut().poll(&mut cx);
        out.push(format!("big after release: {}", b.is_ready()));
        drop(b);
        out.push(format!(
            "small after big: {}",
            small.as_mut().poll(&mut cx).is_ready()
        ));
        out
    }};
}
parity!(lock_order_matches, lock_order, flavor = "current_thread");

/// `select!` and `join!` details.
macro_rules! macros {
    ($rt:ident) => {{
        let mut out = Transcript::new();
        let r = $rt::select! {
            Some(v) = async { None::<u8> } => format!("some {v}"),
            else => "else".to_string(),
        };
        out.push(r);
        let enabled = false;
        let r = $rt::select! {
            v = async { 1 }, if enabled => v,
            v = async { 2 } => v,
        };
        out.push(format!("precondition: {r}"));
        let r = $rt::select! { biased; v = async { 1 } => v, v = async { 2 } => v };
        out.push(format!("biased: {r}"));
        let order = std::sync::Mutex::new(Vec::new());
        let (a, b) = $rt::join!(biased; async { order.lock().unwrap().push(1); 'a' }, async {
            order.lock().unwrap().push(2);
            'b'
        });
        out.push(format!("join: {a}{b} {:?}", order.lock().unwrap()));
        let r: Result<(u8, u8), &str> =
            $rt::try_join!(async { Ok::<_, &str>(1) }, async { Err::<u8, _>("e") });
        out.push(format!("try_join: {r:?}"));
        out
    }};
}
parity!(macros_match, macros, flavor = "current_thread");

/// The size of the futures `select!`, `join!` and `try_join!` make: what
/// a task that uses them weighs.
macro_rules! macro_future_sizes {
    ($rt:ident) => {{
        use std::future::{pending, ready};
        use std::mem::size_of_val;
        let mut out = Transcript::new();
        let mut size = |what: &str, n: usize| out.push(format!("{what}: {n}"));

        let f = async {
            $rt::select! { v = ready(1u8) => v, _ = pending::<()>() => 0 }
        };
        size("select 2 small", size_of_val(&f));
        let f = async {
            let big = [1u8; 512];
            let a = async move {
                pending::<()>().await;
                big[0]
            };
            $rt::select! { v = a => v, v = ready(2u8) => v }
        };
        size("select big branch", size_of_val(&f));
        let f = async {
            let mut local = 5u64;
            let on = local > 3;
            $rt::select! {
                v = async { local += 1; local }, if on => v,
                v = ready(1u64) => v,
                v = ready(2u64) => v,
                v = ready(3u64) => v,
                v = ready(4u64) => v,
                v = ready(5u64) => v,
                v = ready(6u64) => v,
                v = ready(7u64) => v,
                v = ready(8u64) => v,
                else => 0,
            }
        };
        size(
            "select 9 branches, borrowing, precondition",
            size_of_val(&f),
        );
        let f = async {
            $rt::join!(
                ready(0u16),
                ready(1u16),
                ready(2u16),
                ready(3u16),
                ready(4u16),
                ready(5u16),
                ready(6u16),
                ready(7u16),
                ready(8u16),
                ready(9u16),
                ready(10u16),
                ready(11u16),
                ready(12u16),
                ready(13u16),
                ready(14u16),
                ready(15u16),
                ready(16u16),
            )
        };
        size("join 17", size_of_val(&f));
        let f = async {
            let big = [1u8; 256];
            $rt::join!(async move { big[0] }, async {
                $rt::task::yield_now().await
            })
        };
        size("join big", size_of_val(&f));
        let f = async {
            $rt::try_join!(
                ready(Ok::<u32, ()>(1)),
                ready(Ok::<u32, ()>(2)),
                ready(Ok::<u32, ()>(3))
            )
        };
        size("try_join 3", size_of_val(&f));
        out
    }};
}
parity!(
    macro_future_sizes_match,
    macro_future_sizes,
    flavor = "current_thread"
);
