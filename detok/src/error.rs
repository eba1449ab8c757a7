//! The one error type of this crate.
//!
//! Loading a tokenizer can fail in many ways (unreadable file, malformed JSON, an unsupported
//! model kind, a bad EOS override, text that the tokenizer cannot spell); the kind says which,
//! the message says where (file path, line, token) and what to do.

use std::fmt;

/// What went wrong, for callers that branch on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum VocabErrorKind {
    /// A file could not be read.
    Io,
    /// A file is not valid for its format: bad JSON, a missing or mistyped field, a bad
    /// base64 line, duplicate or oversized ids.
    Malformed,
    /// The file is valid but uses a model, decoder or format this crate does not handle.
    Unsupported,
    /// An EOS token named in a config or given as an override is not usable as EOS.
    Eos,
    /// Text could not be tokenized exactly (or the tokenizer could not be built for it).
    Tokenize,
    /// A name given to make an added token special is not an added token.
    AddedToken,
}

/// An error from loading a vocabulary or tokenizing text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VocabError {
    kind: VocabErrorKind,
    message: String,
}

impl VocabError {
    pub(crate) fn new(kind: VocabErrorKind, message: impl Into<String>) -> VocabError {
        VocabError {
            kind,
            message: message.into(),
        }
    }

    /// The kind of failure.
    pub fn kind(&self) -> VocabErrorKind {
        self.kind
    }
}

impl fmt::Display for VocabError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for VocabError {}

/// Shorthand for results of this crate.
pub type Result<T, E = VocabError> = std::result::Result<T, E>;

pub(crate) fn malformed(message: impl Into<String>) -> VocabError {
    VocabError::new(VocabErrorKind::Malformed, message)
}

pub(crate) fn unsupported(message: impl Into<String>) -> VocabError {
    VocabError::new(VocabErrorKind::Unsupported, message)
}

pub(crate) fn io_error(path: &std::path::Path, e: std::io::Error) -> VocabError {
    VocabError::new(
        VocabErrorKind::Io,
        format!("cannot read {}: {e}", path.display()),
    )
}
