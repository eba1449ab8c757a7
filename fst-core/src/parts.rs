//! The pieces of a token automaton as a compiler produces them, and their checks.
//!
//! [`AutomatonParts`] (edges per token) and [`ClassParts`] (edges per token class) are
//! what a compiler hands to `TokenAutomaton::from_parts` / `from_class_parts`. This module
//! checks them ([`PartsError`] says what is wrong) and brings them to the canonical form
//! the writer lays out (`CanonicalParts`): classes merged when their edges agree
//! everywhere, unused ones dropped, numbered by smallest token, so one automaton has one
//! file. [`PdaParts`] are the same for token push-down automata. It knows nothing of files: dependencies run compiler → parts → writer.

use std::fmt;
use std::hash::Hash;
use std::time::Instant;

use crate::vocab::MAX_VOCAB_SIZE;
use columns::Columns;

pub mod columns;
mod pda;

pub(crate) use pda::{canonical_pda, PdaStack};
pub use pda::{PdaEdge, PdaParts};

/// A state number.
pub type StateId = u32;

/// One list of `(label, target)` edges per state.
type EdgeLists = Vec<Vec<(u32, StateId)>>;

/// The class of a token that is in no class, in [`ClassParts::class_of_token`].
pub const NO_CLASS: u32 = u32::MAX;

/// Most terminal labels a file may have: each is a whole mask, and patterns use a few.
pub const MAX_TERMINALS: u32 = 1 << 12;
/// Longest terminal name, in bytes.
pub const MAX_TERMINAL_NAME: usize = 256;

/// Token ids per mask word.
pub(crate) const MASK_WORD_TOKENS: usize = 32;

/// The pieces of a token automaton, as a compiler produces them.
///
/// `TokenAutomaton::from_parts` checks them and lays them out in the word array that is
/// also the file format.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AutomatonParts {
    /// Number of token ids of the vocabulary (the minimum mask width).
    pub vocab_size: u32,
    /// `fingerprint` of the vocabulary the automaton was compiled for.
    pub vocab_fingerprint: u64,
    /// Ids that end generation; allowed exactly in accepting states.
    pub eos_ids: Vec<u32>,
    /// The start state.
    pub start: StateId,
    /// One flag per state.
    pub accepting: Vec<bool>,
    /// One list per state of `(label, target state)`, at most one edge per label. A label
    /// below `vocab_size` is a token; `vocab_size + k` is terminal `k` of `terminals`.
    pub edges: Vec<Vec<(u32, StateId)>>,
    /// Terminal labels, in precedence order: wildcard edges that read any one token of a
    /// precomputed set (Koo et al. §2.5.1), stored once per automaton instead of as an
    /// edge per token.
    pub terminals: Vec<Terminal>,
}

/// A token automaton with its edges labelled by token class: what the compiler produces,
/// before layout.
///
/// `TokenAutomaton::from_class_parts` merges classes that have the same edges everywhere,
/// drops unused ones and numbers them by smallest token, so any two class parts of one
/// automaton give the same file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassParts {
    /// Number of token ids of the vocabulary (the minimum mask width).
    pub vocab_size: u32,
    /// `fingerprint` of the vocabulary the automaton was compiled for.
    pub vocab_fingerprint: u64,
    /// Ids that end generation; allowed exactly in accepting states.
    pub eos_ids: Vec<u32>,
    /// The start state.
    pub start: StateId,
    /// One flag per state.
    pub accepting: Vec<bool>,
    /// Number of classes `C`.
    pub num_classes: u32,
    /// The class (below `C`) of each token id, `vocab_size` entries; [`NO_CLASS`] for a
    /// token in none. A map rather than token lists: classes are disjoint by
    /// construction, and it is what a compiler's grouping produces. EOS ids are in none.
    pub class_of_token: Vec<u32>,
    /// One list per state of `(label, target state)`, at most one edge per label. A label
    /// below `C` is a class (every token of it goes to the target); label `C + k` is
    /// terminal `k`.
    pub edges: Vec<Vec<(u32, StateId)>>,
    /// Terminal labels, in precedence order (as in [`AutomatonParts::terminals`]).
    pub terminals: Vec<Terminal>,
}

/// A terminal label: a named set of tokens that one edge reads as a whole.
///
/// A token with a normal edge in a state takes that edge; otherwise the state's terminal
/// edges are tried in precedence order (their order in [`AutomatonParts::terminals`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Terminal {
    /// What the set is, e.g. `PARAGRAPH_TOKEN` (shown by `fstc info` and `fstc dot`).
    pub name: String,
    /// The tokens, as a mask of `ceil(vocab_size / 32)` words laid out like a walker mask.
    /// EOS ids may not be in it.
    pub mask: Vec<u32>,
}

