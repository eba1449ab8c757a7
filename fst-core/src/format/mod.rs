//! The token automaton file format (version 3): container, writer and reader, for token
//! FSAs (kind 0) and token PDAs (kind 1).
//!
//! A file is a sequence of little-endian `u32` words, and a [`TokenAutomaton`](crate::automaton::TokenAutomaton) in memory
//! is the same words, so loading is validation only:
//! [`TokenAutomaton::from_bytes`](crate::automaton::TokenAutomaton::from_bytes)
//! borrows a 4-byte-aligned buffer without copying (like regex-automata's
//! `DFA::from_bytes`),
//! [`TokenAutomaton::from_bytes_copied`](crate::automaton::TokenAutomaton::from_bytes_copied) decodes any buffer on any
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
//! | 4 | kind: 0 token FSA, 1 token PDA |
//! | 5 | total length of the file in words |
//! | 6 | vocabulary size |
//! | 7–8 | vocabulary fingerprint, low word then high word |
//! | 9 | start state (a PDA's start node) |
//! | 10 | number of states (a PDA's nodes) |
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
//! Ids 8 and 18–22 belong to token PDA files (below); any other unknown id is rejected. Older versions (1: an edge per token; 2: class lists and a sorted token
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
//!
//! # Token PDAs (kind 1)
//!
//! A token PDA file is a token FSA file without terminals (its *finite control*: nodes,
//! class edges, canonical classes, accepting flags, optional dense masks; read and written
//! by the same code) plus five required stack sections. Its dense masks hold a node's
//! token edges only, never EOS ids: EOS depends on the stack.
//!
//! - [`SECTION_STACK_OPS`] (8): per class edge, in edge order, the index of the push
//!   sequence it pushes (below the number of sequences).
//! - [`SECTION_STACK_SYMBOLS`] (18): one word, the number of stack symbols `S`.
//! - [`SECTION_POP_OFFSETS`] (19) and [`SECTION_POP_EDGES`] (20): CSR per node (`nodes +
//!   1` entries from 0, counting pairs) of `(symbol, node)` pairs: symbols below `S` and
//!   strictly increasing per node, nodes in range.
//! - [`SECTION_PUSH_OFFSETS`] (21) and [`SECTION_PUSH_SYMBOLS`] (22): CSR of the push
//!   sequences (at least one; sequence 0 empty), each bottom to top, symbols below `S`.
//! - Only in a *nondeterministic* token PDA (a grammar with conflicts one byte of
//!   lookahead does not decide), both or neither: [`SECTION_ALTERNATIVE_OFFSETS`] (23),
//!   CSR per class edge (`edges + 1` entries from 0, counting pairs), and
//!   [`SECTION_ALTERNATIVES`] (24), `(target, push)` pairs: the further results of the
//!   edge's class at its node, strictly increasing and after the edge's own `(target,
//!   push)`, targets nodes, pushes sequences. A file without them is deterministic (every
//!   file written before they existed is), and a deterministic PDA never writes them.
//!
//! The walker's rules (pop chains, EOS once every symbol is popped at an accepting node)
//! are [`crate::parts::PdaParts`]'s.
//!
//! # Code layout
//!
//! - [`container`]: what every automaton kind shares: magic, byte order, version, kind,
//!   the fixed header, the section table and the checksum ([`AutomatonKind`] says which
//!   kind a file holds).
//! - `write` (token FSA writer) lays out checked, canonical parts ([`crate::parts`]);
//!   `read` (token FSA reader) validates a file phase by phase and returns its `Layout`.
//!   Both take the kind, so that a token PDA's finite control goes through them.
//! - `pda`: the token PDA's stack sections, writer and reader, on top of `write` and
//!   `read`.
//! - One module per group of sections with the writer's encoding beside the reader's
//!   check: `classes` (token index, token classes, class words), `terminals`, `dense`.
//! - [`FormatError`] (in `error`) is the one error of a file that does not load.
//!
//! Adding a kind: give it its section ids (its own beside the finite control's
//! `CONTROL_SECTIONS`, like `FSA_ONLY_SECTIONS`), a writer that opens a `ContainerWriter`
//! with its `Header` and section lengths, and a reader that calls `read_header` with its
//! kind as the loadable one, `SectionTable::read` with its ids, then its own per-section functions (reusing
//! `check`, `classes`, `terminals` and `dense` where its sections are the same), as `pda`
//! does. The container, and every token FSA file, stay as they are.

use std::path::Path;

mod check;
mod classes;
pub mod container;
mod dense;
mod error;
mod layout;
mod pda;
mod read;
mod terminals;
mod write;

