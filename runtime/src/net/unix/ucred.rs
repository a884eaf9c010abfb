//! `UCred`: the credentials of a Unix socket's peer (`SO_PEERCRED` on
//! Linux, `getpeereid` elsewhere).

/// A type alias for `uid_t`.
#[allow(non_camel_case_types)]
pub type uid_t = u32;
/// A type alias for `gid_t`.
#[allow(non_camel_case_types)]
pub type gid_t = u32;
/// A type alias for `pid_t`.
#[allow(non_camel_case_types)]
pub type pid_t = i32;

/// Credentials of a process.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct UCred {
    pid: Option<pid_t>,
    uid: uid_t,
    gid: gid_t,
}

impl UCred {
    /// Gets UID (user ID) of the process.
    pub fn uid(&self) -> uid_t {
        self.uid
    }

    /// Gets GID (group ID) of the process.
    pub fn gid(&self) -> gid_t {
        self.gid
    }

    /// Gets PID (process ID) of the process.
    ///
    /// This is only implemented under Linux, Android, iOS, macOS, Solaris
    /// and Illumos. On other platforms this will always return `None`.
    pub fn pid(&self) -> Option<pid_t> {
        self.pid
    }
}

/// The credentials of the peer of the connected socket `fd`.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(super) fn peer_cred(fd: std::os::unix::io::RawFd) -> std::io::Result<UCred> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` and `len` are valid for writes and `len` is the size
    // of `cred`, as `getsockopt(SO_PEERCRED)` requires.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(UCred {
        pid: Some(cred.pid),
        uid: cred.uid,
        gid: cred.gid,
    })
}

/// The credentials of the peer of the connected socket `fd`.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(super) fn peer_cred(fd: std::os::unix::io::RawFd) -> std::io::Result<UCred> {
    let (mut uid, mut gid) = (0, 0);
    // SAFETY: `uid` and `gid` are valid for writes.
    let rc = unsafe { libc::getpeereid(fd, &mut uid, &mut gid) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(UCred {
        pid: None,
        uid,
        gid,
    })
}
