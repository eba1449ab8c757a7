//! ECMA-262 `u`-mode syntax rules that regex-syntax does not share, checked on the
//! user's pattern after `extensions::rewrite` (which has already refused escapes,
//! groups and classes outside ECMAScript): a lone `]`, `{` or `}`, a quantifier with
//! nothing to repeat or after an assertion (`(?=a)*`, `\b+`), a class escape as a range
//! end (`[\d-z]`), a range out of order, an unbalanced `)`, a duplicate group name.
//! And the translation of ECMAScript's escapes, classes and group names into regex-syntax
//! text, which the extension rewriter applies as it walks the pattern.

use super::spans::Output;
use super::{shown, unsupported_at, RegexError, RegexErrorKind};

/// Checks `pattern` against ECMAScript's `u`-mode grammar; the error names the offending
/// text and its byte offsets.
pub(crate) fn check(pattern: &str) -> Result<(), RegexError> {
    let mut c = Checker {
        p: pattern,
        b: pattern.as_bytes(),
        i: 0,
        names: Vec::new(),
    };
    c.disjunction()?;
    match c.peek() {
        None => Ok(()),
        Some(_) => Err(c.error(c.i, c.i + 1, "this `)` closes no group")),
    }
}

struct Checker<'p> {
    p: &'p str,
    b: &'p [u8],
    i: usize,
    names: Vec<&'p str>,
}

