//! Operations on compiled token automata, in the manner of OpenFst's command-line tools:
//! intersection, union, difference, complement, equivalence with a distinguishing
//! sequence, a shortest accepted sequence, projection to the byte automaton of the
//! accepted texts, and exchange with OpenFst files ([`openfst`]).
//!
//! Products run over *joint classes* (the coarsest refinement of both operands' token
//! classes and terminal masks), never over single tokens, and each result is minimized by
//! [`crate::minimize`] and laid out like a compiled automaton, so equal languages give
//! equal files. Acceptance is where EOS is allowed, as in every token automaton.
//!
//! On automata compiled from constraints these operations are exact on texts: a compiled
//! automaton accepts every tokenization of each text it accepts (its token language is
//! the preimage of a byte language under detokenization), and preimages commute with
//! intersection, union, difference and complement (within [`text_tokens`]). So
//! `intersect(compile(R), compile(S))` is `compile(R ∩ S)`. Concatenation and closure do
//! not commute (a token may span the boundary) and are left to byte automata
//! ([`crate::bytes::Algebra`]) before composition.

mod atoms;
pub mod openfst;
mod pda_bound;
mod pda_explore;
mod pda_live;
mod pda_product;
mod product;
mod project;
mod rows;

use std::fmt;
use std::time::Instant;

use crate::automaton::{AutomatonParts, Terminal, TokenAutomaton};
use crate::bytes::{ByteDfa, ByteDfaError};
use crate::compiled::{CompileStats, Compiled};
use crate::deadline::{PastDeadline, Poll};
use crate::minimize::minimal_dfa_before;
use crate::parts::{PartsError, PdaParts};
use crate::token_pda::TokenPda;
use crate::vocab::{TokenVocabulary, VocabTrie};

use atoms::{JointClasses, Operand};
use product::{class_parts, explore, Op};

/// Default cap on product states (counted as they are created, before minimization): the
/// composition's default ([`crate::compose::ComposeLimits::DEFAULT_STATE_LIMIT`]).
pub const DEFAULT_STATE_LIMIT: usize = crate::compose::ComposeLimits::DEFAULT_STATE_LIMIT;

/// What went wrong in an operation.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum OpsErrorKind {
    /// The operands were compiled for different vocabularies or EOS ids.
    Vocabulary,
    /// The result would pass `limit` states.
    TooManyStates {
        /// The state limit in force.
        limit: usize,
    },
    /// A byte automaton step failed (projection's subset construction).
    ByteDfa(ByteDfaError),
    /// The result does not lay out as an automaton file.
    Parts(PartsError),
    /// An OpenFst file does not read as a byte acceptor, or an automaton cannot be written
    /// as one.
    OpenFst,
    /// The operation ran past [`TokenAlgebra::deadline`].
    Deadline,
    /// An analysis would hold more than [`TokenAlgebra::memory_limit`] bytes.
    Memory {
        /// The memory limit in force.
        limit: usize,
    },
}

/// An operation that failed; `Display` names the operation and what to change.
#[derive(Clone, Debug)]
pub struct OpsError {
    operation: &'static str,
    kind: OpsErrorKind,
    message: String,
}

impl OpsError {
    pub(crate) fn new(operation: &'static str, kind: OpsErrorKind, message: String) -> OpsError {
        OpsError {
            operation,
            kind,
            message,
        }
    }

    /// What kind of error this is.
    pub fn kind(&self) -> &OpsErrorKind {
        &self.kind
    }

    /// The operation that failed (`"intersection"`, `"projection"`, `"OpenFst import"`, ...).
    pub fn operation(&self) -> &'static str {
        self.operation
    }
}

impl fmt::Display for OpsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for OpsError {}

/// A shortest token sequence accepted by exactly one of two automata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distinction {
    /// The tokens, least in token-id order among the shortest.
    pub tokens: Vec<u32>,
    /// Whether the first operand accepts them (else the second does).
    pub accepted_by_first: bool,
}

/// The tokens a complement ranges over: every token with text (the tokens a compiled
/// automaton may read) that is not EOS, as a mask laid out like a walker's.
pub fn text_tokens<V: TokenVocabulary + ?Sized>(vocab: &V) -> Vec<u32> {
    text_tokens_of_trie(&VocabTrie::new(vocab))
}

