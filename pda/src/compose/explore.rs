//! Explorations of the vocabulary trie, each made once and shared by every call site.
//!
//! An *exploration* runs one byte state over a trie subtree with an empty stack of the
//! token's own pushes: one preorder pass (one run list per depth, dead subtrees skipped)
//! gives the tokens its runs end, each with the run's `(state, own pushes)`, and its
//! returns below the start: `(symbol, trie node, state)`, where a token goes on from the
//! state returned to, before that node's byte.
//!
//! Where a run pushes (a call: an identifier's first byte, from any of the many states
//! that may start one), the pass records the tokens of that trie node and hands the rest
//! of the subtree to the exploration of the callee's state below that node, made once and
//! spliced under each caller's pushes. So the identifier subtree of the trie is walked
//! once per state inside the called rule, not once per state that calls it. This is
//! exact: until a run returns below its own pushes, what it does depends on its state and
//! the symbols it pushed since, never on what lies under them; where the callee's run
//! returns below, the caller's pushes decide as the run itself would (the callee's return
//! for the caller's top symbol, going on before the same byte, itself an exploration);
//! where it ends a token in a finished rule, the caller does the forced returns that
//! [`Steps`] does after reading a byte. Sharing by byte states that agree on identifier
//! bytes would not be: such states differ in what they push and where they return.

use fstc_core::fast_hash::FastMap;
use fstc_core::vocab::VocabTrie;

use super::steps::{Run, Stacks, Steps};
use crate::budget::Budget;
use crate::error::PdaError;

/// On a key's trie node: the subtree below the node, the node's own byte already read.
const AFTER: u32 = 1 << 31;

/// What an exploration gives.
#[derive(Clone, Default)]
pub(super) struct Found {
    /// `(token, result)`: the token ends the run `results[result]`.
    pub edges: Vec<(u32, u32)>,
    /// The distinct runs tokens end: `(state, own pushes)`.
    pub results: Vec<Run>,
    /// `(symbol, trie node, state)`: a return below the start popping `symbol` goes on
    /// at `state` before the node's byte. Sorted, without repeats.
    pub below: Vec<(u32, u32, u32)>,
}

impl Found {
    fn bytes(&self) -> usize {
        self.edges.len() * 8 + self.results.len() * 8 + self.below.len() * 12
    }
}

/// A [`Found`] being made: its results numbered.
#[derive(Default)]
struct Making {
    found: Found,
    /// The last run numbered and its result (a pass records the same runs node after node).
    last: Option<(Run, u32)>,
    index: FastMap<Run, u32>,
    /// Whether another exploration was spliced in (a token may then have repeated edges).
    spliced: bool,
    /// Scratch: the results of a trie node's runs (`record`).
    ids: Vec<u32>,
}

impl Making {
    fn result(&mut self, run: Run) -> u32 {
        if let Some((last, r)) = self.last {
            if last == run {
                return r;
            }
        }
        let next = self.found.results.len() as u32;
        let r = *self.index.entry(run).or_insert(next);
        if r == next {
            self.found.results.push(run);
        }
        self.last = Some((run, r));
        r
    }
}

/// The explorations made so far and what a pass needs.
pub(super) struct Explorer<'w, 'p> {
    steps: &'w Steps<'p>,
    trie: &'w VocabTrie,
    budget: &'w Budget,
    /// Per depth, the runs of the current pass.
    levels: Vec<Vec<Run>>,
    /// The token's own pushes, shared by every exploration's results.
    pub stacks: Stacks,
    /// Explorations spliced somewhere, by `(trie node, maybe AFTER; state)`.
    index: FastMap<(u32, u32), u32>,
    shared: Vec<Found>,
    /// The bytes `shared` holds, and (set by the caller) the bytes held outside.
    held: usize,
    pub outside: usize,
    /// Scratch per token (`gather`), empty until needed.
    slots: Vec<u32>,
}

