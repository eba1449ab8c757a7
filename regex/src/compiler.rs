//! The regex compiler: pattern and vocabulary in, token automaton out.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fstc_core::automaton::{Terminal, TokenAutomaton};
use fstc_core::bytes::{ByteDfa, TerminalKind, DEFAULT_DFA_STATE_LIMIT};
use fstc_core::compose::{compose_classes_with_trie, ComposeError, ComposeLimits};
use fstc_core::lazy::LazyAutomaton;
use fstc_core::parts::PartsError;
use fstc_core::vocab::TokenVocabulary;
use fstc_core::vocab::VocabTrie;

use crate::{Dialect, RegexBuilder, RegexError};

/// Compiles regular expressions into token automata for one vocabulary at a time.
///
/// Configured by value, as regex-automata's builders are: `RegexCompiler::new()
/// .configure(RegexCompiler::config().dfa_state_limit(1000))`. The limits turn state
/// explosions into errors instead of exhausted memory: the byte DFA of the pattern may have
/// at most `dfa_state_limit` states, the token automaton at most `token_edge_limit` edges.
#[derive(Clone, Debug, Default)]
pub struct RegexCompiler {
    config: Config,
}

/// The options of a [`RegexCompiler`]. An option not set keeps its default (or, given to
/// [`RegexCompiler::configure`], the compiler's current value).
#[derive(Clone, Debug, Default)]
pub struct Config {
    dfa_state_limit: Option<usize>,
    token_edge_limit: Option<usize>,
    image_tokens: Option<Vec<u32>>,
    dialect: Option<Dialect>,
}

impl Config {
    /// Every option at its default.
    pub fn new() -> Config {
        Config::default()
    }

    /// Most states the pattern's byte DFA may have (default [`DEFAULT_DFA_STATE_LIMIT`]).
    pub fn dfa_state_limit(mut self, limit: usize) -> Config {
        self.dfa_state_limit = Some(limit);
        self
    }

    /// Most edges the token automaton may have (default
    /// [`ComposeLimits::DEFAULT_TOKEN_EDGE_LIMIT`]).
    pub fn token_edge_limit(mut self, limit: usize) -> Config {
        self.token_edge_limit = Some(limit);
        self
    }

    /// The token ids `(?P<IMAGE>)` stands for (e.g. a multimodal model's image tokens).
    /// They may be special tokens, but not EOS ids. Default: none, so `(?P<IMAGE>)` is an
    /// error.
    pub fn image_tokens(mut self, ids: impl IntoIterator<Item = u32>) -> Config {
        let mut ids: Vec<u32> = ids.into_iter().collect();
        ids.sort_unstable();
        ids.dedup();
        self.image_tokens = Some(ids);
        self
    }

    /// Reads patterns in `dialect` ([`Dialect::EcmaScript`] for JSON Schema's `pattern`;
    /// default [`Dialect::Regex`]).
    pub fn dialect(mut self, dialect: Dialect) -> Config {
        self.dialect = Some(dialect);
        self
    }

    /// The pattern dialect in effect.
    pub fn get_dialect(&self) -> Dialect {
        self.dialect.unwrap_or(Dialect::Regex)
    }

    /// The byte DFA state limit in effect.
    pub fn get_dfa_state_limit(&self) -> usize {
        self.dfa_state_limit.unwrap_or(DEFAULT_DFA_STATE_LIMIT)
    }

    /// The token edge limit in effect.
    pub fn get_token_edge_limit(&self) -> usize {
        (self.token_edge_limit).unwrap_or(ComposeLimits::DEFAULT_TOKEN_EDGE_LIMIT)
    }

    /// The image token ids, sorted and distinct.
    pub fn get_image_tokens(&self) -> &[u32] {
        self.image_tokens.as_deref().unwrap_or(&[])
    }