/// [`text_tokens`] of the vocabulary a trie was built for.
pub fn text_tokens_of_trie(trie: &VocabTrie) -> Vec<u32> {
    let mut mask = trie.text_token_mask(None);
    for &e in trie.eos_ids() {
        if let Some(word) = mask.get_mut(e as usize / 32) {
            *word &= !(1 << (e % 32));
        }
    }
    mask
}

/// Every sequence of at most `n` text tokens of `vocab` ([`text_tokens`]): a length
/// bound to intersect with a constraint ("this schema in at most 200 tokens"). Unlike
/// the compiled automata it is about tokens, not texts, so it does not accept every
/// tokenization of its texts. Its `n + 1` states are bounded by [`DEFAULT_STATE_LIMIT`]
/// ([`TokenAlgebra::at_most_tokens`] takes other limits and the budgets).
pub fn at_most_tokens<V: TokenVocabulary + ?Sized>(
    vocab: &V,
    n: usize,
) -> Result<TokenAutomaton, OpsError> {
    at_most_tokens_of_trie(&VocabTrie::new(vocab), n)
}

/// [`at_most_tokens`] over the vocabulary a trie was built for.
pub fn at_most_tokens_of_trie(trie: &VocabTrie, n: usize) -> Result<TokenAutomaton, OpsError> {
    TokenAlgebra::new().at_most_tokens(trie, n)
}

/// Bytes a state of [`TokenAlgebra::at_most_tokens`]'s automaton holds while it is built
/// and laid out (its edge list, acceptance and file words, with room to spare), beside
/// 8 bytes per token id (the class map of the parts and of the file).
const BYTES_PER_BOUND_STATE: u64 = 64;

/// The error of an operation whose tables would pass the memory limit.
pub(crate) fn past_memory(name: &'static str, what: &str, bytes: u64, limit: usize) -> OpsError {
    OpsError::new(
        name,
        OpsErrorKind::Memory { limit },
        format!(
            "the {name} needs at least {bytes} bytes for {what}, past its memory limit of \
             {limit} bytes"
        ),
    )
}

/// Runs the operations with a state limit; `TokenAlgebra::new()` uses
/// [`DEFAULT_STATE_LIMIT`].
#[derive(Clone, Debug)]
pub struct TokenAlgebra {
    state_limit: usize,
    deadline: Option<Instant>,
    memory_limit: usize,
    bounds: bool,
}

/// The deadline of one operation, polled by its loops.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    name: &'static str,
    deadline: Option<Instant>,
}

impl Clock {
    /// An error once the deadline has passed.
    pub(crate) fn check(&self) -> Result<(), OpsError> {
        match self.deadline {
            Some(d) if Instant::now() > d => Err(self.past()),
            _ => Ok(()),
        }
    }

    /// The error of an operation past its deadline.
    pub(crate) fn past(&self) -> OpsError {
        OpsError::new(
            self.name,
            OpsErrorKind::Deadline,
            format!("the {} ran past its deadline (the time budget)", self.name),
        )
    }
}

impl Default for TokenAlgebra {
    fn default() -> Self {
        TokenAlgebra::new()
    }
}

impl TokenAlgebra {
    /// Operations with the default state limit.
    pub fn new() -> TokenAlgebra {
        TokenAlgebra {
            state_limit: DEFAULT_STATE_LIMIT,
            deadline: None,
            memory_limit: usize::MAX,
            bounds: true,
        }
    }

    /// Caps the states an operation may create (before minimization). 0 counts as 1.
    pub fn state_limit(mut self, limit: usize) -> TokenAlgebra {
        self.state_limit = limit.clamp(1, (u32::MAX / 2) as usize);
        self
    }

    /// Gives up past `deadline` (polled as states are made) with
    /// [`OpsErrorKind::Deadline`]: a caller's time budget.
    pub fn deadline(mut self, deadline: Option<Instant>) -> TokenAlgebra {
        self.deadline = deadline;
        self
    }

    /// Caps the bytes of an operation's working tables with [`OpsErrorKind::Memory`]: a
    /// caller's memory budget. It bounds the product states of the FSA operations and
    /// `equivalent`, and [`TokenAlgebra::intersect_pda`]'s analyses (the dead-end
    /// analysis's bit matrix, the bounded construction's cost table). Unlimited by
    /// default (the matrix has its own cap of 512 MiB).
    pub fn memory_limit(mut self, bytes: usize) -> TokenAlgebra {
        self.memory_limit = bytes;
        self
    }

