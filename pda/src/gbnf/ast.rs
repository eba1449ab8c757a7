//! The parsed form of a grammar: named rules whose bodies are regular expressions over
//! bytes, characters and rule references. Positions are kept so that every later error can
//! point at the user's text.

use std::fmt;
use std::sync::Arc;

use fstc_core::bytes::ByteDfa;

use crate::budget::Budget;
use crate::error::PdaError;

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
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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

/// The class's ranges as sorted, merged scalar-value ranges (complemented when negated).
pub(crate) fn scalar_ranges(ranges: &[(u32, u32)], negated: bool) -> Vec<(char, char)> {
    let mut sorted: Vec<(u32, u32)> = ranges.to_vec();
    sorted.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::new();
    for (lo, hi) in sorted {
        match merged.last_mut() {
            Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
            _ => merged.push((lo, hi)),
        }
    }
    if negated {
        let mut gaps = Vec::new();
        let mut next = 0u32;
        for &(lo, hi) in &merged {
            if lo > next {
                gaps.push((next, lo - 1));
            }
            next = hi + 1;
        }
        if next <= 0x10FFFF {
            gaps.push((next, 0x10FFFF));
        }
        merged = gaps;
    }
    // Surrogates are not characters: clip range ends that fall on them.
    merged
        .into_iter()
        .filter_map(|(lo, hi)| {
            let lo = if (0xD800..=0xDFFF).contains(&lo) {
                0xE000
            } else {
                lo
            };
            let hi = if (0xD800..=0xDFFF).contains(&hi) {
                0xD7FF
            } else {
                hi
            };
            Some((char::from_u32(lo)?, char::from_u32(hi)?)).filter(|(l, h)| l <= h)
        })
        .collect()
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

/// Lines and columns of byte offsets of one text, each found in logarithmic time and at
/// most [`Lines::STRIDE`] bytes of counting, in whatever order they are asked (a parser
/// names a rule's start after reading its body): the line starts are found once, and the
/// column at every `STRIDE`-th byte is kept.
pub(crate) struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
    /// Per `STRIDE` bytes: characters from its line's start to byte `k * STRIDE`.
    columns: Vec<u32>,
}

impl<'a> Lines<'a> {
    /// Bytes between two kept columns.
    const STRIDE: usize = 256;

    pub(crate) fn new(text: &'a str) -> Lines<'a> {
        let mut starts = vec![0];
        starts.extend(line_starts(text));
        let mut columns = Vec::with_capacity(text.len() / Lines::STRIDE + 1);
        let mut col = 0u32;
        for (i, &b) in text.as_bytes().iter().enumerate() {
            if i % Lines::STRIDE == 0 {
                columns.push(col);
            }
            col = match b {
                b'\n' => 0,
                _ => col + u32::from(!is_continuation(b)),
            };
        }
        Lines {
            text,
            starts,
            columns,
        }
    }

    /// The bytes the tables of `text` will hold, counted before they are built.
    pub(crate) fn estimate(text: &str) -> usize {
        let newlines = text.bytes().filter(|&b| b == b'\n').count();
        (newlines + 1) * 8 + (text.len() / Lines::STRIDE + 1) * 4
    }

    /// The bytes its tables hold (for a compile's memory budget).
    pub(crate) fn bytes(&self) -> usize {
        self.starts.capacity() * 8 + self.columns.capacity() * 4
    }

    /// The line and column of byte `offset`.
    pub(crate) fn pos(&self, offset: usize) -> Pos {
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.starts[line - 1];
        let block = offset / Lines::STRIDE * Lines::STRIDE;
        let (from, col) = match block > start {
            true => (block, self.columns[block / Lines::STRIDE] as usize),
            false => (start, 0),
        };
        let end = offset.min(self.text.len());
        let counted = (self.text.as_bytes()[from..end].iter())
            .filter(|&&b| !is_continuation(b))
            .count();
        Pos {
            line: line as u32,
            col: (col + counted + 1) as u32,
        }
    }
}

/// Whether `b` continues a UTF-8 character (so does not start one).
fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// The offsets just after each `\n` of `text`.
fn line_starts(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.bytes()
        .enumerate()
        .filter(|&(_, b)| b == b'\n')
        .map(|(i, _)| i + 1)
}

/// The bytes an item just read holds besides its node: a literal's bytes, a class's ranges,
/// a name, the nodes of the repetitions around it (what is inside a group was counted as
/// it was read).
pub(crate) fn item_bytes(mut e: &Expr) -> usize {
    let mut wrapped = 0;
    while let Expr::Repeat { expr, .. } = e {
        wrapped += std::mem::size_of::<Expr>();
        e = expr;
    }
    wrapped
        + match e {
            Expr::Bytes(b) => b.len(),
            Expr::Class { ranges, .. } => ranges.len() * 8,
            Expr::Ref(name, _) => name.len(),
            _ => 0,
        }
}

/// About the bytes the rule bodies `bodies` hold: each node (twice, for the slack of
/// vectors, as [`Reading`] counts) and what it holds, walked with a stack of its own.
pub(crate) fn tree_bytes<'e>(bodies: impl IntoIterator<Item = &'e Expr>) -> usize {
    let mut work: Vec<&Expr> = bodies.into_iter().collect();
    let mut total = 0usize;
    while let Some(e) = work.pop() {
        total = total.saturating_add(2 * std::mem::size_of::<Expr>() + item_bytes(e));
        match e {
            Expr::Seq(parts) | Expr::Alt(parts) => work.extend(parts),
            Expr::Repeat { expr, .. } => work.push(expr),
            _ => {}
        }
    }
    total
}

/// Deeper nesting of groups and repetition operators (`"a"**`) is refused, so that
/// reading and every walk over the rules cannot overflow the call stack.
pub(crate) const MAX_NESTING: usize = 200;

/// `height` (groups and repetition operators on an item's deepest path) with one more
/// around it, or the message refusing that past [`MAX_NESTING`].
pub(crate) fn deeper(height: &mut usize) -> Result<(), String> {
    *height += 1;
    match *height > MAX_NESTING {
        true => Err(format!(
            "groups and repetition operators nested more than {MAX_NESTING} deep"
        )),
        false => Ok(()),
    }
}

/// What a grammar reader has built so far, counted against the compile's budgets as it
/// reads: a text of a few megabytes may hold gigabytes of rules.
pub(crate) struct Reading<'a> {
    budget: &'a Budget,
    /// About the bytes of the items read: their nodes (twice, for the slack of vectors)
    /// and what they hold.
    pub held: usize,
}

impl<'a> Reading<'a> {
    pub(crate) fn new(budget: &'a Budget) -> Reading<'a> {
        Reading { budget, held: 0 }
    }

    /// The budgets' limits on reading.
    pub(crate) fn budget(&self) -> &'a Budget {
        self.budget
    }

    /// Counts one item read holding `heap` bytes besides its node (see [`item_bytes`]),
    /// with `tables` bytes of the reader's own, and polls the budgets (what an item costs
    /// to read is linear in its bytes); `place` names what is being read.
    pub(crate) fn count(
        &mut self,
        heap: usize,
        tables: usize,
        place: impl FnOnce() -> String,
    ) -> Result<(), PdaError> {
        // An allocation of `heap` bytes takes a 16-byte header and rounds up to 16.
        let allocated = match heap {
            0 => 0,
            _ => heap.saturating_add(31) / 16 * 16,
        };
        self.held = (self.held)
            .saturating_add(allocated)
            .saturating_add(2 * std::mem::size_of::<Expr>());
        let held = self.held.saturating_add(tables);
        self.budget.poll(1 + heap / 64, || held, place)
    }
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
