//! The GBNF reader (llama.cpp's grammar format, written from its documentation) that also
//! reads the paper's arrow notation. See [`crate::gbnf`] for the syntax.

use std::collections::HashMap;

use super::ast::{
    deeper, fmt_rule_at, item_bytes, Expr, Lines, Pos, Reading, RuleDef, Rules, MAX_NESTING,
};
use super::dispatch::TagDispatch;
use super::lookahead::{self, Assertion};
use fstc_core::bytes::{Algebra, ByteDfa};

use crate::budget::Budget;
use crate::error::{PdaError, PdaErrorKind};
use crate::terminal_regex::{self as regex, PatternError};

/// Largest bound allowed in `{m,n}`: llama.cpp's own limit.
pub const MAX_REPEAT: u32 = 2000;

/// XGrammar's macros that act on token ids, refused by name.
const EBNF_MACROS: [&str; 3] = ["Token", "ExcludeToken", "TokenTagDispatch"];

/// Whether a rule attribute is XGrammar's capture bookkeeping of printed grammars
/// (`capture_hidden_stop_bytes=3`, `stop_capture="end"`): which bytes a capture reports,
/// nothing about the text, so accepted as `capture` is.
fn is_capture_metadata(item: &str) -> bool {
    let Some((key, value)) = item.split_once('=') else {
        return false;
    };
    let (key, value) = (key.trim_end(), value.trim_start());
    let number = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
    match key {
        "capture_hidden_suffix_bytes"
        | "capture_hidden_stop_bytes"
        | "capture_hidden_body_rule_id"
        | "capture_hidden_marker_rule_id" => number,
        "stop_capture" => is_quoted_name(value),
        _ => false,
    }
}

/// Whether `v` is a capture name as XGrammar writes one: `"..."`, non-empty, without
/// quotes or backslashes inside.
fn is_quoted_name(v: &str) -> bool {
    v.len() >= 3
        && v.starts_with('"')
        && v.ends_with('"')
        && !v[1..v.len() - 1].contains(['"', '\\'])
}

/// The automaton of [`Parser::substring_macro`]: state 0 starts, chunk `i`'s bytes run
/// from its first state to the first state of chunk `i + 1` (the last to an end state),
/// and a chunk's first state, reached only after a whole chunk, accepts.
fn substring_dfa(chunks: &[Vec<u8>]) -> Result<ByteDfa, String> {
    let total: usize = chunks.iter().map(Vec::len).sum();
    let mut edges = Vec::with_capacity(total * 2);
    let mut accepting = vec![true; total + 2];
    let mut first = 1u32;
    for c in chunks {
        let next = first + c.len() as u32;
        for (j, &b) in c.iter().enumerate() {
            let to = first + j as u32 + 1;
            edges.push((first + j as u32, b, b, to));
            accepting[to as usize] = false;
        }
        accepting[next as usize] = true;
        edges.push((0, c[0], c[0], first + 1));
        first = next;
    }
    Algebra::new()
        .from_edges(&edges, &accepting)
        .map_err(|e| format!("`Substring(...)`: {e}"))
}

/// Which text syntax the parser reads.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    /// llama.cpp's GBNF and the paper's arrow notation.
    Gbnf,
    /// XGrammar's EBNF: GBNF with `.` in names, only `::=`, C escapes, `root` required,
    /// one definition per rule, lookahead assertions after a rule's body; its token and
    /// tag macros and the rule attributes that act on tokens are refused by name.
    Ebnf,
}

pub(super) struct Parser<'a> {
    text: &'a str,
    /// Line and column of offsets, for messages and rule positions.
    lines: Lines<'a>,
    pos: usize,
    depth: usize,
    /// Groups and repetition operators on the deepest path of the item last read.
    height: usize,
    dialect: Dialect,
    reading: Reading<'a>,
    /// The rule being read (offsets of its name), for the budgets' messages.
    rule: (usize, usize),
    /// EBNF's lookahead assertions (`name ::= body (= ...)`), enforced once all is read.
    assertions: Vec<Assertion>,
}

type Res<T> = Result<T, PdaError>;

