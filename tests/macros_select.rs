//! `select!` semantics (tokio's).

mod support;

use std::future::{pending, ready};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use support::{DropCounter, Signal, pending_tracked};

#[volt::test]
async fn sync_one_lit_expr_comma() {
    let foo = volt::select! {
        foo = async { 1 } => foo,
    };
    assert_eq!(foo, 1);
}

#[volt::test]
async fn no_comma_after_block_and_no_trailing_comma() {
    let foo = volt::select! {
        foo = async { 1 } => { foo }
        bar = async { 2 } => bar
    };
    assert!(foo == 1 || foo == 2);
}

#[volt::test]
async fn only_else_branch() {
    let v = volt::select! {
        else => 7,
    };
    assert_eq!(v, 7);
}

#[volt::test]
async fn biased_polls_in_order() {
    for _ in 0..20 {
        let v = volt::select! {
            biased;
            v = ready(1) => v,
            v = ready(2) => v,
            v = ready(3) => v,
        };
        assert_eq!(v, 1);
    }
}

#[volt::test]
async fn unbiased_is_random_among_ready_branches() {
    let mut seen = [false; 3];
    for _ in 0..200 {
        let v: usize = volt::select! {
            v = ready(0) => v,
            v = ready(1) => v,
            v = ready(2) => v,
        };
        seen[v] = true;
    }
    assert!(seen.iter().all(|s| *s), "{seen:?}");
}

#[volt::test]
async fn failing_pattern_disables_branch_and_else_runs() {
    let v = volt::select! {
        Some(x) = ready(None::<u32>) => x,
        Ok(x) = ready(Err::<u32, ()>(())) => x,
        else => 99,
    };
    assert_eq!(v, 99);
}

#[volt::test]
async fn failing_pattern_lets_other_branch_win() {
    let (tx, rx) = (Signal::new(), Signal::new());
    let rx2 = rx.clone();
    volt::spawn(async move {
        rx2.set();
    });
    let _ = tx;
    let v = volt::select! {
        Some(x) = ready(None::<u32>) => x,
        _ = rx.wait() => 5,
    };
    assert_eq!(v, 5);
}

#[volt::test]
async fn precondition_disables_branch_but_still_evaluates_it() {
    let evaluated = Arc::new(AtomicUsize::new(0));
    let e = evaluated.clone();
    let make = move |v: u32| {
        e.fetch_add(1, SeqCst);
        ready(v)
    };
    let v = volt::select! {
        v = make(1), if false => v,
        v = make(2) => v,
    };
    assert_eq!(v, 2);
    assert_eq!(evaluated.load(SeqCst), 2);
}

#[volt::test]
#[should_panic(expected = "all branches are disabled and there is no else branch")]
async fn all_disabled_without_else_panics() {
    volt::select! {
        _ = ready(()), if false => {}
        Some(_) = ready(None::<()>) => {}
    }
}

#[volt::test]
async fn bindings_refs_and_nested_patterns() {
    struct Point {
        x: i32,
        y: i32,
    }
    let v = volt::select! {
        Point { x, y: 2 } = ready(Point { x: 1, y: 2 }) => x,
    };
    assert_eq!(v, 1);
    let v = volt::select! {
        (a, Some(mut b)) = ready((1, Some(2))) => { b += a; b }
    };
    assert_eq!(v, 3);
    let v = volt::select! {
        whole @ Some(_) = ready(Some(4)) => whole.unwrap(),
    };
    assert_eq!(v, 4);
    let s = String::from("x");
    let v = volt::select! {
        r = ready(&s) => r.len(),
    };
    assert_eq!(v, 1);
    let v = volt::select! {
        Ok(v) | Err(v) = ready(Err::<u8, u8>(9)) => v,
    };
    assert_eq!(v, 9);
}

#[volt::test]
async fn losing_futures_are_dropped_before_the_handler() {
    let drops = DropCounter::new();
    let d = drops.clone();
    volt::select! {
        _ = pending_tracked(drops.track()) => unreachable!(),
        _ = ready(()) => {
            // The loser is already gone.
            assert_eq!(d.count(), 1);
        }
    }
}

#[volt::test]
async fn handler_can_return_break_and_use_question_mark() {
    async fn returns() -> Result<u32, &'static str> {
        let v: u32 = volt::select! {
            v = ready(Err("e")) => v?,
        };
        Ok(v)
    }
    assert_eq!(returns().await, Err("e"));

    let mut n = 0;
    loop {
        volt::select! {
            _ = ready(()) => {
                n += 1;
                if n == 3 {
                    break;
                }
            }
        }
    }
    assert_eq!(n, 3);

    #[allow(clippy::needless_return)] // `return` from a handler is the point
    async fn early() -> u32 {
        volt::select! {
            _ = ready(()) => return 11,
        }
    }
    assert_eq!(early().await, 11);
}

#[volt::test]
async fn mut_ref_future_in_a_loop_is_cancel_safe() {
    let s = Signal::new();
    let s2 = s.clone();
    let mut waiting = Box::pin(s.wait());
    let mut ticks = 0;
    loop {
        volt::select! {
            _ = &mut waiting => break,
            _ = volt::task::yield_now() => {
                ticks += 1;
                if ticks == 5 {
                    s2.set();
                }
            }
        }
    }
    assert!(ticks >= 5);
}

