//! The byte side of a lazy automaton over a [`CallNetwork`]: states of the inlined DFA,
//! built as walks reach them.
//!
//! A configuration is a stack of frames (machine, state), the top one reading; a stack
//! is interned as its top frame, whose parent is the rest, so equal stacks are one id and
//! stacks share their bottoms. A *flat state* is the set of stacks ready to read a byte
//! after following calls (push the callee's start over the return state) and returns
//! (pop to the caller's return state), plus whether some stack could pop everything (the
//! text may end). Stepping a flat state by a byte steps each stack's top and closes the
//! result again. This is the subset construction of the network's inlined NFA, done on
//! demand: nothing is built for states no walk reaches.
//!
//! Every stack is live: each machine is a trimmed DFA accepting some text and every callee
//! accepts some text, so any stack can finish. Token-level liveness then holds when every
//! byte the machines read is a single-byte token (`LazyAutomaton::with_calls` checks it).

use std::sync::Arc;

use crate::bytes::{ByteDfa, CallNetwork};
use crate::fast_hash::FastMap;
use crate::vocab::VocabTrie;

use super::bound::Work;
use super::leaf::{leaf_walk, leaf_walk_beside, LeafWalk, Meets};
use super::projection::MachinePlans;
use super::shared;
use super::state::{walk, walk_below, StateInfo, NO_STATE};
use super::wildcard::Wildcards;

/// No parent frame: the bottom of a stack.
const BOTTOM: u32 = u32::MAX;
/// A row entry not computed yet (`NO_STATE` is a dead end).
const UNKNOWN: u32 = u32::MAX - 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Frame {
    machine: u32,
    state: u32,
    parent: u32,
}

/// The flat states built so far and their token sets; see the module documentation.
#[derive(Debug)]
pub(super) struct Expansion {
    network: Arc<CallNetwork>,
    /// Representative byte of each class of the network.
    representative: Vec<u8>,
    frames: Vec<Frame>,
    frame_ids: FastMap<Frame, u32>,
    /// Per flat state: its ready stacks (sorted).
    ready: Vec<Box<[u32]>>,
    accepting: Vec<bool>,
    /// Key: accepting flag then the ready stacks.
    state_ids: FastMap<Box<[u32]>, u32>,
    /// `rows[state * classes + class]`: `UNKNOWN`, `NO_STATE` or the target.
    rows: Vec<u32>,
    cache: Vec<Option<Arc<StateInfo>>>,
    /// Visit marks of the closure, by stack id (generation-stamped).
    marks: Vec<u32>,
    generation: u32,
    /// Walks of the trie by one machine without calls, by (machine, state).
    leaf_walks: FastMap<(u32, u32), Arc<LeafWalk>>,
    /// Each machine's hash for the process-wide walks ([`super::shared`]), once asked for.
    machine_hashes: Vec<Option<u64>>,
    /// Each machine's plans for projected walks, once asked for.
    machine_plans: Vec<Option<Arc<MachinePlans>>>,
    /// Per machine: a state with its walk, beside which other states' walks are made
    /// ([`leaf_walk_beside`]).
    references: FastMap<u32, Reference>,
    /// The bound on the composition under way ([`super::bound`]).
    pub(super) work: Work,
    /// The free texts whose states take their tokens from precomputed sets.
    pub(super) wildcards: Wildcards,
}

/// Most stacks of a flat state whose tokens are found stack by stack (past it, one walk
/// of the trie for all of them).
const MAX_SPLIT_STACKS: usize = 16;

/// A machine's state with its walk, beside which its other states' walks are made.
#[derive(Debug)]
struct Reference {
    state: u32,
    walk: Arc<LeafWalk>,
    /// Which pairs of the machine's states are alike how deep, as found so far.
    meets: Meets,
    /// Walks beside it (or beside the reference before it) that gave up in a row.
    misses: u32,
    /// Whether its walk was made over a projection (it then stays the reference).
    projected: bool,
}

impl Reference {
    /// `walk`, the walk of `dfa` from `state`, as the machine's reference.
    fn new(dfa: &ByteDfa, state: u32, walk: Arc<LeafWalk>, misses: u32) -> Reference {
        Reference {
            state,
            walk,
            meets: Meets::new(dfa, dfa, true),
            misses,
            projected: false,
        }
    }

