//! `Send`/`Sync` of the public types and of the futures their methods
//! return, checked at compile time. A type or future that is `Send` or
//! `Sync` in tokio must be so in volt (code that holds it across an
//! `.await` in a spawned task, or shares it, must keep compiling after the
//! switch); one that is not in tokio must not be in volt either, unless
//! that is sound and deliberate. Futures here are never polled: each check
//! builds the value inside a closure that is never called.

#![allow(
    dead_code,
    unreachable_code,
    unused_variables,
    clippy::diverging_sub_expression
)]

use std::cell::Cell;
use std::rc::Rc;

/// `T: Send + Sync` (or just one of them).
fn send_sync<T: Send + Sync>(_: &T) {}
fn send<T: Send>(_: &T) {}
/// `T` can cross `catch_unwind` by value and by reference.
fn unwind_safe<T: std::panic::UnwindSafe + std::panic::RefUnwindSafe>(_: &T) {}

// "Not Send" / "not Sync": with two blanket impls, the call is ambiguous
// (a compile error) exactly when `T` has the auto trait.
struct Has;
trait NotSend<A> {
    fn check(&self) {}
}
impl<T: ?Sized> NotSend<()> for T {}
impl<T: ?Sized + Send> NotSend<Has> for T {}
trait NotSync<A> {
    fn check(&self) {}
}
impl<T: ?Sized> NotSync<()> for T {}
impl<T: ?Sized + Sync> NotSync<Has> for T {}

trait NotUnpin<A> {
    fn check(&self) {}
}
impl<T: ?Sized> NotUnpin<()> for T {}
impl<T: ?Sized + Unpin> NotUnpin<Has> for T {}
fn unpin<T: Unpin>(_: &T) {}
/// A future that a multi-thread runtime can spawn.
fn spawnable<F: std::future::Future + Send + 'static>(_: F) {}

macro_rules! check {
    ($($name:ident: $body:block)*) => {$(
        #[allow(non_upper_case_globals)]
        const $name: fn() = || $body;
    )*};
}

type SyncFut = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + Sync>>;

