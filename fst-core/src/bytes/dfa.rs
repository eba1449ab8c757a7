//! Subset construction over byte classes, Hopcroft minimization, and dead-state removal.
//!
//! `^`/`\A` and `$`/`\z` are handled here rather than by rewriting the pattern: the
//! start state's epsilon closure may cross `Start` assertions (no byte read yet) and no
//! other closure may; `End` assertions are crossed only when deciding whether a state
//! accepts (the text ends there), never before reading a byte.

use crate::fast_hash::FastMap;

use super::nfa::{Nfa, State};
use super::{ByteDfaError, TerminalKind, DEAD};

/// A DFA straight out of the subset construction (or out of minimization): start state 0,
/// row-major `table[state * width() + column]`, `DEAD` for no transition. Columns are the
/// byte classes, then one per terminal (the NFA's terminals, in order): to the subset
/// construction and minimization a terminal is just another alphabet symbol.
#[derive(Debug)]
pub struct TableDfa {
    pub classes: [u8; 256],
    pub num_classes: usize,
    pub num_terminals: usize,
    pub table: Vec<u32>,
    pub accepting: Vec<bool>,
}

impl TableDfa {
    /// Columns per row: byte classes plus terminals.
    pub fn width(&self) -> usize {
        self.num_classes + self.num_terminals
    }
}

/// Byte classes from the NFA's byte ranges: bytes no range boundary separates always move
/// together. Classes are contiguous and numbered in byte order.
fn nfa_byte_classes<L>(nfa: &Nfa<L>) -> ([u8; 256], usize) {
    classes_from_boundaries(&nfa_boundaries(nfa))
}

/// `b` is marked when a byte range of the NFA starts at `b` or ends at `b - 1`.
pub fn nfa_boundaries<L>(nfa: &Nfa<L>) -> [bool; 257] {
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
struct Closer<'a, L> {
    nfa: &'a Nfa<L>,
    seen: Vec<u32>,
    gen: u32,
    stack: Vec<u32>,
    ends: Vec<u32>,
}

