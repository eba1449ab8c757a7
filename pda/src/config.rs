//! Options of the grammar compiler: the limits on the composition, each reported by name
//! when exceeded (`node_limit`, `token_edge_limit`, `pop_limit`, `config_limit`, as in the CLI's
//! `--node-limit` and Python's `node_limit=`), the time and memory budgets of the whole
//! compile (as fstc-json's), and the syntax grammar text is read in.

use std::time::Duration;

use crate::budget::Budget;
use crate::syntax::Syntax;

/// Options of [`GrammarCompiler`](crate::GrammarCompiler). An option not set keeps its
/// default (or, given to [`GrammarCompiler::configure`](crate::GrammarCompiler::configure),
/// the compiler's current value).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Config {
    node_limit: Option<usize>,
    token_edge_limit: Option<usize>,
    pop_limit: Option<usize>,
    config_limit: Option<usize>,
    require_deterministic: Option<bool>,
    syntax: Option<Syntax>,
    time_budget: Option<Duration>,
    memory_budget: Option<usize>,
}

impl Config {
    /// Default node limit: a million nodes.
    pub const DEFAULT_NODE_LIMIT: usize = 1_000_000;
    /// Default token edge limit: fifty million token edges before grouping (a few hundred
    /// megabytes at most).
    pub const DEFAULT_TOKEN_EDGE_LIMIT: usize = 50_000_000;
    /// Default pop limit: 256 stack symbols per token (see [`Config::pop_limit`]).
    pub const DEFAULT_POP_LIMIT: usize = 256;
    /// Default time budget of one compile (fstc-json's).
    pub const DEFAULT_TIME_BUDGET: Duration = Duration::from_secs(10);
    /// Default memory budget of one compile: 1 GiB of automata and tables (fstc-json's).
    pub const DEFAULT_MEMORY_BUDGET: usize = 1 << 30;

    /// Every option at its default.
    pub fn new() -> Config {
        Config::default()
    }

    /// Most token PDA nodes (boundary states and pop nodes) before merging.
    pub fn node_limit(mut self, limit: usize) -> Config {
        self.node_limit = Some(limit);
        self
    }

    /// Most token edges before tokens are grouped into classes.
    pub fn token_edge_limit(mut self, limit: usize) -> Config {
        self.token_edge_limit = Some(limit);
        self
    }

    /// Most live configurations of a nondeterministic token PDA's walker that one token may
    /// make from one configuration: more is refused at compile time (the walker's own limit,
    /// `GlrWalkerOf::with_config_limit`, bounds them at decode time).
    pub fn config_limit(mut self, limit: usize) -> Config {
        self.config_limit = Some(limit);
        self
    }

    /// The configuration limit in effect.
    pub fn get_config_limit(&self) -> usize {
        self.config_limit
            .unwrap_or(fstc_core::glr_walker::DEFAULT_CONFIG_LIMIT)
    }

    /// Whether a grammar whose conflicts one byte of lookahead does not decide is refused
    /// ([`PdaErrorKind::Conflict`](crate::PdaErrorKind::Conflict), listing them) instead of
    /// compiled to a nondeterministic token PDA (default `false`).
    pub fn require_deterministic(mut self, yes: bool) -> Config {
        self.require_deterministic = Some(yes);
        self
    }

    /// Whether nondeterministic grammars are refused.
    pub fn get_require_deterministic(&self) -> bool {
        self.require_deterministic.unwrap_or(false)
    }

    /// Most stack symbols one token may pop, counted along the shortest pops into each
    /// pop node (returns through an unbounded nest of calls, a cycle of pop edges, count
    /// once).
    pub fn pop_limit(mut self, limit: usize) -> Config {
        self.pop_limit = Some(limit);
        self
    }

    /// The syntax grammar text is read in (default [`Syntax::Gbnf`], which also reads the
    /// paper's arrow notation).
    pub fn syntax(mut self, syntax: Syntax) -> Config {
        self.syntax = Some(syntax);
        self
    }

    /// The syntax in effect.
    pub fn get_syntax(&self) -> Syntax {
        self.syntax.unwrap_or(Syntax::Gbnf)
    }

    /// The node limit in effect.
    pub fn get_node_limit(&self) -> usize {
        self.node_limit.unwrap_or(Config::DEFAULT_NODE_LIMIT)
    }

    /// The token edge limit in effect.
    pub fn get_token_edge_limit(&self) -> usize {
        self.token_edge_limit
            .unwrap_or(Config::DEFAULT_TOKEN_EDGE_LIMIT)
    }

    /// The pop limit in effect.
    pub fn get_pop_limit(&self) -> usize {
        self.pop_limit.unwrap_or(Config::DEFAULT_POP_LIMIT)
    }

    /// Longest a compile may run: polled while the text is read (regex terminals
    /// included), the rules' DFAs are built, the grammar is analysed, the byte PDA is built,
    /// the vocabulary is walked and the token PDA is grouped, merged and laid out; past it, [`PdaErrorKind::TimeBudget`](crate::PdaErrorKind::TimeBudget)
    /// names the rule (and its line and column) or the phase. A server's per-request deadline.
    pub fn time_budget(mut self, budget: Duration) -> Config {
        self.time_budget = Some(budget);
        self
    }

    /// Most bytes of automata and tables a compile may hold (the rules as read, the rules'
    /// DFAs, the byte PDA and its lookup tables, the composition's edges, nodes and points,
    /// the grouped edges, the merge's tables, the layout),
    /// counted before each is allocated where its size is known and as it grows otherwise;
    /// past it, [`PdaErrorKind::MemoryBudget`](crate::PdaErrorKind::MemoryBudget).
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

    /// The budgets of one compile with this configuration, starting now.
    pub(crate) fn budget(&self) -> Budget {
        Budget::new(self.get_time_budget(), self.get_memory_budget())
    }

    /// `self` with the options set in `other` replacing its own.
    pub(crate) fn overwrite(self, other: Config) -> Config {
        Config {
            node_limit: other.node_limit.or(self.node_limit),
            token_edge_limit: other.token_edge_limit.or(self.token_edge_limit),
            pop_limit: other.pop_limit.or(self.pop_limit),
            config_limit: other.config_limit.or(self.config_limit),
            require_deterministic: other.require_deterministic.or(self.require_deterministic),
            syntax: other.syntax.or(self.syntax),
            time_budget: other.time_budget.or(self.time_budget),
            memory_budget: other.memory_budget.or(self.memory_budget),
        }
    }
}
