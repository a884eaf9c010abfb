//! The `hyper` 1.x HTTP server running on volt, through hyper's
//! runtime-agnostic `rt` traits.
//!
//! ```sh
//! cargo run --release --example hyper_server                # 127.0.0.1:3000
//! curl -i http://127.0.0.1:3000/
//! wrk -t2 -c64 -d10s http://127.0.0.1:3000/
//! ```
//!
//! hyper does not know about any runtime; it needs an I/O type that
//! implements `hyper::rt::{Read, Write}` and, for timeouts, a
//! `hyper::rt::Timer`. The adapter below is the whole of it (the same
//! shape as `hyper_util::rt::TokioIo`/`TokioTimer`, written against volt's
//! `AsyncRead`/`AsyncWrite` and `volt::time::Sleep`). It is small enough
//! that volt keeps it as an example rather than a public `compat` module
//! with a hyper dependency; copy it into a service that needs it.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use volt::net::TcpListener;

#[path = "support/mod.rs"]
mod support;

/// A volt I/O object seen through hyper's `rt::Read`/`rt::Write`.
#[derive(Debug)]
pub struct VoltIo<T>(T);

impl<T: volt::io::AsyncRead + Unpin> hyper::rt::Read for VoltIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        let n = {
            // SAFETY: volt's `ReadBuf` only ever initializes the bytes it
            // is given (it never de-initializes), which is what hyper's
            // cursor requires of writers into its unfilled part.
            let unfilled = unsafe { buf.as_mut() };
            let mut rb = volt::io::ReadBuf::uninit(unfilled);
            match Pin::new(&mut self.0).poll_read(cx, &mut rb) {
                Poll::Ready(Ok(())) => rb.filled().len(),
                other => return other,
            }
        };
        // SAFETY: `poll_read` initialized and filled `n` bytes of the
        // cursor's unfilled part.
        unsafe { buf.advance(n) };
        Poll::Ready(Ok(()))
    }
}

impl<T: volt::io::AsyncWrite + Unpin> hyper::rt::Write for VoltIo<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.0.is_write_vectored()
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.0).poll_write_vectored(cx, bufs)
    }
}

/// volt's timer as a `hyper::rt::Timer` (header read timeouts).
#[derive(Clone, Debug)]
pub struct VoltTimer;

/// A `volt::time::Sleep` as a `hyper::rt::Sleep`.
#[derive(Debug)]
pub struct VoltSleep(Pin<Box<volt::time::Sleep>>);

impl Future for VoltSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.0.as_mut().poll(cx)
    }
}

impl hyper::rt::Sleep for VoltSleep {}

impl hyper::rt::Timer for VoltTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn hyper::rt::Sleep>> {
        Box::pin(VoltSleep(Box::pin(volt::time::sleep(duration))))
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn hyper::rt::Sleep>> {
        Box::pin(VoltSleep(Box::pin(volt::time::sleep_until(
            deadline.into(),
        ))))
    }

    fn reset(&self, sleep: &mut Pin<Box<dyn hyper::rt::Sleep>>, new_deadline: Instant) {
        match sleep.as_mut().downcast_mut_pin::<VoltSleep>() {
            Some(s) => s.get_mut().0.as_mut().reset(new_deadline.into()),
            None => *sleep = self.sleep_until(new_deadline),
        }
    }
}

async fn hello(_: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(Response::new(Full::new(Bytes::from_static(
        b"Hello, World!",
    ))))
}

fn main() -> std::io::Result<()> {
    let args = support::args("hyper_server", "127.0.0.1:3000");
    let rt = volt::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let listener = TcpListener::bind(&args.addr).await?;
        println!(
            "hyper_server listening on http://{}",
            listener.local_addr()?
        );
        support::run_until_ctrl_c(serve(listener), args.seconds).await
    })
}

/// Accepts connections forever; hyper drives each on its own task.
pub async fn serve(listener: TcpListener) -> std::io::Result<()> {
    loop {
        let stream = support::accept(&listener).await;
        // Best effort: it fails on a socket the peer already reset (BSD
        // and macOS report that here), which is no reason to stop serving.
        let _ = stream.set_nodelay(true);
        volt::spawn(async move {
            let conn = http1::Builder::new()
                .timer(VoltTimer)
                .header_read_timeout(Duration::from_secs(30))
                .serve_connection(VoltIo(stream), service_fn(hello));
            // Clients that disconnect mid-request end up here; nothing to do.
            let _ = conn.await;
        });
    }
}
