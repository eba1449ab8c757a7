//! The lazy token automaton: composition on demand, one state at a time.
//!
//! The eager path (`crate::compose`) composes a byte DFA with the whole vocabulary up
//! front, then trims, minimizes and lays out a file. For a schema compiled once per
//! request that is most of the cost, while a decode visits a few dozen states. A
//! [`LazyAutomaton`] keeps the byte DFA (as a dense table over its byte classes) and the
//! shared [`VocabTrie`], and computes a state's allowed tokens the first time a walk
//! reaches it: one pruned depth-first walk of the vocabulary trie from that DFA state,
//! the same rule as the eager composition's. The result is cached in a slot per DFA state
//! (a `OnceLock`), shared by every matcher and fork of the automaton, across threads.
//!
//! **When to prefer it**: one-off constraints (a JSON Schema per request), where compile
//! plus the first mask matters more than the last microsecond of a cold mask. **What it
//! costs**: each state's first mask is a trie walk (up to the vocabulary trie's size,
//! ~0.1-2 ms on 128k-152k vocabularies, measured by the json bench's cold max; over a
//! call network, most walks go beside an earlier one and cost tens of microseconds, see
//! `leaf`); warm masks are a copy of a cached bitset like the eager walker's. There is no file, no
//! minimization (states are byte-DFA states, so the cache can hold more states than the
//! minimal automaton), and no terminal labels (such a DFA is refused: compile it eagerly).
//!
//! Masks, EOS, accept/reject, forced tokens, validation and rollback equal the eager
//! walker's (the `lazy_differential` tests): EOS ids are allowed exactly in accepting
//! states, tokens without text never (they are not in the trie), and a token is allowed
//! only into a DFA state from which some token sequence reaches acceptance. That
//! *token-level* liveness is what the eager composition's trimming keeps. It is computed
//! here from the byte DFA when the two byte-level bounds agree (every byte a single-byte
//! token: the usual case, and then exact), else state by state as walks need it (`live`).

mod bound;
mod calls;
mod leaf;
mod live;
mod matcher;
mod projection;
mod shared;
mod state;
mod wildcard;

pub use bound::DEFAULT_STATE_WORK_LIMIT;
pub use matcher::LazyMatcher;

use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::bytes::{ByteAutomaton, CallNetwork};
use crate::compose::{transition_table, ComposeError, ComposeErrorKind, DenseClasses};
use crate::matcher::MatchError;
use crate::vocab::{FreeText, VocabTrie};
use calls::Expansion;
use live::Liveness;
use state::{walk, StateInfo, NO_STATE};
use wildcard::Wildcards;

/// A byte DFA over a vocabulary, composed on demand; see the module docs. Cloning shares
/// the DFA, the trie and the cache.
#[derive(Clone, Debug)]
pub struct LazyAutomaton {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    trie: Arc<VocabTrie>,
    vocab_size: u32,
    eos_ids: Vec<u32>,
    side: Side,
}

/// Where the byte-level states come from.
#[derive(Debug)]
enum Side {
    /// A whole byte DFA, as a dense table.
    Table(Table),
    /// A call network's inlined DFA, built as walks reach its states.
    Calls(Mutex<Expansion>),
}

#[derive(Debug)]
struct Table {
    trie: Arc<VocabTrie>,
    /// Dense class of each byte.
    class_of_byte: [u8; 256],
    num_classes: usize,
    /// `table[s * num_classes + c]`: the DFA's transition, `NO_STATE` for none.
    table: Vec<u32>,
    start: u32,
    accepting: Vec<bool>,
    /// Which DFA states a token sequence leads from to acceptance (`live`).
    live: Liveness,
    vocab_size: u32,
    /// Each DFA state's tokens, computed on first use.
    cache: Vec<OnceLock<Arc<StateInfo>>>,
}

