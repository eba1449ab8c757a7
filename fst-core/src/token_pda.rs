//! The token push-down automaton: a token automaton with a stack of return addresses.
//!
//! A [`TokenPda`] is, like a [`TokenAutomaton`], one array of `u32` words that is its
//! file (kind 1, see [`crate::format`]). Its *finite control* (nodes, class edges,
//! canonical token classes, accepting flags, dense masks of wide nodes) is laid out
//! exactly as a token FSA's and read through the same code; three more sections give
//! each edge its pushed sequence, each node its pop edges and the push sequences
//! themselves. [`PdaWalker`](crate::pda_walker::PdaWalker) walks it.

use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use crate::automaton::{layout_of_written, TokenAutomaton};
use crate::deadline::{without_deadline, PastDeadline, Poll};
use crate::format::{self, FormatError, PdaLayout};
use crate::parts::{self, PartsError, PdaEdge, PdaParts, StateId, NO_CLASS};
use crate::pop_closure::{ClosureSource, PopClosure};
use crate::push_dag::{PushDag, MIN_RESULTS};

/// A deterministic token push-down automaton, ready to walk.
///
/// `W` holds the words as for [`TokenAutomaton`]: every constructor validates the whole
/// file, so no accessor panics and a node, class or sequence out of range behaves as one
/// without edges.
#[derive(Clone)]
pub struct TokenPda<W: AsRef<[u32]> = Vec<u32>> {
    control: TokenAutomaton<W>,
    layout: PdaLayout,
    /// Derived on load: the pop chains as an automaton whose states carry masks.
    closure: Arc<PopClosure>,
    /// Derived on load: the longest push sequence, for the walker's stack-limit check.
    max_push: usize,
    /// Derived on load (nondeterministic PDAs): per class edge with many results, their
    /// pushes as a DAG for the GLR walker.
    push_dags: Arc<PushDags>,
}

/// No push DAG for a class edge.
const NO_DAG: u32 = u32::MAX;

/// The push DAGs of a nondeterministic PDA, found by class edge index.
#[derive(Clone, Debug, Default)]
struct PushDags {
    /// Per class edge (up to the last one with a DAG): its DAG's index, or [`NO_DAG`].
    of_edge: Vec<u32>,
    dags: Vec<PushDag>,
}

impl TokenPda<Vec<u32>> {
    /// Checks and lays out the parts a grammar compiler produced. Token classes are made
    /// canonical as for FSAs (classes with the same edges, pushes included, everywhere
    /// merged, unused ones dropped, numbered by smallest token); nodes, pop edges and
    /// push sequences are kept as given.
    pub fn from_parts(parts: PdaParts) -> Result<TokenPda, PartsError> {
        let pda = TokenPda::from_parts_before(parts, None)?;
        Ok(pda.unwrap_or_else(|| unreachable!("a layout without a deadline")))
    }

    /// [`TokenPda::from_parts`], giving up (`Ok(None)`) once `deadline` passes: the layout
    /// of a large PDA (its classes, its file, its pop closure) takes as long as building
    /// it, and a compile's time budget covers both.
    pub fn from_parts_before(
        parts: PdaParts,
        deadline: Option<Instant>,
    ) -> Result<Option<TokenPda>, PartsError> {
        let poll = Poll::new(deadline);
        let Ok((canonical, stack)) = parts::canonical_pda(parts, poll)? else {
            return Ok(None);
        };
        if poll.check().is_err() {
            return Ok(None);
        }
        let words = format::write_token_pda(canonical, stack)?;
        if poll.check().is_err() {
            return Ok(None);
        }
        let (fsa, layout) = layout_of_written(&words, format::validate_pda)?;
        let control = TokenAutomaton::from_validated(words, fsa);
        Ok(TokenPda::derive(control, layout, deadline).ok())
    }

    /// Validates `bytes` as a token PDA file and copies them into owned words; works at
    /// any alignment and on any host.
    pub fn from_bytes_copied(bytes: &[u8]) -> Result<TokenPda<Vec<u32>>, FormatError> {
        TokenPda::from_words(format::copy_words(bytes)?)
    }

