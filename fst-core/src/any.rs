//! [`AnyAutomaton`]: a file of either kind, opened by its kind word, for tools and
//! bindings that take whatever `fstc` compiled.

use std::path::Path;
use std::sync::Arc;

use crate::automaton::{AutomatonKind, TokenAutomaton};
use crate::format::{self, FormatError};
use crate::glr_walker::{GlrWalker, OwnedGlrWalker, DEFAULT_CONFIG_LIMIT};
use crate::matcher::{DynMatcher, Matcher};
use crate::pda_walker::{OwnedPdaWalker, PdaWalker, DEFAULT_STACK_LIMIT};
use crate::token_pda::TokenPda;
use crate::walker::{OwnedWalker, Walker};

/// A token FSA or a token PDA, held as `F` and `P`: by value ([`AnyAutomaton`], a loaded
/// file) or behind an `Arc` ([`SharedAutomaton`]), as `WalkerOf` holds its automaton. The
/// accessors both kinds answer are written once, here, through [`AutomatonFile`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyAutomatonOf<F, P> {
    /// A token FSA (regular constraints).
    Fsa(F),
    /// A token PDA (grammars).
    Pda(P),
}

/// A loaded automaton file: a token FSA (kind 0) or a token PDA (kind 1).
pub type AnyAutomaton<W = Vec<u32>> = AnyAutomatonOf<TokenAutomaton<W>, TokenPda<W>>;

/// An automaton of either kind behind an `Arc`, for bindings whose matchers cannot carry a
/// lifetime: each matcher shares the automaton ([`OwnedWalker`], [`OwnedPdaWalker`]).
pub type SharedAutomaton = AnyAutomatonOf<Arc<TokenAutomaton>, Arc<TokenPda>>;

/// What an automaton file says of itself, whichever its kind: the one path the accessors
/// of [`AnyAutomatonOf`] forward through.
pub trait AutomatonFile {
    /// Number of token ids of the vocabulary.
    fn vocab_size(&self) -> u32;
    /// The fingerprint of the vocabulary it was compiled for.
    fn vocab_fingerprint(&self) -> u64;
    /// The EOS ids, sorted and distinct.
    fn eos_ids(&self) -> &[u32];
    /// The file's words.
    fn as_words(&self) -> &[u32];
}

/// Implements [`AutomatonFile`] for a type with the inherent methods of the same names.
macro_rules! automaton_file_by_inherent_methods {
    ($ty:ident) => {
        impl<W: AsRef<[u32]>> AutomatonFile for $ty<W> {
            fn vocab_size(&self) -> u32 {
                $ty::vocab_size(self)
            }
            fn vocab_fingerprint(&self) -> u64 {
                $ty::vocab_fingerprint(self)
            }
            fn eos_ids(&self) -> &[u32] {
                $ty::eos_ids(self)
            }
            fn as_words(&self) -> &[u32] {
                $ty::as_words(self)
            }
        }
    };
}
automaton_file_by_inherent_methods!(TokenAutomaton);
automaton_file_by_inherent_methods!(TokenPda);

impl<T: AutomatonFile + ?Sized> AutomatonFile for Arc<T> {
    fn vocab_size(&self) -> u32 {
        (**self).vocab_size()
    }
    fn vocab_fingerprint(&self) -> u64 {
        (**self).vocab_fingerprint()
    }
    fn eos_ids(&self) -> &[u32] {
        (**self).eos_ids()
    }
    fn as_words(&self) -> &[u32] {
        (**self).as_words()
    }
}

impl<F: AutomatonFile, P: AutomatonFile> AnyAutomatonOf<F, P> {
    /// Which kind it holds.
    pub fn kind(&self) -> AutomatonKind {
        match self {
            AnyAutomatonOf::Fsa(_) => AutomatonKind::TokenFsa,
            AnyAutomatonOf::Pda(_) => AutomatonKind::TokenPda,
        }
    }

    /// The automaton, whichever its kind.
    fn file(&self) -> &dyn AutomatonFile {
        match self {
            AnyAutomatonOf::Fsa(a) => a,
            AnyAutomatonOf::Pda(p) => p,
        }
    }

    /// Number of token ids of the vocabulary.
    pub fn vocab_size(&self) -> u32 {
        self.file().vocab_size()
    }

    /// The fingerprint of the vocabulary it was compiled for.
    pub fn vocab_fingerprint(&self) -> u64 {
        self.file().vocab_fingerprint()
    }

    /// The EOS ids, sorted and distinct.
    pub fn eos_ids(&self) -> &[u32] {
        self.file().eos_ids()
    }

    /// The file's words.
    pub fn as_words(&self) -> &[u32] {
        self.file().as_words()
    }
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

    /// A fresh matcher at the start: a [`Walker`], a [`PdaWalker`], or a [`GlrWalker`] for
    /// a nondeterministic PDA.
    pub fn matcher(&self) -> Box<dyn Matcher + '_> {
        match self {
            AnyAutomaton::Fsa(a) => Box::new(Walker::new(a)),
            AnyAutomaton::Pda(p) if p.is_deterministic() => Box::new(PdaWalker::new(p)),
            AnyAutomaton::Pda(p) => Box::new(GlrWalker::new(p)),
        }
    }
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
    /// A fresh matcher at the start sharing the automaton; `stack_limit` bounds a PDA
    /// walker's stack ([`DEFAULT_STACK_LIMIT`] when `None`; an FSA has no stack) and
    /// `config_limit` a nondeterministic PDA's live configurations (its
    /// [`OwnedGlrWalker`]'s, [`DEFAULT_CONFIG_LIMIT`] when `None`; other walkers have one).
    pub fn matcher(
        &self,
        stack_limit: Option<usize>,
        config_limit: Option<usize>,
    ) -> Box<dyn DynMatcher> {
        let stack_limit = stack_limit.unwrap_or(DEFAULT_STACK_LIMIT);
        match self {
            SharedAutomaton::Fsa(a) => Box::new(OwnedWalker::new(Arc::clone(a))),
            SharedAutomaton::Pda(p) if !p.is_deterministic() => Box::new(
                OwnedGlrWalker::new(Arc::clone(p))
                    .with_stack_limit(stack_limit)
                    .with_config_limit(config_limit.unwrap_or(DEFAULT_CONFIG_LIMIT)),
            ),
            SharedAutomaton::Pda(p) => {
                Box::new(OwnedPdaWalker::new(Arc::clone(p)).with_stack_limit(stack_limit))
            }
        }
    }
}
