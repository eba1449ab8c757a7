//! Lark grammars (the subset outlines and llguidance users write), read into [`Rules`].
//!
//! # Syntax
//!
//! ```text
//! start: pair ("," pair)*          // `//` and `#` start comments
//! ?pair: KEY ":" value -> kv       // `?` inlining and `-> alias` change trees only
//! value: SIGNED_NUMBER | "null"i   // `"..."i`: any case
//!      | /[a-z]+/                  // a line starting with `|` continues the definition
//! KEY: /[A-Za-z_]\w*/
//! %import common.SIGNED_NUMBER
//! %import common.WS
//! %ignore WS
//! ```
//!
//! - Rules are `name: alternatives` (lower-case names, start rule `start`); terminals are
//!   `NAME: ...` (upper-case, may use terminals only, never themselves). A definition ends
//!   at the end of its line unless the next line starts with `|`; inside `( )` and `[ ]`
//!   lines run on. `?name` and `!name`, `_` prefixes and `-> alias` change Lark's trees,
//!   not the language, and are accepted.
//! - Items: `"text"` (escapes read as Python Lark reads them: `escape`), `"text"i`,
//!   `"a".."z"` (one character in the range), `/regex/flags`, names, `( )`, `[ ]` and `?` (optional), `*`, `+`, `~ n` and `~ n..m`, and llguidance's `{n}`,
//!   `{m,n}`, `{m,}`, `{,n}` (bounds up to [`crate::gbnf::MAX_REPEAT`]).
//! - Templates `name{a, b}: ...` used as `name{x, y}` are expanded in place (`template`).
//! - llguidance's `-` in names, `name[capture]:` and `%llguidance {}` change nothing and
//!   are accepted; its token, lexer and sampling extensions are refused by name.
//! - Regex terminals are compiled by fstc-regex (the regex crate's syntax, which agrees
//!   with Python's `re` on what grammars use). Flags `i`, `s`, `x` as in Python; `m` and
//!   `u` change nothing here; `l` is refused. Assertions (`^ $ \b`), look-around, lazy
//!   quantifiers and upper-case group names are refused: a terminal is the set of texts its
//!   regex matches in full.
//! - `%import common.NAME`, `%import common.NAME -> ALIAS` and
//!   `%import common (A, B)` bring in Lark's common terminals, built in
//!   (`common::COMMON`); other modules are files, which are not read.
//! - `%ignore X` (several allowed): any number of texts matching X may stand before the
//!   first terminal, between any two terminals of the rules and after the last one; never
//!   inside a terminal. Read exactly so: each terminal a rule uses (named, quoted or regex)
//!   is followed by any number of ignored texts, and the start is preceded by them.
//!
//! Refused by name: priorities (`rule.2:`, `TERM.2:`), `%declare`, `%override`, `%extend`,
//! and llguidance's `<special>` tokens, `%json`, `%regex`, `@grammar`, `&`, `~X` and lexeme
//! options other than `capture`. Errors name the line and column (from 1) and the definition.
//!
//! There is no lexer: a text is accepted when some split of it into terminals fits the
//! rules. Lark's lexer splits greedily first (longest match), so where two terminals may
//! touch (`NAME NAME` without a separator), `abc` is two names here and one for Lark.

mod common;
mod escape;
mod json;
mod template;

use std::collections::HashMap;
use std::sync::Arc;

use crate::budget::Budget;
use crate::error::{PdaError, PdaErrorKind};
use crate::gbnf::{
    deeper, fmt_rule_at, item_bytes, repeat_bounds, Expr, Lines, Pos, Reading, RuleDef, Rules,
    MAX_NESTING, MAX_REPEAT,
};
use crate::terminal_regex::{self as regex, PatternError};
use template::{Template, Use};

/// The rule holding the `%ignore` texts (`IGN*`); not a name Lark can spell.
const IGNORE: &str = "%ignore";
/// The start rule when there is `%ignore`: `IGN* start`.
const START: &str = "%start";

/// Reads a Lark grammar (see the module documentation).
pub fn parse(text: &str) -> Result<Rules, PdaError> {
    parse_within(text, &Budget::unlimited()).map(|(rules, _)| rules)
}

