//! Token groups by transition function: the grouping for small byte DFAs.
//!
//! A string `w` drives a byte DFA as a function `f_w` from states to states (or to the
//! dead state). Tokens with the same function behave alike from every state, so they
//! form one group, and a group's edges need no walk: from state `q` its edge goes to
//! `f_w(q)`. A trie node's function is its parent's followed by one byte class, so one
//! level-order pass over the vocabulary trie, memoizing `(function, class) -> function`
//! in a dense table, groups every token: a table load per trie node instead of the class
//! trie's hash lookup, and no per-state walks afterwards. Each new function costs
//! O(states) once. Few DFA states give few functions (a quoted string: a few dozen);
//! many states can give many, so the pass gives up past a budget and the caller uses
//! the class trie instead.

use super::{Labels, LevelTrie, NONE};
use crate::fast_hash::FastMap;

/// A memo entry not yet computed; `NONE` marks the dead function.
const UNKNOWN: u32 = NONE - 1;

/// The text tokens grouped by the function they drive the DFA with.
pub(super) struct FunctionGroups {
    num_states: usize,
    /// Group `g`'s function: `targets[g * num_states + q]`, `NONE` where it dies.
    targets: Vec<u32>,
    pub(super) groups: Labels,
}

impl FunctionGroups {
    /// Groups the tokens of `trie` by their function on the DFA whose transition table
    /// over dense classes is `table` (`num_states` rows of `k` entries, `NONE` for no
    /// transition); `class_of_symbol` maps the trie's symbols (bytes or coarse classes)
    /// to dense classes. `None` when more than `max_entries` function entries
    /// (functions times states) would be needed.
    pub(super) fn new(
        trie: &LevelTrie,
        class_of_symbol: &[u8],
        table: &[u32],
        k: usize,
        num_states: usize,
        max_entries: usize,
    ) -> Option<FunctionGroups> {
        let n = num_states;
        // Function 0 is dead (every state dies), function 1 the identity (the root). A
        // node's value is its function's row in the memo (`f * k`), so a step is an add
        // and a load; the dead row maps every class to itself.
        let mut functions: Vec<u32> = vec![NONE; n];
        let mut ids: FunctionIds = FastMap::default();
        let identity: Vec<u32> = (0..n as u32).collect();
        intern(&mut functions, &mut ids, &identity);
        let mut memo: Vec<u32> = vec![0; k];
        memo.resize(2 * k, UNKNOWN);
        let mut scratch = vec![NONE; n];
        // Level order: a node's parent is always done, and nodes do not wait on each other.
        let entries = trie.len();
        let mut row_of_entry = vec![0u32; entries + 1];
        row_of_entry[0] = k as u32;
        for i in 1..entries {
            let f_row = row_of_entry[trie.parent[i] as usize] as usize;
            let c = class_of_symbol[trie.symbol[i] as usize] as usize;
            let mut g = memo[f_row + c];
            if g == UNKNOWN {
                let f = f_row / k;
                let live = compose_step(&functions[f * n..(f + 1) * n], table, k, c, &mut scratch);
                g = if live {
                    let id = intern(&mut functions, &mut ids, &scratch) as usize;
                    if functions.len() > max_entries {
                        return None;
                    }
                    if memo.len() < (id + 1) * k {
                        memo.resize((id + 1) * k, UNKNOWN);
                    }
                    (id * k) as u32
                } else {
                    0
                };
                memo[f_row + c] = g;
            }
            row_of_entry[i] = g;
        }

        // Groups: the functions that some token has, numbered by first token. Entries
        // taken by first token number them so; then each token's group is one load.
        let mut group_of_row = vec![NONE; memo.len()];
        let mut group_of_entry = vec![NONE; entries + 1];
        let mut targets: Vec<u32> = Vec::new();
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
                let f = row / k;
                targets.extend_from_slice(&functions[f * n..(f + 1) * n]);
            }
            size[g as usize] += trie.tokens_at[e as usize];
            group_of_entry[e as usize] = g;
        }
        let group_of_token: Vec<u32> = trie
            .of_token
            .iter()
            .map(|&e| group_of_entry[e as usize])
            .collect();
        Some(FunctionGroups {
            num_states: n,
            targets,
            groups: Labels {
                of_token: group_of_token,
                size,
            },
        })
    }

    /// The `(group, target)` edges of DFA state `state`, in group order, and the number
    /// of token edges they stand for.
    pub(super) fn edges(&self, state: u32) -> (Vec<(u32, u32)>, usize) {
        let mut out = Vec::new();
        let mut token_edges = 0;
        for (g, function) in self.targets.chunks_exact(self.num_states).enumerate() {
            let t = function[state as usize];
            if t != NONE {
                out.push((g as u32, t));
                token_edges += self.groups.size(g as u32);
            }
        }
        (out, token_edges)
    }
}

/// Writes into `out` the function `f` followed by class `c`; whether it is live (some
/// state survives).
fn compose_step(f: &[u32], table: &[u32], k: usize, c: usize, out: &mut [u32]) -> bool {
    let mut live = false;
    for (o, &s) in out.iter_mut().zip(f) {
        *o = if s == NONE {
            NONE
        } else {
            table[s as usize * k + c]
        };
        live |= *o != NONE;
    }
    live
}

/// Function ids by the function's hash.
type FunctionIds = FastMap<u64, u32>;

/// The id of `function`, appending it to `functions` if new. Keys are hashes, probed
/// linearly on a collision, so the map owns no copies of the functions.
fn intern(functions: &mut Vec<u32>, ids: &mut FunctionIds, function: &[u32]) -> u32 {
    let n = function.len();
    // Two targets per multiply; the final mix spreads the bits the map's buckets use.
    let mut key = function
        .chunks(2)
        .fold(0x243f_6a88_85a3_08d3u64, |h, pair| {
            let word = u64::from(pair[0]) | u64::from(*pair.get(1).unwrap_or(&0)) << 32;
            (h ^ word)
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .rotate_left(29)
        });
    key ^= key >> 32;
    loop {
        match ids.get(&key) {
            None => {
                let id = (functions.len() / n) as u32;
                functions.extend_from_slice(function);
                ids.insert(key, id);
                return id;
            }
            Some(&id) if functions[id as usize * n..(id as usize + 1) * n] == *function => {
                return id
            }
            Some(_) => key = key.wrapping_add(1),
        }
    }
}
