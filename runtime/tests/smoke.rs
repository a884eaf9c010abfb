use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use volt_runtime::runtime::{Builder, Runtime};

#[test]
fn spawn_and_join_multi() {
    let rt = Runtime::new().unwrap();
    let out = rt.block_on(async {
        let mut hs = vec![];
        for i in 0..1000u64 {
            hs.push(volt_runtime::spawn(async move {
                volt_runtime::task::yield_now().await;
                i
            }));
        }
        let mut sum = 0;
        for h in hs {
            sum += h.await.unwrap();
        }
        sum
    });
    assert_eq!(out, 999 * 1000 / 2);
}

#[test]
fn spawn_and_join_current() {
    let rt = Builder::new_current_thread().build().unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    rt.block_on(async move {
        let mut hs = vec![];
        for _ in 0..1000 {
            let c = c.clone();
            hs.push(volt_runtime::spawn(async move {
                volt_runtime::task::yield_now().await;
                c.fetch_add(1, SeqCst);
            }));
        }
        for h in hs {
            h.await.unwrap();
        }
    });
    assert_eq!(count.load(SeqCst), 1000);
}

#[test]
fn blocking_and_abort() {
    let rt = Runtime::new().unwrap();
    rt.block_on(async {
        let v = volt_runtime::task::spawn_blocking(|| 5).await.unwrap();
        assert_eq!(v, 5);
        let h = volt_runtime::spawn(std::future::pending::<()>());
        h.abort();
        assert!(h.await.unwrap_err().is_cancelled());
        let e = volt_runtime::spawn(async { panic!("boom") })
            .await
            .unwrap_err();
        assert!(e.is_panic());
    });
}
