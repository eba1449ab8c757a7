//! Regex terminals of Lark (`/.../flags`) and XGrammar's EBNF (`Regex("...")`), and Lark's
//! case-insensitive literals (`"..."i`), as byte DFAs, compiled by fstc-regex. A terminal
//! is a set of texts matched in full, so constructs whose meaning depends on a lexer
//! (assertions at the terminal's edges, lazy quantifiers choosing the shortest match,
//! look-around) are refused by name.

use std::time::Instant;

use fstc_core::bytes::ByteDfa;
use fstc_regex::{RegexBuilder, RegexError, RegexErrorKind};
use regex_syntax::ast::{self, Ast, FlagsItemKind, GroupKind};

/// Why a pattern gives no DFA.
#[derive(Debug)]
pub(crate) enum PatternError {
    /// Refused or malformed: the byte offset in the pattern (as written between the
    /// slashes, after `\/` became `/`) and the message.
    At(usize, String),
    /// Its construction passed the compile's deadline.
    Deadline,
}

/// The construction's deadline as [`PatternError::Deadline`], any other error at the
/// offset `at` gives.
fn built(
    result: Result<ByteDfa, RegexError>,
    at: impl FnOnce(&RegexError) -> usize,
) -> Result<ByteDfa, PatternError> {
    result.map_err(|e| match e.kind() {
        RegexErrorKind::Deadline => PatternError::Deadline,
        _ => PatternError::At(at(&e), e.to_string()),
    })
}

/// Flags Lark accepts on a regex (`imslux`): `i`, `s` and `x` as in Python, `m` and `u`
/// with no effect here (no `^`/`$`; Unicode is the default), `l` refused.
pub(crate) fn flag_prefix(flags: &str) -> Result<String, (usize, String)> {
    let mut prefix = String::new();
    for (i, f) in flags.char_indices() {
        match f {
            'i' | 's' | 'x' => prefix.push(f),
            'm' | 'u' => {}
            'l' => {
                return Err((
                    i,
                    "regex flag `l` (locale-dependent matching) is not supported".to_string(),
                ))
            }
            _ => {
                return Err((
                    i,
                    format!("unknown regex flag `{f}` (Lark's flags are i, m, s, l, u, x)"),
                ))
            }
        }
    }
    Ok(match prefix.is_empty() {
        true => prefix,
        false => format!("(?{prefix})"),
    })
}

/// Why a construct of a regex terminal is refused, and where (in the parsed text).
fn refused(a: &Ast) -> Option<(usize, String)> {
    let at = |s: &ast::Span| s.start.offset;
    match a {
        Ast::Assertion(x) => Some((
            at(&x.span),
            "assertions (`^`, `$`, `\\b`, `\\A`, ...) are not supported in a regex terminal: a terminal is one piece of the text, so they would be read at its edges, not the text's".to_string(),
        )),
        Ast::Repetition(r) if !r.greedy => Some((
            at(&r.span),
            "lazy quantifiers (`*?`, `+?`, `??`) are not supported: a terminal here is every text its regex matches in full, not the shortest match a lexer picks; write what may not occur inside (`\"[^\"]*\"` rather than `\".*?\"`)".to_string(),
        )),
        Ast::Repetition(r) if matches!(*r.ast, Ast::Repetition(_)) => Some((
            at(&r.op.span),
            "a quantifier right after a quantifier (`a*+`, `a{2}*`) is not supported: Python's `re` reads `*+` as possessive and `**` as an error; write a group (`(?:a*)+`)".to_string(),
        )),
        Ast::Repetition(r) => refused(&r.ast),
        Ast::Flags(f) => swap_greed(&f.flags),
        Ast::Group(g) => {
            let own = match &g.kind {
                GroupKind::NonCapturing(f) => swap_greed(f),
                GroupKind::CaptureName { name, .. } if reserved(&name.name) => Some((
                    at(&name.span),
                    format!("the group name `{}` is reserved for fstc's regex extensions; rename the group (lower-case) or write `(?:...)`", name.name),
                )),
                _ => None,
            };
            own.or_else(|| refused(&g.ast))
        }
        Ast::Alternation(x) => x.asts.iter().find_map(refused),
        Ast::Concat(x) => x.asts.iter().find_map(refused),
        _ => None,
    }
}

fn swap_greed(f: &ast::Flags) -> Option<(usize, String)> {
    f.items
        .iter()
        .find(|i| matches!(i.kind, FlagsItemKind::Flag(ast::Flag::SwapGreed)))
        .map(|i| {
            (
                i.span.start.offset,
                "the `U` flag (lazy by default) is not supported".to_string(),
            )
        })
}

/// fstc-regex reads upper-case group names as extensions (`(?P<QUOTED_TEXT>)`).
fn reserved(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Compiles a regex terminal with its flags (as [`flag_prefix`] writes them), giving up
/// past `deadline`.
pub(crate) fn regex(
    pattern: &str,
    prefix: &str,
    deadline: Option<Instant>,
) -> Result<ByteDfa, PatternError> {
    let full = format!("{prefix}{pattern}");
    let inner = |offset: usize| offset.saturating_sub(prefix.len()).min(pattern.len());
    let parsed = ast::parse::ParserBuilder::new()
        .build()
        .parse(&full)
        .map_err(|e| {
            let what = match e.kind() {
                ast::ErrorKind::UnsupportedLookAround => {
                    "look-around is not supported in a regex terminal: it would look past the terminal's edges".to_string()
                }
                kind => format!("bad regex: {kind}"),
            };
            PatternError::At(inner(e.span().start.offset), what)
        })?;
    if let Some((offset, why)) = refused(&parsed) {
        return Err(PatternError::At(inner(offset), why));
    }
    let dfa = RegexBuilder::new().deadline(deadline).build(&full);
    built(dfa, |e| e.span().map_or(0, |(s, _)| inner(s)))
}

/// Compiles XGrammar's `Regex("...")` pattern, read as ECMAScript (as JSON Schema's
/// `pattern`: `\d` is `[0-9]`), with the refusals of a regex terminal wherever
/// regex-syntax reads the pattern too, giving up past `deadline`.
pub(crate) fn ecma_regex(
    pattern: &str,
    deadline: Option<Instant>,
) -> Result<ByteDfa, PatternError> {
    let parsed = ast::parse::ParserBuilder::new().build().parse(pattern);
    if let Some((offset, why)) = parsed.ok().as_ref().and_then(refused) {
        return Err(PatternError::At(offset, why));
    }
    let dfa = RegexBuilder::new()
        .dialect(fstc_regex::Dialect::EcmaScript)
        .deadline(deadline)
        .build(pattern);
    built(dfa, |e| e.span().map_or(0, |(s, _)| s))
}

/// A literal matched without regard to case (`"select"i`), as fstc-regex folds case,
/// giving up past `deadline` (errors are at offset 0).
pub(crate) fn caseless(text: &str, deadline: Option<Instant>) -> Result<ByteDfa, PatternError> {
    let dfa = RegexBuilder::new()
        .case_insensitive(true)
        .deadline(deadline)
        .build(&regex_syntax::escape(text));
    built(dfa, |_| 0)
}

/// About the bytes `dfa` holds: its transition table and acceptance.
pub(crate) fn dfa_bytes(dfa: &ByteDfa) -> usize {
    dfa.num_states() * (4 * dfa.num_classes() + 1) + 256
}
