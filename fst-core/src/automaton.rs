//! The token automaton: a deterministic automaton over token ids.
//!
//! A [`TokenAutomaton`] is one array of `u32` words that is, word for word, its file
//! (see [`crate::format`]), plus a small header parsed and validated once. Keeping one
//! representation means loading a file is a validation pass and no copy: a decoder can
//! walk an automaton straight out of a memory-mapped or `include_bytes!` buffer through
//! `TokenAutomaton<&[u32]>`, and an automaton built in memory is saved by writing its
//! words.
//!
//! Edges are not stored per token. Tokens that behave alike in every state (same target
//! from every state, or no edge) form a *token class*, stored once; a state's edges are
//! labelled by class. A wildcard state of a 128k vocabulary then has a handful of class
//! edges instead of ~128k token edges, which is what keeps files small and compiles fast.
//! States allowing many tokens also carry a precomputed dense mask (deduplicated across
//! states), checked against their edges when the automaton is loaded, so that the walker
//! fills their mask with one copy.

use std::fmt;
use std::path::Path;
use std::time::Instant;

use crate::format::{self, FormatError, Layout};
use crate::parts::{self, PartsError, PartsErrorKind};

pub use crate::format::AutomatonKind;
pub use crate::parts::{AutomatonParts, ClassParts, StateId, Terminal, NO_CLASS};

/// A deterministic automaton over token ids, ready to walk.
///
/// `W` holds the words: `Vec<u32>` for an automaton that owns them (built by
/// [`from_parts`](Self::from_parts), [`from_bytes_copied`](Self::from_bytes_copied) or
/// [`read_file`](Self::read_file)), `&[u32]` for one borrowed from a buffer
/// ([`from_bytes`](Self::from_bytes)), or any other container through
/// [`from_words`](Self::from_words). Every constructor validates, so no accessor panics;
/// a state number out of range behaves as a non-accepting state without edges.
#[derive(Clone)]
pub struct TokenAutomaton<W: AsRef<[u32]> = Vec<u32>> {
    words: W,
    layout: Layout,
}

impl TokenAutomaton<Vec<u32>> {
    /// Lays out and validates the pieces a compiler produced.
    ///
    /// Edges are sorted by token and EOS ids sorted and deduplicated. States allowing many
    /// tokens also get a dense mask ([`format::dense_mask_wanted`]), stored once per
    /// distinct allowed set. Fails when the
    /// start state or a target is out of range, a token or EOS id is not below
    /// `vocab_size`, a state has two edges with one token, an EOS id labels an edge, or
    /// `accepting` and `edges` disagree on the number of states.
    pub fn from_parts(parts: AutomatonParts) -> Result<TokenAutomaton, PartsError> {
        TokenAutomaton::from_class_parts(parts::class_parts(parts)?)
    }

    /// Lays out and validates an automaton whose edges are labelled by token class.
    ///
    /// Fails like [`from_parts`](Self::from_parts), and when classes overlap or hold an
    /// EOS id or a token not below `vocab_size`.
    pub fn from_class_parts(parts: ClassParts) -> Result<TokenAutomaton, PartsError> {
        let words = format::write_token_fsa(parts::canonical(parts)?)?;
        let layout = layout_of_written(&words, format::validate)?;
        Ok(TokenAutomaton { words, layout })
    }

    /// [`from_class_parts`](Self::from_class_parts), giving up (`Ok(None)`) once
    /// `deadline` has passed, polled while the classes are grouped and before the file is
    /// written: a compile's time budget over a large automaton.
    pub fn from_class_parts_before(
        parts: ClassParts,
        deadline: Option<Instant>,
    ) -> Result<Option<TokenAutomaton>, PartsError> {
        let Some(canonical) = parts::canonical_before(parts, deadline)? else {
            return Ok(None);
        };
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(None);
        }
        let words = format::write_token_fsa(canonical)?;
        let layout = layout_of_written(&words, format::validate)?;
        Ok(Some(TokenAutomaton { words, layout }))
    }

    /// Validates `bytes` as an automaton file and copies them into owned words; works at
    /// any alignment and on any host.
    pub fn from_bytes_copied(bytes: &[u8]) -> Result<TokenAutomaton<Vec<u32>>, FormatError> {
        TokenAutomaton::from_words(format::copy_words(bytes)?)
    }

    /// Reads and validates an automaton file; errors name the path.
    pub fn read_file(path: impl AsRef<Path>) -> Result<TokenAutomaton<Vec<u32>>, FormatError> {
        format::read_file(path.as_ref(), TokenAutomaton::from_bytes_copied)
    }
}

