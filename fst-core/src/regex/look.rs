//! Subset construction for NFAs with `Look` states: word boundaries, multi-line and CRLF
//! anchors, look-ahead and look-behind, exactly, under full-match semantics.
//!
//! A condition on the text *before* a position is a regular language `Σ*R` of the text
//! read so far, so a DFA for it (a *tracker*) runs alongside the subset construction,
//! one state per tracker in each DFA state. A condition on the text *after* a position
//! becomes an *obligation* of the NFA thread that crossed it: a run of a DFA for `R` from
//! that position. A positive one (`(?=R)`, the next character is a word character) is
//! discharged when the run accepts and kills its thread when the run dies or the text
//! ends first; a negative one (`(?!R)`) kills its thread when the run accepts and is
//! dropped when the run dies. A DFA state is the trackers' states plus the set of
//! threads `(NFA state, obligations)`. NFAs without `Look` states never come here.

use std::collections::HashSet;

use crate::fast_hash::FastMap;

use super::dfa::{classes_from_boundaries, nfa_boundaries, TableDfa};
use super::nfa::{Nfa, State};
use super::{ByteDfa, RegexError, DEAD};

/// One side of a condition: the index of its DFA and the outcome required.
pub(crate) type Side = Option<(usize, bool)>;

/// The DFAs of an NFA's look conditions (`Nfa::looks[i]` is `conds[i]`).
pub(crate) struct Contexts {
    /// Trackers: DFAs of `Σ*R`, run over the whole text.
    pub(crate) behind: Vec<ByteDfa>,
    /// DFAs of `R`, run from the position of the assertion.
    pub(crate) ahead: Vec<ByteDfa>,
    /// Per condition: (tracker, must accept) and (ahead DFA, positive).
    pub(crate) conds: Vec<(Side, Side)>,
}

/// An NFA thread: a state and the pending look-ahead runs `(ahead DFA, state, positive)`,
/// sorted.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Thread {
    state: u32,
    obligations: Vec<(u32, u32, bool)>,
}

struct Builder<'a> {
    nfa: &'a Nfa,
    cx: &'a Contexts,
}

impl Builder<'_> {
    /// Closes `seeds` under epsilon moves, pushing byte-reading threads to `out` (unless
    /// `at_end`); returns whether, with the text ending here (`at_end`), a thread reaches
    /// `Match` with no positive obligation pending.
    fn close(
        &self,
        seeds: Vec<Thread>,
        trackers: &[u32],
        at_start: bool,
        at_end: bool,
        out: &mut Vec<Thread>,
    ) -> bool {
        let mut seen: HashSet<Thread> = HashSet::new();
        let mut stack = seeds;
        let mut matched = false;
        while let Some(t) = stack.pop() {
            if seen.contains(&t) {
                continue;
            }
            seen.insert(t.clone());
            let next = |s: u32| Thread {
                state: s,
                obligations: t.obligations.clone(),
            };
            match self.nfa.states[t.state as usize] {
                State::Bytes { len, .. } => {
                    if !at_end && len > 0 {
                        out.push(t);
                    }
                }
                State::Split { off, len } => {
                    for &s in self.nfa.split_targets(off, len) {
                        stack.push(next(s));
                    }
                }
                State::Start(s) if at_start => stack.push(next(s)),
                State::End(s) if at_end => stack.push(next(s)),
                State::Start(_) | State::End(_) | State::Terminal { .. } => {}
                State::Look { id, next: s } => {
                    if let Some(obligations) = self.enter(id as usize, trackers, &t.obligations) {
                        stack.push(Thread {
                            state: s,
                            obligations,
                        });
                    }
                }
                State::Match => matched |= at_end && t.obligations.iter().all(|o| !o.2),
            }
        }
        if !at_end {
            out.sort_unstable();
            out.dedup();
        }
        matched
    }

    /// The obligations after crossing condition `id`, or `None` when it fails here.
    fn enter(
        &self,
        id: usize,
        trackers: &[u32],
        obligations: &[(u32, u32, bool)],
    ) -> Option<Vec<(u32, u32, bool)>> {
        let (behind, ahead) = self.cx.conds[id];
        if let Some((b, want)) = behind {
            if self.cx.behind[b].is_accepting(trackers[b]) != want {
                return None;
            }
        }
        let mut out = obligations.to_vec();
        if let Some((a, positive)) = ahead {
            if self.cx.ahead[a].is_accepting(0) {
                // The empty prefix already matches: settled at once.
                return positive.then_some(out);
            }
            let o = (a as u32, 0, positive);
            if let Err(i) = out.binary_search(&o) {
                out.insert(i, o);
            }
        }
        Some(out)
    }

    /// Advances a thread's obligations over `byte`; `None` when one fails.
    fn advance(&self, obligations: &[(u32, u32, bool)], byte: u8) -> Option<Vec<(u32, u32, bool)>> {
        let mut out = Vec::with_capacity(obligations.len());
        for &(a, q, positive) in obligations {
            let dfa = &self.cx.ahead[a as usize];
            match dfa.next(q, byte) {
                None if positive => return None,
                None => {}
                Some(q2) if dfa.is_accepting(q2) && !positive => return None,
                Some(q2) if dfa.is_accepting(q2) => {}
                Some(q2) => out.push((a, q2, positive)),
            }
        }
        out.sort_unstable();
        out.dedup();
        Some(out)
    }
}

