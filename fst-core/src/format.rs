//! The token automaton file format (version 1) and its validation.
//!
//! A file is a sequence of little-endian `u32` words, and a [`TokenAutomaton`] in memory
//! is the same words, so loading is validation only: [`TokenAutomaton::from_bytes`]
//! borrows a 4-byte-aligned buffer without copying (like regex-automata's
//! `DFA::from_bytes`), [`TokenAutomaton::from_bytes_copied`] decodes any buffer on any
//! host. Validation is complete: once a file loads, no accessor or walker operation can
//! panic or read out of bounds, whatever bytes the file held.
//!
//! Layout of version 1 (word indices):
//!
//! | words | content |
//! |---|---|
//! | 0–1 | magic `b"fstcTA\0\0"` |
//! | 2 | endianness marker `0x01020304` (reads `0x04030201` in a byte-swapped file) |
//! | 3 | format version (1) |
//! | 4 | kind: 0 token FSA, 1 token PDA (reserved) |
//! | 5 | total length of the file in words |
//! | 6 | vocabulary size |
//! | 7–8 | vocabulary fingerprint, low word then high word |
//! | 9 | start state |
//! | 10 | number of states |
//! | 11 | number of edges |
//! | 12 | number of accepting states |
//! | 13 | number of EOS ids |
//! | 14 | number of terminal labels `T` |
//! | 15 | number of sections |
//! | 16… | section table: `(id, offset, length)` per section, offsets and lengths in words |
//! | … | the sections, anywhere after the table, not overlapping |
//! | last 2 | FNV-1a 64-bit checksum of every preceding word, low word then high word |
//!
//! Sections of version 1 (each exactly once): [`SECTION_EOS_IDS`] (sorted, distinct),
//! [`SECTION_STATE_OFFSETS`] (CSR: `num_states + 1` edge indices, from 0 up to
//! `num_edges`), [`SECTION_STATE_FLAGS`] (one word per state, bit 0 = accepting, other
//! bits 0), [`SECTION_EDGE_LABELS`] (strictly increasing within a state: token ids below
//! `vocab_size`, then terminal labels `vocab_size + k` for `k < T`) and
//! [`SECTION_EDGE_TARGETS`]. Id [`SECTION_STACK_OPS`] is reserved for a later version; any
//! other id is rejected.
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
//! A token matching a state's token edge takes it; otherwise the state's terminal edges
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
//! 64-bit offset basis and prime): four times faster than per byte, and since each step
//! is a bijection of the running hash, any change to a single word is always detected.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use crate::automaton::{
    parts_error, AutomatonKind, AutomatonParts, Layout, StateId, Terminal, TokenAutomaton,
};

/// The magic bytes every automaton file starts with.
pub const MAGIC: [u8; 8] = *b"fstcTA\0\0";
/// The endianness marker word, as written.
pub const ENDIANNESS_MARKER: u32 = 0x0102_0304;
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// Section id of the EOS ids.
pub const SECTION_EOS_IDS: u32 = 1;
/// Section id of the CSR state offsets.
pub const SECTION_STATE_OFFSETS: u32 = 2;
/// Section id of the state flags.
pub const SECTION_STATE_FLAGS: u32 = 3;
/// Section id of the edge labels (token ids).
pub const SECTION_EDGE_LABELS: u32 = 4;
/// Section id of the edge targets.
pub const SECTION_EDGE_TARGETS: u32 = 5;
/// Section id of the terminal label masks (present exactly when there are terminals).
pub const SECTION_TERMINAL_MASKS: u32 = 6;
/// Section id of the terminal label names (present exactly when there are terminals).
pub const SECTION_TERMINAL_NAMES: u32 = 7;
/// Reserved section id: PDA stack operations.
pub const SECTION_STACK_OPS: u32 = 8;
/// Section id of the dense mask table (optional, with [`SECTION_STATE_MASK_INDEX`]). Ids
/// from 16 up are derived data, redundant with the sections below 16 and checked against
/// them on load.
pub const SECTION_DENSE_MASKS: u32 = 16;
/// Section id of the per-state dense mask index (optional, with [`SECTION_DENSE_MASKS`]).
pub const SECTION_STATE_MASK_INDEX: u32 = 17;
/// Mask index word of a state without a dense mask.
pub const NO_DENSE_MASK: u32 = u32::MAX;

