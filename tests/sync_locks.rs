//! `Mutex` and `RwLock` through the public API.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use volt::sync::{
    MappedMutexGuard, Mutex, MutexGuard, OwnedMutexGuard, OwnedRwLockReadGuard,
    OwnedRwLockWriteGuard, RwLock, RwLockReadGuard, RwLockWriteGuard,
};

#[volt::test(flavor = "multi_thread", worker_threads = 4)]
async fn mutex_counts_correctly_under_contention() {
    let m = Arc::new(Mutex::new(0u64));
    let tasks: Vec<_> = (0..16)
        .map(|_| {
            let m = m.clone();
            volt::spawn(async move {
                for _ in 0..500 {
                    let mut g = m.lock().await;
                    let v = *g;
                    volt::task::yield_now().await;
                    *g = v + 1;
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(*m.lock().await, 16 * 500);
}

#[volt::test]
async fn mutex_try_lock_and_owned_guards() {
    let m = Arc::new(Mutex::new(vec![1, 2, 3]));
    let g = m.try_lock().unwrap();
    assert_eq!(
        m.try_lock().unwrap_err().to_string(),
        "operation would block"
    );
    assert!(m.clone().try_lock_owned().is_err());
    assert!(std::ptr::eq(MutexGuard::mutex(&g), &*m));
    drop(g);
    let g = m.clone().lock_owned().await;
    assert!(Arc::ptr_eq(OwnedMutexGuard::mutex(&g), &m));
    let mut mapped = OwnedMutexGuard::map(g, |v| &mut v[1]);
    *mapped = 20;
    drop(mapped);
    let g = m.lock().await;
    let g = MutexGuard::try_map(g, |v| v.get_mut(10)).unwrap_err();
    let mut first = MutexGuard::map(g, |v| &mut v[0]);
    *first = 10;
    let mut first = MappedMutexGuard::map(first, |x| x);
    *first += 1;
    drop(first);
    assert_eq!(*m.lock().await, vec![11, 20, 3]);
    assert_eq!(format!("{:?}", m), "Mutex { data: [11, 20, 3] }");
    let _g = m.lock().await;
    assert_eq!(format!("{:?}", m), "Mutex { data: <locked> }");
}

#[volt::test]
async fn mutex_lock_is_fifo_even_against_the_releaser() {
    // A task that unlocks and immediately locks again queues behind the
    // task already waiting.
    let m = Arc::new(Mutex::new(Vec::new()));
    let g = m.lock().await;
    let m2 = m.clone();
    let waiter = volt::spawn(async move { m2.lock().await.push("waiter") });
    volt::task::yield_now().await;
    drop(g);
    m.lock().await.push("releaser");
    waiter.await.unwrap();
    assert_eq!(*m.lock().await, vec!["waiter", "releaser"]);
}

#[test]
fn mutex_blocking_lock_from_threads_and_misc_impls() {
    let m = Arc::new(Mutex::new(0));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let m = m.clone();
            std::thread::spawn(move || {
                for _ in 0..100 {
                    *m.blocking_lock() += 1;
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(*m.clone().blocking_lock_owned(), 400);
    let mut owned = Mutex::from(5);
    *owned.get_mut() += 1;
    assert_eq!(owned.into_inner(), 6);
    assert_eq!(Mutex::<u8>::default().into_inner(), 0);
    static M: Mutex<u8> = Mutex::const_new(3);
    assert_eq!(*M.try_lock().unwrap(), 3);
}

#[test]
#[should_panic(expected = "Cannot block the current thread from within a runtime.")]
fn mutex_blocking_lock_in_async_context_panics() {
    let rt = volt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let m = Mutex::new(());
    rt.block_on(async {
        let _g = m.blocking_lock();
    });
}

#[volt::test]
async fn cancelled_lock_does_not_leak_the_lock() {
    let m = Arc::new(Mutex::new(()));
    let g = m.lock().await;
    let m2 = m.clone();
    let waiter = volt::spawn(async move {
        let _g = m2.lock().await;
    });
    volt::task::yield_now().await;
    waiter.abort();
    let _ = waiter.await;
    drop(g);
    assert!(m.try_lock().is_ok());
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn rwlock_readers_share_writers_exclude() {
    let lock = Arc::new(RwLock::new(0));
    let readers = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let (lock, readers) = (lock.clone(), readers.clone());
            volt::spawn(async move {
                for _ in 0..50 {
                    if i % 5 == 0 {
                        let mut w = lock.write().await;
                        assert_eq!(readers.load(SeqCst), 0, "reader inside a write");
                        *w += 1;
                        volt::task::yield_now().await;
                    } else {
                        let r = lock.read().await;
                        readers.fetch_add(1, SeqCst);
                        let _ = *r;
                        volt::task::yield_now().await;
                        readers.fetch_sub(1, SeqCst);
                    }
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(*lock.read().await, 4 * 50);
}

#[volt::test]
async fn rwlock_queued_writer_blocks_later_readers() {
    let lock = Arc::new(RwLock::new(0));
    let r1 = lock.read().await;
    let l2 = lock.clone();
    let writer = volt::spawn(async move {
        *l2.write().await += 1;
    });
    volt::task::yield_now().await;
    // A writer waits: a new reader must not get in ahead of it.
    assert!(lock.try_read().is_err());
    drop(r1);
    writer.await.unwrap();
    assert_eq!(*lock.try_read().unwrap(), 1);
}

#[volt::test]
async fn rwlock_guards_map_downgrade_and_owned_variants() {
    let lock = Arc::new(RwLock::new((1, String::from("a"))));
    {
        let w = lock.write().await;
        let r = RwLockWriteGuard::downgrade_map(w, |v| &v.1);
        assert_eq!(*r, "a");
        assert!(lock.try_read().is_ok());
        assert!(lock.try_write().is_err());
    }
    {
        let w = lock.clone().write_owned().await;
        let mut w = OwnedRwLockWriteGuard::map(w, |v| &mut v.0);
        *w = 5;
        assert!(Arc::ptr_eq(
            volt::sync::OwnedRwLockMappedWriteGuard::rwlock(&w),
            &lock
        ));
    }
    {
        let r = lock.clone().read_owned().await;
        let r = OwnedRwLockReadGuard::map(r, |v| &v.0);
        assert_eq!(*r, 5);
        let r2 = lock.read().await;
        let r2 = RwLockReadGuard::try_map(r2, |v| Some(&v.1)).unwrap();
        assert_eq!(*r2, "a");
    }
    let w = lock.clone().write_owned().await;
    let r = w.downgrade();
    assert_eq!(r.0, 5);
    drop(r);
    let w = lock.write().await;
    let w = RwLockWriteGuard::try_downgrade_map(w, |v| v.1.get(5..)).unwrap_err();
    drop(w);
    let mut lock = Arc::try_unwrap(lock).unwrap();
    lock.get_mut().0 = 9;
    assert_eq!(lock.into_inner().0, 9);
}

#[test]
fn rwlock_max_readers() {
    let lock = RwLock::with_max_readers((), 2);
    let a = lock.try_read().unwrap();
    let b = lock.try_read().unwrap();
    assert!(lock.try_read().is_err());
    drop((a, b));
    assert!(lock.try_write().is_ok());
}

#[test]
#[should_panic(expected = "a RwLock may not be created with 0 readers")]
fn rwlock_zero_readers_panics() {
    let _ = RwLock::with_max_readers((), 0);
}

#[test]
#[should_panic(expected = "a RwLock may not be created with more than 536870911 readers")]
fn rwlock_too_many_readers_panics() {
    let _ = RwLock::with_max_readers((), u32::MAX);
}

#[test]
fn rwlock_blocking_from_threads() {
    let lock = Arc::new(RwLock::new(0));
    let l = lock.clone();
    std::thread::spawn(move || *l.blocking_write() += 1)
        .join()
        .unwrap();
    assert_eq!(*lock.blocking_read(), 1);
}