/// What is wrong with a set of automaton parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PartsErrorKind {
    /// The number of states, edges, classes or words does not fit, or the flags and edge
    /// lists disagree on the number of states.
    Counts,
    /// A label is out of range or labels two edges of one state, a token is given a class
    /// that does not exist, or an EOS id labels an edge or is in a class.
    EdgeLabel,
    /// An edge target is not a state.
    EdgeTarget,
    /// The start state is not a state.
    StartState,
    /// An EOS id is out of the vocabulary.
    EosIds,
    /// A terminal label's mask or name is malformed (wrong width, EOS or padding bits
    /// set, empty name, control characters in the name), or there are too many.
    Terminals,
    /// A token PDA's push sequences are malformed (`push_seqs[0]` not empty) or an edge
    /// pushes a sequence that does not exist.
    PushSequences,
    /// A token PDA's stack symbol is out of range, or a node's pop edges are not in
    /// strictly increasing symbol order.
    StackSymbol,
    /// The writer laid out words that do not load: a bug in fstc, not in the parts.
    Internal,
}

/// Automaton parts that do not make a valid automaton; the message says what and where
/// (state, token, terminal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartsError {
    kind: PartsErrorKind,
    message: String,
}

impl PartsError {
    pub(crate) fn new(kind: PartsErrorKind, message: String) -> PartsError {
        PartsError {
            kind,
            message: format!("invalid automaton parts: {message}"),
        }
    }

    /// What is wrong.
    pub fn kind(&self) -> PartsErrorKind {
        self.kind
    }
}

impl fmt::Display for PartsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PartsError {}

fn parts_error(kind: PartsErrorKind, message: String) -> PartsError {
    PartsError::new(kind, message)
}

/// Checked class parts in canonical form, ready for the writer: classes merged, numbered
/// by smallest token, each class's tokens as mask words.
pub(crate) struct CanonicalParts {
    pub(crate) vocab_size: u32,
    pub(crate) vocab_fingerprint: u64,
    /// Sorted and distinct.
    pub(crate) eos_ids: Vec<u32>,
    pub(crate) start: StateId,
    pub(crate) accepting: Vec<bool>,
    /// CSR of the classes as mask words: class `c` is the `(word index, bits)` pairs
    /// `class_words[2 * class_word_offsets[c]..2 * class_word_offsets[c + 1]]`.
    pub(crate) class_word_offsets: Vec<u32>,
    pub(crate) class_words: Vec<u32>,
    /// Tokens per class.
    pub(crate) class_sizes: Vec<u32>,
    /// The given class of each token id: its final class is
    /// `renumber(final_of_class, class_of_token[t])`. Kept unrenumbered so the writer
    /// encodes it in one pass.
    pub(crate) class_of_token: Vec<u32>,
    /// The final class of each given class (`NO_CLASS` for dropped ones).
    pub(crate) final_of_class: Vec<u32>,
    /// Whether each mask word's tokens all have one given class (see [`uniform_words`]).
    pub(crate) uniform: Vec<bool>,
    /// Per state, `(final label, target)`, labels increasing: classes, then terminals.
    pub(crate) edges: Vec<Vec<(u32, StateId)>>,
    pub(crate) terminals: Vec<Terminal>,
}

/// Checks token-level parts and groups their tokens into classes: tokens with the same
/// `(state, target)` pairs everywhere form one class, numbered by smallest token.
pub(crate) fn class_parts(parts: AutomatonParts) -> Result<ClassParts, PartsError> {
    let AutomatonParts {
        vocab_size,
        vocab_fingerprint,
        eos_ids,
        start,
        accepting,
        mut edges,
        terminals,
    } = parts;
    let n = check_state_count(accepting.len(), edges.len(), start)?;
    let eos_ids = check_eos_ids(eos_ids, vocab_size)?;
    let num_terminals = check_terminals(vocab_size, &eos_ids, &terminals)?;
    let label_end = u64::from(vocab_size) + u64::from(num_terminals);
    check_edge_lists(&mut edges, n, "token", |token| {
        if u64::from(token) >= label_end {
            Some(label_fault(token, vocab_size, num_terminals))
        } else if eos_ids.binary_search(&token).is_ok() {
            Some(format!(
                "EOS id {token} labels an edge; EOS is allowed by accepting states, never by \
                 edges"
            ))
        } else {
            None
        }
    })?;
    let (num_classes, class_of_token, edges) = group_tokens(vocab_size, edges);
    Ok(ClassParts {
        vocab_size,
        vocab_fingerprint,
        eos_ids,
        start,
        accepting,
        num_classes,
        class_of_token,
        edges,
        terminals,
    })
}