impl<'p> Checker<'p> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn error(&self, start: usize, end: usize, what: &str) -> RegexError {
        let end = (end.min(self.p.len())..=self.p.len())
            .find(|&e| self.p.is_char_boundary(e))
            .unwrap_or(self.p.len());
        RegexError::new(
            RegexErrorKind::Syntax,
            Some((start, end)),
            format!(
                "ECMAScript syntax error (with the `u` flag) at bytes {start}..{end} (`{}`): {what}",
                shown(&self.p[start..end])
            ),
        )
    }

    fn disjunction(&mut self) -> Result<(), RegexError> {
        loop {
            while !matches!(self.peek(), None | Some(b'|' | b')')) {
                self.term()?;
            }
            if self.peek() != Some(b'|') {
                return Ok(());
            }
            self.i += 1;
        }
    }

    /// An assertion, or an atom with an optional quantifier.
    fn term(&mut self) -> Result<(), RegexError> {
        let start = self.i;
        let rest = &self.p[start..];
        let assertion = if rest.starts_with(['^', '$']) {
            self.i += 1;
            true
        } else if rest.starts_with("\\b") || rest.starts_with("\\B") {
            self.i += 2;
            true
        } else if let Some(len) = ["(?=", "(?!", "(?<=", "(?<!"]
            .iter()
            .find(|h| rest.starts_with(**h))
            .map(|h| h.len())
        {
            self.i += len;
            self.group_body(start)?;
            true
        } else {
            self.atom()?;
            false
        };
        let q = self.i;
        if self.quantifier()? && assertion {
            return Err(self.error(
                q,
                self.i,
                "an assertion cannot be quantified (`^`, `$`, `\\b`, `\\B` and look-around match \
                 no text)",
            ));
        }
        Ok(())
    }

    /// A disjunction up to the `)` closing the group opened at `open`.
    fn group_body(&mut self, open: usize) -> Result<(), RegexError> {
        self.disjunction()?;
        if self.peek() != Some(b')') {
            return Err(self.error(open, self.i, "the group is not closed"));
        }
        self.i += 1;
        Ok(())
    }

    /// Consumes a quantifier, if one follows; `{` that does not start one is left.
    fn quantifier(&mut self) -> Result<bool, RegexError> {
        let start = self.i;
        match self.peek() {
            Some(b'*' | b'+' | b'?') => self.i += 1,
            Some(b'{') => match self.braces() {
                Some((min, max, end)) => {
                    if max.is_some_and(|m| m < min) {
                        return Err(self.error(start, end, "the numbers are out of order"));
                    }
                    self.i = end;
                }
                None => return Ok(false),
            },
            _ => return Ok(false),
        }
        if self.peek() == Some(b'?') {
            self.i += 1;
        }
        Ok(true)
    }

    /// `{n}`, `{n,}` or `{n,m}` at the cursor: (n, m, index after `}`).
    fn braces(&self) -> Option<(u64, Option<u64>, usize)> {
        let rest = &self.p[self.i + 1..];
        let close = rest.find('}')?;
        let inner = &rest[..close];
        let number = |s: &str| -> Option<u64> {
            (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse().unwrap_or(u64::MAX))
        };
        let (min, max) = match inner.split_once(',') {
            None => (number(inner)?, Some(number(inner)?)),
            Some((a, "")) => (number(a)?, None),
            Some((a, b)) => (number(a)?, Some(number(b)?)),
        };
        Some((min, max, self.i + 1 + close + 1))
    }

    fn atom(&mut self) -> Result<(), RegexError> {
        let start = self.i;
        match self.b[start] {
            b'\\' => {
                self.escape()?;
            }
            b'[' => self.class()?,
            b'(' => {
                let rest = &self.p[start..];
                if rest.starts_with("(?:") {
                    self.i += 3;
                } else if rest.starts_with("(?<") {
                    let close = rest.find('>').map_or(self.p.len(), |k| start + k);
                    let name = &self.p[start + 3..close];
                    if self.names.contains(&name) {
                        return Err(self.error(start, close + 1, "a group name is used twice"));
                    }
                    self.names.push(name);
                    self.i = close + 1;
                } else {
                    self.i += 1;
                }
                self.group_body(start)?;
            }
            b'*' | b'+' | b'?' => {
                return Err(self.error(start, start + 1, "the quantifier has nothing to repeat"))
            }
            b'{' => {
                let what = match self.braces() {
                    Some(_) => "the quantifier has nothing to repeat",
                    None => "a lone `{` is not allowed with the `u` flag; write `\\{`",
                };
                return Err(self.error(start, start + 1, what));
            }
            b'}' | b']' => {
                return Err(self.error(
                    start,
                    start + 1,
                    "a lone `]` or `}` is not allowed with the `u` flag; escape it with `\\`",
                ))
            }
            _ => {
                let c = self.p[start..].chars().next().expect("in bounds");
                self.i += c.len_utf8();
            }
        }
        Ok(())
    }

    /// Consumes an escape (already checked by the rewriter); returns the character it
    /// stands for, or `None` for a class escape (`\d`, `\p{..}`, ...).
    fn escape(&mut self) -> Result<Option<u32>, RegexError> {
        let start = self.i;
        let c = self.p[start + 1..]
            .chars()
            .next()
            .expect("checked by the rewriter");
        self.i = start + 1 + c.len_utf8();
        let hex = |s: &str| u32::from_str_radix(s, 16).unwrap_or(u32::MAX);
        Ok(Some(match c {
            'd' | 'D' | 's' | 'S' | 'w' | 'W' => return Ok(None),
            'p' | 'P' => {
                self.i = self.p[start..]
                    .find('}')
                    .map_or(self.p.len(), |k| start + k + 1);
                return Ok(None);
            }
            'b' => 0x08,
            'f' => 0x0C,
            'n' => 0x0A,
            'r' => 0x0D,
            't' => 0x09,
            'v' => 0x0B,
            '0' => 0,
            'c' => {
                self.i += 1;
                u32::from(self.b[start + 2] % 32)
            }
            'x' => {
                self.i += 2;
                hex(&self.p[start + 2..start + 4])
            }
            'u' if self.b.get(start + 2) == Some(&b'{') => {
                let close = self.p[start..]
                    .find('}')
                    .map_or(self.p.len(), |k| start + k);
                self.i = close + 1;
                hex(&self.p[start + 3..close])
            }
            'u' => {
                let hi = hex(&self.p[start + 2..start + 6]);
                self.i = start + 6;
                let lo = self
                    .p
                    .get(start + 6..start + 12)
                    .and_then(|s| s.strip_prefix("\\u"));
                match lo.map(hex) {
                    Some(lo @ 0xDC00..=0xDFFF) if (0xD800..=0xDBFF).contains(&hi) => {
                        self.i = start + 12;
                        0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                    }
                    _ => hi,
                }
            }
            other => other as u32,
        }))
    }

    /// A class: atoms and ranges whose ends are single characters in order.
    fn class(&mut self) -> Result<(), RegexError> {
        let open = self.i;
        self.i += 1;
        if self.peek() == Some(b'^') {
            self.i += 1;
        }
        loop {
            match self.peek() {
                None => return Err(self.error(open, self.i, "the class is not closed")),
                Some(b']') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => {}
            }
            let a_start = self.i;
            let a = self.class_atom()?;
            let dash = self.i;
            if self.peek() != Some(b'-') || matches!(self.b.get(dash + 1), None | Some(b']')) {
                continue;
            }
            self.i += 1;
            let b = self.class_atom()?;
            match (a, b) {
                (Some(x), Some(y)) if x > y => {
                    return Err(self.error(a_start, self.i, "the range is out of order"))
                }
                (Some(_), Some(_)) => {}
                _ => {
                    return Err(self.error(
                        a_start,
                        self.i,
                        "a class escape (`\\d`, `\\w`, `\\s`, `\\p{...}`) cannot be a range end",
                    ))
                }
            }
        }
    }

    fn class_atom(&mut self) -> Result<Option<u32>, RegexError> {
        if self.peek() == Some(b'\\') {
            return self.escape();
        }
        let c = self.p[self.i..].chars().next().expect("in bounds");
        self.i += c.len_utf8();
        Ok(Some(c as u32))
    }
}

