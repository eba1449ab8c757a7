//! [`FormatError`]: what is wrong with an automaton file, and where.

use std::fmt;
use std::path::Path;

/// What is wrong with an automaton file.
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
    /// The automaton kind is unknown, or not the kind the loader was asked for.
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
    /// An edge label is out of range or not strictly increasing in its state.
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
    /// A token PDA's stack sections are malformed: a push sequence index, stack symbol or
    /// pop target out of range, pop symbols not strictly increasing, or push sequence 0
    /// not empty.
    StackSections,
}

/// An automaton file that does not make a valid automaton.
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

    pub(crate) fn in_file(mut self, path: &Path) -> FormatError {
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

pub(crate) fn err(kind: FormatErrorKind, message: String) -> FormatError {
    FormatError::new(kind, message)
}

/// An I/O failure on `path`, `doing` being "read" or "write".
pub(crate) fn io_error(doing: &str, path: &Path, e: std::io::Error) -> FormatError {
    FormatError {
        kind: FormatErrorKind::Io,
        message: format!("cannot {doing} automaton file {}: {e}", path.display()),
        source: Some(e),
    }
}

pub(crate) fn truncated(have: usize, need: usize) -> FormatError {
    err(
        FormatErrorKind::Length,
        format!("automaton file is truncated: {have} words, its header needs {need}"),
    )
}