/// [`parse`] within `budget`, polled as items are read and regex terminals built; the
/// rules and about the bytes they hold.
pub(crate) fn parse_within(text: &str, budget: &Budget) -> Result<(Rules, usize), PdaError> {
    crate::gbnf::check_lines(text, budget)?;
    let mut p = Parser {
        text,
        lines: Lines::new(text),
        pos: 0,
        depth: 0,
        height: 0,
        def: None,
        def_at: 0,
        terminal: false,
        defs: Vec::new(),
        index: HashMap::new(),
        ignores: Vec::new(),
        reading: Reading::new(budget),
        templates: Vec::new(),
        uses: Vec::new(),
    };
    while p.skip_blank_lines() {
        match p.text[p.pos..].starts_with('%') {
            true => p.directive()?,
            false => p.definition()?,
        }
        p.end_of_line()?;
    }
    p.finish()
}

struct Def {
    name: String,
    at: Pos,
    terminal: bool,
    body: Expr,
}

struct Parser<'a> {
    text: &'a str,
    /// Line and column of offsets, for messages and rule positions.
    lines: Lines<'a>,
    pos: usize,
    /// Open `( )` and `[ ]`: newlines are spaces inside them.
    depth: usize,
    /// Groups and repetition operators on the deepest path of the item last read.
    height: usize,
    /// The definition being read, for messages.
    def: Option<String>,
    /// Where the definition or directive being read starts, for the budgets' messages.
    def_at: usize,
    /// Whether a terminal body (or `%ignore`) is being read: no ignored texts inside.
    terminal: bool,
    defs: Vec<Def>,
    /// The index in `defs` of each name.
    index: HashMap<String, usize>,
    ignores: Vec<Expr>,
    reading: Reading<'a>,
    templates: Vec<Template>,
    /// Template uses, each written in a body as `Ref("%use{i}")` until `finish` expands it.
    uses: Vec<Use>,
}

type Res<T> = Result<T, PdaError>;

fn is_name_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Terminal names are upper-case (`NAME`, `_NAME`).
fn is_terminal_name(name: &str) -> bool {
    name.trim_start_matches('_')
        .starts_with(|c: char| c.is_ascii_uppercase())
}

impl<'a> Parser<'a> {
    /// What is being read, for the budgets' messages.
    fn place(&self) -> String {
        reading_place(&self.lines, self.def.as_deref(), self.def_at)
    }

    /// Counts one parsed item holding `heap` bytes besides its node, and polls the budgets.
    fn count(&mut self, heap: usize) -> Res<()> {
        let (lines, def, at) = (&self.lines, self.def.as_deref(), self.def_at);
        (self.reading).count(heap, lines.bytes(), || reading_place(lines, def, at))
    }

    /// A regex terminal's DFA (`build` given the deadline), counted against the budgets;
    /// a refused pattern is an error at the grammar offset `at` of its pattern offset.
    fn terminal_dfa(
        &mut self,
        build: impl FnOnce(
            Option<std::time::Instant>,
        ) -> Result<fstc_core::bytes::ByteDfa, PatternError>,
        at: impl FnOnce(usize) -> usize,
    ) -> Res<Expr> {
        let budget = self.reading.budget();
        let dfa = match build(budget.deadline()) {
            Ok(dfa) => dfa,
            Err(PatternError::Deadline) => return Err(budget.out_of_time(&self.place())),
            Err(PatternError::At(i, m)) => return Err(self.err(at(i), m)),
        };
        self.count(regex::dfa_bytes(&dfa))?;
        budget.check_memory(self.reading.held, || self.place())?;
        Ok(Expr::Dfa(Arc::new(dfa)))
    }

    fn err(&self, offset: usize, what: impl AsRef<str>) -> PdaError {
        let within = match &self.def {
            Some(name) if is_terminal_name(name) => format!(", in terminal `{name}`"),
            Some(name) => format!(", in rule `{name}`"),
            None => String::new(),
        };
        PdaError::new(
            PdaErrorKind::Syntax,
            format!(
                "grammar {}{within}: {}",
                self.lines.pos(offset),
                what.as_ref()
            ),
        )
    }

    fn found(&self, offset: usize) -> String {
        match self.text[offset..].chars().next() {
            Some(c) if c.is_control() => format!("{c:?}"),
            Some(c) => format!("`{c}`"),
            None => "the end of the grammar".to_string(),
        }
    }