    /// Reads and validates a token PDA file; errors name the path.
    pub fn read_file(path: impl AsRef<Path>) -> Result<TokenPda<Vec<u32>>, FormatError> {
        format::read_file(path.as_ref(), TokenPda::from_bytes_copied)
    }
}

impl<'a> TokenPda<&'a [u32]> {
    /// Validates `bytes` as a token PDA file and borrows them without copying (needs a
    /// 4-byte-aligned buffer and a little-endian host).
    pub fn from_bytes(bytes: &'a [u8]) -> Result<TokenPda<&'a [u32]>, FormatError> {
        TokenPda::from_words(format::borrow_words(bytes)?)
    }
}

impl<W: AsRef<[u32]>> TokenPda<W> {
    /// Validates `words` as a token PDA file (checksum included) and wraps them.
    pub fn from_words(words: W) -> Result<TokenPda<W>, FormatError> {
        let (fsa, layout) = format::validate_pda(words.as_ref(), format::Checks::All)?;
        let control = TokenAutomaton::from_validated(words, fsa);
        Ok(without_deadline(TokenPda::derive(control, layout, None)))
    }

    /// The PDA of a validated file, with the data the walkers derive from it: the pop
    /// closure (dense union masks bounded by eight times the file's words plus 4 MiB), the
    /// longest push sequence and the push DAGs; until `deadline`.
    fn derive(
        control: TokenAutomaton<W>,
        layout: PdaLayout,
        deadline: Option<Instant>,
    ) -> Result<TokenPda<W>, PastDeadline> {
        let mut pda = TokenPda {
            control,
            layout,
            closure: Arc::default(),
            max_push: 0,
            push_dags: Arc::default(),
        };
        let words = (pda.vocab_size() as usize).div_ceil(32);
        let budget = 8 * pda.as_words().len() + (1 << 20);
        pda.closure = Arc::new(PopClosure::new(&pda, words, budget, deadline)?);
        pda.max_push = (0..pda.num_push_seqs())
            .map(|i| pda.push_seq(i).len())
            .max()
            .unwrap_or(0);
        pda.push_dags = Arc::new(pda.derive_push_dags(Poll::new(deadline))?);
        Ok(pda)
    }

    /// The [`PushDag`] of each class edge with at least [`MIN_RESULTS`] results (and not
    /// too many symbols, see [`PushDag::of`]); until the poll's deadline.
    fn derive_push_dags(&self, mut poll: Poll) -> Result<PushDags, PastDeadline> {
        let mut dags = PushDags::default();
        if self.is_deterministic() {
            return Ok(dags);
        }
        for node in 0..self.num_nodes() {
            for (e, class, _) in self.control.indexed_class_edges(node) {
                poll.step()?;
                if self.alternatives(e).len() / 2 + 1 < MIN_RESULTS {
                    continue;
                }
                let results: Vec<(StateId, &[u32])> = (self.edge_results(node, class))
                    .map(|(target, push)| (target, self.push_seq(push)))
                    .collect();
                if let Some(dag) = PushDag::of(&results) {
                    if dags.of_edge.len() <= e {
                        dags.of_edge.resize(e + 1, NO_DAG);
                    }
                    dags.of_edge[e] = dags.dags.len() as u32;
                    dags.dags.push(dag);
                }
            }
        }
        Ok(dags)
    }

    /// `node`'s edge for `class`: its index and target (the first result's).
    #[inline]
    pub(crate) fn class_edge(&self, node: StateId, class: u32) -> Option<(usize, StateId)> {
        self.control.class_edge(node, class)
    }

    /// The push DAG of class edge `e`'s results, where it has many.
    #[inline]
    pub(crate) fn edge_dag(&self, e: usize) -> Option<&PushDag> {
        let i = *self.push_dags.of_edge.get(e)?;
        self.push_dags.dags.get(i as usize)
    }

    /// The results `(target, push sequence index)` of class edge `e` whose target is
    /// `target`: its own, then its alternatives.
    #[inline]
    pub(crate) fn results_of_edge(
        &self,
        e: usize,
        target: StateId,
    ) -> impl Iterator<Item = (StateId, u32)> + '_ {
        std::iter::once((target, self.edge_push(e)))
            .chain(self.alternatives(e).chunks_exact(2).map(|p| (p[0], p[1])))
    }

