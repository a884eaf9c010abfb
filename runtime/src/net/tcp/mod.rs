//! TCP utility types.

pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};

mod listener;
pub mod split;
mod stream;

pub use listener::TcpListener;
pub use stream::TcpStream;
