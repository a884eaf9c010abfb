//! The gaps of `List`'s docs, and no over-alignment.

use super::*;
use std::mem::{align_of, offset_of, size_of};

#[test]
fn the_positions_are_kept_apart() {
    let gap = size_of::<Gap>();
    let position = size_of::<Position<u64>>();
    let head = offset_of!(List<u64>, head);
    let tail = offset_of!(List<u64>, tail);
    let spare = offset_of!(List<u64>, spare);
    assert!(head >= gap);
    assert!(tail >= head + position + gap);
    assert!(spare >= tail + position + gap);
    // It ends with the parked blocks: whoever holds it adds the gap.
    assert_eq!(size_of::<List<u64>>(), spare + size_of::<Spare<u64>>());
    assert!(align_of::<List<u64>>() <= 8);
}