    /// The pop closure (see [`crate::pop_closure`]).
    #[inline]
    pub(crate) fn closure(&self) -> &PopClosure {
        &self.closure
    }

    /// The length of the longest push sequence.
    #[inline]
    pub(crate) fn max_push(&self) -> usize {
        self.max_push
    }

    /// Number of pop-closure states and of the dense union masks they carry (derived on
    /// load; see the walker).
    pub fn pop_closure_size(&self) -> (usize, usize) {
        self.closure.size()
    }

    /// Section `[start, start + len)` of the words; empty if out of range.
    #[inline]
    fn section(&self, start: usize, len: usize) -> &[u32] {
        self.control
            .as_words()
            .get(start..start.saturating_add(len))
            .unwrap_or(&[])
    }

    /// Number of token ids of the vocabulary: the minimum mask width in bits.
    pub fn vocab_size(&self) -> u32 {
        self.control.vocab_size()
    }

    /// The [`crate::fingerprint`] of the vocabulary the PDA was compiled for.
    pub fn vocab_fingerprint(&self) -> u64 {
        self.control.vocab_fingerprint()
    }

    /// The EOS ids, sorted and distinct.
    pub fn eos_ids(&self) -> &[u32] {
        self.control.eos_ids()
    }

    /// Whether `token` is one of the EOS ids.
    #[inline]
    pub fn is_eos(&self, token: u32) -> bool {
        self.control.is_eos(token)
    }

    /// A walker's error for refusing `token` `place` (where the walk is): both PDA walkers
    /// say it alike.
    pub(crate) fn refusal(&self, token: u32, place: &str) -> crate::matcher::MatchError {
        let (vocab_size, eos) = (self.vocab_size(), self.is_eos(token));
        crate::matcher::refusal(
            token,
            vocab_size,
            eos,
            place,
            "the input is not complete",
            None,
        )
    }

    /// The start node (with an empty stack).
    pub fn start(&self) -> StateId {
        self.control.start()
    }

    /// Number of nodes; nodes are `0..num_nodes()`.
    pub fn num_nodes(&self) -> u32 {
        self.control.num_states()
    }

    /// Number of token edges (the tokens the class edges stand for).
    pub fn num_edges(&self) -> u32 {
        self.control.num_edges()
    }

    /// Number of accepting nodes.
    pub fn num_accepting(&self) -> u32 {
        self.control.num_accepting()
    }

    /// Whether `node` accepts: EOS is allowed where the pop chain empties the stack here.
    #[inline]
    pub fn is_accepting(&self, node: StateId) -> bool {
        self.control.is_accepting(node)
    }

    /// Number of token classes.
    pub fn num_classes(&self) -> u32 {
        self.control.num_classes()
    }

    /// The class of `token`, or `None` if no node has an edge for it.
    #[inline]
    pub fn token_class(&self, token: u32) -> Option<u32> {
        self.control.token_class(token)
    }

