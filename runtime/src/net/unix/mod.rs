//! Unix domain socket utility types: the split halves of a
//! [`UnixStream`], [`SocketAddr`], [`UCred`]; and Unix pipes ([`pipe`]).

mod addr;
mod datagram;
mod listener;
pub mod pipe;
mod socket;
pub mod split;
mod stream;
mod ucred;

pub use addr::SocketAddr;
pub use datagram::UnixDatagram;
pub use listener::UnixListener;
pub use socket::UnixSocket;
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
pub use stream::UnixStream;
pub use ucred::{UCred, gid_t, pid_t, uid_t};
