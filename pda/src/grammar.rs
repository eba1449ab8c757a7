//! Context-free grammars over bytes, the input of the PDA construction, and their text syntax.
//!
//! A grammar is a start nonterminal and a list of rules `A -> X1 ... Xn` whose symbols are
//! nonterminals or byte-string literals. Several rules with the same left-hand side are the
//! alternatives of that nonterminal. Nothing is checked when rules are added: the checks that
//! matter (unknown nonterminals, left recursion, determinism) need the whole grammar and are
//! done by [`crate::Pda::from_grammar`].
//!
//! # Text syntax
//!
//! ```text
//! # a^n b^n
//! S -> "ab" | "a" S "b" ;
//! ```
//!
//! - A rule is `Name -> alternative | alternative ... ;`. The first rule's left-hand side is
//!   the start nonterminal. A nonterminal may have several rules; their alternatives add up.
//! - A name is an ASCII letter or `_` followed by letters, digits and `_`.
//! - A literal is double-quoted. It stands for the UTF-8 bytes of its text; escapes are
//!   `\"`, `\\`, `\n`, `\r`, `\t` and `\xHH` (any byte, so literals can hold non-UTF-8 bytes).
//! - `""` is the empty string; an alternative must have at least one symbol, so write `""`
//!   for an empty alternative (an empty alternative is usually a typo).
//! - `#` starts a comment that runs to the end of the line.
//!
//! Errors name the line and column (both from 1) and what is wrong.

use std::collections::HashSet;
use std::fmt;

use crate::error::{PdaError, PdaErrorKind};

/// One symbol of a rule's right-hand side.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Symbol {
    /// A byte string matched literally (may be empty).
    Lit(Vec<u8>),
    /// A nonterminal, by name.
    Nt(String),
}

impl Symbol {
    /// A literal from anything that is bytes (`"ab"`, `b"\xff"`, a `Vec<u8>`).
    pub fn lit(bytes: impl AsRef<[u8]>) -> Symbol {
        Symbol::Lit(bytes.as_ref().to_vec())
    }

    /// A nonterminal reference.
    pub fn nt(name: &str) -> Symbol {
        Symbol::Nt(name.to_string())
    }
}

/// A context-free grammar over bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grammar {
    start: String,
    rules: Vec<(String, Vec<Symbol>)>,
}

impl Grammar {
    /// An empty grammar whose start nonterminal is `start`.
    pub fn new(start: &str) -> Grammar {
        Grammar {
            start: start.to_string(),
            rules: Vec::new(),
        }
    }

    /// Adds the rule `lhs -> rhs`. An empty `rhs` derives the empty string.
    pub fn add_rule(&mut self, lhs: &str, rhs: &[Symbol]) -> &mut Grammar {
        self.rules.push((lhs.to_string(), rhs.to_vec()));
        self
    }

    /// The start nonterminal.
    pub fn start(&self) -> &str {
        &self.start
    }

    /// The rules in the order they were added.
    pub fn rules(&self) -> impl Iterator<Item = (&str, &[Symbol])> {
        self.rules.iter().map(|(l, r)| (l.as_str(), r.as_slice()))
    }

    /// Parses the text syntax described in the module documentation.
    ///
    /// Unknown nonterminals are reported here, at their first use, because only the parser
    /// knows where they are.
    pub fn parse(text: &str) -> Result<Grammar, PdaError> {
        Parser::new(text).grammar()
    }
}

/// Formats a literal in the text syntax (quoted, escaped).
pub(crate) fn fmt_literal(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    for &b in bytes {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02X}")),
        }
    }
    out.push('"');
    out
}

/// Formats one rule in the text syntax, without the final `;`.
pub(crate) fn fmt_rule(lhs: &str, rhs: &[Symbol]) -> String {
    let mut out = format!("{lhs} ->");
    if rhs.is_empty() {
        out.push_str(" \"\"");
    }
    for sym in rhs {
        out.push(' ');
        match sym {
            Symbol::Lit(bytes) => out.push_str(&fmt_literal(bytes)),
            Symbol::Nt(name) => out.push_str(name),
        }
    }
    out
}

impl fmt::Display for Grammar {
    /// The grammar in the text syntax, one rule per line; `Grammar::parse` reads it back
    /// (the start nonterminal's rules come first so that it stays the start).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let first = self.rules.iter().filter(|(l, _)| *l == self.start);
        let rest = self.rules.iter().filter(|(l, _)| *l != self.start);
        for (lhs, rhs) in first.chain(rest) {
            writeln!(f, "{} ;", fmt_rule(lhs, rhs))?;
        }
        Ok(())
    }
}

