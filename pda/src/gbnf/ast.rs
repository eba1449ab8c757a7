//! The parsed form of a grammar: named rules whose bodies are regular expressions over
//! bytes, characters and rule references. Positions are kept so that every later error can
//! point at the user's text.

use std::fmt;
use std::sync::Arc;

use fstc_core::bytes::ByteDfa;

/// A line and column in the grammar text, both from 1 (columns count characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pos {
    /// Line, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.col)
    }
}

/// A rule body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// These bytes, in order (a literal; `""` is the empty string).
    Bytes(Vec<u8>),
    /// One character (UTF-8 encoded) in one of the inclusive code-point ranges, or in none
    /// of them when `negated`. `.` is the negated empty class.
    Class {
        /// Inclusive code-point ranges.
        ranges: Vec<(u32, u32)>,
        /// Whether the class is `[^...]`.
        negated: bool,
    },
    /// A reference to a rule, with where it is written (`None` for built grammars).
    Ref(String, Option<Pos>),
    /// Each part in order.
    Seq(Vec<Expr>),
    /// One of the alternatives.
    Alt(Vec<Expr>),
    /// Any text of a regular language given as a byte DFA (a Lark regex terminal, a
    /// case-insensitive literal), compiled by fstc-regex; it has no terminal edges.
    Dfa(Arc<ByteDfa>),
    /// `min` to `max` (unbounded when `None`) repetitions, with where the operator is.
    Repeat {
        /// The repeated expression.
        expr: Box<Expr>,
        /// At least this many.
        min: u32,
        /// At most this many (`None`: no limit).
        max: Option<u32>,
        /// Where the operator is written.
        at: Option<Pos>,
    },
}

/// One named rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleDef {
    /// The rule's name.
    pub name: String,
    /// Where its name is first written on the left (`None` for built grammars).
    pub at: Option<Pos>,
    /// Its right-hand side (several definitions of one name are one `Alt`).
    pub body: Expr,
}

/// A grammar as parsed: its start rule's name and its rules, each name once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    /// The start rule: `root` when defined, else the first rule.
    pub start: String,
    /// The rules in order of first definition.
    pub rules: Vec<RuleDef>,
}

/// Lines and columns of byte offsets of one text: the line starts are found once, and a
/// column is counted from the last position asked on the same line when it lies before, so
/// a parser asking at increasing offsets costs linear time in all.
pub(crate) struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
    last: std::cell::Cell<(usize, Pos)>,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(text: &'a str) -> Lines<'a> {
        let mut starts = vec![0];
        starts.extend(line_starts(text));
        Lines {
            text,
            starts,
            last: std::cell::Cell::new((0, Pos { line: 1, col: 1 })),
        }
    }

    /// The line and column of byte `offset`.
    pub(crate) fn pos(&self, offset: usize) -> Pos {
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.starts[line - 1];
        let (last, at) = self.last.get();
        let (from, col) = if at.line as usize == line && (start..=offset).contains(&last) {
            (last, at.col as usize)
        } else {
            (start, 1)
        };
        let col = col + self.text[from..offset].chars().count();
        let pos = Pos {
            line: line as u32,
            col: col as u32,
        };
        self.last.set((offset, pos));
        pos
    }
}

/// The offsets just after each `\n` of `text`.
fn line_starts(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.bytes()
        .enumerate()
        .filter(|&(_, b)| b == b'\n')
        .map(|(i, _)| i + 1)
}

/// `rule `x` (line 3, column 1)`: how messages name a rule.
pub(crate) fn fmt_rule_at(name: &str, at: Option<Pos>) -> String {
    match at {
        Some(p) => format!("rule `{name}` ({p})"),
        None => format!("rule `{name}`"),
    }
}

impl Rules {
    /// The rules of a [`crate::Grammar`] built in code or read from the arrow syntax:
    /// each nonterminal's alternatives become one `Alt`.
    pub fn from_grammar(grammar: &crate::Grammar) -> Rules {
        let mut alts: Vec<(String, Vec<Expr>)> = Vec::new();
        for (lhs, rhs) in grammar.rules() {
            let seq = Expr::Seq(
                rhs.iter()
                    .map(|s| match s {
                        crate::Symbol::Lit(b) => Expr::Bytes(b.clone()),
                        crate::Symbol::Nt(n) => Expr::Ref(n.clone(), None),
                    })
                    .collect(),
            );
            match alts.iter_mut().find(|(name, _)| name == lhs) {
                Some((_, list)) => list.push(seq),
                None => alts.push((lhs.to_string(), vec![seq])),
            }
        }
        Rules {
            start: grammar.start().to_string(),
            rules: alts
                .into_iter()
                .map(|(name, list)| RuleDef {
                    name,
                    at: None,
                    body: Expr::Alt(list),
                })
                .collect(),
        }
    }

    /// The rule named `name`.
    pub fn get(&self, name: &str) -> Option<&RuleDef> {
        self.rules.iter().find(|r| r.name == name)
    }
}
