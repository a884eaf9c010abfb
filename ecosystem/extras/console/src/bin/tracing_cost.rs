//! The cost of the tracing instrumentation on hot paths, with the
//! `tracing` feature compiled in (and `--cfg tokio_unstable`), and a
//! subscriber that records nothing: what a service pays for being
//! console-ready when no console is attached. Prints ns per operation;
//! `scripts/ecosystem.py --tracing-cost` runs it on volt and on tokio.

use std::time::Instant;

fn per_op(n: u32, t: Instant) -> f64 {
    t.elapsed().as_nanos() as f64 / f64::from(n)
}

fn main() {
    // A subscriber is installed (so callsites are evaluated) but enables
    // nothing.
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::ERROR)
        .init();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    const N: u32 = 100_000;
    rt.block_on(async {
        for round in 0..2 {
            let t = Instant::now();
            for _ in 0..N {
                tokio::spawn(async {}).await.unwrap();
            }
            let spawn = per_op(N, t);
            let m = tokio::sync::Mutex::new(0u64);
            let t = Instant::now();
            for _ in 0..N {
                *m.lock().await += 1;
            }
            let mutex = per_op(N, t);
            let sem = tokio::sync::Semaphore::new(1);
            let t = Instant::now();
            for _ in 0..N {
                drop(sem.acquire().await.unwrap());
            }
            let semaphore = per_op(N, t);
            let t = Instant::now();
            for i in 0..N {
                let (tx, rx) = tokio::sync::oneshot::channel();
                tx.send(i).unwrap();
                rx.await.unwrap();
            }
            let oneshot = per_op(N, t);
            let t = Instant::now();
            for _ in 0..N / 10 {
                tokio::time::sleep(std::time::Duration::ZERO).await;
            }
            let sleep = per_op(N / 10, t);
            if round == 1 {
                println!(
                    "spawn+join {spawn:.0} ns, mutex lock {mutex:.0} ns, semaphore acquire {semaphore:.0} ns, oneshot {oneshot:.0} ns, sleep(0) {sleep:.0} ns"
                );
            }
        }
    });
}
