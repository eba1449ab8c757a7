//! The token automaton file format (version 3) and its validation.
//!
//! A file is a sequence of little-endian `u32` words, and a [`TokenAutomaton`] in memory
//! is the same words, so loading is validation only: [`TokenAutomaton::from_bytes`]
//! borrows a 4-byte-aligned buffer without copying (like regex-automata's
//! `DFA::from_bytes`), [`TokenAutomaton::from_bytes_copied`] decodes any buffer on any
//! host. Validation is complete: once a file loads, no accessor or walker operation can
//! panic or read out of bounds, whatever bytes the file held.
//!
//! Layout of version 3 (word indices):
//!
//! | words | content |
//! |---|---|
//! | 0–1 | magic `b"fstcTA\0\0"` |
//! | 2 | endianness marker `0x01020304` (reads `0x04030201` in a byte-swapped file) |
//! | 3 | format version (3) |
//! | 4 | kind: 0 token FSA, 1 token PDA (reserved) |
//! | 5 | total length of the file in words |
//! | 6 | vocabulary size |
//! | 7–8 | vocabulary fingerprint, low word then high word |
//! | 9 | start state |
//! | 10 | number of states |
//! | 11 | number of edges: the token edges the class edges stand for, plus terminal edges |
//! | 12 | number of accepting states |
//! | 13 | number of EOS ids |
//! | 14 | number of terminal labels `T` |
//! | 15 | number of sections |
//! | 16… | section table: `(id, offset, length)` per section, offsets and lengths in words |
//! | … | the sections, anywhere after the table, not overlapping |
//! | last 2 | 64-bit checksum of every preceding word (see below), low word then high word |
//!
//! Edges are labelled by **token class**: a set of tokens that go to the same state from
//! every state (or have no edge there). Classes are stored once, so a wildcard state of a
//! 128k vocabulary has a handful of class edges. Label `c < C` is class `c`; label `C + k`
//! is terminal `k`. Classes are canonical (no two with the same edges everywhere, none
//! unused, numbered by smallest token), so one automaton has one file.
//!
//! Required sections: [`SECTION_EOS_IDS`] (sorted, distinct), [`SECTION_STATE_OFFSETS`]
//! (CSR: `num_states + 1` indices into the edges, from 0), [`SECTION_STATE_FLAGS`] (the
//! accepting states as a bitset, bit `s % 32` of word `s / 32`, bits past the last state 0),
//! the edges, and the classes: [`SECTION_TOKEN_CLASSES`] (the class of every token id,
//! `vocab_size` entries, "none" for EOS ids and tokens without edges, so `consume` finds a
//! token's class in O(1); or, when the optional [`SECTION_TOKEN_INDEX`] lists the tokens in
//! some class, strictly increasing, the class of each index entry, which is smaller when
//! few tokens have a class) and each class as mask words, which is how the walker fills a
//! sparse state's mask (a word per OR instead of a bit per token) and the only list of a
//! class's tokens: [`SECTION_CLASS_WORD_OFFSETS`] (CSR: `C + 1` indices of pairs, strictly
//! increasing: no class is empty) and [`SECTION_CLASS_WORDS`] (`(word index, bits)` pairs,
//! word indices strictly increasing, bits non-zero, exactly the words of the tokens the
//! token classes give the class). The edges (labels
//! strictly increasing within a state) come in one of two layouts:
//!
//! - when `C + T` is below 2^16 (so no class is 0xffff) and the number of states at most 2^16:
//!   [`SECTION_EDGES_PACKED`], one word per edge, `label << 16 | target`; token classes
//!   are then 16-bit, two per word (entry `i` in the low half of word `i / 2` when `i` is
//!   even), `0xffff` for none and for the unused half after an odd count;
//! - otherwise [`SECTION_EDGE_LABELS`] and [`SECTION_EDGE_TARGETS`], a word each, and a
//!   word per token class (`u32::MAX` for none).
//!
//! Id [`SECTION_STACK_OPS`] is reserved for a later version; any other unknown id is
//! rejected. Older versions (1: an edge per token; 2: class lists and a sorted token
//! index, one checksum chain) are refused with a request to recompile.
//!
//! Terminal labels (Koo et al. §2.5.1) stand for precomputed sets of tokens, stored once
//! per file rather than as an edge per token. When `T > 0`, two sections describe them
//! (and are absent when `T = 0`):
//!
//! - [`SECTION_TERMINAL_MASKS`]: `T` masks of `ceil(vocab_size / 32)` words, laid out like
//!   a walker mask; no EOS id and no padding bit is set. Terminal `k`'s mask is at
//!   `k * ceil(vocab_size / 32)`.
//! - [`SECTION_TERMINAL_NAMES`]: `T` words of name lengths in bytes, then the names'
//!   UTF-8 bytes concatenated, packed four to a word little-endian, zero-padded.
//!
//! A token whose class has an edge in the state takes it; otherwise the state's terminal edges
//! are tried in increasing `k` (the precedence order) and the first whose mask holds the
//! token is taken.
//!
//! Two optional sections, present together or not at all (the section table says which),
//! hold precomputed dense masks so that filling the mask of a state with ~100k edges is a
//! copy instead of a loop over its edges:
//!
//! - [`SECTION_DENSE_MASKS`]: `k` distinct masks of `ceil(vocab_size / 32)` words each,
//!   laid out like a walker mask. A mask holds exactly the state's token edges, plus the
//!   EOS ids when the state accepts ([`Walker::fill_mask`] ORs terminal masks on top).
//!   Padding bits past `vocab_size` are 0.
//! - [`SECTION_STATE_MASK_INDEX`]: one word per state, the index of its mask or
//!   `u32::MAX` for a state without one. Masks are numbered in order of first use by
//!   increasing state, so every mask is used (`k` >= 1).
//!
//! Which states get a mask is the writer's choice (see [`dense_mask_wanted`]); the loader
//! only checks that every mask is exactly its states' allowed set, so a damaged mask can
//! never let the walker allow a token that `consume` refuses.
//!
//! [`Walker::fill_mask`]: crate::walker::Walker::fill_mask
//!
//! The checksum is FNV-1a with the 32-bit word as its unit (`h ^= word; h *= prime`,
//! 64-bit offset basis and prime) run in [`CHECKSUM_LANES`] interleaved lanes: lane `j`
//! hashes words `j, j + 8, j + 16, ...`, and the lanes' 64-bit results, in lane order, are
//! then hashed the same way as 64-bit units. Independent lanes let the multiplies overlap
//! (several times faster than one chain, which matters on every compile and load), and
//! since every step is a bijection of the running hash, any change to a single word is
//! still always detected. (Version 2 used one chain.)

use std::collections::HashMap;

use crate::fast_hash::FastMap;
use std::fmt;
use std::path::Path;

use crate::automaton::{
    parts_error, AutomatonKind, AutomatonParts, ClassParts, Layout, StateId, Terminal,
    TokenAutomaton, NO_CLASS,
};

/// The magic bytes every automaton file starts with.
pub const MAGIC: [u8; 8] = *b"fstcTA\0\0";
/// The endianness marker word, as written.
pub const ENDIANNESS_MARKER: u32 = 0x0102_0304;
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 3;

/// Section id of the EOS ids.
pub const SECTION_EOS_IDS: u32 = 1;
/// Section id of the CSR state offsets.
pub const SECTION_STATE_OFFSETS: u32 = 2;
/// Section id of the state flags.
pub const SECTION_STATE_FLAGS: u32 = 3;
/// Section id of the edge labels (class numbers, then terminal labels), 32-bit layout.
pub const SECTION_EDGE_LABELS: u32 = 4;
/// Section id of the edge targets, 32-bit layout.
pub const SECTION_EDGE_TARGETS: u32 = 5;
/// Section id of the terminal label masks (present exactly when there are terminals).
pub const SECTION_TERMINAL_MASKS: u32 = 6;
/// Section id of the terminal label names (present exactly when there are terminals).
pub const SECTION_TERMINAL_NAMES: u32 = 7;
/// Reserved section id: PDA stack operations.
pub const SECTION_STACK_OPS: u32 = 8;
/// Section id of the packed edges (`label << 16 | target`), 16-bit layout.
pub const SECTION_EDGES_PACKED: u32 = 9;
/// Section id of the token index (optional): the tokens in some class, ascending. With
/// it, [`SECTION_TOKEN_CLASSES`] holds the class of each index entry; without it, the
/// class of every token id. The writer picks the smaller.
pub const SECTION_TOKEN_INDEX: u32 = 12;
/// Section id of the token classes (see [`SECTION_TOKEN_INDEX`]). Ids 10 and 11 held the
/// class token lists in version 2.
pub const SECTION_TOKEN_CLASSES: u32 = 13;
/// Section id of the CSR class word offsets (`num_classes + 1` entries, counting pairs).
pub const SECTION_CLASS_WORD_OFFSETS: u32 = 14;
/// Section id of the class words: per class, `(word index, bits)` pairs of its mask.
pub const SECTION_CLASS_WORDS: u32 = 15;
/// Section id of the dense mask table (optional, with [`SECTION_STATE_MASK_INDEX`]). Ids
/// from 16 up are derived data, redundant with the sections below 16 and checked against
/// them on load.
pub const SECTION_DENSE_MASKS: u32 = 16;
/// Section id of the per-state dense mask index (optional, with [`SECTION_DENSE_MASKS`]).
pub const SECTION_STATE_MASK_INDEX: u32 = 17;
/// Mask index word of a state without a dense mask.
pub const NO_DENSE_MASK: u32 = u32::MAX;