/// Token edges (checked) to class edges: the number of classes, the class of each token
/// id and each state's class edges followed by its terminal edges.
fn group_tokens(vocab_size: u32, edges: EdgeLists) -> (u32, Vec<u32>, EdgeLists) {
    let columns = Columns::group(vocab_size as usize, &edges);
    let class_edges = edges.iter().map(|list| columns.relabel(list)).collect();
    (columns.num_classes() as u32, columns.class_of, class_edges)
}

/// The number of states, checked against the flags, the edge lists and the start state.
fn check_state_count(flags: usize, lists: usize, start: StateId) -> Result<u32, PartsError> {
    if lists != flags {
        return Err(parts_error(
            PartsErrorKind::Counts,
            format!(
                "{flags} accepting flags but {lists} edge lists; both need one entry per state"
            ),
        ));
    }
    let num_states = u32::try_from(flags)
        .ok()
        .filter(|&k| k < u32::MAX)
        .ok_or_else(|| {
            parts_error(
                PartsErrorKind::Counts,
                format!("{flags} states; at most {} fit in a file", u32::MAX - 1),
            )
        })?;
    if start >= num_states {
        return Err(parts_error(
            PartsErrorKind::StartState,
            format!("start state {start} but there are only {num_states} states"),
        ));
    }
    Ok(num_states)
}

/// EOS ids sorted, deduplicated and checked to be in the vocabulary, whose size is
/// checked against [`MAX_VOCAB_SIZE`].
fn check_eos_ids(mut eos_ids: Vec<u32>, vocab_size: u32) -> Result<Vec<u32>, PartsError> {
    check_vocab_size(vocab_size)?;
    eos_ids.sort_unstable();
    eos_ids.dedup();
    if let Some(&bad) = eos_ids.iter().find(|&&id| id >= vocab_size) {
        return Err(parts_error(
            PartsErrorKind::EosIds,
            format!("EOS id {bad} is not below vocab_size {vocab_size}"),
        ));
    }
    Ok(eos_ids)
}

/// A vocabulary size within [`MAX_VOCAB_SIZE`].
pub(crate) fn check_vocab_size(vocab_size: u32) -> Result<(), PartsError> {
    if vocab_size > MAX_VOCAB_SIZE {
        return Err(parts_error(
            PartsErrorKind::Counts,
            format!("vocab_size {vocab_size} is over the supported {MAX_VOCAB_SIZE} token ids"),
        ));
    }
    Ok(())
}