impl<'a> Parser<'a> {
    pub(super) fn new(text: &'a str, dialect: Dialect, budget: &'a Budget) -> Parser<'a> {
        Parser {
            text,
            lines: Lines::new(text),
            pos: 0,
            depth: 0,
            height: 0,
            dialect,
            reading: Reading::new(budget),
            rule: (0, 0),
            assertions: Vec::new(),
        }
    }

    /// Counts one parsed item holding `heap` bytes besides its node, and polls the budgets
    /// (what the item costs to read is linear in those bytes).
    fn count(&mut self, heap: usize) -> Res<()> {
        let (text, lines, rule) = (self.text, &self.lines, self.rule);
        (self.reading).count(heap, lines.bytes(), || reading_place(text, lines, rule))
    }

    /// What is being read, for the budgets' messages.
    fn place(&self) -> String {
        reading_place(self.text, &self.lines, self.rule)
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn at(&self, offset: usize) -> Pos {
        self.lines.pos(offset)
    }

    fn err(&self, offset: usize, what: impl AsRef<str>) -> PdaError {
        PdaError::new(
            PdaErrorKind::Syntax,
            format!("grammar {}: {}", self.at(offset), what.as_ref()),
        )
    }

    /// The error "expected `what`, found ..." at `offset`.
    fn expected(&self, offset: usize, what: &str) -> PdaError {
        self.err(
            offset,
            format!("expected {what}, found {}", self.found(offset)),
        )
    }

    /// The character at `offset`, for messages.
    fn found(&self, offset: usize) -> String {
        match self.text[offset..].chars().next() {
            Some(c) if c.is_control() => format!("{:?}", c),
            Some(c) => format!("`{c}`"),
            None => "the end of the grammar".to_string(),
        }
    }

    fn skip_space(&mut self) {
        let b = self.bytes();
        while let Some(&c) = b.get(self.pos) {
            match c {
                b' ' | b'\t' | b'\r' | b'\n' => self.pos += 1,
                b'#' => {
                    while b.get(self.pos).is_some_and(|&c| c != b'\n') {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.bytes().get(self.pos).copied()
    }

    /// The length of the rule arrow (`::=`, `->` or `→`) at `offset`, if one is there.
    fn arrow_len(&self, offset: usize) -> Option<usize> {
        let rest = &self.text[offset..];
        let arrows: &[&str] = match self.dialect {
            Dialect::Gbnf => &["::=", "->", "→"],
            Dialect::Ebnf => &["::="],
        };
        arrows
            .iter()
            .find(|a| rest.starts_with(*a))
            .map(|a| a.len())
    }

    fn name_len(&self, offset: usize) -> usize {
        let b = self.bytes();
        let mut end = offset;
        while let Some(&c) = b.get(end) {
            let ok = c.is_ascii_alphanumeric()
                || c == b'_'
                || (c == b'.' && self.dialect == Dialect::Ebnf)
                || (c == b'-' && b.get(end + 1) != Some(&b'>'));
            if !ok {
                break;
            }
            end += 1;
        }
        end - offset
    }

    /// Whether a new rule (`name ::=`) starts at the current position.
    fn at_rule_start(&mut self) -> bool {
        self.skip_space();
        let len = self.name_len(self.pos);
        if len == 0 {
            return false;
        }
        let save = self.pos;
        self.pos += len;
        if self.dialect == Dialect::Ebnf && self.bytes().get(self.pos) == Some(&b'[') {
            let line = self.text[self.pos..].split('\n').next().unwrap_or("");
            self.pos += line.find(']').map_or(0, |i| i + 1);
        }
        self.skip_space();
        let arrow = self.arrow_len(self.pos).is_some();
        self.pos = save;
        arrow
    }

    /// The rules, and about the bytes they hold.
    pub(super) fn rules(mut self) -> Res<(Rules, usize)> {
        let mut rules: Vec<RuleDef> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        while self.peek().is_some() {
            let start = self.pos;
            let len = self.name_len(start);
            if len == 0 {
                return Err(self.err(
                    start,
                    format!(
                        "expected a rule `name ::= ...`, found {}",
                        self.found(start)
                    ),
                ));
            }
            let name = self.text[start..start + len].to_string();
            let at = self.at(start);
            self.rule = (start, len);
            self.pos += len;
            if self.dialect == Dialect::Ebnf && self.bytes().get(self.pos) == Some(&b'[') {
                self.attributes(&name)?;
            }
            self.skip_space();
            let Some(arrow) = self.arrow_len(self.pos) else {
                return Err(self.err(
                    self.pos,
                    format!(
                        "expected `::=` after `{name}`, found {}",
                        self.found(self.pos)
                    ),
                ));
            };
            self.pos += arrow;
            let body = self.alternatives()?;
            if self.at_assertion() {
                self.assertion(&name)?;
            }
            if self.peek() == Some(b';') {
                self.pos += 1;
            }
            self.count(name.len())?;
            match index.get(&name).map(|&i| &mut rules[i]) {
                Some(r) if self.dialect == Dialect::Ebnf => {
                    return Err(self.err(
                        start,
                        format!(
                            "rule `{name}` is defined twice (first at {}); XGrammar's EBNF defines each rule once",
                            r.at.map_or(String::new(), |p| p.to_string())
                        ),
                    ))
                }
                Some(r) => match &mut r.body {
                    Expr::Alt(alts) => alts.push(body),
                    other => *other = Expr::Alt(vec![other.clone(), body]),
                },
                None => {
                    index.insert(name.clone(), rules.len());
                    rules.push(RuleDef {
                        name,
                        at: Some(at),
                        body,
                    })
                }
            }
        }
        let Some(first) = rules.first() else {
            return Err(PdaError::new(
                PdaErrorKind::EmptyGrammar,
                "the grammar has no rules; write at least one, such as `root ::= \"a\"`"
                    .to_string(),
            ));
        };
        let start = match rules.iter().any(|r| r.name == "root") {
            true => "root".to_string(),
            false if self.dialect == Dialect::Ebnf => {
                return Err(PdaError::new(
                    PdaErrorKind::EmptyGrammar,
                    "the grammar has no rule `root`: XGrammar's EBNF starts at `root`".to_string(),
                ))
            }
            false => first.name.clone(),
        };
        let rules = lookahead::expand(
            Rules { start, rules },
            &self.assertions,
            self.reading.budget(),
        )?;
        Ok((rules, self.reading.held))
    }

    /// The `)` closing `what` opened at `open`, read.
    fn close(&mut self, open: usize, what: &str) -> Res<()> {
        if self.peek() != Some(b')') {
            return Err(self.err(
                self.pos,
                format!(
                    "expected `)` closing {what} opened at {}, found {}",
                    self.at(open),
                    self.found(self.pos)
                ),
            ));
        }
        self.pos += 1;
        Ok(())
    }

    /// Whether XGrammar's `(=` starts at the current position (EBNF only).
    fn at_assertion(&mut self) -> bool {
        self.peek();
        self.dialect == Dialect::Ebnf && self.text[self.pos..].starts_with("(=")
    }

    /// `(= alternatives )` after the body of rule `name`: what must follow each of its
    /// occurrences (kept for [`lookahead::expand`]).
    fn assertion(&mut self, name: &str) -> Res<()> {
        let open = self.pos;
        self.pos += 2;
        self.depth += 1;
        let expr = self.alternatives()?;
        self.depth -= 1;
        self.close(open, "the lookahead assertion")?;
        let at = self.at(open);
        self.assertions.push(Assertion {
            rule: name.to_string(),
            expr,
            at,
        });
        Ok(())
    }

    fn alternatives(&mut self) -> Res<Expr> {
        let mut alts = vec![self.sequence()?];
        let mut height = self.height;
        while self.peek() == Some(b'|') {
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
            match self.peek() {
                None | Some(b'|' | b')' | b';') => break,
                _ if self.at_rule_start() || self.at_assertion() => break,
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

    fn atom(&mut self) -> Res<Expr> {
        let at = self.pos;
        self.height = 0;
        match self.bytes()[at] {
            b'"' => self.literal(),
            b'[' => self.class(),
            b'.' => {
                self.pos += 1;
                Ok(Expr::Class {
                    ranges: Vec::new(),
                    negated: true,
                })
            }
            b'<' | b'!' if self.text[at..].starts_with('<') || self.text[at..].starts_with("!<") => {
                Err(self.err(
                    at,
                    "token references (`<[id]>`, `<token text>`, `!<[id]>`) are not supported: they name token ids of one vocabulary, not text; write the token's text as a literal",
                ))
            }
            b'(' => {
                if self.depth >= MAX_NESTING {
                    return Err(self.err(at, format!("groups nested more than {MAX_NESTING} deep")));
                }
                self.pos += 1;
                self.depth += 1;
                let inner = self.alternatives()?;
                self.depth -= 1;
                self.deeper(at)?;
                if self.at_assertion() {
                    return Err(self.err(self.pos, "a lookahead assertion `(= ...)` may only follow a rule's whole body (`name ::= body (= ...)`), not end a group"));
                }
                self.close(at, "the group")?;
                Ok(inner)
            }
            _ => {
                let len = self.name_len(at);
                if len == 0 {
                    return Err(self.err(
                        at,
                        format!(
                            "expected a rule name, a \"literal\", a [class], `.` or `(`, found {}",
                            self.found(at)
                        ),
                    ));
                }
                let name = &self.text[at..at + len];
                if self.dialect == Dialect::Ebnf
                    && name == "Regex"
                    && self.text[at + len..].starts_with('(')
                {
                    return self.regex_macro(at);
                }
                if self.dialect == Dialect::Ebnf
                    && name == "Substring"
                    && self.text[at + len..].starts_with('(')
                {
                    return self.substring_macro(at);
                }
                if self.dialect == Dialect::Ebnf
                    && name == "TagDispatch"
                    && self.text[at + len..].starts_with('(')
                {
                    return self.dispatch_macro(at);
                }
                if self.dialect == Dialect::Ebnf
                    && EBNF_MACROS.contains(&name)
                    && self.text[at + len..].starts_with('(')
                {
                    return Err(self.err(
                        at,
                        format!("XGrammar's macro `{name}(...)` is not supported: it acts on token ids of one vocabulary, not on the text"),
                    ));
                }
                self.pos += len;
                Ok(Expr::Ref(name.to_string(), Some(self.at(at))))
            }
        }
    }

    /// One more group or repetition operator (at `at`) around the item last read.
    fn deeper(&mut self, at: usize) -> Res<()> {
        deeper(&mut self.height).map_err(|m| self.err(at, m))
    }

    fn postfix(&mut self, mut expr: Expr) -> Res<Expr> {
        loop {
            // Operators must follow their operand directly or after spaces on the same line.
            let at = self.pos;
            let (min, max) = match self.bytes().get(at) {
                Some(b'*') => (0, None),
                Some(b'+') => (1, None),
                Some(b'?') => (0, Some(1)),
                Some(b'{') => self.braces()?,
                Some(b' ' | b'\t') => {
                    let save = self.pos;
                    while matches!(self.bytes().get(self.pos), Some(b' ' | b'\t')) {
                        self.pos += 1;
                    }
                    if matches!(self.bytes().get(self.pos), Some(b'*' | b'+' | b'?' | b'{')) {
                        continue;
                    }
                    self.pos = save;
                    return Ok(expr);
                }
                _ => return Ok(expr),
            };
            if self.bytes()[at] != b'{' {
                self.pos += 1;
            }
            self.deeper(at)?;
            expr = Expr::Repeat {
                expr: Box::new(expr),
                min,
                max,
                at: Some(self.at(at)),
            };
        }
    }

    /// `{m}`, `{m,}`, `{m,n}` or `{,n}` (EBNF: also `{m,-1}`).
    fn braces(&mut self) -> Res<(u32, Option<u32>)> {
        let ebnf = self.dialect == Dialect::Ebnf;
        let (bounds, end) =
            repeat_bounds(self.text, self.pos, ebnf).map_err(|(at, m)| self.err(at, m))?;
        self.pos = end;
        Ok(bounds)
    }

    fn literal(&mut self) -> Res<Expr> {
        self.literal_bytes().map(Expr::Bytes)
    }

    /// XGrammar's `Regex("pattern")` (`json_string=false` allowed): the texts the pattern
    /// matches in full, read as ECMAScript (as XGrammar reads JSON Schema patterns) with
    /// the refusals of Lark's regex terminals; `^` and `$` at its ends (which a full match
    /// implies) are dropped.
    fn regex_macro(&mut self, at: usize) -> Res<Expr> {
        self.pos = at + "Regex(".len();
        if self.peek() != Some(b'"') {
            return Err(self.err(
                self.pos,
                format!(
                    "`Regex(...)` takes a \"pattern\" string, found {}",
                    self.found(self.pos)
                ),
            ));
        }
        let lit = self.pos;
        let pattern = String::from_utf8_lossy(&self.literal_bytes()?).into_owned();
        if self.peek() == Some(b',') {
            self.pos += 1;
            self.skip_space();
            let arg = &self.text[self.pos..];
            let value = arg.strip_prefix("json_string").map(|r| r.trim_start());
            if arg.starts_with("flags") {
                return Err(self.err(self.pos, "`Regex(..., flags=\"...\")` is not supported: write the flags' meaning into the pattern (`[aA]` for `i`, `[^]` for `.` with `s`)"));
            }
            let Some(value) = value.and_then(|r| r.strip_prefix('=')).map(str::trim_start) else {
                return Err(self.err(
                    self.pos,
                    "`Regex(...)` takes only the named arguments `json_string` and `flags`",
                ));
            };
            if value.starts_with("true") {
                return Err(self.err(self.pos, "`Regex(..., json_string=true)` is not supported: write the JSON string's escaped form in the pattern"));
            }
            if !value.starts_with("false") {
                return Err(self.err(self.pos, "`json_string` must be `true` or `false`"));
            }
            self.pos = self.text.len() - value.len() + "false".len();
        }
        if self.peek() != Some(b')') {
            return Err(self.err(
                self.pos,
                format!(
                    "expected `)` closing `Regex(`, found {}",
                    self.found(self.pos)
                ),
            ));
        }
        self.pos += 1;
        let core = pattern.strip_prefix('^').unwrap_or(&pattern);
        let core = match core.strip_suffix('$') {
            Some(c) if !c.ends_with('\\') => c,
            _ => core,
        };
        let budget = self.reading.budget();
        let dfa = match regex::ecma_regex(core, budget.deadline()) {
            Ok(dfa) => dfa,
            Err(PatternError::Deadline) => return Err(budget.out_of_time(&self.place())),
            Err(PatternError::At(_, m)) => {
                return Err(self.err(lit, format!("in the pattern of `Regex(...)`: {m}")))
            }
        };
        let bytes = regex::dfa_bytes(&dfa);
        let dfa = Expr::Dfa(std::sync::Arc::new(dfa));
        self.count(bytes)?;
        Ok(dfa)
    }

    /// XGrammar's `TagDispatch(("trigger", rule), ..., loop_after_dispatch=B,
    /// excludes=("s", ...))` (see `dispatch`): pairs and named arguments in any order,
    /// separated by `,`, a trailing `,` allowed inside a pair or `excludes`.
    fn dispatch_macro(&mut self, at: usize) -> Res<Expr> {
        self.pos = at + "TagDispatch(".len();
        let mut d = TagDispatch::new();
        while self.peek() != Some(b')') {
            let here = self.pos;
            if self.peek() == Some(b'(') {
                self.pos += 1;
                let trigger = self.macro_string("a (\"trigger\", rule) pair")?;
                self.expect(b',', "after the trigger")?;
                self.peek();
                let (name, len) = (self.pos, self.name_len(self.pos));
                if len == 0 {
                    return Err(self.expected(name, "the rule of the trigger"));
                }
                self.pos += len;
                if self.peek() == Some(b',') {
                    self.pos += 1;
                }
                self.expect(b')', "closing the pair")?;
                d.pairs.push((
                    trigger,
                    self.text[name..name + len].to_string(),
                    self.at(name),
                ));
            } else {
                let len = self.name_len(here);
                let arg = &self.text[here..here + len];
                self.pos += len;
                self.expect(b'=', "after a named argument")?;
                match arg {
                    "loop_after_dispatch" => d.looping = self.macro_bool()?,
                    "excludes" => d.excludes = self.macro_strings()?,
                    _ => return Err(self.err(here, format!("unknown argument {} of `TagDispatch(...)` (XGrammar's are (\"trigger\", rule) pairs, `loop_after_dispatch` and `excludes`)", match arg { "" => self.found(here), _ => format!("`{arg}`") }))),
                }
            }
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => break,
                _ => return Err(self.expected(self.pos, "`,` or `)` in `TagDispatch(`")),
            }
        }
        self.pos += 1;
        let (expr, bytes) = d.expr().map_err(|m| self.err(at, m))?;
        self.count(bytes)?;
        Ok(expr)
    }

    /// The `"..."` literal of a macro argument, `what` saying where for the message.
    fn macro_string(&mut self, what: &str) -> Res<Vec<u8>> {
        if self.peek() != Some(b'"') {
            return Err(self.expected(self.pos, &format!("a \"string\" in {what}")));
        }
        self.literal_bytes()
    }

    /// `("s", ...)`, a trailing `,` allowed.
    fn macro_strings(&mut self) -> Res<Vec<Vec<u8>>> {
        self.expect(b'(', "opening the list of strings")?;
        let mut out = Vec::new();
        while self.peek() != Some(b')') {
            out.push(self.macro_string("the list")?);
            if self.peek() != Some(b',') {
                break;
            }
            self.pos += 1;
        }
        self.expect(b')', "closing the list of strings")?;
        Ok(out)
    }

    /// `true` or `false`.
    fn macro_bool(&mut self) -> Res<bool> {
        self.peek();
        for (word, value) in [("true", true), ("false", false)] {
            if self.text[self.pos..].starts_with(word) && self.name_len(self.pos) == word.len() {
                self.pos += word.len();
                return Ok(value);
            }
        }
        Err(self.expected(self.pos, "`true` or `false`"))
    }

    /// Consumes `b` (after space), or the error saying it was expected `what`.
    fn expect(&mut self, b: u8, what: &str) -> Res<()> {
        if self.peek() != Some(b) {
            return Err(self.expected(self.pos, &format!("`{}` {what}", b as char)));
        }
        self.pos += 1;
        Ok(())
    }

    /// XGrammar's `Substring("c1", "c2", ...)`: every concatenation of consecutive chunks,
    /// the empty one included (chunks are atomic: `Substring("ab", "c")` has `abc`, not
    /// `bc`). Built as an automaton over the chunks' bytes: from the start, the first byte
    /// of any chunk; every chunk's end accepts and goes on to the next chunk.
    fn substring_macro(&mut self, at: usize) -> Res<Expr> {
        self.pos = at + "Substring(".len();
        let mut chunks: Vec<Vec<u8>> = Vec::new();
        while self.peek() != Some(b')') || !chunks.is_empty() {
            match self.peek() {
                Some(b'"') => chunks.push(self.literal_bytes()?),
                _ => {
                    return Err(self.err(
                        self.pos,
                        format!(
                            "`Substring(...)` takes \"chunk\" strings separated by `,`, found {}",
                            self.found(self.pos)
                        ),
                    ))
                }
            }
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => break,
                _ => {
                    return Err(self.err(
                        self.pos,
                        format!(
                            "expected `,` or `)` in `Substring(`, found {}",
                            self.found(self.pos)
                        ),
                    ))
                }
            }
        }
        self.pos += 1;
        chunks.retain(|c| !c.is_empty());
        self.count(chunks.iter().map(Vec::len).sum::<usize>() * 16)?;
        let dfa = substring_dfa(&chunks).map_err(|m| self.err(at, m))?;
        Ok(Expr::Dfa(std::sync::Arc::new(dfa)))
    }

    /// XGrammar's rule attributes: `name[capture]`, `name[capture="x"]` and the capture
    /// bookkeeping of printed grammars name captures and change nothing here; `max_tokens`,
    /// `max_chars`, `lazy` and `temperature` are refused by name.
    fn attributes(&mut self, name: &str) -> Res<()> {
        let open = self.pos;
        let line = self.text[open..].split('\n').next().unwrap_or("");
        let Some(close) = line.find(']').map(|i| open + i) else {
            return Err(self.err(open, format!("unclosed rule attributes `{name}[...`")));
        };
        for item in self.text[open + 1..close].split(',').map(str::trim) {
            let value = item.strip_prefix("capture").map(str::trim_start);
            match value {
                Some("") => {}
                Some(v) if v.strip_prefix('=').map(str::trim_start).is_some_and(is_quoted_name) => {}
                _ if item.starts_with("max_tokens") => {
                    return Err(self.err(open, format!("the rule attribute `max_tokens` (`{name}[max_tokens=N]`) is not supported: it bounds the rule's tokens, not its text")))
                }
                _ if item.starts_with("max_chars") => {
                    return Err(self.err(open, format!("the rule attribute `max_chars` (`{name}[max_chars=N]`) is not supported: XGrammar relaxes it to the rule's next possible end, so it is no exact bound on the text")))
                }
                _ if item == "lazy" => {
                    return Err(self.err(open, format!("the rule attribute `lazy` (`{name}[lazy]`) is not supported: it keeps only the rule's earliest end")))
                }
                _ if item.starts_with("temperature") => {
                    return Err(self.err(open, format!("the rule attribute `temperature` (`{name}[temperature=T]`) is not supported: it sets sampling, which fstc's masks do not")))
                }
                _ if is_capture_metadata(item) => {}
                _ => {
                    return Err(self.err(open, format!("unknown rule attribute `{item}` (XGrammar's are `capture`, `capture=\"name\"`, `capture_hidden_*=N`, `stop_capture=\"name\"`, `max_tokens=N`, `max_chars=N`, `lazy` and `temperature=T`)")))
                }
            }
        }
        self.pos = close + 1;
        Ok(())
    }

    /// The bytes of the `"..."` literal at the position.
    fn literal_bytes(&mut self) -> Res<Vec<u8>> {
        let open = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let Some(c) = self.text[self.pos..].chars().next() else {
                return Err(self.err(open, "unterminated literal: no closing `\"`"));
            };
            match c {
                '"' => {
                    self.pos += 1;
                    return Ok(out);
                }
                // llama.cpp reads a line break inside a literal as itself; EBNF ends it at the line.
                '\n' if self.dialect == Dialect::Ebnf => {
                    return Err(self.err(
                        open,
                        "unterminated literal: the line ends before the closing `\"` (write \\n for a newline)",
                    ))
                }
                '\\' => {
                    let c = self.escape()?;
                    let mut buf = [0; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                _ => {
                    out.extend_from_slice(&self.text.as_bytes()[self.pos..self.pos + c.len_utf8()]);
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    /// An escape at `self.pos` (the backslash), as the character it stands for.
    fn escape(&mut self) -> Res<char> {
        let at = self.pos;
        let Some(e) = self.text[at + 1..].chars().next() else {
            return Err(self.err(at, "a `\\` ends the grammar"));
        };
        self.pos += 1 + e.len_utf8();
        let ebnf = self.dialect == Dialect::Ebnf;
        let digits = match e {
            'x' if ebnf => self.text[self.pos..]
                .bytes()
                .take_while(u8::is_ascii_hexdigit)
                .count()
                .clamp(1, 8),
            'x' => 2,
            'u' => 4,
            'U' => 8,
            'n' => return Ok('\n'),
            'r' => return Ok('\r'),
            't' => return Ok('\t'),
            '0' => return Ok('\0'),
            '\\' | '"' | '\'' | '[' | ']' | '-' | '^' | '/' => return Ok(e),
            'a' if ebnf => return Ok('\u{7}'),
            'b' if ebnf => return Ok('\u{8}'),
            'f' if ebnf => return Ok('\u{c}'),
            'v' if ebnf => return Ok('\u{b}'),
            'e' if ebnf => return Ok('\u{1b}'),
            '?' | '$' | '.' | '*' | '+' | '(' | ')' | '{' | '}' | '|' if ebnf => return Ok(e),
            _ if ebnf => {
                return Err(self.err(
                    at,
                    format!(
                        "unknown escape `\\{e}` (known: \\n \\r \\t \\0 \\a \\b \\f \\v \\e \\xH.. \\uHHHH \\UHHHHHHHH and \\ before one of \\\"'?[]-^/$.*+(){{}}|)"
                    ),
                ))
            }
            _ => {
                return Err(self.err(
                    at,
                    format!(
                        "unknown escape `\\{e}` (known: \\n \\r \\t \\0 \\\\ \\\" \\' \\[ \\] \\- \\^ \\/ \\xHH \\uHHHH \\UHHHHHHHH)"
                    ),
                ))
            }
        };
        let c = hex_scalar(self.text, self.pos, e, digits).map_err(|m| self.err(at, m))?;
        self.pos += digits;
        Ok(c)
    }

    /// `[...]` or `[^...]`: characters and ranges `a-z`, with escapes.
    fn class(&mut self) -> Res<Expr> {
        let open = self.pos;
        self.pos += 1;
        let negated = self.text[self.pos..].starts_with('^');
        if negated {
            self.pos += 1;
        }
        let mut ranges = Vec::new();
        loop {
            let lo = match self.class_char(open)? {
                None => break,
                Some(c) => c,
            };
            let hi = if self.text[self.pos..].starts_with('-')
                && !self.text[self.pos + 1..].starts_with(']')
            {
                let dash = self.pos;
                self.pos += 1;
                match self.class_char(open)? {
                    Some(hi) if hi >= lo => hi,
                    Some(hi) => {
                        return Err(self.err(
                            dash,
                            format!(
                                "reversed range `{}-{}` in a character class",
                                lo.escape_debug(),
                                hi.escape_debug()
                            ),
                        ))
                    }
                    None => return Err(self.err(dash, "a range in a character class has no end")),
                }
            } else {
                lo
            };
            ranges.push((lo as u32, hi as u32));
        }
        Ok(Expr::Class { ranges, negated })
    }

    /// The next character of a class, or `None` at its closing `]`.
    fn class_char(&mut self, open: usize) -> Res<Option<char>> {
        match self.text[self.pos..].chars().next() {
            None => Err(self.err(open, "unterminated character class: no closing `]`")),
            Some('\n') if self.dialect == Dialect::Ebnf => Err(self.err(
                open,
                "unterminated character class: the line ends before `]`",
            )),
            Some(']') => {
                self.pos += 1;
                Ok(None)
            }
            Some('\\') => self.escape().map(Some),
            Some(c) => {
                self.pos += c.len_utf8();
                Ok(Some(c))
            }
        }
    }
}

/// `reading rule `x` (line 2, column 1)`: the rule whose name is at `rule` (offset, length).
fn reading_place(text: &str, lines: &Lines, rule: (usize, usize)) -> String {
    let (start, len) = rule;
    let at = Some(lines.pos(start));
    format!("reading {}", fmt_rule_at(&text[start..start + len], at))
}

/// A repetition's least and most counts (`None`: no most).
pub(crate) type Bounds = (u32, Option<u32>);

/// The bounds of the repetition `{m}`, `{m,}`, `{m,n}` or `{,n}` whose `{` is at `open`
/// (spaces inside, not newlines; with `minus_one`, XGrammar's printed `{m,-1}` for `{m,}`)
/// and the offset past its `}`, or where and what is wrong: the one reader of brace
/// repetitions for GBNF, EBNF and Lark.
pub(crate) fn repeat_bounds(
    text: &str,
    open: usize,
    minus_one: bool,
) -> Result<(Bounds, usize), (usize, String)> {
    let err = |m: String| (open, m);
    let close = text[open..]
        .find(['}', '\n'])
        .map(|i| open + i)
        .filter(|&c| text.as_bytes()[c] == b'}')
        .ok_or_else(|| err("unclosed `{`: expected `{m}`, `{m,}` or `{m,n}`".to_string()))?;
    let inner: String = text[open + 1..close]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let number = |s: &str| -> Result<u32, (usize, String)> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err(format!(
                "bad repetition `{{{inner}}}`: expected `{{m}}`, `{{m,}}` or `{{m,n}}`"
            )));
        }
        match s.parse::<u32>() {
            Ok(v) if v <= MAX_REPEAT => Ok(v),
            _ => Err(err(format!(
                "repetition bound {s} is above the limit of {MAX_REPEAT}"
            ))),
        }
    };
    let (min, max) = match inner.split_once(',') {
        None => {
            let m = number(&inner)?;
            (m, Some(m))
        }
        Some((m, n)) => {
            let min = if m.is_empty() { 0 } else { number(m)? };
            let max = match n {
                "" => None,
                "-1" if minus_one => None,
                n => Some(number(n)?),
            };
            (min, max)
        }
    };
    if max.is_some_and(|n| n < min) {
        return Err(err(format!(
            "bad repetition `{{{inner}}}`: the maximum is below the minimum"
        )));
    }
    Ok(((min, max), close + 1))
}

/// The character written by the `digits` hexadecimal digits at `at` after the escape
/// `\e` (`\x`, `\u`, `\U`), or the message naming what is wrong: the one reader of
/// hexadecimal escapes for GBNF, EBNF and Lark string literals.
pub(crate) fn hex_scalar(text: &str, at: usize, e: char, digits: usize) -> Result<char, String> {
    let hex = text
        .get(at..at + digits)
        .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or_else(|| format!("`\\{e}` must be followed by {digits} hexadecimal digits"))?;
    let value = u32::from_str_radix(hex, 16).unwrap_or(u32::MAX);
    char::from_u32(value).ok_or_else(|| {
        format!("`\\{e}{hex}` is not a Unicode scalar value (surrogate or above U+10FFFF)")
    })
}