/// The layout of `words` the writer just produced from checked parts, by `validate` (a
/// kind's reader). The writer lays out only consistent sections, so the O(file) content
/// checks (checksum, class and mask tables) would re-prove what it just wrote: only the
/// header and section table are parsed. Debug builds (every test) still run the full
/// validation on each layout.
pub(crate) fn layout_of_written<L>(
    words: &[u32],
    validate: impl Fn(&[u32], format::Checks) -> Result<L, FormatError>,
) -> Result<L, PartsError> {
    debug_assert!(
        validate(words, format::Checks::All).is_ok(),
        "the writer produced an invalid file: {:?}",
        validate(words, format::Checks::All).err()
    );
    validate(words, format::Checks::Structure).map_err(|e| {
        PartsError::new(
            PartsErrorKind::Internal,
            format!("the writer produced an invalid file: {e}"),
        )
    })
}

impl<'a> TokenAutomaton<&'a [u32]> {
    /// Validates `bytes` as an automaton file and borrows them without copying.
    ///
    /// Needs a 4-byte-aligned buffer and a little-endian host; otherwise use
    /// [`TokenAutomaton::from_bytes_copied`]. Validation reads every word once.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<TokenAutomaton<&'a [u32]>, FormatError> {
        TokenAutomaton::from_words(format::borrow_words(bytes)?)
    }
}

impl<W: AsRef<[u32]>> TokenAutomaton<W> {
    /// Validates `words` as an automaton file (checksum included) and wraps them.
    pub fn from_words(words: W) -> Result<TokenAutomaton<W>, FormatError> {
        let layout = format::validate(words.as_ref(), format::Checks::All)?;
        Ok(TokenAutomaton { words, layout })
    }

    /// Wraps words a reader validated into `layout`: a token PDA's finite control.
    pub(crate) fn from_validated(words: W, layout: Layout) -> TokenAutomaton<W> {
        TokenAutomaton { words, layout }
    }

    /// Section `[start, start + len)` of the words; empty if out of range (which a
    /// validated layout never is, but `AsRef` is not ours to trust).
    #[inline]
    fn section(&self, start: usize, len: usize) -> &[u32] {
        self.words
            .as_ref()
            .get(start..start.saturating_add(len))
            .unwrap_or(&[])
    }

    /// Number of states; states are `0..num_states()`.
    pub fn num_states(&self) -> u32 {
        self.layout.header.num_states
    }

    /// Number of edges, token and terminal (EOS is not an edge).
    pub fn num_edges(&self) -> u32 {
        self.layout.header.num_edges
    }

    /// Number of accepting states.
    pub fn num_accepting(&self) -> u32 {
        self.layout.header.num_accepting
    }

    /// The start state.
    pub fn start(&self) -> StateId {
        self.layout.header.start
    }

    /// What the automaton is; always [`AutomatonKind::TokenFsa`] in format version 3.
    pub fn kind(&self) -> AutomatonKind {
        self.layout.header.kind
    }

    /// Number of terminal labels; terminal `k` labels edges `vocab_size() + k`.
    pub fn num_terminals(&self) -> u32 {
        self.layout.header.num_terminals
    }

    /// The token mask of terminal `k` (`ceil(vocab_size / 32)` words), or `None` if there is
    /// no such terminal.
    pub fn terminal_mask(&self, k: u32) -> Option<&[u32]> {
        if k >= self.layout.header.num_terminals {
            return None;
        }
        let width = self.layout.mask_words;
        let mask = self.section(self.layout.terminal_masks + k as usize * width, width);
        (mask.len() == width).then_some(mask)
    }