    fn projected(self) -> Reference {
        Reference {
            projected: true,
            ..self
        }
    }
}

/// A walk beside a machine's reference walk gives up past this fraction of the trie's
/// nodes (a walk of its own then costs little more than what was spent). On the bench
/// corpus's instances (Llama 3, one process), 1/16 gave a mask p99 of 220 µs, 1/8 257 µs,
/// 1/4 400 µs, 1/32 241 µs: a walk that passes 1/16 mostly goes on to miss.
const BESIDE_FRACTION: usize = 16;

/// A walk beside another machine's gives up past this fraction of the trie's nodes
/// (several such machines may be tried before a walk of its own).
const CROSS_FRACTION: usize = 32;

/// Walks beside a machine's reference that may give up in a row before the machine stops
/// trying (its states are too unlike for walks beside each other to pay).
const MAX_REFERENCE_MISSES: u32 = 2;

/// Most leaf walks an expansion keeps (each up to a bitset and a list of trie nodes);
/// past it they are made again when needed.
const MAX_LEAF_WALKS: usize = 64;

impl Expansion {
    /// The expansion of `network` with its start state (flat state 0) built.
    pub(super) fn new(network: Arc<CallNetwork>) -> Expansion {
        let mut representative = vec![0u8; network.num_classes()];
        for b in (0..256).rev() {
            representative[network.byte_classes()[b] as usize] = b as u8;
        }
        let mut e = Expansion {
            network,
            representative,
            frames: Vec::new(),
            frame_ids: FastMap::default(),
            ready: Vec::new(),
            accepting: Vec::new(),
            state_ids: FastMap::default(),
            rows: Vec::new(),
            cache: Vec::new(),
            marks: Vec::new(),
            generation: 0,
            leaf_walks: FastMap::default(),
            machine_hashes: Vec::new(),
            machine_plans: Vec::new(),
            references: FastMap::default(),
            work: Work::new(),
            wildcards: Wildcards::default(),
        };
        let root = e.network.root();
        let root = e.frame(root, e.network.machine(root).start(), BOTTOM);
        let start = e.close(vec![root]);
        debug_assert_eq!(start, 0);
        e
    }

    pub(super) fn class_of_byte(&self) -> &[u8; 256] {
        self.network.byte_classes()
    }

    pub(super) fn num_states(&self) -> usize {
        self.ready.len()
    }

    pub(super) fn num_cached(&self) -> usize {
        self.cache.iter().filter(|c| c.is_some()).count()
    }

    pub(super) fn is_accepting(&self, state: u32) -> bool {
        self.accepting[state as usize]
    }

    fn frame(&mut self, machine: u32, state: u32, parent: u32) -> u32 {
        let f = Frame {
            machine,
            state,
            parent,
        };
        let next = self.frames.len() as u32;
        *self.frame_ids.entry(f).or_insert_with(|| {
            self.frames.push(f);
            next
        })
    }

