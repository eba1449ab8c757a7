//! The text form: `name(arg, ...)` calls whose arguments are calls, strings (JSON
//! strings `"..."`, or raw `r"..."` / `r#"..."#` for patterns full of backslashes) and
//! non-negative integers. Every error names the line and column it was found at.

use crate::error::ExprError;
use crate::tree::{build, Arg, Expr, Loc, MAX_DEPTH};

pub(crate) fn parse(text: &str) -> Result<Expr, ExprError> {
    let mut p = Parser { text, pos: 0 };
    p.skip_space();
    let e = p.call(0)?;
    p.skip_space();
    if p.pos < text.len() {
        return Err(p.error(p.pos, "unexpected text after the expression"));
    }
    Ok(e)
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn loc(&self, offset: usize) -> Loc {
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = self.text[line_start..offset].chars().count() + 1;
        Loc::Text {
            offset,
            line,
            column,
        }
    }

    fn error(&self, offset: usize, message: impl Into<String>) -> ExprError {
        self.loc(offset).error(message)
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// What is at the current position, for "expected X, found Y".
    fn found(&self) -> String {
        match self.text[self.pos..].chars().next() {
            Some(c) => format!("`{c}`"),
            None => "the end of the expression".to_string(),
        }
    }

    fn call(&mut self, depth: usize) -> Result<Expr, ExprError> {
        let start = self.pos;
        if depth >= MAX_DEPTH {
            return Err(self.error(start, format!("calls nested deeper than {MAX_DEPTH}")));
        }
        while matches!(
            self.peek(),
            Some(b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_')
        ) {
            self.pos += 1;
        }
        let name = &self.text[start..self.pos];
        if name.is_empty() || name.as_bytes()[0].is_ascii_digit() {
            self.pos = start;
            return Err(self.error(
                start,
                format!(
                    "expected a call such as regex(\"...\"), found {}",
                    self.found()
                ),
            ));
        }
        self.skip_space();
        if self.peek() != Some(b'(') {
            return Err(self.error(
                self.pos,
                format!("expected `(` after `{name}`, found {}", self.found()),
            ));
        }
        self.pos += 1;
        let args = self.arguments(name, depth)?;
        let loc = self.loc(start);
        let node = build(name, args, &loc)?;
        Ok(Expr {
            node,
            loc: Some(loc),
        })
    }

    /// The arguments after `(`, through the closing `)`.
    fn arguments(&mut self, name: &str, depth: usize) -> Result<Vec<Arg>, ExprError> {
        let mut args = Vec::new();
        loop {
            self.skip_space();
            if self.peek() == Some(b')') {
                self.pos += 1;
                return Ok(args);
            }
            args.push(self.argument(depth)?);
            self.skip_space();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => {
                    self.pos += 1;
                    return Ok(args);
                }
                _ => {
                    return Err(self.error(
                        self.pos,
                        format!(
                            "expected `,` or `)` in the arguments of `{name}`, found {}",
                            self.found()
                        ),
                    ))
                }
            }
        }
    }

    fn argument(&mut self, depth: usize) -> Result<Arg, ExprError> {
        let start = self.pos;
        let rest = &self.text.as_bytes()[start..];
        match rest.first() {
            Some(b'"') => Ok(Arg::Str(self.string()?, self.loc(start))),
            Some(b'r') if matches!(rest.get(1), Some(b'"' | b'#')) => {
                Ok(Arg::Str(self.raw_string()?, self.loc(start)))
            }
            Some(b'0'..=b'9') => {
                while matches!(self.peek(), Some(b'0'..=b'9')) {
                    self.pos += 1;
                }
                let digits = &self.text[start..self.pos];
                let n = digits
                    .parse::<u64>()
                    .map_err(|_| self.error(start, format!("the integer {digits} is too large")))?;
                Ok(Arg::Int(n, self.loc(start)))
            }
            Some(b'-') => Err(self.error(start, "expected a non-negative integer")),
            _ => Ok(Arg::Expr(self.call(depth + 1)?)),
        }
    }

    /// A JSON string literal, escapes and all (read by serde_json).
    fn string(&mut self) -> Result<String, ExprError> {
        let start = self.pos;
        let bytes = self.text.as_bytes();
        let mut i = start + 1;
        loop {
            match bytes.get(i) {
                None => return Err(self.error(start, "a string that is never closed")),
                Some(b'"') => break,
                Some(b'\\') => i += 2,
                Some(_) => i += 1,
            }
        }
        let literal = &self.text[start..=i];
        let value = serde_json::from_str::<String>(literal).map_err(|e| {
            self.error(start, format!("the string is not a valid JSON string: {e}"))
        })?;
        self.pos = i + 1;
        Ok(value)
    }

    /// `r"..."` or `r#"..."#` (any number of `#`): no escapes.
    fn raw_string(&mut self) -> Result<String, ExprError> {
        let start = self.pos;
        let after_r = &self.text[start + 1..];
        let hashes = after_r.bytes().take_while(|&b| b == b'#').count();
        if after_r.as_bytes().get(hashes) != Some(&b'"') {
            return Err(self.error(start, "expected `\"` to open the raw string"));
        }
        let body_start = start + 1 + hashes + 1;
        let close = format!("\"{}", "#".repeat(hashes));
        let Some(len) = self.text[body_start..].find(&close) else {
            return Err(self.error(
                start,
                format!("a raw string that is never closed (by `{close}`)"),
            ));
        };
        self.pos = body_start + len + close.len();
        Ok(self.text[body_start..body_start + len].to_string())
    }
}