impl LazyAutomaton {
    /// The lazy automaton of `dfa` over the vocabulary of `trie`. Fails like the eager
    /// composition on an empty language or an inconsistent DFA, and on terminal labels,
    /// which the lazy matcher does not implement.
    pub fn new<A>(dfa: &A, trie: Arc<VocabTrie>) -> Result<LazyAutomaton, ComposeError>
    where
        A: ByteAutomaton + ?Sized,
    {
        let vocab_size = check_inputs(dfa, &trie)?;
        let identity: [u8; 256] = std::array::from_fn(|b| b as u8);
        let dense = DenseClasses::new(dfa.byte_classes().unwrap_or(&identity));
        let table = transition_table(dfa, &dense, usize::MAX)?
            .expect("no entry limit, so the table is always built");
        let n = dfa.num_states();
        let mut side = Table {
            class_of_byte: dense.class_of_byte,
            num_classes: dense.representative.len(),
            table,
            start: dfa.start(),
            accepting: (0..n as u32).map(|s| dfa.is_accepting(s)).collect(),
            live: Liveness::default(),
            vocab_size,
            cache: (0..n).map(|_| OnceLock::new()).collect(),
            trie: Arc::clone(&trie),
        };
        side.live = Liveness::new(&side);
        let live = side.live.is_live(side.start, &side).map_err(|e| {
            ComposeError::new(
                ComposeErrorKind::InvalidInput,
                format!("the start state: {e}"),
            )
        })?;
        if !live {
            return Err(ComposeError::empty_language());
        }
        Ok(LazyAutomaton {
            inner: Arc::new(Inner {
                eos_ids: trie.eos_ids().to_vec(),
                trie,
                vocab_size,
                side: Side::Table(side),
            }),
        })
    }

    /// The lazy automaton of a call network's language over the vocabulary of `trie`:
    /// the inlined DFA is never built, its states are made as walks reach them. Needs
    /// every byte the machines read to be a single-byte token of the vocabulary (then
    /// every state is live at the token level, as the module docs explain); else an
    /// error names a missing byte, and the caller builds the inlined DFA instead.
    pub fn with_calls(
        network: Arc<CallNetwork>,
        trie: Arc<VocabTrie>,
    ) -> Result<LazyAutomaton, ComposeError> {
        LazyAutomaton::with_calls_and_free_text(network, trie, Vec::new())
    }

    /// [`with_calls`](Self::with_calls), told the free texts the language holds (a
    /// structural tag's, by their excluded strings): a state found to read one of them
    /// (checked on the network's own transitions, see `lazy/wildcard.rs`) takes its tokens
    /// from that text's precomputed sets, a copy and a walk of about 1% of the vocabulary
    /// instead of a walk of the whole trie. The language is the network's either way.
    pub fn with_calls_and_free_text(
        network: Arc<CallNetwork>,
        trie: Arc<VocabTrie>,
        free_texts: Vec<FreeText>,
    ) -> Result<LazyAutomaton, ComposeError> {
        let vocab_size = u32::try_from(trie.vocab_size()).map_err(|_| {
            ComposeError::new(
                ComposeErrorKind::InvalidInput,
                "the vocabulary has more ids than token ids (u32) can number".to_string(),
            )
        })?;
        let mut single = [false; 256];
        for b in single_byte_tokens(&trie) {
            single[b as usize] = true;
        }
        let read = network.bytes_read();
        if let Some(b) = (0..256).find(|&b| read[b] && !single[b]) {
            return Err(ComposeError::new(
                ComposeErrorKind::InvalidInput,
                format!(
                    "byte 0x{b:02X} is read by the network but is not a token of its own, so \
                     liveness is not decided byte by byte; build the inlined DFA"
                ),
            ));
        }
        let mut expansion = Expansion::new(network);
        expansion.wildcards = Wildcards::new(free_texts);
        Ok(LazyAutomaton {
            inner: Arc::new(Inner {
                eos_ids: trie.eos_ids().to_vec(),
                trie,
                vocab_size,
                side: Side::Calls(Mutex::new(expansion)),
            }),
        })
    }

