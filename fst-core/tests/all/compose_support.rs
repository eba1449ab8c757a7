//! Helpers shared by the `compose_*` tests: hand-built byte DFAs, brute-force oracles
//! and a seeded generator. T_V comes from `fstc_core::reference::detokenizing_fst`, the one builder.

use std::collections::HashMap;

use fstc_core::automaton::AutomatonParts;
use fstc_core::bytes::ByteAutomaton;
use fstc_core::labels::byte_label;
use fstc_core::minimize::minimize;
use fstc_core::sample::SplitMix64;
use fstc_core::{fingerprint, ByteVocabulary, TokenVocabulary};
use rustfst::prelude::*;

const DEAD: u32 = u32::MAX;

/// A byte DFA as a full table; `DEAD` marks a missing transition.
#[derive(Clone, Debug)]
pub struct TableDfa {
    pub start: u32,
    pub accepting: Vec<bool>,
    pub next: Vec<[u32; 256]>,
}

impl TableDfa {
    /// `n` states, start 0, the given accepting states and transitions `(from, byte, to)`.
    pub fn new(n: usize, accepting: &[u32], transitions: &[(u32, u8, u32)]) -> TableDfa {
        let mut dfa = TableDfa {
            start: 0,
            accepting: vec![false; n],
            next: vec![[DEAD; 256]; n],
        };
        for &s in accepting {
            dfa.accepting[s as usize] = true;
        }
        for &(from, byte, to) in transitions {
            dfa.next[from as usize][byte as usize] = to;
        }
        dfa
    }

    /// Adds `from --b--> to` for every byte `b` in `bytes`.
    pub fn with_range(
        mut self,
        from: u32,
        bytes: impl IntoIterator<Item = u8>,
        to: u32,
    ) -> TableDfa {
        for b in bytes {
            self.next[from as usize][b as usize] = to;
        }
        self
    }

    pub fn accepts(&self, text: &[u8]) -> bool {
        let mut s = self.start;
        for &b in text {
            match self.next(s, b) {
                Some(t) => s = t,
                None => return false,
            }
        }
        self.accepting[s as usize]
    }

    /// The DFA as a rustfst byte acceptor (labels per `fstc_core::labels`).
    pub fn to_fst(&self) -> VectorFst<TropicalWeight> {
        let mut fst = VectorFst::<TropicalWeight>::new();
        for _ in 0..self.accepting.len() {
            fst.add_state();
        }
        fst.set_start(self.start).unwrap();
        for (s, row) in self.next.iter().enumerate() {
            if self.accepting[s] {
                fst.set_final(s as u32, TropicalWeight::one()).unwrap();
            }
            for (b, &t) in row.iter().enumerate() {
                if t != DEAD {
                    let l = byte_label(b as u8);
                    fst.add_tr(s as u32, Tr::new(l, l, TropicalWeight::one(), t))
                        .unwrap();
                }
            }
        }
        fst
    }
}

impl ByteAutomaton for TableDfa {
    fn num_states(&self) -> usize {
        self.accepting.len()
    }
    fn start(&self) -> u32 {
        self.start
    }
    fn is_accepting(&self, state: u32) -> bool {
        self.accepting[state as usize]
    }
    fn next(&self, state: u32, byte: u8) -> Option<u32> {
        let t = self.next[state as usize][byte as usize];
        (t != DEAD).then_some(t)
    }
}

/// The minimal byte DFA of `(foo)+d` (paper, Figure 5, left).
pub fn foo_plus_d() -> TableDfa {
    TableDfa::new(
        5,
        &[4],
        &[
            (0, b'f', 1),
            (1, b'o', 2),
            (2, b'o', 3),
            (3, b'f', 1),
            (3, b'd', 4),
        ],
    )
}

/// Whether the token automaton accepts `tokens` (EOS not included).
pub fn parts_accept(parts: &AutomatonParts, tokens: &[u32]) -> bool {
    let mut s = parts.start;
    for &t in tokens {
        match parts.edges[s as usize].iter().find(|&&(tok, _)| tok == t) {
            Some(&(_, next)) => s = next,
            None => return false,
        }
    }
    parts.accepting[s as usize]
}