impl<'a, L> Closer<'a, L> {
    fn new(nfa: &'a Nfa<L>) -> Closer<'a, L> {
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
pub fn determinize<L>(
    nfa: &Nfa<L>,
    state_limit: usize,
    set_budget: usize,
) -> Result<TableDfa, ByteDfaError> {
    let (classes, num_classes) = nfa_byte_classes(nfa);
    let num_terminals = nfa.terminals.len();
    let k = num_classes + num_terminals;
    // The column of each terminal kind the NFA reads.
    let mut terminal_column = [0usize; TerminalKind::ALL.len()];
    for (i, &t) in nfa.terminals.iter().enumerate() {
        terminal_column[t as usize] = num_classes + i;
    }
    let mut closer = Closer::new(nfa);
    let mut ids: FastMap<Box<[u32]>, u32> = FastMap::default();
    let mut sets: Vec<Box<[u32]>> = Vec::new();
    let mut accepting: Vec<bool> = Vec::new();
    let mut table: Vec<u32> = Vec::new();
    let mut kernel = Vec::new();
    let mut key = Vec::new();
    let mut stored = 0usize;

    // The key is the kernel plus a trailing marker when accepting: two closures with
    // the same byte-reading states and the same acceptance have the same future.
    let mut intern = |kernel: &[u32],
                      acc: bool,
                      key: &mut Vec<u32>,
                      sets: &mut Vec<Box<[u32]>>,
                      accepting: &mut Vec<bool>|
     -> Result<u32, ByteDfaError> {
        key.clear();
        key.extend_from_slice(kernel);
        if acc {
            key.push(u32::MAX);
        }
        if let Some(&id) = ids.get(key.as_slice()) {
            return Ok(id);
        }
        if sets.len() >= state_limit {
            return Err(ByteDfaError::too_many_states(state_limit));
        }
        stored += kernel.len();
        if stored > set_budget {
            return Err(ByteDfaError::state_sets_too_large(state_limit, set_budget));
        }
        let id = sets.len() as u32;
        ids.insert(key.as_slice().into(), id);
        sets.push(kernel.into());
        accepting.push(acc);
        Ok(id)
    };

    let acc = closer.close(&[nfa.start], true, &mut kernel);
    intern(&kernel, acc, &mut key, &mut sets, &mut accepting)?;

    let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); k];
    let mut i = 0;
    while i < sets.len() {
        // A processed state's set is needed only as a map key, which owns a copy.
        let set = std::mem::take(&mut sets[i]);
        for b in &mut buckets {
            b.clear();
        }
        for &s in set.iter() {
            if let State::Terminal { kind, next } = nfa.states[s as usize] {
                buckets[terminal_column[kind as usize]].push(next);
            }
            for &(lo, hi, t) in nfa.byte_ranges(s) {
                for c in classes[lo as usize]..=classes[hi as usize] {
                    buckets[c as usize].push(t);
                }
            }
        }
        let row_start = table.len();
        table.resize(row_start + k, DEAD);
        for c in 0..k {
            if buckets[c].is_empty() {
                continue;
            }
            if c > 0 && buckets[c] == buckets[c - 1] {
                table[row_start + c] = table[row_start + c - 1];
                continue;
            }
            let acc = closer.close(&buckets[c], false, &mut kernel);
            if kernel.is_empty() && !acc {
                continue;
            }
            table[row_start + c] = intern(&kernel, acc, &mut key, &mut sets, &mut accepting)?;
        }
        i += 1;
    }
    Ok(TableDfa {
        classes,
        num_classes,
        num_terminals,
        table,
        accepting,
    })
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

/// Hopcroft's partition refinement on the partial DFA (Valmari and Lehtinen's variant):
/// states that cannot reach acceptance are dropped first, every initial block starts as
/// a splitter, and a splitter's incoming transitions are visited class by class. The cost
/// follows the transitions that exist, not states times classes: a Unicode pattern's
/// table is mostly `DEAD`. The result is renumbered breadth-first from the start, classes
/// in order, so output is canonical.
pub fn minimize(dfa: &TableDfa) -> TableDfa {
    let incoming = Incoming::new(dfa);
    let live = live_states(dfa, &incoming);
    if dfa.accepting.is_empty() || !live[0] {
        // Empty language: just a non-accepting start state.
        return TableDfa {
            classes: [0; 256],
            num_classes: 1,
            num_terminals: dfa.num_terminals,
            table: vec![DEAD; 1 + dfa.num_terminals],
            accepting: vec![false],
        };
    }
    let mut partition = Partition::new(&dfa.accepting, &live);
    partition.refine(&incoming, &live, dfa.width());
    partition.renumber(dfa)
}

/// No block: a state that cannot reach acceptance.
const NO_BLOCK: u32 = u32::MAX;

/// Incoming transitions by target, CSR: `(class, source)` pairs.
struct Incoming {
    offsets: Vec<u32>,
    pairs: Vec<(u32, u32)>,
}

impl Incoming {
    fn new(dfa: &TableDfa) -> Incoming {
        let k = dfa.width();
        let n = dfa.accepting.len();
        let mut offsets = vec![0u32; n + 1];
        for &t in dfa.table.iter().filter(|&&t| t != DEAD) {
            offsets[t as usize + 1] += 1;
        }
        for i in 1..offsets.len() {
            offsets[i] += offsets[i - 1];
        }
        let mut cursor = offsets.clone();
        let mut pairs = vec![(0u32, 0u32); offsets[n] as usize];
        for (s, row) in dfa.table.chunks_exact(k).enumerate() {
            for (c, &t) in row.iter().enumerate().filter(|&(_, &t)| t != DEAD) {
                pairs[cursor[t as usize] as usize] = (c as u32, s as u32);
                cursor[t as usize] += 1;
            }
        }
        Incoming { offsets, pairs }
    }

    /// The `(class, source)` pairs of the transitions into `t`.
    fn of(&self, t: u32) -> &[(u32, u32)] {
        &self.pairs[self.offsets[t as usize] as usize..self.offsets[t as usize + 1] as usize]
    }
}

/// Live states: those from which acceptance is reachable.
fn live_states(dfa: &TableDfa, incoming: &Incoming) -> Vec<bool> {
    let n = dfa.accepting.len();
    let mut live = dfa.accepting.clone();
    let mut stack: Vec<u32> = (0..n as u32).filter(|&s| live[s as usize]).collect();
    while let Some(t) = stack.pop() {
        for &(_, s) in incoming.of(t) {
            if !live[s as usize] {
                live[s as usize] = true;
                stack.push(s);
            }
        }
    }
    live
}

/// A block of the partition: the range `start..end` of `Partition::elems`, its marked
/// elements at the front.
struct Block {
    start: usize,
    end: usize,
    marked: usize,
}

/// The partition of the live states being refined, with its splitter worklist.
struct Partition {
    elems: Vec<u32>,
    /// The position of each state in `elems`.
    loc: Vec<usize>,
    blocks: Vec<Block>,
    /// The block of each state, `NO_BLOCK` for dead ones.
    blk: Vec<u32>,
    work: Vec<u32>,
    in_work: Vec<bool>,
}

impl Partition {
    /// Accepting and non-accepting live states, each block a splitter.
    fn new(accepting: &[bool], live: &[bool]) -> Partition {
        let n = accepting.len();
        let mut elems: Vec<u32> = (0..n as u32).filter(|&s| accepting[s as usize]).collect();
        let n_acc = elems.len();
        elems.extend((0..n as u32).filter(|&s| live[s as usize] && !accepting[s as usize]));
        let mut loc = vec![0usize; n];
        for (i, &s) in elems.iter().enumerate() {
            loc[s as usize] = i;
        }
        let mut p = Partition {
            loc,
            blocks: Vec::new(),
            blk: vec![NO_BLOCK; n],
            work: Vec::new(),
            in_work: Vec::new(),
            elems,
        };
        // Without an explicit sink, both initial blocks must be splitters.
        for (start, end) in [(0, n_acc), (n_acc, p.elems.len())] {
            if start < end {
                let b = p.blocks.len() as u32;
                p.blocks.push(Block {
                    start,
                    end,
                    marked: 0,
                });
                for &s in &p.elems[start..end] {
                    p.blk[s as usize] = b;
                }
                p.work.push(b);
                p.in_work.push(true);
            }
        }
        p
    }

    /// Splits blocks until no splitter is left. A splitter's sources are bucketed by class
    /// (a counting sort: no comparison sort) and each class splits the blocks it marks.
    fn refine(&mut self, incoming: &Incoming, live: &[bool], k: usize) {
        let mut sources: Vec<Vec<u32>> = vec![Vec::new(); k];
        let mut classes: Vec<u32> = Vec::new();
        let mut touched: Vec<u32> = Vec::new();
        while let Some(a) = self.work.pop() {
            self.in_work[a as usize] = false;
            let ab = &self.blocks[a as usize];
            for &t in &self.elems[ab.start..ab.end] {
                for &(c, s) in incoming.of(t).iter().filter(|&&(_, s)| live[s as usize]) {
                    let bucket = &mut sources[c as usize];
                    if bucket.is_empty() {
                        classes.push(c);
                    }
                    bucket.push(s);
                }
            }
            for c in classes.drain(..) {
                let mut bucket = std::mem::take(&mut sources[c as usize]);
                touched.clear();
                self.mark(&bucket, &mut touched);
                bucket.clear();
                sources[c as usize] = bucket;
                for &b in &touched {
                    self.split(b);
                }
            }
        }
    }

    /// Moves each state of `states` to the marked front of its block; `touched` gets the
    /// blocks that had none marked before.
    fn mark(&mut self, states: &[u32], touched: &mut Vec<u32>) {
        for &s in states {
            let b = self.blk[s as usize] as usize;
            let block = &mut self.blocks[b];
            let m = block.start + block.marked;
            let p = self.loc[s as usize];
            if p < m {
                continue;
            }
            let other = self.elems[m];
            self.elems.swap(p, m);
            self.loc[other as usize] = p;
            self.loc[s as usize] = m;
            block.marked += 1;
            if block.marked == 1 {
                touched.push(b as u32);
            }
        }
    }

    /// Splits block `b`'s marked front into a new block (unless all of it is marked) and
    /// queues a splitter: the new block if `b` is queued, else the smaller half.
    fn split(&mut self, b: u32) {
        let (start, end, marked) = {
            let block = &mut self.blocks[b as usize];
            let r = (block.start, block.end, block.marked);
            block.marked = 0;
            r
        };
        if marked == end - start {
            return;
        }
        let nb = self.blocks.len() as u32;
        self.blocks.push(Block {
            start,
            end: start + marked,
            marked: 0,
        });
        self.blocks[b as usize].start = start + marked;
        for &s in &self.elems[start..start + marked] {
            self.blk[s as usize] = nb;
        }
        self.in_work.push(false);
        if self.in_work[b as usize] {
            self.work.push(nb);
            self.in_work[nb as usize] = true;
        } else {
            let smaller = if marked <= end - start - marked {
                nb
            } else {
                b
            };
            self.work.push(smaller);
            self.in_work[smaller as usize] = true;
        }
    }

    /// The quotient DFA, states numbered breadth-first from the start, classes in order.
    fn renumber(&self, dfa: &TableDfa) -> TableDfa {
        let k = dfa.width();
        let mut new_id = vec![DEAD; self.blocks.len()];
        let mut order: Vec<u32> = vec![self.blk[0]];
        new_id[self.blk[0] as usize] = 0;
        let mut table = Vec::new();
        let mut accepting = Vec::new();
        let mut i = 0;
        while i < order.len() {
            let b = order[i] as usize;
            let rep = self.elems[self.blocks[b].start] as usize;
            accepting.push(dfa.accepting[rep]);
            for &t in &dfa.table[rep * k..(rep + 1) * k] {
                let tb = if t == DEAD {
                    NO_BLOCK
                } else {
                    self.blk[t as usize]
                };
                if tb == NO_BLOCK {
                    table.push(DEAD);
                    continue;
                }
                if new_id[tb as usize] == DEAD {
                    new_id[tb as usize] = order.len() as u32;
                    order.push(tb);
                }
                table.push(new_id[tb as usize]);
            }
            i += 1;
        }
        TableDfa {
            classes: dfa.classes,
            num_classes: dfa.num_classes,
            num_terminals: dfa.num_terminals,
            table,
            accepting,
        }
    }
}