    /// Bounds the work of composing one state's tokens over a call network (stacks closed
    /// and stepped; default [`DEFAULT_STATE_WORK_LIMIT`]): past it, the mask or token that
    /// needed the state fails with `MatchErrorKind::ComposeLimit`, the matcher unchanged
    /// (the work completed is kept: asking again goes on from there). A whole DFA's state costs one walk of the vocabulary trie at most, so this
    /// bounds there only the search that decides whether a state can still reach
    /// acceptance, where a vocabulary's short tokens do not settle it (`live`).
    pub fn set_state_work_limit(&self, steps: u64) {
        match &self.inner.side {
            Side::Calls(e) => lock(e).work.set_limit(steps),
            Side::Table(t) => t.live.set_limit(steps),
        }
    }

    /// A matcher at the start, sharing this automaton's cache.
    pub fn start_matcher(&self) -> LazyMatcher {
        LazyMatcher::new(self.clone())
    }

    /// Number of token ids of the vocabulary.
    pub fn vocab_size(&self) -> u32 {
        self.inner.vocab_size
    }

    /// The vocabulary's EOS ids, sorted.
    pub fn eos_ids(&self) -> &[u32] {
        &self.inner.eos_ids
    }

    /// Number of byte-DFA states: the most states the cache can hold (for a call
    /// network, the states built so far).
    pub fn num_dfa_states(&self) -> usize {
        match &self.inner.side {
            Side::Table(t) => t.accepting.len(),
            Side::Calls(e) => lock(e).num_states(),
        }
    }

    /// Number of states whose tokens have been computed so far.
    pub fn num_cached_states(&self) -> usize {
        match &self.inner.side {
            Side::Table(t) => t.cache.iter().filter(|c| c.get().is_some()).count(),
            Side::Calls(e) => lock(e).num_cached(),
        }
    }

    /// Number of states whose tokens came from a free text's precomputed sets
    /// ([`with_calls_and_free_text`](Self::with_calls_and_free_text)) so far.
    pub fn num_free_text_states(&self) -> usize {
        match &self.inner.side {
            Side::Table(_) => 0,
            Side::Calls(e) => lock(e).wildcards.num_used(),
        }
    }

    fn start(&self) -> u32 {
        match &self.inner.side {
            Side::Table(t) => t.start,
            Side::Calls(_) => 0,
        }
    }

    fn is_accepting(&self, state: u32) -> bool {
        match &self.inner.side {
            Side::Table(t) => t.accepting[state as usize],
            Side::Calls(e) => lock(e).is_accepting(state),
        }
    }

    fn is_eos(&self, token: u32) -> bool {
        self.inner.eos_ids.binary_search(&token).is_ok()
    }

    /// The tokens of `state`, computed now if no walk reached it before; an error when
    /// that passes the state work limit ([`LazyAutomaton::set_state_work_limit`]).
    fn info(&self, state: u32) -> Result<Arc<StateInfo>, MatchError> {
        match &self.inner.side {
            Side::Table(t) => {
                let slot = &t.cache[state as usize];
                if let Some(info) = slot.get() {
                    return Ok(Arc::clone(info));
                }
                let info = Arc::new(t.compute(state)?);
                Ok(Arc::clone(slot.get_or_init(|| info)))
            }
            Side::Calls(e) => lock(e).info(state, &self.inner.trie, self.inner.vocab_size),
        }
    }

    /// Where `token` leads from `state`, if it is one of its token edges (EOS aside).
    fn next_state(&self, state: u32, token: u32) -> Result<Option<u32>, MatchError> {
        if !self.info(state)?.contains(token) {
            return Ok(None);
        }
        let mut bytes = Vec::new();
        self.inner.trie.spell_token(token, &mut bytes);
        Ok(match &self.inner.side {
            Side::Table(t) => t.run(state, &bytes),
            Side::Calls(e) => lock(e).run(state, &bytes),
        })
    }
}

