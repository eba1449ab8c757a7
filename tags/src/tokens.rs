//! Token-count limits (`max_tokens` on free text), exactly: the byte language is made to
//! see where tokens end.
//!
//! Every text a structural tag admits is UTF-8, so the byte 0xFF never occurs in one. It
//! serves as a *marker*: the vocabulary is read with 0xFF after every token (a token
//! whose own bytes hold 0xFF can be in no admitted text and is dropped), and the language
//! becomes its *markings*, the admitted texts with a marker after each token. Outside
//! limited free text, markers may stand anywhere; inside free text limited to `n` tokens,
//! at most `n - 1` stand strictly between two of its bytes. Composing the two is then the
//! product of the segment with a token counter, decided by the one token automaton.
//!
//! **What counts**: the tokens that carry at least one byte of the segment, i.e. the
//! decoding steps that wrote some of it. A token that ends the free text and starts the
//! next part (text and the start of a trigger) counts for the free text too; an empty
//! segment has none. When a text can be split into segments in more than one way, it is
//! admitted when some split keeps every limit.

use std::sync::{Arc, Mutex};

use fstc_core::bytes::{Algebra, ByteDfa, ByteDfaError};
use fstc_core::vocab::VocabTrie;
use fstc_core::ByteVocabulary;

/// The marker written after every token.
pub(crate) const MARK: u8 = 0xFF;

/// A DFA's byte edges from `s` as ranges `(s, lo, hi, target)`.
fn edges_from(dfa: &ByteDfa, s: u32, out: &mut Vec<(u32, u8, u8, u32)>) {
    let mut run: Option<(u8, u8, u32)> = None;
    for b in 0..=255u8 {
        let t = dfa.next(s, b);
        match (run, t) {
            (Some((lo, hi, to)), Some(t)) if hi + 1 == b && to == t => run = Some((lo, b, to)),
            _ => {
                if let Some((lo, hi, to)) = run.take() {
                    out.push((s, lo, hi, to));
                }
                run = t.map(|t| (b, b, t));
            }
        }
    }
    if let Some((lo, hi, to)) = run {
        out.push((s, lo, hi, to));
    }
}

/// Refuses a DFA that reads the marker itself (no admitted text does; this guards it).
fn check_unmarked(dfa: &ByteDfa) -> Result<(), String> {
    if (0..dfa.num_states() as u32).any(|s| dfa.next(s, MARK).is_some()) {
        return Err(
            "a part of the structural tag reads the byte 0xFF, which is not UTF-8 and \
             which token-count limits use to mark token ends"
                .to_string(),
        );
    }
    Ok(())
}

/// `dfa`'s language with markers anywhere: the inverse image under deleting them.
pub(crate) fn with_markers(dfa: &ByteDfa, algebra: &Algebra) -> Result<ByteDfa, String> {
    check_unmarked(dfa)?;
    let n = dfa.num_states() as u32;
    let mut edges = Vec::new();
    for s in 0..n {
        edges_from(dfa, s, &mut edges);
        edges.push((s, MARK, MARK, s));
    }
    let accepting: Vec<bool> = (0..n).map(|s| dfa.is_accepting(s)).collect();
    algebra
        .from_edges(&edges, &accepting)
        .map_err(|e| e.to_string())
}

/// The markings of `text`'s texts covered by at most `n` tokens: markers before its first
/// byte are free (the boundary before it), at most `n - 1` stand between its bytes, none
/// after its last (the next part reads that one). At most `limit` states.
pub(crate) fn counted(
    text: &ByteDfa,
    n: u32,
    algebra: &Algebra,
    limit: usize,
) -> Result<ByteDfa, String> {
    check_unmarked(text)?;
    let size = text.num_states() as u32;
    // State 0: nothing read yet. Then `size` states per count for "a byte was read last",
    // and per count from 1 for "a marker was read last".
    let states = 1 + u64::from(size) * (2 * u64::from(n)).saturating_sub(1);
    if states > limit as u64 {
        return Err(format!(
            "a limit of {n} tokens on this text needs {states} automaton states, over the \
             state limit of {limit}"
        ));
    }
    let byte = |s: u32, c: u32| 1 + c * size + s;
    let mark = |s: u32, c: u32| 1 + (n + c - 1) * size + s;
    let ranges: Vec<Vec<(u32, u8, u8, u32)>> = (0..size)
        .map(|s| {
            let mut list = Vec::new();
            edges_from(text, s, &mut list);
            list
        })
        .collect();
    let mut edges = vec![(0, MARK, MARK, 0)];
    let mut accepting = vec![false; states as usize];
    accepting[0] = text.is_accepting(text.start());
    let reads = |s: u32, from: u32, c: u32, edges: &mut Vec<(u32, u8, u8, u32)>| {
        let list = &ranges[s as usize];
        edges.extend(
            list.iter()
                .map(|&(_, lo, hi, t)| (from, lo, hi, byte(t, c))),
        );
    };
    if n > 0 {
        reads(text.start(), 0, 0, &mut edges);
    }
    for c in 0..n {
        for s in 0..size {
            reads(s, byte(s, c), c, &mut edges);
            accepting[byte(s, c) as usize] = text.is_accepting(s);
            if c + 1 < n {
                edges.push((byte(s, c), MARK, MARK, mark(s, c + 1)));
            }
            if c > 0 {
                reads(s, mark(s, c), c, &mut edges);
            }
        }
    }
    algebra
        .from_edges(&edges, &accepting)
        .map_err(|e: ByteDfaError| e.to_string())
}

