//! The expression tree: its builder, the one table of functions (names, arguments,
//! checks), and its two spellings, text ([`fmt::Display`]) and JSON ([`Expr::to_json`]).
//! Both readers hand each call to [`crate::keywords::build`], so both check the same things.

use std::fmt;

use fstc_core::ops::openfst::Labels;
use serde_json::Value;

use crate::error::ExprError;

/// Deepest nesting of calls a reader or the compiler takes (deeper trees are refused,
/// not overflowed).
pub const MAX_DEPTH: usize = 100;

/// Largest count of `repeat` (each repetition is a concatenation).
pub const MAX_REPEAT: u64 = 1000;

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

/// An expression over constraints. Leaves are byte languages (`regex`, `text`, `json`,
/// `json_schema`, `fst`) or token languages (`max_tokens`, `automaton`); inner nodes are
/// the boolean operations (`intersect`, `union`, `difference`, `complement`) and the
/// rational ones (`concat`, `star`, `repeat`), which need byte languages. Equality
/// compares the trees, not where they were read from.
#[derive(Clone, Debug)]
pub struct Expr {
    pub(crate) node: Node,
    pub(crate) loc: Option<Loc>,
}

impl PartialEq for Expr {
    fn eq(&self, other: &Expr) -> bool {
        self.node == other.node
    }
}

impl Eq for Expr {}

/// Where a node was read: a position in the text form or a pointer into the JSON form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Loc {
    Text {
        offset: usize,
        line: usize,
        column: usize,
    },
    Pointer(String),
}

