//! `ReadBuf`: a buffer being filled by a read, tracking which bytes are
//! initialized and which are filled (tokio's, byte for byte in behaviour).
//!
//! ```text
//! [             capacity              ]
//! [ filled |         unfilled         ]
//! [    initialized    | uninitialized ]
//! ```
//!
//! Invariant: `filled <= initialized <= capacity`. Readers write into the
//! unfilled part and `advance`; the initialized count lets repeated reads
//! into the same buffer skip zeroing.

use std::fmt;
use std::mem::MaybeUninit;

/// A wrapper around a byte buffer that is incrementally filled and
/// initialized.
///
/// This type is a sort of "double cursor". It tracks three regions in the
/// buffer: a region at the beginning of the buffer that has been logically
/// filled with data, a region that has been initialized at some point but
/// not yet logically filled, and a region at the end that may be
/// uninitialized. The filled region is guaranteed to be a subset of the
/// initialized region.
///
/// # Examples
///
/// ```
/// use volt_runtime::io::ReadBuf;
///
/// let mut storage = [0u8; 8];
/// let mut buf = ReadBuf::new(&mut storage);
/// buf.put_slice(b"hello");
/// assert_eq!(buf.filled(), b"hello");
/// assert_eq!(buf.remaining(), 3);
/// ```
pub struct ReadBuf<'a> {
    buf: &'a mut [MaybeUninit<u8>],
    filled: usize,
    initialized: usize,
}

impl<'a> ReadBuf<'a> {
    /// Creates a new `ReadBuf` from a fully initialized buffer.
    #[inline]
    pub fn new(buf: &'a mut [u8]) -> ReadBuf<'a> {
        let initialized = buf.len();
        // SAFETY: `[u8]` and `[MaybeUninit<u8>]` have the same layout, and
        // every byte is initialized (`initialized` says so, and nothing
        // de-initializes through a `ReadBuf`).
        let buf = unsafe { &mut *(buf as *mut [u8] as *mut [MaybeUninit<u8>]) };
        ReadBuf {
            buf,
            filled: 0,
            initialized,
        }
    }

    /// Creates a new `ReadBuf` from a buffer that may be uninitialized.
    ///
    /// The internal cursor will mark the entire buffer as uninitialized.
    #[inline]
    pub fn uninit(buf: &'a mut [MaybeUninit<u8>]) -> ReadBuf<'a> {
        ReadBuf {
            buf,
            filled: 0,
            initialized: 0,
        }
    }

    /// Returns the total capacity of the buffer.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Returns a shared reference to the filled portion of the buffer.
    #[inline]
    pub fn filled(&self) -> &[u8] {
        let slice = &self.buf[..self.filled];
        // SAFETY: `filled <= initialized`: these bytes are initialized.
        unsafe { slice_assume_init(slice) }
    }

    /// Returns a mutable reference to the filled portion of the buffer.
    #[inline]
    pub fn filled_mut(&mut self) -> &mut [u8] {
        let slice = &mut self.buf[..self.filled];
        // SAFETY: as in `filled`.
        unsafe { slice_assume_init_mut(slice) }
    }

    /// Returns a new `ReadBuf` comprised of the unfilled section up to
    /// `n`.
    #[inline]
    pub fn take(&mut self, n: usize) -> ReadBuf<'_> {
        let max = std::cmp::min(self.remaining(), n);
        // SAFETY: we never de-initialize through the returned `ReadBuf`.
        unsafe { ReadBuf::uninit(&mut self.unfilled_mut()[..max]) }
    }

    /// Returns a shared reference to the initialized portion of the buffer.
    ///
    /// This includes the filled portion.
    #[inline]
    pub fn initialized(&self) -> &[u8] {
        let slice = &self.buf[..self.initialized];
        // SAFETY: the first `initialized` bytes are initialized.
        unsafe { slice_assume_init(slice) }
    }

    /// Returns a mutable reference to the initialized portion of the
    /// buffer.
    ///
    /// This includes the filled portion.
    #[inline]
    pub fn initialized_mut(&mut self) -> &mut [u8] {
        let slice = &mut self.buf[..self.initialized];
        // SAFETY: as in `initialized`.
        unsafe { slice_assume_init_mut(slice) }
    }

    /// Returns a mutable reference to the entire buffer, without ensuring
    /// that it has been fully initialized.
    ///
    /// The elements between 0 and `self.filled().len()` are filled, and
    /// those between 0 and `self.initialized().len()` are initialized (and
    /// so can be converted to a `&mut [u8]`).
    ///
    /// # Safety
    ///
    /// The caller must not de-initialize portions of the buffer that have
    /// already been initialized. This includes any bytes in the region
    /// marked as uninitialized by `ReadBuf`.
    #[inline]
    pub unsafe fn inner_mut(&mut self) -> &mut [MaybeUninit<u8>] {
        self.buf
    }

    /// Returns a mutable reference to the unfilled part of the buffer
    /// without ensuring that it has been fully initialized.
    ///
    /// # Safety
    ///
    /// The caller must not de-initialize portions of the buffer that have
    /// already been initialized. This includes any bytes in the region
    /// marked as uninitialized by `ReadBuf`.
    #[inline]
    pub unsafe fn unfilled_mut(&mut self) -> &mut [MaybeUninit<u8>] {
        &mut self.buf[self.filled..]
    }

    /// Returns a mutable reference to the unfilled part of the buffer,
    /// ensuring it is fully initialized.
    ///
    /// Since `ReadBuf` tracks the region of the buffer that has been
    /// initialized, this is effectively "free" after the first use.
    #[inline]
    pub fn initialize_unfilled(&mut self) -> &mut [u8] {
        self.initialize_unfilled_to(self.remaining())
    }

    /// Returns a mutable reference to the first `n` bytes of the unfilled
    /// part of the buffer, ensuring it is fully initialized.
    ///
    /// # Panics
    ///
    /// Panics if `self.remaining()` is less than `n`.
    #[inline]
    #[track_caller]
    pub fn initialize_unfilled_to(&mut self, n: usize) -> &mut [u8] {
        assert!(self.remaining() >= n, "n overflows remaining");

        // This can't overflow, otherwise the assert above would have
        // failed.
        let end = self.filled + n;

        if self.initialized < end {
            for b in &mut self.buf[self.initialized..end] {
                b.write(0);
            }
            self.initialized = end;
        }

        let slice = &mut self.buf[self.filled..end];
        // SAFETY: just initialized up to `end`.
        unsafe { slice_assume_init_mut(slice) }
    }

    /// Returns the number of bytes at the end of the slice that have not
    /// yet been filled.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.capacity() - self.filled
    }

