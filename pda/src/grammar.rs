//! Context-free grammars over bytes built in code: a start nonterminal and rules
//! `A -> X1 ... Xn` whose symbols are nonterminals or byte-string literals. Several rules
//! with the same left-hand side are the alternatives of that nonterminal. Nothing is
//! checked when rules are added: the checks that matter (unknown nonterminals, left
//! recursion, determinism) need the whole grammar and are done by
//! [`crate::Pda::from_grammar`]. Grammar *text* is read by [`crate::gbnf`] (GBNF and the
//! paper's arrow notation); a grammar's `Display` is arrow notation that it reads back
//! (literals with bytes above 0x7F excepted: GBNF's `\xHH` is a code point).

use std::fmt;

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
    /// The grammar in arrow notation, one rule per line; `gbnf::parse` reads it back
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
