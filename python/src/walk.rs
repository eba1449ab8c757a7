//! Helpers over fst-core's decoding interface, `Box<dyn DynMatcher>`, which is all the
//! Python `Matcher` holds: token FSAs give an `OwnedWalker`
//! (`TokenAutomaton::start_matcher`), and any other automaton kind whose matcher is
//! `Clone + Send + Sync` (token PDAs) joins with no change here or in `matcher.rs`.

use fst_core::matcher::DynMatcher;

/// Whether EOS is the only token allowed now, through the interface alone: accepting,
/// and no text token in the mask (`eos_ids` are the automaton's).
pub(crate) fn only_eos_allowed(matcher: &dyn DynMatcher, eos_ids: &[u32]) -> bool {
    if !matcher.is_accepting() || matcher.is_finished() {
        return false;
    }
    let mut mask = vec![0u32; matcher.mask_words()];
    if matcher.fill_mask(&mut mask).is_err() {
        return false;
    }
    for &eos in eos_ids {
        mask[eos as usize / 32] &= !(1 << (eos % 32));
    }
    mask.iter().all(|&w| w == 0)
}

/// The set bits of a mask as token ids, ascending.
pub(crate) fn mask_ones(mask: &[u32]) -> Vec<u32> {
    mask.iter()
        .enumerate()
        .flat_map(|(i, &w)| {
            (0..32)
                .filter(move |b| w >> b & 1 == 1)
                .map(move |b| (i * 32 + b) as u32)
        })
        .collect()
}
