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
    "ref_dir",
];

impl Config {
    /// This configuration with each named option set. `whitespace` is `"flexible"` (at most
    /// `max_whitespace` characters in a row, default 8), `"compact"` or `"pretty"` (`indent`
    /// spaces, default 2), whatever order the three come in; `escapes` is `"canonical"` or
    /// `"any"`; `time_budget` is in seconds, `memory_budget` in bytes, `ref_dir` a folder's path.
    pub fn with_options(mut self, options: &[(&str, OptionValue)]) -> Result<Config, OptionError> {
        let (mut style, mut max_whitespace, mut indent) = (None, 8, 2);
        for (name, value) in options {
            self = match *name {
                "whitespace" => {
                    style = Some(value.choice(name, &STYLES)?);
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
                "escapes" => self.escapes(value.choice(name, &ESCAPES)?),
                "additional_properties" => self.additional_properties(value.bool(name)?),
                "recursion_depth" => self.recursion_depth(value.usize(name)?),
                "any_json_depth" => self.any_json_depth(value.usize(name)?),
                "lenient" => self.lenient(value.bool(name)?),
                "dfa_state_limit" => self.dfa_state_limit(value.usize(name)?),
                "token_edge_limit" => self.token_edge_limit(value.usize(name)?),
                "time_budget" => self.time_budget(value.seconds(name)?),
                "memory_budget" => self.memory_budget(value.usize(name)?),
                "ref_dir" => self.ref_dir(value.str(name)?),
                _ => return Err(OptionError::unknown(name, "a JSON Schema", OPTION_NAMES)),
            };
        }
        let style = match style {
            None => return Ok(self),
            Some(Style::Flexible) => Whitespace::Flexible { max_whitespace },
            Some(Style::Compact) => Whitespace::Compact,
            Some(Style::Pretty) => Whitespace::Pretty { indent },
        };
        Ok(self.whitespace(style))
    }
}

/// The whitespace styles by name, before their numbers are known.
#[derive(Clone, Copy)]
enum Style {
    Flexible,
    Compact,
    Pretty,
}

const STYLES: [(&str, Style); 3] = [
    ("flexible", Style::Flexible),
    ("compact", Style::Compact),
    ("pretty", Style::Pretty),
];

const ESCAPES: [(&str, Escapes); 2] = [("canonical", Escapes::Canonical), ("any", Escapes::Any)];

#[cfg(test)]
mod tests {
    use super::*;
    use OptionValue::{Bool, Int, Str};

    #[test]
    fn whitespace_takes_its_numbers_in_any_order() {
        let pretty = [("indent", Int(4)), ("whitespace", Str("pretty".into()))];
        let config = Config::new().with_options(&pretty).unwrap();
        assert_eq!(config.get_whitespace(), Whitespace::Pretty { indent: 4 });
        let flexible = [("max_whitespace", Int(3)), ("indent", Int(9))];
        let config = Config::new().with_options(&flexible).unwrap();
        assert_eq!(
            config.get_whitespace(),
            Config::DEFAULT_WHITESPACE,
            "no style named"
        );
        let config = Config::new()
            .with_options(&[
                ("whitespace", Str("flexible".into())),
                ("max_whitespace", Int(3)),
            ])
            .unwrap();
        assert_eq!(
            config.get_whitespace(),
            Whitespace::Flexible { max_whitespace: 3 }
        );
    }

    #[test]
    fn every_name_sets_its_option_and_others_are_refused() {
        let options = [
            ("escapes", Str("any".into())),
            ("additional_properties", Bool(false)),
            ("recursion_depth", Int(5)),
            ("any_json_depth", Int(1)),
            ("lenient", Bool(true)),
            ("dfa_state_limit", Int(77)),
            ("token_edge_limit", Int(88)),
            ("time_budget", OptionValue::Float(1.5)),
            ("memory_budget", Int(99)),
        ];
        let c = Config::new().with_options(&options).unwrap();
        assert_eq!(c.get_escapes(), Escapes::Any);
        assert!(!c.get_additional_properties() && c.get_lenient());
        assert_eq!((c.get_recursion_depth(), c.get_any_json_depth()), (5, 1));
        assert_eq!(
            (c.get_dfa_state_limit(), c.get_token_edge_limit()),
            (77, 88)
        );
        assert_eq!(c.get_time_budget(), std::time::Duration::from_millis(1500));
        assert_eq!(c.get_memory_budget(), 99);
        let e = Config::new()
            .with_options(&[("node_limit", Int(1))])
            .unwrap_err();
        assert!(
            e.to_string().starts_with(
                "unknown option 'node_limit' for a JSON Schema; its options are whitespace, "
            ),
            "{e}"
        );
    }
}
