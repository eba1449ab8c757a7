//! Leaf walks kept for the whole process, by vocabulary and machine: the machines of
//! common sub-schemas (a free string, a number, a date) are the same DFA in every schema a
//! server compiles, and a walk of a large vocabulary's trie from one of their states takes
//! milliseconds (every token that may continue a string), the slowest mask of a request.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use crate::bytes::ByteDfa;
use crate::fast_hash::FastHasher;
use crate::vocab::VocabTrie;

use super::leaf::LeafWalk;

/// Most walks kept; past it the table starts again (a walk is up to a token bitset and a
/// list of trie nodes: for Llama 3 about 20 KB).
const MAX_WALKS: usize = 256;

/// (vocabulary fingerprint, vocabulary size, machine hash, state) → the machines of that
/// hash with their walks (compared whole: a hash is not an identity).
type Table = HashMap<(u64, usize, u64, u32), Vec<(Arc<ByteDfa>, Arc<LeafWalk>)>>;

fn table() -> &'static Mutex<(Table, usize)> {
    static WALKS: OnceLock<Mutex<(Table, usize)>> = OnceLock::new();
    WALKS.get_or_init(Mutex::default)
}

/// The hash a machine is looked up by.
pub(super) fn machine_hash(dfa: &ByteDfa) -> u64 {
    let mut h = FastHasher::default();
    dfa.hash(&mut h);
    h.finish()
}

fn key(trie: &VocabTrie, hash: u64, state: u32) -> (u64, usize, u64, u32) {
    (trie.fingerprint(), trie.vocab_size(), hash, state)
}

/// The walk of `dfa` (of hash `hash`) from `state` over `trie`, if one was kept.
pub(super) fn find(
    trie: &VocabTrie,
    dfa: &ByteDfa,
    hash: u64,
    state: u32,
) -> Option<Arc<LeafWalk>> {
    // A poisoned lock only means another thread panicked mid-insert; entries are whole.
    let walks = table().lock().unwrap_or_else(|e| e.into_inner());
    let same = walks.0.get(&key(trie, hash, state))?;
    same.iter()
        .find(|(d, _)| **d == *dfa)
        .map(|(_, w)| Arc::clone(w))
}

/// Keeps `walk`, the walk of `dfa` (of hash `hash`) from `state` over `trie`.
pub(super) fn keep(
    trie: &VocabTrie,
    dfa: &Arc<ByteDfa>,
    hash: u64,
    state: u32,
    walk: &Arc<LeafWalk>,
) {
    let mut walks = table().lock().unwrap_or_else(|e| e.into_inner());
    if walks.1 >= MAX_WALKS {
        *walks = (Table::new(), 0);
    }
    walks.1 += 1;
    let entry = walks.0.entry(key(trie, hash, state)).or_default();
    entry.push((Arc::clone(dfa), Arc::clone(walk)));
}
