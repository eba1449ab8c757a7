//! Subset construction over byte classes, and minimization (by the one minimizer) with
//! dead-state removal.
//!
//! `^`/`\A` and `$`/`\z` are handled here rather than by rewriting the pattern: the
//! start state's epsilon closure may cross `Start` assertions (no byte read yet) and no
//! other closure may; `End` assertions are crossed only when deciding whether a state
//! accepts (the text ends there), never before reading a byte.

use std::time::Instant;

use crate::deadline::{without_deadline, PastDeadline};
use crate::fast_hash::FastMap;
use crate::minimize::minimal_dfa_until;

use super::nfa::{Nfa, State};
use super::subsets::{Limits, Subsets, TableDfa};
use super::{ByteDfaError, DEAD};

/// Byte classes from the NFA's byte ranges: bytes no range boundary separates always move
/// together. Classes are contiguous and numbered in byte order.
fn nfa_byte_classes<L, S>(nfa: &Nfa<L, S>) -> ([u8; 256], usize) {
    classes_from_boundaries(&nfa_boundaries(nfa))
}

/// `b` is marked when a byte range of the NFA starts at `b` or ends at `b - 1`.
pub fn nfa_boundaries<L, S>(nfa: &Nfa<L, S>) -> [bool; 257] {
    let mut boundary = [false; 257];
    for &(lo, hi, _) in &nfa.ranges {
        boundary[lo as usize] = true;
        boundary[hi as usize + 1] = true;
    }
    boundary
}

/// Contiguous byte classes, a new one at each marked byte, numbered in byte order.
pub fn classes_from_boundaries(boundary: &[bool; 257]) -> ([u8; 256], usize) {
    let mut classes = [0u8; 256];
    let mut c = 0usize;
    for (b, class) in classes.iter_mut().enumerate() {
        if b > 0 && boundary[b] {
            c += 1;
        }
        *class = c as u8;
    }
    (classes, c + 1)
}

/// Epsilon closures with generation-stamped visit marks (no clearing between closures).
struct Closer<'a, L, S> {
    nfa: &'a Nfa<L, S>,
    seen: Vec<u32>,
    gen: u32,
    stack: Vec<u32>,
    ends: Vec<u32>,
}

impl<'a, L, S> Closer<'a, L, S> {
    fn new(nfa: &'a Nfa<L, S>) -> Closer<'a, L, S> {
        Closer {
            nfa,
            seen: vec![0; nfa.states.len()],
            gen: 0,
            stack: Vec::new(),
            ends: Vec::new(),
        }
    }

    fn bump(&mut self) {
        if self.gen == u32::MAX {
            self.seen.fill(0);
            self.gen = 0;
        }
        self.gen += 1;
    }

    /// Fills `kernel` with the sorted byte-reading states reachable from `seeds` by epsilon
    /// moves, and returns whether the text may end here (the state accepts).
    /// `at_start` says no byte has been read, so `Start` assertions hold.
    fn close(&mut self, seeds: &[u32], at_start: bool, kernel: &mut Vec<u32>) -> bool {
        self.bump();
        kernel.clear();
        self.ends.clear();
        self.stack.extend_from_slice(seeds);
        let mut matched = false;
        while let Some(s) = self.stack.pop() {
            if self.seen[s as usize] == self.gen {
                continue;
            }
            self.seen[s as usize] = self.gen;
            match self.nfa.states[s as usize] {
                State::Bytes { len, .. } => {
                    if len > 0 {
                        kernel.push(s);
                    }
                }
                State::Split { off, len } => {
                    self.stack
                        .extend_from_slice(self.nfa.split_targets(off, len));
                }
                State::Start(t) => {
                    if at_start {
                        self.stack.push(t);
                    }
                }
                State::End(t) => self.ends.push(t),
                State::Terminal { .. } => kernel.push(s),
                State::Match => matched = true,
                // NFAs with `Look` states are determinized by `look::determinize`.
                State::Look { .. } => {}
            }
        }
        kernel.sort_unstable();
        matched || self.accepts_at_end(at_start)
    }

    /// Whether crossing the pending `End` assertions (the text ends here) reaches `Match`
    /// without reading a byte.
    fn accepts_at_end(&mut self, at_start: bool) -> bool {
        if self.ends.is_empty() {
            return false;
        }
        self.bump();
        let mut stack = std::mem::take(&mut self.ends);
        let mut found = false;
        while let Some(s) = stack.pop() {
            if self.seen[s as usize] == self.gen {
                continue;
            }
            self.seen[s as usize] = self.gen;
            match self.nfa.states[s as usize] {
                State::Bytes { .. } | State::Terminal { .. } | State::Look { .. } => {}
                State::Split { off, len } => {
                    stack.extend_from_slice(self.nfa.split_targets(off, len))
                }
                State::Start(t) => {
                    if at_start {
                        stack.push(t);
                    }
                }
                State::End(t) => stack.push(t),
                State::Match => {
                    found = true;
                    break;
                }
            }
        }
        stack.clear();
        self.ends = stack;
        found
    }
}

/// Subset construction. Fails as soon as a new DFA state would exceed `state_limit`, or
/// the NFA-state sets kept for the pending states exceed `set_budget` entries in total.
pub fn determinize<L, S>(
    nfa: &Nfa<L, S>,
    state_limit: usize,
    set_budget: usize,
) -> Result<TableDfa, ByteDfaError> {
    determinize_within(nfa, Limits::new(state_limit, set_budget))
}

/// Subset construction within `limits` (a state limit, a set budget, a deadline).
pub fn determinize_within<L, S>(nfa: &Nfa<L, S>, limits: Limits) -> Result<TableDfa, ByteDfaError> {
    let (classes, num_classes) = nfa_byte_classes(nfa);
    let k = num_classes + nfa.terminals.len();
    let mut closer = Closer::new(nfa);
    let mut states: Subsets<Box<[u32]>> = Subsets::new(limits);
    let mut kernel = Vec::new();
    let mut key = Vec::new();
    // The key is the kernel plus a trailing marker when accepting: two closures with
    // the same byte-reading states and the same acceptance have the same future.
    let mut intern = |kernel: &[u32], acc: bool, states: &mut Subsets<Box<[u32]>>| {
        key.clear();
        key.extend_from_slice(kernel);
        if acc {
            key.push(u32::MAX);
        }
        states.intern(&key, kernel.len(), acc, || kernel.into())
    };

    let acc = closer.close(&[nfa.start], true, &mut kernel);
    intern(&kernel, acc, &mut states)?;

    let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); k];
    while let Some(set) = states.next_row(k)? {
        for b in &mut buckets {
            b.clear();
        }
        for &s in set.iter() {
            if let State::Terminal { symbol, next } = nfa.states[s as usize] {
                buckets[num_classes + symbol as usize].push(next);
            }
            for &(lo, hi, t) in nfa.byte_ranges(s) {
                for c in classes[lo as usize]..=classes[hi as usize] {
                    buckets[c as usize].push(t);
                }
            }
        }
        let mut previous = DEAD;
        for c in 0..k {
            if buckets[c].is_empty() {
                previous = DEAD;
                continue;
            }
            if c > 0 && buckets[c] == buckets[c - 1] {
                states.set(k, c, previous);
                continue;
            }
            let acc = closer.close(&buckets[c], false, &mut kernel);
            previous = if kernel.is_empty() && !acc {
                DEAD
            } else {
                intern(&kernel, acc, &mut states)?
            };
            states.set(k, c, previous);
        }
    }
    Ok(states.finish(classes, num_classes, nfa.terminals.len()))
}