    /// The tokens of class `class`, ascending.
    pub fn class_tokens(&self, class: u32) -> impl Iterator<Item = u32> + '_ {
        self.control.class_tokens(class)
    }

    /// Number of tokens in class `class`.
    pub fn class_size(&self, class: u32) -> usize {
        self.control.class_size(class)
    }

    /// The mask words of class `class` as `(word index, bits)` pairs: what a mask ORs for
    /// an edge of the class.
    pub fn class_mask_words(&self, class: u32) -> &[u32] {
        self.control.class_mask_words(class)
    }

    /// Number of stack symbols: symbols are `0..num_stack_symbols()`.
    pub fn num_stack_symbols(&self) -> u32 {
        self.layout.num_stack_symbols
    }

    /// Number of push sequences; sequence 0 is empty.
    pub fn num_push_seqs(&self) -> u32 {
        self.layout.num_push_seqs
    }

    /// Push sequence `i`, bottom to top; empty if there is no such sequence.
    #[inline]
    pub fn push_seq(&self, i: u32) -> &[u32] {
        if i >= self.layout.num_push_seqs {
            return &[];
        }
        match self.section(self.layout.push_offsets + i as usize, 2) {
            &[b, e] if b <= e => {
                self.section(self.layout.push_symbols + b as usize, (e - b) as usize)
            }
            _ => &[],
        }
    }

    /// The push sequence index of class edge `e` (by its index among all edges).
    #[inline]
    fn edge_push(&self, e: usize) -> u32 {
        self.control
            .as_words()
            .get(self.layout.edge_pushes + e)
            .copied()
            .unwrap_or(0)
    }

    /// Whether a walker follows one configuration (one edge per class and node, the first
    /// chain node with a class decides). A nondeterministic PDA (a grammar whose conflicts
    /// one byte of lookahead does not decide; the file has the alternatives sections) is
    /// walked with a set of configurations.
    pub fn is_deterministic(&self) -> bool {
        self.layout.alternatives.is_none()
    }

    /// The further `(target, push)` results of class edge `e` (by its index among all
    /// edges), as flattened pairs; empty in a deterministic PDA.
    #[inline]
    fn alternatives(&self, e: usize) -> &[u32] {
        let Some((offsets, pairs)) = self.layout.alternatives else {
            return &[];
        };
        match self.section(offsets + e, 2) {
            &[b, e] if b <= e => self.section(pairs + 2 * b as usize, 2 * (e - b) as usize),
            _ => &[],
        }
    }

    /// `node`'s edges as `(class, target, push sequence index)`, increasing: one per
    /// class, or several in a nondeterministic PDA.
    pub fn edges(&self, node: StateId) -> impl Iterator<Item = (u32, StateId, u32)> + '_ {
        self.control
            .indexed_class_edges(node)
            .flat_map(move |(e, class, target)| {
                let alts = self.alternatives(e).chunks_exact(2);
                std::iter::once((class, target, self.edge_push(e)))
                    .chain(alts.map(move |p| (class, p[0], p[1])))
            })
    }

    /// `node`'s (first) edge for `class`: its target and push sequence index.
    #[inline]
    pub fn edge(&self, node: StateId, class: u32) -> Option<(StateId, u32)> {
        let (e, target) = self.control.class_edge(node, class)?;
        Some((target, self.edge_push(e)))
    }

    /// Every `(target, push)` result of `node`'s edges for `class`: at most one in a
    /// deterministic PDA.
    pub fn edge_results(
        &self,
        node: StateId,
        class: u32,
    ) -> impl Iterator<Item = (StateId, u32)> + '_ {
        let found = self.control.class_edge(node, class);
        found
            .into_iter()
            .flat_map(|(e, target)| self.results_of_edge(e, target))
    }

    /// `node`'s pop edges as flattened `(symbol, target)` pairs, symbols increasing.
    fn pop_pairs(&self, node: StateId) -> &[u32] {
        if node >= self.num_nodes() {
            return &[];
        }
        match self.section(self.layout.pop_offsets + node as usize, 2) {
            &[b, e] if b <= e => {
                self.section(self.layout.pop_edges + 2 * b as usize, 2 * (e - b) as usize)
            }
            _ => &[],
        }
    }

    /// `node`'s pop edges: `(stack symbol, node reached)`, symbols increasing.
    pub fn pops(&self, node: StateId) -> impl Iterator<Item = (u32, StateId)> + '_ {
        self.pop_pairs(node).chunks_exact(2).map(|p| (p[0], p[1]))
    }

    /// The node reached from `node` by popping `symbol`, if it has that pop edge.
    #[inline]
    pub fn pop_target(&self, node: StateId, symbol: u32) -> Option<StateId> {
        self.pop_edge(node, symbol).map(|(_, target)| target)
    }

    /// `node`'s pop edge for `symbol`: its index among the node's pop edges and its target.
    #[inline]
    pub(crate) fn pop_edge(&self, node: StateId, symbol: u32) -> Option<(usize, StateId)> {
        let pairs = self.pop_pairs(node);
        let (mut lo, mut hi) = (0, pairs.len() / 2);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match pairs[2 * mid].cmp(&symbol) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some((mid, pairs[2 * mid + 1])),
            }
        }
        None
    }

    /// ORs the tokens of `node`'s edges into `mask`: a copy of its dense mask when it
    /// has one (wide nodes), else its classes' mask words. EOS is not included (it
    /// depends on the stack).
    #[inline]
    pub fn or_node_mask(&self, node: StateId, mask: &mut [u32]) {
        match self.control.dense_mask(node) {
            Some(dense) => {
                for (d, s) in mask.iter_mut().zip(dense) {
                    *d |= s;
                }
            }
            None => self.control.or_class_mask_words(node, mask),
        }
    }

    /// `node`'s dense mask (its tokens as a bitset, EOS not included), if it is wide
    /// enough to have one.
    pub fn dense_node_mask(&self, node: StateId) -> Option<&[u32]> {
        self.control.dense_mask(node)
    }

    /// Number of distinct dense masks stored for wide nodes.
    pub fn num_dense_masks(&self) -> u32 {
        self.control.num_dense_masks()
    }

    /// The words of the PDA: exactly its file, as little-endian words.
    pub fn as_words(&self) -> &[u32] {
        self.control.as_words()
    }

    /// The file bytes (the words in little-endian order).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.control.to_bytes()
    }

    /// Writes the PDA file; errors name the path.
    pub fn write_file(&self, path: impl AsRef<Path>) -> Result<(), FormatError> {
        self.control.write_file(path)
    }

    /// Bytes of the word array.
    pub fn memory_bytes(&self) -> usize {
        self.control.memory_bytes()
    }

    /// A PDA that owns a copy of the words.
    pub fn into_owned(self) -> TokenPda<Vec<u32>> {
        TokenPda {
            control: self.control.into_owned(),
            layout: self.layout,
            closure: self.closure,
            max_push: self.max_push,
            push_dags: self.push_dags,
        }
    }

    /// The parts back: the inverse of [`TokenPda::from_parts`] on canonical parts.
    pub fn to_parts(&self) -> PdaParts {
        let n = self.num_nodes();
        let edge = |(class, target, push)| PdaEdge {
            class,
            target,
            push,
        };
        PdaParts {
            vocab_size: self.vocab_size(),
            vocab_fingerprint: self.vocab_fingerprint(),
            eos_ids: self.eos_ids().to_vec(),
            num_stack_symbols: self.num_stack_symbols(),
            start: self.start(),
            accepting: (0..n).map(|s| self.is_accepting(s)).collect(),
            num_classes: self.num_classes(),
            class_of_token: (0..self.vocab_size())
                .map(|t| self.token_class(t).unwrap_or(NO_CLASS))
                .collect(),
            edges: (0..n).map(|s| self.edges(s).map(edge).collect()).collect(),
            pops: (0..n).map(|s| self.pops(s).collect()).collect(),
            push_seqs: (0..self.num_push_seqs())
                .map(|i| self.push_seq(i).to_vec())
                .collect(),
            nondeterministic: !self.is_deterministic(),
        }
    }
}

