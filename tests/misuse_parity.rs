//! Misuse, side by side: each case is written once, as a macro over the
//! runtime crate's name, run on `volt` and on `tokio` (the
//! dev-dependency), and the two must end the same way: the same panic
//! message, or no panic at all. The messages are compared at run time,
//! not copied into the test, so a change on either side shows up here.
//! (`rt_misuse.rs` checks the builder's and the runtime context's
//! messages, and where a panic points.)

use std::panic::{self, AssertUnwindSafe};
use std::time::Duration;

/// How `f` ended: its panic message, or `"no panic"`.
fn outcome(f: impl FnOnce()) -> String {
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(()) => "no panic".to_string(),
        Err(payload) => match (
            payload.downcast_ref::<String>(),
            payload.downcast_ref::<&str>(),
        ) {
            (Some(s), _) => s.clone(),
            (None, Some(s)) => s.to_string(),
            (None, None) => "a panic with a payload that is not a string".to_string(),
        },
    }
}

/// Every case, as `(name, outcome)`, on runtime crate `$k`.
macro_rules! cases {
    ($k:ident) => {{
        use ::$k as k;
        let rt = || {
            k::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
        };
        let on = |f: fn() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>| {
            move || rt().block_on(f())
        };
        let cases: Vec<(&str, Box<dyn FnOnce()>)> = vec![
            // Constructors given out-of-range sizes.
            (
                "mpsc::channel(0)",
                Box::new(|| drop(k::sync::mpsc::channel::<u8>(0))),
            ),
            (
                "mpsc::channel(usize::MAX)",
                Box::new(|| drop(k::sync::mpsc::channel::<u8>(usize::MAX))),
            ),
            (
                "broadcast::channel(0)",
                Box::new(|| drop(k::sync::broadcast::channel::<u8>(0))),
            ),
            (
                "broadcast::channel(usize::MAX)",
                Box::new(|| drop(k::sync::broadcast::channel::<u8>(usize::MAX))),
            ),
            (
                "Semaphore::new(usize::MAX)",
                Box::new(|| {
                    let _ = k::sync::Semaphore::new(usize::MAX);
                }),
            ),
            (
                "Semaphore::add_permits past MAX_PERMITS",
                Box::new(|| {
                    k::sync::Semaphore::new(k::sync::Semaphore::MAX_PERMITS).add_permits(1)
                }),
            ),
            (
                "RwLock::with_max_readers(0)",
                Box::new(|| {
                    let _ = k::sync::RwLock::with_max_readers((), 0);
                }),
            ),
            (
                "RwLock::with_max_readers(u32::MAX)",
                Box::new(|| {
                    let _ = k::sync::RwLock::with_max_readers((), u32::MAX);
                }),
            ),
            ("io::duplex(0)", Box::new(|| drop(k::io::duplex(0)))),
            ("io::simplex(0)", Box::new(|| drop(k::io::simplex(0)))),
            (
                "Instant + Duration::MAX",
                Box::new(|| {
                    let _ = std::hint::black_box(k::time::Instant::now()) + Duration::MAX;
                }),
            ),
            (
                "interval(ZERO)",
                Box::new(on(|| {
                    Box::pin(async { drop(k::time::interval(Duration::ZERO)) })
                })),
            ),
            (
                "interval_at(now, ZERO)",
                Box::new(on(|| {
                    Box::pin(async {
                        drop(k::time::interval_at(
                            k::time::Instant::now(),
                            Duration::ZERO,
                        ))
                    })
                })),
            ),
            // Drivers and contexts.
            (
                "sleep without the time driver",
                Box::new(|| {
                    k::runtime::Builder::new_current_thread()
                        .build()
                        .unwrap()
                        .block_on(async { k::time::sleep(Duration::from_millis(1)).await })
                }),
            ),
            (
                "TcpListener::bind without the I/O driver",
                Box::new(|| {
                    k::runtime::Builder::new_current_thread()
                        .enable_time()
                        .build()
                        .unwrap()
                        .block_on(async { drop(k::net::TcpListener::bind("127.0.0.1:0").await) })
                }),
            ),
            (
                "a runtime dropped inside block_on",
                Box::new(on(|| {
                    Box::pin(async {
                        drop(k::runtime::Builder::new_current_thread().build().unwrap())
                    })
                })),
            ),
            (
                "spawn_local outside a LocalSet",
                Box::new(on(|| {
                    Box::pin(async { drop(k::task::spawn_local(async {})) })
                })),
            ),
            (
                "Handle::block_on on a blocking thread",
                Box::new(|| {
                    let rt = rt();
                    let handle = rt.handle().clone();
                    rt.block_on(async move {
                        let n = k::task::spawn_blocking(move || handle.block_on(async { 5 }));
                        assert_eq!(n.await.unwrap(), 5);
                    })
                }),
            ),
            // Paused time.
            (
                "advance while not paused",
                Box::new(on(|| {
                    Box::pin(async { k::time::advance(Duration::from_secs(1)).await })
                })),
            ),
            (
                "pause twice",
                Box::new(on(|| {
                    Box::pin(async {
                        k::time::pause();
                        k::time::pause();
                    })
                })),
            ),
            (
                "resume while not paused",
                Box::new(on(|| Box::pin(async { k::time::resume() }))),
            ),
            (
                "pause on the multi-thread runtime",
                Box::new(|| {
                    k::runtime::Builder::new_multi_thread()
                        .worker_threads(1)
                        .enable_all()
                        .build()
                        .unwrap()
                        .block_on(async { k::time::pause() })
                }),
            ),
            // Futures polled again after they completed.
            (
                "oneshot::Receiver polled after completion",
                Box::new(on(|| {
                    Box::pin(async {
                        let (tx, mut rx) = k::sync::oneshot::channel::<u8>();
                        tx.send(1).unwrap();
                        assert_eq!((&mut rx).await, Ok(1));
                        drop((&mut rx).await);
                    })
                })),
            ),
            (
                "JoinHandle polled after completion",
                Box::new(on(|| {
                    Box::pin(async {
                        let mut handle = k::spawn(async {});
                        (&mut handle).await.unwrap();
                        drop((&mut handle).await);
                    })
                })),
            ),
            // Edges that are not misuse: no panic on either.
            (
                "sleep(Duration::MAX)",
                Box::new(on(|| {
                    Box::pin(async {
                        let sleep = k::time::sleep(Duration::MAX);
                        assert!(!sleep.is_elapsed());
                    })
                })),
            ),
            (
                "timeout(Duration::MAX, ready)",
                Box::new(on(|| {
                    Box::pin(async {
                        assert_eq!(k::time::timeout(Duration::MAX, async { 1 }).await, Ok(1));
                    })
                })),
            ),
            (
                "Interval::reset_after(Duration::MAX)",
                Box::new(on(|| {
                    Box::pin(async {
                        k::time::interval(Duration::from_millis(1)).reset_after(Duration::MAX);
                    })
                })),
            ),
            (
                "Barrier::new(0)",
                Box::new(on(|| {
                    Box::pin(async {
                        assert!(k::sync::Barrier::new(0).wait().await.is_leader());
                    })
                })),
            ),
            (
                "recv_many with a limit of 0",
                Box::new(on(|| {
                    Box::pin(async {
                        let (_tx, mut rx) = k::sync::mpsc::channel::<u8>(1);
                        assert_eq!(rx.recv_many(&mut Vec::new(), 0).await, 0);
                    })
                })),
            ),
            (
                "reserve_many past the capacity",
                Box::new(on(|| {
                    Box::pin(async {
                        let (tx, _rx) = k::sync::mpsc::channel::<u8>(2);
                        assert!(tx.reserve_many(3).await.is_err());
                        assert!(tx.try_reserve_many(3).is_err());
                    })
                })),
            ),
            (
                "try_acquire_many(u32::MAX)",
                Box::new(|| {
                    let sem = k::sync::Semaphore::new(1);
                    assert_eq!(
                        sem.try_acquire_many(u32::MAX).unwrap_err(),
                        k::sync::TryAcquireError::NoPermits
                    );
                }),
            ),
            (
                "a LocalSet inside a LocalSet",
                Box::new(on(|| {
                    Box::pin(async {
                        k::task::LocalSet::new()
                            .run_until(async { k::task::LocalSet::new().run_until(async {}).await })
                            .await
                    })
                })),
            ),
        ];
        cases
            .into_iter()
            .map(|(name, f)| (name, outcome(f)))
            .collect::<Vec<_>>()
    }};
}

#[test]
fn misuse_ends_as_on_tokio() {
    // The panics are expected: keep the test's output to the differences.
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let volt = cases!(volt);
    let tokio = cases!(tokio);
    panic::set_hook(hook);

    let diffs: Vec<String> = volt
        .iter()
        .zip(&tokio)
        .filter(|(v, t)| v.1 != t.1)
        .map(|((name, v), (_, t))| format!("{name}:\n  volt:  {v}\n  tokio: {t}"))
        .collect();
    assert!(diffs.is_empty(), "ends differently:\n{}", diffs.join("\n"));
    // Most cases are misuse: make sure they panicked on both.
    let panicked = volt.iter().filter(|(_, v)| v != "no panic").count();
    assert_eq!(panicked, 23, "{volt:#?}");
}
