//! `JoinError`: why a task did not produce its output.

use crate::task::Id;
use crate::util::sync_wrapper::SyncWrapper;

use std::any::Any;
use std::fmt;
use std::io;

/// Task failed to execute to completion.
///
/// Returned by awaiting a [`JoinHandle`](crate::task::JoinHandle) whose task
/// was cancelled (by [`abort`](crate::task::JoinHandle::abort) or by runtime
/// shutdown) or panicked.
///
/// # Examples
///
/// ```
/// # fn main() {
/// # let rt = volt_runtime::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let handle = volt_runtime::spawn(async { panic!("boom") });
/// let err = handle.await.unwrap_err();
/// assert!(err.is_panic());
/// assert!(err.to_string().ends_with("panicked with message \"boom\""));
/// # });
/// # }
/// ```
pub struct JoinError {
    repr: Repr,
    id: Id,
}

enum Repr {
    Cancelled,
    Panic(SyncWrapper<Box<dyn Any + Send + 'static>>),
}

impl JoinError {
    pub(crate) fn cancelled(id: Id) -> JoinError {
        JoinError {
            repr: Repr::Cancelled,
            id,
        }
    }

    pub(crate) fn panic(id: Id, err: Box<dyn Any + Send + 'static>) -> JoinError {
        JoinError {
            repr: Repr::Panic(SyncWrapper::new(err)),
            id,
        }
    }

    /// Returns true if the error was caused by the task being cancelled.
    ///
    /// See [the module level docs] for more information on cancellation.
    ///
    /// [the module level docs]: crate::task#cancellation
    pub fn is_cancelled(&self) -> bool {
        matches!(&self.repr, Repr::Cancelled)
    }

    /// Returns true if the error was caused by the task panicking.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::panic;
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime")]
    /// # async fn main() {
    /// let err = volt_runtime::spawn(async {
    ///     panic!("boom");
    /// }).await.unwrap_err();
    ///
    /// assert!(err.is_panic());
    /// # }
    /// ```
    pub fn is_panic(&self) -> bool {
        matches!(&self.repr, Repr::Panic(_))
    }

    /// Consumes the join error, returning the object with which the task
    /// panicked.
    ///
    /// # Panics
    ///
    /// `into_panic()` panics if the `Error` does not represent the underlying
    /// task terminating with a panic. Use `is_panic` to check the error
    /// reason or `try_into_panic` for a variant that does not panic.
    ///
    /// # Examples
    ///
    /// ```should_panic
    /// use std::panic;
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime")]
    /// # async fn main() {
    /// let err = volt_runtime::spawn(async {
    ///     panic!("boom");
    /// }).await.unwrap_err();
    ///
    /// if err.is_panic() {
    ///     // Resume the panic on the main task
    ///     panic::resume_unwind(err.into_panic());
    /// }
    /// # }
    /// ```
    #[track_caller]
    pub fn into_panic(self) -> Box<dyn Any + Send + 'static> {
        self.try_into_panic()
            .expect("`JoinError` reason is not a panic.")
    }

    /// Consumes the join error, returning the object with which the task
    /// panicked if the task terminated due to a panic. Otherwise, `self` is
    /// returned.
    ///
    /// # Examples
    ///
    /// ```should_panic
    /// use std::panic;
    ///
    /// # #[volt_runtime::main(crate = "volt_runtime")]
    /// # async fn main() {
    /// let err = volt_runtime::spawn(async {
    ///     panic!("boom");
    /// }).await.unwrap_err();
    ///
    /// if let Ok(reason) = err.try_into_panic() {
    ///     // Resume the panic on the main task
    ///     panic::resume_unwind(reason);
    /// }
    /// # }
    /// ```
    pub fn try_into_panic(self) -> Result<Box<dyn Any + Send + 'static>, JoinError> {
        match self.repr {
            Repr::Panic(p) => Ok(p.into_inner()),
            Repr::Cancelled => Err(self),
        }
    }

    /// Returns a [task ID] that identifies the task which errored relative to
    /// other currently spawned tasks.
    ///
    /// [task ID]: crate::task::Id
    pub fn id(&self) -> Id {
        self.id
    }
}

impl fmt::Display for JoinError {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            Repr::Cancelled => write!(fmt, "task {} was cancelled", self.id),
            Repr::Panic(p) => match panic_payload_as_str(p) {
                Some(msg) => write!(fmt, "task {} panicked with message {:?}", self.id, msg),
                None => write!(fmt, "task {} panicked", self.id),
            },
        }
    }
}

impl fmt::Debug for JoinError {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            Repr::Cancelled => write!(fmt, "JoinError::Cancelled({:?})", self.id),
            Repr::Panic(p) => match panic_payload_as_str(p) {
                Some(msg) => write!(fmt, "JoinError::Panic({:?}, {:?}, ...)", self.id, msg),
                None => write!(fmt, "JoinError::Panic({:?}, ...)", self.id),
            },
        }
    }
}

impl std::error::Error for JoinError {}

impl From<JoinError> for io::Error {
    fn from(src: JoinError) -> io::Error {
        io::Error::other(match src.repr {
            Repr::Cancelled => "task was cancelled",
            Repr::Panic(_) => "task panicked",
        })
    }
}

/// Panic payloads are almost always a `String` (formatted panics) or a
/// `&'static str` (literal panics).
fn panic_payload_as_str(payload: &SyncWrapper<Box<dyn Any + Send>>) -> Option<&str> {
    if let Some(s) = payload.downcast_ref_sync::<String>() {
        return Some(s);
    }
    if let Some(s) = payload.downcast_ref_sync::<&'static str>() {
        return Some(s);
    }
    None
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn id(n: u64) -> Id {
        Id::from_u64(n)
    }

    #[test]
    fn display_and_debug_match_tokio() {
        let c = JoinError::cancelled(id(7));
        assert_eq!(c.to_string(), "task 7 was cancelled");
        assert_eq!(format!("{c:?}"), "JoinError::Cancelled(Id(7))");

        let p = JoinError::panic(id(8), Box::new("boom"));
        assert_eq!(p.to_string(), "task 8 panicked with message \"boom\"");
        assert_eq!(format!("{p:?}"), "JoinError::Panic(Id(8), \"boom\", ...)");

        let p = JoinError::panic(id(9), Box::new(String::from("fmt")));
        assert_eq!(p.to_string(), "task 9 panicked with message \"fmt\"");

        let p = JoinError::panic(id(10), Box::new(42u32));
        assert_eq!(p.to_string(), "task 10 panicked");
        assert_eq!(format!("{p:?}"), "JoinError::Panic(Id(10), ...)");
    }

    #[test]
    fn panic_payload_round_trips_and_converts_to_io() {
        let p = JoinError::panic(id(1), Box::new(5u8));
        assert_eq!(*p.into_panic().downcast::<u8>().unwrap(), 5);
        let c = JoinError::cancelled(id(1));
        let c = c.try_into_panic().unwrap_err();
        assert_eq!(io::Error::from(c).to_string(), "task was cancelled");
    }

    #[test]
    fn join_error_is_send_sync() {
        fn check<T: Send + Sync + 'static>() {}
        check::<JoinError>();
    }
}