    fn byte(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn skip_comment(&mut self) -> bool {
        if self.rest().starts_with("//") || self.rest().starts_with('#') {
            self.pos += self.rest().find('\n').unwrap_or(self.rest().len());
            return true;
        }
        false
    }

    /// Skips spaces and comments, and newlines inside brackets.
    fn skip_inline(&mut self) {
        loop {
            match self.byte() {
                Some(b' ' | b'\t' | b'\r') => self.pos += 1,
                Some(b'\n') if self.depth > 0 => self.pos += 1,
                _ if self.skip_comment() => {}
                _ => return,
            }
        }
    }

    /// Skips blank lines and comments; whether anything is left.
    fn skip_blank_lines(&mut self) -> bool {
        loop {
            match self.byte() {
                Some(b' ' | b'\t' | b'\r' | b'\n') => self.pos += 1,
                None => return false,
                _ if self.skip_comment() => {}
                _ => return true,
            }
        }
    }

    /// At a newline: whether the definition continues on a later line starting with `|`
    /// (then the position is at that `|`).
    fn continues(&mut self) -> bool {
        let save = self.pos;
        if self.skip_blank_lines() && self.byte() == Some(b'|') {
            return true;
        }
        self.pos = save;
        false
    }

    fn end_of_line(&mut self) -> Res<()> {
        self.skip_inline();
        match self.byte() {
            None | Some(b'\n') => Ok(()),
            _ => Err(self.err(
                self.pos,
                format!(
                    "expected the end of the line, found {}",
                    self.found(self.pos)
                ),
            )),
        }
    }

    /// A name: letters, digits, `_`, and `-` between them (llguidance's).
    fn name(&mut self) -> &str {
        let start = self.pos;
        let b = self.text.as_bytes();
        while self.byte().is_some_and(is_name_byte)
            || (self.byte() == Some(b'-')
                && self.pos > start
                && b.get(self.pos + 1).is_some_and(|&c| is_name_byte(c)))
        {
            self.pos += 1;
        }
        &self.text[start..self.pos]
    }

    fn number(&mut self) -> Res<u32> {
        self.skip_inline();
        let start = self.pos;
        while self.byte().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        match self.text[start..self.pos].parse::<u32>() {
            Ok(n) if n <= MAX_REPEAT => Ok(n),
            Ok(_) | Err(_) if self.pos > start => Err(self.err(
                start,
                format!("repetition bound above the limit of {MAX_REPEAT}"),
            )),
            _ => Err(self.err(
                start,
                format!("expected a number, found {}", self.found(start)),
            )),
        }
    }

    /// `name: ...` or `NAME: ...`.
    fn definition(&mut self) -> Res<()> {
        while matches!(self.byte(), Some(b'?' | b'!')) {
            self.pos += 1;
        }
        let start = self.pos;
        self.def_at = start;
        let name = self.name().to_string();
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(self.err(
                start,
                format!(
                    "expected a definition `name: ...` or `NAME: ...`, or a `%` directive, found {}",
                    self.found(start)
                ),
            ));
        }
        self.def = Some(name.clone());
        if self.rest().starts_with('.') {
            return Err(self.err(self.pos, format!("priorities (`{name}.N`) are not supported: they choose between parses or tokens, and every parse is accepted here")));
        }
        let params = match self.rest().starts_with('{') {
            true => Some(self.params(&name)?),
            false => None,
        };
        if self.rest().starts_with('[') {
            self.options(&name)?;
        }
        self.skip_inline();
        if self.byte() != Some(b':') {
            return Err(self.err(
                self.pos,
                format!(
                    "expected `:` after `{name}`, found {}",
                    self.found(self.pos)
                ),
            ));
        }
        self.pos += 1;
        self.terminal = is_terminal_name(&name);
        let at = self.lines.pos(start);
        let body = self.alternatives()?;
        let first = self.index.get(&name).map(|&i| self.defs[i].at);
        let first = first.or_else(|| self.templates.iter().find(|t| t.name == name).map(|t| t.at));
        if let Some(at) = first {
            return Err(self.err(start, format!("`{name}` is defined twice (first at {at})")));
        }
        if let Some(params) = params {
            self.templates.push(Template {
                name,
                params,
                body,
                at,
            });
            self.def = None;
            return Ok(());
        }
        self.count(name.len())?;
        self.push_def(Def {
            name,
            at,
            terminal: self.terminal,
            body,
        });
        self.def = None;
        Ok(())
    }

    fn push_def(&mut self, def: Def) {
        self.index.insert(def.name.clone(), self.defs.len());
        self.defs.push(def);
    }