struct Parser<'a> {
    text: &'a [u8],
    pos: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Parser<'a> {
        Parser {
            text: text.as_bytes(),
            pos: 0,
        }
    }

    /// Line and column (from 1, columns in characters) of a byte offset.
    fn line_col(&self, offset: usize) -> (usize, usize) {
        let before = &self.text[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        let col = String::from_utf8_lossy(&self.text[line_start..offset])
            .chars()
            .count()
            + 1;
        (line, col)
    }

    fn error(&self, offset: usize, kind: PdaErrorKind, what: &str) -> PdaError {
        let (line, col) = self.line_col(offset);
        PdaError::new(kind, format!("grammar line {line}, column {col}: {what}"))
    }

    fn skip_space(&mut self) {
        while self.pos < self.text.len() {
            match self.text[self.pos] {
                b' ' | b'\t' | b'\r' | b'\n' => self.pos += 1,
                b'#' => {
                    while self.pos < self.text.len() && self.text[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.text.get(self.pos).copied()
    }

    fn describe(&self, offset: usize) -> String {
        match std::str::from_utf8(&self.text[offset..]) {
            Ok(s) => match s.chars().next() {
                Some(c) => format!("`{c}`"),
                None => "the end of the text".to_string(),
            },
            Err(_) => format!("byte 0x{:02X}", self.text[offset]),
        }
    }

    fn name(&mut self) -> Option<(String, usize)> {
        let start = self.pos;
        match self.text.get(self.pos) {
            Some(b) if b.is_ascii_alphabetic() || *b == b'_' => {}
            _ => return None,
        }
        while self
            .text
            .get(self.pos)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            self.pos += 1;
        }
        let name = String::from_utf8_lossy(&self.text[start..self.pos]).into_owned();
        Some((name, start))
    }

    fn literal(&mut self) -> Result<Vec<u8>, PdaError> {
        let open = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let Some(&b) = self.text.get(self.pos) else {
                return Err(self.error(
                    open,
                    PdaErrorKind::Syntax,
                    "unterminated string: no closing `\"`",
                ));
            };
            match b {
                b'"' => {
                    self.pos += 1;
                    return Ok(out);
                }
                b'\n' => {
                    return Err(self.error(
                        open,
                        PdaErrorKind::Syntax,
                        "unterminated string: the line ends before the closing `\"` (write \\n for a newline)",
                    ))
                }
                b'\\' => {
                    let esc_at = self.pos;
                    let Some(&e) = self.text.get(self.pos + 1) else {
                        return Err(self.error(
                            open,
                            PdaErrorKind::Syntax,
                            "unterminated string: no closing `\"`",
                        ));
                    };
                    self.pos += 2;
                    match e {
                        b'"' => out.push(b'"'),
                        b'\\' => out.push(b'\\'),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'x' => {
                            let hex = self
                                .text
                                .get(self.pos..self.pos + 2)
                                .and_then(|h| std::str::from_utf8(h).ok())
                                .and_then(|h| u8::from_str_radix(h, 16).ok());
                            match hex {
                                Some(v) => {
                                    out.push(v);
                                    self.pos += 2;
                                }
                                None => {
                                    return Err(self.error(
                                        esc_at,
                                        PdaErrorKind::Syntax,
                                        "`\\x` must be followed by two hexadecimal digits",
                                    ))
                                }
                            }
                        }
                        _ => {
                            return Err(self.error(
                                esc_at,
                                PdaErrorKind::Syntax,
                                &format!(
                                    "unknown escape `\\{}` (known: \\\" \\\\ \\n \\r \\t \\xHH)",
                                    self.describe(esc_at + 1).trim_matches('`')
                                ),
                            ))
                        }
                    }
                }
                _ => {
                    out.push(b);
                    self.pos += 1;
                }
            }
        }
    }

    fn grammar(mut self) -> Result<Grammar, PdaError> {
        let mut grammar: Option<Grammar> = None;
        // First use of every referenced nonterminal, for the unknown-nonterminal error.
        let mut uses: Vec<(String, usize)> = Vec::new();
        let mut defined: HashSet<String> = HashSet::new();
        while self.peek().is_some() {
            let at = self.pos;
            let Some((lhs, _)) = self.name() else {
                return Err(self.error(
                    at,
                    PdaErrorKind::Syntax,
                    &format!(
                        "expected a rule `Name -> ... ;`, found {}",
                        self.describe(at)
                    ),
                ));
            };
            let arrow = {
                self.skip_space();
                self.pos
            };
            if !self.text[arrow..].starts_with(b"->") {
                return Err(self.error(
                    arrow,
                    PdaErrorKind::Syntax,
                    &format!(
                        "expected `->` after `{lhs}`, found {}",
                        self.describe(arrow)
                    ),
                ));
            }
            self.pos += 2;
            defined.insert(lhs.clone());
            let g = grammar.get_or_insert_with(|| Grammar::new(&lhs));
            let mut rhs: Vec<Symbol> = Vec::new();
            loop {
                let at = match self.peek() {
                    Some(_) => self.pos,
                    None => {
                        return Err(self.error(
                            self.pos,
                            PdaErrorKind::Syntax,
                            &format!("the rule for `{lhs}` is not finished: expected `;`"),
                        ))
                    }
                };
                match self.text[at] {
                    b'"' => rhs.push(Symbol::Lit(self.literal()?)),
                    b'|' | b';' => {
                        if rhs.is_empty() {
                            return Err(self.error(
                                at,
                                PdaErrorKind::Syntax,
                                &format!(
                                    "empty alternative in the rule for `{lhs}`; write \"\" for the empty string"
                                ),
                            ));
                        }
                        g.add_rule(&lhs, &rhs);
                        rhs.clear();
                        self.pos += 1;
                        if self.text[at] == b';' {
                            break;
                        }
                    }
                    _ => match self.name() {
                        Some((name, at)) => {
                            if !uses.iter().any(|(n, _)| *n == name) {
                                uses.push((name.clone(), at));
                            }
                            rhs.push(Symbol::Nt(name));
                        }
                        None => {
                            let what = if self.text[at..].starts_with(b"->") {
                                format!("unexpected `->` in the rule for `{lhs}`: is a `;` missing before it?")
                            } else {
                                format!(
                                    "expected a nonterminal, a \"literal\", `|` or `;`, found {}",
                                    self.describe(at)
                                )
                            };
                            return Err(self.error(at, PdaErrorKind::Syntax, &what));
                        }
                    },
                }
            }
        }
        let Some(grammar) = grammar else {
            return Err(PdaError::new(
                PdaErrorKind::EmptyGrammar,
                "the grammar has no rules; write at least one rule such as `S -> \"a\" ;`"
                    .to_string(),
            ));
        };
        for (name, at) in uses {
            if !defined.contains(&name) {
                return Err(self.error(
                    at,
                    PdaErrorKind::UnknownNonterminal,
                    &format!("unknown nonterminal `{name}`: no rule has it on the left of `->`"),
                ));
            }
        }
        Ok(grammar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_alternatives_escapes_and_comments() {
        let g = Grammar::parse(
            "# comment\nS -> \"a\\x41\\n\" T | \"\" ;\nT -> S \"\\\"\" ; S -> \"z\";",
        )
        .unwrap();
        assert_eq!(g.start(), "S");
        let rules: Vec<_> = g
            .rules()
            .map(|(l, r)| (l.to_string(), r.to_vec()))
            .collect();
        assert_eq!(
            rules,
            vec![
                ("S".into(), vec![Symbol::lit(b"aA\n"), Symbol::nt("T")]),
                ("S".into(), vec![Symbol::lit(b"")]),
                ("T".into(), vec![Symbol::nt("S"), Symbol::lit(b"\"")]),
                ("S".into(), vec![Symbol::lit(b"z")]),
            ]
        );
        // Display gives text that parses back to the same grammar (start rules first).
        let again = Grammar::parse(&g.to_string()).unwrap();
        let mut sorted = g.clone();
        sorted.rules.sort_by_key(|(l, _)| l != "S");
        assert_eq!(again, sorted);
    }

    fn err(text: &str) -> PdaError {
        Grammar::parse(text).unwrap_err()
    }

    #[test]
    fn errors_name_line_column_and_problem() {
        let e = err("S -> \"a\" T ;");
        assert_eq!(e.kind(), PdaErrorKind::UnknownNonterminal);
        assert_eq!(
            e.to_string(),
            "grammar line 1, column 10: unknown nonterminal `T`: no rule has it on the left of `->`"
        );
        let e = err("S -> \"a\" ;\nT -> \"abc ;");
        assert_eq!(e.kind(), PdaErrorKind::Syntax);
        assert!(e
            .to_string()
            .starts_with("grammar line 2, column 6: unterminated string"));
        let e = err("   # nothing\n");
        assert_eq!(e.kind(), PdaErrorKind::EmptyGrammar);
        let e = err("S -> \"a\" | ;");
        assert!(
            e.to_string().contains("column 12: empty alternative"),
            "{e}"
        );
        let e = err("S -> \"a\"\nT -> \"b\" ;");
        assert!(
            e.to_string().contains("line 2, column 3: unexpected `->`"),
            "{e}"
        );
        let e = err("S = \"a\" ;");
        assert!(
            e.to_string().contains("expected `->` after `S`, found `=`"),
            "{e}"
        );
        let e = err("S -> \"a\" ");
        assert!(e.to_string().contains("expected `;`"), "{e}");
        let e = err("S -> \"\\q\" ;");
        assert!(
            e.to_string().contains("column 7: unknown escape `\\q`"),
            "{e}"
        );
        let e = err("S -> \"\\x4\" ;");
        assert!(e.to_string().contains("two hexadecimal digits"), "{e}");
        let e = err("S -> 'a' ;");
        assert!(e.to_string().contains("found `'`"), "{e}");
    }
}
