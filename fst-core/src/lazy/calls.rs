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

use crate::bytes::CallNetwork;
use crate::fast_hash::FastMap;
use crate::vocab::VocabTrie;

use super::state::{walk, StateInfo, NO_STATE};

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
}

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

    /// The flat state of the stacks `seeds` after following every call and return.
    fn close(&mut self, mut work: Vec<u32>) -> u32 {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.marks.fill(0);
            self.generation = 1;
        }
        let mut ready = Vec::new();
        let mut accepting = false;
        while let Some(x) = work.pop() {
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

    /// The flat state after a byte of class `class` from `state`, `NO_STATE` for none.
    pub(super) fn step(&mut self, state: u32, class: usize) -> u32 {
        let k = self.representative.len();
        let i = state as usize * k + class;
        let known = self.rows[i];
        if known != UNKNOWN {
            return known;
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
        self.rows[i] = target;
        target
    }

    /// The flat state after `bytes` from `state`, if it does not die on the way.
    pub(super) fn run(&mut self, mut state: u32, bytes: &[u8]) -> Option<u32> {
        for &b in bytes {
            let class = self.class_of_byte()[b as usize] as usize;
            state = self.step(state, class);
            if state == NO_STATE {
                return None;
            }
        }
        Some(state)
    }

    /// The token edges of `state`, computed by a trie walk on the first call.
    pub(super) fn info(&mut self, state: u32, trie: &VocabTrie, vocab_size: u32) -> Arc<StateInfo> {
        if let Some(info) = &self.cache[state as usize] {
            return Arc::clone(info);
        }
        let classes = *self.class_of_byte();
        let mut tokens = Vec::new();
        walk(
            trie,
            &classes,
            state,
            |s, c| self.step(s, c),
            |_, ids| tokens.extend_from_slice(ids),
        );
        let info = Arc::new(StateInfo::from_tokens(tokens, vocab_size));
        self.cache[state as usize] = Some(Arc::clone(&info));
        info
    }
}
