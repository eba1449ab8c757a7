//! Regular expression → minimized byte DFA (the character automaton A_R of the paper).
//!
//! Pipeline: regex-syntax parses the pattern to an AST (where unsupported constructs are
//! found with their span), translates it to a HIR (UTF-8 mode: the language is a set of
//! valid UTF-8 texts), `nfa` builds a Thompson byte NFA (fstc-core's [`Nfa`] type), and
//! fstc-core's byte automata determinize and minimize it into a [`ByteDfa`].
//!
//! Semantics are full match: the whole text must match, as with `\A(?:pattern)\z`.
//! `^`/`\A` hold only before the first byte and `$`/`\z` only after the last, wherever
//! they appear in the pattern. Word boundaries, `(?m)`/`(?R)` line anchors and
//! look-around are conditions on the whole text, compiled exactly by `look`;
//! backreferences are rejected (not regular). [`Algebra`] combines DFAs (intersection,
//! complement, ...); [`Dialect::EcmaScript`] reads ECMA-262 patterns. [`RegexCompiler`]
//! composes the DFA with a vocabulary into a token automaton.
//!
//! Extensions (Koo et al. §2.5) are capture groups with reserved names, `[A-Z][A-Z0-9_]*`
//! (see [`EXTENSIONS`]): wildcard terminals (`(?P<PARAGRAPH_TOKEN>)`, [`TerminalKind`]),
//! which become extra alphabet symbols of the DFA, and sugar (`(?P<QUOTED_TEXT>)`,
//! `(?P<DELIMITED_LIST>, |\d+)`, ...), expanded into byte fragments. `extensions`
//! rewrites them into placeholder groups before regex-syntax parses the pattern;
//! `fragments` builds the sugar that has no compact regex.

mod compiler;
mod context;
mod ecma;
mod extensions;
mod fragments;
mod graph;
mod look;
mod nfa;
mod options;
mod spans;

pub use compiler::{time_left, BuildError, BuildErrorKind, Config, RegexCompiler};
pub use extensions::{ExtensionInfo, EXTENSIONS};
pub use fragments::{QUOTED_TEXT_REGEX, UNQUOTED_TEXT_REGEX};
pub use options::OPTION_NAMES;

use std::fmt;

use fstc_core::bytes::{self, ByteDfa, ByteDfaError, ByteDfaErrorKind, DEFAULT_DFA_STATE_LIMIT};
#[cfg(doc)]
use fstc_core::bytes::{Algebra, Nfa, TerminalKind};
use regex_syntax::ast;
use regex_syntax::hir::translate::TranslatorBuilder;

/// NFA states allowed per allowed DFA state. Counted repetitions multiply NFA size
/// (`(\w{50}){50}` copies `\w` 2 500 times), so the NFA is capped too, in proportion.
const NFA_STATES_PER_DFA_STATE: usize = 64;
/// Floor for the NFA cap, so a tiny DFA limit still admits big Unicode classes.
const MIN_NFA_STATE_LIMIT: usize = 1 << 17;
/// Ceiling of the NFA cap, whatever the DFA state limit: the NFA is built before any
/// DFA state is counted, so a raised limit must not size it past what memory holds.
const MAX_NFA_STATE_LIMIT: usize = 1 << 23;
/// Budget for the NFA-state sets the subset construction keeps, in entries per unit of
/// the NFA cap: the default allows 640 000 entries (5 MB, as each is stored twice), an
/// average of 64 NFA states per DFA state. Patterns where thousands of NFA states stay
/// active at once (`(a?){5000}`) hit it before the state limit, and would otherwise take
/// quadratic time and memory.
const SET_ENTRIES_PER_NFA_STATE: usize = 1;

