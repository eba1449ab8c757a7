//! Token groups: a partition of the text tokens numbered by first token, its
//! expansion back to token edges, and the merging of groups whose columns agree (by
//! `parts::columns`, the one grouping routine).

use rayon::prelude::*;

use crate::automaton::StateId;
use crate::parts::columns::Columns;

/// Marks an absent node, group or state in the composition's flat tables.
pub(super) use crate::vocab::trie::NONE;
// A label without edges merges into no class: `NO_CLASS` reads as `NONE`.
const _: () = assert!(NONE == crate::parts::NO_CLASS);

/// A partition of the text tokens into groups numbered by their smallest token.
pub(super) struct TokenGroups {
    /// The group of each token id, or `NONE` for tokens without text (and, once labels
    /// are merged, for tokens on no edge).
    pub(super) of_token: Vec<u32>,
    /// Tokens per label.
    pub(super) size: Vec<u32>,
}

impl TokenGroups {
    /// The labels of `of_token` (ids `0..count`, numbered by first token).
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

/// Merges the labels whose columns are identical (the same target from every state,
/// absent from the same states): they cannot tell states apart, so minimizing over one
/// label per column gives the same automaton, on far fewer edges (`[^\n]+` leaves
/// thousands of groups that all go to one state). `None` when nothing merges. TokenGroups from
/// `groups.len()` up (terminals) are never merged; they keep their order after the groups.
/// The tokens of a label without edges get no label (`NONE`).
pub(super) fn merge_columns(
    groups: &TokenGroups,
    edges: &[Vec<(u32, StateId)>],
) -> Option<(TokenGroups, EdgeLists)> {
    let columns = Columns::group(groups.len(), edges);
    if columns.is_identity() {
        return None;
    }
    let merged_edges = edges.iter().map(|list| columns.relabel(list)).collect();
    let merged = |l: u32| {
        if l == NONE {
            NONE
        } else {
            columns.class_of[l as usize]
        }
    };
    let mut size = vec![0u32; columns.num_classes()];
    for (l, &n) in groups.size.iter().enumerate() {
        // A label without edges has no class (`NONE`, past every index).
        if let Some(s) = size.get_mut(merged(l as u32) as usize) {
            *s += n;
        }
    }
    Some((
        TokenGroups {
            of_token: groups.of_token.iter().map(|&l| merged(l)).collect(),
            size,
        },
        merged_edges,
    ))
}
