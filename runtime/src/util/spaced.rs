//! A hot atomic kept apart from what follows it, without over-aligning the
//! allocation that holds it.
//!
//! # Why not `CachePadded`
//!
//! `crossbeam_utils::CachePadded` aligns its value to 128 bytes on x86_64
//! (adjacent-line prefetching moves 128-byte pairs of lines together). A
//! type that holds one is aligned to 128 too, and so is every `Arc` or
//! `Box` of it: Rust's system allocator then calls `posix_memalign`
//! instead of `malloc`, and glibc serves an aligned request outside its
//! per-thread cache, through the paths that split and consolidate chunks:
//! several times the cost of the same allocation unaligned
//! (`benches/NOTES.md`, "Creating shared state"). Locks and channels are
//! often created per request, so that would be paid on every request.
//!
//! # The rule
//!
//! [`Spaced<T>`] is `T` followed by a [`Gap`] of `GAP` (120) bytes, with
//! `T`'s own alignment; a `Gap` field does the same after a group of
//! fields. Within a `#[repr(C)]` struct of 8-byte-aligned fields, a word
//! that ends where a gap starts and a word that starts where it ends never
//! share a 128-byte-aligned pair of lines, wherever the allocator put the
//! struct: the first word's last byte is at an address `8k + 7`, the second
//! word starts 121 bytes later, and a 128-byte boundary lies between unless
//! that last byte is one of the first 7 of its pair, which an address
//! `8k + 7` never is. Each struct that relies on it is `#[repr(C)]` and says
//! which fields its gaps keep apart.
//!
//! The gap is uninitialized memory: creating one writes nothing.

use std::fmt;
use std::mem::MaybeUninit;
use std::ops::{Deref, DerefMut};

/// Bytes after a [`Spaced`] value (module docs).
pub const GAP: usize = 120;

/// `GAP` (120) bytes that nothing uses, between the fields before it and the
/// fields after it (module docs).
#[repr(transparent)]
pub struct Gap {
    _unused: [MaybeUninit<u8>; GAP],
}

impl Gap {
    /// A gap; writes nothing.
    pub const fn new() -> Self {
        Gap {
            _unused: [MaybeUninit::uninit(); GAP],
        }
    }
}

impl fmt::Debug for Gap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Gap")
    }
}

impl Default for Gap {
    fn default() -> Self {
        Gap::new()
    }
}

/// `T`, then a [`Gap`] (module docs).
#[repr(C)]
pub struct Spaced<T> {
    value: T,
    _gap: Gap,
}

impl<T> Spaced<T> {
    /// `value`, spaced from what follows it.
    pub const fn new(value: T) -> Self {
        Spaced {
            value,
            _gap: Gap::new(),
        }
    }
}

impl<T> Deref for Spaced<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> DerefMut for Spaced<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

impl<T: fmt::Debug> fmt::Debug for Spaced<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};
    use std::sync::atomic::AtomicUsize;

    #[repr(C)]
    struct Two {
        a: Spaced<AtomicUsize>,
        b: AtomicUsize,
    }

    #[test]
    fn keeps_the_alignment_of_its_value() {
        assert_eq!(align_of::<Spaced<AtomicUsize>>(), align_of::<AtomicUsize>());
        assert_eq!(size_of::<Spaced<AtomicUsize>>(), 8 + GAP);
    }

    #[test]
    fn two_spaced_words_never_share_a_pair_of_lines() {
        let b = offset_of!(Two, b);
        // Every 8-byte-aligned address the struct can start at, relative
        // to a 128-byte-aligned pair of lines.
        for base in (0..128).step_by(8) {
            let a_last = (base + size_of::<AtomicUsize>() - 1) / 128;
            let b_first = (base + b) / 128;
            assert_ne!(a_last, b_first, "base {base}");
        }
    }

    #[test]
    fn derefs_to_its_value() {
        let mut s = Spaced::new(5u64);
        *s += 1;
        assert_eq!(*s, 6);
        assert_eq!(format!("{s:?}"), "6");
    }
}
