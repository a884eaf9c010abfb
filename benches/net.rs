//! Network benchmarks, volt vs tokio in the same run, each runtime serving
//! its own sockets on 127.0.0.1.
//!
//! * `tcp_echo_64conn`: an echo server task per connection and 64 client
//!   tasks on the same multi-thread runtime, each doing 100 round trips of
//!   64 bytes; one iteration is 6,400 round trips.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const CONNS: usize = 64;
const ROUNDS: usize = 100;
const MSG: usize = 64;

macro_rules! echo_bench {
    ($m:ident, $rt:ident) => {
        mod $m {
            use super::*;
            use ::$rt::io::{AsyncReadExt, AsyncWriteExt};
            use ::$rt::net::{TcpListener, TcpStream};

            pub fn runtime() -> ::$rt::runtime::Runtime {
                ::$rt::runtime::Builder::new_multi_thread()
                    .enable_all()
                    .build()
                    .unwrap()
            }

            /// Starts the echo server; returns its address.
            pub fn server(rt: &::$rt::runtime::Runtime) -> std::net::SocketAddr {
                rt.block_on(async {
                    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
                    let addr = listener.local_addr().unwrap();
                    ::$rt::spawn(async move {
                        loop {
                            let (mut s, _) = listener.accept().await.unwrap();
                            s.set_nodelay(true).unwrap();
                            ::$rt::spawn(async move {
                                let mut buf = [0u8; MSG];
                                loop {
                                    if s.read_exact(&mut buf).await.is_err() {
                                        return;
                                    }
                                    if s.write_all(&buf).await.is_err() {
                                        return;
                                    }
                                }
                            });
                        }
                    });
                    addr
                })
            }

            pub fn connect(
                rt: &::$rt::runtime::Runtime,
                addr: std::net::SocketAddr,
            ) -> Vec<TcpStream> {
                rt.block_on(async {
                    let mut v = Vec::new();
                    for _ in 0..CONNS {
                        let s = TcpStream::connect(addr).await.unwrap();
                        s.set_nodelay(true).unwrap();
                        v.push(s);
                    }
                    v
                })
            }

            pub fn round_trips(rt: &::$rt::runtime::Runtime, conns: &mut Vec<TcpStream>) {
                let taken = std::mem::take(conns);
                let back = rt.block_on(async move {
                    let handles: Vec<_> = taken
                        .into_iter()
                        .map(|mut s| {
                            ::$rt::spawn(async move {
                                let mut buf = [7u8; MSG];
                                for _ in 0..ROUNDS {
                                    s.write_all(&buf).await.unwrap();
                                    s.read_exact(&mut buf).await.unwrap();
                                }
                                s
                            })
                        })
                        .collect();
                    let mut back = Vec::new();
                    for h in handles {
                        back.push(h.await.unwrap());
                    }
                    back
                });
                *conns = back;
            }
        }
    };
}

echo_bench!(volt_echo, volt);
echo_bench!(tokio_echo, tokio);

const PINGS: usize = 1_000;

macro_rules! udp_bench {
    ($m:ident, $rt:ident) => {
        mod $m {
            use super::*;
            use ::$rt::net::UdpSocket;

            pub fn pair(rt: &::$rt::runtime::Runtime) -> (UdpSocket, UdpSocket) {
                rt.block_on(async {
                    let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
                    let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
                    a.connect(b.local_addr().unwrap()).await.unwrap();
                    b.connect(a.local_addr().unwrap()).await.unwrap();
                    (a, b)
                })
            }

            pub fn ping_pong(
                rt: &::$rt::runtime::Runtime,
                pair: &mut Option<(UdpSocket, UdpSocket)>,
            ) {
                let (a, b) = pair.take().unwrap();
                *pair = Some(rt.block_on(async move {
                    let echo = ::$rt::spawn(async move {
                        let mut buf = [0u8; MSG];
                        for _ in 0..PINGS {
                            let n = b.recv(&mut buf).await.unwrap();
                            b.send(&buf[..n]).await.unwrap();
                        }
                        b
                    });
                    let mut buf = [7u8; MSG];
                    for _ in 0..PINGS {
                        a.send(&buf).await.unwrap();
                        a.recv(&mut buf).await.unwrap();
                    }
                    (a, echo.await.unwrap())
                }));
            }
        }
    };
}

udp_bench!(volt_udp, volt);
udp_bench!(tokio_udp, tokio);

fn udp_ping_pong(c: &mut Criterion) {
    let vrt = volt_echo::runtime();
    let trt = tokio_echo::runtime();
    let mut vpair = Some(volt_udp::pair(&vrt));
    let mut tpair = Some(tokio_udp::pair(&trt));
    let mut g = c.benchmark_group("udp_ping_pong");
    g.sample_size(20);
    g.throughput(Throughput::Elements(PINGS as u64));
    g.bench_function("volt", |b| b.iter(|| volt_udp::ping_pong(&vrt, &mut vpair)));
    g.bench_function("tokio", |b| {
        b.iter(|| tokio_udp::ping_pong(&trt, &mut tpair))
    });
    g.finish();
}

fn tcp_echo(c: &mut Criterion) {
    let vrt = volt_echo::runtime();
    let trt = tokio_echo::runtime();
    let vaddr = volt_echo::server(&vrt);
    let taddr = tokio_echo::server(&trt);
    let mut vconns = volt_echo::connect(&vrt, vaddr);
    let mut tconns = tokio_echo::connect(&trt, taddr);

    let mut g = c.benchmark_group("tcp_echo_64conn");
    g.sample_size(20);
    g.throughput(Throughput::Elements((CONNS * ROUNDS) as u64));
    g.bench_function("volt", |b| {
        b.iter(|| volt_echo::round_trips(&vrt, &mut vconns))
    });
    g.bench_function("tokio", |b| {
        b.iter(|| tokio_echo::round_trips(&trt, &mut tconns))
    });
    g.finish();
}

criterion_group!(benches, tcp_echo, udp_ping_pong);
criterion_main!(benches);
