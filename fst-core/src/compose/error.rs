//! The composition's errors: one type with a kind, and the messages that name the limit
//! or the inconsistent input at fault.

use std::fmt;

/// What went wrong in a composition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ComposeErrorKind {
    /// No sequence of the vocabulary's text tokens spells a matching text.
    EmptyLanguage,
    /// The token automaton would need more edges than `ComposeLimits::token_edge_limit`.
    TokenEdgeLimit,
    /// The token automaton would need more states than `ComposeLimits::state_limit`.
    StateLimit,
    /// The inputs are inconsistent (a byte automaton pointing past its states, a
    /// detokenizer with labels outside the vocabulary, a vocabulary too large for `u32` ids).
    InvalidInput,
    /// A rustfst algorithm failed on the reference path.
    Reference,
    /// The composition passed `ComposeLimits::deadline` (a compile's time budget); the
    /// message names the phase it was in.
    Deadline,
    /// The composition's tables would pass `ComposeLimits::memory_limit`.
    MemoryLimit,
}

/// An error from composing a byte automaton with a vocabulary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComposeError {
    kind: ComposeErrorKind,
    message: String,
}

impl ComposeError {
    pub(crate) fn new(kind: ComposeErrorKind, message: impl Into<String>) -> ComposeError {
        ComposeError {
            kind,
            message: message.into(),
        }
    }

    pub(crate) fn empty_language() -> ComposeError {
        ComposeError::new(
            ComposeErrorKind::EmptyLanguage,
            "the vocabulary cannot spell any matching text: no sequence of its text tokens \
             leads from the start to a match (special tokens have no text and never count)",
        )
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ComposeErrorKind {
        self.kind
    }
}

impl fmt::Display for ComposeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ComposeError {}

/// An inconsistent byte automaton: `what` names a state past its last.
pub(super) fn out_of_range(what: &str, state: u32, num_states: usize) -> ComposeError {
    ComposeError::new(
        ComposeErrorKind::InvalidInput,
        format!(
            "the byte automaton's {what} is state {state}, but it has only {num_states} states"
        ),
    )
}

pub(super) fn state_limit_error(limit: usize) -> ComposeError {
    ComposeError::new(
        ComposeErrorKind::StateLimit,
        format!(
            "the token automaton needs more than {limit} states (the state limit); \
             raise the limit or simplify the pattern"
        ),
    )
}

pub(super) fn edge_limit_error(limit: usize) -> ComposeError {
    ComposeError::new(
        ComposeErrorKind::TokenEdgeLimit,
        format!(
            "the token automaton needs more than {limit} edges (the token edge limit); \
             raise the limit or constrain the pattern more tightly"
        ),
    )
}

/// The error of a composition past its deadline while in `phase`, with `states`
/// token-level states made.
pub(super) fn deadline_error(phase: &str, states: usize) -> ComposeError {
    ComposeError::new(
        ComposeErrorKind::Deadline,
        format!(
            "the composition with the vocabulary passed its deadline (time budget) while \
             {phase} ({states} states of the token automaton so far)"
        ),
    )
}

/// The error of a composition whose tables would pass `limit` bytes (`needed` so far).
pub(super) fn memory_limit_error(limit: usize, needed: usize) -> ComposeError {
    ComposeError::new(
        ComposeErrorKind::MemoryLimit,
        format!(
            "the composition with the vocabulary needs more than {limit} bytes (the memory \
             limit) for the token automaton's tables ({needed} so far)"
        ),
    )
}

/// An empty vector with room for `n` items, or the memory limit's error when the allocator
/// refuses it: the sizes of the composition's tables come from the input (a DFA's states,
/// a vocabulary), and a refused allocation must be an error, not an abort of the process
/// that embeds the compiler.
pub(super) fn try_with_capacity<T>(n: usize, what: &str) -> Result<Vec<T>, ComposeError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        let bytes = (n as u128) * std::mem::size_of::<T>() as u128;
        ComposeError::new(
            ComposeErrorKind::MemoryLimit,
            format!(
                "the composition with the vocabulary could not allocate {bytes} bytes for \
                 {what} (the memory limit is the allocator's)"
            ),
        )
    })?;
    Ok(v)
}
