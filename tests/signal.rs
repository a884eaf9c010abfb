//! `volt::signal`: delivery to listeners, coalescing, refusal of
//! unhandleable signals, `ctrl_c`.

use volt::signal::unix::{SignalKind, signal};

fn raise(sig: i32) {
    // SAFETY: `kill` with our own pid and a handled signal.
    let rc = unsafe { libc_kill(std::process::id() as i32, sig) };
    assert_eq!(rc, 0);
}

unsafe extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, sig: i32) -> i32;
}

const SIGUSR1: i32 = 10;
const SIGUSR2: i32 = 12;
const SIGINT: i32 = 2;

#[volt::test]
async fn delivers_to_every_listener() {
    let mut a = signal(SignalKind::user_defined1()).unwrap();
    let mut b = signal(SignalKind::from_raw(SIGUSR1)).unwrap();
    raise(SIGUSR1);
    assert_eq!(a.recv().await, Some(()));
    assert_eq!(b.recv().await, Some(()));
}

#[volt::test(flavor = "multi_thread", worker_threads = 2)]
async fn deliveries_coalesce_and_later_ones_are_seen() {
    let mut s = signal(SignalKind::user_defined2()).unwrap();
    raise(SIGUSR2);
    raise(SIGUSR2);
    s.recv().await;
    // Another delivery after the first recv is a new notification.
    let waiter = volt::spawn(async move {
        s.recv().await;
    });
    volt::task::yield_now().await;
    raise(SIGUSR2);
    waiter.await.unwrap();
}

#[volt::test]
async fn forbidden_signals_are_refused_with_tokios_error() {
    for sig in [9, 19, 0, -1] {
        let err = signal(SignalKind::from_raw(sig)).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("Refusing to register signal {sig}")
        );
    }
    assert_eq!(
        signal(SignalKind::from_raw(1000)).unwrap_err().to_string(),
        "signal too large"
    );
}

#[volt::test]
async fn ctrl_c_completes_on_sigint() {
    let wait = volt::spawn(volt::signal::ctrl_c());
    // The handler is installed once the task has polled; a listener made
    // here installs it now, so raising cannot kill the test process.
    let _guard = signal(SignalKind::interrupt()).unwrap();
    volt::task::yield_now().await;
    raise(SIGINT);
    wait.await.unwrap().unwrap();
}

#[test]
#[should_panic(expected = "IO is disabled")]
fn signal_without_io_panics_like_tokio() {
    let rt = volt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let _ = signal(SignalKind::hangup());
    });
}
