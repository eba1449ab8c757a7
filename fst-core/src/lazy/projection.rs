//! The vocabulary trie projected onto one byte partition: every byte replaced by its
//! class, equal class strings merged. A machine whose states read by the partition reads
//! a token exactly as it reads the token's class string, so its walk from a state visits
//! the projection's entries instead of the byte trie's nodes: a string body's partition
//! (quote, backslash, control bytes, the rest of ASCII, UTF-8 roles) folds Llama 3's 275k
//! nodes into a few thousand entries. Projections are made once per process, vocabulary
//! and partition ([`of`]): the coarsest from the trie's own fold by [`COARSE`], every other
//! by merging that one's entries; states that tell letters apart (a key machine's first state,
//! an escape's hexadecimal digits) are not walked over one (see [`Plan`]).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use crate::bytes::{ByteDfa, DEAD};
use crate::fast_hash::FastMap;
use crate::vocab::level_trie::COARSE;
use crate::vocab::VocabTrie;

use super::leaf::{leaf_walk_below, LeafWalk};
use super::state::StateInfo;

/// A projection is kept only when it has at most this fraction of the trie's nodes (a
/// walk of it then costs at most this fraction of a byte-trie walk).
const MAX_ENTRY_FRACTION: usize = 16;

/// ... or at most this many entries (a walk of so few costs microseconds either way).
const MIN_ENTRY_LIMIT: usize = 256;

/// Bytes of projections kept per process; past it, they are dropped and made again.
const MAX_KEPT_BYTES: usize = 64 << 20;

/// The trie projected onto a partition; entry 0 is the root, every entry comes after its
/// parent.
#[derive(Debug)]
pub(super) struct Projection {
    parent: Vec<u32>,
    /// The class on the edge into each entry.
    class: Vec<u8>,
    below: Below,
    /// Per entry: what adding or removing its tokens costs (their number, or for an
    /// entry with a bitset, its words).
    cost: Vec<u32>,
    /// Per entry: its index in `sets`, or `u32::MAX`.
    set_of: Vec<u32>,
    /// The tokens of the entries spelled by most tokens, as bitsets: a string body's
    /// projection holds most of the vocabulary in a few entries (runs of letters), and
    /// a walk then ORs a few bitsets instead of setting a hundred thousand bits.
    sets: Vec<Box<[u32]>>,
}

/// An entry spelled by at least a `1 / HEAVY_FRACTION` of the text tokens keeps them as a
/// bitset (so at most this many bitsets per projection).
const HEAVY_FRACTION: usize = 32;

/// What each entry of a projection stands for.
#[derive(Debug)]
enum Below {
    /// The byte-trie nodes projected on each entry, and the tokens spelling them.
    Nodes {
        nodes: Lists,
        tokens: Lists,
        /// The text tokens, as a bitset of the vocabulary's width.
        text_tokens: Box<[u32]>,
    },
    /// The entries of a finer projection merged into each entry.
    Finer {
        units: Lists,
        finer: Arc<Projection>,
    },
}

/// One list of ids per entry, back to back.
#[derive(Debug)]
struct Lists {
    /// Entry `e`'s list is `items[start[e]..start[e + 1]]`.
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Lists {
    fn of(&self, e: usize) -> &[u32] {
        &self.items[self.start[e] as usize..self.start[e + 1] as usize]
    }
}

/// Projection entries made from `(parent entry, class)` pairs given parents first, with
/// a dense table of children.
struct Folder {
    parent: Vec<u32>,
    class: Vec<u8>,
    children: Vec<u32>,
    classes: usize,
}

impl Folder {
    fn new(classes: usize) -> Folder {
        Folder {
            parent: vec![0],
            class: vec![0],
            children: vec![u32::MAX; classes],
            classes,
        }
    }