    /// `self` with the options set in `other` replacing its own.
    fn overwrite(self, other: Config) -> Config {
        Config {
            dfa_state_limit: other.dfa_state_limit.or(self.dfa_state_limit),
            token_edge_limit: other.token_edge_limit.or(self.token_edge_limit),
            image_tokens: other.image_tokens.or(self.image_tokens),
            dialect: other.dialect.or(self.dialect),
        }
    }
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

impl RegexCompiler {
    /// A compiler with the default options.
    pub fn new() -> RegexCompiler {
        RegexCompiler::default()
    }

    /// A configuration with every option at its default, to give to
    /// [`configure`](Self::configure).
    pub fn config() -> Config {
        Config::new()
    }

    /// The compiler with the options set in `config` replacing its own.
    pub fn configure(mut self, config: Config) -> RegexCompiler {
        self.config = self.config.overwrite(config);
        self
    }

    /// The options in effect.
    pub fn get_config(&self) -> &Config {
        &self.config
    }

    /// Shorthand for `configure(RegexCompiler::config().dfa_state_limit(limit))`.
    pub fn dfa_state_limit(self, limit: usize) -> RegexCompiler {
        self.configure(Config::new().dfa_state_limit(limit))
    }

    /// Shorthand for `configure(RegexCompiler::config().token_edge_limit(limit))`.
    pub fn token_edge_limit(self, limit: usize) -> RegexCompiler {
        self.configure(Config::new().token_edge_limit(limit))
    }

    /// Shorthand for `configure(RegexCompiler::config().dialect(dialect))`.
    pub fn dialect(self, dialect: Dialect) -> RegexCompiler {
        self.configure(Config::new().dialect(dialect))
    }

    /// Shorthand for `configure(RegexCompiler::config().image_tokens(ids))`.
    pub fn image_tokens(self, ids: impl IntoIterator<Item = u32>) -> RegexCompiler {
        self.configure(Config::new().image_tokens(ids))
    }

