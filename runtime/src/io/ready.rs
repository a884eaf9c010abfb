//! `Interest` (what a task waits for) and `Ready` (what the OS reported).

use std::fmt;
use std::ops;

/// Readiness event interest.
///
/// Specifies the readiness events the caller is interested in when
/// awaiting on I/O resource readiness states.
#[derive(Clone, Copy, Eq, PartialEq)]
pub struct Interest(u8);

const I_READABLE: u8 = 0b0001;
const I_WRITABLE: u8 = 0b0010;
const I_PRIORITY: u8 = 0b0100;
const I_ERROR: u8 = 0b1000;

impl Interest {
    /// Interest in all readable events.
    ///
    /// Readable interest includes read-closed events.
    pub const READABLE: Interest = Interest(I_READABLE);

    /// Interest in all writable events.
    ///
    /// Writable interest includes write-closed events.
    pub const WRITABLE: Interest = Interest(I_WRITABLE);

    /// Interest in error events.
    ///
    /// Passes error interest to the underlying OS selector. Behavior is
    /// platform-specific, read your platform's documentation.
    pub const ERROR: Interest = Interest(I_ERROR);

    /// Returns a `Interest` set representing priority completion
    /// interests (Linux, Android).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub const PRIORITY: Interest = Interest(I_PRIORITY);

    /// Returns true if the value includes readable interest.
    pub const fn is_readable(self) -> bool {
        self.0 & I_READABLE != 0
    }

    /// Returns true if the value includes writable interest.
    pub const fn is_writable(self) -> bool {
        self.0 & I_WRITABLE != 0
    }

    /// Returns true if the value includes error interest.
    pub const fn is_error(self) -> bool {
        self.0 & I_ERROR != 0
    }

    /// Returns true if the value includes priority interest.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub const fn is_priority(self) -> bool {
        self.0 & I_PRIORITY != 0
    }

    /// Add together two `Interest` values.
    ///
    /// This function works from a `const` context.
    ///
    /// # Examples
    ///
    /// ```
    /// use volt_runtime::io::Interest;
    ///
    /// const BOTH: Interest = Interest::READABLE.add(Interest::WRITABLE);
    ///
    /// assert!(BOTH.is_readable());
    /// assert!(BOTH.is_writable());
    /// ```
    #[must_use = "this returns the result of the operation, without modifying the original"]
    pub const fn add(self, other: Interest) -> Interest {
        Interest(self.0 | other.0)
    }

    /// Remove `Interest` from `self`.
    ///
    /// Interests present in `other` but *not* in `self` are ignored.
    ///
    /// Returns `None` if the set would be empty after removing `Interest`.
    #[must_use = "this returns the result of the operation, without modifying the original"]
    pub fn remove(self, other: Interest) -> Option<Interest> {
        let value = self.0 & !other.0;
        (value != 0).then_some(Interest(value))
    }

    /// The mio interest to register with (error interest is implicit in
    /// mio; a bare `ERROR` registers as readable, as tokio does).
    #[cfg(feature = "net")]
    pub(crate) fn to_mio(self) -> mio::Interest {
        fn add(acc: &mut Option<mio::Interest>, i: mio::Interest) {
            *acc = Some(match acc {
                Some(a) => a.add(i),
                None => i,
            });
        }
        let mut mio = None;
        if self.is_readable() {
            add(&mut mio, mio::Interest::READABLE);
        }
        if self.is_writable() {
            add(&mut mio, mio::Interest::WRITABLE);
        }
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if self.is_priority() {
            add(&mut mio, mio::Interest::PRIORITY);
        }
        mio.unwrap_or(mio::Interest::READABLE)
    }

    /// The readiness bits this interest is woken by.
    #[cfg_attr(not(feature = "net"), allow(dead_code))]
    pub(crate) fn mask(self) -> Ready {
        let mut mask = Ready::EMPTY;
        if self.is_readable() {
            mask |= Ready::READABLE | Ready::READ_CLOSED;
        }
        if self.is_writable() {
            mask |= Ready::WRITABLE | Ready::WRITE_CLOSED;
        }
        if self.0 & I_PRIORITY != 0 {
            mask |= Ready::PRIORITY | Ready::READ_CLOSED;
        }
        if self.is_error() {
            mask |= Ready::ERROR;
        }
        mask
    }
}

impl ops::BitOr for Interest {
    type Output = Self;

    #[inline]
    fn bitor(self, other: Self) -> Self {
        self.add(other)
    }
}

impl ops::BitOrAssign for Interest {
    #[inline]
    fn bitor_assign(&mut self, other: Self) {
        *self = *self | other;
    }
}

impl fmt::Debug for Interest {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = false;
        for (bit, name) in [
            (I_READABLE, "READABLE"),
            (I_WRITABLE, "WRITABLE"),
            (I_PRIORITY, "PRIORITY"),
            (I_ERROR, "ERROR"),
        ] {
            if self.0 & bit != 0 {
                if sep {
                    write!(fmt, " | ")?;
                }
                write!(fmt, "{name}")?;
                sep = true;
            }
        }
        Ok(())
    }
}

