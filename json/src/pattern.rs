//! `pattern`: an ECMA-262 regex searched (unanchored) in the decoded string, turned into
//! a regex over the string's canonical JSON encoding.
//!
//! The pattern is parsed with regex-syntax after refusing, by name, every construct whose
//! meaning differs between ECMA-262 and the regex crate, and rewriting the ones that
//! differ only in their sets (`.`, `\d`, `\w`, `\s` and negations are ASCII or ECMA's
//! sets in ECMA-262, Unicode in the regex crate). Its HIR is then rebuilt code point by
//! code point: each class becomes the encodings of its code points (`strings`), so an
//! escaped `\"` or `\n` in the JSON text counts as the one character it encodes.

use regex_syntax::ast::{
    self, AssertionKind, Ast, ClassSetItem, GroupKind, LiteralKind, SpecialLiteralKind,
};
use regex_syntax::hir::{Class, Hir, HirKind, Look};

use crate::strings;

/// ECMA-262's `\s`: WhiteSpace and LineTerminator.
const ECMA_SPACE: &str = r"\t\n\x0B\x0C\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}";

/// The regex (between the quotes) of the encoded strings in which `pattern` finds a match.
pub(crate) fn body_regex(pattern: &str) -> Result<String, String> {
    let ast = ast::parse::Parser::new()
        .parse(pattern)
        .map_err(|e| format!("cannot parse {pattern:?}: {}", e.kind()))?;
    let mut checker = Checker {
        pattern,
        edits: Vec::new(),
    };
    ast::visit(&ast, &mut checker)?;
    let mut rewritten = pattern.to_string();
    checker.edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    for (start, end, text) in checker.edits {
        rewritten.replace_range(start..end, &text);
    }
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(&rewritten)
        .map_err(|e| format!("cannot parse {pattern:?}: {e}"))?;
    let mut items: Vec<&Hir> = match hir.kind() {
        HirKind::Concat(items) => items.iter().collect(),
        _ => vec![&hir],
    };
    let start = matches!(
        items.first().map(|h| h.kind()),
        Some(HirKind::Look(Look::Start))
    );
    let end = items.len() > usize::from(start)
        && matches!(
            items.last().map(|h| h.kind()),
            Some(HirKind::Look(Look::End))
        );
    if end {
        items.pop();
    }
    if start {
        items.remove(0);
    }
    let any = format!("(?:{})*", strings::any_char());
    let mut out = if start { String::new() } else { any.clone() };
    for item in items {
        match encoded(item)? {
            Some(regex) => out.push_str(&regex),
            None => return Ok("[^\\x{0}-\\x{10FFFF}]".into()),
        }
    }
    if !end {
        out.push_str(&any);
    }
    Ok(out)
}

/// The regex of the encodings of `hir`'s texts, `None` when it matches nothing.
fn encoded(hir: &Hir) -> Result<Option<String>, String> {
    Ok(match hir.kind() {
        HirKind::Empty => Some(String::new()),
        HirKind::Literal(lit) => {
            let text =
                std::str::from_utf8(&lit.0).map_err(|_| "a literal is not UTF-8".to_string())?;
            Some(format!("(?:{})", strings::encode_literal(text)))
        }
        HirKind::Class(Class::Unicode(class)) => {
            let ranges: Vec<strings::CharRange> = class
                .ranges()
                .iter()
                .map(|r| (r.start(), r.end()))
                .collect();
            strings::encode_class(&ranges)
        }
        HirKind::Class(Class::Bytes(_)) => return Err("byte classes are not supported".into()),
        HirKind::Look(_) => {
            return Err(
                "`^` and `$` are supported only at the very start and end of the pattern".into(),
            )
        }
        HirKind::Repetition(rep) => {
            let max = rep.max.map_or(String::new(), |m| m.to_string());
            match encoded(&rep.sub)? {
                Some(sub) => Some(format!("(?:{sub}){{{},{max}}}", rep.min)),
                None if rep.min == 0 => Some(String::new()),
                None => None,
            }
        }
        HirKind::Capture(cap) => encoded(&cap.sub)?,
        HirKind::Concat(items) => {
            let mut out = String::new();
            for item in items {
                match encoded(item)? {
                    Some(r) => out.push_str(&r),
                    None => return Ok(None),
                }
            }
            Some(format!("(?:{out})"))
        }
        HirKind::Alternation(items) => {
            let mut alts = Vec::new();
            for item in items {
                alts.extend(encoded(item)?);
            }
            (!alts.is_empty()).then(|| format!("(?:{})", alts.join("|")))
        }
    })
}

/// Refuses constructs that mean something else in ECMA-262; records rewrites of the
/// sets that differ.
struct Checker<'p> {
    pattern: &'p str,
    edits: Vec<(usize, usize, String)>,
}

