//! Keyword arguments: `max_tokens(n=200)`, `repeat(regex("a"), min=1, max=3)`,
//! `json("s.json", whitespace="pretty")`. A keyword names a parameter of the call (then
//! it fills that place, as in Python) or, for `json` and `json_schema`, one of the
//! schema options of `compile json-schema`, which then hold for that schema only.
//! [`build`] makes a call's node from what a reader found (both readers go through it,
//! so both check the same things), and [`Expr::option`] sets one keyword from Rust.

use crate::error::ExprError;
use crate::tree::{Arg, Expr, Loc, Node, Options, Scalar, Shape, FUNCTIONS};

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

/// The node the call `name(args)` at `loc` makes, or what is wrong with it.
pub(crate) fn build(name: &str, args: CallArgs, loc: &Loc) -> Result<Node, ExprError> {
    let Some(&(_, usage, params)) = FUNCTIONS.iter().find(|(n, _, _)| *n == name) else {
        let names: Vec<&str> = FUNCTIONS.iter().map(|(n, _, _)| *n).collect();
        return Err(loc.error(format!(
            "unknown function `{name}`; the functions are {}",
            names.join(", ")
        )));
    };
    let schema = matches!(name, "json" | "json_schema");
    let (args, options) = resolve(name, usage, params, schema, args, loc)?;
    let shape = Shape { usage, loc };
    Ok(match name {
        "regex" => Node::Regex(shape.one_str(args)?),
        "text" => Node::Text(shape.one_str(args)?),
        "json" => Node::Json(shape.one_str(args)?, options),
        "json_schema" => Node::JsonSchema(shape.one_str(args)?, options),
        "automaton" => Node::Automaton(shape.one_str(args)?),
        "grammar" => Node::Grammar(shape.one_str(args)?),
        "grammar_file" => Node::GrammarFile(shape.one_str(args)?),
        "fst" => shape.fst(args)?,
        "max_tokens" => {
            let [n] = shape.fixed::<1>(args)?;
            Node::MaxTokens(shape.int(n)?)
        }
        "difference" => {
            let [a, b] = shape.fixed::<2>(args)?;
            Node::Difference(Box::new(shape.expr(a)?), Box::new(shape.expr(b)?))
        }
        "complement" | "star" => {
            let [a] = shape.fixed::<1>(args)?;
            let a = Box::new(shape.expr(a)?);
            if name == "star" {
                Node::Star(a)
            } else {
                Node::Complement(a)
            }
        }
        "repeat" => shape.repeat(args)?,
        _ => {
            if args.len() < 2 {
                return Err(shape.arity(args.len()));
            }
            let items = args
                .into_iter()
                .map(|a| shape.expr(a))
                .collect::<Result<Vec<_>, _>>()?;
            match name {
                "intersect" => Node::Intersect(items),
                "union" => Node::Union(items),
                _ => Node::Concat(items),
            }
        }
    })
}

impl Expr {
    /// The expression with schema option `name` (one of `compile json-schema`'s, spelled
    /// as in the text form: `whitespace`, `indent`, `escapes`, ...) set to `value`, for
    /// this `json` or `json_schema` call only; an error for another call, an unknown
    /// option or a wrong value.
    pub fn option(self, name: &str, value: impl Into<Scalar>) -> Result<Expr, ExprError> {
        let loc = self.loc.clone().unwrap_or(Loc::Pointer(String::new()));
        let arg = match value.into() {
            Scalar::Str(s) => Arg::Str(s, loc.clone()),
            Scalar::Int(n) => Arg::Int(n, loc.clone()),
            Scalar::Bool(b) => Arg::Bool(b, loc.clone()),
        };
        let (call, path, mut named) = match self.node {
            Node::Json(path, o) => ("json", path, o),
            Node::JsonSchema(text, o) => ("json_schema", text, o),
            other => {
                let (function, _) = other.spell();
                return Err(loc.error(format!("`{function}` takes no schema options")));
            }
        };
        named.retain(|(k, _)| *k != name);
        let mut args = CallArgs {
            positional: vec![Arg::Str(path, loc.clone())],
            named: named
                .into_iter()
                .map(|(k, v)| (k.to_string(), loc.clone(), scalar_arg(v, &loc)))
                .collect(),
        };
        args.named.push((name.to_string(), loc.clone(), arg));
        let node = build(call, args, &loc)?;
        Ok(Expr {
            node,
            loc: self.loc,
        })
    }
}

fn scalar_arg(v: Scalar, loc: &Loc) -> Arg {
    match v {
        Scalar::Str(s) => Arg::Str(s, loc.clone()),
        Scalar::Int(n) => Arg::Int(n, loc.clone()),
        Scalar::Bool(b) => Arg::Bool(b, loc.clone()),
    }
}