/// The bytes a token sequence spells.
pub fn spell<V: TokenVocabulary>(vocab: &V, tokens: &[u32]) -> Vec<u8> {
    tokens
        .iter()
        .flat_map(|&t| vocab.token_bytes(t).unwrap().to_vec())
        .collect()
}

/// The token automaton by brute force: every token run through the DFA from every state
/// reachable at a token boundary, then `minimize`. `None` for an empty language.
pub fn brute_force<V: TokenVocabulary>(dfa: &TableDfa, vocab: &V) -> Option<AutomatonParts> {
    let mut index: HashMap<u32, u32> = HashMap::from([(dfa.start, 0)]);
    let mut order = vec![dfa.start];
    let mut edges = Vec::new();
    let mut i = 0;
    while i < order.len() {
        let from = order[i];
        i += 1;
        let mut list = Vec::new();
        for id in 0..vocab.len() as u32 {
            let Some(bytes) = vocab.token_bytes(id).filter(|b| !b.is_empty()) else {
                continue;
            };
            let mut s = Some(from);
            for &b in bytes {
                s = s.and_then(|s| dfa.next(s, b));
            }
            if let Some(t) = s {
                let n = index.len() as u32;
                let target = *index.entry(t).or_insert_with(|| {
                    order.push(t);
                    n
                });
                list.push((id, target));
            }
        }
        edges.push(list);
    }
    let parts = minimize(AutomatonParts {
        vocab_size: vocab.len() as u32,
        vocab_fingerprint: fingerprint(vocab),
        eos_ids: vocab.eos_ids().to_vec(),
        start: 0,
        accepting: order.iter().map(|&s| dfa.accepting[s as usize]).collect(),
        edges,
        terminals: Vec::new(),
    });
    parts.accepting.iter().any(|&a| a).then_some(parts)
}

/// `fstc_core::sample::SplitMix64` (seeded, so failures reproduce) with the `usize`
/// helpers these tests draw sizes and indices with.
pub struct Rng(SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix64::new(seed))
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        self.0.index(n)
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// A random byte DFA over `alphabet`: some transitions missing, some states accepting.
pub fn random_dfa(rng: &mut Rng, alphabet: &[u8]) -> TableDfa {
    let n = 1 + rng.below(6);
    let mut dfa = TableDfa::new(n, &[], &[]);
    for s in 0..n {
        dfa.accepting[s] = rng.chance(35);
        for &b in alphabet {
            if rng.chance(65) {
                dfa.next[s][b as usize] = rng.below(n) as u32;
            }
        }
    }
    dfa
}

/// A random vocabulary of 2..=8 text tokens of 1..=4 bytes over `alphabet` (duplicates
/// possible), sometimes with an empty token and a special token, then an EOS id.
pub fn random_vocab(rng: &mut Rng, alphabet: &[u8]) -> ByteVocabulary {
    let count = 2 + rng.below(7);
    let mut tokens: Vec<Option<Vec<u8>>> = (0..count)
        .map(|_| {
            let len = 1 + rng.below(4);
            Some(
                (0..len)
                    .map(|_| alphabet[rng.below(alphabet.len())])
                    .collect(),
            )
        })
        .collect();
    if rng.chance(20) {
        let at = rng.below(tokens.len() + 1);
        tokens.insert(at, Some(Vec::new()));
    }
    if rng.chance(30) {
        let at = rng.below(tokens.len() + 1);
        tokens.insert(at, None);
    }
    let eos = tokens.len() as u32;
    tokens.push(None);
    ByteVocabulary::new(tokens, vec![eos])
}

/// The ids of the tokens that have text.
pub fn text_ids<V: TokenVocabulary>(vocab: &V) -> Vec<u32> {
    (0..vocab.len() as u32)
        .filter(|&id| vocab.token_bytes(id).is_some_and(|b| !b.is_empty()))
        .collect()
}

/// Every sequence of `ids` of length at most `max_len`, shortest first.
pub fn all_sequences(ids: &[u32], max_len: usize) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new()];
    let mut layer = vec![Vec::new()];
    for _ in 0..max_len {
        let mut next = Vec::new();
        for seq in &layer {
            for &id in ids {
                let mut s: Vec<u32> = seq.clone();
                s.push(id);
                next.push(s);
            }
        }
        out.extend(next.iter().cloned());
        layer = next;
    }
    out
}