    /// The flat state of the stacks `seeds` after following every call and return;
    /// `NO_STATE` (nothing interned) once the composition passes its work bound.
    fn close(&mut self, mut work: Vec<u32>) -> u32 {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.marks.fill(0);
            self.generation = 1;
        }
        let mut ready = Vec::new();
        let mut accepting = false;
        while let Some(x) = work.pop() {
            if !self.work.charge(1) {
                return NO_STATE;
            }
            if self.marks.len() <= x as usize {
                self.marks.resize(self.frames.len().max(x as usize + 1), 0);
            }
            if std::mem::replace(&mut self.marks[x as usize], self.generation) == self.generation {
                continue;
            }
            let Frame {
                machine,
                state,
                parent,
            } = self.frames[x as usize];
            let net = Arc::clone(&self.network);
            if net.reads_bytes(machine, state) {
                ready.push(x);
            }
            let dfa = net.machine(machine);
            for k in 0..dfa.terminals().len() {
                if let Some(back) = dfa.next_terminal(state, k) {
                    let ret = self.frame(machine, back, parent);
                    let callee = net.callee(machine, k);
                    work.push(self.frame(callee, net.machine(callee).start(), ret));
                }
            }
            if dfa.is_accepting(state) {
                match parent {
                    BOTTOM => accepting = true,
                    p => work.push(p),
                }
            }
        }
        ready.sort_unstable();
        self.intern(ready, accepting)
    }

    fn intern(&mut self, ready: Vec<u32>, accepting: bool) -> u32 {
        let mut key = Vec::with_capacity(ready.len() + 1);
        key.push(u32::from(accepting));
        key.extend_from_slice(&ready);
        let next = self.ready.len() as u32;
        let id = *self.state_ids.entry(key.into_boxed_slice()).or_insert(next);
        if id == next {
            self.ready.push(ready.into_boxed_slice());
            self.accepting.push(accepting);
            let k = self.representative.len();
            self.rows.resize(self.rows.len() + k, UNKNOWN);
            self.cache.push(None);
        }
        id
    }

    /// The flat state after a byte of class `class` from `state`, `NO_STATE` for none
    /// (and, not kept, once the composition passes its work bound: the walk then ends).
    pub(super) fn step(&mut self, state: u32, class: usize) -> u32 {
        let k = self.representative.len();
        let i = state as usize * k + class;
        let known = self.rows[i];
        if known != UNKNOWN {
            return known;
        }
        if !self.work.charge(self.ready[state as usize].len()) {
            return NO_STATE;
        }
        let byte = self.representative[class];
        let mut next = Vec::new();
        for j in 0..self.ready[state as usize].len() {
            let x = self.ready[state as usize][j];
            let f = self.frames[x as usize];
            if let Some(t) = self.network.machine(f.machine).next(f.state, byte) {
                next.push(self.frame(f.machine, t, f.parent));
            }
        }
        let target = if next.is_empty() {
            NO_STATE
        } else {
            self.close(next)
        };
        if !self.work.exhausted() {
            self.rows[i] = target;
        }
        target
    }

    /// The flat state after `bytes` from `state`, if it does not die on the way.
    pub(super) fn run(&mut self, mut state: u32, bytes: &[u8]) -> Option<u32> {
        self.work.start();
        for &b in bytes {
            let class = self.class_of_byte()[b as usize] as usize;
            state = self.step(state, class);
            if state == NO_STATE {
                return None;
            }
        }
        Some(state)
    }

    /// The token edges of `state`, computed on the first call within the work bound (an
    /// error past it, nothing of the state kept: see [`super::bound`]).
    pub(super) fn info(
        &mut self,
        state: u32,
        trie: &VocabTrie,
        vocab_size: u32,
    ) -> Result<Arc<StateInfo>, crate::matcher::MatchError> {
        self.work.start();
        let info = self.compose(state, trie, vocab_size);
        match self.work.exhausted() {
            false => Ok(info),
            true => Err(self.work.error(state)),
        }
    }

    /// The token edges of `state`, computed on the first call: by a trie walk, or, when
    /// its one stack's top machine calls nothing, from that machine's own walk (shared by
    /// every state with the same top, e.g. every string of a schema) plus walks below the
    /// trie nodes where it may return. Kept only if the work bound was not passed.
    fn compose(&mut self, state: u32, trie: &VocabTrie, vocab_size: u32) -> Arc<StateInfo> {
        if let Some(info) = &self.cache[state as usize] {
            return Arc::clone(info);
        }
        let stacks = self.ready[state as usize].len();
        let info = match self.leaf_top(state) {
            Some(x) => self.leaf_tokens(x, trie, vocab_size),
            // A token is read from a set of stacks iff one of them reads it: each stack's
            // tokens are found alone (its own state, cached and shared by every set that
            // has it; a string's through its machine's leaf walk) and united.
            None if (2..=MAX_SPLIT_STACKS).contains(&stacks) => {
                let mut united: Option<StateInfo> = None;
                for i in 0..stacks {
                    let x = self.ready[state as usize][i];
                    let alone = self.intern(vec![x], false);
                    let info = self.compose(alone, trie, vocab_size);
                    united = Some(match united {
                        None => (*info).clone(),
                        Some(u) => u.union(&info, vocab_size),
                    });
                }
                united.expect("at least two stacks")
            }
            None => match self.free_text_tokens(state, trie, vocab_size) {
                Some(info) => info,
                None => {
                    let classes = *self.class_of_byte();
                    let mut tokens = Vec::new();
                    walk(
                        trie,
                        &classes,
                        state,
                        |s, c| self.step(s, c),
                        |_, ids| tokens.extend_from_slice(ids),
                    );
                    StateInfo::from_tokens(tokens, vocab_size)
                }
            },
        };
        let info = Arc::new(info);
        if !self.work.exhausted() {
            self.cache[state as usize] = Some(Arc::clone(&info));
        }
        info
    }

    /// The tokens of `state` from a free text's sets, when it reads one ([`Wildcards`]).
    fn free_text_tokens(
        &mut self,
        state: u32,
        trie: &VocabTrie,
        vocab_size: u32,
    ) -> Option<StateInfo> {
        let mut wildcards = std::mem::take(&mut self.wildcards);
        let classes = *self.class_of_byte();
        let step = |s, b: u8| match self.step(s, classes[b as usize] as usize) {
            NO_STATE => None,
            to => Some(to),
        };
        let info = wildcards.tokens(state, trie, vocab_size, &classes, step);
        self.wildcards = wildcards;
        info
    }

    /// The one stack of `state`, when it has one and its top machine calls nothing.
    fn leaf_top(&self, state: u32) -> Option<u32> {
        match *self.ready[state as usize] {
            [x] => {
                let m = self.frames[x as usize].machine;
                self.network.machine(m).terminals().is_empty().then_some(x)
            }
            _ => None,
        }
    }

    /// The tokens of the stack `x` whose top machine calls nothing: those it reads whole,
    /// and below each node where it may return, those the rest of the stack reads on.
    fn leaf_tokens(&mut self, x: u32, trie: &VocabTrie, vocab_size: u32) -> StateInfo {
        let f = self.frames[x as usize];
        let leaf = self.leaf_walk(f.machine, f.state, trie, vocab_size);
        let mut tokens = Vec::new();
        if f.parent != BOTTOM {
            let returned = self.close(vec![f.parent]);
            if returned == NO_STATE {
                return leaf.tokens().clone(); // past the work bound: discarded
            }
            let classes = *self.class_of_byte();
            for (byte, nodes) in leaf.after_return().iter().enumerate() {
                if nodes.is_empty() {
                    continue;
                }
                let next = self.step(returned, classes[byte] as usize);
                if next == NO_STATE {
                    continue;
                }
                for &node in nodes {
                    let node = node as usize;
                    tokens.extend_from_slice(trie.node_tokens(node));
                    walk_below(
                        trie,
                        node,
                        &classes,
                        next,
                        |s, c| self.step(s, c),
                        |_, ids| tokens.extend_from_slice(ids),
                    );
                }
            }
        }
        if tokens.is_empty() {
            return leaf.tokens().clone();
        }
        leaf.tokens().with(tokens, vocab_size)
    }

    /// Machine `m`'s own walk of the trie from its state `s` (made once per expansion,
    /// and found in the process-wide walks when another schema made it).
    fn leaf_walk(&mut self, m: u32, s: u32, trie: &VocabTrie, vocab_size: u32) -> Arc<LeafWalk> {
        if let Some(w) = self.leaf_walks.get(&(m, s)) {
            return Arc::clone(w);
        }
        let hash = self.machine_hash(m);
        let dfa = self.network.machine(m);
        let w = match shared::find(trie, dfa, hash, s) {
            Some(w) => w,
            None => {
                let w = self.new_leaf_walk(m, s, trie, vocab_size);
                shared::keep(trie, self.network.machine_arc(m), hash, s, &w);
                w
            }
        };
        if self.leaf_walks.len() >= MAX_LEAF_WALKS {
            self.leaf_walks.clear();
        }
        self.leaf_walks.insert((m, s), Arc::clone(&w));
        w
    }

    /// Machine `m`'s walk from `s`: over the trie projected onto the bytes the states
    /// reachable from `s` tell apart when that pays; else beside its reference walk when
    /// it has one that has not given up too often (first a projected walk of the state
    /// `s` reaches by most printable bytes: a key machine's free state), else of its own
    /// (then the machine's reference).
    fn new_leaf_walk(
        &mut self,
        m: u32,
        s: u32,
        trie: &VocabTrie,
        vocab_size: u32,
    ) -> Arc<LeafWalk> {
        let plans = self.machine_plans(m);
        let dfa = self.network.machine(m);
        if let Some(walk) = plans.walk(trie, dfa, s) {
            let walk = Arc::new(walk);
            if walk.tokens().count() >= trie.num_text_tokens() / 4 {
                shared::keep_reference(trie, self.network.machine_arc(m), s, &walk);
            }
            return walk;
        }
        if let std::collections::hash_map::Entry::Vacant(slot) = self.references.entry(m) {
            if let Some((r, walk)) = projected_reference(dfa, &plans, s, trie) {
                slot.insert(Reference::new(dfa, r, Arc::new(walk), 0).projected());
            }
        }
        if let Some(r) = self.references.get_mut(&m) {
            if r.misses >= MAX_REFERENCE_MISSES {
                return Arc::new(leaf_walk(dfa, s, trie, vocab_size));
            }
            let limits = (vocab_size, trie.num_nodes() / BESIDE_FRACTION);
            let pair = (dfa, dfa);
            if let Some(w) =
                leaf_walk_beside(pair, (s, r.state), &r.walk, trie, &mut r.meets, limits)
            {
                r.misses = 0;
                return Arc::new(w);
            }
            let walk = Arc::new(leaf_walk(dfa, s, trie, vocab_size));
            r.misses += 1;
            // The states have drifted apart (a counted string far from its first
            // position): the new walk becomes the reference, unless the reference is
            // a projected walk (made again as cheaply).
            if !r.projected {
                *r = Reference::new(dfa, s, Arc::clone(&walk), r.misses);
            }
            return walk;
        }
        let walk = match beside_another_machine(dfa, s, trie, vocab_size) {
            Some(w) => Arc::new(w),
            None => {
                let w = Arc::new(leaf_walk(dfa, s, trie, vocab_size));
                if w.tokens().count() >= trie.num_text_tokens() / 4 {
                    shared::keep_reference(trie, self.network.machine_arc(m), s, &w);
                }
                w
            }
        };
        self.references
            .insert(m, Reference::new(dfa, s, Arc::clone(&walk), 0));
        walk
    }

    fn machine_plans(&mut self, m: u32) -> Arc<MachinePlans> {
        let m = m as usize;
        if self.machine_plans.len() <= m {
            self.machine_plans.resize(self.network.num_machines(), None);
        }
        let network = &self.network;
        Arc::clone(
            self.machine_plans[m]
                .get_or_insert_with(|| Arc::new(MachinePlans::new(network.machine(m as u32)))),
        )
    }

    fn machine_hash(&mut self, m: u32) -> u64 {
        let m = m as usize;
        if self.machine_hashes.len() <= m {
            self.machine_hashes
                .resize(self.network.num_machines(), None);
        }
        let network = &self.network;
        *self.machine_hashes[m]
            .get_or_insert_with(|| shared::machine_hash(network.machine(m as u32)))
    }
}