/// What went wrong when compiling a pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegexErrorKind {
    /// The pattern is not valid regex syntax (regex-syntax's own diagnosis).
    Syntax,
    /// A construct fstc cannot turn into a byte DFA: `"backreference"`,
    /// `"non-UTF-8 construct"`, a look-around it cannot compile exactly (`"look-ahead"`,
    /// `"negative look-behind"`, ...: a wildcard terminal inside the body),
    /// `"assertion with wildcard terminals"` (the outcome depends on a terminal's token),
    /// and in the ECMAScript dialect `"non-ECMAScript group"`, `"escape"`,
    /// `"unclosed class"`, `"group name"`, `"case-insensitive ECMAScript"`. ECMAScript
    /// `u`-mode grammar errors are [`RegexErrorKind::Syntax`].
    Unsupported {
        /// Short name of the construct.
        construct: &'static str,
    },
    /// The NFA would have more than `limit` states.
    TooManyNfaStates {
        /// The NFA state cap (derived from the DFA state limit).
        limit: usize,
    },
    /// The byte DFA would have more than `limit` states.
    TooManyStates {
        /// The DFA state limit in force.
        limit: usize,
    },
    /// A misused extension group (wrong arguments), or an unknown reserved group name.
    Extension {
        /// The group name as written (`"DELIMITED_LIST"`).
        name: String,
    },
    /// An [`Algebra`] operation was given a DFA with wildcard terminals.
    TerminalOperand {
        /// The operation (`"intersection"`, `"reversal"`, ...).
        operation: &'static str,
    },
    /// The byte DFA's construction passed [`RegexBuilder::deadline`].
    Deadline,
    /// The byte DFA's construction passed [`RegexBuilder::memory_budget`].
    Memory {
        /// The budget in bytes.
        budget: usize,
    },
}

/// A pattern that cannot be compiled; `Display` gives an actionable one-line message.
#[derive(Clone, Debug)]
pub struct RegexError {
    kind: RegexErrorKind,
    span: Option<(usize, usize)>,
    message: String,
}

impl RegexError {
    fn new(kind: RegexErrorKind, span: Option<(usize, usize)>, message: String) -> RegexError {
        RegexError {
            kind,
            span,
            message,
        }
    }

    fn too_many_states(limit: usize) -> RegexError {
        RegexError::new(
            RegexErrorKind::TooManyStates { limit },
            None,
            format!(
                "the pattern needs more than {limit} byte-DFA states (the state limit); raise it \
                 (RegexBuilder::state_limit, or the compiler's DFA state limit) or simplify the \
                 pattern: counted repetitions of big Unicode classes (`\\w{{100}}` needs tens of \
                 thousands of states) or after an ambiguous unbounded part (`(a|b)*a(a|b){{20}}` needs 2^21) \
                 multiply states"
            ),
        )
    }

    fn state_sets_too_large(limit: usize, entries: usize) -> RegexError {
        RegexError::new(
            RegexErrorKind::TooManyStates { limit },
            None,
            format!(
                "the byte DFA grows too large: before reaching the state limit ({limit}) its \
                 states already stand for more than {entries} NFA states in total, because many \
                 parts of the pattern stay active at once (e.g. `(a?){{5000}}`); simplify the \
                 pattern or raise the state limit (RegexBuilder::state_limit, or the compiler's \
                 DFA state limit), which raises this budget in proportion"
            ),
        )
    }

    fn too_many_nfa_states(limit: usize) -> RegexError {
        if limit >= MAX_NFA_STATE_LIMIT {
            return RegexError::new(
                RegexErrorKind::TooManyNfaStates { limit },
                None,
                format!(
                    "the pattern needs more than {limit} NFA states, the most fstc builds \
                     whatever the DFA state limit; large counted repetitions multiply \
                     (`(\\w{{50}}){{50}}` is 2500 copies of `\\w`): shrink them"
                ),
            );
        }
        RegexError::new(
            RegexErrorKind::TooManyNfaStates { limit },
            None,
            format!(
                "the pattern needs more than {limit} NFA states; large counted repetitions \
                 multiply (`(\\w{{50}}){{50}}` is 2500 copies of `\\w`): shrink them, or raise the \
                 DFA state limit (RegexBuilder::state_limit, or the compiler's DFA state limit), \
                 which raises this cap to {NFA_STATES_PER_DFA_STATE} NFA states per DFA state"
            ),
        )
    }

    /// What kind of error this is.
    pub fn kind(&self) -> &RegexErrorKind {
        &self.kind
    }

    /// Byte offsets `(start, end)` of the construct at fault in the pattern, when known.
    pub fn span(&self) -> Option<(usize, usize)> {
        self.span
    }
}

impl fmt::Display for RegexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RegexError {}

/// The pattern text a span covers (empty when the span is not on char boundaries).
fn fragment<'p>(pattern: &'p str, span: &ast::Span) -> &'p str {
    pattern
        .get(span.start.offset..span.end.offset)
        .unwrap_or("")
}

/// A fragment for a one-line message: long ones (a whole over-nested group) are cut.
fn shown(fragment: &str) -> String {
    const MAX_CHARS: usize = 40;
    if fragment.chars().count() <= MAX_CHARS {
        return fragment.to_string();
    }
    let mut s: String = fragment.chars().take(MAX_CHARS).collect();
    s.push('…');
    s
}