    /// The child of `up` by `class`, made if new.
    fn child(&mut self, up: u32, class: u8) -> u32 {
        let i = up as usize * self.classes + class as usize;
        if self.children[i] == u32::MAX {
            self.children[i] = self.parent.len() as u32;
            self.parent.push(up);
            self.class.push(class);
            self.children
                .resize(self.children.len() + self.classes, u32::MAX);
        }
        self.children[i]
    }
}

/// Items grouped by entry: `items(i, f)` calls `f` with the items of source `i`, which
/// go to entry `entry_of[i]` (`u32::MAX`: to none).
fn group_by_entry(
    entries: usize,
    entry_of: &[u32],
    items: impl Fn(usize, &mut dyn FnMut(u32)),
) -> Lists {
    let mut start = vec![0u32; entries + 1];
    for (i, &e) in entry_of.iter().enumerate() {
        if e != u32::MAX {
            items(i, &mut |_| start[e as usize + 1] += 1);
        }
    }
    for e in 0..entries {
        start[e + 1] += start[e];
    }
    let mut out = vec![0u32; start[entries] as usize];
    let mut next = start.clone();
    for (i, &e) in entry_of.iter().enumerate() {
        if e != u32::MAX {
            items(i, &mut |x| {
                out[next[e as usize] as usize] = x;
                next[e as usize] += 1;
            });
        }
    }
    Lists { start, items: out }
}

impl Projection {
    /// The projection of `trie`'s nodes onto [`COARSE`]: the trie's own coarse fold
    /// (made with the trie, in level order, so parents come first) with the nodes and
    /// tokens of each entry.
    fn from_trie(trie: &VocabTrie) -> Projection {
        let coarse = &trie.folded_levels[0];
        let mut entry_of_node = trie.coarse_of_node.clone();
        entry_of_node[0] = u32::MAX; // the root spells nothing
        let entries = coarse.len();
        let nodes = group_by_entry(entries, &entry_of_node, |i, f| f(i as u32));
        let tokens = group_by_entry(entries, &entry_of_node, |i, f| {
            trie.node_tokens(i).iter().for_each(|&t| f(t))
        });
        Projection::with_sets(
            coarse.parent.clone(),
            coarse.symbol.clone(),
            Below::Nodes {
                nodes,
                tokens,
                text_tokens: trie.text_token_mask(None).into_boxed_slice(),
            },
        )
    }

    /// The projection of `finer`'s entries onto a coarser partition, `class_of[c]` being
    /// the class (of `classes`) of `finer`'s class `c`.
    fn from_finer(finer: &Arc<Projection>, class_of: &[u8], classes: usize) -> Projection {
        let mut folder = Folder::new(classes);
        let mut entry_of_unit = vec![0u32; finer.parent.len()];
        for u in 1..finer.parent.len() {
            let up = entry_of_unit[finer.parent[u] as usize];
            let class = class_of[finer.class[u] as usize];
            entry_of_unit[u] = folder.child(up, class);
        }
        entry_of_unit[0] = u32::MAX; // the root spells nothing
        let entries = folder.parent.len();
        let units = group_by_entry(entries, &entry_of_unit, |i, f| f(i as u32));
        Projection::with_sets(
            folder.parent,
            folder.class,
            Below::Finer {
                units,
                finer: Arc::clone(finer),
            },
        )
    }

    /// The projection of entries `parent` and `class` standing for `below`, with its
    /// costs and bitsets.
    fn with_sets(parent: Vec<u32>, class: Vec<u8>, below: Below) -> Projection {
        let entries = parent.len();
        let mut p = Projection {
            parent,
            class,
            below,
            cost: vec![0; entries],
            set_of: vec![u32::MAX; entries],
            sets: Vec::new(),
        };
        let words = p.text_tokens().len();
        let heavy = (p
            .text_tokens()
            .iter()
            .map(|w| w.count_ones() as usize)
            .sum::<usize>()
            / HEAVY_FRACTION)
            .max(words);
        for e in 1..entries {
            let mut count = 0u32;
            p.for_tokens(e, &mut |_| count += 1);
            p.cost[e] = count;
            if count as usize >= heavy {
                let mut set = vec![0u32; words].into_boxed_slice();
                p.for_tokens(e, &mut |t| set[(t / 32) as usize] |= 1 << (t % 32));
                p.set_of[e] = p.sets.len() as u32;
                p.sets.push(set);
                p.cost[e] = words as u32;
            }
        }
        p
    }