/// Fewest allowed tokens for which a state gets a dense mask, whatever the vocabulary:
/// below this the class-word loop of `fill_mask` costs under ~40 ns, so a mask would only
/// add file size (and tiny test vocabularies have no dense mask sections).
pub const DENSE_MIN_TOKENS: usize = 64;
/// A state gets a dense mask when its allowed tokens number at least the mask's width in
/// words divided by this. Measured at the Llama 3 width (4008 words; `mask_timing --
/// --calibrate`, x86-64): with warm caches the class-list loop costs ~0.5-1 ns per token and
/// a copy only ~0.02 us more than the zeroing both paths do, so speed alone would pick ~50
/// tokens. Memory sets the bar: a mask costs its width in every file, so it is kept only
/// for states allowing at least a token per mask word; the sparse path then costs at most
/// one word-sized OR per class word (~1-2 us at 128k tokens).
pub const DENSE_WORDS_PER_TOKEN: usize = 1;

/// Whether a state allowing `allowed` tokens (token edges plus EOS ids when it accepts) gets a
/// dense mask of `mask_words` words when an automaton is laid out.
pub fn dense_mask_wanted(allowed: usize, mask_words: usize) -> bool {
    allowed >= DENSE_MIN_TOKENS && allowed.saturating_mul(DENSE_WORDS_PER_TOKEN) >= mask_words
}

/// Whether `state` is marked accepting in the state flags (one bit per state, bit
/// `s % 32` of word `s / 32`).
#[inline]
pub(crate) fn flag_set(flags: &[u32], state: usize) -> bool {
    flags
        .get(state / 32)
        .is_some_and(|w| w & (1 << (state % 32)) != 0)
}

const W_MARKER: usize = 2;
const W_VERSION: usize = 3;
const W_KIND: usize = 4;
const W_TOTAL: usize = 5;
const W_VOCAB_SIZE: usize = 6;
const W_FINGERPRINT: usize = 7;
const W_START: usize = 9;
const W_NUM_STATES: usize = 10;
const W_NUM_EDGES: usize = 11;
const W_NUM_ACCEPTING: usize = 12;
const W_NUM_EOS: usize = 13;
const W_NUM_TERMINALS: usize = 14;
const W_NUM_SECTIONS: usize = 15;
/// Words before the section table.
const FIXED_HEADER: usize = 16;
/// Words of the checksum trailer.
const TRAILER: usize = 2;
/// The section ids this version knows.
const KNOWN_SECTIONS: [u32; 14] = [
    SECTION_EOS_IDS,
    SECTION_STATE_OFFSETS,
    SECTION_STATE_FLAGS,
    SECTION_EDGE_LABELS,
    SECTION_EDGE_TARGETS,
    SECTION_TERMINAL_MASKS,
    SECTION_TERMINAL_NAMES,
    SECTION_EDGES_PACKED,
    SECTION_TOKEN_INDEX,
    SECTION_TOKEN_CLASSES,
    SECTION_CLASS_WORD_OFFSETS,
    SECTION_CLASS_WORDS,
    SECTION_DENSE_MASKS,
    SECTION_STATE_MASK_INDEX,
];

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// The two magic words as a little-endian reader sees them.
fn magic_words() -> [u32; 2] {
    [
        u32::from_le_bytes([MAGIC[0], MAGIC[1], MAGIC[2], MAGIC[3]]),
        u32::from_le_bytes([MAGIC[4], MAGIC[5], MAGIC[6], MAGIC[7]]),
    ]
}

/// Interleaved FNV-1a lanes of the checksum (see the module doc).
pub const CHECKSUM_LANES: usize = 8;

/// The file checksum: FNV-1a 64 over words in [`CHECKSUM_LANES`] lanes (see the module doc).
pub(crate) fn checksum(words: &[u32]) -> u64 {
    let mut lanes = [FNV_OFFSET; CHECKSUM_LANES];
    let blocks = words.chunks_exact(CHECKSUM_LANES);
    let tail = blocks.remainder();
    for block in blocks {
        for (lane, &w) in lanes.iter_mut().zip(block) {
            *lane = (*lane ^ u64::from(w)).wrapping_mul(FNV_PRIME);
        }
    }
    for (lane, &w) in lanes.iter_mut().zip(tail) {
        *lane = (*lane ^ u64::from(w)).wrapping_mul(FNV_PRIME);
    }
    lanes.iter().fold(FNV_OFFSET, |hash, &lane| {
        (hash ^ lane).wrapping_mul(FNV_PRIME)
    })
}

fn section_name(id: u32) -> &'static str {
    match id {
        SECTION_EOS_IDS => "EOS ids",
        SECTION_STATE_OFFSETS => "state offsets",
        SECTION_STATE_FLAGS => "state flags",
        SECTION_EDGE_LABELS => "edge labels",
        SECTION_EDGE_TARGETS => "edge targets",
        SECTION_TERMINAL_MASKS => "terminal masks",
        SECTION_TERMINAL_NAMES => "terminal names",
        SECTION_STACK_OPS => "stack operations",
        SECTION_EDGES_PACKED => "packed edges",
        SECTION_TOKEN_INDEX => "token index",
        SECTION_TOKEN_CLASSES => "token classes",
        SECTION_CLASS_WORD_OFFSETS => "class word offsets",
        SECTION_CLASS_WORDS => "class words",
        SECTION_DENSE_MASKS => "dense masks",
        SECTION_STATE_MASK_INDEX => "state mask index",
        _ => "unknown",
    }
}

/// What is wrong with an automaton file or with automaton parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FormatErrorKind {
    /// Reading or writing the file failed.
    Io,
    /// The data does not start with the magic bytes: not an fstc automaton.
    NotAnAutomaton,
    /// The file was written with the other byte order, or its endianness marker is damaged.
    ByteOrder,
    /// The format version is unknown, typically a file from a newer fstc.
    Version,
    /// The automaton kind is reserved or unknown (token PDAs are not loadable yet).
    Kind,
    /// The data is truncated, has trailing bytes, or is not a whole number of words.
    Length,
    /// Zero-copy loading needs a 4-byte-aligned buffer.
    Misaligned,
    /// Zero-copy loading needs a little-endian host.
    BigEndianHost,
    /// The checksum does not match: the file is corrupted.
    Checksum,
    /// The section table is out of bounds, overlapping, incomplete or names an unknown section.
    SectionTable,
    /// A count disagrees with a section or with the data (states, edges, accepting states).
    Counts,
    /// The CSR state offsets are not monotone from 0 to the number of edges.
    StateOffsets,
    /// A state flag word has unknown bits.
    StateFlags,
    /// An edge label is out of range, repeated or unsorted in its state, or a token given
    /// to `from_parts` is out of the vocabulary or an EOS id.
    EdgeLabel,
    /// The token classes are malformed: an empty or unsorted class, a token in two classes,
    /// out of the vocabulary or an EOS id, or an index that disagrees with the classes.
    TokenClasses,
    /// An edge target is not a state.
    EdgeTarget,
    /// The start state is not a state.
    StartState,
    /// An EOS id is out of the vocabulary, or the EOS ids are not sorted and distinct.
    EosIds,
    /// A dense mask section is malformed, or a state's dense mask differs from its edges
    /// (plus EOS ids when it accepts).
    DenseMask,
    /// A terminal label's mask or name is malformed (wrong width, EOS or padding bits set,
    /// empty, non-UTF-8 or control characters in the name).
    Terminals,
}

/// An automaton file or a set of [`AutomatonParts`] that does not make a valid automaton.
///
/// The message says what is wrong and where (section, word index, state).
#[derive(Debug)]
pub struct FormatError {
    kind: FormatErrorKind,
    message: String,
    source: Option<std::io::Error>,
}

impl FormatError {
    pub(crate) fn new(kind: FormatErrorKind, message: String) -> FormatError {
        FormatError {
            kind,
            message,
            source: None,
        }
    }

    /// What went wrong, for callers that react differently to, say, a newer version.
    pub fn kind(&self) -> FormatErrorKind {
        self.kind
    }

    /// The underlying I/O error of a [`FormatErrorKind::Io`] error (e.g. to tell "not
    /// found" from "permission denied").
    pub fn io_error(&self) -> Option<&std::io::Error> {
        self.source.as_ref()
    }

    fn in_file(mut self, path: &Path) -> FormatError {
        self.message = format!("{}: {}", path.display(), self.message);
        self
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The I/O error is part of the message (so a plain `{}` is actionable) and therefore not
/// also reported as `source()`, which would print it twice in error chains.
impl std::error::Error for FormatError {}

fn err(kind: FormatErrorKind, message: String) -> FormatError {
    FormatError::new(kind, message)
}

/// Checks that `bytes` start like an automaton file and are whole words.
fn check_bytes(bytes: &[u8]) -> Result<(), FormatError> {
    let mut swapped = [0u8; 8];
    for (i, chunk) in MAGIC.chunks(4).enumerate() {
        for (j, &b) in chunk.iter().rev().enumerate() {
            swapped[i * 4 + j] = b;
        }
    }
    if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
        if bytes.len() >= MAGIC.len() && bytes[..MAGIC.len()] == swapped {
            return Err(err(
                FormatErrorKind::ByteOrder,
                "automaton file is byte-swapped (written as big-endian words); \
                 fstc files are little-endian: rewrite it with fstc"
                    .into(),
            ));
        }
        return Err(err(
            FormatErrorKind::NotAnAutomaton,
            format!(
                "not an fstc token automaton: the first bytes are {:?}, expected {:?}",
                String::from_utf8_lossy(&bytes[..bytes.len().min(MAGIC.len())]),
                String::from_utf8_lossy(&MAGIC),
            ),
        ));
    }
    if bytes.len() % 4 != 0 {
        return Err(err(
            FormatErrorKind::Length,
            format!(
                "automaton file is {} bytes, not a whole number of 4-byte words: truncated or padded",
                bytes.len()
            ),
        ));
    }
    Ok(())
}

impl<'a> TokenAutomaton<&'a [u32]> {
    /// Validates `bytes` as an automaton file and borrows them without copying.
    ///
    /// Needs a 4-byte-aligned buffer and a little-endian host; otherwise use
    /// [`TokenAutomaton::from_bytes_copied`]. Validation reads every word once.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<TokenAutomaton<&'a [u32]>, FormatError> {
        check_bytes(bytes)?;
        if cfg!(target_endian = "big") {
            return Err(err(
                FormatErrorKind::BigEndianHost,
                "zero-copy loading needs a little-endian host; use TokenAutomaton::from_bytes_copied"
                    .into(),
            ));
        }
        let words: &[u32] = bytemuck::try_cast_slice(bytes).map_err(|_| {
            err(
                FormatErrorKind::Misaligned,
                format!(
                    "automaton buffer at address {:p} is not 4-byte aligned, so it cannot be \
                     borrowed as words; use TokenAutomaton::from_bytes_copied",
                    bytes.as_ptr()
                ),
            )
        })?;
        TokenAutomaton::from_words(words)
    }
}