    /// The name of terminal `k`, or `None` if there is no such terminal.
    pub fn terminal_name(&self, k: u32) -> Option<String> {
        let count = self.layout.header.num_terminals as usize;
        if k as usize >= count {
            return None;
        }
        let (start, len) = self.layout.terminal_names;
        let section = self.section(start, len);
        let (lens, packed) = section.split_at(count.min(section.len()));
        let begin: usize = lens[..k as usize].iter().map(|&l| l as usize).sum();
        let end = begin + *lens.get(k as usize)? as usize;
        let bytes: Vec<u8> = packed.iter().flat_map(|w| w.to_le_bytes()).collect();
        String::from_utf8(bytes.get(begin..end)?.to_vec()).ok()
    }

    /// Whether terminal `k`'s mask holds `token`.
    #[inline]
    pub fn terminal_contains(&self, k: u32, token: u32) -> bool {
        self.terminal_mask(k)
            .and_then(|m| m.get((token / 32) as usize))
            .is_some_and(|w| w & (1 << (token % 32)) != 0)
    }

    /// Number of token ids of the vocabulary: the minimum mask width in bits.
    pub fn vocab_size(&self) -> u32 {
        self.layout.header.vocab_size
    }

    /// The [`crate::fingerprint`] of the vocabulary the automaton was compiled for.
    pub fn vocab_fingerprint(&self) -> u64 {
        self.layout.header.vocab_fingerprint
    }

    /// The EOS ids, sorted and distinct.
    pub fn eos_ids(&self) -> &[u32] {
        self.section(self.layout.eos.0, self.layout.eos.1)
    }

    /// Whether `token` is one of the EOS ids.
    pub fn is_eos(&self, token: u32) -> bool {
        let eos = self.eos_ids();
        // Usually one to three ids: a scan beats a binary search.
        if eos.len() <= 8 {
            eos.contains(&token)
        } else {
            eos.binary_search(&token).is_ok()
        }
    }

    /// Whether `state` accepts (EOS is allowed there).
    pub fn is_accepting(&self, state: StateId) -> bool {
        if state >= self.layout.header.num_states {
            return false;
        }
        let flags = self.section(
            self.layout.state_flags,
            (self.layout.header.num_states as usize).div_ceil(32),
        );
        format::flag_set(flags, state as usize)
    }

    /// The range of `state`'s edges (class edges, then terminal edges) among all edges.
    #[inline]
    fn edge_range(&self, state: StateId) -> (usize, usize) {
        if state >= self.layout.header.num_states {
            return (0, 0);
        }
        match self.section(self.layout.state_offsets + state as usize, 2) {
            [b, e] if b <= e => (*b as usize, *e as usize),
            _ => (0, 0),
        }
    }

    /// Edge `e`: its label (class `c`, or `num_classes + k` for terminal `k`) and target.
    #[inline]
    fn edge(&self, e: usize) -> (u32, StateId) {
        self.layout.edge(self.words.as_ref(), e)
    }

    #[inline]
    fn edge_label(&self, e: usize) -> u32 {
        self.edge(e).0
    }

