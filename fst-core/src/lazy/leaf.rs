//! Leaf walks: what a machine that calls nothing (a string, a number, a date) reads of
//! the vocabulary from one of its states, whatever is below it on the stack.
//!
//! A walk from a state where every string may go on (an object's keys, a string value)
//! visits most of the vocabulary trie: about 1.7 ms over Llama 3's 275k nodes, the
//! slowest masks of a request. Machines made for one schema (the keys an object allows
//! besides its named properties, an enumeration) are walked from several states, and
//! those states differ only along a few strings (the property names): after a byte or
//! two both walks are in the same state, where their subtrees agree. So once a machine
//! has one walk, another state's walk runs beside it and descends only where the two
//! states differ, flipping the tokens and return points there.

use crate::bytes::ByteDfa;
use crate::fast_hash::FastMap;
use crate::vocab::VocabTrie;

use super::state::{StateInfo, NO_STATE};

/// What a machine that calls nothing reads of the vocabulary from one of its states: the
/// tokens it reads whole, and, by their byte, the trie nodes whose parent it may return
/// at (it accepts there): below a return, the caller reads on, and only the nodes of a
/// byte the caller takes need a look.
#[derive(Debug)]
pub(super) struct LeafWalk {
    tokens: StateInfo,
    after_return: Vec<Vec<u32>>,
}

impl LeafWalk {
    pub(super) fn new(tokens: StateInfo, after_return: Vec<Vec<u32>>) -> LeafWalk {
        LeafWalk {
            tokens,
            after_return,
        }
    }

    pub(super) fn tokens(&self) -> &StateInfo {
        &self.tokens
    }

    /// By byte, the trie nodes where the machine may have returned before that byte.
    pub(super) fn after_return(&self) -> &[Vec<u32>] {
        &self.after_return
    }
}

/// Machine `dfa`'s own walk of the trie from its state `s`.
pub(super) fn leaf_walk(dfa: &ByteDfa, s: u32, trie: &VocabTrie, vocab_size: u32) -> LeafWalk {
    let mut tokens = Vec::new();
    let mut after_return = vec![Vec::new(); 256];
    leaf_walk_below(
        dfa,
        (0, s),
        trie,
        &mut |ids| tokens.extend_from_slice(ids),
        &mut after_return,
    );
    LeafWalk {
        tokens: StateInfo::from_tokens(tokens, vocab_size),
        after_return,
    }
}

/// The walk of `dfa` below trie node `root`, in state `s` there: `read` gets the tokens
/// read whole, `after_return` (by byte) the nodes whose parent the machine accepts at.
pub(super) fn leaf_walk_below(
    dfa: &ByteDfa,
    (root, s): (usize, u32),
    trie: &VocabTrie,
    read: &mut impl FnMut(&[u32]),
    after_return: &mut [Vec<u32>],
) {
    let mut at = vec![NO_STATE; trie.max_depth() + 1];
    at[trie.node_depth(root)] = s;
    let end = match root {
        0 => trie.num_nodes(),
        _ => trie.subtree_end(root),
    };
    let mut node = root + 1;
    while node < end {
        let depth = trie.node_depth(node);
        let byte = trie.node_byte(node);
        let from = at[depth - 1];
        // The state at the trie's root accepting would have popped already: a
        // leaf top never accepts there, so returns start one byte in.
        if depth > 1 && dfa.is_accepting(from) {
            after_return[byte as usize].push(node as u32);
        }
        let Some(next) = dfa.next(from, byte) else {
            node = trie.subtree_end(node);
            continue;
        };
        at[depth] = next;
        read(trie.node_tokens(node));
        node += 1;
    }
}