    /// The text tokens, as a bitset of the vocabulary's width.
    fn text_tokens(&self) -> &[u32] {
        match &self.below {
            Below::Nodes { text_tokens, .. } => text_tokens,
            Below::Finer { finer, .. } => finer.text_tokens(),
        }
    }

    /// Calls `f` with each token spelling entry `e`.
    fn for_tokens(&self, e: usize, f: &mut impl FnMut(u32)) {
        match &self.below {
            Below::Nodes { tokens, .. } => tokens.of(e).iter().for_each(|&t| f(t)),
            Below::Finer { units, finer } => {
                (units.of(e).iter()).for_each(|&u| finer.for_tokens(u as usize, f))
            }
        }
    }

    /// Calls `f` with each byte-trie node projected on entry `e`.
    fn for_nodes(&self, e: usize, f: &mut impl FnMut(u32)) {
        match &self.below {
            Below::Nodes { nodes, .. } => nodes.of(e).iter().for_each(|&n| f(n)),
            Below::Finer { units, finer } => {
                (units.of(e).iter()).for_each(|&u| finer.for_nodes(u as usize, f))
            }
        }
    }

    /// Bytes held (a finer projection's aside).
    fn size(&self) -> usize {
        let lists = match &self.below {
            Below::Nodes { nodes, tokens, .. } => {
                2 * self.parent.len() + nodes.items.len() + tokens.items.len()
            }
            Below::Finer { units, .. } => self.parent.len() + units.items.len(),
        };
        13 * self.parent.len() + 4 * lists + self.sets.iter().map(|x| 4 * x.len()).sum::<usize>()
    }

    /// `dfa`'s walk from its state `s` as `plan` says: the same tokens and return nodes
    /// as `leaf::leaf_walk` over the byte trie.
    fn walk(
        &self,
        dfa: &ByteDfa,
        s: u32,
        plan: &Plan,
        splits: &[bool],
        trie: &VocabTrie,
    ) -> LeafWalk {
        let (table, k) = (dfa.transitions(), dfa.num_classes());
        let entries = self.parent.len();
        let mut state = vec![DEAD; entries];
        state[0] = s;
        let (mut returns, mut barriers) = (Vec::new(), Vec::new());
        for e in 1..entries {
            let up = self.parent[e] as usize;
            let from = state[up];
            if from == DEAD {
                continue;
            }
            // As in the byte walk, returns start one byte in.
            if up != 0 && dfa.is_accepting(from) {
                returns.push(e);
            }
            let to = table[from as usize * k + plan.dfa_class[self.class[e] as usize] as usize];
            match to {
                DEAD => {}
                _ if splits[to as usize] => barriers.push((e, from)),
                _ => state[e] = to,
            }
        }
        let mut words = self.tokens_read(&state);
        let mut after_return = vec![Vec::new(); 256];
        for e in returns {
            self.for_nodes(e, &mut |node| {
                after_return[trie.node_byte(node as usize) as usize].push(node)
            });
        }
        // Below a barrier, byte by byte (its entry's tokens are not in `words` yet).
        let mut read = |ids: &[u32]| {
            for &t in ids {
                words[(t / 32) as usize] |= 1 << (t % 32);
            }
        };
        for (e, from) in barriers {
            let mut nodes = Vec::new();
            self.for_nodes(e, &mut |node| nodes.push(node as usize));
            for node in nodes {
                if let Some(to) = dfa.next(from, trie.node_byte(node)) {
                    read(trie.node_tokens(node));
                    leaf_walk_below(dfa, (node, to), trie, &mut read, &mut after_return);
                }
            }
        }
        LeafWalk::new(
            StateInfo::from_words(words, trie.vocab_size() as u32),
            after_return,
        )
    }