check! {
    net_futures: {
        // Address resolution runs on the blocking pool; the futures that
        // may wait for it stay `Sync`, as tokio's are.
        let addr: std::net::SocketAddr = todo!();
        send_sync(&volt::net::lookup_host(addr));
        send_sync(&volt::net::TcpStream::connect(addr));
        send_sync(&volt::net::TcpListener::bind(addr));
        send_sync(&volt::net::UdpSocket::bind(addr));
        let udp: &volt::net::UdpSocket = todo!();
        send_sync(&udp.connect(addr));
        send_sync(&udp.send_to(&[], addr));
        send_sync(&volt::net::UnixStream::connect("p"));
    }
    unix_socket_and_pipes: {
        let socket: volt::net::UnixSocket = todo!();
        send_sync(&socket);
        send_sync(&socket.connect("p"));
        let (tx, rx): (volt::net::unix::pipe::Sender, volt::net::unix::pipe::Receiver) = todo!();
        send_sync(&tx.writable());
        send_sync(&rx.readable());
        send_sync(&tx);
        send_sync(&rx);
        send_sync(&volt::net::unix::pipe::OpenOptions::new());
    }
    runtime_guards: {
        // tokio's `EnterGuard` is `!Send + Sync`.
        let guard: volt::runtime::EnterGuard<'static> = todo!();
        NotSend::check(&guard);
        send_sync(&&guard);
        let local: volt::task::LocalEnterGuard = todo!();
        NotSend::check(&local);
        NotSync::check(&local);
    }
    task_local_future: {
        volt::task_local! { static KEY: u32; }
        let fut: volt::task::futures::TaskLocalFuture<u32, SyncFut> = KEY.scope(1, todo!());
        send_sync(&fut);
        let fut: volt::task::futures::TaskLocalFuture<Cell<u32>, SyncFut> = todo!();
        send(&fut);
        NotSync::check(&fut);
    }
    sync_futures: {
        let (mutex, rwlock, sem, notify): (
            &volt::sync::Mutex<u8>,
            &volt::sync::RwLock<u8>,
            &volt::sync::Semaphore,
            &volt::sync::Notify,
        ) = todo!();
        send_sync(&mutex.lock());
        send_sync(&rwlock.read());
        send_sync(&rwlock.write());
        send_sync(&sem.acquire());
        send_sync(&sem.acquire_many(2));
        send_sync(&notify.notified());
        // A lock future over a `!Sync` value is `Send` (the value moves
        // with it), but a read guard over it must not be shared.
        let rw: &volt::sync::RwLock<Cell<u8>> = todo!();
        NotSend::check(&rw.read());
        let guard: volt::sync::MutexGuard<'static, Cell<u8>> = todo!();
        send(&guard);
        NotSync::check(&guard);
    }
    channel_futures: {
        let (tx, rx): (volt::sync::mpsc::Sender<u8>, volt::sync::mpsc::Receiver<u8>) = todo!();
        send_sync(&tx.send(1));
        send_sync(&tx.reserve());
        let rx: &mut volt::sync::mpsc::Receiver<u8> = todo!();
        send_sync(&rx.recv());
        let brx: &mut volt::sync::broadcast::Receiver<u8> = todo!();
        send_sync(&brx.recv());
        let wrx: &mut volt::sync::watch::Receiver<u8> = todo!();
        send_sync(&wrx.changed());
        let wrx: volt::sync::watch::Receiver<Cell<u8>> = todo!();
        NotSend::check(&wrx);
        let otx: volt::sync::oneshot::Sender<u8> = todo!();
        send_sync(&otx);
        let (ctx, crx): (volt::channel::Sender<u8>, volt::channel::Receiver<u8>) = todo!();
        send_sync(&ctx.send(1));
        send_sync(&crx.recv());
        let nn: volt::channel::Sender<Rc<u8>> = todo!();
        NotSend::check(&nn);
        NotSync::check(&nn);
    }
    volt_channel_like_async_channel: {
        // Handles and futures are `Send + Sync` for `T: Send`, like
        // async-channel's (its `Send` future is `!Sync` for a `!Sync`
        // value; volt's shares nothing through `&`, so it is `Sync`).
        type C = Cell<u8>;
        let (tx, rx): (volt::channel::Sender<C>, volt::channel::Receiver<C>) = todo!();
        send_sync(&tx);
        send_sync(&rx);
        send_sync(&tx.send(Cell::new(1)));
        send_sync(&rx.recv());
        // Unpin as async-channel's `Sender`; volt's `Receiver` too (its
        // stream state is boxed). The futures hold pinned waiter nodes.
        unpin(&tx);
        unpin(&rx);
        NotUnpin::check(&tx.send(Cell::new(1)));
        NotUnpin::check(&rx.recv());
        // A `&Receiver` held across an `.await` in a spawned task.
        let shared = std::sync::Arc::new(rx);
        spawnable(async move {
            let rx: &volt::channel::Receiver<C> = &shared;
            rx.recv().await
        });
        let e: (
            volt::channel::SendError<u8>,
            volt::channel::TrySendError<u8>,
            volt::channel::RecvError,
            volt::channel::TryRecvError,
        ) = todo!();
        send_sync(&e);
        let nn: volt::channel::Receiver<Rc<u8>> = todo!();
        NotSend::check(&nn);
        NotSync::check(&nn);
    }
    sync_channels_like_tokio: {
        // With a `Send + !Sync` value, exactly as tokio's (probed against
        // tokio 1.54): everything `Send + Sync` but mpsc's send future
        // (`!Sync`) and watch's sender, receiver, `Ref` and `changed`
        // future (neither).
        type C = Cell<u8>;
        let tx: volt::sync::mpsc::Sender<C> = todo!();
        send_sync(&tx);
        send(&tx.send(Cell::new(1)));
        NotSync::check(&tx.send(Cell::new(1)));
        send_sync(&tx.reserve());
        send_sync(&tx.try_reserve().unwrap());
        send_sync(&tx.downgrade());
        let rx: volt::sync::mpsc::Receiver<C> = todo!();
        send_sync(&rx);
        let rx: &mut volt::sync::mpsc::Receiver<C> = todo!();
        send_sync(&rx.recv());
        let (utx, mut urx) = volt::sync::mpsc::unbounded_channel::<C>();
        send_sync(&utx);
        send_sync(&urx.recv());
        let (otx, orx) = volt::sync::oneshot::channel::<C>();
        send_sync(&otx);
        send_sync(&orx);
        let (wtx, mut wrx) = volt::sync::watch::channel::<C>(Cell::new(0));
        NotSend::check(&wtx);
        NotSync::check(&wtx);
        NotSend::check(&wrx.changed());
        NotSync::check(&wrx.changed());
        NotSend::check(&wrx.borrow());
        NotSync::check(&wrx.borrow());
        NotSend::check(&wrx);
        NotSync::check(&wrx);
        let (btx, mut brx) = volt::sync::broadcast::channel::<C>(4);
        send_sync(&btx);
        send_sync(&brx.recv());
        send_sync(&brx);
    }
    unwind_safe_handles: {
        // tokio marks these `UnwindSafe + RefUnwindSafe` whatever the
        // message type; a `catch_unwind(|| tx.try_send(..))` must compile.
        let (tx, rx): (volt::sync::mpsc::Sender<Cell<u8>>, volt::sync::mpsc::Receiver<Cell<u8>>) = todo!();
        unwind_safe(&tx);
        unwind_safe(&rx);
        unwind_safe(&tx.downgrade());
        unwind_safe(&tx.try_reserve().unwrap());
        unwind_safe(&tx.clone().try_reserve_owned().unwrap());
        let (utx, urx) = volt::sync::mpsc::unbounded_channel::<Cell<u8>>();
        unwind_safe(&utx);
        unwind_safe(&urx);
        unwind_safe(&utx.downgrade());
        let tcp: volt::net::TcpStream = todo!();
        unwind_safe(&tcp);
        let (r, w) = tcp.into_split();
        unwind_safe(&r);
        unwind_safe(&w);
        let sockets: (
            volt::net::TcpListener,
            volt::net::UdpSocket,
            volt::net::UnixStream,
            volt::net::UnixListener,
        ) = todo!();
        unwind_safe(&sockets);
        let (ptx, prx): (volt::net::unix::pipe::Sender, volt::net::unix::pipe::Receiver) = todo!();
        unwind_safe(&ptx);
        unwind_safe(&prx);
        let child: volt::process::Child = todo!();
        unwind_safe(&child.stdin);
        unwind_safe(&child.stdout);
        unwind_safe(&child.stderr);
        unwind_safe(&volt::sync::Notify::new());
        let handle: volt::task::JoinHandle<Cell<u8>> = todo!();
        unwind_safe(&handle);
    }
    deprecated_mpsc_recv_error: {
        #[allow(deprecated)]
        let e: volt::sync::mpsc::error::RecvError = todo!();
        send_sync(&e);
    }
}
