//! The regex compiler: pattern and vocabulary in, token automaton out.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fstc_core::automaton::{Terminal, TokenAutomaton};
use fstc_core::bytes::{ByteDfa, TerminalKind, DEFAULT_DFA_STATE_LIMIT};
use fstc_core::compiled::{CompileStats, Compiled};
use fstc_core::compose::{compose_classes_with_trie, ComposeError, ComposeLimits};
use fstc_core::lazy::LazyAutomaton;
use fstc_core::parts::PartsError;
use fstc_core::vocab::TokenVocabulary;
use fstc_core::vocab::VocabTrie;

use crate::{Dialect, RegexBuilder, RegexError, RegexErrorKind};

/// What is left until `deadline` (all the time there is for `None`): the time budget of a
/// regex compile inside a larger one that shares its deadline.
pub fn time_left(deadline: Option<Instant>) -> Duration {
    deadline.map_or(Duration::MAX, |d| {
        d.saturating_duration_since(Instant::now())
    })
}

/// Compiles regular expressions into token automata for one vocabulary at a time.
///
/// Configured by value, as regex-automata's builders are: `RegexCompiler::new()
/// .configure(Config::new().dfa_state_limit(1000))`. The limits turn state
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
    time_budget: Option<Duration>,
    memory_budget: Option<usize>,
}

impl Config {
    /// The default time budget of one compile (as JSON Schemas' and grammars').
    pub const DEFAULT_TIME_BUDGET: Duration = Duration::from_secs(10);
    /// The default memory budget of one compile: 1 GiB.
    pub const DEFAULT_MEMORY_BUDGET: usize = 1 << 30;

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

    /// Longest one compile may run (default [`Config::DEFAULT_TIME_BUDGET`]), counted
    /// from the start of each `compile*` call: past it the byte DFA's construction ends in
    /// [`crate::RegexErrorKind::Deadline`], the composition with the vocabulary in
    /// `ComposeErrorKind::Deadline`, each error naming the phase. A server's per-request
    /// budget; a caller sharing one budget across compiles passes what is left of it.
    pub fn time_budget(mut self, budget: Duration) -> Config {
        self.time_budget = Some(budget);
        self
    }

    /// Most bytes the byte DFA's construction (its table and state sets) and then the
    /// token automaton's tables may take (default [`Config::DEFAULT_MEMORY_BUDGET`]).
    pub fn memory_budget(mut self, bytes: usize) -> Config {
        self.memory_budget = Some(bytes);
        self
    }

    /// The time budget in effect.
    pub fn get_time_budget(&self) -> Duration {
        self.time_budget.unwrap_or(Config::DEFAULT_TIME_BUDGET)
    }

    /// The memory budget in effect.
    pub fn get_memory_budget(&self) -> usize {
        self.memory_budget.unwrap_or(Config::DEFAULT_MEMORY_BUDGET)
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
            time_budget: other.time_budget.or(self.time_budget),
            memory_budget: other.memory_budget.or(self.memory_budget),
        }
    }
}