impl<'w, 'p> Explorer<'w, 'p> {
    pub fn new(steps: &'w Steps<'p>, trie: &'w VocabTrie, budget: &'w Budget) -> Self {
        Explorer {
            steps,
            trie,
            budget,
            levels: vec![Vec::new(); trie.max_depth() + 1],
            stacks: Stacks::new(),
            index: FastMap::default(),
            shared: Vec::new(),
            held: 0,
            outside: 0,
            slots: Vec::new(),
        }
    }

    /// The bytes the explorations and stacks hold.
    pub fn held(&self) -> usize {
        self.held + self.stacks.len() * 24
    }

    /// The bytes held, for the memory budget.
    fn bytes(&self) -> usize {
        self.outside + self.held()
    }

    /// Polls the budgets after `steps` steps of composing from byte state `state`.
    fn poll(&self, steps: usize, state: u32) -> Result<(), PdaError> {
        let place = || format!("composing {} with the vocabulary", self.steps.place(state));
        self.budget.poll(steps, || self.bytes(), place)
    }

    /// The exploration of `state` over the subtree of trie node `at` (0: the whole trie),
    /// each token's edges together, without repeats.
    pub fn explore(&mut self, at: u32, state: u32) -> Result<Found, PdaError> {
        let (mut found, spliced) = match self.index.get(&(at, state)) {
            Some(&i) => (self.shared[i as usize].clone(), true),
            None => self.make((at, state))?,
        };
        if spliced && self.steps.is_nondeterministic() {
            if self.slots.is_empty() {
                self.slots = vec![0; self.trie.vocab_size()];
            }
            gather(&mut found.edges, &mut self.slots);
        }
        Ok(found)
    }

    /// The index in `shared` of the exploration of `key`, made when new.
    fn shared(&mut self, key: (u32, u32)) -> Result<u32, PdaError> {
        if let Some(&i) = self.index.get(&key) {
            return Ok(i);
        }
        let (found, _) = self.make(key)?;
        self.held += found.bytes();
        let i = self.shared.len() as u32;
        self.shared.push(found);
        self.index.insert(key, i);
        Ok(i)
    }

    /// Explores `key`: a pass, then the explorations its calls lead to spliced in (and
    /// whether there were some: a token's edges may then be apart, or repeated where ways
    /// of a nondeterministic PDA meet again).
    fn make(&mut self, key: (u32, u32)) -> Result<(Found, bool), PdaError> {
        let mut making = Making::default();
        let calls = self.pass(key, &mut making)?;
        for (node, run) in calls {
            self.splice((node | AFTER, run.state), run.own, &mut making)?;
        }
        let found = &mut making.found;
        found.below.sort_unstable();
        found.below.dedup();
        Ok((making.found, making.spliced))
    }

    /// Adds the exploration of `key` run under the pushes `own`: its results pushed over
    /// `own` (forced returns done), its returns below popping `own`'s top symbol going on
    /// there with the rest, those below `own` returns below `making`'s start.
    fn splice(&mut self, key: (u32, u32), own: u32, making: &mut Making) -> Result<(), PdaError> {
        let i = self.shared(key)? as usize;
        // Out while spliced: what it leads to has larger keys, never this one.
        let found = std::mem::take(&mut self.shared[i]);
        self.poll(found.edges.len() + found.results.len() + 1, key.1)?;
        let results: Vec<Option<u32>> = (found.results.iter())
            .map(|&r| self.over(own, r).map(|r| making.result(r)))
            .collect();
        (making.found.edges)
            .extend((found.edges.iter()).filter_map(|&(t, r)| results[r as usize].map(|r| (t, r))));
        making.spliced = true;
        let mut result = Ok(());
        for &(symbol, node, state) in &found.below {
            match self.stacks.top(own) {
                None => making.found.below.push((symbol, node, state)),
                Some(top) if top == symbol => {
                    let rest = self.stacks.pop(own);
                    result = self.splice((node, state), rest, making);
                }
                Some(_) => {}
            }
            if result.is_err() {
                break;
            }
        }
        self.shared[i] = found;
        result
    }

    /// The run `run` (of an exploration) with `own` under its own pushes.
    fn over(&mut self, own: u32, run: Run) -> Option<Run> {
        if run.own != 0 {
            let own = self.stacks.append(own, run.own);
            return Some(Run { own, ..run });
        }
        self.steps.forced_returns(&self.stacks, Run { own, ..run })
    }

