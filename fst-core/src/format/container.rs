//! The container every automaton kind shares: magic, byte order, version, kind, the
//! fixed header of counts, the section table and the checksum trailer.
//!
//! A kind's reader calls `read_header` (which also checks the length and checksum) and
//! `SectionTable::read` with the section ids it knows, then reads its sections; its
//! writer opens a `ContainerWriter` with the lengths of its sections, appends them in
//! that order and calls `ContainerWriter::finish`.

use std::fmt;

use super::error::{err, truncated, FormatError, FormatErrorKind};
use super::{
    section_name, SECTION_POP_EDGES, SECTION_POP_OFFSETS, SECTION_PUSH_OFFSETS,
    SECTION_PUSH_SYMBOLS, SECTION_STACK_OPS, SECTION_STACK_SYMBOLS,
};

/// The magic bytes every automaton file starts with.
pub const MAGIC: [u8; 8] = *b"fstcTA\0\0";
/// The endianness marker word, as written.
pub const ENDIANNESS_MARKER: u32 = 0x0102_0304;
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 3;
/// Interleaved FNV-1a lanes of the checksum (see the module doc).
pub const CHECKSUM_LANES: usize = 8;

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
pub(crate) const FIXED_HEADER: usize = 16;
/// Words of the checksum trailer.
pub(crate) const TRAILER: usize = 2;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// What an automaton file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AutomatonKind {
    /// A deterministic finite automaton over token ids (file kind 0).
    TokenFsa,
    /// A token pushdown automaton (file kind 1), loaded by `TokenPda`.
    TokenPda,
}

impl AutomatonKind {
    /// The kind word stored in the file header.
    pub fn code(self) -> u32 {
        match self {
            AutomatonKind::TokenFsa => 0,
            AutomatonKind::TokenPda => 1,
        }
    }

    /// The kind of a header's kind word, if it is one.
    pub fn from_code(code: u32) -> Option<AutomatonKind> {
        match code {
            0 => Some(AutomatonKind::TokenFsa),
            1 => Some(AutomatonKind::TokenPda),
            _ => None,
        }
    }
}

impl fmt::Display for AutomatonKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AutomatonKind::TokenFsa => "token FSA",
            AutomatonKind::TokenPda => "token PDA",
        })
    }
}

/// The fixed header: words 4 and 6–15 (the magic, marker and version are constants and
/// the total length is the file's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) kind: AutomatonKind,
    pub(crate) vocab_size: u32,
    pub(crate) vocab_fingerprint: u64,
    pub(crate) start: u32,
    pub(crate) num_states: u32,
    pub(crate) num_edges: u32,
    pub(crate) num_accepting: u32,
    pub(crate) num_eos: u32,
    pub(crate) num_terminals: u32,
}

/// The two magic words as a little-endian reader sees them.
fn magic_words() -> [u32; 2] {
    [
        u32::from_le_bytes([MAGIC[0], MAGIC[1], MAGIC[2], MAGIC[3]]),
        u32::from_le_bytes([MAGIC[4], MAGIC[5], MAGIC[6], MAGIC[7]]),
    ]
}

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