    /// All edges of `state` as `(label, target)`, labels increasing.
    fn labelled_edges(&self, state: StateId) -> impl Iterator<Item = (u32, StateId)> + '_ {
        let (begin, end) = self.edge_range(state);
        (begin..end).map(move |e| self.edge(e))
    }

    /// Where `state`'s terminal edges start: they are the last few, so a short scan from
    /// the end finds them (none to scan for in an automaton without terminals).
    #[inline]
    fn split_terminals(&self, begin: usize, end: usize) -> usize {
        if self.layout.header.num_terminals == 0 {
            return end;
        }
        let classes = self.layout.num_classes;
        let mut i = end;
        while i > begin && self.edge_label(i - 1) >= classes {
            i -= 1;
        }
        i
    }

    /// The target of `state`'s edge for class `class`, by binary search.
    #[inline]
    fn class_target(&self, state: StateId, class: u32) -> Option<StateId> {
        self.class_edge(state, class).map(|(_, target)| target)
    }

    /// `state`'s edge for class `class` by binary search: its index among all edges (a
    /// token PDA keeps per-edge data by it) and its target.
    #[inline]
    pub(crate) fn class_edge(&self, state: StateId, class: u32) -> Option<(usize, StateId)> {
        let (mut lo, mut hi) = self.edge_range(state);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (label, target) = self.edge(mid);
            match label.cmp(&class) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some((mid, target)),
            }
        }
        None
    }

    /// The class edges of `state` with their indices among all edges: `(index, class,
    /// target)`.
    pub(crate) fn indexed_class_edges(
        &self,
        state: StateId,
    ) -> impl Iterator<Item = (usize, u32, StateId)> + '_ {
        let (begin, end) = self.edge_range(state);
        let split = self.split_terminals(begin, end);
        (begin..split).map(move |e| {
            let (class, target) = self.edge(e);
            (e, class, target)
        })
    }

    /// Number of token classes: sets of tokens that go to the same state from every state.
    pub fn num_classes(&self) -> u32 {
        self.layout.num_classes
    }

    /// The tokens of class `class`, ascending (read off its mask words); none if there
    /// is no such class.
    pub fn class_tokens(&self, class: u32) -> impl Iterator<Item = u32> + '_ {
        self.class_mask_words(class)
            .chunks_exact(2)
            .flat_map(|pair| {
                let (word, bits) = (pair[0], pair[1]);
                (0..32u32)
                    .filter(move |b| bits & (1 << b) != 0)
                    .map(move |b| word * 32 + b)
            })
    }

    /// Number of tokens in class `class` (0 if there is no such class).
    pub fn class_size(&self, class: u32) -> usize {
        self.class_mask_words(class)
            .chunks_exact(2)
            .map(|pair| pair[1].count_ones() as usize)
            .sum()
    }

    /// Class `class` as mask words: `(word index, bits)` pairs flattened, word indices
    /// increasing. ORing them into a zeroed mask sets exactly the class's tokens.
    pub fn class_mask_words(&self, class: u32) -> &[u32] {
        self.class_words().of(class as usize)
    }

    /// The class word sections, sliced once for any number of classes.
    #[inline]
    fn class_words(&self) -> ClassWords<'_> {
        let layout = &self.layout;
        let offsets = self.section(layout.class_word_offsets, layout.num_classes as usize + 1);
        let pairs = self.section(
            layout.class_words,
            2 * offsets.last().map_or(0, |&n| n as usize),
        );
        ClassWords { offsets, pairs }
    }

    /// ORs the mask words of every class edge of `state` into `mask` (words past its end
    /// are skipped): the sparse part of a walker's mask. The class offsets and words are
    /// sliced once per call, not once per class, which is most of the cost of a state
    /// with many one-token classes.
    #[inline]
    pub(crate) fn or_class_mask_words(&self, state: StateId, mask: &mut [u32]) {
        let (begin, end) = self.edge_range(state);
        let split = self.split_terminals(begin, end);
        let classes = self.class_words();
        // Narrow edges pack the label in the high half; wide ones keep labels apart.
        let shift = if self.layout.narrow { 16 } else { 0 };
        for &word in self.section(self.layout.edge_labels + begin, split - begin) {
            let class_pairs = classes.of((word >> shift) as usize);
            if let [word, bits] = *class_pairs {
                // One word: most classes of a sparse state hold one token or a few.
                if let Some(slot) = mask.get_mut(word as usize) {
                    *slot |= bits;
                }
                continue;
            }
            for pair in class_pairs.chunks_exact(2) {
                if let Some(slot) = mask.get_mut(pair[0] as usize) {
                    *slot |= pair[1];
                }
            }
        }
    }

    /// The class of `token`, or `None` if no state has an edge for it. O(1), or a binary
    /// search when few tokens have a class (the file then lists them).
    #[inline]
    pub fn token_class(&self, token: u32) -> Option<u32> {
        if token >= self.layout.header.vocab_size {
            return None;
        }
        let words = self.words.as_ref();
        let t = match self.layout.num_indexed {
            Some(n) => self
                .section(self.layout.token_index, n)
                .binary_search(&token)
                .ok()?,
            None => token as usize,
        };
        let class = if self.layout.narrow {
            (*words.get(self.layout.token_classes + t / 2)? >> (16 * (t % 2))) & 0xffff
        } else {
            *words.get(self.layout.token_classes + t)?
        };
        (class < self.layout.num_classes).then_some(class)
    }

    /// The class edges of `state`: classes in increasing order and their targets. Every
    /// token of the class follows the edge. Terminal edges are not included.
    pub fn class_edges(&self, state: StateId) -> impl Iterator<Item = (u32, StateId)> + '_ {
        let (begin, end) = self.edge_range(state);
        let split = self.split_terminals(begin, end);
        (begin..split).map(move |e| self.edge(e))
    }

    /// Number of tokens with an edge out of `state` (terminal edges not counted).
    pub fn num_token_edges(&self, state: StateId) -> usize {
        self.class_edges(state)
            .map(|(c, _)| self.class_size(c))
            .sum()
    }

    /// The token edges of `state`, sorted by token: the class edges expanded. Allocates;
    /// walkers use [`next_state`](Self::next_state) and masks instead.
    pub fn token_edges(&self, state: StateId) -> Vec<(u32, StateId)> {
        let mut out: Vec<(u32, StateId)> = self
            .class_edges(state)
            .flat_map(|(c, t)| self.class_tokens(c).map(move |token| (token, t)))
            .collect();
        out.sort_unstable();
        out
    }

    /// The only token edge of `state`, if it has exactly one token edge and no terminal edge.
    pub fn single_token_edge(&self, state: StateId) -> Option<(u32, StateId)> {
        if self.has_terminal_edges(state) {
            return None;
        }
        let mut edges = self.class_edges(state);
        let (class, target) = edges.next()?;
        if edges.next().is_some() || self.class_size(class) != 1 {
            return None;
        }
        Some((self.class_tokens(class).next()?, target))
    }

    /// The terminal edges of `state`: terminal numbers `k` in precedence order (increasing)
    /// and their targets.
    pub fn terminal_edges(&self, state: StateId) -> impl Iterator<Item = (u32, StateId)> + '_ {
        let (begin, end) = self.edge_range(state);
        let split = self.split_terminals(begin, end);
        let classes = self.layout.num_classes;
        (split..end).map(move |e| {
            let (label, target) = self.edge(e);
            (label - classes, target)
        })
    }

    /// Whether `state` has terminal edges.
    pub fn has_terminal_edges(&self, state: StateId) -> bool {
        let (begin, end) = self.edge_range(state);
        end > begin && self.edge_label(end - 1) >= self.layout.num_classes
    }

    /// The precomputed mask of `state`, if it has one: `ceil(vocab_size / 32)` words
    /// holding its token edges, plus the EOS ids if the state accepts (the walker ORs
    /// terminal masks on top). States allowing many tokens have one (see
    /// [`format::dense_mask_wanted`]), so that filling their mask is a copy.
    pub fn dense_mask(&self, state: StateId) -> Option<&[u32]> {
        if self.layout.num_masks == 0 || state >= self.layout.header.num_states {
            return None;
        }
        let id = *self
            .words
            .as_ref()
            .get(self.layout.state_mask_index + state as usize)?;
        if id >= self.layout.num_masks {
            return None;
        }
        let width = self.layout.mask_words;
        let mask = self.section(self.layout.dense_masks + id as usize * width, width);
        (mask.len() == width).then_some(mask)
    }

    /// Number of distinct dense masks stored (states with identical allowed sets share one).
    pub fn num_dense_masks(&self) -> u32 {
        self.layout.num_masks
    }

    /// The tokens of a shortest walk from the start to `target`, or `None` if `target` is
    /// unreachable or out of range: how to put a walker in a given state (tests, tools).
    pub fn shortest_path_to(&self, target: StateId) -> Option<Vec<u32>> {
        if target >= self.num_states() {
            return None;
        }
        self.shortest_path_where(|state| state == target)
    }

    /// The tokens of a shortest walk from the start to a state where `goal` holds, the
    /// least in token-id order among the shortest (breadth-first, each state's steps by
    /// token), or `None` if no such state is reachable: `shortest_path_where(|s|
    /// a.is_accepting(s))` is a shortest accepted sequence.
    pub fn shortest_path_where(&self, goal: impl Fn(StateId) -> bool) -> Option<Vec<u32>> {
        let n = self.num_states() as usize;
        let mut parent: Vec<Option<(StateId, u32)>> = vec![None; n];
        let mut seen = vec![false; n];
        let mut queue = std::collections::VecDeque::from([self.start()]);
        seen[self.start() as usize] = true;
        while let Some(state) = queue.pop_front() {
            if goal(state) {
                let mut path = Vec::new();
                let mut at = state;
                while let Some((from, token)) = parent[at as usize] {
                    path.push(token);
                    at = from;
                }
                path.reverse();
                return Some(path);
            }
            // A class edge is walked with its smallest token, a terminal edge with the
            // first token of its mask that it takes.
            let by_class = self
                .class_edges(state)
                .filter_map(|(c, next)| Some((self.class_tokens(c).next()?, next)));
            let by_terminal = self.terminal_edges(state).filter_map(|(k, next)| {
                let token = self.terminal_witness(state, k)?;
                Some((token, next))
            });
            let mut steps: Vec<(u32, StateId)> = by_class.chain(by_terminal).collect();
            steps.sort_unstable();
            for (token, next) in steps {
                if !seen[next as usize] {
                    seen[next as usize] = true;
                    parent[next as usize] = Some((state, token));
                    queue.push_back(next);
                }
            }
        }
        None
    }

    /// The state reached from `state` by `token`, or `None` if `token` is not allowed
    /// there. A token edge (its class's edge) wins; otherwise the first terminal edge, in
    /// precedence order, whose mask holds the token. EOS ids never have a next state.
    pub fn next_state(&self, state: StateId, token: u32) -> Option<StateId> {
        if token >= self.layout.header.vocab_size {
            return None;
        }
        if let Some(class) = self.token_class(token) {
            if let Some(target) = self.class_target(state, class) {
                return Some(target);
            }
        }
        self.terminal_edges(state)
            .find(|&(k, _)| self.terminal_contains(k, token))
            .map(|(_, target)| target)
    }

    /// Whether `state` has a token edge (not a terminal edge) for `token`: its class's edge.
    pub fn has_token_edge(&self, state: StateId, token: u32) -> bool {
        self.token_class(token)
            .is_some_and(|c| self.class_target(state, c).is_some())
    }

    /// The smallest token that `state` sends through terminal edge `k` (one in `k`'s mask
    /// with no token edge and no terminal edge of higher precedence), if any.
    pub fn terminal_witness(&self, state: StateId, k: u32) -> Option<u32> {
        let mask = self.terminal_mask(k)?;
        let earlier: Vec<u32> = self
            .terminal_edges(state)
            .map(|(j, _)| j)
            .take_while(|&j| j < k)
            .collect();
        (0..mask.len() * 32)
            .map(|t| t as u32)
            .filter(|&t| mask[(t / 32) as usize] & (1 << (t % 32)) != 0)
            .find(|&t| {
                !self.has_token_edge(state, t)
                    && !earlier.iter().any(|&j| self.terminal_contains(j, t))
            })
    }

    /// Writes the automaton file (its words, little-endian); errors name the path.
    pub fn write_file(&self, path: impl AsRef<Path>) -> Result<(), FormatError> {
        format::write_bytes(path.as_ref(), &self.to_bytes())
    }

    /// The words of the automaton: exactly its file, as little-endian words.
    pub fn as_words(&self) -> &[u32] {
        self.words.as_ref()
    }

    /// The file bytes (the words in little-endian order).
    pub fn to_bytes(&self) -> Vec<u8> {
        let words = self.as_words();
        let mut bytes = Vec::with_capacity(words.len() * 4);
        for w in words {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        bytes
    }

    /// Bytes of the word array (what the automaton costs in memory or on disk).
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(self.as_words())
    }

    /// An automaton that owns a copy of the words.
    pub fn into_owned(self) -> TokenAutomaton<Vec<u32>> {
        TokenAutomaton {
            words: self.words.as_ref().to_vec(),
            layout: self.layout,
        }
    }

    fn terminals(&self) -> Vec<Terminal> {
        (0..self.num_terminals())
            .map(|k| Terminal {
                name: self.terminal_name(k).unwrap_or_default(),
                mask: self.terminal_mask(k).unwrap_or_default().to_vec(),
            })
            .collect()
    }

    /// The pieces back with token edges, normalized (edges sorted by label, EOS ids
    /// sorted): the inverse of [`TokenAutomaton::from_parts`] for tests and tools.
    pub fn to_parts(&self) -> AutomatonParts {
        let n = self.num_states();
        let vocab = self.vocab_size();
        AutomatonParts {
            vocab_size: vocab,
            vocab_fingerprint: self.vocab_fingerprint(),
            eos_ids: self.eos_ids().to_vec(),
            start: self.start(),
            accepting: (0..n).map(|s| self.is_accepting(s)).collect(),
            edges: (0..n)
                .map(|s| {
                    let mut list = self.token_edges(s);
                    list.extend(self.terminal_edges(s).map(|(k, t)| (vocab + k, t)));
                    list
                })
                .collect(),
            terminals: self.terminals(),
        }
    }

    /// The pieces back with class edges: the inverse of
    /// [`TokenAutomaton::from_class_parts`].
    pub fn to_class_parts(&self) -> ClassParts {
        let n = self.num_states();
        ClassParts {
            vocab_size: self.vocab_size(),
            vocab_fingerprint: self.vocab_fingerprint(),
            eos_ids: self.eos_ids().to_vec(),
            start: self.start(),
            accepting: (0..n).map(|s| self.is_accepting(s)).collect(),
            num_classes: self.num_classes(),
            class_of_token: {
                let mut class_of = vec![NO_CLASS; self.vocab_size() as usize];
                for (t, slot) in class_of.iter_mut().enumerate() {
                    *slot = self.token_class(t as u32).unwrap_or(NO_CLASS);
                }
                class_of
            },
            edges: (0..n).map(|s| self.labelled_edges(s).collect()).collect(),
            terminals: self.terminals(),
        }
    }
}