    /// A template's parameters `{a, b}` after its name.
    fn params(&mut self, name: &str) -> Res<Vec<String>> {
        if is_terminal_name(name) {
            return Err(self.err(
                self.pos,
                format!("templates are rules: `{name}{{...}}` must have a lower-case name"),
            ));
        }
        self.braced_list("parameters", name, |p| {
            p.skip_inline();
            let at = p.pos;
            let param = p.name().to_string();
            if param.is_empty() {
                let found = p.found(at);
                return Err(p.err(at, format!("expected a parameter name, found {found}")));
            }
            Ok(param)
        })
    }

    /// The items `item` reads after a `{` (the position at it), separated by `,`, up to
    /// and past the `}`; `what` names them in the error.
    fn braced_list<T>(
        &mut self,
        what: &str,
        name: &str,
        mut item: impl FnMut(&mut Self) -> Res<T>,
    ) -> Res<Vec<T>> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            items.push(item(self)?);
            self.skip_inline();
            match self.byte() {
                Some(b',') => self.pos += 1,
                Some(b'}') => break,
                _ => {
                    let found = self.found(self.pos);
                    let why =
                        format!("expected `,` or `}}` in the {what} of `{name}`, found {found}");
                    return Err(self.err(self.pos, why));
                }
            }
        }
        self.pos += 1;
        Ok(items)
    }

    /// A template use `name{arg, ...}` (the position at `{`).
    fn template_use(&mut self, name: String, at: usize) -> Res<Expr> {
        if self.terminal {
            return Err(self.err(
                at,
                format!("terminals cannot use templates (`{name}{{...}}`)"),
            ));
        }
        if self.depth >= MAX_NESTING {
            return Err(self.err(at, format!("groups nested more than {MAX_NESTING} deep")));
        }
        self.depth += 1;
        let args = self.braced_list("arguments", &name, |p| p.alternatives())?;
        self.depth -= 1;
        let pos = self.lines.pos(at);
        self.uses.push(Use {
            name,
            args,
            at: pos,
        });
        Ok(Expr::Ref(template::use_ref(self.uses.len() - 1), Some(pos)))
    }

    /// llguidance's lexeme options `name[...]:` (the position at `[`): `capture` and
    /// `capture="x"` name a capture and change nothing here; the others change what a
    /// terminal matches or how it is sampled and are refused by name.
    fn options(&mut self, name: &str) -> Res<()> {
        let open = self.pos;
        let line = self.rest().split('\n').next().unwrap_or("");
        let Some(close) = line.find(']').map(|i| open + i) else {
            return Err(self.err(open, format!("unclosed options `{name}[...`")));
        };
        for item in self.text[open + 1..close].split(',').map(str::trim) {
            let key: String = item
                .chars()
                .take_while(|&c| c.is_ascii_alphanumeric() || c == '_')
                .collect();
            let value = item[key.len()..].trim_start();
            match key.as_str() {
                "capture" if value.is_empty() || value.starts_with('=') => {}
                "lazy" | "stop" | "suffix" | "stop_capture" | "max_tokens" | "temperature" => {
                    return Err(self.err(open, format!("the option `{key}` (`{name}[{key}...]`, llguidance's) is not supported: it changes how a terminal ends or is sampled")))
                }
                _ => return Err(self.err(open, format!("unknown option `{item}` in `{name}[...]` (llguidance's are capture, lazy, stop, suffix, max_tokens, temperature)"))),
            }
        }
        self.pos = close + 1;
        Ok(())
    }

    fn alternatives(&mut self) -> Res<Expr> {
        let mut alts = vec![self.sequence()?];
        let mut height = self.height;
        loop {
            self.skip_inline();
            if self.byte() == Some(b'\n') && self.depth == 0 && !self.continues() {
                break;
            }
            if self.byte() != Some(b'|') {
                break;
            }
            self.pos += 1;
            alts.push(self.sequence()?);
            height = height.max(self.height);
        }
        self.height = height;
        Ok(match alts.len() {
            1 => alts.pop().unwrap_or(Expr::Seq(Vec::new())),
            _ => Expr::Alt(alts),
        })
    }

    fn sequence(&mut self) -> Res<Expr> {
        let mut items = Vec::new();
        let mut height = 0;
        loop {
            self.skip_inline();
            match self.byte() {
                None | Some(b'\n' | b'|' | b')' | b']' | b',' | b'}') => break,
                _ if self.rest().starts_with("->") => {
                    self.pos += 2;
                    self.skip_inline();
                    if self.name().is_empty() {
                        return Err(self.err(self.pos, "expected an alias name after `->`"));
                    }
                    break;
                }
                _ => {}
            }
            let atom = self.atom()?;
            items.push(self.postfix(atom)?);
            height = height.max(self.height);
            self.count(item_bytes(&items[items.len() - 1]))?;
        }
        self.height = height;
        Ok(match items.len() {
            1 => items.pop().unwrap_or(Expr::Seq(Vec::new())),
            _ => Expr::Seq(items),
        })
    }

    fn postfix(&mut self, mut expr: Expr) -> Res<Expr> {
        loop {
            let save = self.pos;
            self.skip_inline();
            let at = self.pos;
            let (min, max) = match self.byte() {
                Some(b'*') => (0, None),
                Some(b'+') => (1, None),
                Some(b'?') => (0, Some(1)),
                Some(b'~') => {
                    self.pos += 1;
                    let min = self.number()?;
                    let max = match self.rest().starts_with("..") {
                        true => {
                            self.pos += 2;
                            self.number()?
                        }
                        false => min,
                    };
                    if max < min {
                        return Err(self.err(
                            at,
                            format!(
                                "bad repetition `~ {min}..{max}`: the maximum is below the minimum"
                            ),
                        ));
                    }
                    self.pos -= 1;
                    (min, Some(max))
                }
                Some(b'{') => {
                    let (bounds, end) =
                        repeat_bounds(self.text, at, false).map_err(|(i, m)| self.err(i, m))?;
                    self.pos = end - 1;
                    bounds
                }
                _ => {
                    self.pos = save;
                    return Ok(expr);
                }
            };
            self.pos += 1;
            deeper(&mut self.height).map_err(|m| self.err(at, m))?;
            expr = Expr::Repeat {
                expr: Box::new(expr),
                min,
                max,
                at: Some(self.lines.pos(at)),
            };
        }
    }

    fn atom(&mut self) -> Res<Expr> {
        let at = self.pos;
        self.height = 0;
        match self.byte() {
            Some(open @ (b'(' | b'[')) => {
                if self.depth >= MAX_NESTING {
                    return Err(self.err(at, format!("groups nested more than {MAX_NESTING} deep")));
                }
                let open_at = self.lines.pos(at);
                self.pos += 1;
                self.depth += 1;
                let inner = self.alternatives()?;
                self.depth -= 1;
                deeper(&mut self.height).map_err(|m| self.err(at, m))?;
                self.skip_inline();
                let close = if open == b'(' { b')' } else { b']' };
                if self.byte() != Some(close) {
                    return Err(self.err(
                        self.pos,
                        format!(
                            "expected `{}` closing the `{}` at {}, found {}",
                            close as char,
                            open as char,
                            open_at,
                            self.found(self.pos)
                        ),
                    ));
                }
                self.pos += 1;
                Ok(match open {
                    b'(' => inner,
                    _ => Expr::Repeat {
                        expr: Box::new(inner),
                        min: 0,
                        max: Some(1),
                        at: Some(open_at),
                    },
                })
            }
            Some(b'"') => {
                let e = self.string()?;
                Ok(self.mark(e))
            }
            Some(b'/') => {
                let e = self.regex()?;
                Ok(self.mark(e))
            }
            Some(c) if is_name_byte(c) => self.reference(),
            Some(b'%') if self.rest().starts_with("%json") => {
                let e = self.json()?;
                Ok(self.mark(e))
            }
            Some(c @ (b'<' | b'@' | b'~' | b'&' | b'%')) => {
                Err(self.err(at, template::llguidance_only(c, self.rest())))
            }
            _ => Err(self.err(
                at,
                format!(
                    "expected a name, a \"string\", a /regex/, `(` or `[`, found {}",
                    self.found(at)
                ),
            )),
        }
    }

    fn reference(&mut self) -> Res<Expr> {
        let at = self.pos;
        let name = self.name().to_string();
        if self.rest().starts_with('{') && !template::is_repetition(self.rest()) {
            return self.template_use(name, at);
        }
        let terminal = is_terminal_name(&name);
        if self.terminal && !terminal {
            return Err(self.err(
                at,
                format!("terminals can use only terminals, not the rule `{name}`"),
            ));
        }
        let e = Expr::Ref(name, Some(self.lines.pos(at)));
        Ok(if terminal { self.mark(e) } else { e })
    }

    /// A terminal used by a rule is followed by the ignored texts.
    fn mark(&self, e: Expr) -> Expr {
        match self.terminal {
            true => e,
            false => Expr::Seq(vec![e, Expr::Ref(IGNORE.to_string(), None)]),
        }
    }

    /// `"..."`, `"..."i` or `"a".."z"`, read as Lark reads them (`escape`).
    fn string(&mut self) -> Res<Expr> {
        let at = self.pos;
        let raw = self.quoted()?;
        if self.rest().starts_with("..") {
            self.pos += 2;
            let hi_at = self.pos;
            if self.byte() != Some(b'"') {
                return Err(self.err(hi_at, "expected a \"string\" ending the range"));
            }
            let hi_raw = self.quoted()?;
            let lo = escape::range_end(raw, true).map_err(|m| self.err(at, m))?;
            let hi = escape::range_end(hi_raw, false).map_err(|m| self.err(hi_at, m))?;
            if lo > hi {
                return Err(self.err(
                    at,
                    "reversed range: the first character is above the second",
                ));
            }
            return Ok(Expr::Class {
                ranges: vec![(lo as u32, hi as u32)],
                negated: false,
            });
        }
        let text = escape::string(raw).map_err(|(i, m)| self.err(at + 1 + i, m))?;
        // Lark's grammar lexer takes an `i` right after the quote as the flag, always.
        if self.byte() == Some(b'i') {
            self.pos += 1;
            return self.terminal_dfa(|deadline| regex::caseless(&text, deadline), |_| at);
        }
        Ok(Expr::Bytes(text.into_bytes()))
    }

    /// The raw text of a `"..."` literal at the position, delimited as Lark's grammar
    /// lexer delimits it (`\"` and `\\` are inside).
    fn quoted(&mut self) -> Res<&'a str> {
        let open = self.pos;
        self.pos += 1;
        loop {
            let rest = &self.text[self.pos..];
            let Some(c) = rest.chars().next() else {
                return Err(self.err(open, "unterminated string: no closing `\"`"));
            };
            match c {
                '"' => {
                    self.pos += 1;
                    return Ok(&self.text[open + 1..self.pos - 1]);
                }
                '\n' => return Err(self.err(open, "unterminated string: the line ends before the closing `\"` (write \\n for a newline)")),
                '\\' if rest.starts_with("\\\"") || rest.starts_with("\\\\") => self.pos += 2,
                _ => self.pos += c.len_utf8(),
            }
        }
    }

    /// `/pattern/flags`, delimited as Lark's grammar lexer delimits it (`\\/` and `\\\\`
    /// are inside) and read as Lark reads it (`escape::eval`) before the regex compiler.
    fn regex(&mut self) -> Res<Expr> {
        let open = self.pos;
        self.pos += 1;
        loop {
            let rest = &self.text[self.pos..];
            match rest.chars().next() {
                None => return Err(self.err(open, "unterminated regex: no closing `/`")),
                Some('/') => break,
                Some('\\') if rest.starts_with("\\/") || rest.starts_with("\\\\") => self.pos += 2,
                Some(c) => self.pos += c.len_utf8(),
            }
        }
        let raw = &self.text[open + 1..self.pos];
        self.pos += 1;
        let flags_at = self.pos;
        let flags_len = self
            .rest()
            .bytes()
            .take_while(|b| b"imslux".contains(b))
            .count();
        let flags = &self.text[flags_at..flags_at + flags_len];
        self.pos += flags_len;
        if raw.contains('\n') && !flags.contains('x') {
            return Err(self.err(
                open,
                "unterminated regex: the line ends before the closing `/` (a regex spans lines only with the `x` flag)",
            ));
        }
        let prefix = regex::flag_prefix(flags).map_err(|(i, m)| self.err(flags_at + i, m))?;
        let (pattern, from) = escape::regex(raw).map_err(|(i, m)| self.err(open + 1 + i, m))?;
        self.terminal_dfa(
            |deadline| regex::regex(&pattern, &prefix, deadline),
            |i| open + 1 + from.get(i).copied().unwrap_or(raw.len()),
        )
    }

    fn directive(&mut self) -> Res<()> {
        let at = self.pos;
        self.def_at = at;
        self.pos += 1;
        let word = self.name().to_string();
        self.skip_inline();
        match word.as_str() {
            "ignore" => {
                self.terminal = true;
                let e = self.alternatives()?;
                self.ignores.push(e);
                Ok(())
            }
            "import" => self.import(),
            "llguidance" => self.llguidance_options(at),
            "json" | "regex" => Err(self.err(at, template::llguidance_only(b'%', &self.text[at..]))),
            "declare" | "override" | "extend" => Err(self.err(
                at,
                format!("`%{word}` is not supported (it edits or declares definitions for Lark's own lexer and imports)"),
            )),
            _ => Err(self.err(at, format!("unknown directive `%{word}` (known: %import, %ignore)"))),
        }
    }

    /// `%llguidance {}`: llguidance's options, accepted when there are none (files for
    /// llguidance start with it).
    fn llguidance_options(&mut self, at: usize) -> Res<()> {
        let rest = self.rest();
        let inner = rest.strip_prefix('{').and_then(|r| r.split_once('}'));
        match inner {
            Some((inside, _)) if inside.trim().is_empty() => {
                self.pos += rest.find('}').map_or(0, |i| i + 1);
                Ok(())
            }
            _ => Err(self.err(at, "`%llguidance` options are not supported (they change llguidance's lexer and forcing); `%llguidance {}` alone is accepted")),
        }
    }

    /// `%import common.NAME [-> ALIAS]` or `%import common (A, B, ...)`.
    fn import(&mut self) -> Res<()> {
        let at = self.pos;
        let module = self.name().to_string();
        if module != "common" || !matches!(self.byte(), Some(b'.' | b' ' | b'\t' | b'(')) {
            return Err(self.err(at, "only Lark's `common` library is built in (`%import common.NAME`); other imports read files, which this reader does not"));
        }
        if self.byte() == Some(b'.') {
            self.pos += 1;
            let name_at = self.pos;
            let name = self.name().to_string();
            self.skip_inline();
            let alias = match self.rest().starts_with("->") {
                true => {
                    self.pos += 2;
                    self.skip_inline();
                    self.name().to_string()
                }
                false => name.clone(),
            };
            return self.import_one(&name, &alias, name_at);
        }
        self.skip_inline();
        if self.byte() != Some(b'(') {
            return Err(self.err(
                self.pos,
                "expected `.NAME` or `(NAME, ...)` after `%import common`",
            ));
        }
        self.pos += 1;
        self.depth += 1;
        loop {
            self.skip_inline();
            let name_at = self.pos;
            let name = self.name().to_string();
            self.import_one(&name, &name, name_at)?;
            self.skip_inline();
            match self.byte() {
                Some(b',') => self.pos += 1,
                Some(b')') => break,
                _ => {
                    return Err(self.err(
                        self.pos,
                        format!("expected `,` or `)`, found {}", self.found(self.pos)),
                    ))
                }
            }
        }
        self.pos += 1;
        self.depth -= 1;
        Ok(())
    }

    fn import_one(&mut self, name: &str, alias: &str, at: usize) -> Res<()> {
        let Some(pattern) = common::lookup(name) else {
            return Err(self.err(
                at,
                format!(
                    "`common` has no terminal `{name}` (it has {})",
                    common::names()
                ),
            ));
        };
        if !is_terminal_name(alias) {
            return Err(self.err(at, format!("`{alias}` is not a terminal name (upper-case)")));
        }
        if let Some(d) = self.index.get(alias).map(|&i| &self.defs[i]) {
            return match d.terminal && matches!(d.body, Expr::Dfa(_)) {
                true => Ok(()),
                false => Err(self.err(
                    at,
                    format!("`{alias}` is defined twice (first at {})", d.at),
                )),
            };
        }
        let body = self.terminal_dfa(|deadline| regex::regex(pattern, "", deadline), |_| at)?;
        self.push_def(Def {
            name: alias.to_string(),
            at: self.lines.pos(at),
            terminal: true,
            body,
        });
        Ok(())
    }

    /// Checks the start rule and terminal cycles, expands templates and places the ignored
    /// texts: the rules and about the bytes they hold.
    fn finish(mut self) -> Res<(Rules, usize)> {
        if !self.defs.iter().any(|d| d.name == "start") {
            return Err(PdaError::new(
                PdaErrorKind::EmptyGrammar,
                "the grammar has no rule `start`: Lark grammars start at `start`".to_string(),
            ));
        }
        if !self.templates.is_empty() || !self.uses.is_empty() {
            let budget = self.reading.budget();
            let mut nodes = 0;
            for d in &mut self.defs {
                let mut ex = template::Expander {
                    templates: &self.templates,
                    uses: &self.uses,
                    budget,
                    rule: (&d.name, Some(d.at)),
                    nodes,
                };
                let (body, _) = ex.expand(&d.body, &[], 0, 1)?;
                nodes = ex.nodes;
                d.body = body;
            }
            self.reading.held += nodes * 2 * std::mem::size_of::<Expr>();
        }
        let held = self.reading.held;
        check_terminal_cycles(&self.defs)?;
        let mut rules: Vec<RuleDef> = Vec::new();
        let ignoring = !self.ignores.is_empty();
        for d in self.defs {
            let body = match ignoring {
                true => d.body,
                false => unmark(d.body),
            };
            rules.push(RuleDef {
                name: d.name,
                at: Some(d.at),
                body,
            });
        }
        if !ignoring {
            let start = "start".to_string();
            return Ok((Rules { start, rules }, held));
        }
        let ignored = Expr::Repeat {
            expr: Box::new(Expr::Alt(self.ignores)),
            min: 0,
            max: None,
            at: None,
        };
        rules.push(RuleDef {
            name: IGNORE.to_string(),
            at: None,
            body: ignored,
        });
        rules.insert(
            0,
            RuleDef {
                name: START.to_string(),
                at: None,
                body: Expr::Seq(vec![
                    Expr::Ref(IGNORE.to_string(), None),
                    Expr::Ref("start".to_string(), None),
                ]),
            },
        );
        let start = START.to_string();
        Ok((Rules { start, rules }, held))
    }
}