    /// Whether [`TokenAlgebra::intersect_pda`] recognizes an FSA that only bounds the
    /// number of tokens ([`token_bound`]) and takes [`TokenAlgebra::bound_pda`]'s smaller
    /// construction (the default); `false` keeps the general product, for comparisons.
    pub fn recognize_bounds(mut self, on: bool) -> TokenAlgebra {
        self.bounds = on;
        self
    }

    fn clock(&self, name: &'static str) -> Clock {
        Clock {
            name,
            deadline: self.deadline,
        }
    }

    /// The state limit in force.
    pub fn get_state_limit(&self) -> usize {
        self.state_limit
    }

    /// [`at_most_tokens`] within this algebra's state limit (its `n + 1` states), memory
    /// limit (checked before anything is built) and deadline (polled as it is laid out).
    pub fn at_most_tokens(&self, trie: &VocabTrie, n: usize) -> Result<TokenAutomaton, OpsError> {
        let name = "token bound";
        if n >= self.state_limit {
            return Err(OpsError::new(
                name,
                OpsErrorKind::TooManyStates {
                    limit: self.state_limit,
                },
                format!(
                    "a bound of {n} tokens needs {} states, past the state limit of {}",
                    n as u64 + 1,
                    self.state_limit
                ),
            ));
        }
        let held = trie.vocab_size() as u64 * 8 + (n as u64 + 1) * BYTES_PER_BOUND_STATE;
        if held > self.memory_limit as u64 {
            return Err(past_memory(name, "its states", held, self.memory_limit));
        }
        let clock = self.clock(name);
        clock.check()?;
        let mask = text_tokens_of_trie(trie);
        let on = |t: usize| mask[t / 32] & (1 << (t % 32)) != 0;
        let class_of_token = (0..trie.vocab_size())
            .map(|t| if on(t) { 0 } else { crate::automaton::NO_CLASS })
            .collect();
        let edges = (0..=n as u32)
            .map(|s| {
                if (s as usize) < n {
                    vec![(0, s + 1)]
                } else {
                    Vec::new()
                }
            })
            .collect();
        let parts = crate::automaton::ClassParts {
            vocab_size: trie.vocab_size() as u32,
            vocab_fingerprint: trie.fingerprint(),
            eos_ids: trie.eos_ids().to_vec(),
            start: 0,
            accepting: vec![true; n + 1],
            num_classes: 1,
            class_of_token,
            edges,
            terminals: Vec::new(),
        };
        TokenAutomaton::from_class_parts_before(parts, self.deadline)
            .map_err(|e| parts_error(name, e))?
            .ok_or_else(|| clock.past())
    }

    /// Token sequences both accept.
    pub fn intersect<A: AsRef<[u32]>, B: AsRef<[u32]>>(
        &self,
        a: &TokenAutomaton<A>,
        b: &TokenAutomaton<B>,
    ) -> Result<Compiled<TokenAutomaton>, OpsError> {
        self.binary("intersection", a, b, Op::And)
    }

    /// Token sequences a token PDA and a token FSA both accept, as a token PDA (kept
    /// nondeterministic if `pda` is). Without dead ends: every token a walker allows
    /// leads to a configuration from which EOS can still be reached, so a decoder never
    /// paints itself into a corner (an opened bracket with no tokens left to close it).
    /// The state limit bounds the nodes of the product and of the result.
    pub fn intersect_pda<P: AsRef<[u32]>, A: AsRef<[u32]>>(
        &self,
        pda: &TokenPda<P>,
        fsa: &TokenAutomaton<A>,
    ) -> Result<Compiled<TokenPda>, OpsError> {
        let name = "intersection";
        let pda = pda.to_parts();
        same_vocabulary_of(name, vocab_of_parts(&pda), vocab_of(fsa))?;
        if let Some(n) = self.bounds.then(|| bound_of(fsa, &pda)).flatten() {
            return self.bounded(pda, n, CompileStats::new());
        }
        let mut stats = CompileStats::new();
        let (joint, product) = self.pda_product(name, &pda, fsa, &mut stats)?;
        let live = stats.time("dead ends", || {
            let limits = (self.state_limit, self.memory_limit);
            pda_live::annotate(&product, &pda.push_seqs, limits, self.clock(name))
        })?;
        let parts = pda_parts(&pda, joint.class_of, joint.first.len() as u32, live);
        self.lay_out(parts, stats)
    }