/// Fewest allowed tokens for which a state gets a dense mask, whatever the vocabulary:
/// below this the edge loop of `fill_mask` costs under ~40 ns, so a mask would only add
/// file size (and tiny test vocabularies keep the plain five-section layout).
pub const DENSE_MIN_TOKENS: usize = 64;
/// A state gets a dense mask when its allowed tokens number at least the mask's width in
/// words divided by this. Measured at the Llama 3 width (4008 words; `mask_timing --
/// --calibrate`, x86-64): with warm caches the edge loop costs ~0.56 ns per token and a
/// copy only ~0.02 us more than the zeroing both paths do, so a mask wins from ~50
/// tokens; with cold caches both paths take 1-2.5 us, dominated by the caller's mask, and
/// differ by less than the noise. Speed alone would pick ~50 tokens, so memory sets the
/// bar: a mask costs at most 8 words per allowed token (4 times the label and target
/// words of its edges, before deduplication) and the sparse path stays under ~0.4 us.
pub const DENSE_WORDS_PER_TOKEN: usize = 8;

/// Whether a state allowing `allowed` tokens (token edges plus EOS ids when it accepts) gets a
/// dense mask of `mask_words` words when an automaton is laid out.
pub fn dense_mask_wanted(allowed: usize, mask_words: usize) -> bool {
    allowed >= DENSE_MIN_TOKENS && allowed.saturating_mul(DENSE_WORDS_PER_TOKEN) >= mask_words
}

/// Bit of a state's flag word that marks it accepting.
pub(crate) const FLAG_ACCEPTING: u32 = 1;

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
/// The sections version 1 knows, in the order `from_parts` writes them: five required,
/// then the two optional dense mask sections.
const V1_SECTIONS: [u32; 9] = [
    SECTION_EOS_IDS,
    SECTION_STATE_OFFSETS,
    SECTION_STATE_FLAGS,
    SECTION_EDGE_LABELS,
    SECTION_EDGE_TARGETS,
    SECTION_TERMINAL_MASKS,
    SECTION_TERMINAL_NAMES,
    SECTION_DENSE_MASKS,
    SECTION_STATE_MASK_INDEX,
];
/// How many of [`V1_SECTIONS`] every file has.
const V1_REQUIRED: usize = 5;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// The two magic words as a little-endian reader sees them.
fn magic_words() -> [u32; 2] {
    [
        u32::from_le_bytes([MAGIC[0], MAGIC[1], MAGIC[2], MAGIC[3]]),
        u32::from_le_bytes([MAGIC[4], MAGIC[5], MAGIC[6], MAGIC[7]]),
    ]
}

