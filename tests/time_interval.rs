//! `Interval`: first tick, period, missed-tick behaviours, resets, and
//! misuse. All on the paused clock, so every instant is exact.

use volt::time::{self, Duration, Instant, MissedTickBehavior, interval, interval_at};

const MS: Duration = Duration::from_millis(1);

/// Blocks the task (not the clock's auto-advance) for `d` of paused time.
fn busy(d: Duration) {
    // On a paused clock, `advance` is how "time passes while busy".
    futures_block(time::advance(d));
}

/// `advance` only needs a yield; poll it to completion in place.
fn futures_block<F: std::future::Future>(f: F) {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    while f.as_mut().poll(&mut cx).is_pending() {}
}

#[volt::test(start_paused = true)]
async fn first_tick_is_immediate_then_every_period() {
    let start = Instant::now();
    let mut i = interval(10 * MS);
    assert_eq!(i.tick().await, start);
    assert_eq!(i.tick().await, start + 10 * MS);
    assert_eq!(i.tick().await, start + 20 * MS);
    assert_eq!(Instant::now(), start + 20 * MS);
    assert_eq!(i.period(), 10 * MS);
    assert_eq!(i.missed_tick_behavior(), MissedTickBehavior::Burst);
}

#[volt::test(start_paused = true)]
async fn interval_at_starts_later() {
    let start = Instant::now();
    let mut i = interval_at(start + 50 * MS, 10 * MS);
    assert_eq!(i.tick().await, start + 50 * MS);
    assert_eq!(i.tick().await, start + 60 * MS);
}

async fn ticks_after_busy(behavior: MissedTickBehavior) -> (Instant, Vec<Duration>) {
    let start = Instant::now();
    let mut i = interval(50 * MS);
    i.set_missed_tick_behavior(behavior);
    i.tick().await; // 0
    i.tick().await; // 50
    busy(160 * MS); // now 210: ticks at 100, 150, 200 were missed
    let mut at = Vec::new();
    for _ in 0..5 {
        i.tick().await;
        at.push(Instant::now() - start);
    }
    (start, at)
}

#[volt::test(start_paused = true)]
async fn missed_ticks_burst() {
    let (_, at) = ticks_after_busy(MissedTickBehavior::Burst).await;
    let ms: Vec<u128> = at.iter().map(Duration::as_millis).collect();
    assert_eq!(ms, [210, 210, 210, 250, 300]);
}

#[volt::test(start_paused = true)]
async fn missed_ticks_delay() {
    let (_, at) = ticks_after_busy(MissedTickBehavior::Delay).await;
    let ms: Vec<u128> = at.iter().map(Duration::as_millis).collect();
    assert_eq!(ms, [210, 260, 310, 360, 410]);
}

#[volt::test(start_paused = true)]
async fn missed_ticks_skip() {
    let (_, at) = ticks_after_busy(MissedTickBehavior::Skip).await;
    let ms: Vec<u128> = at.iter().map(Duration::as_millis).collect();
    assert_eq!(ms, [210, 250, 300, 350, 400]);
}

#[volt::test(start_paused = true)]
async fn reset_variants() {
    let start = Instant::now();
    let mut i = interval(100 * MS);
    i.tick().await;
    time::sleep(30 * MS).await;
    i.reset(); // next at 130
    assert_eq!(i.tick().await, start + 130 * MS);
    i.reset_immediately();
    assert_eq!(i.tick().await, start + 130 * MS);
    i.reset_after(7 * MS);
    assert_eq!(i.tick().await, start + 137 * MS);
    i.reset_at(start + 500 * MS);
    assert_eq!(i.tick().await, start + 500 * MS);
    assert_eq!(i.tick().await, start + 600 * MS);
    i.reset_after(Duration::MAX); // saturates instead of overflowing
    // So do `reset` and a late tick of an interval of `Duration::MAX`.
    let mut i = volt::time::interval(Duration::MAX);
    i.tick().await;
    i.reset();
    let mut i = volt::time::interval(Duration::MAX);
    i.set_missed_tick_behavior(volt::time::MissedTickBehavior::Delay);
    volt::time::advance(20 * MS).await;
    i.tick().await;
}

#[volt::test(start_paused = true)]
async fn tick_is_cancel_safe() {
    let start = Instant::now();
    let mut i = interval(10 * MS);
    i.tick().await;
    // A select that gives up on the tick before it is due.
    volt::select! {
        _ = i.tick() => panic!("tick came early"),
        _ = time::sleep(3 * MS) => {}
    }
    // The tick was not consumed.
    assert_eq!(i.tick().await, start + 10 * MS);
}

#[volt::test(start_paused = true)]
async fn poll_tick_by_hand() {
    let mut i = interval(5 * MS);
    let t0 = std::future::poll_fn(|cx| i.poll_tick(cx)).await;
    let t1 = std::future::poll_fn(|cx| i.poll_tick(cx)).await;
    assert_eq!(t1 - t0, 5 * MS);
}

#[test]
#[should_panic(expected = "`period` must be non-zero.")]
fn zero_period_panics() {
    let rt = volt::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(async {
        let _ = interval(Duration::ZERO);
    });
}

#[test]
#[should_panic(expected = "`period` must be non-zero.")]
fn zero_period_interval_at_panics() {
    let rt = volt::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(async {
        let _ = interval_at(Instant::now(), Duration::ZERO);
    });
}