    /// Clears the buffer, resetting the filled region to empty.
    ///
    /// The number of initialized bytes is not changed, and the contents of
    /// the buffer are not modified.
    #[inline]
    pub fn clear(&mut self) {
        self.filled = 0;
    }

    /// Advances the size of the filled region of the buffer.
    ///
    /// The number of initialized bytes is not changed.
    ///
    /// # Panics
    ///
    /// Panics if the filled region of the buffer would become larger than
    /// the initialized region.
    #[inline]
    #[track_caller]
    pub fn advance(&mut self, n: usize) {
        let new = self.filled.checked_add(n).expect("filled overflow");
        self.set_filled(new);
    }

    /// Sets the size of the filled region of the buffer.
    ///
    /// The number of initialized bytes is not changed.
    ///
    /// Note that this can be used to *shrink* the filled region of the
    /// buffer in addition to growing it (for example, by a `AsyncRead`
    /// implementation that compresses data in-place).
    ///
    /// # Panics
    ///
    /// Panics if the filled region of the buffer would become larger than
    /// the initialized region.
    #[inline]
    #[track_caller]
    pub fn set_filled(&mut self, n: usize) {
        assert!(
            n <= self.initialized,
            "filled must not become larger than initialized"
        );
        self.filled = n;
    }

    /// Asserts that the first `n` unfilled bytes of the buffer are
    /// initialized.
    ///
    /// `ReadBuf` assumes that bytes are never de-initialized, so this
    /// method does nothing when called with fewer bytes than are already
    /// known to be initialized.
    ///
    /// # Safety
    ///
    /// The caller must ensure that `n` unfilled bytes of the buffer have
    /// already been initialized.
    #[inline]
    pub unsafe fn assume_init(&mut self, n: usize) {
        let new = self.filled + n;
        if new > self.initialized {
            self.initialized = new;
        }
    }

