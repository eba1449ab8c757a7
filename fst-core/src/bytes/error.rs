//! The one error of byte-automaton operations: a size limit, or an operand they cannot take.

use std::fmt;

/// `set_budget` when a fixed ceiling, not a limit or budget, stopped the construction (kept
/// in that field so that the error stays small).
const CEILING: usize = usize::MAX;

/// What went wrong in a byte-automaton operation.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ByteDfaErrorKind {
    /// The result would have more than `limit` states (counted as they are created), or the
    /// subset construction's state sets grew past the budget derived from `limit`.
    TooManyStates {
        /// The state limit in force.
        limit: usize,
    },
    /// An [`Algebra`](super::Algebra) operation was given a DFA with wildcard terminals.
    TerminalOperand {
        /// The operation (`"intersection"`, `"reversal"`, ...).
        operation: &'static str,
    },
    /// [`Algebra::from_edges`](super::Algebra::from_edges) was given an edge whose state
    /// is out of range.
    InvalidEdge,
    /// The construction's deadline ([`Limits::deadline`](super::Limits::deadline)) passed
    /// before it finished.
    Deadline {
        /// The states made when it stopped.
        states: usize,
    },
    /// The construction's table and state sets passed its memory limit
    /// ([`Limits::memory`](super::Limits::memory)).
    Memory {
        /// The limit in bytes.
        budget: usize,
    },
}

/// A byte-automaton operation that failed; `Display` says what to change.
#[derive(Clone, Debug)]
pub struct ByteDfaError {
    kind: ByteDfaErrorKind,
    message: String,
    /// The subset construction's state-set budget, when that (not the count) stopped it.
    set_budget: Option<usize>,
    /// The [`Algebra`](super::Algebra) operation that failed; `None` for [`determinize`](super::determinize).
    operation: Option<&'static str>,
}

impl ByteDfaError {
    /// An error of the algebra's `operation`.
    pub(crate) fn new(
        operation: &'static str,
        kind: ByteDfaErrorKind,
        message: String,
    ) -> ByteDfaError {
        ByteDfaError {
            kind,
            message,
            set_budget: None,
            operation: Some(operation),
        }
    }

    /// The subset construction passed `limit` states.
    pub(crate) fn too_many_states(limit: usize) -> ByteDfaError {
        ByteDfaError {
            kind: ByteDfaErrorKind::TooManyStates { limit },
            message: format!("the byte DFA needs more than {limit} states (the state limit)"),
            set_budget: None,
            operation: None,
        }
    }

    /// The subset construction's state sets passed `entries` NFA states in total.
    pub(crate) fn state_sets_too_large(limit: usize, entries: usize) -> ByteDfaError {
        ByteDfaError {
            kind: ByteDfaErrorKind::TooManyStates { limit },
            message: format!(
                "the byte DFA grows too large: before reaching the state limit ({limit}) its \
                 states already stand for more than {entries} NFA states in total"
            ),
            set_budget: Some(entries),
            operation: None,
        }
    }

    /// The subset construction's table of `states` rows of `columns` passed its ceiling.
    pub(crate) fn table_too_large(limit: usize, states: usize, columns: usize) -> ByteDfaError {
        ByteDfaError {
            kind: ByteDfaErrorKind::TooManyStates { limit },
            message: format!(
                "the byte DFA grows too large: before reaching the state limit ({limit}) its \
                 table of {states} states by {columns} byte classes passes the ceiling of \
                 {} transitions that fstc builds",
                super::subsets::MAX_TABLE_ENTRIES
            ),
            set_budget: Some(CEILING),
            operation: None,
        }
    }

    /// The construction passed its deadline with `states` states made.
    pub(crate) fn past_deadline(states: usize) -> ByteDfaError {
        ByteDfaError {
            kind: ByteDfaErrorKind::Deadline { states },
            message: format!(
                "the byte DFA's construction passed its deadline (time budget) after {states} states"
            ),
            set_budget: None,
            operation: None,
        }
    }

    /// The construction's table and state sets passed `budget` bytes with `states` states.
    pub(crate) fn past_memory(budget: usize, states: usize) -> ByteDfaError {
        ByteDfaError {
            kind: ByteDfaErrorKind::Memory { budget },
            message: format!(
                "the byte DFA's construction passed its memory budget of {budget} bytes of \
                 table and state sets after {states} states"
            ),
            set_budget: None,
            operation: None,
        }
    }

    /// The same error, of the [`Algebra`](super::Algebra) operation `operation`.
    pub(crate) fn in_operation(self, operation: &'static str) -> ByteDfaError {
        ByteDfaError {
            operation: Some(operation),
            message: format!("the {operation} of byte DFAs failed: {}", self.message),
            ..self
        }
    }

    /// What kind of error this is.
    pub fn kind(&self) -> &ByteDfaErrorKind {
        &self.kind
    }

    /// The [`Algebra`](super::Algebra) operation that failed (`"intersection"`, ...), or
    /// `None` when the subset construction of a front end's NFA did: a front end words its
    /// own advice for those.
    pub fn operation(&self) -> Option<&'static str> {
        self.operation
    }

    /// Whether a fixed ceiling of fstc stopped the operation before the limit given (its
    /// message says so; a larger limit would not help).
    pub fn is_ceiling(&self) -> bool {
        self.set_budget == Some(CEILING)
    }

    /// The budget of NFA-state entries the subset construction passed, when that (rather
    /// than the state count) stopped it.
    pub fn set_budget(&self) -> Option<usize> {
        self.set_budget.filter(|&b| b != CEILING)
    }
}

impl fmt::Display for ByteDfaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ByteDfaError {}