    /// Token sequences a token PDA and a token FSA both accept, of at most `n` tokens, as
    /// a token PDA without dead ends: [`TokenAlgebra::intersect_pda`] then
    /// [`TokenAlgebra::bound_pda`], in one construction over the plain product (whose
    /// dead ends the bounded construction removes), so the product is never split by
    /// liveness first.
    pub fn intersect_pda_bounded<P: AsRef<[u32]>, A: AsRef<[u32]>>(
        &self,
        pda: &TokenPda<P>,
        fsa: &TokenAutomaton<A>,
        n: usize,
    ) -> Result<Compiled<TokenPda>, OpsError> {
        let name = "intersection";
        let pda = pda.to_parts();
        same_vocabulary_of(name, vocab_of_parts(&pda), vocab_of(fsa))?;
        let mut stats = CompileStats::new();
        let (joint, product) = self.pda_product(name, &pda, fsa, &mut stats)?;
        let edges = (product.edges.into_iter())
            .map(|list| {
                (list.into_iter())
                    .map(|(class, target, push)| crate::parts::PdaEdge {
                        class,
                        target,
                        push,
                    })
                    .collect()
            })
            .collect();
        let parts = PdaParts {
            num_classes: joint.len() as u32,
            class_of_token: joint.class_of,
            start: 0,
            accepting: product.accepting,
            edges,
            pops: product.pops,
            ..pda
        };
        self.bounded(parts, n, stats)
    }

    /// The joint token classes of `pda` and `fsa` and their product reachable from the
    /// start, each a phase of `stats`: the first step of both PDA intersections.
    fn pda_product<A: AsRef<[u32]>>(
        &self,
        name: &'static str,
        pda: &PdaParts,
        fsa: &TokenAutomaton<A>,
        stats: &mut CompileStats,
    ) -> Result<(JointClasses, pda_product::PdaGraph), OpsError> {
        let joint = stats.time("joint classes", || {
            JointClasses::of_class_map(&pda.class_of_token, fsa)
        });
        stats.set_count("joint classes", joint.len());
        let product = stats.time("product", || {
            let operand = Operand::new(fsa, &joint);
            pda_product::product(pda, &operand, &joint, self.state_limit, self.clock(name))
        })?;
        stats.set_count("product nodes", product.len());
        Ok((joint, product))
    }

    /// Token sequences of `pda` of at most `n` tokens, as a token PDA without dead ends
    /// (what [`TokenAlgebra::intersect_pda`] with [`at_most_tokens`] accepts), in about
    /// `n` × the PDA's nodes where the general product makes about `n²` × on a nesting
    /// grammar: a node keeps the tokens left minus what its stack needs to close.
    pub fn bound_pda<P: AsRef<[u32]>>(
        &self,
        pda: &TokenPda<P>,
        n: usize,
    ) -> Result<Compiled<TokenPda>, OpsError> {
        self.bounded(pda.to_parts(), n, CompileStats::new())
    }

    fn bounded(
        &self,
        pda: PdaParts,
        n: usize,
        mut stats: CompileStats,
    ) -> Result<Compiled<TokenPda>, OpsError> {
        let name = "intersection";
        if n > pda_bound::MAX_BOUND {
            return Err(OpsError::new(
                name,
                OpsErrorKind::TooManyStates {
                    limit: pda_bound::MAX_BOUND,
                },
                format!(
                    "a bound of {n} tokens on a token PDA is past the most the bounded \
                     construction takes ({})",
                    pda_bound::MAX_BOUND
                ),
            ));
        }
        stats.set_count("token bound", n);
        let live = stats.time("bounded product", || {
            let limits = (self.state_limit, self.memory_limit);
            pda_bound::bound(&pda, n, limits, self.clock(name))
        })?;
        let parts = pda_parts(&pda, pda.class_of_token.clone(), pda.num_classes, live);
        self.lay_out(parts, stats)
    }

