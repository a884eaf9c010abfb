//! Faults and abuse (issue 9): panics in places other than a task body,
//! a runtime dropped with work pending in every kind of resource, abort
//! storms at scale, starvation inside a `LocalSet`, file-descriptor
//! exhaustion, and the memory cost of many idle tasks. Each test is
//! bounded in time; the million-task one is `--ignored`.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;
use support::{DropCounter, Signal, pending_tracked};

fn rt(workers: usize) -> volt::runtime::Runtime {
    volt::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap()
}

struct PanicOnDrop;

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            panic!("drop of the output panicked");
        }
    }
}

#[test]
fn panic_in_output_drop_is_contained() {
    let rt = rt(2);
    rt.block_on(async {
        // Detached before completion: the runtime drops the output.
        let gate = Signal::new();
        let g2 = gate.clone();
        let h = volt::spawn(async move {
            g2.wait().await;
            PanicOnDrop
        });
        drop(h);
        gate.set();
        // Completed, then the handle is dropped without reading it.
        let h = volt::spawn(async { PanicOnDrop });
        while !h.is_finished() {
            volt::task::yield_now().await;
        }
        drop(h);
        // The runtime is fine.
        for i in 0..10 {
            assert_eq!(volt::spawn(async move { i }).await.unwrap(), i);
        }
    });
}

/// A future whose `poll` panics and whose `Drop` reports whether it runs
/// while that panic unwinds.
struct PanicInPoll(Option<volt::sync::oneshot::Sender<bool>>);

impl std::future::Future for PanicInPoll {
    type Output = ();
    fn poll(self: std::pin::Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        panic!("poll panicked");
    }
}

impl Drop for PanicInPoll {
    fn drop(&mut self) {
        let _ = self.0.take().unwrap().send(std::thread::panicking());
    }
}

#[test]
fn a_future_whose_poll_panics_is_dropped_while_unwinding() {
    // tokio's `rt_common::panic_in_task`, on both schedulers.
    let current = volt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for rt in [current, rt(2)] {
        let (tx, rx) = volt::sync::oneshot::channel();
        let handle = rt.spawn(PanicInPoll(Some(tx)));
        assert_eq!(rt.block_on(rx), Ok(true));
        assert!(rt.block_on(handle).unwrap_err().is_panic());
    }
}

/// A waker whose `wake` panics.
struct PanickingWaker;

impl Wake for PanickingWaker {
    fn wake(self: Arc<Self>) {
        panic!("waker panicked");
    }
}

#[test]
fn panic_in_a_foreign_waker_fails_only_the_waking_task() {
    let rt = rt(2);
    rt.block_on(async {
        let notify = Arc::new(volt::sync::Notify::new());
        // A future polled by hand with a waker that panics when woken.
        let n2 = notify.clone();
        let mut fut = Box::pin(async move { n2.notified().await });
        let waker = Waker::from(Arc::new(PanickingWaker));
        assert!(
            fut.as_mut()
                .poll(&mut Context::from_waker(&waker))
                .is_pending()
        );
        // The task that wakes it takes the panic, as in tokio.
        let n3 = notify.clone();
        let err = volt::spawn(async move { n3.notify_one() })
            .await
            .unwrap_err();
        assert!(err.is_panic());
        drop(fut);
        // The primitive and the runtime still work.
        let n4 = notify.clone();
        let waiter = volt::spawn(async move { n4.notified().await });
        volt::task::yield_now().await;
        notify.notify_one();
        waiter.await.unwrap();
    });
}

#[test]
fn panic_in_spawn_blocking_keeps_the_pool() {
    let rt = volt::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(1)
        .build()
        .unwrap();
    rt.block_on(async {
        for _ in 0..3 {
            let err = volt::task::spawn_blocking(|| panic!("blocking boom"))
                .await
                .unwrap_err();
            assert!(err.is_panic());
        }
        assert_eq!(volt::task::spawn_blocking(|| 7).await.unwrap(), 7);
    });
}

#[test]
fn panic_in_on_thread_start_leaves_the_runtime_working() {
    // The first thread the runtime starts panics in its start hook.
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let rt = volt::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .on_thread_start(move || {
            if c.fetch_add(1, SeqCst) == 0 {
                panic!("start hook panicked");
            }
        })
        .build()
        .unwrap();
    let sum = rt.block_on(async {
        let mut sum = 0;
        for i in 0..100 {
            sum += volt::spawn(async move { i }).await.unwrap();
        }
        sum += volt::task::spawn_blocking(|| 1).await.unwrap();
        sum
    });
    assert_eq!(sum, 4951);
    // And it shuts down without hanging.
    drop(rt);
    assert!(calls.load(SeqCst) >= 2);
}

