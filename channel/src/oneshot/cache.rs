//! A per-thread cache of freed oneshot blocks.
//!
//! A oneshot channel carries one message, so each one is an allocation
//! when created and a free when done. With glibc's allocator those two
//! were 126 of the ~290 instructions of "create, send, await" in one task
//! (callgrind). Each thread therefore keeps a few freed blocks, and
//! [`alloc`] takes one back before it asks the allocator.
//!
//! # Classes
//!
//! Blocks are kept by size class: class `c` holds blocks of `8 * (c + 1)`
//! bytes, alignment 8 (`class_layout`), for every size up to `MAX_SIZE`.
//! Every block of a class, whichever `Inner<T>` it was allocated for, has
//! exactly that layout, so it fits any `Inner<T>` of its class and is
//! given back to the allocator with the layout it was allocated with. A
//! type larger than `MAX_SIZE` or aligned above 8 bypasses the cache.
//!
//! # Ownership
//!
//! The cache is thread-local. A block in it was freed (both handles let go
//! of it), so the cache alone owns it. Blocks cross threads as channels
//! do: a block freed on a thread is reused there. A thread keeps at most
//! `PER_CLASS` blocks per class and gives them back to the allocator when
//! it exits; a block freed while its thread's cache is being torn down (a
//! oneshot dropped by another thread-local's destructor) goes straight to
//! the allocator.

use std::alloc::{Layout, alloc as sys_alloc, dealloc, handle_alloc_error};
use std::cell::Cell;
use std::ptr::{self, NonNull};

/// The alignment of every cached block.
const ALIGN: usize = 8;
/// The largest block size the cache serves.
const MAX_SIZE: usize = 128;
/// Size classes: one per multiple of `ALIGN` up to `MAX_SIZE`.
const CLASSES: usize = MAX_SIZE / ALIGN;
/// Blocks a thread keeps per class.
const PER_CLASS: usize = 4;

/// The class serving `layout`, if any.
const fn class(layout: Layout) -> Option<usize> {
    if layout.align() <= ALIGN && layout.size() != 0 && layout.size() <= MAX_SIZE {
        Some((layout.size() - 1) / ALIGN)
    } else {
        None
    }
}

/// The layout of every block of class `c`.
fn class_layout(c: usize) -> Layout {
    debug_assert!(c < CLASSES);
    // SAFETY: the alignment is a power of two and the size, at most
    // `MAX_SIZE`, does not overflow when rounded up to it.
    unsafe { Layout::from_size_align_unchecked(ALIGN * (c + 1), ALIGN) }
}

struct Cache {
    len: [Cell<usize>; CLASSES],
    blocks: [[Cell<*mut u8>; PER_CLASS]; CLASSES],
}

impl Cache {
    fn pop(&self, c: usize) -> Option<NonNull<u8>> {
        let len = self.len[c].get();
        let len = len.checked_sub(1)?;
        self.len[c].set(len);
        NonNull::new(self.blocks[c][len].get())
    }

    /// Keeps `block`; false if the class is full.
    fn push(&self, c: usize, block: *mut u8) -> bool {
        let len = self.len[c].get();
        if len == PER_CLASS {
            return false;
        }
        self.blocks[c][len].set(block);
        self.len[c].set(len + 1);
        true
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        for c in 0..CLASSES {
            while let Some(block) = self.pop(c) {
                // SAFETY: allocated with `class_layout(c)` (module docs),
                // freed by its channel, and owned by the cache alone.
                unsafe { dealloc(block.as_ptr(), class_layout(c)) };
            }
        }
    }
}

thread_local! {
    static CACHE: Cache = const {
        Cache {
            len: [const { Cell::new(0) }; CLASSES],
            blocks: [const { [const { Cell::new(ptr::null_mut()) }; PER_CLASS] }; CLASSES],
        }
    };
}

