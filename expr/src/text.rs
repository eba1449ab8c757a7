//! The text form: `name(arg, ..., key=value, ...)` calls whose arguments are calls,
//! strings (JSON strings `"..."`, or raw `r"..."` / `r#"..."#` for patterns full of
//! backslashes), non-negative integers and `true` / `false`, keyword arguments after the
//! others. Every error names the line and column it was found at.

use crate::error::ExprError;
use crate::keywords::build;
use crate::keywords::CallArgs;
use crate::tree::{Arg, Expr, Loc, MAX_DEPTH};

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
    fn arguments(&mut self, name: &str, depth: usize) -> Result<CallArgs, ExprError> {
        let mut args = CallArgs::default();
        loop {
            self.skip_space();
            if self.peek() == Some(b')') {
                self.pos += 1;
                return Ok(args);
            }
            let start = self.pos;
            if let Some(key) = self.keyword() {
                self.skip_space();
                let value = self.argument(depth)?;
                args.named.push((key, self.loc(start), value));
            } else if !args.named.is_empty() {
                return Err(self.error(
                    start,
                    format!("a positional argument after keyword arguments of `{name}`"),
                ));
            } else {
                args.positional.push(self.argument(depth)?);
            }
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

    /// `key =` (moved past), or `None` (not moved) when no keyword is here.
    fn keyword(&mut self) -> Option<String> {
        let start = self.pos;
        let name_len = self.text.as_bytes()[start..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        let name = &self.text[start..start + name_len];
        if name.is_empty() || name.as_bytes()[0].is_ascii_digit() {
            return None;
        }
        self.pos += name_len;
        self.skip_space();
        if self.peek() == Some(b'=') {
            self.pos += 1;
            return Some(name.to_string());
        }
        self.pos = start;
        None
    }

    /// `true` or `false` not followed by more of a name or by `(`.
    fn boolean(&self) -> Option<(bool, usize)> {
        let rest = &self.text.as_bytes()[self.pos..];
        let (value, len) = match rest {
            [b't', b'r', b'u', b'e', ..] => (true, 4),
            [b'f', b'a', b'l', b's', b'e', ..] => (false, 5),
            _ => return None,
        };
        let after = &self.text[self.pos + len..];
        let next = after.trim_start().as_bytes().first();
        let more = after.as_bytes().first();
        let ends = !more.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
        (ends && next != Some(&b'(')).then_some((value, len))
    }

    fn argument(&mut self, depth: usize) -> Result<Arg, ExprError> {
        let start = self.pos;
        if let Some((value, len)) = self.boolean() {
            self.pos += len;
            return Ok(Arg::Bool(value, self.loc(start)));
        }
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