    /// The tokens of the entries a walk reached (`state` not dead), as a bitset: set
    /// from the empty set or cleared from the text tokens, whichever touches fewer.
    fn tokens_read(&self, state: &[u32]) -> Box<[u32]> {
        let entries = self.parent.len();
        let (mut to_set, mut to_clear) = (0usize, 0usize);
        for (&q, &cost) in state.iter().zip(&self.cost).skip(1) {
            match q {
                DEAD => to_clear += cost as usize,
                _ => to_set += cost as usize,
            }
        }
        let set = to_set <= to_clear;
        let mut words = match set {
            true => vec![0u32; self.text_tokens().len()],
            false => self.text_tokens().to_vec(),
        };
        for e in (1..entries).filter(|&e| (state[e] != DEAD) == set) {
            match (self.set_of[e], set) {
                (u32::MAX, true) => {
                    self.for_tokens(e, &mut |t| words[(t / 32) as usize] |= 1 << (t % 32))
                }
                (u32::MAX, false) => {
                    self.for_tokens(e, &mut |t| words[(t / 32) as usize] &= !(1 << (t % 32)))
                }
                (i, true) => {
                    (words.iter_mut().zip(self.sets[i as usize].iter())).for_each(|(w, x)| *w |= x)
                }
                (i, false) => {
                    (words.iter_mut().zip(self.sets[i as usize].iter())).for_each(|(w, x)| *w &= !x)
                }
            }
        }
        words.into_boxed_slice()
    }
}

/// What the projected walks of one machine share, made once per machine: its splitting
/// states and, for a large machine, one plan for all its states.
#[derive(Debug)]
pub(super) struct MachinePlans {
    /// Per state: whether it tells apart two bytes of one class of [`COARSE`].
    splits: Vec<bool>,
    /// For a machine of more than [`WHOLE_PLAN_STATES`] states: the plan over all its
    /// states that do not split.
    whole: Option<Plan>,
}

/// Machines with more states than this get one plan for every state: a plan's cost grows
/// with the states a walk reaches (a string counted to thousands of characters reaches
/// thousands from each state, 1–2 ms a plan), while a plan over all states is as exact
/// for each, only finer when the states disagree on classes.
const WHOLE_PLAN_STATES: usize = 64;

impl MachinePlans {
    pub(super) fn new(dfa: &ByteDfa) -> MachinePlans {
        MachinePlans::with_whole_plan_above(dfa, WHOLE_PLAN_STATES)
    }

    /// The plans of `dfa`, with a whole plan if it has more than `states` states.
    fn with_whole_plan_above(dfa: &ByteDfa, states: usize) -> MachinePlans {
        let splits = splitting_states(dfa);
        let whole = (dfa.num_states() > states).then(|| {
            let reached: Vec<u32> = (0..dfa.num_states() as u32)
                .filter(|&q| !splits[q as usize])
                .collect();
            Plan::over(dfa, &splits, &reached)
        });
        MachinePlans { splits, whole }
    }

