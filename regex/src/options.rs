//! The regex compiler's options by name ([`Config::with_options`]), as Python's
//! `compile_regex` and the C ABI pass them.

use fstc_core::options::{OptionError, OptionValue};

use crate::{Config, Dialect};

/// The names [`Config::with_options`] takes: the setters', the CLI's with `-` for `_`.
pub const OPTION_NAMES: &[&str] = &[
    "dialect",
    "dfa_state_limit",
    "token_edge_limit",
    "image_tokens",
    "time_budget",
    "memory_budget",
];

impl Config {
    /// This configuration with each named option set: `dialect` (`"regex"` or
    /// `"ecmascript"`), `dfa_state_limit`, `token_edge_limit`, `image_tokens`,
    /// `time_budget` (seconds), `memory_budget` (bytes).
    pub fn with_options(mut self, options: &[(&str, OptionValue)]) -> Result<Config, OptionError> {
        for (name, value) in options {
            self = match *name {
                "dialect" => self.dialect(value.choice(name, &DIALECTS)?),
                "dfa_state_limit" => self.dfa_state_limit(value.usize(name)?),
                "token_edge_limit" => self.token_edge_limit(value.usize(name)?),
                "image_tokens" => self.image_tokens(value.u32s(name)?),
                "time_budget" => self.time_budget(value.seconds(name)?),
                "memory_budget" => self.memory_budget(value.usize(name)?),
                _ => return Err(OptionError::unknown(name, "a regex", OPTION_NAMES)),
            };
        }
        Ok(self)
    }
}

const DIALECTS: [(&str, Dialect); 2] = [
    ("regex", Dialect::Regex),
    ("ecmascript", Dialect::EcmaScript),
];
