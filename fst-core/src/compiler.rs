//! The regex compiler: pattern and vocabulary in, token automaton out.

use std::fmt;
use std::time::{Duration, Instant};

use crate::automaton::{Terminal, TokenAutomaton};
use crate::compose::{compose_classes_with_trie, ComposeError, ComposeLimits, VocabTrie};
use crate::format::FormatError;
use crate::regex::{Dialect, RegexBuilder, RegexError, TerminalKind, DEFAULT_DFA_STATE_LIMIT};
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
    image_tokens: Vec<u32>,
    dialect: Dialect,
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
            image_tokens: Vec::new(),
            dialect: Dialect::Regex,
        }
    }

    /// Reads patterns in `dialect` ([`Dialect::EcmaScript`] for JSON Schema's `pattern`).
    pub fn dialect(mut self, dialect: Dialect) -> RegexCompiler {
        self.dialect = dialect;
        self
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

    /// The token ids `(?P<IMAGE>)` stands for (e.g. a multimodal model's image tokens).
    /// They may be special tokens, but not EOS ids.
    pub fn image_tokens(mut self, ids: impl IntoIterator<Item = u32>) -> RegexCompiler {
        self.image_tokens = ids.into_iter().collect();
        self.image_tokens.sort_unstable();
        self.image_tokens.dedup();
        self
    }

    /// The token set of terminal `kind` over the vocabulary of `trie`.
    fn terminal(&self, kind: TerminalKind, trie: &VocabTrie) -> Result<Terminal, BuildError> {
        let mask = match kind {
            TerminalKind::TextToken => trie.text_token_mask(None),
            TerminalKind::ParagraphToken => trie.text_token_mask(Some(b'\n')),
            TerminalKind::Image => {
                if self.image_tokens.is_empty() {
                    return Err(BuildError::terminal(
                        "the pattern uses (?P<IMAGE>) but no image token ids were given \
                         (RegexCompiler::image_tokens, or `fstc compile --image-tokens`)"
                            .into(),
                    ));
                }
                let mut mask = vec![0u32; trie.vocab_size().div_ceil(32)];
                for &id in &self.image_tokens {
                    if id as usize >= trie.vocab_size() {
                        return Err(BuildError::terminal(format!(
                            "image token id {id} is not below the vocabulary size {}",
                            trie.vocab_size()
                        )));
                    }
                    if trie.eos_ids().contains(&id) {
                        return Err(BuildError::terminal(format!(
                            "image token id {id} is an EOS id; EOS is allowed only where the \
                             pattern is complete"
                        )));
                    }
                    mask[(id / 32) as usize] |= 1 << (id % 32);
                }
                mask
            }
        };
        Ok(Terminal {
            name: kind.name().to_string(),
            mask,
        })
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
        let dfa = RegexBuilder::new()
            .state_limit(self.dfa_state_limit)
            .dialect(self.dialect)
            .build(pattern)
            .map_err(BuildError::regex)?;
        stats.byte_dfa_time = started.elapsed();
        stats.byte_dfa_states = dfa.num_states();

        let started = Instant::now();
        let mut parts = compose_classes_with_trie(&dfa, trie, &self.limits)
            .map_err(|e| BuildError::compose(pattern, e))?;
        parts.terminals = dfa
            .terminals()
            .iter()
            .map(|&kind| self.terminal(kind, trie))
            .collect::<Result<_, _>>()?;
        stats.compose_time = started.elapsed();

        let started = Instant::now();
        let automaton = TokenAutomaton::from_class_parts(parts).map_err(BuildError::format)?;
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
    /// A terminal label cannot be built (e.g. `IMAGE` without image token ids).
    Terminal(String),
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

    fn terminal(message: String) -> BuildError {
        BuildError {
            kind: BuildErrorKind::Terminal(message),
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
            BuildErrorKind::Terminal(message) => f.write_str(message),
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
