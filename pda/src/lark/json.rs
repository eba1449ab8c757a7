//! llguidance's `%json {...}` in a rule: the JSON texts a JSON Schema admits, compiled by
//! fstc-json (its default output form: whitespace between tokens, up to 8 characters;
//! canonical string escapes) into a byte DFA that is one element of the rule. A keyword
//! fstc-json cannot enforce exactly is an error naming it; llguidance's `x-guidance`
//! options, which change the JSON text's form, are refused by name.

use fstc_json::JsonSchemaCompiler;
use fstc_regex::RegexErrorKind;

use super::{Parser, Res};
use crate::gbnf::Expr;
use crate::terminal_regex::PatternError;

impl Parser<'_> {
    /// `%json {...}` at the position.
    pub(super) fn json(&mut self) -> Res<Expr> {
        let at = self.pos;
        if self.terminal {
            return Err(self.err(
                at,
                "`%json {...}` stands for a rule's text (as in llguidance), not in a terminal",
            ));
        }
        let open =
            at + "%json".len() + self.text[at + 5..].len() - self.text[at + 5..].trim_start().len();
        if self.text.as_bytes().get(open) != Some(&b'{') {
            return Err(self.err(open, "expected a JSON Schema object `{...}` after `%json`"));
        }
        let end = object_end(self.text, open)
            .ok_or_else(|| self.err(open, "unterminated JSON Schema: no closing `}`"))?;
        let schema = &self.text[open..end];
        if let Some(i) = schema.find("\"x-guidance\"") {
            return Err(self.err(open + i, "llguidance's `x-guidance` options are not supported: they change the JSON text's form, which fstc-json sets"));
        }
        let compiler = JsonSchemaCompiler::new();
        let regex = compiler
            .to_regex(schema)
            .map_err(|e| self.err(open, format!("in the JSON Schema of `%json`: {e}")))?;
        if let Some(w) = regex.warnings.first() {
            return Err(self.err(open, format!("in the JSON Schema of `%json`: {w}")));
        }
        let limit = compiler.get_config().get_dfa_state_limit();
        self.pos = end;
        self.terminal_dfa(
            |deadline| {
                regex
                    .dfa_until(limit, deadline)
                    .map_err(|e| match e.kind() {
                        RegexErrorKind::Deadline => PatternError::Deadline,
                        _ => PatternError::At(0, format!("in the JSON Schema of `%json`: {e}")),
                    })
            },
            |_| open,
        )
    }
}

/// The offset past the `}` closing the JSON object that opens at `open`, skipping strings.
fn object_end(text: &str, open: usize) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, b) in text.bytes().enumerate().skip(open) {
        match (in_string, b) {
            (true, _) if escaped => escaped = false,
            (true, b'\\') => escaped = true,
            (true, b'"') | (false, b'"') => in_string = !in_string,
            (true, _) => {}
            (false, b'{' | b'[') => depth += 1,
            (false, b'}' | b']') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}
