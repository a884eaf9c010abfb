//! TCP/UDP/Unix bindings for the runtime.
//!
//! This module contains the TCP networking types, similar to the standard
//! library, which can be used to implement networking protocols.
//!
//! * [`TcpListener`] and [`TcpStream`] provide functionality for
//!   communication over TCP.
//! * [`lookup_host`] resolves a host name on the blocking pool.
//!
//! Every socket registers with the runtime's I/O driver; readers and
//! writers wait for readiness of their own direction only.

mod addr;
pub mod tcp;

pub use addr::{ToSocketAddrs, lookup_host};
pub use tcp::{TcpListener, TcpStream};

pub(crate) use addr::to_socket_addrs;