impl Checker<'_> {
    fn refuse(&self, span: &ast::Span, what: &str) -> Result<(), String> {
        Err(format!(
            "{what} at bytes {}..{} of {:?} means something else in ECMA-262 (JSON Schema's dialect) \
             than in the regex crate, so it is refused",
            span.start.offset, span.end.offset, self.pattern
        ))
    }

    fn perl(&mut self, class: &ast::ClassPerl) {
        let set = match class.kind {
            ast::ClassPerlKind::Digit => "0-9".to_string(),
            ast::ClassPerlKind::Word => "0-9A-Za-z_".to_string(),
            ast::ClassPerlKind::Space => ECMA_SPACE.to_string(),
        };
        let neg = if class.negated { "^" } else { "" };
        self.edits.push((
            class.span.start.offset,
            class.span.end.offset,
            format!("[{neg}{set}]"),
        ));
    }

    fn literal(&self, lit: &ast::Literal) -> Result<(), String> {
        match &lit.kind {
            LiteralKind::HexFixed(ast::HexLiteralKind::UnicodeLong) => {
                self.refuse(&lit.span, "`\\U`")
            }
            LiteralKind::HexBrace(_) => {
                self.refuse(&lit.span, "a braced escape `\\x{..}`/`\\u{..}`")
            }
            LiteralKind::Special(SpecialLiteralKind::Bell) => self.refuse(&lit.span, "`\\a`"),
            LiteralKind::Special(SpecialLiteralKind::Space) => {
                self.refuse(&lit.span, "an escaped space")
            }
            LiteralKind::Octal => self.refuse(&lit.span, "an octal escape"),
            _ if self.pattern[lit.span.start.offset..].starts_with("\\e") => {
                self.refuse(&lit.span, "`\\e`")
            }
            _ => Ok(()),
        }
    }
}

impl ast::Visitor for &mut Checker<'_> {
    type Output = ();
    type Err = String;

    fn finish(self) -> Result<(), String> {
        Ok(())
    }

    fn visit_pre(&mut self, ast: &Ast) -> Result<(), String> {
        match ast {
            Ast::Flags(f) => self.refuse(&f.span, "an inline flag group `(?flags)`"),
            Ast::Dot(span) => {
                let dot = "[^\\n\\r\\x{2028}\\x{2029}]".to_string();
                self.edits.push((span.start.offset, span.end.offset, dot));
                Ok(())
            }
            Ast::Literal(lit) => self.literal(lit),
            Ast::Assertion(a) => match a.kind {
                AssertionKind::StartLine | AssertionKind::EndLine => Ok(()),
                AssertionKind::StartText => self.refuse(&a.span, "`\\A`"),
                AssertionKind::EndText => self.refuse(&a.span, "`\\z`"),
                _ => self.refuse(&a.span, "a word boundary"),
            },
            Ast::ClassUnicode(c) => self.refuse(&c.span, "a Unicode class `\\p`/`\\P`"),
            Ast::ClassPerl(c) => {
                self.perl(c);
                Ok(())
            }
            Ast::ClassBracketed(c) => self.bracketed(c),
            Ast::Group(g) => match &g.kind {
                GroupKind::CaptureName {
                    starts_with_p: true,
                    ..
                } => self.refuse(&g.span, "a group `(?P<name>..)`"),
                GroupKind::NonCapturing(flags) if !flags.items.is_empty() => {
                    self.refuse(&g.span, "a flag group `(?flags:..)`")
                }
                _ => Ok(()),
            },
            _ => Ok(()),
        }
    }

    fn visit_class_set_item_pre(&mut self, item: &ClassSetItem) -> Result<(), String> {
        match item {
            ClassSetItem::Ascii(c) => self.refuse(&c.span, "a POSIX class `[[:name:]]`"),
            ClassSetItem::Unicode(c) => self.refuse(&c.span, "a Unicode class `\\p`/`\\P`"),
            ClassSetItem::Bracketed(c) => self.refuse(&c.span, "a nested class"),
            ClassSetItem::Literal(lit) => self.literal(lit),
            ClassSetItem::Perl(c) => {
                self.perl(c);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn visit_class_set_binary_op_pre(&mut self, op: &ast::ClassSetBinaryOp) -> Result<(), String> {
        self.refuse(&op.span, "a class set operation (`&&`, `--`, `~~`)")
    }
}

impl Checker<'_> {
    /// `[]...]` and `[^]...]`: ECMA-262 reads an empty class (or any character) there.
    fn bracketed(&self, c: &ast::ClassBracketed) -> Result<(), String> {
        let inner = &self.pattern[c.span.start.offset + 1..];
        let inner = inner.strip_prefix('^').unwrap_or(inner);
        if inner.starts_with(']') {
            return self.refuse(&c.span, "a `]` first in a class");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(pattern: &str, encoded: &str) -> bool {
        let body = body_regex(pattern).unwrap();
        regex::Regex::new(&format!("^(?:{body})$"))
            .unwrap()
            .is_match(encoded)
    }

    #[test]
    fn patterns_search_the_decoded_string() {
        assert!(search("a+", "xxaay"));
        assert!(!search("^a+$", "xxaay"));
        assert!(search("^\\d{3}$", "123"));
        assert!(!search("^\\d{3}$", "١٢٣"), "ECMA \\d is ASCII");
        assert!(
            search("^a.b$", "a\\\"b"),
            "an escaped quote is one character"
        );
        assert!(!search("^a.b$", "a\\nb"), "ECMA . excludes newline");
        assert!(search("^a\\sb$", "a\\nb"));
        assert!(search("\"", "x\\\"y"));
        assert!(!search("^[^\"]*$", "x\\\"y"));
        assert!(search("^\\w+@\\w+\\.com$", "ab_1@x.com"));
    }

    #[test]
    fn dialect_differences_are_refused_by_name() {
        for (pattern, name) in [
            ("\\bx", "word boundary"),
            ("(?i)x", "flag"),
            ("\\p{L}", "Unicode class"),
            ("[[:alpha:]]", "POSIX"),
            ("[a&&b]", "set operation"),
            ("\\Ax", "\\A"),
            ("x{,3}", "cannot parse"),
            ("[]a]", "`]` first"),
            ("a|^b", "start and end"),
            ("\\x{41}", "braced"),
        ] {
            let err = body_regex(pattern).unwrap_err();
            assert!(err.contains(name), "{pattern}: {err}");
        }
    }
}