/// The terminal limits are checks on parts; re-exported here, where files are described.
pub use crate::parts::{MAX_TERMINALS, MAX_TERMINAL_NAME};
pub use container::{AutomatonKind, CHECKSUM_LANES, ENDIANNESS_MARKER, FORMAT_VERSION, MAGIC};
pub use error::{FormatError, FormatErrorKind};
pub(crate) use layout::Layout;
pub(crate) use pda::{validate_pda, write_token_pda, PdaLayout};
pub(crate) use read::{validate, Checks};
pub(crate) use write::write_token_fsa;

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
/// Section id of a token PDA's stack operations: the push sequence index of each class
/// edge, in edge order.
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
/// 16 and 17 are derived data, redundant with the sections below 16 and checked against
/// them on load.
pub const SECTION_DENSE_MASKS: u32 = 16;
/// Section id of the per-state dense mask index (optional, with [`SECTION_DENSE_MASKS`]).
pub const SECTION_STATE_MASK_INDEX: u32 = 17;
/// Section id of a token PDA's number of stack symbols (one word).
pub const SECTION_STACK_SYMBOLS: u32 = 18;
/// Section id of a token PDA's CSR pop offsets (`num_nodes + 1` entries, counting pairs).
pub const SECTION_POP_OFFSETS: u32 = 19;
/// Section id of a token PDA's pop edges: `(symbol, node)` pairs, symbols strictly
/// increasing per node.
pub const SECTION_POP_EDGES: u32 = 20;
/// Section id of a token PDA's CSR push offsets (`num_push_seqs + 1` entries, counting
/// symbols; sequence 0 is empty).
pub const SECTION_PUSH_OFFSETS: u32 = 21;
/// Section id of a token PDA's pushed symbols, each sequence bottom to top.
pub const SECTION_PUSH_SYMBOLS: u32 = 22;
/// Section id of a nondeterministic token PDA's CSR alternative offsets (`num_class_edges
/// + 1` entries, counting pairs).
pub const SECTION_ALTERNATIVE_OFFSETS: u32 = 23;
/// Section id of a nondeterministic token PDA's alternatives: `(target, push)` pairs.
pub const SECTION_ALTERNATIVES: u32 = 24;
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

/// A section's name in messages.
pub(crate) fn section_name(id: u32) -> &'static str {
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
        SECTION_STACK_SYMBOLS => "stack symbols",
        SECTION_POP_OFFSETS => "pop offsets",
        SECTION_POP_EDGES => "pop edges",
        SECTION_PUSH_OFFSETS => "push offsets",
        SECTION_PUSH_SYMBOLS => "push symbols",
        SECTION_ALTERNATIVE_OFFSETS => "alternative offsets",
        SECTION_ALTERNATIVES => "alternatives",
        _ => "unknown",
    }
}

/// The kind of automaton `words` hold, from a header checked for magic, byte order,
/// version, a known kind and length (not the checksum: the kind's loader checks all).
pub(crate) fn file_kind(words: &[u32]) -> Result<AutomatonKind, FormatError> {
    let kinds = [AutomatonKind::TokenFsa, AutomatonKind::TokenPda];
    container::read_header(words, false, &kinds).map(|h| h.kind)
}

/// `bytes` checked to start like an automaton file and borrowed as words: needs a
/// 4-byte-aligned buffer and a little-endian host.
pub(crate) fn borrow_words(bytes: &[u8]) -> Result<&[u32], FormatError> {
    container::check_bytes(bytes)?;
    if cfg!(target_endian = "big") {
        return Err(error::err(
            FormatErrorKind::BigEndianHost,
            "zero-copy loading needs a little-endian host; use TokenAutomaton::from_bytes_copied"
                .into(),
        ));
    }
    bytemuck::try_cast_slice(bytes).map_err(|_| {
        error::err(
            FormatErrorKind::Misaligned,
            format!(
                "automaton buffer at address {:p} is not 4-byte aligned, so it cannot be \
                 borrowed as words; use TokenAutomaton::from_bytes_copied",
                bytes.as_ptr()
            ),
        )
    })
}

/// `bytes` checked to start like an automaton file and decoded as little-endian words, at
/// any alignment and on any host.
pub(crate) fn copy_words(bytes: &[u8]) -> Result<Vec<u32>, FormatError> {
    container::check_bytes(bytes)?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Reads the file at `path` and loads its bytes with `load` (a kind's `from_bytes_copied`);
/// every error names the path.
pub(crate) fn read_file<T>(
    path: &Path,
    load: impl FnOnce(&[u8]) -> Result<T, FormatError>,
) -> Result<T, FormatError> {
    let bytes = std::fs::read(path).map_err(|e| error::io_error("read", path, e))?;
    load(&bytes).map_err(|e| e.in_file(path))
}

/// Writes `bytes` to the file at `path`; the error names the path.
pub(crate) fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), FormatError> {
    std::fs::write(path, bytes).map_err(|e| error::io_error("write", path, e))
}