/// Checks that `bytes` start like an automaton file and are whole words.
pub(crate) fn check_bytes(bytes: &[u8]) -> Result<(), FormatError> {
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

/// Reads and checks the header: magic, byte order, version, that the kind is one of
/// `loadable`, the length and (when `checksum_too`) the checksum.
pub(crate) fn read_header(
    words: &[u32],
    checksum_too: bool,
    loadable: &[AutomatonKind],
) -> Result<Header, FormatError> {
    check_magic(words)?;
    if words.len() <= W_KIND {
        return Err(truncated(words.len(), FIXED_HEADER + TRAILER));
    }
    check_marker(words[W_MARKER])?;
    check_version(words[W_VERSION])?;
    let kind = check_kind(words[W_KIND], loadable)?;
    check_length(words)?;
    if checksum_too {
        check_checksum(words)?;
    }
    Ok(Header {
        kind,
        vocab_size: words[W_VOCAB_SIZE],
        vocab_fingerprint: u64::from(words[W_FINGERPRINT])
            | (u64::from(words[W_FINGERPRINT + 1]) << 32),
        start: words[W_START],
        num_states: words[W_NUM_STATES],
        num_edges: words[W_NUM_EDGES],
        num_accepting: words[W_NUM_ACCEPTING],
        num_eos: words[W_NUM_EOS],
        num_terminals: words[W_NUM_TERMINALS],
    })
}

fn check_magic(words: &[u32]) -> Result<(), FormatError> {
    let magic = magic_words();
    if words.len() >= 2 && words[..2] == magic {
        return Ok(());
    }
    if words.len() >= 2 && words[0] == magic[0].swap_bytes() && words[1] == magic[1].swap_bytes() {
        return Err(err(
            FormatErrorKind::ByteOrder,
            "automaton words are byte-swapped (written as big-endian words); \
             fstc files are little-endian: rewrite it with fstc"
                .into(),
        ));
    }
    Err(err(
        FormatErrorKind::NotAnAutomaton,
        "not an fstc token automaton: magic words 0-1 are not \"fstcTA\\0\\0\"".into(),
    ))
}

fn check_marker(marker: u32) -> Result<(), FormatError> {
    match marker {
        ENDIANNESS_MARKER => Ok(()),
        m if m == ENDIANNESS_MARKER.swap_bytes() => Err(err(
            FormatErrorKind::ByteOrder,
            "endianness marker (word 2) is byte-swapped: the file was written as \
             big-endian words; fstc files are little-endian"
                .into(),
        )),
        m => Err(err(
            FormatErrorKind::ByteOrder,
            format!(
                "endianness marker (word 2) is {m:#010x}, expected {ENDIANNESS_MARKER:#010x}: \
                 the header is corrupted"
            ),
        )),
    }
}

fn check_version(version: u32) -> Result<(), FormatError> {
    let message = match version {
        FORMAT_VERSION => return Ok(()),
        v if v > FORMAT_VERSION => format!(
            "automaton file has format version {v}: it was written by a newer fstc \
             (this build reads version {FORMAT_VERSION}); upgrade fstc or recompile the automaton"
        ),
        0 => "automaton file has unknown format version 0 (word 3)".into(),
        v => format!(
            "automaton file has format version {v}, written by an older fstc (this \
             build reads version {FORMAT_VERSION}); recompile the automaton"
        ),
    };
    Err(err(FormatErrorKind::Version, message))
}

fn check_kind(code: u32, loadable: &[AutomatonKind]) -> Result<AutomatonKind, FormatError> {
    match AutomatonKind::from_code(code) {
        Some(kind) if loadable.contains(&kind) => Ok(kind),
        Some(kind) => {
            let names: Vec<String> = loadable.iter().map(|k| format!("{k}s")).collect();
            Err(err(
                FormatErrorKind::Kind,
                format!(
                    "automaton file holds a {kind} (kind {code}); this loader reads {} only \
                     (fstc_core::AnyAutomaton opens either kind)",
                    names.join(" and ")
                ),
            ))
        }
        None => Err(err(
            FormatErrorKind::Kind,
            format!("automaton file has unknown kind {code} (word 4)"),
        )),
    }
}

fn check_length(words: &[u32]) -> Result<(), FormatError> {
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
    Ok(())
}

fn check_checksum(words: &[u32]) -> Result<(), FormatError> {
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
    Ok(())
}

/// The section table, read and checked: every entry a known id, at most once, inside the
/// data area, no two overlapping.
pub(crate) struct SectionTable {
    /// `(id, offset, length)` of each section present, in table order.
    entries: Vec<(u32, usize, usize)>,
}

impl SectionTable {
    /// Reads the table of a file whose header [`read_header`] accepted; `known` are the
    /// section ids of its kind.
    pub(crate) fn read(words: &[u32], known: &[u32]) -> Result<SectionTable, FormatError> {
        let body_end = words.len() - TRAILER;
        let num_sections = words[W_NUM_SECTIONS] as u64;
        let table_end = FIXED_HEADER as u64 + 3 * num_sections;
        if table_end > body_end as u64 {
            return Err(err(
                FormatErrorKind::SectionTable,
                format!(
                    "section table of {num_sections} entries (word 15) runs past the end of \
                     the data at word {body_end}"
                ),
            ));
        }
        let table_end = table_end as usize;
        let mut entries: Vec<(u32, usize, usize)> = Vec::with_capacity(num_sections as usize);
        for (i, entry) in words[FIXED_HEADER..table_end].chunks_exact(3).enumerate() {
            let at = FIXED_HEADER + 3 * i;
            let (id, offset, len) = (entry[0], entry[1] as usize, entry[2] as usize);
            check_entry(&entries, known, (i, at), id)?;
            let end = offset as u64 + len as u64;
            if offset < table_end || end > body_end as u64 {
                return Err(err(
                    FormatErrorKind::SectionTable,
                    format!(
                        "section '{}' (table word {at}) spans words {offset}..{end}, outside \
                         the data area {table_end}..{body_end}",
                        section_name(id)
                    ),
                ));
            }
            entries.push((id, offset, len));
        }
        check_overlaps(&entries)?;
        Ok(SectionTable { entries })
    }

    /// `(offset, length)` of section `id`, if present.
    pub(crate) fn get(&self, id: u32) -> Option<(usize, usize)> {
        self.entries
            .iter()
            .find(|&&(i, _, _)| i == id)
            .map(|&(_, offset, len)| (offset, len))
    }

    /// `(offset, length)` of section `id`, which must be present.
    pub(crate) fn require(&self, id: u32) -> Result<(usize, usize), FormatError> {
        self.get(id).ok_or_else(|| {
            err(
                FormatErrorKind::SectionTable,
                format!(
                    "section table lacks section '{}' (id {id})",
                    section_name(id)
                ),
            )
        })
    }
}

/// Checks table entry `i` (at word `at`): a known id, not seen before.
fn check_entry(
    entries: &[(u32, usize, usize)],
    known: &[u32],
    (i, at): (usize, usize),
    id: u32,
) -> Result<(), FormatError> {
    if !known.contains(&id) {
        let why = match id {
            SECTION_STACK_OPS
            | SECTION_STACK_SYMBOLS
            | SECTION_POP_OFFSETS
            | SECTION_POP_EDGES
            | SECTION_PUSH_OFFSETS
            | SECTION_PUSH_SYMBOLS => format!(
                "section id {id} ({}) is reserved for token PDA files",
                section_name(id)
            ),
            _ => format!("unknown section id {id}"),
        };
        return Err(err(
            FormatErrorKind::SectionTable,
            format!("section table entry {i} (word {at}): {why}"),
        ));
    }
    if entries.iter().any(|&(seen, _, _)| seen == id) {
        return Err(err(
            FormatErrorKind::SectionTable,
            format!(
                "section table entry {i} (word {at}): section '{}' appears twice",
                section_name(id)
            ),
        ));
    }
    Ok(())
}

fn check_overlaps(entries: &[(u32, usize, usize)]) -> Result<(), FormatError> {
    let mut ranges: Vec<(usize, usize, u32)> = entries
        .iter()
        .map(|&(id, offset, len)| (offset, offset + len, id))
        .collect();
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
    Ok(())
}

/// Writes a file: the header and section table on [`new`](Self::new), then the sections
/// appended by the caller in the order of their lengths, then the checksum on
/// [`finish`](Self::finish).
pub(crate) struct ContainerWriter {
    words: Vec<u32>,
    total: usize,
}

impl ContainerWriter {
    /// Starts a file of `header` with sections `(id, length)` in the order they will be
    /// appended; `Err(words)` when the file would need more than `u32::MAX` words.
    pub(crate) fn new(header: &Header, sections: &[(u32, u64)]) -> Result<ContainerWriter, u64> {
        let table_end = (FIXED_HEADER + 3 * sections.len()) as u64;
        let total = table_end + sections.iter().map(|&(_, len)| len).sum::<u64>() + TRAILER as u64;
        let total32 = u32::try_from(total).map_err(|_| total)?;
        let mut words = Vec::with_capacity(total as usize);
        words.extend_from_slice(&magic_words());
        words.extend_from_slice(&[
            ENDIANNESS_MARKER,
            FORMAT_VERSION,
            header.kind.code(),
            total32,
            header.vocab_size,
            header.vocab_fingerprint as u32,
            (header.vocab_fingerprint >> 32) as u32,
            header.start,
            header.num_states,
            header.num_edges,
            header.num_accepting,
            header.num_eos,
            header.num_terminals,
            sections.len() as u32,
        ]);
        debug_assert_eq!(words.len(), FIXED_HEADER);
        let mut offset = table_end;
        for &(id, len) in sections {
            words.extend_from_slice(&[id, offset as u32, len as u32]);
            offset += len;
        }
        Ok(ContainerWriter {
            words,
            total: total as usize,
        })
    }

    /// The words so far, to append sections to.
    pub(crate) fn words(&mut self) -> &mut Vec<u32> {
        &mut self.words
    }

    /// Appends the checksum and returns the file's words.
    pub(crate) fn finish(mut self) -> Vec<u32> {
        debug_assert_eq!(self.words.len(), self.total - TRAILER);
        let sum = checksum(&self.words);
        self.words
            .extend_from_slice(&[sum as u32, (sum >> 32) as u32]);
        self.words
    }
}
