//! The one error type of the crate: what is wrong with a grammar, or why a token PDA could not
//! be built.

use std::fmt;

/// What kind of problem a [`PdaError`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PdaErrorKind {
    /// The grammar text does not follow the syntax (the message has line and column).
    Syntax,
    /// The grammar has no rule at all, or none for its start nonterminal.
    EmptyGrammar,
    /// A rule uses a nonterminal that has no rules.
    UnknownNonterminal,
    /// A nonterminal can never finish: every rule for it needs an unfinishable nonterminal.
    NonProductive,
    /// A rule can call itself again without reading a byte after a rule that may be empty
    /// (left recursion at the start of alternatives, direct or indirect, is rewritten
    /// instead), or every alternative starts with itself: the PDA would loop.
    LeftRecursion,
    /// One byte of lookahead does not decide between reading, calling, skipping an empty rule
    /// and returning (the message lists every such conflict), and the compiler was asked
    /// for a deterministic token PDA (`Config::require_deterministic`).
    Conflict,
    /// A rule would need more automaton states than the limit allows.
    TooLarge,
    /// The token PDA would exceed a limit of [`Config`](crate::Config) (the message names
    /// it: `node_limit`, `token_edge_limit` or `pop_limit`).
    TokenPdaLimit,
    /// The compile passed its time budget (`Config::time_budget`; the message names the
    /// rule or phase it was in).
    TimeBudget,
    /// The compile would pass its memory budget (`Config::memory_budget`; the message names
    /// the rule or phase it was in).
    MemoryBudget,
    /// The token PDA cannot be laid out as a file (counts past a file's 32-bit fields, or
    /// parts that do not form a token PDA, which is a bug).
    Layout,
}

/// An error from parsing a grammar, building its PDA or composing it with a vocabulary.
///
/// The message names the construct at fault (line and column, nonterminal, rules, byte).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdaError {
    kind: PdaErrorKind,
    message: String,
    /// For a budget's error, what was being built when it ran out.
    phase: Option<String>,
}

impl PdaError {
    pub(crate) fn new(kind: PdaErrorKind, message: String) -> PdaError {
        PdaError {
            kind,
            message,
            phase: None,
        }
    }

    /// A budget's error, which ran out while building `phase`.
    pub(crate) fn of_budget(kind: PdaErrorKind, message: String, phase: &str) -> PdaError {
        PdaError {
            phase: Some(phase.to_string()),
            ..PdaError::new(kind, message)
        }
    }

    /// What kind of problem this is.
    pub fn kind(&self) -> PdaErrorKind {
        self.kind
    }

    /// For [`PdaErrorKind::TimeBudget`] and [`PdaErrorKind::MemoryBudget`], what was being
    /// built when the budget ran out (as the message says it): for a caller whose own
    /// compile holds the grammar's and reports the budget in its own words.
    pub fn phase(&self) -> Option<&str> {
        self.phase.as_deref()
    }
}

impl fmt::Display for PdaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PdaError {}
