//! Which text syntax a grammar is written in, and reading it into [`Rules`].

use std::fmt;
use std::str::FromStr;

use crate::budget::Budget;
use crate::error::PdaError;
use crate::gbnf::{self, Rules};

/// A grammar text syntax.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Syntax {
    /// llama.cpp's GBNF ([`crate::gbnf`]), `.gbnf`.
    #[default]
    Gbnf,
    /// Lark ([`crate::lark`]), `.lark`.
    Lark,
    /// XGrammar's EBNF ([`gbnf::parse_ebnf`]), `.ebnf`.
    Ebnf,
    /// The paper's arrow notation (`S → "ab" | "a" S "b"`), read by the GBNF reader.
    Paper,
}

impl Syntax {
    /// Every syntax, in the order messages list them.
    pub const ALL: [Syntax; 4] = [Syntax::Gbnf, Syntax::Lark, Syntax::Ebnf, Syntax::Paper];

    /// The name used by `--syntax` and Python's `syntax=`.
    pub fn name(self) -> &'static str {
        match self {
            Syntax::Gbnf => "gbnf",
            Syntax::Lark => "lark",
            Syntax::Ebnf => "ebnf",
            Syntax::Paper => "paper",
        }
    }

    /// The syntax a file extension (without the dot) stands for: `gbnf`, `lark`, `ebnf`.
    pub fn from_extension(ext: &str) -> Option<Syntax> {
        [Syntax::Gbnf, Syntax::Lark, Syntax::Ebnf]
            .into_iter()
            .find(|s| s.name() == ext)
    }

    /// Reads `text` in this syntax.
    pub fn parse(self, text: &str) -> Result<Rules, PdaError> {
        self.parse_within(text, &Budget::unlimited())
            .map(|(rules, _)| rules)
    }

    /// [`Syntax::parse`] within `budget` (polled as the text is read); the rules and about
    /// the bytes they hold.
    pub(crate) fn parse_within(
        self,
        text: &str,
        budget: &Budget,
    ) -> Result<(Rules, usize), PdaError> {
        match self {
            Syntax::Gbnf | Syntax::Paper => gbnf::parse_within(text, budget),
            Syntax::Lark => crate::lark::parse_within(text, budget),
            Syntax::Ebnf => gbnf::parse_ebnf_within(text, budget),
        }
    }
}

impl fmt::Display for Syntax {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Syntax {
    type Err = String;

    /// `gbnf`, `lark`, `ebnf` or `paper`.
    fn from_str(s: &str) -> Result<Syntax, String> {
        Syntax::ALL
            .into_iter()
            .find(|x| x.name() == s)
            .ok_or_else(|| {
                format!("unknown grammar syntax {s:?}: expected gbnf, lark, ebnf or paper")
            })
    }
}
