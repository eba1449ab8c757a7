//! ECMA-262 `u`-mode syntax rules that regex-syntax does not share, checked on the
//! user's pattern after `extensions::rewrite` (which has already refused escapes,
//! groups and classes outside ECMAScript): a lone `]`, `{` or `}`, a quantifier with
//! nothing to repeat or after an assertion (`(?=a)*`, `\b+`), a class escape as a range
//! end (`[\d-z]`), a range out of order, an unbalanced `)`, a duplicate group name.

use super::{shown, RegexError, RegexErrorKind};

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