/// Memory for a `T`, uninitialized: a cached block of its class if this
/// thread has one, else a new allocation. Give it back with [`free`].
pub(super) fn alloc<T>() -> NonNull<T> {
    let layout = Layout::new::<T>();
    let layout = match class(layout) {
        Some(c) => {
            if let Ok(Some(block)) = CACHE.try_with(|cache| cache.pop(c)) {
                return block.cast();
            }
            class_layout(c)
        }
        None => layout,
    };
    // SAFETY: `layout` has a non-zero size (`T` holds the state word).
    let block = unsafe { sys_alloc(layout) };
    match NonNull::new(block) {
        Some(block) => block.cast(),
        None => handle_alloc_error(layout),
    }
}

/// Gives back memory from [`alloc`], whose `T` is dropped already.
///
/// # Safety
///
/// `block` came from `alloc::<T>()`, nothing uses it any more, and its
/// value has been dropped (or never written).
pub(super) unsafe fn free<T>(block: NonNull<T>) {
    let block = block.cast::<u8>().as_ptr();
    let layout = match class(Layout::new::<T>()) {
        Some(c) => {
            if CACHE.try_with(|cache| cache.push(c, block)) == Ok(true) {
                return;
            }
            class_layout(c)
        }
        None => Layout::new::<T>(),
    };
    // SAFETY: allocated by `alloc::<T>` with this layout (contract).
    unsafe { dealloc(block, layout) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_cover_sizes_up_to_the_limit() {
        assert_eq!(class(Layout::new::<u8>()), Some(0));
        assert_eq!(class(Layout::new::<u64>()), Some(0));
        assert_eq!(class(Layout::new::<[u64; 2]>()), Some(1));
        assert_eq!(class(Layout::new::<[u8; 9]>()), Some(1));
        assert_eq!(class(Layout::new::<[u64; 16]>()), Some(CLASSES - 1));
        assert_eq!(class(Layout::new::<[u64; 17]>()), None);
        #[repr(align(16))]
        struct Wide(#[allow(dead_code)] u8);
        assert_eq!(class(Layout::new::<Wide>()), None);
        for c in 0..CLASSES {
            assert_eq!(class_layout(c).size(), 8 * (c + 1));
            assert_eq!(class(class_layout(c)), Some(c));
        }
    }

    #[test]
    fn a_freed_block_is_reused_then_the_class_fills() {
        let a = alloc::<[u64; 3]>();
        // SAFETY: from `alloc`, never written, unused from here on.
        unsafe { free(a) };
        let b = alloc::<[u64; 3]>();
        assert_eq!(a, b, "the block just freed comes back");
        // SAFETY: as above.
        unsafe { free(b) };
        // More blocks than a class keeps: the extra ones go to the
        // allocator (Miri checks each is freed once, with its layout).
        let blocks: Vec<_> = (0..PER_CLASS + 3).map(|_| alloc::<[u64; 3]>()).collect();
        for block in blocks {
            // SAFETY: as above.
            unsafe { free(block) };
        }
    }

    #[test]
    fn large_and_overaligned_types_bypass_the_cache() {
        #[repr(align(32))]
        struct Wide(#[allow(dead_code)] [u8; 32]);
        let wide = alloc::<Wide>();
        assert_eq!(wide.as_ptr() as usize % 32, 0);
        let big = alloc::<[u64; 64]>();
        // SAFETY: from `alloc`, never written, unused from here on.
        unsafe {
            free(wide);
            free(big);
        }
    }

    /// What this checks is Miri's: each block freed once, with its layout,
    /// and the other thread's cache emptied when it exits (no leak).
    #[test]
    fn blocks_freed_on_another_thread_stay_there() {
        /// Carries the pointers (with their provenance, unlike a cast to
        /// `usize`) to the other thread.
        struct Blocks(Vec<NonNull<u64>>);
        // SAFETY: the blocks are plain memory nobody else uses.
        unsafe impl Send for Blocks {}
        let blocks = Blocks((0..PER_CLASS * 2).map(|_| alloc::<u64>()).collect());
        std::thread::spawn(move || {
            // The whole `Blocks` moves in (a closure naming only
            // `blocks.0` would capture the `Vec`, which is not `Send`).
            let blocks = blocks;
            for block in blocks.0 {
                // SAFETY: from `alloc` on the parent thread, unused there.
                unsafe { free(block) };
            }
            // The thread's cache gives its blocks back when it exits.
        })
        .join()
        .unwrap();
    }
}
