//! TCP/UDP/Unix bindings for the runtime.
//!
//! This module contains the TCP networking types, similar to the standard
//! library, which can be used to implement networking protocols.
//!
//! * [`TcpListener`] and [`TcpStream`] provide functionality for
//!   communication over TCP.
//! * [`UdpSocket`] provides functionality for communication over UDP.
//! * [`UnixStream`], [`UnixListener`] and [`UnixDatagram`] are the same
//!   over Unix domain sockets; [`UnixSocket`] configures one before it
//!   becomes any of them.
//! * [`lookup_host`] resolves a host name on the blocking pool.
//!
//! Every socket registers with the runtime's I/O driver; readers and
//! writers wait for readiness of their own direction only.

mod addr;
mod common;
mod halves;
pub mod tcp;
mod udp;
#[cfg(unix)]
pub mod unix;

pub use addr::{ToSocketAddrs, lookup_host};
pub use tcp::{TcpListener, TcpSocket, TcpStream};
pub use udp::UdpSocket;
#[cfg(unix)]
pub use unix::{UnixDatagram, UnixListener, UnixSocket, UnixStream};

pub(crate) use addr::to_socket_addrs;
