//! Projection: the byte automaton of the texts a token automaton accepts.
//!
//! Each state's moves are grouped by target; every group becomes one byte trie of its
//! tokens' bytes whose last byte enters the target, shared by all states with the same
//! group. The NFA then goes through the one subset construction and minimizer of byte
//! automata, so the result is the canonical [`ByteDfa`].

use std::collections::BTreeMap;
use std::time::Instant;

use super::atoms::{JointClasses, Operand};
use super::{byte_dfa_error, OpsError, OpsErrorKind};
use crate::automaton::{StateId, TokenAutomaton};
use crate::bytes::{determinize_within, ByteDfa, Limits, Nfa, State, TerminalKind};
use crate::compose::{compose_classes_with_trie, ComposeLimits};
use crate::fast_hash::FastMap;
use crate::vocab::{TokenVocabulary, VocabTrie};

/// Most byte-NFA states a projection may build (the tries of its token groups).
pub const PROJECTION_NFA_LIMIT: usize = 20_000_000;

/// State-set entries the subset construction may hold per DFA state allowed.
const SET_ENTRIES_PER_STATE: usize = 1024;

/// The minimal byte DFA of the texts of the token sequences `a` accepts: each token read
/// as its bytes in `vocab` (tokens without text spell nothing readable and are left
/// out), within `state_limit` DFA states, before `deadline`.
pub(crate) fn project<W, V>(
    a: &TokenAutomaton<W>,
    vocab: &V,
    state_limit: usize,
    deadline: Option<Instant>,
) -> Result<ByteDfa, OpsError>
where
    W: AsRef<[u32]>,
    V: TokenVocabulary + ?Sized,
{
    if crate::fingerprint(vocab) != a.vocab_fingerprint() || vocab.len() != a.vocab_size() as usize
    {
        return Err(OpsError::new(
            "projection",
            OpsErrorKind::Vocabulary,
            format!(
                "the automaton was compiled for another vocabulary (size {}, fingerprint {:016x})",
                a.vocab_size(),
                a.vocab_fingerprint()
            ),
        ));
    }
    if let Some(dfa) = by_single_bytes(a, vocab, deadline)? {
        return Ok(dfa);
    }
    let nfa = byte_nfa(a, vocab)?;
    let budget = state_limit.saturating_mul(SET_ENTRIES_PER_STATE);
    let limits = Limits::new(state_limit, budget).until(deadline);
    let raw = determinize_within(&nfa, limits).map_err(|e| byte_dfa_error("projection", e))?;
    Ok(ByteDfa::minimal(raw, &[]))
}

/// The projection without a subset construction, when `a` is what composition makes of
/// its single-byte tokens: read each byte as the token spelling it alone (a DFA at
/// once), compose that byte DFA with the vocabulary again, and keep it if the result is
/// equivalent to `a`. Then `a` accepts every tokenization of its texts, each text is
/// spelled by single bytes, and the DFA is the projection. Compiled automata pass; the
/// subset construction over every tokenization (exponential in token length on rich
/// languages) is left for the others.
fn by_single_bytes<W, V>(
    a: &TokenAutomaton<W>,
    vocab: &V,
    deadline: Option<Instant>,
) -> Result<Option<ByteDfa>, OpsError>
where
    W: AsRef<[u32]>,
    V: TokenVocabulary + ?Sized,
{
    let mut single = [None; 256];
    for t in (0..vocab.len() as u32).rev() {
        if let Some(&[b]) = vocab.token_bytes(t) {
            if !a.is_eos(t) {
                single[b as usize] = Some(t);
            }
        }
    }
    let n = a.num_states() as usize;
    let mut nfa: Nfa<(), TerminalKind> = Nfa {
        states: vec![State::Match; 2 * n + 1],
        ranges: Vec::new(),
        targets: Vec::new(),
        start: a.start(),
        terminals: Vec::new(),
        looks: Vec::new(),
    };
    for s in 0..n {
        let off = nfa.ranges.len() as u32;
        for (b, token) in single.iter().enumerate() {
            if let Some(t) = token.and_then(|t| a.next_state(s as StateId, t)) {
                nfa.ranges.push((b as u8, b as u8, t));
            }
        }
        let len = nfa.ranges.len() as u32 - off;
        nfa.states[n + s] = State::Bytes { off, len };
        let off = nfa.targets.len() as u32;
        nfa.targets.push((n + s) as u32);
        if a.is_accepting(s as StateId) {
            nfa.targets.push(2 * n as u32);
        }
        let len = nfa.targets.len() as u32 - off;
        nfa.states[s] = State::Split { off, len };
    }
    // One NFA state per DFA state: the limit is the automaton's size.
    let limits = Limits::new(n.max(1), 4 * n + 4).until(deadline);
    let raw = determinize_within(&nfa, limits).map_err(|e| byte_dfa_error("projection", e))?;
    let dfa = ByteDfa::minimal(raw, &[]);
    let trie = VocabTrie::new(vocab);
    // The composition is as large as `a` when it succeeds: limits from `a`'s size.
    let limits = ComposeLimits {
        token_edge_limit: (2 * a.num_edges() as usize).max(ComposeLimits::DEFAULT_TOKEN_EDGE_LIMIT),
        state_limit: (2 * n).max(ComposeLimits::DEFAULT_STATE_LIMIT),
        deadline,
        ..ComposeLimits::default()
    };
    let Ok(parts) = compose_classes_with_trie(&dfa, &trie, &limits) else {
        return Ok(None);
    };
    let again =
        TokenAutomaton::from_class_parts(parts).map_err(|e| super::parts_error("projection", e))?;
    let algebra = super::TokenAlgebra::new().deadline(deadline);
    let same = algebra
        .equivalent(&again, a)
        .map_err(as_projection)?
        .is_none();
    Ok(same.then_some(dfa))
}