#[test]
fn dropping_a_runtime_with_everything_pending() {
    const TASKS: usize = 100_000;
    let drops = DropCounter::new();
    let rt = rt(2);
    let (handles, _keep) = rt.block_on(async {
        let mut handles = Vec::with_capacity(TASKS + 16);
        // Plain pending tasks.
        for _ in 0..TASKS {
            handles.push(volt::spawn(pending_tracked(drops.track())));
        }
        // Pending sleeps, and I/O that never becomes ready.
        let listener = volt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let client = Arc::new(volt::net::TcpStream::connect(addr).await.unwrap());
        // The accepted side starts out assumed ready (as tokio's): wait on
        // the connecting side, which nobody writes to.
        let (server, _) = listener.accept().await.unwrap();
        let sem = Arc::new(volt::sync::Semaphore::new(0));
        let mutex = Arc::new(volt::sync::Mutex::new(()));
        let held = mutex.clone().lock_owned().await;
        let rw = Arc::new(volt::sync::RwLock::new(()));
        let wheld = rw.clone().write_owned().await;
        let notify = Arc::new(volt::sync::Notify::new());
        let barrier = Arc::new(volt::sync::Barrier::new(1000));
        let (mpsc_tx, mut mpsc_rx) = volt::sync::mpsc::channel::<u8>(1);
        let (one_tx, one_rx) = volt::sync::oneshot::channel::<u8>();
        let (watch_tx, mut watch_rx) = volt::sync::watch::channel(0u8);
        let (bc_tx, mut bc_rx) = volt::sync::broadcast::channel::<u8>(4);
        let (ch_tx, ch_rx) = volt::channel::bounded::<u8>(1);
        macro_rules! pend {
            ($body:expr) => {{
                let t = drops.track();
                handles.push(volt::spawn(async move {
                    let _t = t;
                    let _ = $body;
                }));
            }};
        }
        pend!(volt::time::sleep(Duration::from_secs(3600)).await);
        let c = client.clone();
        pend!(c.readable().await);
        let s = sem.clone();
        pend!(s.acquire().await.map(drop));
        let m = mutex.clone();
        pend!(drop(m.lock().await));
        let r = rw.clone();
        pend!(drop(r.read().await));
        let n = notify.clone();
        pend!(n.notified().await);
        let b = barrier.clone();
        pend!(b.wait().await);
        pend!(mpsc_rx.recv().await);
        pend!(one_rx.await);
        pend!(watch_rx.changed().await);
        pend!(bc_rx.recv().await);
        pend!(ch_rx.recv().await);
        // Senders blocked on full channels (other channels than the ones
        // with waiting receivers).
        let (full_tx, full_rx) = volt::sync::mpsc::channel::<u8>(1);
        full_tx.send(1).await.unwrap();
        let tx = full_tx.clone();
        pend!(tx.send(2).await);
        let (chfull_tx, chfull_rx) = volt::channel::bounded::<u8>(1);
        chfull_tx.send(1).await.unwrap();
        let tx = chfull_tx.clone();
        pend!(tx.send(2).await);
        // Let every task reach its await.
        for _ in 0..4 {
            volt::task::yield_now().await;
        }
        let keep = (
            (client, server, held, wheld),
            (mpsc_tx, one_tx, watch_tx, bc_tx, ch_tx),
            (full_rx, chfull_rx),
        );
        (handles, keep)
    });
    let total = handles.len();
    drop(rt);
    // Every future was dropped exactly once, on shutdown.
    assert_eq!(drops.count(), total);
    // Every JoinHandle resolves: cancelled.
    let check = volt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    check.block_on(async {
        for (i, h) in handles.into_iter().enumerate() {
            let res = h.await;
            assert!(
                matches!(&res, Err(e) if e.is_cancelled()),
                "task {i} ({} past the plain ones) ended with {res:?}",
                i.saturating_sub(TASKS)
            );
        }
    });
}