// ECMAScript (ECMA-262 with the `u` flag) translated to regex-syntax, for the extension
// rewriter (`extensions::rewrite`), which walks the pattern and calls these where an
// escape, a class or a named group starts.

/// ECMAScript's `\s`: WhiteSpace and LineTerminator (ECMA-262 §22.2.2.9), as class items.
const ECMA_SPACE: &str = r"\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";
/// ECMAScript's `\w` (ASCII only, also with the `u` flag unless `i` is set).
const ECMA_WORD: &str = "0-9A-Za-z_";

/// ECMAScript (ECMA-262 with the `u` flag) translated to regex-syntax: rewrites the escape,
/// class, `.` or group header at `i` (before `end`) into `out` and returns the index after
/// it. Escapes and classes take their ECMAScript meaning (`\d` = `[0-9]`, `\w` =
/// `[0-9A-Za-z_]`, `\s` per ECMA, `\b` on ASCII word characters), `.` excludes every line
/// terminator, `(?<name>` becomes `(?:`, and regex-syntax's own group syntax (`(?i)` flags,
/// `(?P<`) is refused by name. The extension rewriter decides which constructs come here.
pub(crate) fn translate(
    p: &str,
    i: usize,
    end: usize,
    out: &mut Output,
) -> Result<usize, RegexError> {
    match p.as_bytes()[i] {
        b'.' => {
            out.emit(r"[^\n\r\x{2028}\x{2029}]", i, i + 1);
            Ok(i + 1)
        }
        b'[' => {
            let (text, next) = class(p, i, end)?;
            out.emit(&text, i, next);
            Ok(next)
        }
        b'(' => named_group(p, i, out),
        _ => {
            let (text, next) = escape(p, i, false)?;
            out.emit(&text, i, next);
            Ok(next)
        }
    }
}

/// `(?<name>` as `(?:` (the name checked); any other `(?` is not ECMAScript.
fn named_group(p: &str, i: usize, out: &mut Output) -> Result<usize, RegexError> {
    if p[i..].starts_with("(?<") {
        let after = group_name(p, i + 3)?;
        out.emit("(?:", i, after);
        return Ok(after);
    }
    let end = (i + 4).min(p.len());
    let end = (end..=p.len())
        .find(|&e| p.is_char_boundary(e))
        .unwrap_or(end);
    Err(unsupported_at(
        "non-ECMAScript group",
        (i, end),
        &p[i..end],
        "ECMAScript groups are `(...)`, `(?:...)`, `(?<name>...)` and look-around; \
         flags such as `(?i)` and `(?P<name>` belong to other dialects",
    ))
}