/// The error of the projection's own check, named as the projection's.
fn as_projection(e: OpsError) -> OpsError {
    let message = match e.kind() {
        OpsErrorKind::Deadline => "the projection ran past its deadline (the time budget)".into(),
        _ => format!("the projection: {e}"),
    };
    OpsError::new("projection", e.kind().clone(), message)
}

/// The byte NFA: states `0..n` stand for `a`'s states (epsilons into their groups' tries
/// and, when accepting, into the match state `n`).
fn byte_nfa<W, V>(a: &TokenAutomaton<W>, vocab: &V) -> Result<Nfa<(), TerminalKind>, OpsError>
where
    W: AsRef<[u32]>,
    V: TokenVocabulary + ?Sized,
{
    let n = a.num_states() as usize;
    let joint = JointClasses::single(a);
    let (start, tokens) = joint.tokens();
    let operand = Operand::new(a, &joint);
    let mut nfa = Nfa {
        states: vec![State::Split { off: 0, len: 0 }; n],
        ranges: Vec::new(),
        targets: Vec::new(),
        start: a.start(),
        terminals: Vec::new(),
        looks: Vec::new(),
    };
    nfa.states.push(State::Match);
    let mut shared: FastMap<(StateId, Vec<u32>), Vec<u32>> = FastMap::default();
    let mut splits: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut candidates = Vec::new();
    for s in 0..n as StateId {
        candidates.clear();
        operand.candidates(s, &mut candidates);
        candidates.sort_unstable();
        candidates.dedup();
        let mut groups: BTreeMap<StateId, Vec<u32>> = BTreeMap::new();
        for &class in &candidates {
            groups
                .entry(operand.step(s, class))
                .or_default()
                .push(class);
        }
        for (target, classes) in groups {
            let key = (target, classes);
            if !shared.contains_key(&key) {
                let words = key.1.iter().flat_map(|&c| {
                    tokens[start[c as usize] as usize..start[c as usize + 1] as usize].iter()
                });
                let spelled = words.filter_map(|&t| vocab.token_bytes(t));
                let entries = add_trie(&mut nfa, spelled, target)?;
                shared.insert(key.clone(), entries);
            }
            splits[s as usize].extend_from_slice(&shared[&key]);
        }
        if a.is_accepting(s) {
            splits[s as usize].push(n as u32);
        }
    }
    for (s, list) in splits.into_iter().enumerate() {
        let off = nfa.targets.len() as u32;
        nfa.targets.extend_from_slice(&list);
        nfa.states[s] = State::Split {
            off,
            len: list.len() as u32,
        };
    }
    Ok(nfa)
}

/// Adds the byte trie of `words` whose last bytes enter `target`; returns the states to
/// enter it by epsilon (its root, and `target` itself for an empty word).
fn add_trie<'w>(
    nfa: &mut Nfa<(), TerminalKind>,
    words: impl Iterator<Item = &'w [u8]>,
    target: StateId,
) -> Result<Vec<u32>, OpsError> {
    // Node edges `(byte, next, ends)`: `next` a node, or `target` when the word ends.
    let mut nodes: Vec<Vec<(u8, u32, bool)>> = vec![Vec::new()];
    let mut child: FastMap<(u32, u8), u32> = FastMap::default();
    let mut empty = false;
    for word in words {
        let Some((&last, init)) = word.split_last() else {
            empty = true;
            continue;
        };
        let mut node = 0u32;
        for &b in init {
            node = match child.get(&(node, b)) {
                Some(&next) => next,
                None => {
                    let next = nodes.len() as u32;
                    nodes.push(Vec::new());
                    nodes[node as usize].push((b, next, false));
                    child.insert((node, b), next);
                    next
                }
            };
        }
        nodes[node as usize].push((last, target, true));
    }
    if nfa.states.len() + nodes.len() > PROJECTION_NFA_LIMIT {
        return Err(OpsError::new(
            "projection",
            OpsErrorKind::TooManyStates {
                limit: PROJECTION_NFA_LIMIT,
            },
            format!(
                "the projection's byte NFA needs more than {PROJECTION_NFA_LIMIT} states \
                 (one trie node per distinct token prefix per group of edges)"
            ),
        ));
    }
    let mut entries = Vec::new();
    if nodes[0].is_empty() {
        // Only empty words (or none): no trie.
        nodes.clear();
    } else {
        entries.push(nfa.states.len() as u32);
    }
    let base = nfa.states.len() as u32;
    for edges in nodes {
        let off = nfa.ranges.len() as u32;
        for (b, next, ends) in edges {
            let to = if ends { next } else { base + next };
            nfa.ranges.push((b, b, to));
        }
        let len = nfa.ranges.len() as u32 - off;
        nfa.states.push(State::Bytes { off, len });
    }
    if empty {
        entries.push(target);
    }
    Ok(entries)
}