impl<W: AsRef<[u32]>> fmt::Debug for TokenAutomaton<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("TokenAutomaton");
        d.field("kind", &self.kind())
            .field("num_states", &self.num_states());
        self.debug_fields(&mut d)
            .field("num_terminals", &self.num_terminals())
            .finish()
    }
}

impl<W: AsRef<[u32]>> TokenAutomaton<W> {
    /// The `Debug` fields a token PDA's finite control shares with a token FSA.
    pub(crate) fn debug_fields<'a, 'b, 'c>(
        &self,
        d: &'c mut fmt::DebugStruct<'a, 'b>,
    ) -> &'c mut fmt::DebugStruct<'a, 'b> {
        d.field("num_edges", &self.num_edges())
            .field("num_accepting", &self.num_accepting())
            .field("start", &self.start())
            .field("vocab_size", &self.vocab_size())
            .field(
                "vocab_fingerprint",
                &format_args!("{:#018x}", self.vocab_fingerprint()),
            )
            .field("eos_ids", &self.eos_ids())
            .field("num_classes", &self.num_classes())
            .field("num_dense_masks", &self.num_dense_masks())
    }
}

/// Two automata are equal when their words are: same states, edges, flags, vocabulary
/// and EOS ids, whatever holds the words.
impl<W: AsRef<[u32]>, V: AsRef<[u32]>> PartialEq<TokenAutomaton<V>> for TokenAutomaton<W> {
    fn eq(&self, other: &TokenAutomaton<V>) -> bool {
        self.as_words() == other.as_words()
    }
}

impl<W: AsRef<[u32]>> Eq for TokenAutomaton<W> {}

/// The classes' mask words: class `c` is the `(word, bits)` pairs
/// `pairs[2 * offsets[c]..2 * offsets[c + 1]]`.
struct ClassWords<'a> {
    offsets: &'a [u32],
    pairs: &'a [u32],
}

impl<'a> ClassWords<'a> {
    /// Class `class`'s pairs; none for a class that does not exist.
    #[inline]
    fn of(&self, class: usize) -> &'a [u32] {
        match (self.offsets.get(class), self.offsets.get(class + 1)) {
            (Some(&b), Some(&e)) => self
                .pairs
                .get(2 * b as usize..2 * e as usize)
                .unwrap_or(&[]),
            _ => &[],
        }
    }
}