impl<W: AsRef<[u32]>> fmt::Debug for TokenPda<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("TokenPda");
        d.field("num_nodes", &self.num_nodes());
        self.control
            .debug_fields(&mut d)
            .field("num_stack_symbols", &self.num_stack_symbols())
            .field("num_push_seqs", &self.num_push_seqs())
            .finish()
    }
}

/// The nodes as the pop closure reads them.
impl<W: AsRef<[u32]>> ClosureSource for TokenPda<W> {
    fn num_nodes(&self) -> u32 {
        TokenPda::num_nodes(self)
    }

    fn pop_list(&self, node: StateId) -> Vec<(u32, StateId)> {
        self.pops(node).collect()
    }

    fn dense(&self, node: StateId) -> Option<&[u32]> {
        self.control.dense_mask(node)
    }

    fn sparse_pairs(&self, node: StateId) -> usize {
        self.edges(node)
            .map(|(class, _, _)| self.class_mask_words(class).len() / 2)
            .sum()
    }

    #[inline]
    fn or_mask(&self, node: StateId, mask: &mut [u32]) {
        self.or_node_mask(node, mask)
    }
}

/// Two PDAs are equal when their words are.
impl<W: AsRef<[u32]>, V: AsRef<[u32]>> PartialEq<TokenPda<V>> for TokenPda<W> {
    fn eq(&self, other: &TokenPda<V>) -> bool {
        self.control == other.control
    }
}

impl<W: AsRef<[u32]>> Eq for TokenPda<W> {}