fn span_pair(span: &ast::Span) -> Option<(usize, usize)> {
    Some((span.start.offset, span.end.offset))
}

fn unsupported(pattern: &str, construct: &'static str, span: &ast::Span, why: &str) -> RegexError {
    RegexError::new(
        RegexErrorKind::Unsupported { construct },
        span_pair(span),
        format!(
            "unsupported {construct} `{}` at bytes {}..{} of the pattern: {why}",
            shown(fragment(pattern, span)),
            span.start.offset,
            span.end.offset
        ),
    )
}

/// A construct fstc refuses, named with its span `(start, end)` and text.
pub(crate) fn unsupported_at(
    construct: &'static str,
    span: (usize, usize),
    text: &str,
    why: &str,
) -> RegexError {
    RegexError::new(
        RegexErrorKind::Unsupported { construct },
        Some(span),
        format!(
            "unsupported {construct} `{}` at bytes {}..{} of the pattern: {why}",
            shown(text),
            span.0,
            span.1
        ),
    )
}

fn syntax_error(pattern: &str, what: &dyn fmt::Display, span: &ast::Span) -> RegexError {
    RegexError::new(
        RegexErrorKind::Syntax,
        span_pair(span),
        format!(
            "regex syntax error at bytes {}..{} (`{}`): {what}",
            span.start.offset,
            span.end.offset,
            shown(fragment(pattern, span))
        ),
    )
}

/// The text regex-syntax parses, and how its offsets map back to the user's pattern
/// (they differ when extension groups were rewritten).
struct Source<'p> {
    text: &'p str,
    pattern: &'p str,
    map: Option<&'p spans::SpanMap>,
}

impl<'p> Source<'p> {
    fn plain(pattern: &'p str) -> Source<'p> {
        Source {
            text: pattern,
            pattern,
            map: None,
        }
    }

    /// `span` (in `text`) as a span of `pattern`.
    fn span(&self, span: &ast::Span) -> ast::Span {
        let mut out = *span;
        if let Some(map) = self.map {
            out.start.offset = map.start(span.start.offset);
            out.end.offset = map.end(span.end.offset);
        }
        out
    }
}

/// Parses and translates `src` to a HIR, mapping every regex-syntax error to ours.
fn parse(src: &Source<'_>, case_insensitive: bool) -> Result<regex_syntax::hir::Hir, RegexError> {
    let pattern = src.pattern;
    let ast = ast::parse::ParserBuilder::new()
        .build()
        .parse(src.text)
        .map_err(|e| match e.kind() {
            ast::ErrorKind::UnsupportedLookAround => unsupported(
                pattern,
                "look-around",
                &src.span(e.span()),
                "this look-around was hidden from fstc's pre-pass (a verbose-mode comment \
                 before it has an unbalanced `[` or `(`); remove or escape it",
            ),
            // `\k<name>` is a named backreference in other engines; regex-syntax does not
            // know the escape, but the user meant a backreference.
            ast::ErrorKind::UnsupportedBackreference | ast::ErrorKind::EscapeUnrecognized
                if matches!(e.kind(), ast::ErrorKind::UnsupportedBackreference)
                    || fragment(src.text, e.span()) == "\\k" =>
            {
                unsupported(
                    pattern,
                    "backreference",
                    &src.span(e.span()),
                    "backreferences do not describe a regular language; spell out the \
                     alternatives",
                )
            }
            kind => syntax_error(pattern, kind, &src.span(e.span())),
        })?;
    TranslatorBuilder::new()
        .utf8(true)
        .case_insensitive(case_insensitive)
        .build()
        .translate(src.text, &ast)
        .map_err(|e| match e.kind() {
            regex_syntax::hir::ErrorKind::InvalidUtf8 => unsupported(
                pattern,
                "non-UTF-8 construct",
                &src.span(e.span()),
                "it can match bytes that are not valid UTF-8, and fstc constrains UTF-8 text; \
                 keep Unicode mode on or restrict byte classes to ASCII",
            ),
            kind => syntax_error(pattern, kind, &src.span(e.span())),
        })
}

/// Compiles `pattern` (full match) into a byte DFA with at most `state_limit` states.
pub fn byte_dfa(pattern: &str, state_limit: usize) -> Result<ByteDfa, RegexError> {
    RegexBuilder::new().state_limit(state_limit).build(pattern)
}

/// A byte-automaton error met while compiling a pattern: the subset construction's limits
/// get the pattern's advice, the algebra's (look-around bodies) keep their own words.
impl From<ByteDfaError> for RegexError {
    fn from(e: ByteDfaError) -> RegexError {
        match (e.kind(), e.operation(), e.set_budget()) {
            (&ByteDfaErrorKind::TooManyStates { limit }, _, _) if e.is_ceiling() => {
                RegexError::new(RegexErrorKind::TooManyStates { limit }, None, e.to_string())
            }
            (&ByteDfaErrorKind::TooManyStates { limit }, None, None) => {
                RegexError::too_many_states(limit)
            }
            (&ByteDfaErrorKind::TooManyStates { limit }, None, Some(entries)) => {
                RegexError::state_sets_too_large(limit, entries)
            }
            (&ByteDfaErrorKind::TooManyStates { limit }, Some(_), _) => {
                RegexError::new(RegexErrorKind::TooManyStates { limit }, None, e.to_string())
            }
            (&ByteDfaErrorKind::Deadline { .. }, _, _) => {
                RegexError::new(RegexErrorKind::Deadline, None, e.to_string())
            }
            (&ByteDfaErrorKind::Memory { budget }, _, _) => {
                RegexError::new(RegexErrorKind::Memory { budget }, None, e.to_string())
            }
            (&ByteDfaErrorKind::TerminalOperand { operation }, _, _) => RegexError::new(
                RegexErrorKind::TerminalOperand { operation },
                None,
                e.to_string(),
            ),
            _ => RegexError::new(RegexErrorKind::Syntax, None, e.to_string()),
        }
    }
}

/// The syntax and class meanings a pattern is read with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    /// The `regex` crate's syntax (regex-syntax): Unicode `\d`, `\w`, `\s`, `\b`.
    #[default]
    Regex,
    /// ECMAScript (ECMA-262) with the `u` flag and no other flag, as JSON Schema's
    /// `pattern` is read: `\d` = `[0-9]`, `\w` = `[0-9A-Za-z_]`, `\s` per ECMA (with
    /// U+FEFF and the Unicode spaces), `\b` on ASCII word characters, `.` excludes every
    /// line terminator, `\uHHHH` (surrogate pairs joined) and `\u{...}`, `(?<name>...)`,
    /// `[^]`, `\/`. Regex-syntax extras (`(?i)`, `(?P<`, `\A`, `\pL`) are refused.
    EcmaScript,
}