/// Merges byte classes whose columns are identical in every state (fewer classes make a
/// smaller table and a faster minimization). New ids follow the first byte of each class.
/// Terminal columns are kept as they are.
pub fn merge_classes(dfa: TableDfa) -> TableDfa {
    let k = dfa.width();
    let n = dfa.accepting.len();
    // Group classes by a cheap column hash, then confirm by comparing columns. The hashes
    // of all columns are computed in one pass over the rows (the table is row-major).
    let mut hashes = vec![0u64; k];
    for row in dfa.table.chunks_exact(k) {
        for (h, &t) in hashes.iter_mut().zip(row) {
            *h = (h.rotate_left(5) ^ u64::from(t)).wrapping_mul(0x517C_C1B7_2722_0A95);
        }
    }
    let column_hash = |c: usize| hashes[c];
    let same_column =
        |a: usize, b: usize| (0..n).all(|s| dfa.table[s * k + a] == dfa.table[s * k + b]);
    let mut remap: Vec<Option<u8>> = vec![None; k];
    let mut by_hash: FastMap<u64, Vec<u8>> = FastMap::default();
    let mut kept: Vec<usize> = Vec::new();
    let mut classes = [0u8; 256];
    for (slot, &old) in classes.iter_mut().zip(dfa.classes.iter()) {
        let c = old as usize;
        let id = match remap[c] {
            Some(id) => id,
            None => {
                let same = by_hash.entry(column_hash(c)).or_default();
                let id = match same.iter().find(|&&id| same_column(kept[id as usize], c)) {
                    Some(&id) => id,
                    None => {
                        let id = kept.len() as u8;
                        kept.push(c);
                        same.push(id);
                        id
                    }
                };
                remap[c] = Some(id);
                id
            }
        };
        *slot = id;
    }
    let k2 = kept.len();
    kept.extend(dfa.num_classes..k);
    let mut table = Vec::with_capacity(n * kept.len());
    for s in 0..n {
        table.extend(kept.iter().map(|&c| dfa.table[s * k + c]));
    }
    TableDfa {
        classes,
        num_classes: k2,
        num_terminals: dfa.num_terminals,
        table,
        accepting: dfa.accepting,
    }
}

/// The minimal DFA by the one minimizer ([`crate::minimize::minimal_dfa`]): states that cannot reach
/// acceptance dropped, equivalent ones merged, numbered breadth-first from the start with
/// columns in order (classes, then terminals), so output is canonical. An empty language
/// gives one non-accepting state over one byte class.
pub fn minimize(dfa: &TableDfa) -> TableDfa {
    without_deadline(minimize_until(dfa, None))
}

/// [`minimize`], giving up past `deadline` (polled while blocks are refined): the
/// minimization of a DFA of millions of states takes seconds of its own after the subset
/// construction.
pub(crate) fn minimize_until(
    dfa: &TableDfa,
    deadline: Option<Instant>,
) -> Result<TableDfa, PastDeadline> {
    let w = dfa.width();
    let edges = (dfa.table.chunks_exact(w))
        .map(|row| {
            (row.iter().enumerate())
                .filter(|&(_, &t)| t != DEAD)
                .map(|(c, &t)| (c as u32, t))
                .collect()
        })
        .collect();
    let (accepting, edges) = minimal_dfa_until(0, dfa.accepting.clone(), edges, deadline)?;
    let empty = !accepting[0] && edges[0].is_empty();
    let (classes, num_classes) = if empty {
        ([0; 256], 1)
    } else {
        (dfa.classes, dfa.num_classes)
    };
    let w = num_classes + dfa.num_terminals;
    let mut table = vec![DEAD; accepting.len() * w];
    for (s, list) in edges.iter().enumerate() {
        for &(c, t) in list {
            table[s * w + c as usize] = t;
        }
    }
    Ok(TableDfa {
        classes,
        num_classes,
        num_terminals: dfa.num_terminals,
        table,
        accepting,
    })
}
