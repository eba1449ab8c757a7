//! Compile options by name, as the Python and C bindings hand them to a front end's
//! `Config::with_options`: one name per option everywhere, the `Config` setter's (`dfa_state_limit`),
//! which is the CLI's with `-` for `_` (`--dfa-state-limit`), Python's keyword argument and
//! the key of the C ABI's JSON options object. The values are read here, so an option out of
//! range is the same error from Python and from C.

use std::fmt;
use std::time::Duration;

/// An option's value as a binding passes it.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionValue {
    /// A flag.
    Bool(bool),
    /// A count, a limit or a size (never negative).
    Int(u64),
    /// A number of seconds.
    Float(f64),
    /// A name (`"compact"`, `"ecmascript"`).
    Str(String),
    /// Token ids.
    Ints(Vec<u64>),
}

/// An option the front end does not take, or a value it cannot take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError(String);

impl OptionError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> OptionError {
        OptionError(message.into())
    }

    /// `name` is none of `known`, the options of `what` (`"a JSON Schema"`).
    pub fn unknown(name: &str, what: &str, known: &[&str]) -> OptionError {
        OptionError(format!(
            "unknown option '{name}' for {what}; its options are {}",
            known.join(", ")
        ))
    }
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OptionError {}

impl OptionValue {
    fn kind(&self) -> &'static str {
        match self {
            OptionValue::Bool(_) => "a boolean",
            OptionValue::Int(_) => "an integer",
            OptionValue::Float(_) => "a number",
            OptionValue::Str(_) => "a string",
            OptionValue::Ints(_) => "a list of integers",
        }
    }

    fn wrong(&self, name: &str, wanted: &str) -> OptionError {
        OptionError(format!(
            "argument '{name}' must be {wanted}, got {}",
            self.kind()
        ))
    }

    /// The value as a flag.
    pub fn bool(&self, name: &str) -> Result<bool, OptionError> {
        match self {
            OptionValue::Bool(b) => Ok(*b),
            _ => Err(self.wrong(name, "a boolean")),
        }
    }

    /// The value as a name.
    pub fn str(&self, name: &str) -> Result<&str, OptionError> {
        match self {
            OptionValue::Str(s) => Ok(s),
            _ => Err(self.wrong(name, "a string")),
        }
    }

    /// The value as one of the named `choices` (`"compact"` → `Whitespace::Compact`).
    pub fn choice<T: Copy>(&self, name: &str, choices: &[(&str, T)]) -> Result<T, OptionError> {
        let given = self.str(name)?;
        if let Some(&(_, v)) = choices.iter().find(|(n, _)| *n == given) {
            return Ok(v);
        }
        let quoted: Vec<String> = choices.iter().map(|(n, _)| format!("{n:?}")).collect();
        let (last, rest) = quoted.split_last().expect("an option has choices");
        Err(OptionError(format!(
            "{name} must be {} or {last}, got {given:?}",
            rest.join(", ")
        )))
    }

    /// The value as a count or size.
    pub fn usize(&self, name: &str) -> Result<usize, OptionError> {
        Ok(int_at_most(self.u64(name)?, name, usize::MAX as u64)? as usize)
    }

    /// The value as a `u64`.
    pub fn u64(&self, name: &str) -> Result<u64, OptionError> {
        match self {
            OptionValue::Int(v) => Ok(*v),
            _ => Err(self.wrong(name, "an integer from 0")),
        }
    }

    /// The value as token ids.
    pub fn u32s(&self, name: &str) -> Result<Vec<u32>, OptionError> {
        match self {
            OptionValue::Ints(ids) => (ids.iter())
                .map(|&id| Ok(int_at_most(id, name, u32::MAX.into())? as u32))
                .collect(),
            _ => Err(self.wrong(name, "a list of token ids")),
        }
    }

    /// The value as a number of seconds (an integer too).
    pub fn seconds(&self, name: &str) -> Result<Duration, OptionError> {
        let seconds = match self {
            OptionValue::Float(s) => *s,
            OptionValue::Int(s) => *s as f64,
            _ => return Err(self.wrong(name, "a number of seconds")),
        };
        Duration::try_from_secs_f64(seconds).map_err(|e| {
            OptionError(format!(
                "argument '{name}' must be a number of seconds from 0, got {seconds} ({e})"
            ))
        })
    }
}

fn int_at_most(v: u64, name: &str, max: u64) -> Result<u64, OptionError> {
    if v <= max {
        Ok(v)
    } else {
        Err(OptionError(format!(
            "argument '{name}' must be an integer from 0 to {max}, got {v}"
        )))
    }
}

/// Options only an eager compile has, and what each does.
const EAGER_ONLY: [(&str, &str); 2] = [
    (
        "token_edge_limit",
        "bounds the token edges composed up front",
    ),
    ("image_tokens", "feeds the IMAGE terminal label"),
];

/// Options only a lazy compile has, and what each does.
const LAZY_ONLY: [(&str, &str); 1] = [(
    "state_work_limit",
    "bounds the work of composing one state of a lazy automaton when a matcher first reaches it",
)];

/// Refuses an option the compile would ignore: one of an eager compile's with `lazy`, or
/// a lazy automaton's without it.
pub fn check_lazy<'a>(
    lazy: bool,
    names: impl IntoIterator<Item = &'a str>,
) -> Result<(), OptionError> {
    for name in names {
        if let (true, Some((_, what))) = (lazy, EAGER_ONLY.iter().find(|(n, _)| *n == name)) {
            return Err(OptionError(format!(
                "{name} cannot be used with lazy=True: it {what}, which only an eager compile \
                 has (compile with lazy=False)"
            )));
        }
        if let (false, Some((_, what))) = (lazy, LAZY_ONLY.iter().find(|(n, _)| *n == name)) {
            return Err(OptionError(format!(
                "{name} needs lazy=True: it {what}; an eager compile composes every state up \
                 front"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_read_or_refused_by_name() {
        let colors = [("red", 1), ("green", 2), ("blue", 3)];
        let red = OptionValue::Str("red".into());
        assert_eq!(red.choice("color", &colors), Ok(1));
        let pink = OptionValue::Str("pink".into()).choice("color", &colors);
        let message = "color must be \"red\", \"green\" or \"blue\", got \"pink\"";
        assert_eq!(pink.unwrap_err().to_string(), message);
        assert_eq!(
            OptionValue::Int(3).str("color").unwrap_err().to_string(),
            "argument 'color' must be a string, got an integer"
        );
        assert_eq!(OptionValue::Int(2).seconds("t"), Ok(Duration::from_secs(2)));
        let negative = OptionValue::Float(-1.0).seconds("time_budget").unwrap_err();
        assert!(negative
            .to_string()
            .starts_with("argument 'time_budget' must be a number of seconds from 0, got -1"));
        let ids = OptionValue::Ints(vec![7, 1 << 40])
            .u32s("image_tokens")
            .unwrap_err();
        assert!(
            ids.to_string()
                .contains("from 0 to 4294967295, got 1099511627776"),
            "{ids}"
        );
    }

    #[test]
    fn an_option_of_the_other_mode_is_refused() {
        assert!(check_lazy(false, ["token_edge_limit", "image_tokens"]).is_ok());
        assert!(check_lazy(true, ["state_work_limit", "dfa_state_limit"]).is_ok());
        let e = check_lazy(true, ["dfa_state_limit", "image_tokens"]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("image_tokens cannot be used with lazy=True"),
            "{e}"
        );
        let e = check_lazy(false, ["state_work_limit"]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("state_work_limit needs lazy=True"),
            "{e}"
        );
    }
}
