//! Token groups by transition function: the grouping for small byte DFAs.
//!
//! A string `w` drives a byte DFA as a function `f_w` from states to states (or to the
//! dead state). Tokens with the same function behave alike from every state, so they
//! form one group, and a group's edges need no walk: from state `q` its edge goes to
//! `f_w(q)`. A trie node's function is its parent's followed by one byte class, so one
//! level-order pass over the vocabulary trie, memoizing `(function, class) -> function`
//! in a dense table, groups every token: a table load per trie node instead of the class
//! trie's hash lookup, and no per-state walks afterwards. A function is stored sparsely,
//! as the `(state, target)` pairs where it lives: after a byte or two most states die
//! (an identifier token kills every mid-UTF-8 state), so a new function costs its live
//! pairs, not the DFA's size. Few DFA states give few functions (a quoted string: a few
//! dozen); many states can give many, so the pass gives up past a budget and the caller
//! uses the class trie instead.

use std::time::Instant;

use super::groups::{TokenGroups, NONE};

/// Cheap steps between two polls of the deadline: states whose edges are read off their
/// functions (a copy each), or trie entries and pairs while the functions are found.
pub(super) const POLL_EVERY: usize = 4096;
use crate::fast_hash::FastMap;
use crate::minimize::PastDeadline;
use crate::vocab::level_trie::LevelTrie;

/// A memo entry not yet computed (entries are rows `f * k`, far below it; row 0 is dead).
const UNKNOWN: u32 = NONE - 1;

/// The text tokens grouped by the function they drive the DFA with.
pub(super) struct FunctionGroups {
    /// State `q`'s `(group, target)` edges, in group order:
    /// `edges[edge_start[q]..edge_start[q + 1]]`.
    edge_start: Vec<u32>,
    edges: Vec<(u32, u32)>,
    pub(super) groups: TokenGroups,
}

/// Functions as sorted `(state, target)` lists of their live states, CSR: function `f`
/// is `pairs[start[f]..start[f + 1]]`.
struct Functions {
    start: Vec<u32>,
    pairs: Vec<(u32, u32)>,
    /// Function ids by the function's hash.
    ids: FastMap<u64, u32>,
}

impl Functions {
    fn get(&self, f: usize) -> &[(u32, u32)] {
        &self.pairs[self.start[f] as usize..self.start[f + 1] as usize]
    }

    fn len(&self) -> usize {
        self.start.len() - 1
    }

    /// The id of `function`, appended if new. Keys are hashes, probed linearly on a
    /// collision, so the map owns no copies of the functions.
    fn intern(&mut self, function: &[(u32, u32)]) -> u32 {
        let mut key = function
            .iter()
            .fold(0x243f_6a88_85a3_08d3u64, |h, &(q, t)| {
                let word = u64::from(q) | u64::from(t) << 32;
                (h ^ word)
                    .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                    .rotate_left(29)
            });
        key ^= key >> 32;
        loop {
            match self.ids.get(&key) {
                None => {
                    let id = self.len() as u32;
                    self.pairs.extend_from_slice(function);
                    self.start.push(self.pairs.len() as u32);
                    self.ids.insert(key, id);
                    return id;
                }
                Some(&id) if self.get(id as usize) == function => return id,
                Some(_) => key = key.wrapping_add(1),
            }
        }
    }
}

/// Each state's edges: its pairs in every group's function, in group order (`edges`
/// from `edge_start[q]` to `edge_start[q + 1]` are state `q`'s).
fn edges_by_state(
    functions: &Functions,
    function_of_group: &[usize],
    num_states: usize,
) -> (Vec<u32>, Vec<(u32, u32)>) {
    let mut edge_start = vec![0u32; num_states + 1];
    for &f in function_of_group {
        for &(q, _) in functions.get(f) {
            edge_start[q as usize + 1] += 1;
        }
    }
    for q in 0..num_states {
        edge_start[q + 1] += edge_start[q];
    }
    let mut cursor = edge_start.clone();
    let mut edges = vec![(0u32, 0u32); edge_start[num_states] as usize];
    for (g, &f) in function_of_group.iter().enumerate() {
        for &(q, t) in functions.get(f) {
            edges[cursor[q as usize] as usize] = (g as u32, t);
            cursor[q as usize] += 1;
        }
    }
    (edge_start, edges)
}

