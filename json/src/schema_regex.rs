//! A schema's regex text, the automata it splices in, and its byte DFA: what the
//! translation hands to the compiler (and to `blame`, which builds sub-schemas alone).

use std::sync::Arc;
use std::time::Instant;

use fstc_core::bytes::ByteDfa;

use fstc_regex::{RegexBuilder, RegexError};

use fstc_core::compiled::Warning;

/// A schema's regex and what was left out (under `lenient`).
#[derive(Clone, Debug)]
pub struct SchemaRegex {
    /// The regex (regex-syntax dialect, full match) of the admitted JSON texts. Where a
    /// keyword needed an intersection or complement, and for `format` grammars and string
    /// bodies (compiled once per process and spliced), it holds `(?P<AUTOMATON>N)`, the
    /// language of `automata[N]`; compile it with [`SchemaRegex::dfa`].
    pub regex: String,
    /// The automata the regex splices in.
    pub automata: Vec<Arc<ByteDfa>>,
    /// Keywords not enforced (empty unless [`Config::lenient`](crate::Config::lenient)).
    pub warnings: Vec<Warning>,
}

impl SchemaRegex {
    /// The minimized byte DFA of the admitted texts, with at most `state_limit` states.
    pub fn dfa(&self, state_limit: usize) -> Result<ByteDfa, RegexError> {
        self.dfa_until(state_limit, None)
    }

    /// [`SchemaRegex::dfa`], giving up past `deadline` (`RegexErrorKind::Deadline`).
    pub fn dfa_until(
        &self,
        state_limit: usize,
        deadline: Option<Instant>,
    ) -> Result<ByteDfa, RegexError> {
        RegexBuilder::new()
            .state_limit(state_limit)
            .deadline(deadline)
            .automata(self.automata.clone())
            .build(&self.regex)
    }
}
