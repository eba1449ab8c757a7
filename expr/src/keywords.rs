//! Keyword arguments: `max_tokens(n=200)`, `repeat(regex("a"), min=1, max=3)`,
//! `json("s.json", whitespace="pretty")`. A keyword names a parameter of the call (then
//! it fills that place, as in Python) or, for `json` and `json_schema`, one of the
//! schema options of `compile json-schema`, which then hold for that schema only.

use crate::error::ExprError;
use crate::tree::{Arg, Loc};

/// The schema options a `json` or `json_schema` call takes, in their spelling order.
pub(crate) const SCHEMA_OPTIONS: &[(&str, Kind)] = &[
    (
        "whitespace",
        Kind::Choice(&["compact", "flexible", "pretty"]),
    ),
    ("max_whitespace", Kind::Int),
    ("indent", Kind::Int),
    ("escapes", Kind::Choice(&["canonical", "any"])),
    ("additional_properties", Kind::Bool),
    ("recursion_depth", Kind::Int),
    ("any_json_depth", Kind::Int),
    ("lenient", Kind::Bool),
];

/// What an option's value must be.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    Choice(&'static [&'static str]),
    Int,
    Bool,
}

/// A keyword argument's value: a string, a non-negative integer or a boolean.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// A string (`"pretty"`).
    Str(String),
    /// A non-negative integer.
    Int(u64),
    /// `true` or `false`.
    Bool(bool),
}

impl From<&str> for Scalar {
    fn from(s: &str) -> Scalar {
        Scalar::Str(s.to_string())
    }
}

impl From<u64> for Scalar {
    fn from(n: u64) -> Scalar {
        Scalar::Int(n)
    }
}

impl From<bool> for Scalar {
    fn from(b: bool) -> Scalar {
        Scalar::Bool(b)
    }
}

/// The schema options of one call, in [`SCHEMA_OPTIONS`] order, each at most once.
pub(crate) type Options = Vec<(&'static str, Scalar)>;

/// A call's arguments as a reader found them: positional ones, then keywords (with where
/// each keyword's name is).
#[derive(Default)]
pub(crate) struct CallArgs {
    pub(crate) positional: Vec<Arg>,
    pub(crate) named: Vec<(String, Loc, Arg)>,
}

/// The positional arguments of a call to `name` with keywords put in the places of the
/// parameters they name (`params`), and the schema options given (when `options`).
pub(crate) fn resolve(
    name: &str,
    usage: &str,
    params: &[&str],
    options: bool,
    args: CallArgs,
    loc: &Loc,
) -> Result<(Vec<Arg>, Options), ExprError> {
    let mut slots: Vec<Option<Arg>> = args.positional.into_iter().map(Some).collect();
    let mut given: Vec<(&'static str, Loc, Scalar)> = Vec::new();
    for (key, at, value) in args.named {
        if let Some(i) = params.iter().position(|p| *p == key) {
            if slots.len() <= i {
                slots.resize_with(i + 1, || None);
            }
            if slots[i].is_some() {
                return Err(at.error(format!("`{key}` is given twice in {usage}")));
            }
            slots[i] = Some(value);
            continue;
        }
        let option = SCHEMA_OPTIONS.iter().find(|(o, _)| options && *o == key);
        let Some(&(option, kind)) = option else {
            return Err(at.error(unknown(name, &key, params, options)));
        };
        if given.iter().any(|(o, _, _)| *o == option) {
            return Err(at.error(format!("`{key}` is given twice in {usage}")));
        }
        given.push((option, at.clone(), scalar(option, kind, value, &at)?));
    }
    if let Some(i) = slots.iter().position(Option::is_none) {
        return Err(loc.error(format!("`{}` is missing in {usage}", params[i])));
    }
    check_whitespace(&given)?;
    given.sort_by_key(|(o, _, _)| SCHEMA_OPTIONS.iter().position(|(p, _)| p == o));
    let options = given.into_iter().map(|(o, _, v)| (o, v)).collect();
    Ok((slots.into_iter().flatten().collect(), options))
}

/// The message for keyword `key`, which `name` does not take.
fn unknown(name: &str, key: &str, params: &[&str], options: bool) -> String {
    let mut keywords: Vec<&str> = params.to_vec();
    if options {
        keywords.extend(SCHEMA_OPTIONS.iter().map(|(o, _)| *o));
    }
    if keywords.is_empty() {
        return format!("unknown keyword `{key}`: `{name}` takes no keywords");
    }
    format!(
        "unknown keyword `{key}` of `{name}`; its keywords are {}",
        keywords.join(", ")
    )
}

/// The value of option `option` as `kind` says it must be.
fn scalar(option: &str, kind: Kind, value: Arg, at: &Loc) -> Result<Scalar, ExprError> {
    let wrong = |what: &str| at.error(format!("`{option}` takes {what}"));
    match (kind, value) {
        (Kind::Choice(choices), Arg::Str(s, _)) if choices.contains(&s.as_str()) => {
            Ok(Scalar::Str(s))
        }
        (Kind::Choice(choices), _) => Err(wrong(&format!("\"{}\"", choices.join("\", \"")))),
        (Kind::Int, Arg::Int(n, _)) => Ok(Scalar::Int(n)),
        (Kind::Int, _) => Err(wrong("a non-negative integer")),
        (Kind::Bool, Arg::Bool(b, _)) => Ok(Scalar::Bool(b)),
        (Kind::Bool, _) => Err(wrong("true or false")),
    }
}

/// `indent` is for the pretty style, `max_whitespace` for the flexible one.
fn check_whitespace(given: &[(&'static str, Loc, Scalar)]) -> Result<(), ExprError> {
    let style = given.iter().find_map(|(o, _, v)| match (*o, v) {
        ("whitespace", Scalar::Str(s)) => Some(s.as_str()),
        _ => None,
    });
    for (option, at, _) in given {
        let needs = match *option {
            "indent" => "pretty",
            "max_whitespace" => "flexible",
            _ => continue,
        };
        let other = if needs == "pretty" {
            "max_whitespace"
        } else {
            "indent"
        };
        let clash = given.iter().any(|(o, _, _)| *o == other);
        if style.is_some_and(|s| s != needs) || clash {
            return Err(at.error(format!(
                "`{option}` is for whitespace=\"{needs}\" only (it sets that style when \
                 whitespace is not given)"
            )));
        }
    }
    Ok(())
}
