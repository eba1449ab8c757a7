//! Masks as the tests read them: filled at a matcher's minimum width, and as token lists.

use fstc_core::matcher::Matcher;

/// The mask of `m` at exactly its minimum width.
pub fn mask_of(m: &dyn Matcher) -> Vec<u32> {
    let mut mask = vec![0u32; m.mask_words()];
    m.fill_mask(&mut mask).expect("a mask of the minimum width");
    mask
}

/// The tokens whose bits `mask` sets, ascending.
pub fn ones(mask: &[u32]) -> Vec<u32> {
    (0..mask.len() as u32 * 32)
        .filter(|&t| mask[(t / 32) as usize] & (1 << (t % 32)) != 0)
        .collect()
}
