//! `join!`, `try_join!`, `pin!` and the `#[volt::test]` / `#[volt::main]`
//! attributes.

mod support;

use std::future::{pending, ready};
use std::sync::{Arc, Mutex};
use support::{DropCounter, Signal, pending_tracked};

#[volt::test]
async fn join_empty_and_one() {
    let () = volt::join!();
    let (a,) = volt::join!(ready(1));
    assert_eq!(a, 1);
}

#[volt::test]
async fn join_waits_for_all() {
    let s = Signal::new();
    let s2 = s.clone();
    let (a, b, ()) = volt::join!(
        async {
            s.wait().await;
            "waited"
        },
        async { 2 },
        async move {
            volt::task::yield_now().await;
            s2.set();
        }
    );
    assert_eq!((a, b), ("waited", 2));
}

#[volt::test]
async fn join_biased_polls_in_order_and_unbiased_rotates() {
    let order = Arc::new(Mutex::new(vec![]));
    let track = |i: u8, order: Arc<Mutex<Vec<u8>>>| async move {
        order.lock().unwrap().push(i);
        volt::task::yield_now().await;
        order.lock().unwrap().push(i);
    };
    volt::join!(biased; track(0, order.clone()), track(1, order.clone()), track(2, order.clone()));
    assert_eq!(*order.lock().unwrap(), vec![0, 1, 2, 0, 1, 2]);

    order.lock().unwrap().clear();
    volt::join!(
        track(0, order.clone()),
        track(1, order.clone()),
        track(2, order.clone())
    );
    // The first poll starts at the first future, the next one further on.
    assert_eq!(*order.lock().unwrap(), vec![0, 1, 2, 1, 2, 0]);
}

#[volt::test]
async fn try_join_all_ok() {
    let res: Result<(u8, &str), ()> = volt::try_join!(async { Ok(1) }, async { Ok("two") });
    assert_eq!(res, Ok((1, "two")));
    let empty: Result<(), ()> = volt::try_join!();
    assert_eq!(empty, Ok(()));
}

#[volt::test]
async fn try_join_returns_first_error_and_drops_the_rest() {
    let drops = DropCounter::new();
    let t = drops.track();
    let res: Result<((), u8), &str> = volt::try_join!(
        async move {
            pending_tracked(t).await;
            Ok(())
        },
        async { Err("bad") }
    );
    assert_eq!(res, Err("bad"));
    assert_eq!(drops.count(), 1);
}

#[volt::test]
async fn try_join_biased() {
    let res: Result<(u8, u8), u8> = volt::try_join!(biased; async { Err(1) }, async { Err(2) });
    assert_eq!(res, Err(1));
}

#[volt::test]
async fn pin_macro_forms() {
    let fut = async { 1 };
    volt::pin!(fut);
    assert_eq!((&mut fut).await, 1);

    volt::pin! {
        let a = async { 2 };
        let b = pending::<u8>();
    }
    let v = volt::select! {
        v = &mut a => v,
        v = &mut b => v,
    };
    assert_eq!(v, 2);
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_attribute_multi_thread_flavor() {
    let h = volt::runtime::Handle::current();
    assert_eq!(
        h.runtime_flavor(),
        volt::runtime::RuntimeFlavor::MultiThread
    );
    assert_eq!(h.metrics().num_workers(), 2);
}

#[volt::test(flavor = "current_thread")]
async fn test_attribute_current_thread_flavor() {
    assert_eq!(
        volt::runtime::Handle::current().runtime_flavor(),
        volt::runtime::RuntimeFlavor::CurrentThread
    );
}

#[volt::test]
async fn test_attribute_defaults_to_current_thread() {
    assert_eq!(
        volt::runtime::Handle::current().runtime_flavor(),
        volt::runtime::RuntimeFlavor::CurrentThread
    );
}

#[volt::test]
async fn test_returning_result() -> Result<(), Box<dyn std::error::Error>> {
    let v: u8 = "7".parse()?;
    assert_eq!(v, 7);
    Ok(())
}

mod renamed {
    use volt as other_name;

    #[other_name::test(crate = "other_name")]
    async fn crate_argument_renames_the_path() {
        other_name::spawn(async {}).await.unwrap();
    }
}

#[volt::main(flavor = "current_thread")]
async fn helper_main_style() -> u8 {
    volt::spawn(async { 3 }).await.unwrap()
}

#[test]
fn main_attribute_makes_a_sync_function() {
    assert_eq!(helper_main_style(), 3);
}

#[volt::main(worker_threads = 3)]
async fn helper_multi() -> usize {
    volt::runtime::Handle::current().metrics().num_workers()
}

#[test]
fn main_attribute_defaults_to_multi_thread() {
    assert_eq!(helper_multi(), 3);
}

/// `join!` keeps one pointer for all its futures: tokio's sizes (its
/// `join_size` tests).
#[test]
fn future_sizes_match_tokio() {
    use std::mem::size_of_val;
    let one = async { volt::join!(ready(0i32)) };
    let two = async { volt::join!(ready(0i32), ready(0i32)) };
    let one_biased = async { volt::join!(biased; ready(0i32)) };
    let two_biased = async { volt::join!(biased; ready(0i32), ready(0i32)) };
    assert_eq!((size_of_val(&one), size_of_val(&two)), (32, 48));
    assert_eq!(
        (size_of_val(&one_biased), size_of_val(&two_biased)),
        (24, 40)
    );
    let try_two = async { volt::try_join!(ready(Ok::<i32, ()>(0)), ready(Ok::<i32, ()>(0))) };
    assert!(size_of_val(&try_two) <= 64, "{}", size_of_val(&try_two));
}

#[volt::test]
async fn more_than_sixteen_futures_keep_their_order() {
    let v = volt::join!(
        ready(0),
        ready(1),
        ready(2),
        ready(3),
        ready(4),
        ready(5),
        ready(6),
        ready(7),
        ready(8),
        ready(9),
        ready(10),
        ready(11),
        ready(12),
        ready(13),
        ready(14),
        ready(15),
        ready(16),
        async {
            volt::task::yield_now().await;
            17
        },
    );
    assert_eq!(v.0 + v.16, 16);
    assert_eq!(v.17, 17);
    let ok = |v: u8| ready(Ok::<u8, u8>(v));
    let r = volt::try_join!(
        ok(0),
        ok(1),
        ok(2),
        ok(3),
        ok(4),
        ok(5),
        ok(6),
        ok(7),
        ok(8),
        ok(9),
        ok(10),
        ok(11),
        ok(12),
        ok(13),
        ok(14),
        ok(15),
        ready(Err::<u8, u8>(16)),
    );
    assert!(matches!(r, Err(16)));
}