impl Loc {
    pub(crate) fn error(&self, message: impl Into<String>) -> ExprError {
        match self {
            Loc::Text {
                offset,
                line,
                column,
            } => {
                let at = if *line == 1 {
                    format!("column {column}")
                } else {
                    format!("line {line}, column {column}")
                };
                ExprError::new(at, Some(*offset), message)
            }
            Loc::Pointer(p) => ExprError::new(p.clone(), None, message),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Node {
    Regex(String),
    Text(String),
    Json(String, Options),
    JsonSchema(String, Options),
    Fst(String, Labels),
    Automaton(String),
    Grammar(String),
    GrammarFile(String),
    MaxTokens(u64),
    Intersect(Vec<Expr>),
    Union(Vec<Expr>),
    Difference(Box<Expr>, Box<Expr>),
    Complement(Box<Expr>),
    Concat(Vec<Expr>),
    Star(Box<Expr>),
    Repeat(Box<Expr>, u64, u64),
}

/// The functions: how each is called (for error messages) and the names of its
/// parameters (keywords may name them; none is a function's name, so that the JSON form
/// tells keywords from the call); `json` and `json_schema` also take the schema options.
pub(crate) const FUNCTIONS: &[(&str, &str, &[&str])] = &[
    ("regex", "regex(PATTERN)", &["pattern"]),
    ("text", "text(LITERAL)", &["literal"]),
    ("json", "json(SCHEMA_FILE, OPTION=VALUE, ...)", &["file"]),
    (
        "json_schema",
        "json_schema(SCHEMA_TEXT, OPTION=VALUE, ...)",
        &["schema"],
    ),
    (
        "fst",
        "fst(FILE) or fst(FILE, \"fstc\"|\"bytes\"|\"code-points\")",
        &["file", "labels"],
    ),
    ("automaton", "automaton(FSTC_FILE)", &["file"]),
    ("grammar", "grammar(GRAMMAR_TEXT)", &["source"]),
    ("grammar_file", "grammar_file(GRAMMAR_FILE)", &["file"]),
    ("max_tokens", "max_tokens(N)", &["n"]),
    ("intersect", "intersect(E, E, ...)", &[]),
    ("union", "union(E, E, ...)", &[]),
    ("difference", "difference(E, E)", &["a", "b"]),
    ("complement", "complement(E)", &["expr"]),
    ("concat", "concat(E, E, ...)", &[]),
    ("star", "star(E)", &["expr"]),
    ("repeat", "repeat(E, MIN, MAX)", &["expr", "min", "max"]),
];

/// Whether `name` is a function.
pub(crate) fn is_function(name: &str) -> bool {
    FUNCTIONS.iter().any(|(n, _, _)| *n == name)
}

/// An argument as a reader found it.
pub(crate) enum Arg {
    Expr(Expr),
    Str(String, Loc),
    Int(u64, Loc),
    Bool(bool, Loc),
}

impl Arg {
    fn loc(&self) -> Option<&Loc> {
        match self {
            Arg::Expr(e) => e.loc.as_ref(),
            Arg::Str(_, l) | Arg::Int(_, l) | Arg::Bool(_, l) => Some(l),
        }
    }
}

/// An argument of a node, for spelling it.
pub(crate) enum ArgRef<'a> {
    Expr(&'a Expr),
    Str(&'a str),
    Int(u64),
    Bool(bool),
}

impl<'a> From<&'a Scalar> for ArgRef<'a> {
    fn from(v: &'a Scalar) -> ArgRef<'a> {
        match v {
            Scalar::Str(s) => ArgRef::Str(s),
            Scalar::Int(n) => ArgRef::Int(*n),
            Scalar::Bool(b) => ArgRef::Bool(*b),
        }
    }
}

/// The checks of a call's arguments against its usage.
pub(crate) struct Shape<'a> {
    pub(crate) usage: &'a str,
    pub(crate) loc: &'a Loc,
}

impl Shape<'_> {
    pub(crate) fn arity(&self, got: usize) -> ExprError {
        self.loc.error(format!(
            "{} arguments where the call is {}",
            got, self.usage
        ))
    }

    pub(crate) fn fixed<const N: usize>(&self, args: Vec<Arg>) -> Result<[Arg; N], ExprError> {
        let got = args.len();
        args.try_into().map_err(|_| self.arity(got))
    }

    pub(crate) fn at<'b>(&'b self, arg: &'b Arg) -> &'b Loc {
        arg.loc().unwrap_or(self.loc)
    }

    pub(crate) fn expr(&self, arg: Arg) -> Result<Expr, ExprError> {
        match arg {
            Arg::Expr(e) => Ok(e),
            other => Err(self.at(&other).error(format!(
                "expected an expression (a call such as regex(\"...\")) in {}",
                self.usage
            ))),
        }
    }

    pub(crate) fn string(&self, arg: Arg) -> Result<String, ExprError> {
        match arg {
            Arg::Str(s, _) => Ok(s),
            other => Err(self
                .at(&other)
                .error(format!("expected a quoted string in {}", self.usage))),
        }
    }

    pub(crate) fn int(&self, arg: Arg) -> Result<u64, ExprError> {
        match arg {
            Arg::Int(n, _) => Ok(n),
            other => Err(self
                .at(&other)
                .error(format!("expected a non-negative integer in {}", self.usage))),
        }
    }

    pub(crate) fn one_str(&self, args: Vec<Arg>) -> Result<String, ExprError> {
        let [a] = self.fixed::<1>(args)?;
        self.string(a)
    }

    pub(crate) fn fst(&self, mut args: Vec<Arg>) -> Result<Node, ExprError> {
        if args.len() == 1 {
            args.push(Arg::Str("fstc".to_string(), self.loc.clone()));
        }
        let [path, labels] = self.fixed::<2>(args)?;
        let labels_at = self.at(&labels).clone();
        let labels = match self.string(labels)?.as_str() {
            "fstc" => Labels::Fstc,
            "bytes" => Labels::Bytes,
            "code-points" => Labels::CodePoints,
            other => {
                return Err(labels_at.error(format!(
                    "labels {other:?}: expected \"fstc\", \"bytes\" or \"code-points\""
                )))
            }
        };
        Ok(Node::Fst(self.string(path)?, labels))
    }

    pub(crate) fn repeat(&self, args: Vec<Arg>) -> Result<Node, ExprError> {
        let [a, min, max] = self.fixed::<3>(args)?;
        let max_at = self.at(&max).clone();
        let (a, min, max) = (self.expr(a)?, self.int(min)?, self.int(max)?);
        if min > max || max > MAX_REPEAT {
            return Err(max_at.error(format!(
                "repeat counts {min}..{max}: need MIN <= MAX <= {MAX_REPEAT}"
            )));
        }
        Ok(Node::Repeat(Box::new(a), min, max))
    }
}

impl Node {
    /// The keyword arguments, as both spellings write them after the others.
    pub(crate) fn keywords(&self) -> Vec<(&'static str, ArgRef<'_>)> {
        match self {
            Node::Json(_, o) | Node::JsonSchema(_, o) => {
                o.iter().map(|(k, v)| (*k, ArgRef::from(v))).collect()
            }
            _ => Vec::new(),
        }
    }

    /// The function name and the arguments, as both spellings write them.
    pub(crate) fn spell(&self) -> (&'static str, Vec<ArgRef<'_>>) {
        use ArgRef::{Expr as E, Int as I, Str as S};
        match self {
            Node::Regex(s) => ("regex", vec![S(s)]),
            Node::Text(s) => ("text", vec![S(s)]),
            Node::Json(s, _) => ("json", vec![S(s)]),
            Node::JsonSchema(s, _) => ("json_schema", vec![S(s)]),
            Node::Automaton(s) => ("automaton", vec![S(s)]),
            Node::Grammar(s) => ("grammar", vec![S(s)]),
            Node::GrammarFile(s) => ("grammar_file", vec![S(s)]),
            Node::Fst(s, Labels::Fstc) => ("fst", vec![S(s)]),
            Node::Fst(s, labels) => {
                let l = if *labels == Labels::Bytes {
                    "bytes"
                } else {
                    "code-points"
                };
                ("fst", vec![S(s), S(l)])
            }
            Node::MaxTokens(n) => ("max_tokens", vec![I(*n)]),
            Node::Intersect(v) => ("intersect", v.iter().map(E).collect()),
            Node::Union(v) => ("union", v.iter().map(E).collect()),
            Node::Concat(v) => ("concat", v.iter().map(E).collect()),
            Node::Difference(a, b) => ("difference", vec![E(a), E(b)]),
            Node::Complement(a) => ("complement", vec![E(a)]),
            Node::Star(a) => ("star", vec![E(a)]),
            Node::Repeat(a, min, max) => ("repeat", vec![E(a), I(*min), I(*max)]),
        }
    }
}

/// The JSON pointer of argument `i` of a call `name` with `n` arguments in the JSON
/// form (one argument is written bare, more as an array).
pub(crate) fn child_pointer(parent: &str, name: &str, i: usize, n: usize) -> String {
    if n == 1 {
        format!("{parent}/{name}")
    } else {
        format!("{parent}/{name}/{i}")
    }
}

fn node(node: Node) -> Expr {
    Expr { node, loc: None }
}

/// The builder: one constructor per function.
impl Expr {
    /// Texts matching a regex (fstc's dialect: the `regex` crate's syntax, full match).
    pub fn regex(pattern: impl Into<String>) -> Expr {
        node(Node::Regex(pattern.into()))
    }

    /// The one text `literal`.
    pub fn text(literal: impl Into<String>) -> Expr {
        node(Node::Text(literal.into()))
    }

    /// The JSON texts the schema in the file at `path` admits.
    pub fn json_file(path: impl Into<String>) -> Expr {
        node(Node::Json(path.into(), Options::new()))
    }

    /// The JSON texts the schema `schema` (JSON text) admits.
    pub fn json_schema(schema: impl Into<String>) -> Expr {
        node(Node::JsonSchema(schema.into(), Options::new()))
    }

    /// The token PDA of a grammar (GBNF, Lark, EBNF or the paper's notation, as
    /// `fstc compile grammar` reads it): token-level, so only `intersect` with token FSAs
    /// (or a `difference` from it) takes it.
    pub fn grammar(text: impl Into<String>) -> Expr {
        node(Node::Grammar(text.into()))
    }

    /// [`Expr::grammar`] of a grammar file.
    pub fn grammar_file(path: impl Into<String>) -> Expr {
        node(Node::GrammarFile(path.into()))
    }

    /// The byte texts of an OpenFst acceptor file (binary or AT&T text).
    pub fn fst(path: impl Into<String>, labels: Labels) -> Expr {
        node(Node::Fst(path.into(), labels))
    }

    /// The token sequences of a compiled token FSA file (same vocabulary required).
    pub fn automaton(path: impl Into<String>) -> Expr {
        node(Node::Automaton(path.into()))
    }

    /// Every sequence of at most `n` text tokens.
    pub fn max_tokens(n: u64) -> Expr {
        node(Node::MaxTokens(n))
    }

    /// What every item accepts (two or more items).
    pub fn intersect(items: impl IntoIterator<Item = Expr>) -> Expr {
        node(Node::Intersect(items.into_iter().collect()))
    }

    /// What any item accepts (two or more items).
    pub fn union(items: impl IntoIterator<Item = Expr>) -> Expr {
        node(Node::Union(items.into_iter().collect()))
    }

    /// What `a` accepts and `b` does not.
    pub fn difference(a: Expr, b: Expr) -> Expr {
        node(Node::Difference(Box::new(a), Box::new(b)))
    }

    /// Every token sequence (every byte text) `a` does not accept.
    pub fn complement(a: Expr) -> Expr {
        node(Node::Complement(Box::new(a)))
    }

    /// The items' texts one after the other (two or more byte languages).
    pub fn concat(items: impl IntoIterator<Item = Expr>) -> Expr {
        node(Node::Concat(items.into_iter().collect()))
    }

    /// Zero or more texts of `a`, one after the other.
    pub fn star(a: Expr) -> Expr {
        node(Node::Star(Box::new(a)))
    }

    /// `min` to `max` texts of `a`, one after the other.
    pub fn repeat(a: Expr, min: u64, max: u64) -> Expr {
        node(Node::Repeat(Box::new(a), min, max))
    }

    /// The JSON form: each call one object `{"name": argument}`, or `{"name": [arguments]}`
    /// for any other count than one.
    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }

    fn to_value(&self) -> Value {
        let (name, args) = self.node.spell();
        let mut values: Vec<Value> = args.into_iter().map(json_value).collect();
        let value = if values.len() == 1 {
            values.pop().unwrap_or(Value::Null)
        } else {
            Value::Array(values)
        };
        let mut object = serde_json::Map::new();
        object.insert(name.to_string(), value);
        for (key, v) in self.node.keywords() {
            object.insert(key.to_string(), json_value(v));
        }
        Value::Object(object)
    }
}

fn json_value(a: ArgRef<'_>) -> Value {
    match a {
        ArgRef::Expr(e) => e.to_value(),
        ArgRef::Str(s) => Value::String(s.to_string()),
        ArgRef::Int(n) => Value::from(n),
        ArgRef::Bool(b) => Value::Bool(b),
    }
}

/// The text form, strings written as JSON strings.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, args) = self.node.spell();
        write!(f, "{name}(")?;
        let keywords = self.node.keywords().into_iter().map(|(k, v)| (Some(k), v));
        for (i, (key, a)) in args
            .into_iter()
            .map(|a| (None, a))
            .chain(keywords)
            .enumerate()
        {
            if i > 0 {
                f.write_str(", ")?;
            }
            if let Some(key) = key {
                write!(f, "{key}=")?;
            }
            match a {
                ArgRef::Expr(e) => write!(f, "{e}")?,
                ArgRef::Str(s) => write!(f, "{}", Value::String(s.to_string()))?,
                ArgRef::Int(n) => write!(f, "{n}")?,
                ArgRef::Bool(b) => write!(f, "{b}")?,
            }
        }
        f.write_str(")")
    }
}

impl std::str::FromStr for Expr {
    type Err = ExprError;

    fn from_str(text: &str) -> Result<Expr, ExprError> {
        Expr::parse_any(text)
    }
}
