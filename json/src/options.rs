//! The JSON Schema compiler's options by name ([`Config::with_options`]), as Python's
//! `compile_json_schema` (and the compilers built on it) and the C ABI pass them.

use fstc_core::options::{OptionError, OptionValue};

use crate::{Config, Escapes, Whitespace};

/// The names [`Config::with_options`] takes: the setters' (`whitespace` with the numbers of
/// its styles, `max_whitespace` and `indent`), the CLI's with `-` for `_`.
pub const OPTION_NAMES: &[&str] = &[
    "whitespace",
    "max_whitespace",
    "indent",
    "escapes",
    "additional_properties",
    "recursion_depth",
    "any_json_depth",
    "lenient",
    "dfa_state_limit",
    "token_edge_limit",
    "time_budget",
    "memory_budget",
];

impl Config {
    /// This configuration with each named option set. `whitespace` is `"flexible"` (at most
    /// `max_whitespace` characters in a row, default 8), `"compact"` or `"pretty"` (`indent`
    /// spaces, default 2), whatever order the three come in; `escapes` is `"canonical"` or
    /// `"any"`; `time_budget` is in seconds, `memory_budget` in bytes.
    pub fn with_options(mut self, options: &[(&str, OptionValue)]) -> Result<Config, OptionError> {
        let (mut style, mut max_whitespace, mut indent) = (None, 8, 2);
        for (name, value) in options {
            self = match *name {
                "whitespace" => {
                    style = Some(value.str(name)?);
                    self
                }
                "max_whitespace" => {
                    max_whitespace = value.usize(name)?;
                    self
                }
                "indent" => {
                    indent = value.usize(name)?;
                    self
                }
                "escapes" => self.escapes(escapes(value.str(name)?)?),
                "additional_properties" => self.additional_properties(value.bool(name)?),
                "recursion_depth" => self.recursion_depth(value.usize(name)?),
                "any_json_depth" => self.any_json_depth(value.usize(name)?),
                "lenient" => self.lenient(value.bool(name)?),
                "dfa_state_limit" => self.dfa_state_limit(value.usize(name)?),
                "token_edge_limit" => self.token_edge_limit(value.usize(name)?),
                "time_budget" => self.time_budget(value.seconds(name)?),
                "memory_budget" => self.memory_budget(value.usize(name)?),
                _ => return Err(OptionError::unknown(name, "a JSON Schema", OPTION_NAMES)),
            };
        }
        let style = match style {
            None => return Ok(self),
            Some("flexible") => Whitespace::Flexible { max_whitespace },
            Some("compact") => Whitespace::Compact,
            Some("pretty") => Whitespace::Pretty { indent },
            Some(other) => {
                return Err(OptionError::new(format!(
                    "whitespace must be \"flexible\", \"compact\" or \"pretty\", got {other:?}"
                )))
            }
        };
        Ok(self.whitespace(style))
    }
}

fn escapes(name: &str) -> Result<Escapes, OptionError> {
    match name {
        "canonical" => Ok(Escapes::Canonical),
        "any" => Ok(Escapes::Any),
        other => Err(OptionError::new(format!(
            "escapes must be \"canonical\" or \"any\", got {other:?}"
        ))),
    }
}
