//! The regex compiler: pattern and vocabulary in, token automaton out.

use std::fmt;
use std::time::{Duration, Instant};

use crate::automaton::TokenAutomaton;
use crate::compose::{compose_with_trie, ComposeError, ComposeLimits, VocabTrie};
use crate::format::FormatError;
use crate::regex::{ByteDfa, RegexError, DEFAULT_DFA_STATE_LIMIT};
use crate::vocab::TokenVocabulary;

/// Compiles regular expressions into token automata for one vocabulary at a time.
///
/// The limits turn state explosions into errors instead of exhausted memory: the byte
/// DFA of the pattern may have at most `dfa_state_limit` states, the token automaton at
/// most `token_edge_limit` edges.
#[derive(Clone, Debug)]
pub struct RegexCompiler {
    dfa_state_limit: usize,
    limits: ComposeLimits,
}

/// How long each stage of a compile took, and how big its results were.
#[derive(Clone, Debug, Default)]
pub struct CompileStats {
    /// Time to parse the pattern and build the minimized byte DFA.
    pub byte_dfa_time: Duration,
    /// States of the byte DFA.
    pub byte_dfa_states: usize,
    /// Time to compose the byte DFA with the vocabulary, trim and minimize.
    pub compose_time: Duration,
    /// Time to lay the automaton out in its word array (the file format).
    pub layout_time: Duration,
}

impl Default for RegexCompiler {
    fn default() -> RegexCompiler {
        RegexCompiler::new()
    }
}

impl RegexCompiler {
    /// A compiler with the default limits.
    pub fn new() -> RegexCompiler {
        RegexCompiler {
            dfa_state_limit: DEFAULT_DFA_STATE_LIMIT,
            limits: ComposeLimits::default(),
        }
    }

    /// Most states the pattern's byte DFA may have.
    pub fn dfa_state_limit(mut self, limit: usize) -> RegexCompiler {
        self.dfa_state_limit = limit;
        self
    }

    /// Most edges the token automaton may have.
    pub fn token_edge_limit(mut self, limit: usize) -> RegexCompiler {
        self.limits.token_edge_limit = limit;
        self
    }

    /// Compiles `pattern` (full-match semantics) for `vocab`.
    pub fn compile<V>(&self, pattern: &str, vocab: &V) -> Result<TokenAutomaton, BuildError>
    where
        V: TokenVocabulary + ?Sized,
    {
        let trie = VocabTrie::new(vocab);
        self.compile_with_trie(pattern, &trie)
            .map(|(automaton, _)| automaton)
    }

    /// Compiles `pattern` reusing a vocabulary trie built once, and reports stage timings.
    pub fn compile_with_trie(
        &self,
        pattern: &str,
        trie: &VocabTrie,
    ) -> Result<(TokenAutomaton, CompileStats), BuildError> {
        let mut stats = CompileStats::default();
        let started = Instant::now();
        let dfa = ByteDfa::from_regex(pattern, self.dfa_state_limit).map_err(BuildError::regex)?;
        stats.byte_dfa_time = started.elapsed();
        stats.byte_dfa_states = dfa.num_states();

        let started = Instant::now();
        let parts = compose_with_trie(&dfa, trie, &self.limits)
            .map_err(|e| BuildError::compose(pattern, e))?;
        stats.compose_time = started.elapsed();

        let started = Instant::now();
        let automaton = TokenAutomaton::from_parts(parts).map_err(BuildError::format)?;
        stats.layout_time = started.elapsed();
        Ok((automaton, stats))
    }
}

/// Why a constraint could not be compiled.
#[derive(Debug)]
pub struct BuildError {
    kind: BuildErrorKind,
}

/// The kinds of [`BuildError`].
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildErrorKind {
    /// The pattern is invalid, unsupported, or its byte DFA is too large.
    Regex(RegexError),
    /// Composition with the vocabulary failed (empty language, size limits).
    Compose {
        /// The pattern being compiled.
        pattern: String,
        /// What went wrong.
        error: ComposeError,
    },
    /// The compiler produced parts that do not form a valid automaton (a bug in fstc).
    Format(FormatError),
}

impl BuildError {
    fn regex(error: RegexError) -> BuildError {
        BuildError {
            kind: BuildErrorKind::Regex(error),
        }
    }

    fn compose(pattern: &str, error: ComposeError) -> BuildError {
        BuildError {
            kind: BuildErrorKind::Compose {
                pattern: pattern.to_string(),
                error,
            },
        }
    }

    fn format(error: FormatError) -> BuildError {
        BuildError {
            kind: BuildErrorKind::Format(error),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &BuildErrorKind {
        &self.kind
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            BuildErrorKind::Regex(e) => write!(f, "{e}"),
            BuildErrorKind::Compose { pattern, error } => {
                write!(f, "pattern {pattern:?}: {error}")
            }
            BuildErrorKind::Format(e) => {
                write!(
                    f,
                    "internal error, please report: compiled automaton is invalid: {e}"
                )
            }
        }
    }
}

/// The message already includes the underlying error's, so `source` is empty: error
/// reporters that print the chain would otherwise say everything twice.
impl std::error::Error for BuildError {}