/// The walk of machine `a` from `s`, made from `base`, the walk of machine `b` (often
/// `a` itself) from `r`: both states are followed down the trie together and a subtree
/// is left as soon as the two states there cannot be told apart within the subtree's
/// height (equal states, the states of a counted string far enough from its end, a key
/// machine's free state and a string machine's), so the walks agree on it. `None` when
/// the two differ on more than `max_nodes` nodes (then a walk of its own is cheaper).
pub(super) fn leaf_walk_beside(
    (a, b): (&ByteDfa, &ByteDfa),
    (s, r): (u32, u32),
    base: &LeafWalk,
    trie: &VocabTrie,
    meets: &mut Meets,
    (vocab_size, max_nodes): (u32, usize),
) -> Option<LeafWalk> {
    meets.start_walk();
    let mut at = vec![(NO_STATE, NO_STATE); trie.max_depth() + 1];
    at[0] = (s, r);
    let mut words = vec![0u32; (vocab_size as usize).div_ceil(32)];
    base.tokens.write(&mut words);
    let mut visited = vec![0u64; trie.num_nodes().div_ceil(64)];
    let mut returns = Vec::new();
    let (mut node, mut seen) = (1, 0);
    // Every node visited has parents in different states: where they meet, the walk
    // leaves the subtree (both dead included).
    while node < trie.num_nodes() {
        let depth = trie.node_depth(node);
        let (from_s, from_r) = at[depth - 1];
        seen += 1;
        if seen > max_nodes {
            return None;
        }
        visited[node / 64] |= 1 << (node % 64);
        let byte = trie.node_byte(node);
        if depth > 1 && from_s != NO_STATE && a.is_accepting(from_s) {
            returns.push(node as u32);
        }
        let step = |dfa: &ByteDfa, from: u32| match from {
            NO_STATE => NO_STATE,
            _ => dfa.next(from, byte).unwrap_or(NO_STATE),
        };
        let (next_s, next_r) = (step(a, from_s), step(b, from_r));
        if (next_s == NO_STATE) != (next_r == NO_STATE) {
            for &t in trie.node_tokens(node) {
                words[(t / 32) as usize] ^= 1 << (t % 32);
            }
        }
        if meets.alike((a, b), (next_s, next_r), trie.subtree_height(node)) {
            node = trie.subtree_end(node);
            continue;
        }
        at[depth] = (next_s, next_r);
        node += 1;
    }
    let mut after_return = vec![Vec::new(); 256];
    for (byte, nodes) in base.after_return.iter().enumerate() {
        after_return[byte].extend(
            nodes
                .iter()
                .filter(|&&n| visited[n as usize / 64] & 1 << (n % 64) == 0),
        );
    }
    for n in returns {
        after_return[trie.node_byte(n as usize) as usize].push(n);
    }
    Some(LeafWalk {
        tokens: StateInfo::from_words(words.into_boxed_slice(), vocab_size),
        after_return,
    })
}

/// Depth-bounded equivalence of states of two machines (or of one), remembered per
/// pair: `alike(p, q, h)` holds when no text of at most `h` bytes tells `p` from `q` (the
/// same texts die, and the states reached before each byte accept alike), which is what
/// a leaf walk below a trie node of height `h` reads. The states of a counted string
/// (`maxLength`) differ only within their remaining count of its end, so most subtrees
/// are alike.
#[derive(Debug)]
pub(super) struct Meets {
    /// Per pair: the largest height shown alike and the smallest shown apart (alike
    /// within `h` implies alike within less).
    known: FastMap<(u32, u32), (u8, u8)>,
    /// Pair steps left in this walk, before every further question is answered "apart"
    /// (sound: the walk then descends).
    budget: usize,
    /// One byte of each class of the two machines' joint byte partition.
    bytes: Vec<u8>,
    /// Whether the two machines are one (then equal states are alike, pairs unordered).
    same: bool,
}

/// Pair steps a [`Meets`] may take per walk (a step reads every joint byte class of both
/// machines, so this bounds its cost to about a tenth of a trie walk).
const WALK_BUDGET: usize = 2048;

/// Most pairs remembered; past it the memo starts again.
const MAX_PAIRS: usize = 1 << 16;

impl Meets {
    /// For states of `a` against states of `b`; `same` when they are one machine.
    pub(super) fn new(a: &ByteDfa, b: &ByteDfa, same: bool) -> Meets {
        let mut seen = FastMap::default();
        let mut bytes = Vec::new();
        for x in 0..=255u8 {
            let key = (a.byte_classes()[x as usize], b.byte_classes()[x as usize]);
            seen.entry(key).or_insert_with(|| bytes.push(x));
        }
        Meets {
            known: FastMap::default(),
            budget: WALK_BUDGET,
            bytes,
            same,
        }
    }

    /// Whether `p` of the first machine and `q` of the second (`NO_STATE`: dead) are
    /// alike for texts of up to `h` bytes; `h` at 255 means "255 or more", for which only
    /// equal states of one machine are.
    /// Starts a new walk's share of the budget.
    fn start_walk(&mut self) {
        self.budget = WALK_BUDGET;
        if self.known.len() > MAX_PAIRS {
            self.known.clear();
        }
    }

    pub(super) fn alike(&mut self, m: (&ByteDfa, &ByteDfa), (p, q): (u32, u32), h: usize) -> bool {
        // Below a leaf there is nothing to tell apart.
        if h == 0 || (p == q && (self.same || p == NO_STATE)) {
            return true;
        }
        if p == NO_STATE || q == NO_STATE || h >= usize::from(u8::MAX) {
            return false;
        }
        self.alike_within(m, (p, q), h as u8)
    }

