//! Pin projection of tuples, for the code `join!`, `try_join!` and
//! `select!` generate. Not public API.
//!
//! The macros keep their futures in one tuple, pinned once with
//! `core::pin::pin!`, and reach each future through
//! [`PinTuple::project`]: the generated future holds one pointer for all
//! the branches, where pinning each future on its own costs a pointer per
//! branch.
//!
//! # Why this is sound
//!
//! Projecting `Pin<&mut (A, B, ..)>` to `Pin<&mut A>`, `Pin<&mut B>`, ..
//! is structural pinning, which holds for a tuple because:
//! - a tuple is `Unpin` exactly when all its fields are, so a field that
//!   must stay put makes the whole tuple stay put;
//! - a tuple has no `Drop` of its own that could move a field out;
//! - a tuple is never `repr(packed)`, so fields are never moved to be
//!   aligned;
//! - safe code cannot get `&mut` to a pinned `!Unpin` tuple, so nothing
//!   can move a field out (or swap it) while it is pinned.
//!
//! These hold for every tuple, so the trait is safe to call on any pinned
//! tuple, not only the macros' own.
//!
//! Tuples of up to 16 fields implement it; the macros nest tuples for
//! more branches.

use std::pin::Pin;

/// Structural pin projection of a tuple's fields.
pub trait PinTuple {
    /// A tuple of pinned mutable references, one per field.
    type Projected<'a>
    where
        Self: 'a;

    /// Pins each field of the pinned tuple.
    fn project(self: Pin<&mut Self>) -> Self::Projected<'_>;
}

macro_rules! pin_tuple {
    ($($field:ident . $index:tt),+) => {
        impl<$($field),+> PinTuple for ($($field,)+) {
            type Projected<'a> = ($(Pin<&'a mut $field>,)+) where Self: 'a;

            #[inline]
            fn project(self: Pin<&mut Self>) -> Self::Projected<'_> {
                // SAFETY: the reference is only used to project to the
                // fields below; nothing is moved out of it.
                let this = unsafe { self.get_unchecked_mut() };
                // SAFETY: structural pinning of a tuple's fields, sound for
                // every tuple (see the module docs): each field stays where
                // the pinned tuple keeps it until the tuple is dropped.
                unsafe { ($(Pin::new_unchecked(&mut this.$index),)+) }
            }
        }
    };
}

pin_tuple!(A.0);
pin_tuple!(A.0, B.1);
pin_tuple!(A.0, B.1, C.2);
pin_tuple!(A.0, B.1, C.2, D.3);
pin_tuple!(A.0, B.1, C.2, D.3, E.4);
pin_tuple!(A.0, B.1, C.2, D.3, E.4, F.5);
pin_tuple!(A.0, B.1, C.2, D.3, E.4, F.5, G.6);
pin_tuple!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7);
pin_tuple!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8);
pin_tuple!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8, J.9);
pin_tuple!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8, J.9, K.10);
pin_tuple!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8, J.9, K.10, L.11);
pin_tuple!(
    A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8, J.9, K.10, L.11, M.12
);
pin_tuple!(
    A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8, J.9, K.10, L.11, M.12, N.13
);
pin_tuple!(
    A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8, J.9, K.10, L.11, M.12, N.13, O.14
);
pin_tuple!(
    A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8, J.9, K.10, L.11, M.12, N.13, O.14, P.15
);

#[cfg(test)]
mod tests {
    use super::PinTuple;
    use std::future::Future;
    use std::marker::PhantomPinned;
    use std::pin::Pin;
    use std::task::{Context, Poll, Waker};

    /// A `!Unpin` future that checks it has not moved between polls.
    struct StaysPut {
        at: Option<usize>,
        _pinned: PhantomPinned,
    }

    impl Future for StaysPut {
        type Output = usize;
        fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<usize> {
            let here = &*self as *const Self as usize;
            // SAFETY: only a plain field is written; nothing moves.
            let this = unsafe { self.get_unchecked_mut() };
            match this.at {
                None => {
                    this.at = Some(here);
                    Poll::Pending
                }
                Some(at) => {
                    assert_eq!(at, here, "moved while pinned");
                    Poll::Ready(at)
                }
            }
        }
    }

    fn stays_put() -> StaysPut {
        StaysPut {
            at: None,
            _pinned: PhantomPinned,
        }
    }

    #[test]
    fn fields_are_pinned_in_place() {
        let mut cx = Context::from_waker(Waker::noop());
        let mut t = std::pin::pin!((stays_put(), 7u8, stays_put()));
        for _ in 0..2 {
            let (a, b, c) = t.as_mut().project();
            assert_eq!(*b, 7);
            let _ = a.poll(&mut cx);
            let _ = c.poll(&mut cx);
        }
    }

    #[test]
    fn sixteen_fields() {
        let mut t = std::pin::pin!((
            0u8, 1u8, 2u8, 3u8, 4u8, 5u8, 6u8, 7u8, 8u8, 9u8, 10u8, 11u8, 12u8, 13u8, 14u8, 15u8
        ));
        let p = t.as_mut().project();
        assert_eq!((*p.0, *p.15), (0, 15));
    }
}