/// The expansion, whose lock is only poisoned if a panic interrupted a step; its tables
/// then still hold only complete entries.
fn lock(e: &Mutex<Expansion>) -> MutexGuard<'_, Expansion> {
    e.lock().unwrap_or_else(|p| p.into_inner())
}

/// The bytes that are text tokens on their own: the trie root's children with tokens.
fn single_byte_tokens(trie: &VocabTrie) -> Vec<u8> {
    let mut out = Vec::new();
    let mut node = 1;
    while node < trie.num_nodes() {
        if !trie.node_tokens(node).is_empty() {
            out.push(trie.node_byte(node));
        }
        node = trie.subtree_end(node);
    }
    out
}

/// The vocabulary size as a token id bound, once the inputs are known to be consistent.
fn check_inputs<A>(dfa: &A, trie: &VocabTrie) -> Result<u32, ComposeError>
where
    A: ByteAutomaton + ?Sized,
{
    let vocab_size = u32::try_from(trie.vocab_size()).map_err(|_| {
        ComposeError::new(
            ComposeErrorKind::InvalidInput,
            format!(
                "the vocabulary has {} ids, more than token ids (u32) can number",
                trie.vocab_size()
            ),
        )
    })?;
    if dfa.num_states() == 0 {
        return Err(ComposeError::empty_language());
    }
    if dfa.num_terminals() > 0 {
        return Err(ComposeError::new(
            ComposeErrorKind::InvalidInput,
            format!(
                "the lazy matcher does not implement terminal labels ({} in this automaton, \
                 e.g. (?P<TEXT_TOKEN>)); compile it eagerly",
                dfa.num_terminals()
            ),
        ));
    }
    if dfa.start() as usize >= dfa.num_states() {
        return Err(ComposeError::new(
            ComposeErrorKind::InvalidInput,
            format!(
                "start state {} is out of range (the automaton has {} states)",
                dfa.start(),
                dfa.num_states()
            ),
        ));
    }
    Ok(vocab_size)
}

impl Table {
    /// The DFA state after `bytes` from `state`, if it does not die on the way.
    fn run(&self, mut state: u32, bytes: &[u8]) -> Option<u32> {
        for &b in bytes {
            let c = self.class_of_byte[b as usize] as usize;
            state = self.table[state as usize * self.num_classes + c];
            if state == NO_STATE {
                return None;
            }
        }
        Some(state)
    }

    /// Calls `visit(target)` for every token node the DFA reads from `from`, counting
    /// the trie nodes stepped in `steps`.
    fn walk_counting(&self, from: u32, steps: &mut u64, mut visit: impl FnMut(u32)) {
        let k = self.num_classes;
        let step = |s: u32, c: usize| {
            *steps += 1;
            self.table[s as usize * k + c]
        };
        walk(&self.trie, &self.class_of_byte, from, step, |t, _| visit(t));
    }

    /// The token edges of `state`: every token whose bytes drive the DFA from `state`
    /// into a live state; an error when deciding a target's liveness passes the work limit.
    fn compute(&self, state: u32) -> Result<StateInfo, MatchError> {
        let mut tokens = Vec::new();
        let mut failed = None;
        let k = self.num_classes;
        walk(
            &self.trie,
            &self.class_of_byte,
            state,
            |s, c| self.table[s as usize * k + c],
            |t, ids| match failed.is_none().then(|| self.live.is_live(t, self)) {
                Some(Ok(true)) => tokens.extend_from_slice(ids),
                Some(Err(e)) => failed = Some(e),
                _ => {}
            },
        );
        match failed {
            Some(e) => Err(e),
            None => Ok(StateInfo::from_tokens(tokens, self.vocab_size)),
        }
    }
}
