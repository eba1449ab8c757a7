//! Token groups: a partition of the text tokens numbered by first token, whose ids label
//! the composition's edges; their expansion back to token edges, and the merging of
//! groups whose columns agree.

use rayon::prelude::*;

use crate::automaton::StateId;
use crate::fast_hash::FastMap;

/// Marks an absent node, group or state in the composition's flat tables.
pub(super) use crate::vocab::trie::NONE;

/// A partition of the text tokens into groups numbered by their smallest token.
pub(super) struct TokenGroups {
    /// The group of each token id, or `NONE` for tokens without text.
    pub(super) of_token: Vec<u32>,
    /// Tokens per group.
    pub(super) size: Vec<u32>,
}

impl TokenGroups {
    /// The groups of `of_token` (ids `0..count`, numbered by first token).
    pub(super) fn new(of_token: Vec<u32>, count: usize) -> TokenGroups {
        let mut size = vec![0u32; count];
        for &l in of_token.iter().filter(|&&l| l != NONE) {
            size[l as usize] += 1;
        }
        TokenGroups { of_token, size }
    }

    pub(super) fn len(&self) -> usize {
        self.size.len()
    }

    pub(super) fn size(&self, label: u32) -> usize {
        self.size[label as usize] as usize
    }

    /// Each label's tokens, ascending, as a CSR `(start, tokens)`: label `l` has
    /// `tokens[start[l]..start[l + 1]]`. Built on demand; the class layout never needs it.
    fn token_lists(&self) -> (Vec<u32>, Vec<u32>) {
        let mut start = Vec::with_capacity(self.len() + 1);
        start.push(0u32);
        for (l, &n) in self.size.iter().enumerate() {
            start.push(start[l] + n);
        }
        let mut fill = start.clone();
        let mut tokens = vec![0u32; start[self.len()] as usize];
        for (t, &l) in self.of_token.iter().enumerate() {
            if l != NONE {
                tokens[fill[l as usize] as usize] = t as u32;
                fill[l as usize] += 1;
            }
        }
        (start, tokens)
    }

    /// Token edges of label edge lists, each sorted by token. TokenGroups from `len()` up are
    /// terminal labels: label `len() + k` becomes `vocab_size + k`, after the tokens.
    pub(super) fn expand(&self, edges: &[Vec<(u32, StateId)>]) -> Vec<Vec<(u32, StateId)>> {
        let vocab = self.of_token.len();
        let groups = self.len() as u32;
        let (start, tokens) = self.token_lists();
        let tokens_of =
            |l: u32| &tokens[start[l as usize] as usize..start[l as usize + 1] as usize];
        let terminal = |l: u32| vocab as u32 + (l - groups);
        edges
            .par_iter()
            .map_init(
                || vec![NONE; self.len()],
                |target_of, list| {
                    let split = list.partition_point(|&(l, _)| l < groups);
                    let (list, terminals) = list.split_at(split);
                    let size: usize = list.iter().map(|&(l, _)| self.size(l)).sum();
                    let mut out = Vec::with_capacity(size + terminals.len());
                    if size.saturating_mul(16) >= vocab {
                        // Dense: one sweep over the token ids comes out sorted.
                        for &(l, t) in list {
                            target_of[l as usize] = t;
                        }
                        for (token, &l) in self.of_token.iter().enumerate() {
                            if l != NONE && target_of[l as usize] != NONE {
                                out.push((token as u32, target_of[l as usize]));
                            }
                        }
                        for &(l, _) in list {
                            target_of[l as usize] = NONE;
                        }
                    } else {
                        for &(l, t) in list {
                            out.extend(tokens_of(l).iter().map(|&token| (token, t)));
                        }
                        out.sort_unstable();
                    }
                    out.extend(terminals.iter().map(|&(l, t)| (terminal(l), t)));
                    out
                },
            )
            .collect()
    }
}

/// Per-state edge lists `(label, target)`.
pub(super) type EdgeLists = Vec<Vec<(u32, StateId)>>;

/// Merges the groups whose columns are identical (the same target from every state,
/// absent from the same states): they cannot tell states apart, so minimizing over one
/// label per column gives the same automaton, on far fewer edges (`[^\n]+` leaves
/// thousands of groups that all go to one state). `None` when nothing merges. TokenGroups from
/// `groups.len()` up (terminals) are never merged; they keep their order after the groups.
///
/// Columns are matched by hash, then checked exactly while the merged lists are built;
/// a collision (which the check catches) also gives `None`.
pub(super) fn merge_columns(
    groups: &TokenGroups,
    edges: &[Vec<(u32, StateId)>],
) -> Option<(TokenGroups, EdgeLists)> {
    let n = groups.len();
    let mut hash = vec![0u64; n];
    let mut count = vec![0u32; n];
    for (s, list) in edges.iter().enumerate() {
        for &(l, t) in list.iter().take_while(|&&(l, _)| (l as usize) < n) {
            let h = &mut hash[l as usize];
            *h = (h.rotate_left(5) ^ ((s as u64) << 32 | u64::from(t)))
                .wrapping_mul(0x9e37_79b9_7f4a_7c15);
            count[l as usize] += 1;
        }
    }
    // Merged labels numbered by first member, hence by first token.
    let mut ids: FastMap<(u64, u32), u32> = FastMap::default();
    let mut merged_of = vec![0u32; n];
    let mut size: Vec<u32> = Vec::new();
    for l in 0..n {
        let fresh = size.len() as u32;
        let id = *ids.entry((hash[l], count[l])).or_insert(fresh);
        if id == fresh {
            size.push(0);
        }
        size[id as usize] += 1;
        merged_of[l] = id;
    }
    if size.len() == n {
        return None;
    }
    // Each label occurs at most once per state. A merged label is sound when, in every
    // state where one member occurs, all occur with one target.
    let mut target = vec![NONE; size.len()];
    let mut seen = vec![0u32; size.len()];
    let mut merged_edges = Vec::with_capacity(edges.len());
    let merged = size.len() as u32;
    for list in edges {
        let mut out: Vec<(u32, StateId)> = Vec::new();
        let split = list.partition_point(|&(l, _)| (l as usize) < n);
        for &(l, t) in &list[..split] {
            let m = merged_of[l as usize] as usize;
            if target[m] == NONE {
                target[m] = t;
                out.push((m as u32, t));
            } else if target[m] != t {
                return None;
            }
            seen[m] += 1;
        }
        for &(m, _) in &out {
            if seen[m as usize] != size[m as usize] {
                return None;
            }
            target[m as usize] = NONE;
            seen[m as usize] = 0;
        }
        // Members come in label order, so each merged label first appears at its
        // first member: `out` is already sorted. Terminal labels follow, renumbered.
        out.extend(
            list[split..]
                .iter()
                .map(|&(l, t)| (merged + (l - n as u32), t)),
        );
        merged_edges.push(out);
    }
    let of_token = groups
        .of_token
        .iter()
        .map(|&l| {
            if l == NONE {
                NONE
            } else {
                merged_of[l as usize]
            }
        })
        .collect();
    let mut merged_size = vec![0u32; size.len()];
    for (l, &m) in merged_of.iter().enumerate() {
        merged_size[m as usize] += groups.size[l];
    }
    Some((
        TokenGroups {
            of_token,
            size: merged_size,
        },
        merged_edges,
    ))
}
