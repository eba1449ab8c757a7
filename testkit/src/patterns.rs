//! Random regex patterns, texts over pieces and a DFA's count of right-language classes,
//! for the regex and lazy-automaton tests.

use std::collections::BTreeSet;

use fstc_core::bytes::ByteDfa;
use fstc_core::sample::SplitMix64;

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

/// The leaves of [`random_pattern`].
pub const LEAVES: &[&str] = &["^", "$", "[ab]", "[^a]", "", "a", "b", "c", ".", "(?i)A"];

/// A random small pattern over `a`, `b`, `c`: anchors anywhere, classes, empty branches,
/// lazy and counted repetition, a case-insensitive letter.
pub fn random_pattern(rng: &mut SplitMix64, depth: u32) -> String {
    random_pattern_with(rng, depth, LEAVES)
}

/// A random pattern of depth at most `depth` over `leaves` (concatenation, alternation,
/// greedy, lazy and counted repetition).
pub fn random_pattern_with(rng: &mut SplitMix64, depth: u32, leaves: &[&str]) -> String {
    let leaf = depth == 0 || rng.below(3) == 0;
    if leaf {
        return leaves[rng.index(leaves.len())].to_string();
    }
    let a = random_pattern_with(rng, depth - 1, leaves);
    match rng.below(8) {
        0 | 1 => format!("{a}{}", random_pattern_with(rng, depth - 1, leaves)),
        2 => format!("(?:{a}|{})", random_pattern_with(rng, depth - 1, leaves)),
        3 => format!("(?:{a})*"),
        4 => format!("(?:{a})?"),
        5 => format!("(?:{a})+?"),
        6 => {
            let lo = rng.below(3);
            let hi = lo + rng.below(3);
            format!("(?:{a}){{{lo},{hi}}}")
        }
        _ => format!("(?:{a}){{{},}}", rng.below(3)),
    }
}

/// Every concatenation of at most `max_len` of `pieces` (duplicates when pieces overlap).
pub fn all_texts(pieces: &[&[u8]], max_len: usize) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new()];
    let mut frontier = vec![Vec::new()];
    for _ in 0..max_len {
        let mut next = Vec::new();
        for t in &frontier {
            for p in pieces {
                let mut u: Vec<u8> = t.clone();
                u.extend_from_slice(p);
                next.push(u);
            }
        }
        out.extend(next.iter().cloned());
        frontier = next;
    }
    out
}