#[test]
fn abort_storm_of_100k_tasks_woken_from_other_threads() {
    const N: usize = 100_000;
    let rt = rt(2);
    let drops = DropCounter::new();
    let notify = Arc::new(volt::sync::Notify::new());
    let handles: Vec<_> = (0..N)
        .map(|_| {
            let t = drops.track();
            let n = notify.clone();
            rt.spawn(async move {
                let _t = t;
                n.notified().await;
            })
        })
        .collect();
    let aborts: Vec<_> = handles.iter().map(|h| h.abort_handle()).collect();
    let n2 = notify.clone();
    let waker = std::thread::spawn(move || {
        for _ in 0..N {
            n2.notify_one();
        }
    });
    let aborter = std::thread::spawn(move || aborts.iter().for_each(|a| a.abort()));
    waker.join().unwrap();
    aborter.join().unwrap();
    rt.block_on(async move {
        for h in handles {
            if let Err(e) = h.await {
                assert!(e.is_cancelled());
            }
        }
    });
    assert_eq!(drops.count(), N);
}

#[test]
fn coop_budget_preempts_a_busy_task_inside_a_local_set() {
    let rt = volt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let local = volt::task::LocalSet::new();
    local.block_on(&rt, async {
        let (tx, mut rx) = volt::sync::mpsc::unbounded_channel();
        for i in 0..10_000 {
            tx.send(i).unwrap();
        }
        let other_ran = std::rc::Rc::new(AtomicBool::new(false));
        let flag = other_ran.clone();
        volt::task::spawn_local(async move { flag.store(true, SeqCst) });
        // Always-ready receives: only the budget makes this task yield.
        let busy = volt::task::spawn_local(async move {
            let mut n = 0;
            while !other_ran.load(SeqCst) {
                rx.recv().await.unwrap();
                n += 1;
            }
            n
        });
        let n = busy.await.unwrap();
        assert!(
            n < 10_000,
            "the busy task consumed {n} values before yielding"
        );
    });
}

#[test]
fn fd_exhaustion_is_an_error_not_a_crash() {
    // Lowering RLIMIT_NOFILE would affect every test in this process, so
    // the body runs in a child process of this test binary.
    if std::env::var_os("VOLT_FD_CHILD").is_some() {
        return fd_exhaustion_child();
    }
    let exe = std::env::current_exe().unwrap();
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(
            "ulimit -n 64 && exec \"$0\" --exact fd_exhaustion_is_an_error_not_a_crash --nocapture",
        )
        .arg(exe)
        .env("VOLT_FD_CHILD", "1")
        .status()
        .unwrap();
    assert!(status.success(), "child failed: {status}");
}

fn fd_exhaustion_child() {
    let rt = rt(1);
    rt.block_on(async {
        let listener = volt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut conns = Vec::new();
        let err = loop {
            match volt::net::TcpStream::connect(addr).await {
                Ok(c) => conns.push(c),
                Err(e) => break e,
            }
            assert!(conns.len() < 1000, "the fd limit was not applied");
        };
        // EMFILE, reported as an error.
        assert_eq!(err.raw_os_error(), Some(24), "{err}");
        assert!(volt::fs::File::open("/dev/null").await.is_err());
        // Give some back: everything works again.
        conns.truncate(conns.len().saturating_sub(8));
        let c = volt::net::TcpStream::connect(addr).await.unwrap();
        drop(c);
        assert!(volt::fs::File::open("/dev/null").await.is_ok());
    });
}

/// Spawns `n` idle tasks and reports the heap cost per task.
fn idle_tasks(n: usize) {
    static LIVE: AtomicUsize = AtomicUsize::new(0);
    let rt = rt(2);
    let before = rss_kb();
    let handles: Vec<_> = rt.block_on(async {
        (0..n)
            .map(|_| {
                volt::spawn(async {
                    LIVE.fetch_add(1, SeqCst);
                    std::future::pending::<()>().await
                })
            })
            .collect()
    });
    rt.block_on(async {
        while LIVE.load(SeqCst) < n {
            volt::task::yield_now().await;
        }
    });
    let after = rss_kb();
    eprintln!(
        "{n} idle tasks: RSS +{} KiB, {:.0} bytes per task (incl. its JoinHandle)",
        after.saturating_sub(before),
        (after.saturating_sub(before) * 1024) as f64 / n as f64
    );
    assert_eq!(rt.metrics().num_alive_tasks(), n);
    drop(handles);
    drop(rt);
    LIVE.store(0, SeqCst);
}