/// FNV-1a 64 over words (see the module doc).
pub(crate) fn checksum(words: &[u32]) -> u64 {
    let mut hash = FNV_OFFSET;
    for &w in words {
        hash ^= u64::from(w);
        hash = hash.wrapping_mul(FNV_PRIME);
    }
    hash
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
    /// An edge token is out of the vocabulary, repeated or unsorted in its state, or an EOS id.
    EdgeLabel,
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

/// Lays out checked parts as the words of a version 1 file.
pub(crate) fn words_from_parts(parts: AutomatonParts) -> Result<Vec<u32>, FormatError> {
    let AutomatonParts {
        vocab_size,
        vocab_fingerprint,
        mut eos_ids,
        start,
        accepting,
        mut edges,
        terminals,
    } = parts;
    let n = accepting.len();
    if edges.len() != n {
        return Err(parts_error(
            FormatErrorKind::Counts,
            format!(
                "{} accepting flags but {} edge lists; both need one entry per state",
                n,
                edges.len()
            ),
        ));
    }
    let num_states = u32::try_from(n)
        .ok()
        .filter(|&k| k < u32::MAX)
        .ok_or_else(|| {
            parts_error(
                FormatErrorKind::Counts,
                format!("{n} states; at most {} fit in a file", u32::MAX - 1),
            )
        })?;
    if start >= num_states {
        return Err(parts_error(
            FormatErrorKind::StartState,
            format!("start state {start} but there are only {num_states} states"),
        ));
    }
    eos_ids.sort_unstable();
    eos_ids.dedup();
    if let Some(&bad) = eos_ids.iter().find(|&&id| id >= vocab_size) {
        return Err(parts_error(
            FormatErrorKind::EosIds,
            format!("EOS id {bad} is not below vocab_size {vocab_size}"),
        ));
    }
    let num_terminals = check_terminals(vocab_size, &eos_ids, &terminals)?;
    let label_end = u64::from(vocab_size) + u64::from(num_terminals);
    let mut num_edges: u64 = 0;
    for (state, list) in edges.iter_mut().enumerate() {
        list.sort_unstable_by_key(|&(token, _)| token);
        for (i, &(token, target)) in list.iter().enumerate() {
            if u64::from(token) >= label_end {
                return Err(parts_error(
                    FormatErrorKind::EdgeLabel,
                    format!(
                        "state {state}: {}",
                        label_fault(token, vocab_size, num_terminals)
                    ),
                ));
            }
            if eos_ids.binary_search(&token).is_ok() {
                return Err(parts_error(
                    FormatErrorKind::EdgeLabel,
                    format!(
                        "state {state}: EOS id {token} labels an edge; EOS is allowed by \
                         accepting states, never by edges"
                    ),
                ));
            }
            if target >= num_states {
                return Err(parts_error(
                    FormatErrorKind::EdgeTarget,
                    format!(
                        "state {state}: token {token} goes to state {target}, \
                         but there are only {num_states} states"
                    ),
                ));
            }
            if i > 0 && list[i - 1].0 == token {
                return Err(parts_error(
                    FormatErrorKind::EdgeLabel,
                    format!(
                        "state {state} has two edges with token {token} (to states {} and \
                         {target}); a token automaton is deterministic",
                        list[i - 1].1
                    ),
                ));
            }
        }
        num_edges += list.len() as u64;
    }
    let num_edges = u32::try_from(num_edges).map_err(|_| {
        parts_error(
            FormatErrorKind::Counts,
            format!("{num_edges} edges; at most {} fit in a file", u32::MAX),
        )
    })?;
    let num_accepting = accepting.iter().filter(|&&a| a).count() as u32;
    let num_eos = eos_ids.len() as u32;
    let (mask_table, mask_index) = dense_masks(vocab_size, &eos_ids, &accepting, &edges);
    let terminal_masks: Vec<u32> = terminals
        .iter()
        .flat_map(|t| t.mask.iter().copied())
        .collect();
    let terminal_names = pack_names(&terminals);

    // (id, length) of each section present, in `V1_SECTIONS` order.
    let mut lens = vec![
        (SECTION_EOS_IDS, u64::from(num_eos)),
        (SECTION_STATE_OFFSETS, u64::from(num_states) + 1),
        (SECTION_STATE_FLAGS, u64::from(num_states)),
        (SECTION_EDGE_LABELS, u64::from(num_edges)),
        (SECTION_EDGE_TARGETS, u64::from(num_edges)),
    ];
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
    words.extend(
        accepting
            .iter()
            .map(|&a| if a { FLAG_ACCEPTING } else { 0 }),
    );
    for list in &edges {
        words.extend(list.iter().map(|&(token, _)| token));
    }
    for list in &edges {
        words.extend(list.iter().map(|&(_, target)| target));
    }
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

/// The dense mask table and per-state mask index of checked parts (edges sorted, EOS ids
/// sorted and distinct); both empty when no state wants a mask. Identical masks are
/// stored once, numbered in order of first use.
fn dense_masks(
    vocab_size: u32,
    eos_ids: &[u32],
    accepting: &[bool],
    edges: &[Vec<(u32, StateId)>],
) -> (Vec<u32>, Vec<u32>) {
    let width = (vocab_size as usize).div_ceil(32);
    let mut table: Vec<u32> = Vec::new();
    let mut index = vec![NO_DENSE_MASK; edges.len()];
    let mut seen: HashMap<Vec<u32>, u32> = HashMap::new();
    for (state, list) in edges.iter().enumerate() {
        let eos: &[u32] = if accepting[state] { eos_ids } else { &[] };
        let tokens = list.partition_point(|&(t, _)| t < vocab_size);
        if !dense_mask_wanted(tokens + eos.len(), width) {
            continue;
        }
        let mut mask = vec![0u32; width];
        for &t in list[..tokens].iter().map(|(t, _)| t).chain(eos) {
            mask[(t / 32) as usize] |= 1 << (t % 32);
        }
        let next = seen.len() as u32;
        let id = *seen.entry(mask).or_insert_with_key(|mask| {
            table.extend_from_slice(mask);
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
pub(crate) fn validate(words: &[u32]) -> Result<Layout, FormatError> {
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
        v => {
            return Err(err(
                FormatErrorKind::Version,
                format!("automaton file has unknown format version {v} (word 3)"),
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
    let computed = checksum(&words[..body_end]);
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
    // (id, offset, len, table word) of each section.
    let mut found: [Option<(usize, usize)>; V1_SECTIONS.len()] = [None; V1_SECTIONS.len()];
    let mut ranges: Vec<(usize, usize, u32)> = Vec::with_capacity(num_sections as usize);
    for (i, entry) in words[FIXED_HEADER..table_end].chunks_exact(3).enumerate() {
        let at = FIXED_HEADER + 3 * i;
        let (id, offset, len) = (entry[0], entry[1] as usize, entry[2] as usize);
        let slot = match V1_SECTIONS.iter().position(|&s| s == id) {
            Some(slot) => slot,
            None => {
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
            }
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
    let mut sections = [(0usize, 0usize); V1_REQUIRED];
    for (slot, entry) in found.iter().take(V1_REQUIRED).enumerate() {
        match entry {
            Some(e) => sections[slot] = *e,
            None => {
                let id = V1_SECTIONS[slot];
                return Err(err(
                    FormatErrorKind::SectionTable,
                    format!(
                        "section table lacks section '{}' (id {id})",
                        section_name(id)
                    ),
                ));
            }
        }
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
    let [eos, offsets, flags, labels, targets] = sections;
    let terminal_sections = match (found[V1_REQUIRED], found[V1_REQUIRED + 1]) {
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
    let dense = match (found[V1_REQUIRED + 2], found[V1_REQUIRED + 3]) {
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
    let expect = |slot: usize, want: u64, what: String| -> Result<(), FormatError> {
        let (_, len) = sections[slot];
        if len as u64 != want {
            return Err(err(
                FormatErrorKind::Counts,
                format!(
                    "section '{}' has {len} words but the header says {what} ({want} words)",
                    section_name(V1_SECTIONS[slot])
                ),
            ));
        }
        Ok(())
    };
    expect(0, u64::from(num_eos), format!("{num_eos} EOS ids"))?;
    expect(1, u64::from(num_states) + 1, format!("{num_states} states"))?;
    expect(2, u64::from(num_states), format!("{num_states} states"))?;
    expect(3, u64::from(num_edges), format!("{num_edges} edges"))?;
    expect(4, u64::from(num_edges), format!("{num_edges} edges"))?;
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

    // CSR offsets: from 0, monotone, ending at num_edges.
    let csr = &words[offsets.0..offsets.0 + offsets.1];
    if csr.first() != Some(&0) {
        return Err(err(
            FormatErrorKind::StateOffsets,
            format!(
                "section 'state offsets' word {}: the first offset is {}, must be 0",
                offsets.0,
                csr.first().copied().unwrap_or(0)
            ),
        ));
    }
    for (s, pair) in csr.windows(2).enumerate() {
        if pair[1] < pair[0] {
            return Err(err(
                FormatErrorKind::StateOffsets,
                format!(
                    "section 'state offsets' word {} (state {}): offset {} is below the \
                     previous offset {}",
                    offsets.0 + s + 1,
                    s + 1,
                    pair[1],
                    pair[0]
                ),
            ));
        }
    }
    if csr.last() != Some(&num_edges) {
        return Err(err(
            FormatErrorKind::StateOffsets,
            format!(
                "section 'state offsets' word {}: the last offset is {}, must equal the \
                 number of edges {num_edges}",
                offsets.0 + csr.len() - 1,
                csr.last().copied().unwrap_or(0)
            ),
        ));
    }

    // Flags.
    let mut accepting_seen: u32 = 0;
    for (s, &f) in words[flags.0..flags.0 + flags.1].iter().enumerate() {
        if f & !FLAG_ACCEPTING != 0 {
            return Err(err(
                FormatErrorKind::StateFlags,
                format!(
                    "section 'state flags' word {} (state {s}): unknown flag bits {:#x}",
                    flags.0 + s,
                    f & !FLAG_ACCEPTING
                ),
            ));
        }
        accepting_seen += f & FLAG_ACCEPTING;
    }
    if accepting_seen != num_accepting {
        return Err(err(
            FormatErrorKind::Counts,
            format!(
                "header counts {num_accepting} accepting states (word 12) but the state \
                 flags mark {accepting_seen}"
            ),
        ));
    }

    // Terminal masks and names.
    let mask_words = (vocab_size as usize).div_ceil(32);
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
            for k in 0..t {
                let mask = &words[masks.0 + k * mask_words..masks.0 + (k + 1) * mask_words];
                if let Some(why) = terminal_mask_fault(mask, vocab_size, eos_ids) {
                    return Err(err(
                        FormatErrorKind::Terminals,
                        format!("section 'terminal masks', terminal {k}: {why}"),
                    ));
                }
            }
            validate_terminal_names(&words[names.0..names.0 + names.1], t, names.0)?;
            (masks.0, names)
        }
        None => (0, (0, 0)),
    };

    // Edges: labels sorted strictly per state, tokens in the vocabulary and not EOS, then
    // terminal labels; targets in range.
    let label_end = u64::from(vocab_size) + u64::from(num_terminals);
    let label_words = &words[labels.0..labels.0 + labels.1];
    let target_words = &words[targets.0..targets.0 + targets.1];
    for (s, pair) in csr.windows(2).enumerate() {
        let (begin, end) = (pair[0] as usize, pair[1] as usize);
        for e in begin..end {
            let token = label_words[e];
            let at = labels.0 + e;
            if u64::from(token) >= label_end {
                return Err(err(
                    FormatErrorKind::EdgeLabel,
                    format!(
                        "section 'edge labels' word {at} (state {s}): {}",
                        label_fault(token, vocab_size, num_terminals)
                    ),
                ));
            }
            if e > begin && label_words[e - 1] >= token {
                return Err(err(
                    FormatErrorKind::EdgeLabel,
                    format!(
                        "section 'edge labels' word {at} (state {s}): tokens are not strictly \
                         increasing ({} then {token})",
                        label_words[e - 1]
                    ),
                ));
            }
            if eos_ids.binary_search(&token).is_ok() {
                return Err(err(
                    FormatErrorKind::EdgeLabel,
                    format!(
                        "section 'edge labels' word {at} (state {s}): EOS id {token} labels an edge"
                    ),
                ));
            }
            let target = target_words[e];
            if target >= num_states {
                return Err(err(
                    FormatErrorKind::EdgeTarget,
                    format!(
                        "section 'edge targets' word {} (state {s}, token {token}): target \
                         {target} is not below the number of states {num_states}",
                        targets.0 + e
                    ),
                ));
            }
        }
    }

    let (dense_masks, num_masks, state_mask_index) = match dense {
        Some((table, index)) => {
            let num_masks = validate_dense_masks(
                words,
                vocab_size,
                num_states,
                eos_ids,
                csr,
                label_words,
                &words[flags.0..flags.0 + flags.1],
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
        edge_labels: labels.0,
        edge_targets: targets.0,
        mask_words,
        dense_masks,
        num_masks,
        state_mask_index,
        terminal_masks,
        terminal_names,
    })
}

/// Checks the dense mask sections against the (already validated) edges and returns the
/// number of masks.
///
/// A mask is right when it has one bit per allowed token (its popcount, computed once per
/// mask) and every allowed token's bit is set: then it holds nothing else, padding
/// included. That costs one bit test per edge of a dense state, on top of the edge loop.
#[allow(clippy::too_many_arguments)]
fn validate_dense_masks(
    words: &[u32],
    vocab_size: u32,
    num_states: u32,
    eos_ids: &[u32],
    csr: &[u32],
    label_words: &[u32],
    flag_words: &[u32],
    table: (usize, usize),
    index: (usize, usize),
) -> Result<u32, FormatError> {
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
    let popcounts: Vec<usize> = masks
        .chunks_exact(width)
        .map(|m| m.iter().map(|w| w.count_ones() as usize).sum())
        .collect();
    let mut next_new = 0usize;
    // Per mask, the edge tokens and EOS ids of the first state checked against it.
    type Allowed<'w> = Option<(&'w [u32], &'w [u32])>;
    let mut verified: Vec<Allowed<'_>> = vec![None; num_masks];
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
        let labels = &label_words[csr[s] as usize..csr[s + 1] as usize];
        let tokens = &labels[..labels.partition_point(|&t| t < vocab_size)];
        let eos: &[u32] = if flag_words[s] & FLAG_ACCEPTING != 0 {
            eos_ids
        } else {
            &[]
        };
        // States sharing a mask usually share their edge tokens: comparing them with the
        // tokens of the state that verified the mask is a memcmp, not a bit test per edge.
        if let Some((first_tokens, first_eos)) = verified[id] {
            if first_tokens == tokens && first_eos == eos {
                continue;
            }
        }
        let has = |t: u32| mask[(t / 32) as usize] & (1 << (t % 32)) != 0;
        // No early exit in the common, valid case: the loop runs without branches.
        let all_set = tokens.iter().chain(eos).fold(true, |ok, &t| ok & has(t));
        let missing = if all_set {
            None
        } else {
            tokens.iter().chain(eos).find(|&&t| !has(t))
        };
        if let Some(&t) = missing {
            let what = if tokens.binary_search(&t).is_ok() {
                "an edge"
            } else {
                "an EOS id of the accepting state"
            };
            return Err(bad(format!(
                "section 'dense masks' mask {id} (state {s}): token {t} is {what} but its \
                 bit is 0"
            )));
        }
        if popcounts[id] != tokens.len() + eos.len() {
            // Some bit is set that the state does not allow: name the first one.
            let extra = (0..width * 32)
                .map(|t| t as u32)
                .find(|&t| has(t) && tokens.binary_search(&t).is_err() && !eos.contains(&t))
                .unwrap_or(0);
            let why = if extra >= vocab_size {
                format!("padding bit {extra} (past vocab_size {vocab_size}) is set")
            } else if eos_ids.binary_search(&extra).is_ok() {
                format!("it allows EOS id {extra} but the state does not accept")
            } else {
                format!("it allows token {extra}, which is not an edge of the state")
            };
            return Err(bad(format!(
                "section 'dense masks' mask {id} (state {s}): {why}"
            )));
        }
        if verified[id].is_none() {
            verified[id] = Some((tokens, eos));
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