    fn alike_within(&mut self, (a, b): (&ByteDfa, &ByteDfa), (p, q): (u32, u32), h: u8) -> bool {
        let key = if self.same {
            (p.min(q), p.max(q))
        } else {
            (p, q)
        };
        if self.same && p == q {
            return true;
        }
        let (shown, apart) = self.known.get(&key).copied().unwrap_or((0, u8::MAX));
        if a.is_accepting(p) != b.is_accepting(q) {
            self.known.insert(key, (0, 1));
            return false;
        }
        if h <= shown {
            return true;
        }
        if h >= apart || self.budget == 0 {
            return false;
        }
        self.budget -= 1;
        let mut alike = true;
        for i in 0..self.bytes.len() {
            let x = self.bytes[i];
            alike = match (a.next(p, x), b.next(q, x)) {
                (None, None) => true,
                (Some(tp), Some(tq)) => h == 1 || self.alike_within((a, b), (tp, tq), h - 1),
                _ => false,
            };
            if !alike {
                break;
            }
        }
        let entry = self.known.entry(key).or_insert((0, u8::MAX));
        if alike {
            entry.0 = entry.0.max(h);
        } else {
            entry.1 = entry.1.min(h);
        }
        alike
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::Algebra;
    use crate::vocab::ByteVocabulary;
    use proptest::prelude::*;

    fn tokens(w: &LeafWalk, vocab_size: u32) -> Vec<u32> {
        let mut words = vec![0u32; (vocab_size as usize).div_ceil(32)];
        w.tokens.write(&mut words);
        (0..vocab_size)
            .filter(|&t| words[t as usize / 32] & 1 << (t % 32) != 0)
            .collect()
    }

    fn returns(w: &LeafWalk) -> Vec<Vec<u32>> {
        let mut r = w.after_return.clone();
        r.iter_mut().for_each(|v| v.sort_unstable());
        r
    }

    proptest! {
        /// A walk made beside another state's equals the state's own walk, for every
        /// pair of states of random DFAs over random vocabularies (or gives up when
        /// past its node limit).
        #[test]
        fn walks_beside_a_reference_equal_own_walks(
            edges in proptest::collection::vec((0u32..6, 0usize..3, 0u32..6), 1..24),
            accepting in proptest::collection::vec(any::<bool>(), 6),
            words in proptest::collection::vec("[ab\"]{1,7}", 1..60),
            max_nodes in prop_oneof![Just(usize::MAX), 0usize..12],
        ) {
            let bytes = [b'a', b'b', b'"'];
            let edges: Vec<_> = edges.iter().map(|&(f, b, t)| (f, bytes[b], bytes[b], t)).collect();
            let dfa = Algebra::new().from_edges(&edges, &accepting).unwrap();
            let strs: Vec<&str> = words.iter().map(String::as_str).collect();
            let trie = VocabTrie::new(&ByteVocabulary::from_strs(&strs));
            let n = trie.vocab_size() as u32;
            for r in 0..dfa.num_states() as u32 {
                let base = leaf_walk(&dfa, r, &trie, n);
                for s in 0..dfa.num_states() as u32 {
                    let own = leaf_walk(&dfa, s, &trie, n);
                    let mut meets = Meets::new(&dfa, &dfa, true);
                    let pair = (&dfa, &dfa);
                    if let Some(beside) = leaf_walk_beside(pair, (s, r), &base, &trie, &mut meets, (n, max_nodes)) {
                        prop_assert_eq!(tokens(&beside, n), tokens(&own, n), "s {} r {}", s, r);
                        prop_assert_eq!(returns(&beside), returns(&own), "s {} r {}", s, r);
                    } else {
                        prop_assert!(max_nodes != usize::MAX);
                    }
                }
            }
        }
    }

    fn random_dfa(edges: &[(u32, usize, u32)], accepting: &[bool]) -> ByteDfa {
        let bytes = [b'a', b'b', b'"'];
        let edges: Vec<_> = edges
            .iter()
            .map(|&(f, b, t)| (f, bytes[b], bytes[b], t))
            .collect();
        Algebra::new().from_edges(&edges, accepting).unwrap()
    }

    proptest! {
        /// A walk of one machine made beside another machine's walk equals its own walk,
        /// for every pair of states of two random DFAs.
        #[test]
        fn walks_beside_another_machine_equal_own_walks(
            edges_a in proptest::collection::vec((0u32..5, 0usize..3, 0u32..5), 1..20),
            edges_b in proptest::collection::vec((0u32..5, 0usize..3, 0u32..5), 1..20),
            accepting in proptest::collection::vec(any::<bool>(), 10),
            words in proptest::collection::vec("[ab\"]{1,7}", 1..60),
        ) {
            let a = random_dfa(&edges_a, &accepting[..5]);
            let b = random_dfa(&edges_b, &accepting[5..]);
            let strs: Vec<&str> = words.iter().map(String::as_str).collect();
            let trie = VocabTrie::new(&ByteVocabulary::from_strs(&strs));
            let n = trie.vocab_size() as u32;
            for r in 0..b.num_states() as u32 {
                let base = leaf_walk(&b, r, &trie, n);
                let mut meets = Meets::new(&a, &b, false);
                for s in 0..a.num_states() as u32 {
                    let own = leaf_walk(&a, s, &trie, n);
                    let beside = leaf_walk_beside((&a, &b), (s, r), &base, &trie, &mut meets, (n, usize::MAX)).unwrap();
                    prop_assert_eq!(tokens(&beside, n), tokens(&own, n), "s {} r {}", s, r);
                    prop_assert_eq!(returns(&beside), returns(&own), "s {} r {}", s, r);
                }
            }
        }
    }
}