    /// `dfa`'s walk from `s` over the projection of `trie` onto the byte partition its
    /// states read by, if `s` reads by a partition coarser than [`COARSE`] and that
    /// projection pays (see [`of`]): the machine's whole plan's when it has one and that
    /// projection pays, else the plan of the states `s` reaches.
    pub(super) fn walk(&self, trie: &VocabTrie, dfa: &ByteDfa, s: u32) -> Option<LeafWalk> {
        if self.splits[s as usize] {
            return None;
        }
        if let Some(plan) = &self.whole {
            if let Some(projection) = of(trie, &plan.partition) {
                return Some(projection.walk(dfa, s, plan, &self.splits, trie));
            }
        }
        let plan = Plan::from_state(dfa, &self.splits, s);
        let projection = of(trie, &plan.partition)?;
        Some(projection.walk(dfa, s, &plan, &self.splits, trie))
    }
}

/// How a machine's walk from a state goes over a projection.
///
/// A state *splits* when it tells apart two bytes of one class of [`COARSE`] (the
/// letters of a property name, the hexadecimal digits after `\u`). From a state that
/// does not, the walk follows the states reachable without entering one that splits
/// (a string's body, not its escapes): their partition is coarser than [`COARSE`] and
/// the walk goes over its projection; a byte into a splitting state (the backslash) is a
/// *barrier*, below which the walk goes on over the byte trie, node by node.
#[derive(Debug)]
pub(super) struct Plan {
    /// Classes merged where the states reached agree (a barrier's targets count as one).
    partition: [u8; 256],
    /// A machine class for each class of `partition`.
    dfa_class: Vec<u8>,
}

impl Plan {
    /// The plan of `dfa`'s walk from `s`, which does not split (`splits` being the
    /// machine's splitting states): over the states it reaches without a splitting one.
    fn from_state(dfa: &ByteDfa, splits: &[bool], s: u32) -> Plan {
        let (table, k) = (dfa.transitions(), dfa.num_classes());
        let mut seen = vec![false; dfa.num_states()];
        let (mut reached, mut stack) = (Vec::new(), vec![s]);
        seen[s as usize] = true;
        while let Some(q) = stack.pop() {
            reached.push(q);
            for &t in &table[q as usize * k..(q as usize + 1) * k] {
                if t != DEAD
                    && !splits[t as usize]
                    && !std::mem::replace(&mut seen[t as usize], true)
                {
                    stack.push(t);
                }
            }
        }
        Plan::over(dfa, splits, &reached)
    }

