//! Grammar text: llama.cpp's GBNF (written from its documentation) and the paper's arrow
//! notation, read into [`Rules`].
//!
//! # Syntax
//!
//! ```text
//! # JSON-ish lists of numbers; `#` starts a comment
//! root   ::= list
//! list   ::= "[" ws ( item ( "," ws item )* )? "]"
//! item   ::= number ws | list ws
//! number ::= "-"? [0-9]+ ( "." [0-9]+ )?
//! ws     ::= [ \t\n]*
//! ```
//!
//! - A rule is `name ::= body`; `->` and `→` may replace `::=`, and a rule may end with `;`
//!   (the paper's `S → "ab" | "a" S "b"`). A body runs until the next `name ::=`, so rules
//!   span lines freely. Names are ASCII letters, digits, `_` and `-`. The start rule is
//!   `root` when there is one, else the first rule. A name defined twice has the
//!   alternatives of both definitions.
//! - `"..."` is a literal: the UTF-8 bytes of its text. `[...]` is one character in the class
//!   (ranges `a-z`), `[^...]` one character outside it, `.` any character (all UTF-8
//!   encoded, surrogates excluded). Escapes, in both: `\n \r \t \0 \\ \" \' \[ \] \- \^ \/`
//!   and code points `\xHH`, `\uHHHH`, `\UHHHHHHHH` (`"\xe9"` is `é`, two bytes).
//! - `<[id]>`, `<text>` and `!<...>` (llama.cpp's token references) are refused by name.
//! - `( ... )` groups, `|` separates alternatives (an empty alternative is the empty
//!   string), and a postfix `*`, `+`, `?`, `{m}`, `{m,}`, `{m,n}` or `{,n}` repeats what it
//!   follows (bounds up to [`MAX_REPEAT`]).
//!
//! Errors name the line and column (from 1) in the text.

mod ast;
mod dispatch;
mod lookahead;
mod parse;

pub(crate) use ast::{
    deeper, fmt_rule_at, item_bytes, scalar_ranges, tree_bytes, Lines, Reading, MAX_NESTING,
};
pub use ast::{Expr, Pos, RuleDef, Rules};
pub use parse::MAX_REPEAT;
pub(crate) use parse::{hex_scalar, repeat_bounds};

use crate::budget::Budget;
use crate::error::PdaError;

/// Reads grammar text (see the module documentation).
pub fn parse(text: &str) -> Result<Rules, PdaError> {
    parse_within(text, &Budget::unlimited()).map(|(rules, _)| rules)
}

/// [`parse`] within `budget`, polled as items are read; the rules and about the bytes
/// they hold.
pub(crate) fn parse_within(text: &str, budget: &Budget) -> Result<(Rules, usize), PdaError> {
    check_lines(text, budget)?;
    parse::Parser::new(text, parse::Dialect::Gbnf, budget).rules()
}

/// [`parse_ebnf`] within `budget`, as [`parse_within`].
pub(crate) fn parse_ebnf_within(text: &str, budget: &Budget) -> Result<(Rules, usize), PdaError> {
    check_lines(text, budget)?;
    parse::Parser::new(text, parse::Dialect::Ebnf, budget).rules()
}

/// Whether the line tables of `text` fit in what is left of `budget` (checked before they
/// are built; the readers of every syntax build them).
pub(crate) fn check_lines(text: &str, budget: &Budget) -> Result<(), PdaError> {
    budget.check_memory(Lines::estimate(text), || "reading the grammar".to_string())
}

/// Reads XGrammar's EBNF: GBNF as above, except that names may contain `.`, `::=` is the
/// only arrow, escapes are C's (`\a \b \f \v \e \?`, `\x` with 1 to 8 hex digits, and in
/// classes `\` before any of `^$.*+?()[]{}|/-`), `{m,-1}` is `{m,}`, the start rule is
/// `root` and must exist, and a rule is defined once. `Regex("pattern")` is the texts the
/// pattern matches in full (read as ECMAScript, refused where a Lark regex terminal is);
/// `Substring("c1", ...)` is every run of consecutive chunks; a lookahead assertion
/// `name ::= body (= la)` is enforced exactly (the `lookahead` module); `name[capture]`
/// attributes are accepted and change nothing; `TagDispatch(...)` is free text whose
/// triggers hand the text to rules (the `dispatch` module). XGrammar's token macros
/// (`Token(...)`, ...) and the attributes `max_tokens`, `max_chars`, `lazy` and
/// `temperature` are refused by name.
pub fn parse_ebnf(text: &str) -> Result<Rules, PdaError> {
    parse_ebnf_within(text, &Budget::unlimited()).map(|(rules, _)| rules)
}