    /// One preorder pass of `key`: records the tokens its runs end in `making` and its
    /// returns below; returns the calls, `(trie node, run)` for runs that pushed reading
    /// the node's byte, whose subtree it leaves to their exploration.
    fn pass(
        &mut self,
        (key, state): (u32, u32),
        making: &mut Making,
    ) -> Result<Vec<(u32, Run)>, PdaError> {
        let (steps, trie) = (self.steps, self.trie);
        let at = (key & !AFTER) as usize;
        let (base, first, end) = match (at, key & AFTER != 0) {
            (0, _) => (0, 1, trie.num_nodes()),
            (_, true) => (trie.node_depth(at), at + 1, trie.subtree_end(at)),
            (_, false) => (trie.node_depth(at) - 1, at, trie.subtree_end(at)),
        };
        let mut levels = std::mem::take(&mut self.levels);
        levels[base].clear();
        levels[base].push(Run { state, own: 0 });
        let mut calls = Vec::new();
        let mut below = Vec::new();
        let mut node = first;
        while node < end {
            let d = trie.node_depth(node);
            // One step per run advanced.
            if let Err(e) = self.poll(levels[d - 1].len().max(1), state) {
                self.levels = levels;
                return Err(e);
            }
            let (before, after) = levels.split_at_mut(d);
            let out = &mut after[0];
            out.clear();
            let byte = trie.node_byte(node);
            for &run in &before[d - 1] {
                below.clear();
                steps.advance(&mut self.stacks, run, byte, (&mut *out, &mut below));
                let found = &mut making.found.below;
                found.extend(below.iter().map(|&(s, next)| (s, node as u32, next)));
            }
            if steps.is_nondeterministic() {
                // Ways that met again are one run.
                out.sort_unstable();
                out.dedup();
            }
            self.record(node, out, making);
            // From the root, every run after the first byte: boundary states converge.
            let call = |r: &Run| r.own != 0 || (key == 0 && d == 1);
            calls.extend(out.iter().filter(|r| call(r)).map(|&r| (node as u32, r)));
            out.retain(|r| !call(r));
            node = match out.is_empty() {
                true => trie.subtree_end(node),
                false => node + 1,
            };
        }
        self.levels = levels;
        Ok(calls)
    }

    /// Records that each token of trie node `node` ends each of `runs` (a token's edges
    /// together).
    fn record(&self, node: usize, runs: &[Run], making: &mut Making) {
        let (trie, eos) = (self.trie, self.trie.eos_ids());
        let mut tokens = (trie.node_tokens(node).iter()).filter(|t| eos.binary_search(t).is_err());
        if runs.is_empty() || tokens.clone().next().is_none() {
            return;
        }
        let mut ids = std::mem::take(&mut making.ids);
        ids.clear();
        ids.extend(runs.iter().map(|&run| making.result(run)));
        for &t in &mut tokens {
            making.found.edges.extend(ids.iter().map(|&r| (t, r)));
        }
        making.ids = ids;
    }
}

/// Puts each token's edges together (tokens in order of first appearance), repeats
/// dropped: linear, with `slots` (zero per token, left so) as counts then places.
fn gather(edges: &mut Vec<(u32, u32)>, slots: &mut [u32]) {
    const PLACED: u32 = 1 << 31;
    for &(t, _) in edges.iter() {
        slots[t as usize] += 1;
    }
    let mut out = vec![(0, 0); edges.len()];
    let mut next = 0;
    for &(t, r) in edges.iter() {
        let slot = &mut slots[t as usize];
        if *slot & PLACED == 0 {
            let count = *slot;
            *slot = PLACED | next;
            next += count;
        }
        out[(*slot & !PLACED) as usize] = (t, r);
        *slot += 1;
    }
    for &(t, _) in edges.iter() {
        slots[t as usize] = 0;
    }
    for run in out.chunk_by_mut(|a, b| a.0 == b.0) {
        run.sort_unstable();
    }
    out.dedup();
    *edges = out;
}