/// Options for compiling a pattern; [`byte_dfa`] covers the common case.
#[derive(Clone, Debug)]
pub struct RegexBuilder {
    state_limit: usize,
    deadline: Option<std::time::Instant>,
    memory_budget: usize,
    case_insensitive: bool,
    dialect: Dialect,
    automata: Vec<std::sync::Arc<ByteDfa>>,
}

impl Default for RegexBuilder {
    fn default() -> Self {
        RegexBuilder::new()
    }
}

impl RegexBuilder {
    /// Default options: [`DEFAULT_DFA_STATE_LIMIT`], case-sensitive.
    pub fn new() -> RegexBuilder {
        RegexBuilder {
            state_limit: DEFAULT_DFA_STATE_LIMIT,
            deadline: None,
            memory_budget: usize::MAX,
            case_insensitive: false,
            dialect: Dialect::Regex,
            automata: Vec::new(),
        }
    }

    /// The byte DFAs that `(?P<AUTOMATON>N)` in a pattern splices in (`N` indexes
    /// `automata`): how a language built with [`Algebra`] (an intersection, a
    /// complement) re-enters a pattern. DFAs with terminal edges are refused.
    pub fn automata(&mut self, automata: Vec<std::sync::Arc<ByteDfa>>) -> &mut RegexBuilder {
        self.automata = automata;
        self
    }

    /// Reads patterns in `dialect` (default [`Dialect::Regex`]).
    pub fn dialect(&mut self, dialect: Dialect) -> &mut RegexBuilder {
        self.dialect = dialect;
        self
    }

    /// Caps byte-DFA states (and, in proportion, NFA states). 0 counts as 1.
    pub fn state_limit(&mut self, limit: usize) -> &mut RegexBuilder {
        self.state_limit = limit;
        self
    }

    /// Gives up past `deadline` with [`RegexErrorKind::Deadline`]: the subset
    /// constructions poll it as they make states, so a server's time budget holds inside
    /// one large build (default: none).
    pub fn deadline(&mut self, deadline: Option<std::time::Instant>) -> &mut RegexBuilder {
        self.deadline = deadline;
        self
    }

