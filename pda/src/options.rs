//! The grammar compiler's options by name ([`Config::with_options`]), as Python's
//! `compile_grammar` and the C ABI pass them.

use fstc_core::options::{OptionError, OptionValue};

use crate::{Config, Syntax};

/// The names [`Config::with_options`] takes: the setters', the CLI's with `-` for `_`.
pub const OPTION_NAMES: &[&str] = &[
    "syntax",
    "node_limit",
    "token_edge_limit",
    "pop_limit",
    "config_limit",
    "require_deterministic",
    "time_budget",
    "memory_budget",
];

impl Config {
    /// This configuration with each named option set: `syntax` (`"gbnf"`, `"lark"`,
    /// `"ebnf"`, `"paper"`), `node_limit`, `token_edge_limit`, `pop_limit`, `config_limit`,
    /// `require_deterministic`, `time_budget` (seconds), `memory_budget` (bytes).
    pub fn with_options(mut self, options: &[(&str, OptionValue)]) -> Result<Config, OptionError> {
        for (name, value) in options {
            self = match *name {
                "syntax" => self.syntax(
                    value
                        .str(name)?
                        .parse::<Syntax>()
                        .map_err(OptionError::new)?,
                ),
                "node_limit" => self.node_limit(value.usize(name)?),
                "token_edge_limit" => self.token_edge_limit(value.usize(name)?),
                "pop_limit" => self.pop_limit(value.usize(name)?),
                "config_limit" => self.config_limit(value.usize(name)?),
                "require_deterministic" => self.require_deterministic(value.bool(name)?),
                "time_budget" => self.time_budget(value.seconds(name)?),
                "memory_budget" => self.memory_budget(value.usize(name)?),
                _ => return Err(OptionError::unknown(name, "a grammar", OPTION_NAMES)),
            };
        }
        Ok(self)
    }
}
