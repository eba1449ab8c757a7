//! [`AnyAutomaton`]: a file of either kind, opened by its kind word, for tools and
//! bindings that take whatever `fstc` compiled.

use std::path::Path;
use std::sync::Arc;

use crate::automaton::{AutomatonKind, TokenAutomaton};
use crate::format::{self, FormatError};
use crate::matcher::{DynMatcher, Matcher};
use crate::pda_walker::{OwnedPdaWalker, PdaWalker, DEFAULT_STACK_LIMIT};
use crate::token_pda::TokenPda;
use crate::walker::{OwnedWalker, Walker};

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

/// An automaton of either kind behind an `Arc`, for bindings whose matchers cannot carry a
/// lifetime: each matcher shares the automaton ([`OwnedWalker`], [`OwnedPdaWalker`]).
#[derive(Clone, Debug)]
pub enum SharedAutomaton {
    /// A token FSA.
    Fsa(Arc<TokenAutomaton>),
    /// A token PDA.
    Pda(Arc<TokenPda>),
}

impl From<AnyAutomaton> for SharedAutomaton {
    fn from(any: AnyAutomaton) -> SharedAutomaton {
        match any {
            AnyAutomaton::Fsa(a) => SharedAutomaton::Fsa(Arc::new(a)),
            AnyAutomaton::Pda(p) => SharedAutomaton::Pda(Arc::new(p)),
        }
    }
}

impl SharedAutomaton {
    /// Which kind it holds.
    pub fn kind(&self) -> AutomatonKind {
        match self {
            SharedAutomaton::Fsa(_) => AutomatonKind::TokenFsa,
            SharedAutomaton::Pda(_) => AutomatonKind::TokenPda,
        }
    }

    /// Number of token ids of the vocabulary.
    pub fn vocab_size(&self) -> u32 {
        match self {
            SharedAutomaton::Fsa(a) => a.vocab_size(),
            SharedAutomaton::Pda(p) => p.vocab_size(),
        }
    }

    /// The fingerprint of the vocabulary it was compiled for.
    pub fn vocab_fingerprint(&self) -> u64 {
        match self {
            SharedAutomaton::Fsa(a) => a.vocab_fingerprint(),
            SharedAutomaton::Pda(p) => p.vocab_fingerprint(),
        }
    }

    /// The EOS ids, sorted and distinct.
    pub fn eos_ids(&self) -> &[u32] {
        match self {
            SharedAutomaton::Fsa(a) => a.eos_ids(),
            SharedAutomaton::Pda(p) => p.eos_ids(),
        }
    }

    /// The file's words.
    pub fn as_words(&self) -> &[u32] {
        match self {
            SharedAutomaton::Fsa(a) => a.as_words(),
            SharedAutomaton::Pda(p) => p.as_words(),
        }
    }

    /// A fresh matcher at the start sharing the automaton; `stack_limit` bounds a PDA
    /// walker's stack ([`DEFAULT_STACK_LIMIT`] when `None`; an FSA has no stack).
    pub fn matcher(&self, stack_limit: Option<usize>) -> Box<dyn DynMatcher> {
        match self {
            SharedAutomaton::Fsa(a) => Box::new(OwnedWalker::new(Arc::clone(a))),
            SharedAutomaton::Pda(p) => Box::new(
                OwnedPdaWalker::new(Arc::clone(p))
                    .with_stack_limit(stack_limit.unwrap_or(DEFAULT_STACK_LIMIT)),
            ),
        }
    }
}