#[volt::test]
async fn user_variables_named_like_internals_are_not_shadowed() {
    let output = 1;
    let disabled = 2;
    let futures_init = 3;
    let cx = 4;
    let i = 5;
    let v = volt::select! {
        v = ready(output + disabled + futures_init + cx + i) => v,
    };
    assert_eq!(v, 15);
}

#[volt::test]
async fn sixty_four_branches() {
    let v = volt::select! {
        biased;
        _ = pending::<()>() => 0, _ = pending::<()>() => 1, _ = pending::<()>() => 2, _ = pending::<()>() => 3,
        _ = pending::<()>() => 4, _ = pending::<()>() => 5, _ = pending::<()>() => 6, _ = pending::<()>() => 7,
        _ = pending::<()>() => 8, _ = pending::<()>() => 9, _ = pending::<()>() => 10, _ = pending::<()>() => 11,
        _ = pending::<()>() => 12, _ = pending::<()>() => 13, _ = pending::<()>() => 14, _ = pending::<()>() => 15,
        _ = pending::<()>() => 16, _ = pending::<()>() => 17, _ = pending::<()>() => 18, _ = pending::<()>() => 19,
        _ = pending::<()>() => 20, _ = pending::<()>() => 21, _ = pending::<()>() => 22, _ = pending::<()>() => 23,
        _ = pending::<()>() => 24, _ = pending::<()>() => 25, _ = pending::<()>() => 26, _ = pending::<()>() => 27,
        _ = pending::<()>() => 28, _ = pending::<()>() => 29, _ = pending::<()>() => 30, _ = pending::<()>() => 31,
        _ = pending::<()>() => 32, _ = pending::<()>() => 33, _ = pending::<()>() => 34, _ = pending::<()>() => 35,
        _ = pending::<()>() => 36, _ = pending::<()>() => 37, _ = pending::<()>() => 38, _ = pending::<()>() => 39,
        _ = pending::<()>() => 40, _ = pending::<()>() => 41, _ = pending::<()>() => 42, _ = pending::<()>() => 43,
        _ = pending::<()>() => 44, _ = pending::<()>() => 45, _ = pending::<()>() => 46, _ = pending::<()>() => 47,
        _ = pending::<()>() => 48, _ = pending::<()>() => 49, _ = pending::<()>() => 50, _ = pending::<()>() => 51,
        _ = pending::<()>() => 52, _ = pending::<()>() => 53, _ = pending::<()>() => 54, _ = pending::<()>() => 55,
        _ = pending::<()>() => 56, _ = pending::<()>() => 57, _ = pending::<()>() => 58, _ = pending::<()>() => 59,
        _ = pending::<()>() => 60, _ = pending::<()>() => 61, _ = pending::<()>() => 62, v = ready(63) => v,
    };
    assert_eq!(v, 63);
}

#[volt::test]
async fn select_respects_the_coop_budget() {
    // Spin on an always-ready select inside a task: the budget makes it
    // yield so the other task can flip the flag.
    use std::sync::atomic::AtomicBool;
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    let spinner = volt::spawn(async move {
        let mut n = 0u64;
        while !f.load(SeqCst) {
            volt::select! {
                _ = volt::task::consume_budget() => { n += 1; }
            }
        }
        n
    });
    volt::spawn(async move { flag.store(true, SeqCst) })
        .await
        .unwrap();
    assert!(spinner.await.unwrap() > 0);
}

#[volt::test]
async fn into_future_is_used() {
    struct Later(u8);
    impl std::future::IntoFuture for Later {
        type Output = u8;
        type IntoFuture = std::future::Ready<u8>;
        fn into_future(self) -> Self::IntoFuture {
            ready(self.0)
        }
    }
    let v = volt::select! {
        v = Later(3) => v,
    };
    assert_eq!(v, 3);
}

/// `select!` keeps one pointer for all its futures and a bit mask sized to
/// the branch count: tokio's sizes (its `pointer_64_tests`).
#[test]
fn future_sizes_match_tokio() {
    use std::mem::size_of_val;
    let one = async {
        let a = ready(0i32);
        volt::select! { _ = a => {} }
    };
    let two = async {
        let (a, b) = (ready(0i32), ready(0i32));
        volt::select! { _ = a => {}, _ = b => {} }
    };
    let three = async {
        let (a, b, c) = (ready(0i32), ready(0i32), ready(0i32));
        volt::select! { _ = a => {}, _ = b => {}, _ = c => {} }
    };
    assert_eq!(
        (size_of_val(&one), size_of_val(&two), size_of_val(&three)),
        (32, 40, 48)
    );
}

#[volt::test]
async fn branches_past_sixteen_nest_and_keep_their_order() {
    // 17 branches: two levels of tuples inside; `biased;` polls in order,
    // so the first ready branch wins wherever it sits.
    let v = volt::select! {
        biased;
        _ = pending::<()>() => 0, _ = pending::<()>() => 1, _ = pending::<()>() => 2, _ = pending::<()>() => 3,
        _ = pending::<()>() => 4, _ = pending::<()>() => 5, _ = pending::<()>() => 6, _ = pending::<()>() => 7,
        _ = pending::<()>() => 8, _ = pending::<()>() => 9, _ = pending::<()>() => 10, _ = pending::<()>() => 11,
        _ = pending::<()>() => 12, _ = pending::<()>() => 13, _ = pending::<()>() => 14, v = ready(15) => v,
        v = ready(16) => v,
    };
    assert_eq!(v, 15);
}
