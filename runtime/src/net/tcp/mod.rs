//! TCP utility types.

mod listener;
mod stream;

pub use listener::TcpListener;
pub use stream::TcpStream;
