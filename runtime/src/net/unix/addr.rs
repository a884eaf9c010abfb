//! `SocketAddr`: the address of a Unix socket (a path, unnamed, or on
//! Linux an abstract name).

use std::fmt;
use std::path::Path;

/// An address associated with a Unix socket.
///
/// This type is a thin wrapper around [`std::os::unix::net::SocketAddr`].
/// You can convert to and from the standard library `SocketAddr` type
/// using the [`From`] trait.
#[derive(Clone)]
pub struct SocketAddr(pub(super) std::os::unix::net::SocketAddr);

/// The address `bind` and `connect` use for `path`: on Linux a path that
/// starts with a NUL byte names an abstract socket (as tokio), anything
/// else is a filesystem path.
pub(super) fn from_path(path: &Path) -> std::io::Result<std::os::unix::net::SocketAddr> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use std::os::linux::net::SocketAddrExt;
        use std::os::unix::ffi::OsStrExt;
        if let Some(name) = path.as_os_str().as_bytes().strip_prefix(b"\0") {
            return std::os::unix::net::SocketAddr::from_abstract_name(name);
        }
    }
    std::os::unix::net::SocketAddr::from_pathname(path)
}

impl SocketAddr {
    /// Returns `true` if the address is unnamed (e.g. a socket from
    /// `pair()` or an unbound client).
    pub fn is_unnamed(&self) -> bool {
        self.0.is_unnamed()
    }

    /// Returns the contents of this address if it is a `pathname`
    /// address.
    pub fn as_pathname(&self) -> Option<&Path> {
        self.0.as_pathname()
    }

    /// Returns the contents of this address if it is in the abstract
    /// namespace (Linux only).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn as_abstract_name(&self) -> Option<&[u8]> {
        #[cfg(target_os = "android")]
        use std::os::android::net::SocketAddrExt;
        #[cfg(target_os = "linux")]
        use std::os::linux::net::SocketAddrExt;
        self.0.as_abstract_name()
    }
}

impl fmt::Debug for SocketAddr {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(fmt)
    }
}

impl From<std::os::unix::net::SocketAddr> for SocketAddr {
    fn from(value: std::os::unix::net::SocketAddr) -> Self {
        SocketAddr(value)
    }
}

impl From<SocketAddr> for std::os::unix::net::SocketAddr {
    fn from(value: SocketAddr) -> Self {
        value.0
    }
}
