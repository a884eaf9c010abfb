//! TCP utility types.

pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};

mod listener;
mod socket;
pub mod split;
mod stream;

pub use listener::TcpListener;
pub use socket::TcpSocket;
pub use stream::TcpStream;
