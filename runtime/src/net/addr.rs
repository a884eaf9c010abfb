//! `ToSocketAddrs`: addresses that may need a DNS lookup, resolved on the
//! blocking pool so that a task never blocks its worker.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::vec;

/// Converts or resolves without blocking to one or more `SocketAddr`
/// values.
///
/// # DNS
///
/// Implementations of `ToSocketAddrs` for string types require a DNS
/// lookup, done on the runtime's blocking pool.
///
/// # Calling
///
/// This trait is sealed and is intended to be opaque. The details of the
/// trait will change. Stabilization is pending enhancements to the Rust
/// language.
pub trait ToSocketAddrs: sealed::ToSocketAddrsPriv {}

pub(crate) mod sealed {
    use super::*;

    /// The resolution, either at once or after a lookup.
    #[allow(missing_debug_implementations)]
    pub enum MaybeReady {
        Ready(Option<SocketAddr>),
        /// A lookup on the blocking pool. Held as the bare `JoinHandle`
        /// (`Send + Sync`), so that the futures of `lookup_host`,
        /// `TcpStream::connect` and the rest stay `Sync`, as tokio's are.
        Blocking(crate::task::JoinHandle<io::Result<vec::IntoIter<SocketAddr>>>),
        Many(vec::IntoIter<SocketAddr>),
    }

    #[doc(hidden)]
    pub trait ToSocketAddrsPriv {
        fn to_socket_addrs(&self, internal: Internal) -> MaybeReady;
    }

    #[allow(missing_debug_implementations)]
    pub struct Internal;
}

use sealed::{Internal, MaybeReady, ToSocketAddrsPriv};

/// Resolves `host` to addresses.
pub(crate) async fn to_socket_addrs<T: ToSocketAddrs>(
    host: T,
) -> io::Result<vec::IntoIter<SocketAddr>> {
    match host.to_socket_addrs(Internal) {
        MaybeReady::Ready(addr) => Ok(addr.into_iter().collect::<Vec<_>>().into_iter()),
        MaybeReady::Many(iter) => Ok(iter),
        MaybeReady::Blocking(handle) => match handle.await {
            Ok(res) => res,
            Err(e) => Err(io::Error::other(e)),
        },
    }
}

/// Performs a DNS resolution.
///
/// The returned iterator may not actually yield any values depending on
/// the outcome of any resolution performed.
///
/// This API is not intended to cover all DNS use cases. Anything beyond
/// the basic use case should be done with a specialized library.
///
/// # Examples
///
/// ```no_run
/// use volt_runtime::net;
///
/// # async fn dox() -> std::io::Result<()> {
/// for addr in net::lookup_host("localhost:3000").await? {
///     println!("socket address is {}", addr);
/// }
/// # Ok(())
/// # }
/// ```
pub async fn lookup_host<T>(host: T) -> io::Result<impl Iterator<Item = SocketAddr>>
where
    T: ToSocketAddrs,
{
    to_socket_addrs(host).await
}

fn blocking_lookup(s: String) -> MaybeReady {
    MaybeReady::Blocking(crate::task::spawn_blocking(move || {
        std::net::ToSocketAddrs::to_socket_addrs(&s)
    }))
}

macro_rules! ready_impl {
    ($($t:ty => |$v:ident| $e:expr;)*) => {$(
        impl ToSocketAddrs for $t {}
        impl ToSocketAddrsPriv for $t {
            fn to_socket_addrs(&self, _: Internal) -> MaybeReady {
                let $v = self;
                MaybeReady::Ready(Some($e))
            }
        }
    )*};
}

ready_impl! {
    SocketAddr => |a| *a;
    SocketAddrV4 => |a| SocketAddr::V4(*a);
    SocketAddrV6 => |a| SocketAddr::V6(*a);
    (IpAddr, u16) => |a| SocketAddr::new(a.0, a.1);
    (Ipv4Addr, u16) => |a| SocketAddr::new(IpAddr::V4(a.0), a.1);
    (Ipv6Addr, u16) => |a| SocketAddr::new(IpAddr::V6(a.0), a.1);
}

impl ToSocketAddrs for [SocketAddr] {}
impl ToSocketAddrsPriv for [SocketAddr] {
    fn to_socket_addrs(&self, _: Internal) -> MaybeReady {
        let addrs: Vec<SocketAddr> = self.to_vec();
        MaybeReady::Many(addrs.into_iter())
    }
}

impl ToSocketAddrs for str {}
impl ToSocketAddrsPriv for str {
    fn to_socket_addrs(&self, _: Internal) -> MaybeReady {
        // Fast path: a literal address needs no lookup.
        if let Ok(addr) = self.parse::<SocketAddr>() {
            return MaybeReady::Ready(Some(addr));
        }
        blocking_lookup(self.to_owned())
    }
}

impl ToSocketAddrs for String {}
impl ToSocketAddrsPriv for String {
    fn to_socket_addrs(&self, i: Internal) -> MaybeReady {
        self.as_str().to_socket_addrs(i)
    }
}

impl ToSocketAddrs for (&str, u16) {}
impl ToSocketAddrsPriv for (&str, u16) {
    fn to_socket_addrs(&self, _: Internal) -> MaybeReady {
        let (host, port) = *self;
        if let Ok(ip) = host.parse::<IpAddr>() {
            return MaybeReady::Ready(Some(SocketAddr::new(ip, port)));
        }
        blocking_lookup(format!("{host}:{port}"))
    }
}

impl ToSocketAddrs for (String, u16) {}
impl ToSocketAddrsPriv for (String, u16) {
    fn to_socket_addrs(&self, i: Internal) -> MaybeReady {
        (self.0.as_str(), self.1).to_socket_addrs(i)
    }
}

impl<T: ToSocketAddrs + ?Sized> ToSocketAddrs for &T {}
impl<T: ToSocketAddrsPriv + ?Sized> ToSocketAddrsPriv for &T {
    fn to_socket_addrs(&self, i: Internal) -> MaybeReady {
        (**self).to_socket_addrs(i)
    }
}