/// Byte classes refining the NFA's ranges and every context DFA's classes.
fn joint_classes(nfa: &Nfa, cx: &Contexts) -> ([u8; 256], usize) {
    let mut boundary = nfa_boundaries(nfa);
    for d in cx.behind.iter().chain(&cx.ahead) {
        let c = d.byte_classes();
        for b in 1..256 {
            boundary[b] |= c[b] != c[b - 1];
        }
    }
    classes_from_boundaries(&boundary)
}

/// Subset construction with trackers and obligations; limits as `dfa::determinize`.
pub(crate) fn determinize(
    nfa: &Nfa,
    cx: &Contexts,
    state_limit: usize,
    set_budget: usize,
) -> Result<TableDfa, RegexError> {
    let (classes, k) = joint_classes(nfa, cx);
    let mut rep = vec![0u8; k];
    for b in (0..=255u8).rev() {
        rep[classes[b as usize] as usize] = b;
    }
    let builder = Builder { nfa, cx };
    let mut ids: FastMap<Vec<u32>, u32> = FastMap::default();
    let mut states: Vec<(Vec<u32>, Vec<Thread>)> = Vec::new();
    let mut accepting = Vec::new();
    let mut table = Vec::new();
    let mut stored = 0usize;
    let mut intern = |trackers: Vec<u32>,
                      kernel: Vec<Thread>,
                      acc: bool,
                      states: &mut Vec<(Vec<u32>, Vec<Thread>)>,
                      accepting: &mut Vec<bool>|
     -> Result<u32, RegexError> {
        let mut key = trackers.clone();
        key.push(u32::from(acc));
        for t in &kernel {
            key.extend([t.state, t.obligations.len() as u32]);
            for &(a, q, p) in &t.obligations {
                key.extend([a, q, u32::from(p)]);
            }
        }
        if let Some(&id) = ids.get(&key) {
            return Ok(id);
        }
        if states.len() >= state_limit {
            return Err(RegexError::too_many_states(state_limit));
        }
        stored += key.len();
        if stored > set_budget {
            return Err(RegexError::state_sets_too_large(state_limit, set_budget));
        }
        let id = states.len() as u32;
        ids.insert(key, id);
        states.push((trackers, kernel));
        accepting.push(acc);
        Ok(id)
    };

    let start_trackers = vec![0u32; cx.behind.len()];
    let seeds = vec![Thread {
        state: nfa.start,
        obligations: Vec::new(),
    }];
    let mut kernel = Vec::new();
    let acc = builder.close(seeds.clone(), &start_trackers, true, true, &mut Vec::new());
    builder.close(seeds, &start_trackers, true, false, &mut kernel);
    intern(start_trackers, kernel, acc, &mut states, &mut accepting)?;

    let mut i = 0;
    while i < states.len() {
        let (trackers, kernel) = std::mem::take(&mut states[i]);
        for &byte in &rep {
            table.push(DEAD);
            let moved: Option<Vec<u32>> = trackers
                .iter()
                .zip(&cx.behind)
                .map(|(&q, d)| d.next(q, byte))
                .collect();
            let Some(moved) = moved else { continue };
            let mut seeds = Vec::new();
            for t in &kernel {
                for &(lo, hi, to) in nfa.byte_ranges(t.state) {
                    if (lo..=hi).contains(&byte) {
                        if let Some(obligations) = builder.advance(&t.obligations, byte) {
                            seeds.push(Thread {
                                state: to,
                                obligations,
                            });
                        }
                    }
                }
            }
            if seeds.is_empty() {
                continue;
            }
            let acc = builder.close(seeds.clone(), &moved, false, true, &mut Vec::new());
            let mut next = Vec::new();
            builder.close(seeds, &moved, false, false, &mut next);
            if next.is_empty() && !acc {
                continue;
            }
            let id = intern(moved, next, acc, &mut states, &mut accepting)?;
            *table.last_mut().expect("pushed above") = id;
        }
        i += 1;
    }
    Ok(TableDfa {
        classes,
        num_classes: k,
        num_terminals: 0,
        table,
        accepting,
    })
}