impl FunctionGroups {
    /// Groups the tokens of `trie` by their function on the DFA whose transition table
    /// over dense classes is `table` (`num_states` rows of `k` entries, `NONE` for no
    /// transition); `class_of_symbol` maps the trie's symbols (bytes or folded classes)
    /// to dense classes. `None` when the distinct functions would hold more than
    /// `max_entries` live `(state, target)` pairs; an error past `deadline`.
    pub(super) fn new(
        trie: &LevelTrie,
        class_of_symbol: &[u8],
        table: &[u32],
        (k, num_states, max_entries): (usize, usize, usize),
        deadline: Option<Instant>,
    ) -> Result<Option<FunctionGroups>, PastDeadline> {
        // Function 0 is dead (no live state), function 1 the identity (the root). A
        // node's value is its function's row in the memo (`f * k`), so a step is an add
        // and a load; the dead row maps every class to itself.
        let mut functions = Functions {
            start: vec![0, 0],
            pairs: Vec::new(),
            ids: FastMap::default(),
        };
        let identity: Vec<(u32, u32)> = (0..num_states as u32).map(|q| (q, q)).collect();
        functions.intern(&identity);
        let mut memo: Vec<u32> = vec![0; k];
        memo.resize(2 * k, UNKNOWN);
        let mut scratch = Vec::with_capacity(num_states);
        // Level order: a node's parent is always done, and nodes do not wait on each other.
        let entries = trie.len();
        let mut row_of_entry = vec![0u32; entries + 1];
        row_of_entry[0] = k as u32;
        // Steps since the deadline was last polled: one per entry, one per pair computed.
        let mut work = 0usize;
        for i in 1..entries {
            work += 1;
            if work >= POLL_EVERY {
                work = 0;
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return Err(PastDeadline);
                }
            }
            let f_row = row_of_entry[trie.parent[i] as usize] as usize;
            let c = class_of_symbol[trie.symbol[i] as usize] as usize;
            let mut g = memo[f_row + c];
            if g == UNKNOWN {
                scratch.clear();
                scratch.extend(functions.get(f_row / k).iter().filter_map(|&(q, s)| {
                    let t = table[s as usize * k + c];
                    (t != NONE).then_some((q, t))
                }));
                work += scratch.len();
                g = if scratch.is_empty() {
                    0
                } else {
                    let id = functions.intern(&scratch) as usize;
                    if functions.pairs.len() > max_entries {
                        return Ok(None);
                    }
                    if memo.len() < (id + 1) * k {
                        memo.resize((id + 1) * k, UNKNOWN);
                    }
                    (id * k) as u32
                };
                memo[f_row + c] = g;
            }
            row_of_entry[i] = g;
        }

        // Groups: the functions that some token has, numbered by first token. Entries
        // taken by first token number them so; then each token's group is one load.
        let mut group_of_row = vec![NONE; memo.len()];
        let mut group_of_entry = vec![NONE; entries + 1];
        let mut function_of_group: Vec<usize> = Vec::new();
        let mut size: Vec<u32> = Vec::new();
        for &e in &trie.by_first_token {
            let row = row_of_entry[e as usize] as usize;
            if row == 0 {
                continue;
            }
            let mut g = group_of_row[row];
            if g == NONE {
                g = size.len() as u32;
                group_of_row[row] = g;
                size.push(0);
                function_of_group.push(row / k);
            }
            size[g as usize] += trie.tokens_at[e as usize];
            group_of_entry[e as usize] = g;
        }
        let group_of_token: Vec<u32> = trie
            .of_token
            .iter()
            .map(|&e| group_of_entry[e as usize])
            .collect();

        let (edge_start, edges) = edges_by_state(&functions, &function_of_group, num_states);
        Ok(Some(FunctionGroups {
            edge_start,
            edges,
            groups: TokenGroups {
                of_token: group_of_token,
                size,
            },
        }))
    }

    /// The `(group, target)` edges of DFA state `state`, in group order, and the number
    /// of token edges they stand for.
    pub(super) fn edges(&self, state: u32) -> (Vec<(u32, u32)>, usize) {
        let q = state as usize;
        let list = &self.edges[self.edge_start[q] as usize..self.edge_start[q + 1] as usize];
        let token_edges = list.iter().map(|&(g, _)| self.groups.size(g)).sum();
        (list.to_vec(), token_edges)
    }
}