    /// Gives up with [`RegexErrorKind::Memory`] once the subset constructions' tables and
    /// state sets pass `bytes` (default: only fstc's fixed ceilings, a few hundred MiB).
    pub fn memory_budget(&mut self, bytes: usize) -> &mut RegexBuilder {
        self.memory_budget = bytes;
        self
    }

    /// Matches letters case-insensitively, as if the pattern started with `(?i)`.
    pub fn case_insensitive(&mut self, yes: bool) -> &mut RegexBuilder {
        self.case_insensitive = yes;
        self
    }

    /// Compiles `pattern` to a minimized, trimmed byte DFA with full-match semantics.
    pub fn build(&self, pattern: &str) -> Result<ByteDfa, RegexError> {
        if self.dialect == Dialect::EcmaScript && self.case_insensitive {
            return Err(RegexError::new(
                RegexErrorKind::Unsupported {
                    construct: "case-insensitive ECMAScript",
                },
                None,
                "case-insensitive matching (the `i` flag) is not supported with the ECMAScript \
                 dialect: ECMAScript's case folding and `\\w`/`\\b` under `i` differ from \
                 regex-syntax's; spell both cases in the pattern"
                    .to_string(),
            ));
        }
        let rewritten = extensions::rewrite(pattern, self.dialect == Dialect::EcmaScript)?;
        if self.dialect == Dialect::EcmaScript {
            ecma::check(pattern)?;
        }
        let (hir, uses) = match &rewritten {
            None => (
                parse(&Source::plain(pattern), self.case_insensitive)?,
                &[][..],
            ),
            Some(r) => {
                let src = Source {
                    text: &r.text,
                    pattern,
                    map: Some(&r.map),
                };
                (parse(&src, self.case_insensitive)?, &r.uses[..])
            }
        };
        // Reading a long pattern takes time of its own (a JSON Schema's flat regex of a few
        // hundred kilobytes, a tenth of a second): the deadline is checked between phases.
        self.check_deadline("reading the pattern")?;
        // State ids are u32 (DEAD = u32::MAX), so limits past that are clamped.
        let max_ids = (u32::MAX / 2) as usize;
        let limit = self.state_limit.clamp(1, max_ids);
        let nfa_limit = limit
            .saturating_mul(NFA_STATES_PER_DFA_STATE)
            .clamp(MIN_NFA_STATE_LIMIT, MAX_NFA_STATE_LIMIT);
        self.compile_hir(&hir, uses, limit, nfa_limit)
    }

    /// An error of kind [`RegexErrorKind::Deadline`] once the deadline has passed, after
    /// the phase `phase`.
    fn check_deadline(&self, phase: &str) -> Result<(), RegexError> {
        match self.deadline {
            Some(d) if std::time::Instant::now() >= d => Err(RegexError::new(
                RegexErrorKind::Deadline,
                None,
                format!("the pattern's compile passed its deadline (time budget) {phase}"),
            )),
            _ => Ok(()),
        }
    }

    /// HIR → NFA → minimized DFA; NFAs with look conditions go through `look`.
    fn compile_hir(
        &self,
        hir: &regex_syntax::hir::Hir,
        uses: &[extensions::Use],
        limit: usize,
        nfa_limit: usize,
    ) -> Result<ByteDfa, RegexError> {
        let mut compiler = nfa::Compiler::new(nfa_limit, uses).with_automata(&self.automata);
        if compiler.estimate(hir)? > nfa_limit as u64 {
            return Err(RegexError::too_many_nfa_states(nfa_limit));
        }
        let nfa = compiler.compile(hir)?;
        self.check_deadline("building the NFA")?;
        let nfa_terminals = nfa.terminals.clone();
        let limits = context::Limits {
            limit,
            nfa_limit,
            automata: &self.automata,
            deadline: self.deadline,
            memory: self.memory_budget,
        };
        let raw = if nfa.looks.is_empty() {
            bytes::determinize_within(&nfa, limits.subsets())?
        } else {
            let cx = limits.contexts(&nfa, uses)?;
            look::determinize(&nfa, &cx, false, limits.subsets())?
        };
        drop(nfa);
        ByteDfa::minimal_until(raw, &nfa_terminals, self.deadline).map_err(RegexError::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_fragments_are_cut() {
        assert_eq!(shown("abc"), "abc");
        assert_eq!(shown(&"x".repeat(100)).chars().count(), 41);
    }

    #[test]
    fn extreme_limits_are_clamped() {
        assert!(byte_dfa("", 0).unwrap().is_match(b""));
        assert!(byte_dfa("a", 0).is_err());
        assert!(byte_dfa("a+", usize::MAX).unwrap().is_match(b"aa"));
    }
}