    /// The plan for walks that stay in `reached` (states that do not split) but for
    /// barriers: classes with equal columns over those states are one.
    fn over(dfa: &ByteDfa, splits: &[bool], reached: &[u32]) -> Plan {
        let (table, k) = (dfa.transitions(), dfa.num_classes());
        let mut group_of_column: FastMap<Vec<u32>, u8> = FastMap::default();
        let group: Vec<u8> = (0..k)
            .map(|c| {
                let column = (reached.iter())
                    .map(|&q| match table[q as usize * k + c] {
                        t if t != DEAD && splits[t as usize] => DEAD - 1,
                        t => t,
                    })
                    .collect();
                let next = group_of_column.len() as u8;
                *group_of_column.entry(column).or_insert(next)
            })
            .collect();
        let mut partition_of_group = vec![u8::MAX; group_of_column.len()];
        let (mut partition, mut dfa_class) = ([0u8; 256], Vec::new());
        for (b, &c) in dfa.byte_classes().iter().enumerate() {
            let g = group[c as usize] as usize;
            if partition_of_group[g] == u8::MAX {
                partition_of_group[g] = dfa_class.len() as u8;
                dfa_class.push(c);
            }
            partition[b] = partition_of_group[g];
        }
        Plan {
            partition,
            dfa_class,
        }
    }
}

/// Per state of `dfa`: whether it tells apart two bytes of one class of [`COARSE`].
fn splitting_states(dfa: &ByteDfa) -> Vec<bool> {
    let (table, k) = (dfa.transitions(), dfa.num_classes());
    // The machine's classes that share a coarse class with another: (first, other).
    let mut first_of_coarse = [u8::MAX; 256];
    let mut pairs = Vec::new();
    for (b, &c) in dfa.byte_classes().iter().enumerate() {
        let coarse = COARSE.class_of_byte[b] as usize;
        match first_of_coarse[coarse] {
            u8::MAX => first_of_coarse[coarse] = c,
            f if f != c => pairs.push((f as usize, c as usize)),
            _ => {}
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    (0..dfa.num_states())
        .map(|q| {
            let row = &table[q * k..(q + 1) * k];
            pairs.iter().any(|&(a, b)| row[a] != row[b])
        })
        .collect()
}

/// (vocabulary fingerprint, vocabulary size, partition).
type Key = (u64, usize, [u8; 256]);

/// The projections kept, the partitions found not to fold the trie enough to pay, and
/// the bytes held.
#[derive(Default)]
struct Table {
    built: HashMap<Key, Arc<Projection>>,
    refused: HashSet<Key>,
    bytes: usize,
}

/// Most partitions remembered as not paying (a key each).
const MAX_REFUSED: usize = 1 << 14;

fn table() -> &'static Mutex<Table> {
    static PROJECTIONS: OnceLock<Mutex<Table>> = OnceLock::new();
    PROJECTIONS.get_or_init(Mutex::default)
}

/// The projection of `trie` onto `partition`, made on the first request for it (from
/// the coarse projection when the partition merges its classes); `None` when the
/// partition does not fold the trie enough to pay.
pub(super) fn of(trie: &VocabTrie, partition: &[u8; 256]) -> Option<Arc<Projection>> {
    let key = (trie.fingerprint(), trie.vocab_size(), *partition);
    {
        // A poisoned lock only means another thread panicked mid-insert; entries are whole.
        let known = table().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = known.built.get(&key) {
            return Some(Arc::clone(p));
        }
        if known.refused.contains(&key) {
            return None;
        }
    }
    let built = build(trie, partition);
    let mut known = table().lock().unwrap_or_else(|e| e.into_inner());
    match &built {
        Some(p) => {
            if known.bytes + p.size() > MAX_KEPT_BYTES {
                known.built.clear();
                known.bytes = 0;
            }
            known.bytes += p.size();
            known.built.insert(key, Arc::clone(p));
        }
        None => {
            if known.refused.len() >= MAX_REFUSED {
                known.refused.clear();
            }
            known.refused.insert(key);
        }
    }
    built
}

/// A new projection of `trie` onto `partition`, if it pays: the coarse partition's from
/// the trie's coarse fold (at any size), a coarser one's from the coarse projection.
fn build(trie: &VocabTrie, partition: &[u8; 256]) -> Option<Arc<Projection>> {
    if *partition == COARSE.class_of_byte {
        return Some(Arc::new(Projection::from_trie(trie)));
    }
    let classes = *partition.iter().max().expect("256 bytes") as usize + 1;
    let of_coarse = COARSE.classes_of(partition)?;
    let coarse = of(trie, &COARSE.class_of_byte)?;
    let p = Projection::from_finer(&coarse, &of_coarse, classes);
    (p.parent.len() <= (trie.num_nodes() / MAX_ENTRY_FRACTION).max(MIN_ENTRY_LIMIT))
        .then(|| Arc::new(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::Algebra;
    use crate::lazy::leaf::leaf_walk;
    use crate::vocab::ByteVocabulary;
    use proptest::prelude::*;

    fn tokens(w: &LeafWalk, vocab_size: u32) -> Vec<u32> {
        let mut words = vec![0u32; (vocab_size as usize).div_ceil(32)];
        w.tokens().write(&mut words);
        (0..vocab_size)
            .filter(|&t| words[t as usize / 32] & 1 << (t % 32) != 0)
            .collect()
    }

    fn returns(w: &LeafWalk) -> Vec<Vec<u32>> {
        let mut r = w.after_return().to_vec();
        r.iter_mut().for_each(|v| v.sort_unstable());
        r
    }

    /// Every state's projected walk (where it has one) equals its walk of the byte trie,
    /// with plans by state and with one plan for the whole machine; returns how many
    /// states had one by state.
    fn check_every_state(dfa: &ByteDfa, words: &[&str]) -> Result<usize, TestCaseError> {
        let trie = VocabTrie::new(&ByteVocabulary::from_strs(words));
        let n = trie.vocab_size() as u32;
        let mut projected = 0;
        let by_state = MachinePlans::with_whole_plan_above(dfa, usize::MAX);
        let whole = MachinePlans::with_whole_plan_above(dfa, 0);
        for s in 0..dfa.num_states() as u32 {
            let own = leaf_walk(dfa, s, &trie, n);
            for (plans, name) in [(&by_state, "by state"), (&whole, "whole")] {
                let Some(walk) = plans.walk(&trie, dfa, s) else {
                    continue;
                };
                projected += usize::from(name == "by state");
                prop_assert_eq!(tokens(&walk, n), tokens(&own, n), "state {} {}", s, name);
                prop_assert_eq!(returns(&walk), returns(&own), "state {} {}", s, name);
            }
        }
        Ok(projected)
    }

    /// A JSON string's body after its opening quote, with escapes and `\u` hexadecimal.
    fn json_string_body() -> ByteDfa {
        let mut edges = vec![
            (0, 0x20, 0x21, 0),
            (0, b'"', b'"', 6),
            (0, 0x23, 0x5b, 0),
            (0, b'\\', b'\\', 1),
            (0, 0x5d, 0x7e, 0),
            (0, 0xc2, 0xdf, 7),
            (7, 0x80, 0xbf, 0),
            (1, b'u', b'u', 2),
        ];
        for b in [b'"', b'\\', b'/', b'b', b'f', b'n', b'r', b't'] {
            edges.push((1, b, b, 0));
        }
        for (from, to) in [(2, 3), (3, 4), (4, 5), (5, 0)] {
            edges.extend([
                (from, b'0', b'9', to),
                (from, b'a', b'f', to),
                (from, b'A', b'F', to),
            ]);
        }
        let accepting = [false, false, false, false, false, false, true, false];
        Algebra::new().from_edges(&edges, &accepting).unwrap()
    }

    /// The body of a string projects (its escapes are barriers walked byte by byte) and
    /// gives the byte walk's tokens and returns, escapes, quotes inside tokens and
    /// multi-byte characters included.
    #[test]
    fn a_string_body_walks_over_its_projection_as_over_the_trie() {
        let dfa = json_string_body();
        let words = [
            "a",
            "ab",
            "hello",
            " world",
            "\"",
            "\",",
            "x\"}",
            "\\",
            "\\n",
            "\\u",
            "\\u00",
            "\\u00e9",
            "\\uzz",
            "\\q",
            "é",
            "\u{e9}t\u{e9}",
            "\\\"",
            "a\\nb",
            "\"\"",
            "9f",
            "\n",
        ];
        let projected = check_every_state(&dfa, &words).unwrap();
        assert!(projected >= 1, "the body state must project");
        let trie = VocabTrie::new(&ByteVocabulary::from_strs(&words));
        let plans = MachinePlans::new(&dfa);
        assert!(plans.walk(&trie, &dfa, dfa.start()).is_some());
    }

    proptest! {
        /// Random DFAs over bytes that split coarse classes (`a` against `b`), quotes,
        /// backslashes and a two-byte character, over random vocabularies: every
        /// projected walk equals the byte walk.
        #[test]
        fn projected_walks_equal_byte_walks(
            edges in proptest::collection::vec((0u32..6, 0usize..8, 0usize..8, 0u32..6), 1..30),
            accepting in proptest::collection::vec(any::<bool>(), 6),
            words in proptest::collection::vec("[abx\"\\\\ é]{1,6}", 1..60),
        ) {
            let palette = [b' ', b'"', b'\\', b'a', b'b', b'x', 0xa9, 0xc3];
            let edges: Vec<_> = edges
                .iter()
                .map(|&(f, i, j, t)| (f, palette[i.min(j)], palette[i.max(j)], t))
                .collect();
            let dfa = Algebra::new().from_edges(&edges, &accepting).unwrap();
            let strs: Vec<&str> = words.iter().map(String::as_str).collect();
            check_every_state(&dfa, &strs)?;
        }
    }
}