    /// Lays out a product's parts (before the deadline) and counts the result.
    fn lay_out(
        &self,
        parts: PdaParts,
        mut stats: CompileStats,
    ) -> Result<Compiled<TokenPda>, OpsError> {
        let clock = self.clock("intersection");
        clock.check()?;
        let automaton = stats
            .time("layout", || {
                TokenPda::from_parts_before(parts, self.deadline)
            })
            .map_err(|e| parts_error("intersection", e))?
            .ok_or_else(|| clock.past())?;
        stats.set_count("nodes", automaton.num_nodes() as usize);
        stats.set_count("stack symbols", automaton.num_stack_symbols() as usize);
        Ok(Compiled::new(automaton, stats))
    }

    /// Token sequences either accepts.
    pub fn union<A: AsRef<[u32]>, B: AsRef<[u32]>>(
        &self,
        a: &TokenAutomaton<A>,
        b: &TokenAutomaton<B>,
    ) -> Result<Compiled<TokenAutomaton>, OpsError> {
        self.binary("union", a, b, Op::Or)
    }

    /// Token sequences `a` accepts and `b` does not.
    pub fn difference<A: AsRef<[u32]>, B: AsRef<[u32]>>(
        &self,
        a: &TokenAutomaton<A>,
        b: &TokenAutomaton<B>,
    ) -> Result<Compiled<TokenAutomaton>, OpsError> {
        self.binary("difference", a, b, Op::AndNot)
    }

    /// Sequences of the tokens in `alphabet` (a mask, e.g. [`text_tokens`]) that `a` does
    /// not accept. EOS ids are never in it.
    pub fn complement<W: AsRef<[u32]>>(
        &self,
        a: &TokenAutomaton<W>,
        alphabet: &[u32],
    ) -> Result<Compiled<TokenAutomaton>, OpsError> {
        let universe = universe(a, alphabet)?;
        self.binary("complement", &universe, a, Op::AndNot)
    }

    /// `None` when `a` and `b` accept the same token sequences, else a shortest sequence
    /// only one of them accepts.
    pub fn equivalent<A: AsRef<[u32]>, B: AsRef<[u32]>>(
        &self,
        a: &TokenAutomaton<A>,
        b: &TokenAutomaton<B>,
    ) -> Result<Option<Distinction>, OpsError> {
        same_vocabulary("equivalence", a, b)?;
        let joint = JointClasses::of(a, b);
        let (oa, ob) = (Operand::new(a, &joint), Operand::new(b, &joint));
        let product = explore(
            "equivalence",
            &oa,
            &ob,
            Op::Xor,
            (self.state_limit, self.memory_limit),
            self.clock("equivalence"),
        )?;
        let parts = class_parts(a, &joint, product.accepting, product.edges);
        let clock = self.clock("equivalence");
        clock.check()?;
        let xor =
            TokenAutomaton::from_class_parts(parts).map_err(|e| parts_error("equivalence", e))?;
        let found = xor.shortest_path_until(|s| xor.is_accepting(s), Poll::new(self.deadline));
        let Some(tokens) = found.map_err(|PastDeadline| clock.past())? else {
            return Ok(None);
        };
        let accepted_by_first = accepts(a, &tokens);
        Ok(Some(Distinction {
            tokens,
            accepted_by_first,
        }))
    }

    /// A shortest token sequence `a` accepts (the least in token-id order among the
    /// shortest), or `None` when it accepts none; fails only past the deadline.
    pub fn shortest<W: AsRef<[u32]>>(
        &self,
        a: &TokenAutomaton<W>,
    ) -> Result<Option<Vec<u32>>, OpsError> {
        (a.shortest_path_until(|s| a.is_accepting(s), Poll::new(self.deadline)))
            .map_err(|PastDeadline| self.clock("shortest path").past())
    }

    /// The minimal byte DFA of the texts of the token sequences `a` accepts, each token
    /// read as its bytes in `vocab` (which must be `a`'s); tokens without text are left
    /// out. The state limit bounds the byte DFA; the deadline is polled by its subset
    /// constructions.
    pub fn project<W, V>(&self, a: &TokenAutomaton<W>, vocab: &V) -> Result<ByteDfa, OpsError>
    where
        W: AsRef<[u32]>,
        V: TokenVocabulary + ?Sized,
    {
        project::project(a, vocab, self.state_limit, self.deadline)
    }

