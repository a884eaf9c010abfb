//! `Builder::rng_seed` (tokio's, under `tokio_unstable` there): with a
//! fixed seed, the branches `select!` polls first repeat from one runtime
//! to the next.

use volt::runtime::{Builder, RngSeed, Runtime};

/// Which of two ready branches each of 64 `select!`s took.
async fn select_choices() -> Vec<u8> {
    let mut choices = Vec::with_capacity(64);
    for _ in 0..64 {
        let took = volt::select! {
            _ = std::future::ready(()) => 0,
            _ = std::future::ready(()) => 1,
        };
        choices.push(took);
    }
    choices
}

fn current_thread(seed: &[u8]) -> Runtime {
    Builder::new_current_thread()
        .rng_seed(RngSeed::from_bytes(seed))
        .build()
        .unwrap()
}

/// A multi-thread runtime whose worker has drawn its seeds: the worker
/// thread and `block_on` draw from one generator, so `block_on` waits for
/// the worker's first park (as tokio's test does).
fn multi_thread(seed: &[u8]) -> Runtime {
    let (parked_tx, parked_rx) = std::sync::mpsc::channel();
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .on_thread_park(move || {
            let _ = parked_tx.send(());
        })
        .rng_seed(RngSeed::from_bytes(seed))
        .build()
        .unwrap();
    parked_rx.recv().unwrap();
    rt
}

#[test]
fn the_same_seed_makes_the_same_choices() {
    for build in [current_thread, multi_thread] {
        let a = build(b"bytes used to generate seed").block_on(select_choices());
        let b = build(b"bytes used to generate seed").block_on(select_choices());
        assert_eq!(a, b);
        // Both branches get their turn.
        assert!(a.contains(&0) && a.contains(&1));
        let c = build(b"other bytes").block_on(select_choices());
        assert_ne!(a, c);
    }
}

#[test]
fn each_block_on_draws_a_new_seed_in_a_fixed_order() {
    let (rt1, rt2) = (current_thread(b"seed"), current_thread(b"seed"));
    let first = rt1.block_on(select_choices());
    let second = rt1.block_on(select_choices());
    assert_ne!(first, second);
    assert_eq!(rt2.block_on(select_choices()), first);
    assert_eq!(rt2.block_on(select_choices()), second);
}
