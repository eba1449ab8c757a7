//! Helpers shared by the `regex_*` tests.

use std::collections::BTreeSet;

use fst_core::regex::ByteDfa;

/// The number of right-language classes of `dfa`'s states, by Moore refinement: a minimal
/// DFA has as many classes as states. Independent of the library's own minimization.
pub fn count_equivalence_classes(dfa: &ByteDfa) -> usize {
    let n = dfa.num_states();
    let mut part: Vec<usize> = (0..n as u32)
        .map(|s| usize::from(dfa.is_accepting(s)))
        .collect();
    loop {
        let sigs: Vec<(usize, Vec<Option<usize>>)> = (0..n as u32)
            .map(|s| {
                let row = (0..=255u8)
                    .map(|b| dfa.next(s, b).map(|t| part[t as usize]))
                    .collect();
                (part[s as usize], row)
            })
            .collect();
        let mut sorted = sigs.clone();
        sorted.sort();
        sorted.dedup();
        let before = part.iter().collect::<BTreeSet<_>>().len();
        if sorted.len() == before {
            return before;
        }
        part = sigs
            .iter()
            .map(|sig| sorted.binary_search(sig).expect("present"))
            .collect();
    }
}