/// Markers only: what may follow the whole text (the last token's marker).
pub(crate) fn marks(algebra: &Algebra) -> ByteDfa {
    algebra
        .from_edges(&[(0, MARK, MARK, 0)], &[true])
        .expect("a one-state automaton is within any limit")
}

/// Well-formed markings: each token non-empty and followed by its marker.
pub(crate) fn markings(algebra: &Algebra) -> ByteDfa {
    let edges = [(0, 0x00, 0xFE, 1), (1, 0x00, 0xFE, 1), (1, MARK, MARK, 0)];
    algebra
        .from_edges(&edges, &[true, false])
        .expect("a two-state automaton is within any limit")
}

/// The vocabularies derived last (marked, or with markers for named tokens), by
/// vocabulary (fingerprint and size) and derivation.
static DERIVED: Mutex<Vec<Derived>> = Mutex::new(Vec::new());

/// A derived vocabulary by its vocabulary's fingerprint and size and what was derived:
/// `None` the marked vocabulary, `Some(ids)` the named tokens' markers (`crate::special`).
type Derived = ((u64, usize, Option<Vec<u32>>), Arc<VocabTrie>);

/// How many derived vocabularies [`DERIVED`] keeps.
const DERIVED_KEPT: usize = 4;

/// [`marked_trie`], made once per vocabulary for the last few: it costs about as much as
/// the vocabulary's own trie (0.1-0.3 s at 128k tokens), which a per-request compile
/// should not pay each time.
pub(crate) fn marked_trie_shared(trie: &VocabTrie) -> Arc<VocabTrie> {
    derived(trie, None, || marked_trie(trie))
}

/// The vocabulary `make` derives from `trie` for the named tokens `ids`, made once per
/// vocabulary and ids for the last few, as [`marked_trie_shared`].
pub(crate) fn derived_shared(
    trie: &VocabTrie,
    ids: &[u32],
    make: impl FnOnce() -> VocabTrie,
) -> Arc<VocabTrie> {
    derived(trie, Some(ids.to_vec()), make)
}

/// A vocabulary derived from `trie` (`ids`: see [`Derived`]), from the cache or `make`.
fn derived(
    trie: &VocabTrie,
    ids: Option<Vec<u32>>,
    make: impl FnOnce() -> VocabTrie,
) -> Arc<VocabTrie> {
    let key = (trie.fingerprint(), trie.vocab_size(), ids);
    let kept = |m: &Vec<Derived>| {
        m.iter()
            .find(|(k, _)| *k == key)
            .map(|(_, t)| Arc::clone(t))
    };
    if let Some(t) = kept(&DERIVED.lock().unwrap_or_else(|p| p.into_inner())) {
        return t;
    }
    let made = Arc::new(make());
    let mut derived = DERIVED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(t) = kept(&derived) {
        return t;
    }
    if derived.len() == DERIVED_KEPT {
        derived.remove(0);
    }
    derived.push((key, Arc::clone(&made)));
    made
}

/// The vocabulary of `trie` with marker after every token's bytes; tokens holding
/// the marker byte are left out (no admitted text contains them). Ids and EOS ids are
/// kept, so the token automaton composed with it is one over `trie`'s vocabulary.
fn marked_trie(trie: &VocabTrie) -> VocabTrie {
    rewritten(trie, |_, bytes| {
        let bytes = bytes.filter(|b| !b.contains(&MARK))?;
        let mut marked = bytes.to_vec();
        marked.push(MARK);
        Some(marked)
    })
}

/// The vocabulary of `trie` with each token's bytes (`None`: no text) as `text` gives
/// them from its id and its bytes; ids and EOS ids kept.
pub(crate) fn rewritten(
    trie: &VocabTrie,
    text: impl Fn(u32, Option<&[u8]>) -> Option<Vec<u8>>,
) -> VocabTrie {
    let mut tokens: Vec<Option<Vec<u8>>> = vec![None; trie.vocab_size()];
    let mut spelled = Vec::new();
    for (id, slot) in tokens.iter_mut().enumerate() {
        let has = trie.spell_token(id as u32, &mut spelled);
        *slot = text(id as u32, has.then_some(spelled.as_slice()));
    }
    VocabTrie::new(&ByteVocabulary::new(tokens, trie.eos_ids().to_vec()))
}