/// Sorts each state's edges by label and checks them: `fault` says what is wrong with a
/// label, if anything; targets must be states; a label may label one edge per state.
/// `noun` names labels in the message ("token", "label").
fn check_edge_lists(
    edges: &mut [Vec<(u32, StateId)>],
    num_states: u32,
    noun: &str,
    fault: impl Fn(u32) -> Option<String>,
) -> Result<(), PartsError> {
    for (state, list) in edges.iter_mut().enumerate() {
        list.sort_unstable_by_key(|&(label, _)| label);
        for (i, &(label, target)) in list.iter().enumerate() {
            if let Some(why) = fault(label) {
                return Err(parts_error(
                    PartsErrorKind::EdgeLabel,
                    format!("state {state}: {why}"),
                ));
            }
            if target >= num_states {
                return Err(parts_error(
                    PartsErrorKind::EdgeTarget,
                    format!(
                        "state {state}: label {label} goes to state {target}, \
                         but there are only {num_states} states"
                    ),
                ));
            }
            if i > 0 && list[i - 1].0 == label {
                return Err(parts_error(
                    PartsErrorKind::EdgeLabel,
                    format!(
                        "state {state} has two edges with {noun} {label} (to states {} and \
                         {target}); a token automaton is deterministic",
                        list[i - 1].1
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Checks class parts and brings them to canonical form: classes merged when their edges
/// agree everywhere, unused ones dropped, numbered by smallest token.
pub(crate) fn canonical(parts: ClassParts) -> Result<CanonicalParts, PartsError> {
    Ok(canonical_before(parts, None)?.expect("no deadline"))
}

/// [`canonical`], giving up (`None`) once `deadline` has passed: polled after the edge
/// lists are sorted and inside the grouping of classes.
pub(crate) fn canonical_before(
    parts: ClassParts,
    deadline: Option<Instant>,
) -> Result<Option<CanonicalParts>, PartsError> {
    let ClassParts {
        vocab_size,
        vocab_fingerprint,
        eos_ids,
        start,
        accepting,
        num_classes: given_classes,
        class_of_token,
        mut edges,
        terminals,
    } = parts;
    let num_states = check_state_count(accepting.len(), edges.len(), start)?;
    let eos_ids = check_eos_ids(eos_ids, vocab_size)?;
    let num_terminals = check_terminals(vocab_size, &eos_ids, &terminals)?;
    check_class_map(
        vocab_size,
        given_classes,
        num_terminals,
        &eos_ids,
        &class_of_token,
    )?;
    let label_end = u64::from(given_classes) + u64::from(num_terminals);
    check_edge_lists(&mut edges, num_states, "label", |label| {
        (u64::from(label) >= label_end).then(|| {
            format!(
                "label {label} is neither one of the {given_classes} classes nor one of the \
                 {num_terminals} terminal labels after them"
            )
        })
    })?;
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return Ok(None);
    }
    let Some(classes) = layout_classes(given_classes, &class_of_token, &edges, deadline)? else {
        return Ok(None);
    };
    let num_classes = classes.sizes.len() as u32;
    for list in &mut edges {
        relabel_edges(list, given_classes, num_classes, &classes.final_of_class);
    }
    Ok(Some(CanonicalParts {
        vocab_size,
        vocab_fingerprint,
        eos_ids,
        start,
        accepting,
        class_word_offsets: classes.word_offsets,
        class_words: classes.words,
        class_sizes: classes.sizes,
        class_of_token,
        final_of_class: classes.final_of_class,
        uniform: classes.uniform,
        edges,
        terminals,
    }))
}

/// Canonical classes of checked edges, for [`CanonicalParts`].
struct ClassLayout {
    word_offsets: Vec<u32>,
    words: Vec<u32>,
    sizes: Vec<u32>,
    final_of_class: Vec<u32>,
    uniform: Vec<bool>,
}

/// Merges the given classes whose edges `(class, to)` agree in every state (`to` is a
/// target, or a target and a push for PDAs), drops unused ones and numbers the rest by
/// smallest token, each as mask words.
fn layout_classes<T: Hash + Eq + Copy>(
    given_classes: u32,
    class_of_token: &[u32],
    edges: &[Vec<(u32, T)>],
    deadline: Option<Instant>,
) -> Result<Option<ClassLayout>, PartsError> {
    // Merging works on classes; the passes over the token ids (check, mask words, class
    // map) take a word of one class in one step.
    let Some(columns) = Columns::group_before(given_classes as usize, edges, deadline) else {
        return Ok(None);
    };
    let num_groups = columns.num_classes();
    let group_of = columns.class_of;
    check_token_classes(given_classes, class_of_token)?;
    let uniform = uniform_words(class_of_token);
    let group_words = mask_words_by_label(class_of_token, &uniform, &group_of, num_groups);
    let classes = number_classes(group_words);
    let final_of_class: Vec<u32> = group_of
        .iter()
        .map(|&g| renumber(&classes.final_of_group, g))
        .collect();
    Ok(Some(ClassLayout {
        word_offsets: classes.word_offsets,
        words: classes.words,
        sizes: classes.sizes,
        final_of_class,
        uniform,
    }))
}

/// Checks the class map's size and that no EOS id is in a class.
fn check_class_map(
    vocab_size: u32,
    given_classes: u32,
    num_terminals: u32,
    eos_ids: &[u32],
    class_of_token: &[u32],
) -> Result<(), PartsError> {
    if u64::from(given_classes) + u64::from(num_terminals) > u64::from(u32::MAX) {
        return Err(parts_error(
            PartsErrorKind::Counts,
            format!(
                "{given_classes} token classes and {num_terminals} terminals do not fit in \
                 u32 labels"
            ),
        ));
    }
    if class_of_token.len() != vocab_size as usize {
        return Err(parts_error(
            PartsErrorKind::Counts,
            format!(
                "class_of_token has {} entries but vocab_size is {vocab_size}: it needs one \
                 per token id",
                class_of_token.len()
            ),
        ));
    }
    if let Some(&e) = eos_ids
        .iter()
        .find(|&&e| class_of_token[e as usize] != NO_CLASS)
    {
        return Err(parts_error(
            PartsErrorKind::EdgeLabel,
            format!(
                "EOS id {e} is in class {}; EOS is allowed by accepting states, never by edges",
                class_of_token[e as usize]
            ),
        ));
    }
    Ok(())
}

/// Checks that every token's class exists.
fn check_token_classes(given_classes: u32, class_of_token: &[u32]) -> Result<(), PartsError> {
    // `c + 1` wraps `NO_CLASS` to 0, so one (vectorized) maximum checks every token.
    let largest = class_of_token.iter().map(|&c| c.wrapping_add(1)).max();
    if largest.is_some_and(|c| c > given_classes) {
        let (t, c) = (class_of_token.iter().enumerate())
            .find(|&(_, &c)| c != NO_CLASS && c >= given_classes)
            .expect("the maximum is a token's class");
        return Err(parts_error(
            PartsErrorKind::EdgeLabel,
            format!("token {t} is given class {c}, but there are {given_classes} classes"),
        ));
    }
    Ok(())
}

/// The final classes as mask words, numbered by first token.
struct NumberedClasses {
    final_of_group: Vec<u32>,
    word_offsets: Vec<u32>,
    words: Vec<u32>,
    sizes: Vec<u32>,
}

/// Final classes: the groups with tokens, numbered by first token.
fn number_classes(group_words: Vec<Vec<u32>>) -> NumberedClasses {
    let num_groups = group_words.len();
    let first_token = |words: &[u32]| words[0] * 32 + words[1].trailing_zeros();
    let mut order: Vec<usize> = (0..num_groups)
        .filter(|&g| !group_words[g].is_empty())
        .collect();
    order.sort_unstable_by_key(|&g| first_token(&group_words[g]));
    let mut final_of_group = vec![NO_CLASS; num_groups];
    let mut word_offsets = Vec::with_capacity(order.len() + 1);
    word_offsets.push(0u32);
    let mut words = Vec::new();
    let mut sizes = Vec::with_capacity(order.len());
    for (i, &g) in order.iter().enumerate() {
        final_of_group[g] = i as u32;
        let group = &group_words[g];
        words.extend_from_slice(group);
        word_offsets.push((words.len() / 2) as u32);
        sizes.push(group.chunks_exact(2).map(|p| p[1].count_ones()).sum());
    }
    NumberedClasses {
        final_of_group,
        word_offsets,
        words,
        sizes,
    }
}

/// A state's edges with given class labels replaced by final ones (edges of dropped
/// classes removed, merged duplicates once) and terminal labels moved after the final
/// classes; sorted.
fn relabel_edges(
    list: &mut Vec<(u32, StateId)>,
    given_classes: u32,
    num_classes: u32,
    final_of_class: &[u32],
) {
    let mut out: Vec<(u32, StateId)> = Vec::with_capacity(list.len());
    for &(label, target) in list.iter() {
        if label < given_classes {
            let c = final_of_class[label as usize];
            if c != NO_CLASS {
                out.push((c, target));
            }
        } else {
            out.push((num_classes + (label - given_classes), target));
        }
    }
    out.sort_unstable();
    out.dedup();
    *list = out;
}

/// Class (or group) `c` renumbered by `table`; `NO_CLASS` stays `NO_CLASS`.
pub(crate) fn renumber(table: &[u32], c: u32) -> u32 {
    if c == NO_CLASS {
        NO_CLASS
    } else {
        table[c as usize]
    }
}

/// Whether each mask word's token ids (32; fewer in the last word) all have one class:
/// the writer lays such words out whole instead of token by token. Most words are
/// uniform (a pattern treats most tokens alike), and this pass vectorizes.
fn uniform_words(class_of_token: &[u32]) -> Vec<bool> {
    class_of_token
        .chunks(MASK_WORD_TOKENS)
        .map(|chunk| chunk.iter().fold(0, |acc, &c| acc | (c ^ chunk[0])) == 0)
        .collect()
}

/// Each label's tokens as mask words, `(word index, bits)` pairs flattened with word
/// indices increasing, where token `t`'s label is `label_of_class[class_of_token[t]]`
/// (`NO_CLASS` for none): what filling a sparse state ORs in, one word at a time. A
/// `uniform` word is one step; the others a step per token.
fn mask_words_by_label(
    class_of_token: &[u32],
    uniform: &[bool],
    label_of_class: &[u32],
    num_labels: usize,
) -> Vec<Vec<u32>> {
    fn push(list: &mut Vec<u32>, word: u32, bits: u32) {
        match list.len() {
            n if n >= 2 && list[n - 2] == word => list[n - 1] |= bits,
            _ => list.extend_from_slice(&[word, bits]),
        }
    }
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); num_labels];
    let words = class_of_token.chunks(MASK_WORD_TOKENS).zip(uniform);
    for (w, (chunk, &whole)) in words.enumerate() {
        let word = w as u32;
        if whole {
            let label = renumber(label_of_class, chunk[0]);
            if label != NO_CLASS {
                let bits = u32::MAX >> (MASK_WORD_TOKENS - chunk.len());
                push(&mut lists[label as usize], word, bits);
            }
            continue;
        }
        for (i, &c) in chunk.iter().enumerate() {
            let label = renumber(label_of_class, c);
            if label != NO_CLASS {
                push(&mut lists[label as usize], word, 1 << i);
            }
        }
    }
    lists
}

/// Why `label` is not a valid edge label.
fn label_fault(label: u32, vocab_size: u32, num_terminals: u32) -> String {
    if num_terminals == 0 {
        format!("token {label} is not below vocab_size {vocab_size}")
    } else {
        format!(
            "label {label} is neither a token (below vocab_size {vocab_size}) nor one of the \
             {num_terminals} terminal labels after them"
        )
    }
}

/// Checks terminal labels given to `from_parts` and returns how many there are.
fn check_terminals(
    vocab_size: u32,
    eos_ids: &[u32],
    terminals: &[Terminal],
) -> Result<u32, PartsError> {
    let count = u32::try_from(terminals.len())
        .ok()
        .filter(|&n| n <= MAX_TERMINALS)
        .ok_or_else(|| {
            parts_error(
                PartsErrorKind::Terminals,
                format!(
                    "{} terminal labels; at most {MAX_TERMINALS} fit in a file",
                    terminals.len()
                ),
            )
        })?;
    if u64::from(vocab_size) + u64::from(count) > u64::from(u32::MAX) {
        return Err(parts_error(
            PartsErrorKind::Terminals,
            format!("vocab_size {vocab_size} leaves no label ids for {count} terminals"),
        ));
    }
    for (k, t) in terminals.iter().enumerate() {
        if let Some(why) = terminal_fault(t, vocab_size, eos_ids) {
            return Err(parts_error(
                PartsErrorKind::Terminals,
                format!("terminal {k}{why}"),
            ));
        }
    }
    Ok(count)
}

/// What is wrong with one terminal, as the rest of a message starting "terminal {k}".
fn terminal_fault(t: &Terminal, vocab_size: u32, eos_ids: &[u32]) -> Option<String> {
    let width = (vocab_size as usize).div_ceil(32);
    if t.name.is_empty() || t.name.len() > MAX_TERMINAL_NAME {
        return Some(format!(
            " has a name of {} bytes; names have 1 to {MAX_TERMINAL_NAME}",
            t.name.len()
        ));
    }
    if t.name.chars().any(char::is_control) {
        return Some(format!("'s name {:?} has control characters", t.name));
    }
    if t.mask.len() != width {
        return Some(format!(
            " ({}) has a mask of {} words; vocab_size {vocab_size} needs {width}",
            t.name,
            t.mask.len()
        ));
    }
    terminal_mask_fault(&t.mask, vocab_size, eos_ids).map(|why| format!(" ({}): {why}", t.name))
}

/// What is wrong with a terminal mask, if anything: it may not set padding bits or EOS ids
/// (EOS is allowed by accepting states only). The file reader checks stored masks with it
/// too.
pub(crate) fn terminal_mask_fault(
    mask: &[u32],
    vocab_size: u32,
    eos_ids: &[u32],
) -> Option<String> {
    let has = |t: u32| mask[(t / 32) as usize] & (1 << (t % 32)) != 0;
    if let Some(&e) = eos_ids.iter().find(|&&e| has(e)) {
        return Some(format!(
            "its mask holds EOS id {e}; EOS is allowed by accepting states, never by edges"
        ));
    }
    let tail = vocab_size % 32;
    if tail != 0 && mask.last().is_some_and(|w| w >> tail != 0) {
        return Some(format!(
            "its mask sets padding bits past vocab_size {vocab_size}"
        ));
    }
    None
}