    /// Appends data to the buffer, advancing the written position and
    /// possibly also the initialized position.
    ///
    /// # Panics
    ///
    /// Panics if `self.remaining()` is less than `buf.len()`.
    #[inline]
    #[track_caller]
    pub fn put_slice(&mut self, buf: &[u8]) {
        assert!(
            self.remaining() >= buf.len(),
            "buf.len() must fit in remaining(); buf.len() = {}, remaining() = {}",
            buf.len(),
            self.remaining()
        );

        let amt = buf.len();
        // Cannot overflow, asserted above.
        let end = self.filled + amt;

        // SAFETY: `[u8]` to `[MaybeUninit<u8>]` is a layout-compatible
        // view, and we only write initialized bytes into it.
        let src = unsafe { &*(buf as *const [u8] as *const [MaybeUninit<u8>]) };
        self.buf[self.filled..end].copy_from_slice(src);

        if self.initialized < end {
            self.initialized = end;
        }
        self.filled = end;
    }
}

// SAFETY: `remaining_mut` is the unfilled length, `chunk_mut` exposes
// exactly that unfilled region, and `advance_mut` moves the filled cursor
// only over bytes the caller promises it initialized, as `BufMut` requires.
unsafe impl bytes::BufMut for ReadBuf<'_> {
    fn remaining_mut(&self) -> usize {
        self.remaining()
    }

    unsafe fn advance_mut(&mut self, cnt: usize) {
        // SAFETY: the caller initialized the next `cnt` unfilled bytes
        // (`BufMut::advance_mut`'s contract).
        unsafe { self.assume_init(cnt) };
        self.advance(cnt);
    }

    fn chunk_mut(&mut self) -> &mut bytes::buf::UninitSlice {
        // SAFETY: an `UninitSlice` never de-initializes memory, so handing
        // out the unfilled region cannot break `initialized`.
        let unfilled = unsafe { self.unfilled_mut() };
        bytes::buf::UninitSlice::uninit(unfilled)
    }
}

impl fmt::Debug for ReadBuf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadBuf")
            .field("filled", &self.filled)
            .field("initialized", &self.initialized)
            .field("capacity", &self.capacity())
            .finish()
    }
}

/// # Safety
/// Every byte of `slice` is initialized.
unsafe fn slice_assume_init(slice: &[MaybeUninit<u8>]) -> &[u8] {
    // SAFETY: same layout; initialized (caller).
    unsafe { &*(slice as *const [MaybeUninit<u8>] as *const [u8]) }
}

/// # Safety
/// Every byte of `slice` is initialized.
unsafe fn slice_assume_init_mut(slice: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    // SAFETY: same layout; initialized (caller).
    unsafe { &mut *(slice as *mut [MaybeUninit<u8>] as *mut [u8]) }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn cursors_move_as_documented() {
        let mut storage = [MaybeUninit::<u8>::uninit(); 16];
        let mut buf = ReadBuf::uninit(&mut storage);
        assert_eq!(buf.initialized().len(), 0);
        buf.initialize_unfilled_to(4).copy_from_slice(b"abcd");
        buf.advance(2);
        assert_eq!(buf.filled(), b"ab");
        assert_eq!(buf.initialized(), b"abcd");
        buf.put_slice(b"XYZ");
        assert_eq!(buf.filled(), b"abXYZ");
        assert_eq!(buf.initialized().len(), 5);
        let mut t = buf.take(3);
        assert_eq!(t.capacity(), 3);
        t.put_slice(b"123");
        buf.clear();
        assert_eq!(buf.remaining(), 16);
        assert_eq!(
            format!("{buf:?}"),
            "ReadBuf { filled: 0, initialized: 5, capacity: 16 }"
        );
    }

    #[test]
    #[should_panic(expected = "filled must not become larger than initialized")]
    fn advance_past_initialized_panics() {
        let mut storage = [MaybeUninit::<u8>::uninit(); 4];
        ReadBuf::uninit(&mut storage).advance(1);
    }
}