    /// The token set of terminal `kind` over the vocabulary of `trie`.
    fn terminal(&self, kind: TerminalKind, trie: &VocabTrie) -> Result<Terminal, BuildError> {
        let mask = match kind {
            TerminalKind::TextToken => trie.text_token_mask(None),
            TerminalKind::ParagraphToken => trie.text_token_mask(Some(b'\n')),
            TerminalKind::Image => {
                let image_tokens = self.config.get_image_tokens();
                if image_tokens.is_empty() {
                    return Err(BuildError::terminal(
                        "the pattern uses (?P<IMAGE>) but no image token ids were given \
                         (RegexCompiler::image_tokens, or `fstc compile --image-tokens`)"
                            .into(),
                    ));
                }
                let mut mask = vec![0u32; trie.vocab_size().div_ceil(32)];
                for &id in image_tokens {
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

    /// The composition limits of the options.
    fn limits(&self) -> ComposeLimits {
        ComposeLimits {
            token_edge_limit: self.config.get_token_edge_limit(),
            ..ComposeLimits::default()
        }
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
            .state_limit(self.config.get_dfa_state_limit())
            .dialect(self.config.get_dialect())
            .build(pattern)
            .map_err(BuildError::regex)?;
        stats.byte_dfa_time = started.elapsed();
        let (automaton, rest) = self.compile_dfa_with_trie(&dfa, pattern, trie)?;
        stats.byte_dfa_states = rest.byte_dfa_states;
        stats.compose_time = rest.compose_time;
        stats.layout_time = rest.layout_time;
        Ok((automaton, stats))
    }

    /// Composes a byte DFA built elsewhere (by [`fstc_core::bytes::Algebra`], or a
    /// [`RegexBuilder`] with automata) with the vocabulary of `trie`; `source` names it
    /// in errors. The stats have no byte-DFA time.
    pub fn compile_dfa_with_trie(
        &self,
        dfa: &ByteDfa,
        source: &str,
        trie: &VocabTrie,
    ) -> Result<(TokenAutomaton, CompileStats), BuildError> {
        let mut stats = CompileStats {
            byte_dfa_states: dfa.num_states(),
            ..CompileStats::default()
        };
        let started = Instant::now();
        let mut parts = compose_classes_with_trie(dfa, trie, &self.limits())
            .map_err(|e| BuildError::compose(source, e))?;
        parts.terminals = dfa
            .terminals()
            .iter()
            .map(|&kind| self.terminal(kind, trie))
            .collect::<Result<_, _>>()?;
        stats.compose_time = started.elapsed();

        let started = Instant::now();
        let automaton = TokenAutomaton::from_class_parts(parts).map_err(BuildError::parts)?;
        stats.layout_time = started.elapsed();
        Ok((automaton, stats))
    }

    /// Compiles `pattern` for lazy matching: only the byte DFA is built; each state's
    /// tokens are composed when a walk first reaches it (see [`crate::lazy`]). For one-off
    /// patterns; patterns with terminal labels are refused (compile those eagerly).
    pub fn compile_lazy(
        &self,
        pattern: &str,
        trie: Arc<VocabTrie>,
    ) -> Result<LazyAutomaton, BuildError> {
        let dfa = RegexBuilder::new()
            .state_limit(self.config.get_dfa_state_limit())
            .dialect(self.config.get_dialect())
            .build(pattern)
            .map_err(BuildError::regex)?;
        self.compile_dfa_lazy(&dfa, pattern, trie)
    }

    /// [`compile_lazy`](Self::compile_lazy) for a byte DFA built elsewhere; `source`
    /// names it in errors.
    pub fn compile_dfa_lazy(
        &self,
        dfa: &ByteDfa,
        source: &str,
        trie: Arc<VocabTrie>,
    ) -> Result<LazyAutomaton, BuildError> {
        LazyAutomaton::new(dfa, trie).map_err(|e| BuildError::compose(source, e))
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
    /// The compiler produced parts that do not form a valid automaton, or one too large
    /// for a file's 32-bit counts.
    Parts(PartsError),
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

    fn parts(error: PartsError) -> BuildError {
        BuildError {
            kind: BuildErrorKind::Parts(error),
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
            BuildErrorKind::Parts(e) => {
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

#[cfg(test)]
mod tests {
    use super::*;
    use fstc_core::ByteVocabulary;

    #[test]
    fn configure_replaces_only_the_options_it_sets() {
        let compiler = RegexCompiler::new()
            .dfa_state_limit(5)
            .image_tokens([3, 1, 3])
            .configure(RegexCompiler::config().token_edge_limit(7));
        let config = compiler.get_config();
        assert_eq!(config.get_dfa_state_limit(), 5);
        assert_eq!(config.get_token_edge_limit(), 7);
        assert_eq!(config.get_image_tokens(), [1, 3]);
        let defaults = RegexCompiler::new();
        assert_eq!(
            defaults.get_config().get_dfa_state_limit(),
            DEFAULT_DFA_STATE_LIMIT
        );
        assert_eq!(
            defaults.get_config().get_token_edge_limit(),
            ComposeLimits::DEFAULT_TOKEN_EDGE_LIMIT
        );
    }

    #[test]
    fn configured_limits_are_enforced() {
        let tokens = (0..=255u8).map(|b| Some(vec![b])).chain([None]).collect();
        let vocab = ByteVocabulary::new(tokens, vec![256]);
        let pattern = "[a-z]{20}";
        assert!(RegexCompiler::new().compile(pattern, &vocab).is_ok());
        let tight_dfa = RegexCompiler::new().configure(Config::new().dfa_state_limit(5));
        let e = tight_dfa.compile(pattern, &vocab).unwrap_err();
        assert!(matches!(e.kind(), BuildErrorKind::Regex(_)), "{e}");
        let tight_edges = RegexCompiler::new().configure(Config::new().token_edge_limit(10));
        let e = tight_edges.compile(pattern, &vocab).unwrap_err();
        assert!(matches!(e.kind(), BuildErrorKind::Compose { .. }), "{e}");
    }
}