const READABLE: usize = 0b0_01;
const WRITABLE: usize = 0b0_10;
const READ_CLOSED: usize = 0b0_0100;
const WRITE_CLOSED: usize = 0b0_1000;
const PRIORITY: usize = 0b1_0000;
const ERROR: usize = 0b10_0000;

/// Describes the readiness state of an I/O resources.
///
/// `Ready` tracks which operation an I/O resource is ready to perform.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ready(usize);

impl Ready {
    /// Returns the empty `Ready` set.
    pub const EMPTY: Ready = Ready(0);

    /// Returns a `Ready` representing readable readiness.
    pub const READABLE: Ready = Ready(READABLE);

    /// Returns a `Ready` representing writable readiness.
    pub const WRITABLE: Ready = Ready(WRITABLE);

    /// Returns a `Ready` representing read closed readiness.
    pub const READ_CLOSED: Ready = Ready(READ_CLOSED);

    /// Returns a `Ready` representing write closed readiness.
    pub const WRITE_CLOSED: Ready = Ready(WRITE_CLOSED);

    /// Returns a `Ready` representing priority readiness.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub const PRIORITY: Ready = Ready(PRIORITY);

    /// Returns a `Ready` representing error readiness.
    pub const ERROR: Ready = Ready(ERROR);

    /// Returns a `Ready` representing readiness for all operations.
    pub const ALL: Ready =
        Ready(READABLE | WRITABLE | READ_CLOSED | WRITE_CLOSED | ERROR | PRIORITY);

    /// Converts a mio event into `Ready`.
    #[cfg(feature = "net")]
    pub(crate) fn from_mio(event: &mio::event::Event) -> Ready {
        let mut ready = Ready::EMPTY;
        if event.is_readable() {
            ready |= Ready::READABLE;
        }
        if event.is_writable() {
            ready |= Ready::WRITABLE;
        }
        if event.is_read_closed() {
            ready |= Ready::READ_CLOSED;
        }
        if event.is_write_closed() {
            ready |= Ready::WRITE_CLOSED;
        }
        if event.is_error() {
            ready |= Ready::ERROR;
        }
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if event.is_priority() {
            ready |= Ready::PRIORITY;
        }
        ready
    }

    /// Returns true if `Ready` is the empty set.
    pub fn is_empty(self) -> bool {
        self == Ready::EMPTY
    }

    /// Returns `true` if the value includes `readable`.
    pub fn is_readable(self) -> bool {
        self.contains(Ready::READABLE) || self.is_read_closed()
    }

    /// Returns `true` if the value includes writable `readiness`.
    pub fn is_writable(self) -> bool {
        self.contains(Ready::WRITABLE) || self.is_write_closed()
    }

    /// Returns `true` if the value includes read-closed `readiness`.
    pub fn is_read_closed(self) -> bool {
        self.contains(Ready::READ_CLOSED)
    }

    /// Returns `true` if the value includes write-closed `readiness`.
    pub fn is_write_closed(self) -> bool {
        self.contains(Ready::WRITE_CLOSED)
    }

    /// Returns `true` if the value includes priority `readiness`.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn is_priority(self) -> bool {
        self.contains(Ready::PRIORITY)
    }

    /// Returns `true` if the value includes error `readiness`.
    pub fn is_error(self) -> bool {
        self.contains(Ready(ERROR))
    }

    /// Returns true if `self` is a superset of `other`.
    pub(crate) fn contains<T: Into<Self>>(self, other: T) -> bool {
        let other = other.into();
        (self & other) == other
    }

    #[cfg_attr(not(feature = "net"), allow(dead_code))]
    pub(crate) fn as_usize(self) -> usize {
        self.0
    }

    #[cfg_attr(not(feature = "net"), allow(dead_code))]
    pub(crate) fn from_usize(val: usize) -> Ready {
        Ready(val & Ready::ALL.as_usize())
    }
}

impl ops::BitOr<Ready> for Ready {
    type Output = Ready;

    #[inline]
    fn bitor(self, other: Ready) -> Ready {
        Ready(self.0 | other.0)
    }
}

impl ops::BitOrAssign<Ready> for Ready {
    #[inline]
    fn bitor_assign(&mut self, other: Ready) {
        self.0 |= other.0;
    }
}

impl ops::BitAnd<Ready> for Ready {
    type Output = Ready;

    #[inline]
    fn bitand(self, other: Ready) -> Ready {
        Ready(self.0 & other.0)
    }
}

impl ops::Sub<Ready> for Ready {
    type Output = Ready;

    #[inline]
    fn sub(self, other: Ready) -> Ready {
        Ready(self.0 & !other.0)
    }
}

impl fmt::Debug for Ready {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut fmt = fmt.debug_struct("Ready");
        fmt.field("is_readable", &self.is_readable())
            .field("is_writable", &self.is_writable())
            .field("is_read_closed", &self.is_read_closed())
            .field("is_write_closed", &self.is_write_closed())
            .field("is_error", &self.is_error());
        #[cfg(any(target_os = "linux", target_os = "android"))]
        fmt.field("is_priority", &self.is_priority());
        fmt.finish()
    }
}