/// `reading rule `x` (line 2, column 1)`, or the directive at `at` when `def` is `None`.
fn reading_place(lines: &Lines, def: Option<&str>, at: usize) -> String {
    match def {
        Some(name) => format!("reading {}", fmt_rule_at(name, Some(lines.pos(at)))),
        None => format!("reading the directive at {}", lines.pos(at)),
    }
}

/// Removes the marks of ignored texts (when there is no `%ignore`).
fn unmark(e: Expr) -> Expr {
    match e {
        Expr::Seq(items) if matches!(items.as_slice(), [_, Expr::Ref(n, None)] if n == IGNORE) => {
            items
                .into_iter()
                .next()
                .map_or(Expr::Seq(Vec::new()), unmark)
        }
        Expr::Seq(items) => Expr::Seq(items.into_iter().map(unmark).collect()),
        Expr::Alt(items) => Expr::Alt(items.into_iter().map(unmark).collect()),
        Expr::Repeat { expr, min, max, at } => Expr::Repeat {
            expr: Box::new(unmark(*expr)),
            min,
            max,
            at,
        },
        other => other,
    }
}

/// Terminals are regular: one that uses itself (through others) is refused, the first
/// such in the order written, with a terminal of its cycle that uses it. Linear in the
/// definitions.
fn check_terminal_cycles(defs: &[Def]) -> Res<()> {
    fn refs(e: &Expr, out: &mut Vec<String>) {
        let mut work = vec![e];
        while let Some(e) = work.pop() {
            match e {
                Expr::Ref(n, _) => out.push(n.clone()),
                Expr::Seq(v) | Expr::Alt(v) => work.extend(v),
                Expr::Repeat { expr, .. } => work.push(expr),
                _ => {}
            }
        }
    }
    let terminals: Vec<&Def> = defs.iter().filter(|d| d.terminal).collect();
    let index: HashMap<&str, usize> = (terminals.iter().enumerate())
        .map(|(i, d)| (d.name.as_str(), i))
        .collect();
    let uses: Vec<Vec<usize>> = terminals
        .iter()
        .map(|d| {
            let mut out = Vec::new();
            refs(&d.body, &mut out);
            out.iter()
                .filter_map(|n| index.get(n.as_str()).copied())
                .collect()
        })
        .collect();
    let (comp, _) = crate::rtn::components(&uses);
    // Per terminal, a terminal of its component that uses it (the first found).
    let mut used_by: Vec<Option<usize>> = vec![None; terminals.len()];
    for (k, list) in uses.iter().enumerate() {
        for &j in list.iter().filter(|&&j| comp[j] == comp[k]) {
            used_by[j].get_or_insert(k);
        }
    }
    if let Some((i, k)) = (used_by.iter().enumerate()).find_map(|(i, k)| Some((i, (*k)?))) {
        let (d, through) = (terminals[i], &terminals[k].name);
        return Err(PdaError::new(
            PdaErrorKind::Syntax,
            format!("terminal `{}` ({}) uses itself (through `{through}`): terminals must be regular; make it a rule (lower-case name)", d.name, d.at),
        ));
    }
    Ok(())
}