impl TokenAutomaton<Vec<u32>> {
    /// Validates `bytes` as an automaton file and copies them into owned words; works at
    /// any alignment and on any host.
    pub fn from_bytes_copied(bytes: &[u8]) -> Result<TokenAutomaton<Vec<u32>>, FormatError> {
        check_bytes(bytes)?;
        let words = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        TokenAutomaton::from_words(words)
    }

    /// Reads and validates an automaton file; errors name the path.
    pub fn read_file(path: impl AsRef<Path>) -> Result<TokenAutomaton<Vec<u32>>, FormatError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| FormatError {
            kind: FormatErrorKind::Io,
            message: format!("cannot read automaton file {}: {e}", path.display()),
            source: Some(e),
        })?;
        TokenAutomaton::from_bytes_copied(&bytes).map_err(|e| e.in_file(path))
    }
}

impl<W: AsRef<[u32]>> TokenAutomaton<W> {
    /// Writes the automaton file (its words, little-endian); errors name the path.
    pub fn write_file(&self, path: impl AsRef<Path>) -> Result<(), FormatError> {
        let path = path.as_ref();
        std::fs::write(path, self.to_bytes()).map_err(|e| FormatError {
            kind: FormatErrorKind::Io,
            message: format!("cannot write automaton file {}: {e}", path.display()),
            source: Some(e),
        })
    }
}

/// Checks token-level parts and groups their tokens into classes: tokens with the same
/// `(state, target)` pairs everywhere form one class, numbered by smallest token.
pub(crate) fn class_parts(parts: AutomatonParts) -> Result<ClassParts, FormatError> {
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
    // Each token's column: the (state, target) pairs of its edges, in state order.
    let mut columns: HashMap<u32, Vec<(u32, StateId)>> = HashMap::new();
    for (state, list) in edges.iter().enumerate() {
        for &(token, target) in list.iter().take_while(|&&(t, _)| t < vocab_size) {
            columns
                .entry(token)
                .or_default()
                .push((state as u32, target));
        }
    }
    let mut tokens: Vec<u32> = columns.keys().copied().collect();
    tokens.sort_unstable();
    let mut class_of: HashMap<&[(u32, StateId)], u32> = HashMap::new();
    let mut classes: Vec<Vec<u32>> = Vec::new();
    for &token in &tokens {
        let column = columns[&token].as_slice();
        let next = classes.len() as u32;
        let c = *class_of.entry(column).or_insert(next);
        if c == next {
            classes.push(Vec::new());
        }
        classes[c as usize].push(token);
    }
    let num_classes = classes.len() as u32;
    let mut class_edges: Vec<Vec<(u32, StateId)>> = vec![Vec::new(); edges.len()];
    for (c, members) in classes.iter().enumerate() {
        for &(state, target) in &columns[&members[0]] {
            class_edges[state as usize].push((c as u32, target));
        }
    }
    for (list, out) in edges.iter().zip(&mut class_edges) {
        let split = list.partition_point(|&(t, _)| t < vocab_size);
        out.extend(
            list[split..]
                .iter()
                .map(|&(l, t)| (num_classes + (l - vocab_size), t)),
        );
    }
    let mut class_of_token = vec![NO_CLASS; vocab_size as usize];
    for (c, members) in classes.iter().enumerate() {
        for &t in members {
            class_of_token[t as usize] = c as u32;
        }
    }
    Ok(ClassParts {
        vocab_size,
        vocab_fingerprint,
        eos_ids,
        start,
        accepting,
        num_classes,
        class_of_token,
        edges: class_edges,
        terminals,
    })
}

/// The number of states, checked against the flags, the edge lists and the start state.
fn check_state_count(flags: usize, lists: usize, start: StateId) -> Result<u32, FormatError> {
    if lists != flags {
        return Err(parts_error(
            FormatErrorKind::Counts,
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
                FormatErrorKind::Counts,
                format!("{flags} states; at most {} fit in a file", u32::MAX - 1),
            )
        })?;
    if start >= num_states {
        return Err(parts_error(
            FormatErrorKind::StartState,
            format!("start state {start} but there are only {num_states} states"),
        ));
    }
    Ok(num_states)
}

/// EOS ids sorted, deduplicated and checked to be in the vocabulary.
fn check_eos_ids(mut eos_ids: Vec<u32>, vocab_size: u32) -> Result<Vec<u32>, FormatError> {
    eos_ids.sort_unstable();
    eos_ids.dedup();
    if let Some(&bad) = eos_ids.iter().find(|&&id| id >= vocab_size) {
        return Err(parts_error(
            FormatErrorKind::EosIds,
            format!("EOS id {bad} is not below vocab_size {vocab_size}"),
        ));
    }
    Ok(eos_ids)
}