/// Index just past the ECMAScript class opening at `i`, or `None` when it never closes:
/// no nesting (`[` is literal inside), and `]` right after `[` or `[^` closes (`[]`,
/// `[^]`).
pub(crate) fn class_end(p: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    while i < p.len() {
        match p[i] {
            b'\\' => i += 2,
            b']' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Checks the ECMAScript group name starting at `at` (after `(?<`); returns the index
/// after its `>`. A name starts with a letter (Unicode alphabetic), `$` or `_` and goes
/// on with those and digits (Unicode alphanumeric): ECMA-262's ID_Start and ID_Continue,
/// approximated by Rust's `char` predicates.
pub(crate) fn group_name(p: &str, at: usize) -> Result<usize, RegexError> {
    let start_ok = |c: char| c == '$' || c == '_' || c.is_alphabetic();
    let part_ok =
        |c: char| start_ok(c) || c.is_alphanumeric() || matches!(c, '\u{200C}' | '\u{200D}');
    let mut end = at;
    for (k, c) in p[at..].char_indices() {
        end = at + k;
        if c == '>' && k > 0 {
            return Ok(end + 1);
        }
        if !(if k == 0 { start_ok(c) } else { part_ok(c) }) {
            break;
        }
        end += c.len_utf8();
    }
    let stop = p[end..].chars().next().map_or(end, |c| end + c.len_utf8());
    Err(unsupported_at(
        "group name",
        (at - 3, stop),
        &p[at - 3..stop],
        "an ECMAScript group name is an identifier (a letter, `$` or `_`, then letters, \
         digits, `$` or `_`) closed by `>`",
    ))
}
/// The regex-syntax text of the class `[...]` opening at `open` (closed before `end`)
/// and the index after it: `[^]` is any character, `[]` none; `[`, `&`, `~` are literal.
pub(crate) fn class(p: &str, open: usize, end: usize) -> Result<(String, usize), RegexError> {
    let bytes = p.as_bytes();
    let negated = bytes.get(open + 1) == Some(&b'^');
    let mut i = open + 1 + usize::from(negated);
    let mut out = String::from(if negated { "[^" } else { "[" });
    let mut empty = true;
    while i < end && bytes[i] != b']' {
        empty = false;
        match bytes[i] {
            b'\\' => {
                let (text, next) = escape(p, i, true)?;
                out.push_str(&text);
                i = next;
            }
            b'[' | b'&' | b'~' => {
                out.push('\\');
                out.push(bytes[i] as char);
                i += 1;
            }
            _ => {
                let c = p[i..].chars().next().expect("i < end is a char boundary");
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    if i >= end {
        return Err(unsupported_at(
            "unclosed class",
            (open, end),
            &p[open..end],
            "the class has no closing `]`",
        ));
    }
    let text = match (empty, negated) {
        (true, true) => r"(?s:.)".to_string(),
        (true, false) => r"[^\x{0}-\x{10FFFF}]".to_string(),
        _ => out + "]",
    };
    Ok((text, i + 1))
}

/// The regex-syntax text of the escape at `i` (inside a class when `in_class`) and
/// the index after it.
pub(crate) fn escape(p: &str, i: usize, in_class: bool) -> Result<(String, usize), RegexError> {
    let Some(c) = p[i + 1..].chars().next() else {
        return Err(unsupported_at(
            "escape",
            (i, i + 1),
            "\\",
            "the pattern ends with `\\`",
        ));
    };
    let next = i + 1 + c.len_utf8();
    let refuse = |construct, why: &str| {
        let e = next.min(p.len());
        unsupported_at(construct, (i, e), &p[i..e], why)
    };
    let class = |items: &str, negate: bool| {
        let hat = if negate { "^" } else { "" };
        format!("[{hat}{items}]")
    };
    let text = match c {
        'd' | 'D' => class("0-9", c == 'D'),
        'w' | 'W' => class(ECMA_WORD, c == 'W'),
        's' | 'S' => class(ECMA_SPACE, c == 'S'),
        'b' if in_class => r"\x08".to_string(),
        'b' => r"(?-u:\b)".to_string(),
        'B' if !in_class => r"(?-u:\B)".to_string(),
        'f' | 'n' | 'r' | 't' | 'v' => format!("\\{c}"),
        '0' if !p[next..].starts_with(|d: char| d.is_ascii_digit()) => r"\x00".to_string(),
        '1'..='9' | 'k' => {
            return Err(refuse(
                "backreference",
                "backreferences do not describe a regular language; spell out the \
                 alternatives",
            ))
        }
        'c' => match p[next..].chars().next() {
            Some(l) if l.is_ascii_alphabetic() => {
                return Ok((format!(r"\x{:02X}", (l as u8) % 32), next + 1))
            }
            _ => return Err(refuse("escape", "`\\c` must be followed by a letter")),
        },
        'x' => {
            let hex = p
                .get(next..next + 2)
                .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
            match hex {
                Some(h) => return Ok((format!(r"\x{h}"), next + 2)),
                None => return Err(refuse("escape", "`\\x` takes two hex digits")),
            }
        }
        'u' => return unicode(p, i, next),
        'p' | 'P' if p[next..].starts_with('{') => {
            let close = p[next..].find('}').map_or(p.len(), |k| next + k + 1);
            return Ok((p[i..close].to_string(), close));
        }
        '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|' => {
            format!("\\{c}")
        }
        '/' => "/".to_string(),
        '-' if in_class => r"\-".to_string(),
        // Annex B's identity escapes of other ASCII punctuation (`\:`, `\-`, `\#`): a
        // syntax error under `u`, the character itself without it, in no engine anything
        // else; real schemas write them.
        c if c.is_ascii_punctuation() || c == ' ' => format!(r"\x{:02X}", c as u32),
        _ => {
            return Err(refuse(
                "escape",
                "not an ECMAScript escape (only punctuation and the escapes of ECMA-262 may \
                 follow `\\`)",
            ))
        }
    };
    Ok((text, next))
}

/// `\uHHHH` (a surrogate pair of two makes one character) or `\u{H...}` at `i`;
/// `next` is just past the `u`.
fn unicode(p: &str, i: usize, next: usize) -> Result<(String, usize), RegexError> {
    let hex4 = |at: usize| {
        p.get(at..at + 4)
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|h| u32::from_str_radix(h, 16).ok())
    };
    let (cp, after) = if p[next..].starts_with('{') {
        let close = p[next..].find('}').map(|k| next + k);
        let value = close
            .and_then(|c| p.get(next + 1..c))
            .filter(|h| !h.is_empty() && h.len() <= 6)
            .and_then(|h| u32::from_str_radix(h, 16).ok());
        match (value, close) {
            (Some(v), Some(c)) => (v, c + 1),
            _ => (u32::MAX, close.map_or(p.len(), |c| c + 1)),
        }
    } else {
        match hex4(next) {
            Some(hi @ 0xD800..=0xDBFF) if p[next + 4..].starts_with("\\u") => {
                match hex4(next + 6) {
                    Some(lo @ 0xDC00..=0xDFFF) => {
                        (0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00), next + 10)
                    }
                    _ => (hi, next + 4),
                }
            }
            Some(v) => (v, next + 4),
            None => (u32::MAX, next),
        }
    };
    match char::from_u32(cp) {
        Some(c) => Ok((format!(r"\x{{{:X}}}", c as u32), after)),
        None => Err(unsupported_at(
            "escape",
            (i, after.max(next)),
            &p[i..after.max(next)],
            "not a Unicode scalar value: `\\u` takes four hex digits or `{...}` up to \
             10FFFF, and a lone surrogate cannot occur in UTF-8 text",
        )),
    }
}
