//! A wrapper that is `Sync` because it never hands out `&T`.
//!
//! `JoinError` carries a panic payload, `Box<dyn Any + Send>`, which is not
//! `Sync`. The error itself should be `Sync` (it is passed around like any
//! error), and the only shared access it needs is to look at the payload as a
//! `String` or `&'static str`, both `Sync`.

use std::any::Any;

pub(crate) struct SyncWrapper<T> {
    value: T,
}

// SAFETY: a shared `&SyncWrapper<T>` gives no access to `T` except through
// `downcast_ref_sync`, which only returns references to `Sync` types.
unsafe impl<T: Send> Sync for SyncWrapper<T> {}

impl<T> SyncWrapper<T> {
    pub(crate) fn new(value: T) -> Self {
        Self { value }
    }

    pub(crate) fn into_inner(self) -> T {
        self.value
    }
}

impl SyncWrapper<Box<dyn Any + Send>> {
    /// Looks at the payload as a `Sync` type `U`.
    pub(crate) fn downcast_ref_sync<U: Any + Sync>(&self) -> Option<&U> {
        // Handing out `&U` is fine: `U` is `Sync`.
        self.value.downcast_ref::<U>()
    }
}
