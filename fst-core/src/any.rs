//! [`AnyAutomaton`]: a file of either kind, opened by its kind word, for tools and
//! bindings that take whatever `fstc` compiled.

use std::path::Path;

use crate::automaton::{AutomatonKind, TokenAutomaton};
use crate::format::{self, FormatError};
use crate::matcher::Matcher;
use crate::pda_walker::PdaWalker;
use crate::token_pda::TokenPda;
use crate::walker::Walker;

/// A loaded automaton file: a token FSA (kind 0) or a token PDA (kind 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyAutomaton<W: AsRef<[u32]> = Vec<u32>> {
    /// A token FSA (regular constraints).
    Fsa(TokenAutomaton<W>),
    /// A token PDA (grammars).
    Pda(TokenPda<W>),
}

impl AnyAutomaton<Vec<u32>> {
    /// Validates `bytes` as a file of either kind and copies them into owned words.
    pub fn from_bytes_copied(bytes: &[u8]) -> Result<AnyAutomaton, FormatError> {
        AnyAutomaton::from_words(format::copy_words(bytes)?)
    }

    /// Reads and validates a file of either kind; errors name the path.
    pub fn read_file(path: impl AsRef<Path>) -> Result<AnyAutomaton, FormatError> {
        format::read_file(path.as_ref(), AnyAutomaton::from_bytes_copied)
    }
}

impl<'a> AnyAutomaton<&'a [u32]> {
    /// Validates `bytes` as a file of either kind and borrows them without copying.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<AnyAutomaton<&'a [u32]>, FormatError> {
        AnyAutomaton::from_words(format::borrow_words(bytes)?)
    }
}

impl<W: AsRef<[u32]>> AnyAutomaton<W> {
    /// Validates `words` with the loader of the kind its header names.
    pub fn from_words(words: W) -> Result<AnyAutomaton<W>, FormatError> {
        match format::file_kind(words.as_ref())? {
            AutomatonKind::TokenPda => TokenPda::from_words(words).map(AnyAutomaton::Pda),
            _ => TokenAutomaton::from_words(words).map(AnyAutomaton::Fsa),
        }
    }

    /// Which kind the file holds.
    pub fn kind(&self) -> AutomatonKind {
        match self {
            AnyAutomaton::Fsa(_) => AutomatonKind::TokenFsa,
            AnyAutomaton::Pda(_) => AutomatonKind::TokenPda,
        }
    }

    /// Number of token ids of the vocabulary.
    pub fn vocab_size(&self) -> u32 {
        match self {
            AnyAutomaton::Fsa(a) => a.vocab_size(),
            AnyAutomaton::Pda(p) => p.vocab_size(),
        }
    }

    /// The fingerprint of the vocabulary it was compiled for.
    pub fn vocab_fingerprint(&self) -> u64 {
        match self {
            AnyAutomaton::Fsa(a) => a.vocab_fingerprint(),
            AnyAutomaton::Pda(p) => p.vocab_fingerprint(),
        }
    }

    /// The EOS ids, sorted and distinct.
    pub fn eos_ids(&self) -> &[u32] {
        match self {
            AnyAutomaton::Fsa(a) => a.eos_ids(),
            AnyAutomaton::Pda(p) => p.eos_ids(),
        }
    }

    /// The file's words.
    pub fn as_words(&self) -> &[u32] {
        match self {
            AnyAutomaton::Fsa(a) => a.as_words(),
            AnyAutomaton::Pda(p) => p.as_words(),
        }
    }

    /// A fresh matcher at the start: a [`Walker`] or a [`PdaWalker`].
    pub fn matcher(&self) -> Box<dyn Matcher + '_> {
        match self {
            AnyAutomaton::Fsa(a) => Box::new(Walker::new(a)),
            AnyAutomaton::Pda(p) => Box::new(PdaWalker::new(p)),
        }
    }
}
