//! Reading a mask filled through fstc-core's decoding interface, `Box<dyn DynMatcher>`,
//! which is all the Python `Matcher` holds: an `OwnedWalker` for a token FSA, an
//! `OwnedPdaWalker` for a token PDA (`SharedAutomaton::matcher`).

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