    /// The binary product operations: joint classes, product, minimization, layout.
    fn binary<A: AsRef<[u32]>, B: AsRef<[u32]>>(
        &self,
        name: &'static str,
        a: &TokenAutomaton<A>,
        b: &TokenAutomaton<B>,
        op: Op,
    ) -> Result<Compiled<TokenAutomaton>, OpsError> {
        same_vocabulary(name, a, b)?;
        let mut stats = CompileStats::new();
        let joint = stats.time("joint classes", || JointClasses::of(a, b));
        stats.set_count("joint classes", joint.len());
        let product = stats.time("product", || {
            let (oa, ob) = (Operand::new(a, &joint), Operand::new(b, &joint));
            let limits = (self.state_limit, self.memory_limit);
            explore(name, &oa, &ob, op, limits, self.clock(name))
        })?;
        stats.set_count("product states", product.accepting.len());
        let clock = self.clock(name);
        let (accepting, edges) = stats
            .time("minimization", || {
                minimal_dfa_before(0, product.accepting, product.edges, self.deadline)
            })
            .ok_or_else(|| clock.past())?;
        let parts = class_parts(a, &joint, accepting, edges);
        clock.check()?;
        let automaton = stats
            .time("layout", || TokenAutomaton::from_class_parts(parts))
            .map_err(|e| parts_error(name, e))?;
        stats.count_automaton(&automaton);
        Ok(Compiled::new(automaton, stats))
    }
}

/// `Some(n)` when `fsa` accepts exactly the sequences of at most `n` tokens over a set
/// holding every token `pda` reads (as [`at_most_tokens`] makes it): then intersecting
/// them is bounding `pda` by `n` tokens ([`TokenAlgebra::bound_pda`]).
pub fn token_bound<A: AsRef<[u32]>, P: AsRef<[u32]>>(
    fsa: &TokenAutomaton<A>,
    pda: &TokenPda<P>,
) -> Option<usize> {
    bound_of(fsa, &pda.to_parts())
}

fn bound_of<A: AsRef<[u32]>>(fsa: &TokenAutomaton<A>, pda: &PdaParts) -> Option<usize> {
    let read: Vec<u32> = (0..pda.class_of_token.len() as u32)
        .filter(|&t| pda.class_of_token[t as usize] != crate::parts::NO_CLASS)
        .collect();
    let (mut s, mut steps) = (fsa.start(), 0usize);
    let mut checked: Option<Vec<u32>> = None;
    loop {
        if !fsa.is_accepting(s) || fsa.terminal_edges(s).next().is_some() {
            return None;
        }
        let edges: Vec<(u32, crate::automaton::StateId)> = fsa.class_edges(s).collect();
        let Some(&(_, next)) = edges.first() else {
            return (steps + 1 == fsa.num_states() as usize && steps <= pda_bound::MAX_BOUND)
                .then_some(steps);
        };
        if edges.iter().any(|&(_, t)| t != next) || steps + 1 >= fsa.num_states() as usize {
            return None;
        }
        let mut classes: Vec<u32> = edges.iter().map(|&(c, _)| c).collect();
        classes.sort_unstable();
        if checked.as_ref() != Some(&classes) {
            let covered =
                |t: &u32| (fsa.token_class(*t)).is_some_and(|c| classes.binary_search(&c).is_ok());
            if !read.iter().all(covered) {
                return None;
            }
            checked = Some(classes);
        }
        (s, steps) = (next, steps + 1);
    }
}

/// Whether `a` accepts `tokens` (then EOS).
fn accepts<W: AsRef<[u32]>>(a: &TokenAutomaton<W>, tokens: &[u32]) -> bool {
    let mut s = a.start();
    for &t in tokens {
        match a.next_state(s, t) {
            Some(next) => s = next,
            None => return false,
        }
    }
    a.is_accepting(s)
}

/// One accepting state reading every token of `alphabet`, over `like`'s vocabulary.
fn universe<W: AsRef<[u32]>>(
    like: &TokenAutomaton<W>,
    alphabet: &[u32],
) -> Result<TokenAutomaton, OpsError> {
    let words = (like.vocab_size() as usize).div_ceil(32);
    if alphabet.len() != words {
        return Err(OpsError::new(
            "complement",
            OpsErrorKind::Vocabulary,
            format!(
                "the alphabet mask has {} words; the vocabulary of {} ids needs {words}",
                alphabet.len(),
                like.vocab_size()
            ),
        ));
    }
    let mut mask = alphabet.to_vec();
    for &e in like.eos_ids() {
        mask[e as usize / 32] &= !(1 << (e % 32));
    }
    // A terminal edge reads the whole mask: one edge, whatever the alphabet.
    let parts = AutomatonParts {
        vocab_size: like.vocab_size(),
        vocab_fingerprint: like.vocab_fingerprint(),
        eos_ids: like.eos_ids().to_vec(),
        start: 0,
        accepting: vec![true],
        edges: vec![vec![(like.vocab_size(), 0)]],
        terminals: vec![Terminal {
            name: "ALPHABET".to_string(),
            mask,
        }],
    };
    TokenAutomaton::from_parts(parts).map_err(|e| parts_error("complement", e))
}

