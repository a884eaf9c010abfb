//! The wheel and the shards against simple models, without a runtime.

use super::entry::{MAX_TICK, STATE_FIRED, STATE_UNREGISTERED, TimerShared};
use super::wheel::{MAX_DURATION, Wheel};
use super::{Filed, Handle, TimeSource};
use crate::time::clock::Clock;
use crate::util::rand::FastRand;

use std::pin::Pin;
use std::ptr::NonNull;

fn entry() -> Pin<Box<TimerShared>> {
    Box::pin(TimerShared::new())
}

fn ptr(e: &Pin<Box<TimerShared>>) -> NonNull<TimerShared> {
    NonNull::from(&**e)
}

/// Random inserts, removals and polls against a sorted-list model: every
/// poll hands out exactly the entries due by then, in deadline order, and
/// nothing else ever.
#[test]
fn wheel_matches_sorted_list_model() {
    let mut rng = FastRand::from_seed(0x5eed);
    // Miri is slow: a couple of rounds still walk every code path.
    let rounds = if cfg!(miri) { 2 } else { 40 };
    for round in 0..rounds {
        let mut wheel = Wheel::new();
        let entries: Vec<_> = (0..200).map(|_| entry()).collect();
        // model: (when, index) of filed entries
        let mut model: Vec<(u64, usize)> = Vec::new();
        let mut now = 0u64;
        for _ in 0..if cfg!(miri) { 300 } else { 2000 } {
            match rng.fastrand_n(10) {
                0..=4 => {
                    let i = rng.fastrand_n(entries.len() as u32) as usize;
                    if model.iter().any(|&(_, j)| j == i) {
                        continue;
                    }
                    // Deadlines across every level, some far beyond range.
                    let span = match rng.fastrand_n(5) {
                        0 => 64,
                        1 => 4096,
                        2 => 1 << 20,
                        3 => MAX_DURATION,
                        _ => MAX_DURATION * 3,
                    };
                    let when = now + 1 + u64::from(rng.fastrand_n(u32::MAX)) % span;
                    // SAFETY: pinned, unlinked, outlives the wheel's use.
                    unsafe { wheel.insert(ptr(&entries[i]), when).unwrap() };
                    model.push((when, i));
                }
                5 | 6 => {
                    if model.is_empty() {
                        continue;
                    }
                    let k = rng.fastrand_n(model.len() as u32) as usize;
                    let (_, i) = model.swap_remove(k);
                    // SAFETY: filed in this wheel.
                    unsafe { wheel.remove(ptr(&entries[i])) };
                }
                _ => {
                    let step = match rng.fastrand_n(4) {
                        0 => 1,
                        1 => 50,
                        2 => 5000,
                        _ => 1 << 25,
                    };
                    now += u64::from(rng.fastrand_n(step)) + 1;
                    let mut fired = Vec::new();
                    while let Some(e) = wheel.poll(now) {
                        let i = entries.iter().position(|x| ptr(x) == e).unwrap();
                        fired.push(i);
                    }
                    let mut due: Vec<(u64, usize)> =
                        model.iter().copied().filter(|&(w, _)| w <= now).collect();
                    model.retain(|&(w, _)| w > now);
                    due.sort_unstable();
                    let got_whens: Vec<u64> = fired
                        .iter()
                        .map(|&i| {
                            due.iter()
                                .find(|&&(_, j)| j == i)
                                .map(|&(w, _)| w)
                                .unwrap_or_else(|| panic!("round {round}: entry {i} fired early"))
                        })
                        .collect();
                    assert_eq!(fired.len(), due.len(), "round {round}: missed entries");
                    let mut sorted = got_whens.clone();
                    sorted.sort_unstable();
                    assert_eq!(got_whens, sorted, "round {round}: out of order");
                    assert_eq!(wheel.elapsed(), now);
                }
            }
            if let (Some(next), Some(&min)) = (
                wheel.next_expiration_time(),
                model.iter().map(|(w, _)| w).min(),
            ) {
                assert!(
                    next <= min,
                    "next expiration {next} after the earliest deadline {min}"
                );
            }
        }
        // Empty the wheel before the entries go.
        for (_, i) in model.drain(..) {
            // SAFETY: filed in this wheel.
            unsafe { wheel.remove(ptr(&entries[i])) };
        }
        assert_eq!(wheel.next_expiration_time(), None);
    }
}