impl RegexCompiler {
    /// A compiler with the default options.
    pub fn new() -> RegexCompiler {
        RegexCompiler::default()
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

    /// The token set of terminal `kind` over the vocabulary of `trie`.
    fn terminal(&self, kind: TerminalKind, trie: &VocabTrie) -> Result<Terminal, BuildError> {
        let mask = match kind {
            TerminalKind::TextToken => trie.text_token_mask(None),
            TerminalKind::ParagraphToken => trie.text_token_mask(Some(b'\n')),
            TerminalKind::Call(machine) => {
                return Err(BuildError::terminal(format!(
                    "the pattern calls machine {machine} with (?P<CALL>{machine}), which only \
                     a call network (fstc_core::bytes::CallNetwork) reads"
                )))
            }
            TerminalKind::Image => {
                let image_tokens = self.config.get_image_tokens();
                if image_tokens.is_empty() {
                    return Err(BuildError::terminal(
                        "the pattern uses (?P<IMAGE>) but no image token ids were given \
                         (Config::image_tokens, or `fstc compile regex --image-tokens`)"
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

    /// One compile's deadline: its time budget from now (`None` past what an `Instant`
    /// holds).
    fn deadline(&self) -> Option<Instant> {
        Instant::now().checked_add(self.config.get_time_budget())
    }

    /// The composition limits of the options, until `deadline`, within `memory` bytes.
    fn limits(&self, deadline: Option<Instant>, memory: usize) -> ComposeLimits {
        ComposeLimits {
            token_edge_limit: self.config.get_token_edge_limit(),
            deadline,
            memory_limit: memory,
            ..ComposeLimits::default()
        }
    }

    /// The byte DFA of `pattern` within the state limit and the budgets, in the configured
    /// dialect.
    fn byte_dfa(&self, pattern: &str, deadline: Option<Instant>) -> Result<ByteDfa, BuildError> {
        RegexBuilder::new()
            .state_limit(self.config.get_dfa_state_limit())
            .dialect(self.config.get_dialect())
            .deadline(deadline)
            .memory_budget(self.config.get_memory_budget())
            .build(pattern)
            .map_err(BuildError::regex)
    }

    /// Compiles `pattern` (full-match semantics) for `vocab`, building the vocabulary trie
    /// first (a phase of its own): to compile many patterns for one vocabulary, build it
    /// once and use [`compile_with_trie`](Self::compile_with_trie).
    pub fn compile<V>(
        &self,
        pattern: &str,
        vocab: &V,
    ) -> Result<Compiled<TokenAutomaton>, BuildError>
    where
        V: TokenVocabulary + ?Sized,
    {
        Compiled::over_vocab_trie(vocab, |trie| self.compile_with_trie(pattern, trie))
    }

    /// Compiles `pattern` reusing a vocabulary trie built once: the byte DFA, the
    /// composition and the layout, each a phase.
    pub fn compile_with_trie(
        &self,
        pattern: &str,
        trie: &VocabTrie,
    ) -> Result<Compiled<TokenAutomaton>, BuildError> {
        let mut stats = CompileStats::new();
        let deadline = self.deadline();
        let dfa = stats.time("byte DFA", || self.byte_dfa(pattern, deadline))?;
        // The compile holds the pattern's DFA while it composes.
        let held = dfa.transitions().len() * 4 + dfa.num_states();
        let memory = self.config.get_memory_budget().saturating_sub(held);
        let mut compiled = self.compose(&dfa, pattern, trie, (deadline, memory))?;
        stats.extend(compiled.stats);
        compiled.stats = stats;
        Ok(compiled)
    }

    /// Composes a byte DFA built elsewhere (by [`fstc_core::bytes::Algebra`], or a
    /// [`RegexBuilder`] with automata) with the vocabulary of `trie`; `source` names it
    /// in errors. The phases are the composition and the layout.
    pub fn compile_dfa_with_trie(
        &self,
        dfa: &ByteDfa,
        source: &str,
        trie: &VocabTrie,
    ) -> Result<Compiled<TokenAutomaton>, BuildError> {
        let budgets = (self.deadline(), self.config.get_memory_budget());
        self.compose(dfa, source, trie, budgets)
    }

    /// [`compile_dfa_with_trie`](Self::compile_dfa_with_trie) until the deadline and
    /// within the bytes of `budgets`.
    fn compose(
        &self,
        dfa: &ByteDfa,
        source: &str,
        trie: &VocabTrie,
        (deadline, memory): (Option<Instant>, usize),
    ) -> Result<Compiled<TokenAutomaton>, BuildError> {
        let mut stats = CompileStats::new();
        stats.set_count("byte DFA states", dfa.num_states());
        let parts = stats.time("composition", || {
            let mut parts = compose_classes_with_trie(dfa, trie, &self.limits(deadline, memory))
                .map_err(|e| BuildError::compose(source, e))?;
            parts.terminals = dfa
                .terminals()
                .iter()
                .map(|&kind| self.terminal(kind, trie))
                .collect::<Result<_, _>>()?;
            Ok::<_, BuildError>(parts)
        })?;
        let automaton = stats
            .time("layout", || TokenAutomaton::from_class_parts(parts))
            .map_err(BuildError::parts)?;
        stats.count_automaton(&automaton);
        Ok(Compiled::new(automaton, stats))
    }

    /// Compiles `pattern` for lazy matching: only the byte DFA is built; each state's
    /// tokens are composed when a walk first reaches it (see [`fstc_core::lazy`]). For one-off
    /// patterns; patterns with terminal labels are refused (compile those eagerly).
    pub fn compile_lazy(
        &self,
        pattern: &str,
        trie: Arc<VocabTrie>,
    ) -> Result<Compiled<LazyAutomaton>, BuildError> {
        let mut stats = CompileStats::new();
        let dfa = stats.time("byte DFA", || self.byte_dfa(pattern, self.deadline()))?;
        let mut compiled = self.compile_dfa_lazy(&dfa, pattern, trie)?;
        stats.extend(compiled.stats);
        compiled.stats = stats;
        Ok(compiled)
    }

    /// [`compile_lazy`](Self::compile_lazy) for a byte DFA built elsewhere; `source`
    /// names it in errors.
    pub fn compile_dfa_lazy(
        &self,
        dfa: &ByteDfa,
        source: &str,
        trie: Arc<VocabTrie>,
    ) -> Result<Compiled<LazyAutomaton>, BuildError> {
        let mut stats = CompileStats::new();
        stats.set_count("byte DFA states", dfa.num_states());
        let automaton = stats
            .time("lazy automaton", || LazyAutomaton::new(dfa, trie))
            .map_err(|e| BuildError::compose(source, e))?;
        Ok(Compiled::new(automaton, stats))
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

    /// The option to raise when a budget, not the pattern, stopped the compile.
    fn budget_option(&self) -> Option<&'static str> {
        use fstc_core::compose::ComposeErrorKind;
        match &self.kind {
            BuildErrorKind::Regex(e) if e.kind() == &RegexErrorKind::Deadline => {
                Some("time_budget, `--time-budget`")
            }
            BuildErrorKind::Regex(e) if matches!(e.kind(), RegexErrorKind::Memory { .. }) => {
                Some("memory_budget, `--memory-budget`")
            }
            BuildErrorKind::Compose { error, .. } => match error.kind() {
                ComposeErrorKind::Deadline => Some("time_budget, `--time-budget`"),
                ComposeErrorKind::MemoryLimit => Some("memory_budget, `--memory-budget`"),
                _ => None,
            },
            _ => None,
        }
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let raise = match self.budget_option() {
            Some(option) => format!("; raise it ({option}) or simplify the pattern"),
            None => String::new(),
        };
        match &self.kind {
            BuildErrorKind::Regex(e) => write!(f, "{e}{raise}"),
            BuildErrorKind::Compose { pattern, error } => {
                write!(f, "pattern {pattern:?}: {error}{raise}")
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
            .configure(Config::new().dfa_state_limit(5).image_tokens([3, 1, 3]))
            .configure(Config::new().token_edge_limit(7));
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