/// The result of [`TokenAlgebra::intersect_pda`] as parts: the annotated product over
/// the joint classes, or one node accepting nothing when nothing can finish.
fn pda_parts(
    pda: &PdaParts,
    class_of_token: Vec<u32>,
    num_classes: u32,
    live: Option<pda_explore::Annotated>,
) -> PdaParts {
    let live = live.unwrap_or(pda_explore::Annotated {
        accepting: vec![false],
        edges: vec![Vec::new()],
        pops: vec![Vec::new()],
        push_seqs: vec![Vec::new()],
        num_stack_symbols: 0,
    });
    PdaParts {
        vocab_size: pda.vocab_size,
        vocab_fingerprint: pda.vocab_fingerprint,
        eos_ids: pda.eos_ids.clone(),
        num_stack_symbols: live.num_stack_symbols,
        start: 0,
        accepting: live.accepting,
        num_classes,
        class_of_token,
        edges: live.edges,
        pops: live.pops,
        push_seqs: live.push_seqs,
        nondeterministic: pda.nondeterministic,
    }
}

/// A vocabulary as the operations compare it: size, fingerprint, EOS ids.
type VocabKey<'a> = (u32, u64, &'a [u32]);

fn vocab_of<W: AsRef<[u32]>>(a: &TokenAutomaton<W>) -> VocabKey<'_> {
    (a.vocab_size(), a.vocab_fingerprint(), a.eos_ids())
}

fn vocab_of_parts(p: &PdaParts) -> VocabKey<'_> {
    (p.vocab_size, p.vocab_fingerprint, &p.eos_ids)
}

/// Refuses operands of different vocabularies or EOS ids.
fn same_vocabulary<A: AsRef<[u32]>, B: AsRef<[u32]>>(
    name: &'static str,
    a: &TokenAutomaton<A>,
    b: &TokenAutomaton<B>,
) -> Result<(), OpsError> {
    same_vocabulary_of(name, vocab_of(a), vocab_of(b))
}

fn same_vocabulary_of(name: &'static str, a: VocabKey, b: VocabKey) -> Result<(), OpsError> {
    if a.1 != b.1 || a.0 != b.0 {
        return Err(OpsError::new(
            name,
            OpsErrorKind::Vocabulary,
            format!(
                "the operands of the {name} were compiled for different vocabularies \
                 (size {}, fingerprint {:016x}; size {}, fingerprint {:016x})",
                a.0, a.1, b.0, b.1
            ),
        ));
    }
    if a.2 != b.2 {
        return Err(OpsError::new(
            name,
            OpsErrorKind::Vocabulary,
            format!(
                "the operands of the {name} have different EOS ids ({:?} and {:?}); \
                 compile them with the same --eos-ids",
                a.2, b.2
            ),
        ));
    }
    Ok(())
}

pub(crate) fn parts_error(name: &'static str, e: PartsError) -> OpsError {
    OpsError::new(
        name,
        OpsErrorKind::Parts(e.clone()),
        format!("the {name}: {e}"),
    )
}

pub(crate) fn byte_dfa_error(name: &'static str, e: ByteDfaError) -> OpsError {
    let kind = match e.kind() {
        crate::bytes::ByteDfaErrorKind::TooManyStates { limit } => {
            OpsErrorKind::TooManyStates { limit: *limit }
        }
        crate::bytes::ByteDfaErrorKind::Deadline { .. } => {
            let clock = Clock {
                name,
                deadline: None,
            };
            return clock.past();
        }
        _ => OpsErrorKind::ByteDfa(e.clone()),
    };
    OpsError::new(name, kind, format!("the {name}: {e}"))
}

pub use project::PROJECTION_NFA_LIMIT;