/// An entry beyond the wheel's span filed in the top level's current
/// slot (a full turn away) must not hide a nearer entry in a later slot of
/// the same level (tokio's `long_wait_sleep_does_not_break_other_timers`).
#[test]
fn entry_beyond_span_does_not_hide_a_nearer_one() {
    let mut wheel = Wheel::new();
    let (far, near) = (entry(), entry());
    // SAFETY: pinned, unlinked, outlive the wheel's use.
    unsafe { wheel.insert(ptr(&far), 10 << 36).unwrap() };
    assert_eq!(wheel.poll((1 << 30) - 1), None);
    let when = (1 << 30) + 9;
    // SAFETY: as above.
    unsafe { wheel.insert(ptr(&near), when).unwrap() };
    assert!(wheel.next_expiration_time().unwrap() <= when);
    assert_eq!(wheel.poll(when - 1), None);
    assert_eq!(wheel.poll(when), Some(ptr(&near)));
    assert_eq!(wheel.poll(MAX_DURATION), None);
    assert_eq!(wheel.poll(10 << 36), Some(ptr(&far)));
}

#[test]
fn insert_at_or_before_elapsed_is_refused() {
    let mut wheel = Wheel::new();
    assert!(wheel.poll(100).is_none());
    let e = entry();
    // SAFETY: pinned and unlinked.
    assert!(unsafe { wheel.insert(ptr(&e), 100) }.is_err());
    // SAFETY: as above.
    unsafe { wheel.insert(ptr(&e), 101).unwrap() };
    assert_eq!(wheel.poll(101), Some(ptr(&e)));
}

fn handle(shards: usize) -> Handle {
    let clock = Clock::new(false, false);
    Handle::new(shards, TimeSource::new(&clock))
}

#[test]
fn file_fire_cancel_through_the_handle() {
    let h = handle(2);
    let a = entry();
    let b = entry();
    // SAFETY: pinned; cancelled before being dropped.
    unsafe {
        assert_eq!(h.file(0, ptr(&a), 10), Filed::Queued);
        assert_eq!(h.file(1, ptr(&b), 20), Filed::Queued);
        assert_eq!(h.file(1, ptr(&entry()), 0), Filed::Fired);
    }
    assert_eq!(h.prepare_park(), Some(10));
    h.after_park();
    h.process(15);
    assert_eq!(a.state(), STATE_FIRED);
    assert!(b.state() <= MAX_TICK);
    // SAFETY: registered with shard 1.
    unsafe { h.cancel(1, ptr(&b)) };
    assert_eq!(b.state(), STATE_UNREGISTERED);
    // The hint may be stale-early after a cancel, never late.
    assert!(h.prepare_park().is_none_or(|t| t <= 20));
    h.after_park();
    h.process(100);
    assert_eq!(b.state(), STATE_UNREGISTERED);
}

#[test]
fn filing_earlier_than_the_parked_wake_asks_for_an_unpark() {
    let h = handle(1);
    let a = entry();
    let b = entry();
    // SAFETY: pinned; cancelled before being dropped.
    unsafe {
        assert_eq!(h.file(0, ptr(&a), 100), Filed::Queued);
        assert_eq!(h.prepare_park(), Some(100));
        assert_eq!(h.file(0, ptr(&b), 50), Filed::QueuedUnpark);
        h.after_park();
        h.cancel(0, ptr(&a));
        h.cancel(0, ptr(&b));
    }
}

#[test]
fn shutdown_fires_everything_and_refuses_new_entries() {
    let h = handle(3);
    let es: Vec<_> = (0..100).map(|_| entry()).collect();
    for (i, e) in es.iter().enumerate() {
        // SAFETY: pinned; fired by shutdown before being dropped.
        unsafe { h.file(i % 3, ptr(e), 1000 + i as u64) };
    }
    assert!(h.shutdown());
    assert!(!h.shutdown());
    assert!(es.iter().all(|e| e.state() == STATE_FIRED));
    let late = entry();
    // SAFETY: pinned.
    assert_eq!(unsafe { h.file(0, ptr(&late), 5000) }, Filed::Fired);
}

#[test]
fn polling_to_the_end_of_time_hands_out_entries_of_every_level() {
    for when in [
        1u64,
        63,
        64,
        5000,
        300_000,
        3_600_000,
        MAX_DURATION,
        MAX_DURATION * 3,
    ] {
        let mut wheel = Wheel::new();
        let e = entry();
        // SAFETY: pinned, unlinked, outlives the wheel's use.
        unsafe { wheel.insert(ptr(&e), when).unwrap() };
        assert_eq!(wheel.poll(u64::MAX), Some(ptr(&e)), "when = {when}");
        assert_eq!(wheel.poll(u64::MAX), None);
    }
}