/// A state of `dfa` for walks from `s` to be made beside, with its walk over a
/// projection: of the states `s` reaches by one printable ASCII byte, the one reached by
/// most such bytes whose walk projects. From a key machine's first state this is its
/// free state, past every property name: the two differ only along the names.
fn projected_reference(
    dfa: &ByteDfa,
    plans: &MachinePlans,
    s: u32,
    trie: &VocabTrie,
) -> Option<(u32, LeafWalk)> {
    let mut bytes_to: FastMap<u32, usize> = FastMap::default();
    for b in 0x20..0x7f {
        if let Some(t) = dfa.next(s, b) {
            *bytes_to.entry(t).or_default() += 1;
        }
    }
    let mut targets: Vec<(usize, u32)> = bytes_to.into_iter().map(|(t, n)| (n, t)).collect();
    targets.sort_unstable_by(|a, b| b.cmp(a));
    (targets.into_iter().take(2)).find_map(|(_, r)| Some((r, plans.walk(trie, dfa, r)?)))
}

/// The walk of `dfa` from `s` made beside one of the process's recent wide walks of other
/// machines (a key machine's first state beside a string machine's), if one is alike
/// enough.
fn beside_another_machine(
    dfa: &ByteDfa,
    s: u32,
    trie: &VocabTrie,
    vocab_size: u32,
) -> Option<LeafWalk> {
    let limits = (vocab_size, trie.num_nodes() / CROSS_FRACTION);
    shared::references(trie)
        .into_iter()
        .find_map(|(other, r, walk)| {
            let mut meets = Meets::new(dfa, &other, false);
            leaf_walk_beside((dfa, &other), (s, r), &walk, trie, &mut meets, limits)
        })
}