fn rss_kb() -> usize {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

#[test]
fn hundred_thousand_idle_tasks() {
    idle_tasks(100_000);
}

#[test]
#[ignore = "slow in debug builds: run with --ignored (or --release)"]
fn a_million_idle_tasks_fit_in_memory() {
    idle_tasks(1_000_000);
}

/// A pinned future that records where it was polled and checks, when
/// dropped, that it is still there (`Pin`'s drop guarantee).
struct StaysPut {
    polled_at: usize,
    polls: Arc<AtomicUsize>,
    moved: Arc<AtomicBool>,
    _pin: std::marker::PhantomPinned,
}

impl Future for StaysPut {
    type Output = ();
    fn poll(self: std::pin::Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        // SAFETY: only a plain field is written; nothing is moved.
        let me = unsafe { self.get_unchecked_mut() };
        me.polled_at = me as *const StaysPut as usize;
        me.polls.fetch_add(1, SeqCst);
        Poll::Pending
    }
}

impl Drop for StaysPut {
    fn drop(&mut self) {
        if self.polled_at != 0 && self.polled_at != self as *const StaysPut as usize {
            self.moved.store(true, SeqCst);
        }
    }
}

#[test]
fn task_futures_are_dropped_where_they_were_polled() {
    let rt = rt(2);
    let moved = Arc::new(AtomicBool::new(false));
    let polls = Arc::new(AtomicUsize::new(0));
    rt.block_on(async {
        // One dropped by abort, one by runtime shutdown below.
        let fut = || StaysPut {
            polled_at: 0,
            polls: polls.clone(),
            moved: moved.clone(),
            _pin: std::marker::PhantomPinned,
        };
        let h = volt::spawn(fut());
        while polls.load(SeqCst) < 1 {
            volt::task::yield_now().await;
        }
        h.abort();
        assert!(h.await.unwrap_err().is_cancelled());
        volt::spawn(fut());
        while polls.load(SeqCst) < 2 {
            volt::task::yield_now().await;
        }
    });
    drop(rt);
    assert!(
        !moved.load(SeqCst),
        "a pinned task future was moved before being dropped"
    );
}

#[test]
fn runtime_dropped_with_one_pending_sleep() {
    // Regression (the minimal case of the bug below): shutdown walked the
    // timer wheel into a freed entry and aborted the process.
    let rt = rt(2);
    rt.block_on(async {
        volt::spawn(async { volt::time::sleep(Duration::from_secs(3600)).await });
        for _ in 0..4 {
            volt::task::yield_now().await;
        }
    });
    drop(rt);
}

#[test]
fn aborted_waiters_leave_intrusive_lists_intact() {
    // A task's future is dropped in place on abort and shutdown: intrusive
    // nodes (timer entries, semaphore and Notify waiters) must unlink
    // themselves from where they are linked, not from a moved copy. Abort
    // tasks parked on each, then use each again.
    let rt = rt(2);
    rt.block_on(async {
        let sem = Arc::new(volt::sync::Semaphore::new(0));
        let notify = Arc::new(volt::sync::Notify::new());
        let mut handles = Vec::new();
        for _ in 0..8 {
            let s = sem.clone();
            handles.push(volt::spawn(async move { drop(s.acquire().await) }));
            let n = notify.clone();
            handles.push(volt::spawn(async move { n.notified().await }));
            handles.push(volt::spawn(volt::time::sleep(Duration::from_secs(3600))));
        }
        for _ in 0..4 {
            volt::task::yield_now().await;
        }
        for h in &handles {
            h.abort();
        }
        for h in handles {
            assert!(h.await.unwrap_err().is_cancelled());
        }
        // The lists are intact: new waiters are served.
        let s = sem.clone();
        let acquirer = volt::spawn(async move { s.acquire().await.map(drop) });
        let n = notify.clone();
        let notified = volt::spawn(async move { n.notified().await });
        volt::task::yield_now().await;
        sem.add_permits(1);
        // `notify_one` stores a permit if the task has not registered yet.
        notify.notify_one();
        acquirer.await.unwrap().unwrap();
        notified.await.unwrap();
        volt::time::sleep(Duration::from_millis(1)).await;
    });
    drop(rt);
}

// Used by the waker test.
use std::future::Future;