/// Sorts each state's edges by label and checks them: `fault` says what is wrong with a
/// label, if anything; targets must be states; a label may label one edge per state.
/// `noun` names labels in the message ("token", "label").
fn check_edge_lists(
    edges: &mut [Vec<(u32, StateId)>],
    num_states: u32,
    noun: &str,
    fault: impl Fn(u32) -> Option<String>,
) -> Result<(), FormatError> {
    for (state, list) in edges.iter_mut().enumerate() {
        list.sort_unstable_by_key(|&(label, _)| label);
        for (i, &(label, target)) in list.iter().enumerate() {
            if let Some(why) = fault(label) {
                return Err(parts_error(
                    FormatErrorKind::EdgeLabel,
                    format!("state {state}: {why}"),
                ));
            }
            if target >= num_states {
                return Err(parts_error(
                    FormatErrorKind::EdgeTarget,
                    format!(
                        "state {state}: label {label} goes to state {target}, \
                         but there are only {num_states} states"
                    ),
                ));
            }
            if i > 0 && list[i - 1].0 == label {
                return Err(parts_error(
                    FormatErrorKind::EdgeLabel,
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

/// Checks class parts, brings them to canonical form (classes merged when their edges
/// agree everywhere, unused ones dropped, numbered by smallest token) and lays them out as
/// the words of a file.
pub(crate) fn words_from_class_parts(parts: ClassParts) -> Result<Vec<u32>, FormatError> {
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
    if u64::from(given_classes) + u64::from(num_terminals) > u64::from(u32::MAX) {
        return Err(parts_error(
            FormatErrorKind::Counts,
            format!(
                "{given_classes} token classes and {num_terminals} terminals do not fit in \
                 u32 labels"
            ),
        ));
    }
    if class_of_token.len() != vocab_size as usize {
        return Err(parts_error(
            FormatErrorKind::Counts,
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
            FormatErrorKind::EdgeLabel,
            format!(
                "EOS id {e} is in class {}; EOS is allowed by accepting states, never by edges",
                class_of_token[e as usize]
            ),
        ));
    }
    let label_end = u64::from(given_classes) + u64::from(num_terminals);
    check_edge_lists(&mut edges, num_states, "label", |label| {
        (u64::from(label) >= label_end).then(|| {
            format!(
                "label {label} is neither one of the {given_classes} classes nor one of the \
                 {num_terminals} terminal labels after them"
            )
        })
    })?;

    // Canonical classes: merge those with identical columns, drop those without edges
    // or tokens, number by smallest token. Merging works on classes; the passes over
    // the token ids (check, mask words, class map) take a word of one class in one step.
    let mut columns: Vec<Vec<(u32, StateId)>> = vec![Vec::new(); given_classes as usize];
    for (state, list) in edges.iter().enumerate() {
        for &(label, target) in list.iter().take_while(|&&(l, _)| l < given_classes) {
            columns[label as usize].push((state as u32, target));
        }
    }
    let mut merged_of: FastMap<&[(u32, StateId)], u32> = FastMap::default();
    let group_of: Vec<u32> = columns
        .iter()
        .map(|column| {
            if column.is_empty() {
                return NO_CLASS;
            }
            let next = merged_of.len() as u32;
            *merged_of.entry(column.as_slice()).or_insert(next)
        })
        .collect();
    let num_groups = merged_of.len();
    // `c + 1` wraps `NO_CLASS` to 0, so one (vectorized) maximum checks every token.
    let largest = class_of_token.iter().map(|&c| c.wrapping_add(1)).max();
    if largest.is_some_and(|c| c > given_classes) {
        let (t, c) = (class_of_token.iter().enumerate())
            .find(|&(_, &c)| c != NO_CLASS && c >= given_classes)
            .expect("the maximum is a token's class");
        return Err(parts_error(
            FormatErrorKind::EdgeLabel,
            format!("token {t} is given class {c}, but there are {given_classes} classes"),
        ));
    }
    let uniform = uniform_words(&class_of_token);
    // Each group as mask words, in one pass over the tokens.
    let group_words = mask_words_by_label(&class_of_token, &uniform, &group_of, num_groups);
    // Final classes: the groups with tokens, numbered by first token.
    let first_token = |words: &[u32]| words[0] * 32 + words[1].trailing_zeros();
    let mut order: Vec<usize> = (0..num_groups)
        .filter(|&g| !group_words[g].is_empty())
        .collect();
    order.sort_unstable_by_key(|&g| first_token(&group_words[g]));
    let num_classes = order.len() as u32;
    let mut final_of_group = vec![NO_CLASS; num_groups];
    let mut class_word_offsets = Vec::with_capacity(order.len() + 1);
    class_word_offsets.push(0u32);
    let mut class_words = Vec::new();
    let mut class_sizes = Vec::with_capacity(order.len());
    for (i, &g) in order.iter().enumerate() {
        final_of_group[g] = i as u32;
        let words = &group_words[g];
        class_words.extend_from_slice(words);
        class_word_offsets.push((class_words.len() / 2) as u32);
        class_sizes.push(words.chunks_exact(2).map(|p| p[1].count_ones()).sum());
    }
    drop(group_words);
    let final_of_class: Vec<u32> = group_of
        .iter()
        .map(|&g| renumber(&final_of_group, g))
        .collect();
    let narrow = fits_narrow(
        u64::from(num_classes) + terminals.len() as u64,
        u64::from(num_states),
    );
    let (token_index, token_classes) = encode_token_classes(
        &class_of_token,
        &uniform,
        &final_of_class,
        &class_sizes,
        narrow,
    );
    drop(class_of_token);
    for list in &mut edges {
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
    layout_words(LayoutInput {
        vocab_size,
        vocab_fingerprint,
        eos_ids,
        start,
        accepting,
        class_word_offsets,
        class_words,
        class_sizes,
        narrow,
        token_index,
        token_classes,
        edges,
        terminals,
    })
}

/// The token classes section (and the token index, `None` when not used) for the class of
/// every token id `final_of_class[class_of_token[t]]`: a class per token id, or an index
/// of the tokens with a class and a class per entry, whichever is smaller; 16 bits per
/// entry when `narrow` (0xffff for none and for the pad of an odd count).
fn encode_token_classes(
    class_of_token: &[u32],
    uniform: &[bool],
    final_of_class: &[u32],
    class_sizes: &[u32],
    narrow: bool,
) -> (Option<Vec<u32>>, Vec<u32>) {
    let class_of = |c: u32| renumber(final_of_class, c);
    let with_class = class_sizes.iter().map(|&n| n as usize).sum::<usize>();
    let entry_words = |n: usize| if narrow { n.div_ceil(2) } else { n };
    let words = class_of_token.chunks(MASK_WORD_TOKENS).zip(uniform);
    if with_class + entry_words(with_class) < entry_words(class_of_token.len()) {
        let (mut index, mut entries) = (Vec::with_capacity(with_class), Vec::new());
        for (w, (chunk, &whole)) in words.enumerate() {
            if whole && class_of(chunk[0]) == NO_CLASS {
                continue;
            }
            for (i, &c) in chunk.iter().enumerate() {
                let c = class_of(c);
                if c != NO_CLASS {
                    index.push((w * MASK_WORD_TOKENS + i) as u32);
                    entries.push(c);
                }
            }
        }
        let entries = if narrow {
            entries
                .chunks(2)
                .map(|pair| pack_classes(pair[0], pair.get(1).copied()))
                .collect()
        } else {
            entries
        };
        return (Some(index), entries);
    }
    // A class per token id; a uniform word's 32 entries are one value repeated.
    let mut out = Vec::with_capacity(entry_words(class_of_token.len()));
    for (chunk, &whole) in words {
        let full = chunk.len() == MASK_WORD_TOKENS;
        match (narrow, whole && full) {
            (true, true) => {
                let c = class_of(chunk[0]) & 0xffff;
                out.resize(out.len() + MASK_WORD_TOKENS / 2, c | c << 16);
            }
            (true, false) => out.extend(
                chunk
                    .chunks(2)
                    .map(|pair| pack_classes(class_of(pair[0]), pair.get(1).map(|&c| class_of(c)))),
            ),
            (false, true) => out.resize(out.len() + MASK_WORD_TOKENS, class_of(chunk[0])),
            (false, false) => out.extend(chunk.iter().map(|&c| class_of(c))),
        }
    }
    (None, out)
}

/// Two 16-bit class entries in one word, the first in the low half; a missing second one
/// (the pad of an odd count) and `NO_CLASS` are 0xffff.
fn pack_classes(low: u32, high: Option<u32>) -> u32 {
    (low & 0xffff) | high.map_or(0xffff, |c| c & 0xffff) << 16
}

/// Class (or group) `c` renumbered by `table`; `NO_CLASS` stays `NO_CLASS`.
fn renumber(table: &[u32], c: u32) -> u32 {
    if c == NO_CLASS {
        NO_CLASS
    } else {
        table[c as usize]
    }
}

/// Canonical, checked class parts.
struct LayoutInput {
    vocab_size: u32,
    vocab_fingerprint: u64,
    eos_ids: Vec<u32>,
    start: StateId,
    accepting: Vec<bool>,
    /// CSR of the classes as mask words: class `c` is the `(word index, bits)` pairs
    /// `class_words[2 * class_word_offsets[c]..2 * class_word_offsets[c + 1]]`.
    class_word_offsets: Vec<u32>,
    class_words: Vec<u32>,
    /// Tokens per class.
    class_sizes: Vec<u32>,
    /// Whether the edges and token classes use the 16-bit layout.
    narrow: bool,
    /// The token index (`None` when the token classes hold a class per token id) and the
    /// token classes, encoded (see `encode_token_classes`).
    token_index: Option<Vec<u32>>,
    token_classes: Vec<u32>,
    edges: Vec<Vec<(u32, StateId)>>,
    terminals: Vec<Terminal>,
}

/// Token ids per mask word.
const MASK_WORD_TOKENS: usize = 32;

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

/// Whether labels and targets fit the packed 16-bit edge layout (labels below `0xffff`,
/// which marks a token without a class).
fn fits_narrow(num_labels: u64, num_states: u64) -> bool {
    num_labels < 1 << 16 && num_states <= 1 << 16
}

fn layout_words(input: LayoutInput) -> Result<Vec<u32>, FormatError> {
    let LayoutInput {
        vocab_size,
        vocab_fingerprint,
        eos_ids,
        start,
        accepting,
        class_word_offsets,
        class_words,
        class_sizes,
        narrow,
        token_index,
        token_classes,
        edges,
        terminals,
    } = input;
    let num_states = accepting.len() as u32;
    let num_classes = class_sizes.len() as u32;
    let num_terminals = terminals.len() as u32;

    let mut num_edges: u64 = 0;
    let mut num_class_edges: u64 = 0;
    for list in &edges {
        num_class_edges += list.len() as u64;
        num_edges += list
            .iter()
            .map(|&(l, _)| {
                if l < num_classes {
                    u64::from(class_sizes[l as usize])
                } else {
                    1
                }
            })
            .sum::<u64>();
    }
    let too_many = |what: &str, count: u64| {
        parts_error(
            FormatErrorKind::Counts,
            format!("{count} {what}; at most {} fit in a file", u32::MAX),
        )
    };
    let num_edges = u32::try_from(num_edges).map_err(|_| too_many("edges", num_edges))?;
    if num_class_edges > u64::from(u32::MAX) {
        return Err(too_many("class edges", num_class_edges));
    }
    let num_accepting = accepting.iter().filter(|&&a| a).count() as u32;
    let num_eos = eos_ids.len() as u32;
    let (mask_table, mask_index) = dense_masks(
        vocab_size,
        &eos_ids,
        &accepting,
        &class_sizes,
        (&class_word_offsets, &class_words),
        &edges,
    );
    let terminal_masks: Vec<u32> = terminals
        .iter()
        .flat_map(|t| t.mask.iter().copied())
        .collect();
    let terminal_names = pack_names(&terminals);

    // (id, length) of each section present, in the order they are written.
    let mut lens = vec![
        (SECTION_EOS_IDS, u64::from(num_eos)),
        (SECTION_STATE_OFFSETS, u64::from(num_states) + 1),
        (SECTION_STATE_FLAGS, u64::from(num_states.div_ceil(32))),
    ];
    if narrow {
        lens.push((SECTION_EDGES_PACKED, num_class_edges));
    } else {
        lens.extend([
            (SECTION_EDGE_LABELS, num_class_edges),
            (SECTION_EDGE_TARGETS, num_class_edges),
        ]);
    }
    if let Some(index) = &token_index {
        lens.push((SECTION_TOKEN_INDEX, index.len() as u64));
    }
    lens.extend([
        (SECTION_TOKEN_CLASSES, token_classes.len() as u64),
        (SECTION_CLASS_WORD_OFFSETS, class_word_offsets.len() as u64),
        (SECTION_CLASS_WORDS, class_words.len() as u64),
    ]);
    if num_terminals > 0 {
        lens.extend([
            (SECTION_TERMINAL_MASKS, terminal_masks.len() as u64),
            (SECTION_TERMINAL_NAMES, terminal_names.len() as u64),
        ]);
    }
    if !mask_table.is_empty() {
        lens.extend([
            (SECTION_DENSE_MASKS, mask_table.len() as u64),
            (SECTION_STATE_MASK_INDEX, u64::from(num_states)),
        ]);
    }
    let table_end = (FIXED_HEADER + 3 * lens.len()) as u64;
    let total = table_end + lens.iter().map(|&(_, len)| len).sum::<u64>() + TRAILER as u64;
    let total32 = u32::try_from(total).map_err(|_| {
        parts_error(
            FormatErrorKind::Counts,
            format!(
                "the automaton needs {total} words; a file holds at most {}",
                u32::MAX
            ),
        )
    })?;

    let mut words = Vec::with_capacity(total as usize);
    words.extend_from_slice(&magic_words());
    words.extend_from_slice(&[
        ENDIANNESS_MARKER,
        FORMAT_VERSION,
        AutomatonKind::TokenFsa.code(),
        total32,
        vocab_size,
        vocab_fingerprint as u32,
        (vocab_fingerprint >> 32) as u32,
        start,
        num_states,
        num_edges,
        num_accepting,
        num_eos,
        num_terminals,
        lens.len() as u32,
    ]);
    debug_assert_eq!(words.len(), FIXED_HEADER);
    let mut offset = table_end;
    for &(id, len) in &lens {
        words.extend_from_slice(&[id, offset as u32, len as u32]);
        offset += len;
    }
    words.extend_from_slice(&eos_ids);
    let mut running = 0u32;
    words.push(0);
    for list in &edges {
        running += list.len() as u32;
        words.push(running);
    }
    words.extend(accepting.chunks(32).map(|chunk| {
        chunk
            .iter()
            .enumerate()
            .fold(0u32, |w, (i, &a)| w | u32::from(a) << i)
    }));
    if narrow {
        for list in &edges {
            words.extend(list.iter().map(|&(label, target)| label << 16 | target));
        }
    } else {
        for list in &edges {
            words.extend(list.iter().map(|&(label, _)| label));
        }
        for list in &edges {
            words.extend(list.iter().map(|&(_, target)| target));
        }
    }
    words.extend_from_slice(token_index.as_deref().unwrap_or(&[]));
    words.extend_from_slice(&token_classes);
    words.extend_from_slice(&class_word_offsets);
    words.extend_from_slice(&class_words);
    if num_terminals > 0 {
        words.extend_from_slice(&terminal_masks);
        words.extend_from_slice(&terminal_names);
    }
    if !mask_table.is_empty() {
        words.extend_from_slice(&mask_table);
        words.extend_from_slice(&mask_index);
    }
    debug_assert_eq!(words.len() as u64, total - TRAILER as u64);
    let sum = checksum(&words);
    words.extend_from_slice(&[sum as u32, (sum >> 32) as u32]);
    Ok(words)
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

/// Most terminal labels a file may have: each is a whole mask, and patterns use a few.
pub const MAX_TERMINALS: u32 = 1 << 12;
/// Longest terminal name, in bytes.
pub const MAX_TERMINAL_NAME: usize = 256;

/// Checks terminal labels given to `from_parts` and returns how many there are.
fn check_terminals(
    vocab_size: u32,
    eos_ids: &[u32],
    terminals: &[Terminal],
) -> Result<u32, FormatError> {
    let width = (vocab_size as usize).div_ceil(32);
    let count = u32::try_from(terminals.len())
        .ok()
        .filter(|&n| n <= MAX_TERMINALS)
        .ok_or_else(|| {
            parts_error(
                FormatErrorKind::Terminals,
                format!(
                    "{} terminal labels; at most {MAX_TERMINALS} fit in a file",
                    terminals.len()
                ),
            )
        })?;
    if u64::from(vocab_size) + u64::from(count) > u64::from(u32::MAX) {
        return Err(parts_error(
            FormatErrorKind::Terminals,
            format!("vocab_size {vocab_size} leaves no label ids for {count} terminals"),
        ));
    }
    for (k, t) in terminals.iter().enumerate() {
        if t.name.is_empty() || t.name.len() > MAX_TERMINAL_NAME {
            return Err(parts_error(
                FormatErrorKind::Terminals,
                format!(
                    "terminal {k} has a name of {} bytes; names have 1 to {MAX_TERMINAL_NAME}",
                    t.name.len()
                ),
            ));
        }
        if t.name.chars().any(char::is_control) {
            return Err(parts_error(
                FormatErrorKind::Terminals,
                format!("terminal {k}'s name {:?} has control characters", t.name),
            ));
        }
        if t.mask.len() != width {
            return Err(parts_error(
                FormatErrorKind::Terminals,
                format!(
                    "terminal {k} ({}) has a mask of {} words; vocab_size {vocab_size} needs {width}",
                    t.name,
                    t.mask.len()
                ),
            ));
        }
        if let Some(why) = terminal_mask_fault(&t.mask, vocab_size, eos_ids) {
            return Err(parts_error(
                FormatErrorKind::Terminals,
                format!("terminal {k} ({}): {why}", t.name),
            ));
        }
    }
    Ok(count)
}

/// What is wrong with a terminal mask, if anything: it may not set padding bits or EOS ids
/// (EOS is allowed by accepting states only).
fn terminal_mask_fault(mask: &[u32], vocab_size: u32, eos_ids: &[u32]) -> Option<String> {
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

/// The terminal names section: lengths, then the bytes packed little-endian, zero-padded.
fn pack_names(terminals: &[Terminal]) -> Vec<u32> {
    let mut words: Vec<u32> = terminals.iter().map(|t| t.name.len() as u32).collect();
    let bytes: Vec<u8> = terminals.iter().flat_map(|t| t.name.bytes()).collect();
    words.extend(bytes.chunks(4).map(|c| {
        let mut w = [0u8; 4];
        w[..c.len()].copy_from_slice(c);
        u32::from_le_bytes(w)
    }));
    words
}

/// The byte range `(start, end)` of each terminal name within the names section's packed
/// bytes, checked: lengths in range, bytes UTF-8, padding zero.
fn validate_terminal_names(
    section: &[u32],
    count: usize,
    at: usize,
) -> Result<Vec<(usize, usize)>, FormatError> {
    let bad = |message: String| err(FormatErrorKind::Terminals, message);
    if section.len() < count {
        return Err(bad(format!(
            "section 'terminal names' (word {at}) has {} words, fewer than its {count} lengths",
            section.len()
        )));
    }
    let (lens, packed) = section.split_at(count);
    let mut ranges = Vec::with_capacity(count);
    let mut total = 0usize;
    for (k, &len) in lens.iter().enumerate() {
        let len = len as usize;
        if len == 0 || len > MAX_TERMINAL_NAME {
            return Err(bad(format!(
                "section 'terminal names' word {}: terminal {k} has a name of {len} bytes; \
                 names have 1 to {MAX_TERMINAL_NAME}",
                at + k
            )));
        }
        ranges.push((total, total + len));
        total += len;
    }
    if packed.len() != total.div_ceil(4) {
        return Err(bad(format!(
            "section 'terminal names' holds {} words of name bytes but the lengths add up \
             to {total} bytes ({} words)",
            packed.len(),
            total.div_ceil(4)
        )));
    }
    let bytes: Vec<u8> = packed.iter().flat_map(|w| w.to_le_bytes()).collect();
    if bytes[total..].iter().any(|&b| b != 0) {
        return Err(bad(
            "section 'terminal names': padding bytes are not zero".into()
        ));
    }
    for (k, &(a, b)) in ranges.iter().enumerate() {
        match std::str::from_utf8(&bytes[a..b]) {
            Err(_) => {
                return Err(bad(format!(
                    "section 'terminal names': the name of terminal {k} is not UTF-8"
                )))
            }
            Ok(name) if name.chars().any(char::is_control) => {
                return Err(bad(format!(
                    "section 'terminal names': the name of terminal {k} has control characters"
                )))
            }
            Ok(_) => {}
        }
    }
    Ok(ranges)
}

/// The dense mask table and per-state mask index of canonical class parts; both empty
/// when no state wants a mask. Identical masks are stored once, numbered in order of
/// first use.
fn dense_masks(
    vocab_size: u32,
    eos_ids: &[u32],
    accepting: &[bool],
    class_sizes: &[u32],
    (word_offsets, class_words): (&[u32], &[u32]),
    edges: &[Vec<(u32, StateId)>],
) -> (Vec<u32>, Vec<u32>) {
    let width = (vocab_size as usize).div_ceil(32);
    let num_classes = class_sizes.len() as u32;
    let mut table: Vec<u32> = Vec::new();
    let mut index = vec![NO_DENSE_MASK; edges.len()];
    // Classes are disjoint and non-empty and EOS ids are in none, so two states have the
    // same mask exactly when they have the same classes and acceptance: key on those
    // instead of hashing masks.
    let mut seen: FastMap<(Vec<u32>, bool), u32> = FastMap::default();
    for (state, list) in edges.iter().enumerate() {
        let eos: &[u32] = if accepting[state] { eos_ids } else { &[] };
        let class_edges = &list[..list.partition_point(|&(l, _)| l < num_classes)];
        let tokens: usize = class_edges
            .iter()
            .map(|&(c, _)| class_sizes[c as usize] as usize)
            .sum();
        if !dense_mask_wanted(tokens + eos.len(), width) {
            continue;
        }
        let key = (
            class_edges.iter().map(|&(c, _)| c).collect::<Vec<u32>>(),
            accepting[state],
        );
        let next = seen.len() as u32;
        let id = *seen.entry(key).or_insert_with(|| {
            let start = table.len();
            table.resize(start + width, 0);
            let mask = &mut table[start..];
            for &(c, _) in class_edges {
                let c = c as usize;
                let pairs =
                    &class_words[2 * word_offsets[c] as usize..2 * word_offsets[c + 1] as usize];
                for pair in pairs.chunks_exact(2) {
                    mask[pair[0] as usize] |= pair[1];
                }
            }
            for &t in eos {
                mask[(t / 32) as usize] |= 1 << (t % 32);
            }
            next
        });
        index[state] = id;
    }
    if table.is_empty() {
        index.clear();
    }
    (table, index)
}

/// Validates a whole file given as words and returns where everything is.
/// How much of a file [`validate`] checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Checks {
    /// Everything: what loading a file needs.
    All,
    /// The header, section table, counts, CSR offsets and edges, but not the checksum
    /// nor the O(tokens) tables (token index, class words, terminal and dense masks): for
    /// words this module's writer just produced from checked parts.
    Structure,
}

pub(crate) fn validate(words: &[u32], checks: Checks) -> Result<Layout, FormatError> {
    let all = checks == Checks::All;
    let magic = magic_words();
    if words.len() < 2 || words[..2] != magic {
        if words.len() >= 2
            && words[0] == magic[0].swap_bytes()
            && words[1] == magic[1].swap_bytes()
        {
            return Err(err(
                FormatErrorKind::ByteOrder,
                "automaton words are byte-swapped (written as big-endian words); \
                 fstc files are little-endian: rewrite it with fstc"
                    .into(),
            ));
        }
        return Err(err(
            FormatErrorKind::NotAnAutomaton,
            "not an fstc token automaton: magic words 0-1 are not \"fstcTA\\0\\0\"".into(),
        ));
    }
    if words.len() <= W_KIND {
        return Err(truncated(words.len(), FIXED_HEADER + TRAILER));
    }
    match words[W_MARKER] {
        ENDIANNESS_MARKER => {}
        m if m == ENDIANNESS_MARKER.swap_bytes() => {
            return Err(err(
                FormatErrorKind::ByteOrder,
                "endianness marker (word 2) is byte-swapped: the file was written as \
                 big-endian words; fstc files are little-endian"
                    .into(),
            ))
        }
        m => {
            return Err(err(
                FormatErrorKind::ByteOrder,
                format!(
                    "endianness marker (word 2) is {m:#010x}, expected {ENDIANNESS_MARKER:#010x}: \
                     the header is corrupted"
                ),
            ))
        }
    }
    match words[W_VERSION] {
        FORMAT_VERSION => {}
        v if v > FORMAT_VERSION => {
            return Err(err(
                FormatErrorKind::Version,
                format!(
                    "automaton file has format version {v}: it was written by a newer fstc \
                     (this build reads version {FORMAT_VERSION}); upgrade fstc or recompile the automaton"
                ),
            ))
        }
        0 => {
            return Err(err(
                FormatErrorKind::Version,
                "automaton file has unknown format version 0 (word 3)".into(),
            ))
        }
        v => {
            return Err(err(
                FormatErrorKind::Version,
                format!(
                    "automaton file has format version {v}, written by an older fstc (this \
                     build reads version {FORMAT_VERSION}); recompile the automaton"
                ),
            ))
        }
    }
    let kind = match words[W_KIND] {
        0 => AutomatonKind::TokenFsa,
        1 => {
            return Err(err(
                FormatErrorKind::Kind,
                "automaton file holds a token PDA (kind 1); this build loads token FSAs only"
                    .into(),
            ))
        }
        k => {
            return Err(err(
                FormatErrorKind::Kind,
                format!("automaton file has unknown kind {k} (word 4)"),
            ))
        }
    };
    if words.len() < FIXED_HEADER + TRAILER {
        return Err(truncated(words.len(), FIXED_HEADER + TRAILER));
    }
    let total = words[W_TOTAL] as usize;
    if words.len() < total {
        return Err(truncated(words.len(), total));
    }
    if words.len() > total {
        return Err(err(
            FormatErrorKind::Length,
            format!(
                "automaton file has {} words but its header (word 5) says {total}: \
                 trailing data or a corrupted header",
                words.len()
            ),
        ));
    }
    let body_end = words.len() - TRAILER;
    let stored = u64::from(words[body_end]) | (u64::from(words[body_end + 1]) << 32);
    let computed = if all {
        checksum(&words[..body_end])
    } else {
        stored
    };
    if stored != computed {
        return Err(err(
            FormatErrorKind::Checksum,
            format!(
                "checksum mismatch (words {body_end}-{}): stored {stored:#018x}, computed \
                 {computed:#018x} over words 0..{body_end}; the file is corrupted",
                body_end + 1
            ),
        ));
    }

    let vocab_size = words[W_VOCAB_SIZE];
    let vocab_fingerprint =
        u64::from(words[W_FINGERPRINT]) | (u64::from(words[W_FINGERPRINT + 1]) << 32);
    let start = words[W_START];
    let num_states = words[W_NUM_STATES];
    let num_edges = words[W_NUM_EDGES];
    let num_accepting = words[W_NUM_ACCEPTING];
    let num_eos = words[W_NUM_EOS];
    let num_terminals = words[W_NUM_TERMINALS];
    let num_sections = words[W_NUM_SECTIONS] as u64;

    // Section table.
    let table_end = FIXED_HEADER as u64 + 3 * num_sections;
    if table_end > body_end as u64 {
        return Err(err(
            FormatErrorKind::SectionTable,
            format!(
                "section table of {num_sections} entries (word 15) runs past the end of the \
                 data at word {body_end}"
            ),
        ));
    }
    let table_end = table_end as usize;
    let mut found: [Option<(usize, usize)>; KNOWN_SECTIONS.len()] = [None; KNOWN_SECTIONS.len()];
    let mut ranges: Vec<(usize, usize, u32)> = Vec::with_capacity(num_sections as usize);
    for (i, entry) in words[FIXED_HEADER..table_end].chunks_exact(3).enumerate() {
        let at = FIXED_HEADER + 3 * i;
        let (id, offset, len) = (entry[0], entry[1] as usize, entry[2] as usize);
        let Some(slot) = KNOWN_SECTIONS.iter().position(|&s| s == id) else {
            let why = match id {
                SECTION_STACK_OPS => format!(
                    "section id {id} ({}) is reserved for a later format version",
                    section_name(id)
                ),
                _ => format!("unknown section id {id}"),
            };
            return Err(err(
                FormatErrorKind::SectionTable,
                format!("section table entry {i} (word {at}): {why}"),
            ));
        };
        if found[slot].is_some() {
            return Err(err(
                FormatErrorKind::SectionTable,
                format!(
                    "section table entry {i} (word {at}): section '{}' appears twice",
                    section_name(id)
                ),
            ));
        }
        let end = offset as u64 + len as u64;
        if offset < table_end || end > body_end as u64 {
            return Err(err(
                FormatErrorKind::SectionTable,
                format!(
                    "section '{}' (table word {at}) spans words {offset}..{end}, outside the \
                     data area {table_end}..{body_end}",
                    section_name(id)
                ),
            ));
        }
        found[slot] = Some((offset, len));
        ranges.push((offset, offset + len, id));
    }
    ranges.sort_unstable();
    for pair in ranges.windows(2) {
        let ((_, a_end, a), (b_start, _, b)) = (pair[0], pair[1]);
        if b_start < a_end {
            return Err(err(
                FormatErrorKind::SectionTable,
                format!(
                    "sections '{}' and '{}' overlap at word {b_start}",
                    section_name(a),
                    section_name(b)
                ),
            ));
        }
    }
    let get = |id: u32| found[KNOWN_SECTIONS.iter().position(|&s| s == id).unwrap_or(0)];
    let require = |id: u32| {
        get(id).ok_or_else(|| {
            err(
                FormatErrorKind::SectionTable,
                format!(
                    "section table lacks section '{}' (id {id})",
                    section_name(id)
                ),
            )
        })
    };
    let eos = require(SECTION_EOS_IDS)?;
    let offsets = require(SECTION_STATE_OFFSETS)?;
    let flags = require(SECTION_STATE_FLAGS)?;
    let token_classes = require(SECTION_TOKEN_CLASSES)?;
    let token_index = get(SECTION_TOKEN_INDEX);
    let class_word_offsets = require(SECTION_CLASS_WORD_OFFSETS)?;
    let word_pairs = require(SECTION_CLASS_WORDS)?;
    let (narrow, labels, targets) = match (
        get(SECTION_EDGES_PACKED),
        get(SECTION_EDGE_LABELS),
        get(SECTION_EDGE_TARGETS),
    ) {
        (Some(packed), None, None) => (true, packed, packed),
        (None, Some(labels), Some(targets)) => (false, labels, targets),
        _ => {
            return Err(err(
                FormatErrorKind::SectionTable,
                format!(
                    "the edges must be either section '{}' (id {SECTION_EDGES_PACKED}) alone \
                     or sections '{}' (id {SECTION_EDGE_LABELS}) and '{}' (id \
                     {SECTION_EDGE_TARGETS}) together",
                    section_name(SECTION_EDGES_PACKED),
                    section_name(SECTION_EDGE_LABELS),
                    section_name(SECTION_EDGE_TARGETS)
                ),
            ))
        }
    };
    let terminal_sections = match (get(SECTION_TERMINAL_MASKS), get(SECTION_TERMINAL_NAMES)) {
        (Some(masks), Some(names)) if num_terminals > 0 => Some((masks, names)),
        (None, None) if num_terminals == 0 => None,
        _ => {
            return Err(err(
                FormatErrorKind::SectionTable,
                format!(
                    "the header counts {num_terminals} terminals (word 14); sections '{}' \
                     (id {SECTION_TERMINAL_MASKS}) and '{}' (id {SECTION_TERMINAL_NAMES}) must \
                     both be present exactly when there are terminals",
                    section_name(SECTION_TERMINAL_MASKS),
                    section_name(SECTION_TERMINAL_NAMES)
                ),
            ))
        }
    };
    let dense = match (get(SECTION_DENSE_MASKS), get(SECTION_STATE_MASK_INDEX)) {
        (Some(table), Some(index)) => Some((table, index)),
        (None, None) => None,
        (Some(_), None) | (None, Some(_)) => {
            return Err(err(
                FormatErrorKind::SectionTable,
                format!(
                    "section table has only one of the sections '{}' (id {SECTION_DENSE_MASKS}) \
                     and '{}' (id {SECTION_STATE_MASK_INDEX}); they come together",
                    section_name(SECTION_DENSE_MASKS),
                    section_name(SECTION_STATE_MASK_INDEX)
                ),
            ))
        }
    };

    // Counts against section lengths.
    let expect = |id: u32, (_, len): (usize, usize), want: u64, what: String| {
        if len as u64 != want {
            return Err(err(
                FormatErrorKind::Counts,
                format!(
                    "section '{}' has {len} words but {what} need {want}",
                    section_name(id)
                ),
            ));
        }
        Ok(())
    };
    expect(
        SECTION_EOS_IDS,
        eos,
        u64::from(num_eos),
        format!("the header's {num_eos} EOS ids (word 13)"),
    )?;
    expect(
        SECTION_STATE_OFFSETS,
        offsets,
        u64::from(num_states) + 1,
        format!("the header's {num_states} states (word 10)"),
    )?;
    expect(
        SECTION_STATE_FLAGS,
        flags,
        u64::from(num_states.div_ceil(32)),
        format!("the header's {num_states} states (word 10) at a bit each"),
    )?;
    let num_class_edges = labels.1;
    if !narrow {
        expect(
            SECTION_EDGE_TARGETS,
            targets,
            num_class_edges as u64,
            format!("the {num_class_edges} edge labels"),
        )?;
    }
    if num_terminals > MAX_TERMINALS
        || u64::from(vocab_size) + u64::from(num_terminals) > u64::from(u32::MAX)
    {
        return Err(err(
            FormatErrorKind::Counts,
            format!(
                "header counts {num_terminals} terminals (word 14); at most {MAX_TERMINALS}, \
                 with labels up to vocab_size + terminals fitting in u32"
            ),
        ));
    }
    if start >= num_states {
        return Err(err(
            FormatErrorKind::StartState,
            format!("start state {start} (word 9) but there are only {num_states} states"),
        ));
    }

    // EOS ids: sorted, distinct, in the vocabulary.
    let eos_ids = &words[eos.0..eos.0 + eos.1];
    for (i, &id) in eos_ids.iter().enumerate() {
        if id >= vocab_size {
            return Err(err(
                FormatErrorKind::EosIds,
                format!(
                    "section 'EOS ids' word {}: EOS id {id} is not below vocab_size {vocab_size}",
                    eos.0 + i
                ),
            ));
        }
        if i > 0 && eos_ids[i - 1] >= id {
            return Err(err(
                FormatErrorKind::EosIds,
                format!(
                    "section 'EOS ids' word {}: EOS ids are not sorted and distinct ({} then {id})",
                    eos.0 + i,
                    eos_ids[i - 1]
                ),
            ));
        }
    }

    // CSR offsets: from 0, monotone, ending at the number of class edges.
    let csr = &words[offsets.0..offsets.0 + offsets.1];
    check_csr(
        csr,
        offsets.0,
        "state offsets",
        "state",
        num_class_edges,
        "edges",
        false,
    )?;

    // Flags: a bit per state, none past the last state.
    let flag_words = &words[flags.0..flags.0 + flags.1];
    let tail = num_states % 32;
    if tail != 0 && flag_words.last().is_some_and(|w| w >> tail != 0) {
        return Err(err(
            FormatErrorKind::StateFlags,
            format!(
                "section 'state flags' word {}: bits past the last state ({num_states} \
                 states) are set",
                flags.0 + flags.1 - 1
            ),
        ));
    }
    let accepting_seen: u32 = flag_words.iter().map(|w| w.count_ones()).sum();
    if accepting_seen != num_accepting {
        return Err(err(
            FormatErrorKind::Counts,
            format!(
                "header counts {num_accepting} accepting states (word 12) but the state \
                 flags mark {accepting_seen}"
            ),
        ));
    }

    // Token classes: the class of every token id (none for EOS ids), and each class as
    // mask words holding exactly the tokens given that class.
    let bad_class = |message: String| err(FormatErrorKind::TokenClasses, message);
    if class_word_offsets.1 == 0 {
        return Err(bad_class(
            "section 'class word offsets' is empty; it has one word more than there are classes"
                .into(),
        ));
    }
    let num_classes = (class_word_offsets.1 - 1) as u32;
    if u64::from(num_classes) + u64::from(num_terminals) > u64::from(u32::MAX)
        || (narrow
            && !fits_narrow(
                u64::from(num_classes) + u64::from(num_terminals),
                u64::from(num_states),
            ))
    {
        return Err(bad_class(format!(
            "{num_classes} classes and {num_terminals} terminals with {num_states} states do \
             not fit the {} edge layout",
            if narrow { "packed 16-bit" } else { "32-bit" }
        )));
    }
    let word_csr = &words[class_word_offsets.0..class_word_offsets.0 + class_word_offsets.1];
    if word_pairs.1 % 2 != 0 {
        return Err(bad_class(format!(
            "section 'class words' has {} words, not a whole number of (word, bits) pairs",
            word_pairs.1
        )));
    }
    check_csr(
        word_csr,
        class_word_offsets.0,
        "class word offsets",
        "class",
        word_pairs.1 / 2,
        "class word pairs",
        true,
    )?;
    let pairs = &words[word_pairs.0..word_pairs.0 + word_pairs.1];
    let vocab = vocab_size as usize;
    // Entries of the token classes: one per token id, or one per index entry.
    let index: &[u32] = match token_index {
        Some((offset, len)) => &words[offset..offset + len],
        None => &[],
    };
    let entries = if token_index.is_some() {
        index.len()
    } else {
        vocab
    };
    expect(
        SECTION_TOKEN_CLASSES,
        token_classes,
        if narrow {
            entries.div_ceil(2) as u64
        } else {
            entries as u64
        },
        format!(
            "{} ({})",
            if token_index.is_some() {
                format!("the {entries} token index entries")
            } else {
                format!("the {vocab_size} token ids")
            },
            if narrow {
                "16 bits each"
            } else {
                "a word each"
            }
        ),
    )?;
    let class_section = &words[token_classes.0..token_classes.0 + token_classes.1];
    let none = if narrow { 0xffff } else { u32::MAX };
    let class_at = |i: usize| {
        if narrow {
            (class_section[i / 2] >> (16 * (i % 2))) & 0xffff
        } else {
            class_section[i]
        }
    };
    // The class entry of token `t`, `none` if it has none.
    let class_of = |t: usize| {
        if token_index.is_some() {
            index.binary_search(&(t as u32)).map_or(none, &class_at)
        } else {
            class_at(t)
        }
    };
    let token_of = |i: usize| {
        if token_index.is_some() {
            index[i] as usize
        } else {
            i
        }
    };
    let mask_words = vocab.div_ceil(32);
    // Tokens per class, for the header's edge count.
    let mut class_sizes = vec![0u64; num_classes as usize];
    if all {
        if narrow && entries % 2 == 1 && class_section.last().is_some_and(|w| w >> 16 != 0xffff) {
            return Err(bad_class(
                "section 'token classes': the unused upper half of the last word is not 0xffff"
                    .into(),
            ));
        }
        if let Some(i) = (1..index.len()).find(|&i| index[i - 1] >= index[i]) {
            return Err(bad_class(format!(
                "section 'token index' entry {i}: tokens are not strictly increasing ({} then \
                 {})",
                index[i - 1],
                index[i]
            )));
        }
        if let Some(&t) = index.last().filter(|&&t| t >= vocab_size) {
            return Err(bad_class(format!(
                "section 'token index': token {t} is not below vocab_size {vocab_size}"
            )));
        }
        for i in 0..entries {
            let c = class_at(i);
            if c == none && token_index.is_some() {
                return Err(bad_class(format!(
                    "section 'token classes': token {} is in the token index but given no \
                     class",
                    token_of(i)
                )));
            }
            if c == none {
                continue;
            }
            if c >= num_classes {
                return Err(bad_class(format!(
                    "section 'token classes': token {} is given class {c}, but there are \
                     {num_classes} classes",
                    token_of(i)
                )));
            }
            class_sizes[c as usize] += 1;
        }
        if let Some(&e) = eos_ids.iter().find(|&&e| class_of(e as usize) != none) {
            return Err(bad_class(format!(
                "section 'token classes': EOS id {e} is given class {}; EOS is allowed by \
                 accepting states, never by edges",
                class_of(e as usize)
            )));
        }
        for c in 0..num_classes as usize {
            let list = &pairs[2 * word_csr[c] as usize..2 * word_csr[c + 1] as usize];
            let mut set = 0u64;
            let mut previous: Option<u32> = None;
            for pair in list.chunks_exact(2) {
                let (w, bits) = (pair[0], pair[1]);
                if w as usize >= mask_words || previous.is_some_and(|p| p >= w) || bits == 0 {
                    return Err(bad_class(format!(
                        "section 'class words' (class {c}): pair ({w}, {bits:#x}) breaks the \
                         rule that word indices increase strictly, stay below {mask_words} \
                         and have some bit set"
                    )));
                }
                previous = Some(w);
                let mut rest = bits;
                while rest != 0 {
                    let t = w as usize * 32 + rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    if t >= vocab || class_of(t) != c as u32 {
                        let given = if t >= vocab {
                            "it is past vocab_size".to_string()
                        } else if class_of(t) == none {
                            "the token classes give it none".to_string()
                        } else {
                            format!("the token classes give it class {}", class_of(t))
                        };
                        return Err(bad_class(format!(
                            "section 'class words' (class {c}): token {t} is set, but {given}"
                        )));
                    }
                }
                set += u64::from(bits.count_ones());
            }
            if set != class_sizes[c] {
                return Err(bad_class(format!(
                    "section 'class words' (class {c}): {set} tokens are set, but the token \
                     classes give {} tokens this class",
                    class_sizes[c]
                )));
            }
        }
    }

    // Terminal masks and names.
    let (terminal_masks, terminal_names) = match terminal_sections {
        Some((masks, names)) => {
            let t = num_terminals as usize;
            if masks.1 != t * mask_words {
                return Err(err(
                    FormatErrorKind::Counts,
                    format!(
                        "section 'terminal masks' has {} words but {t} terminals of \
                         {mask_words}-word masks need {}",
                        masks.1,
                        t * mask_words
                    ),
                ));
            }
            if all {
                for k in 0..t {
                    let mask = &words[masks.0 + k * mask_words..masks.0 + (k + 1) * mask_words];
                    if let Some(why) = terminal_mask_fault(mask, vocab_size, eos_ids) {
                        return Err(err(
                            FormatErrorKind::Terminals,
                            format!("section 'terminal masks', terminal {k}: {why}"),
                        ));
                    }
                }
            }
            validate_terminal_names(&words[names.0..names.0 + names.1], t, names.0)?;
            (masks.0, names)
        }
        None => (0, (0, 0)),
    };

    // Edges: labels strictly increasing per state (classes, then terminal labels),
    // targets in range; the header's edge count is the tokens they stand for.
    let label_end = u64::from(num_classes) + u64::from(num_terminals);
    let label_words = &words[labels.0..labels.0 + labels.1];
    let target_words = &words[targets.0..targets.0 + targets.1];
    let edge = |e: usize| {
        if narrow {
            (label_words[e] >> 16, label_words[e] & 0xffff)
        } else {
            (label_words[e], target_words[e])
        }
    };
    let mut token_edges: u64 = 0;
    for (s, pair) in csr.windows(2).enumerate() {
        let (begin, end) = (pair[0] as usize, pair[1] as usize);
        for e in begin..end {
            let (label, target) = edge(e);
            let at = labels.0 + e;
            if u64::from(label) >= label_end {
                return Err(err(
                    FormatErrorKind::EdgeLabel,
                    format!(
                        "section '{}' word {at} (state {s}): label {label} is neither one of \
                         the {num_classes} token classes nor one of the {num_terminals} \
                         terminal labels after them",
                        section_name(if narrow {
                            SECTION_EDGES_PACKED
                        } else {
                            SECTION_EDGE_LABELS
                        })
                    ),
                ));
            }
            if e > begin && edge(e - 1).0 >= label {
                return Err(err(
                    FormatErrorKind::EdgeLabel,
                    format!(
                        "edge word {at} (state {s}): labels are not strictly increasing ({} \
                         then {label})",
                        edge(e - 1).0
                    ),
                ));
            }
            if target >= num_states {
                return Err(err(
                    FormatErrorKind::EdgeTarget,
                    format!(
                        "edge {e} (state {s}, label {label}): target {target} is not below \
                         the number of states {num_states}"
                    ),
                ));
            }
            token_edges += if label < num_classes {
                class_sizes[label as usize]
            } else {
                1
            };
        }
    }
    // (Class sizes are only counted when checking everything.)
    if all && token_edges != u64::from(num_edges) {
        return Err(err(
            FormatErrorKind::Counts,
            format!(
                "header counts {num_edges} edges (word 11) but the class and terminal edges \
                 stand for {token_edges}"
            ),
        ));
    }

    let (dense_masks, num_masks, state_mask_index) = match dense {
        Some((table, index)) if !all => {
            let num_masks = table.1.checked_div(mask_words).unwrap_or(0);
            (table.0, num_masks as u32, index.0)
        }
        Some((table, index)) => {
            let num_masks = validate_dense_masks(
                words,
                DenseCheck {
                    vocab_size,
                    num_states,
                    num_classes,
                    eos_ids,
                    csr,
                    word_csr,
                    class_words: pairs,
                    flag_words: &words[flags.0..flags.0 + flags.1],
                    label_of: &|e| edge(e).0,
                },
                table,
                index,
            )?;
            (table.0, num_masks, index.0)
        }
        None => (0, 0, 0),
    };

    Ok(Layout {
        kind,
        vocab_size,
        vocab_fingerprint,
        start,
        num_states,
        num_edges,
        num_accepting,
        num_terminals,
        eos,
        state_offsets: offsets.0,
        state_flags: flags.0,
        narrow,
        edge_labels: labels.0,
        edge_targets: targets.0,
        num_classes,
        token_classes: token_classes.0,
        token_index: token_index.map_or(0, |(offset, _)| offset),
        num_indexed: token_index.map(|(_, len)| len),
        class_word_offsets: class_word_offsets.0,
        class_words: word_pairs.0,
        mask_words,
        dense_masks,
        num_masks,
        state_mask_index,
        terminal_masks,
        terminal_names,
    })
}

/// Checks CSR offsets: from 0, monotone (strictly when `strict`: no empty entry), ending
/// at `total`.
fn check_csr(
    csr: &[u32],
    at: usize,
    section: &str,
    entry: &str,
    total: usize,
    of: &str,
    strict: bool,
) -> Result<(), FormatError> {
    let kind = if strict {
        FormatErrorKind::TokenClasses
    } else {
        FormatErrorKind::StateOffsets
    };
    if csr.first() != Some(&0) {
        return Err(err(
            kind,
            format!(
                "section '{section}' word {at}: the first offset is {}, must be 0",
                csr.first().copied().unwrap_or(0)
            ),
        ));
    }
    for (i, pair) in csr.windows(2).enumerate() {
        if pair[1] < pair[0] || (strict && pair[1] == pair[0]) {
            return Err(err(
                kind,
                format!(
                    "section '{section}' word {} ({entry} {i}): offset {} after {} {}",
                    at + i + 1,
                    pair[1],
                    pair[0],
                    if strict {
                        "must be larger (no empty entry)"
                    } else {
                        "must not be smaller"
                    }
                ),
            ));
        }
    }
    if csr.last().map(|&l| l as usize) != Some(total) {
        return Err(err(
            kind,
            format!(
                "section '{section}' word {}: the last offset is {}, must equal the number of \
                 {of} {total}",
                at + csr.len() - 1,
                csr.last().copied().unwrap_or(0)
            ),
        ));
    }
    Ok(())
}

/// What the dense mask check reads from the already validated sections.
struct DenseCheck<'w, 'f> {
    vocab_size: u32,
    num_states: u32,
    num_classes: u32,
    eos_ids: &'w [u32],
    csr: &'w [u32],
    word_csr: &'w [u32],
    class_words: &'w [u32],
    flag_words: &'w [u32],
    label_of: &'f dyn Fn(usize) -> u32,
}

/// Checks the dense mask sections against the (already validated) edges and returns the
/// number of masks.
///
/// A mask is right when it has one bit per allowed token (its popcount, computed once per
/// mask) and every allowed token's bit is set: then it holds nothing else, padding
/// included. States sharing a mask usually have the same class edges: those are checked
/// once.
fn validate_dense_masks(
    words: &[u32],
    check: DenseCheck<'_, '_>,
    table: (usize, usize),
    index: (usize, usize),
) -> Result<u32, FormatError> {
    let DenseCheck {
        vocab_size,
        num_states,
        num_classes,
        eos_ids,
        csr,
        word_csr,
        class_words,
        flag_words,
        label_of,
    } = check;
    let width = (vocab_size as usize).div_ceil(32);
    let bad = |message: String| err(FormatErrorKind::DenseMask, message);
    if index.1 != num_states as usize {
        return Err(err(
            FormatErrorKind::Counts,
            format!(
                "section 'state mask index' has {} words but the header says {num_states} states",
                index.1
            ),
        ));
    }
    if width == 0 || table.1 % width != 0 || table.1 == 0 {
        return Err(bad(format!(
            "section 'dense masks' has {} words, not a positive multiple of the mask width \
             {width} words (vocab_size {vocab_size})",
            table.1
        )));
    }
    let num_masks = table.1 / width;
    let masks = &words[table.0..table.0 + table.1];
    let mut expected = vec![0u32; width];
    let mut next_new = 0usize;
    // Per mask, the class labels and EOS ids of the state that verified it.
    let mut verified: Vec<Option<(Vec<u32>, bool)>> = vec![None; num_masks];
    for (s, &id) in words[index.0..index.0 + index.1].iter().enumerate() {
        if id == NO_DENSE_MASK {
            continue;
        }
        let at = index.0 + s;
        let id = id as usize;
        if id > next_new || id >= num_masks {
            return Err(bad(format!(
                "section 'state mask index' word {at} (state {s}): mask {id} does not exist \
                 or is out of order ({num_masks} masks, numbered by first use; the next new \
                 one would be {next_new})"
            )));
        }
        if id == next_new {
            next_new += 1;
        }
        let mask = &masks[id * width..(id + 1) * width];
        let classes: Vec<u32> = (csr[s] as usize..csr[s + 1] as usize)
            .map(label_of)
            .take_while(|&l| l < num_classes)
            .collect();
        let accepts = flag_set(flag_words, s);
        if verified[id]
            .as_ref()
            .is_some_and(|(c, a)| *c == classes && *a == accepts)
        {
            continue;
        }
        // The allowed set as a mask, from the class words (a word per OR) and EOS ids.
        expected.fill(0);
        for &c in &classes {
            let pairs = &class_words
                [2 * word_csr[c as usize] as usize..2 * word_csr[c as usize + 1] as usize];
            for pair in pairs.chunks_exact(2) {
                expected[pair[0] as usize] |= pair[1];
            }
        }
        if accepts {
            for &e in eos_ids {
                expected[(e / 32) as usize] |= 1 << (e % 32);
            }
        }
        if let Some(i) = (0..width).find(|&i| expected[i] != mask[i]) {
            let diff = expected[i] ^ mask[i];
            let t = i as u32 * 32 + diff.trailing_zeros();
            let why = if expected[i] & diff != 0 {
                let what = if accepts && eos_ids.binary_search(&t).is_ok() {
                    "an EOS id of the accepting state"
                } else {
                    "an edge"
                };
                format!("token {t} is {what} but its bit is 0")
            } else if t >= vocab_size {
                format!("padding bit {t} (past vocab_size {vocab_size}) is set")
            } else if eos_ids.binary_search(&t).is_ok() {
                format!("it allows EOS id {t} but the state does not accept")
            } else {
                format!("it allows token {t}, which is not an edge of the state")
            };
            return Err(bad(format!(
                "section 'dense masks' mask {id} (state {s}): {why}"
            )));
        }
        if verified[id].is_none() {
            verified[id] = Some((classes, accepts));
        }
    }
    if next_new != num_masks {
        return Err(bad(format!(
            "section 'dense masks' holds {num_masks} masks but states use only {next_new}"
        )));
    }
    Ok(num_masks as u32)
}

fn truncated(have: usize, need: usize) -> FormatError {
    err(
        FormatErrorKind::Length,
        format!("automaton file is truncated: {have} words, its header needs {need}"),
    )
}
