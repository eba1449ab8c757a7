//! Regular expression → minimized byte DFA (the character automaton A_R of the paper).
//!
//! Pipeline: regex-syntax parses the pattern to an AST (where unsupported constructs are
//! found with their span), translates it to a HIR (UTF-8 mode: the language is a set of
//! valid UTF-8 texts), `nfa` builds a Thompson byte NFA, and `dfa` runs the subset
//! construction over byte classes, Hopcroft minimization and dead-state removal.
//!
//! Semantics are full match: the whole text must match, as with `\A(?:pattern)\z`.
//! `^`/`\A` hold only before the first byte and `$`/`\z` only after the last, wherever
//! they appear in the pattern. Word boundaries, `(?m)`/`(?R)` line anchors and
//! look-around are conditions on the whole text, compiled exactly by `look`;
//! backreferences are rejected (not regular). `algebra` combines DFAs (intersection,
//! complement, ...); [`Dialect::EcmaScript`] reads ECMA-262 patterns.
//!
//! Extensions (Koo et al. §2.5) are capture groups with reserved names, `[A-Z][A-Z0-9_]*`
//! (see [`EXTENSIONS`]): wildcard terminals (`(?P<PARAGRAPH_TOKEN>)`, [`TerminalKind`]),
//! which become extra alphabet symbols of the DFA, and sugar (`(?P<QUOTED_TEXT>)`,
//! `(?P<DELIMITED_LIST>, |\d+)`, ...), expanded into byte fragments. `extensions`
//! rewrites them into placeholder groups before regex-syntax parses the pattern;
//! `fragments` builds the sugar that has no compact regex.

mod algebra;
mod context;
mod dfa;
mod ecma;
mod extensions;
mod fragments;
mod look;
mod nfa;

pub use algebra::{Algebra, Universe};
pub use extensions::{ExtensionInfo, TerminalKind, EXTENSIONS};
pub use fragments::{QUOTED_TEXT_REGEX, UNQUOTED_TEXT_REGEX};

use std::fmt;

use regex_syntax::ast;
use regex_syntax::hir::translate::TranslatorBuilder;
use rustfst::fst_impls::VectorFst;
use rustfst::fst_traits::MutableFst;
use rustfst::semirings::{Semiring, TropicalWeight};
use rustfst::Tr;

use crate::byte_automaton::ByteAutomaton;
use crate::dot::escape_bytes;
use crate::labels::byte_label;

/// The transition-table entry for "no transition": the text can no longer match.
pub const DEAD: u32 = u32::MAX;

/// Default cap on byte-DFA states (counted before minimization, as they are created).
///
/// Realistic constraint patterns need tens to hundreds of states (with Unicode `\d` and
/// `\w`: an ISO-8601 timestamp ~480, an IPv4 address ~220, an identifier `[^\W\d]\w*`
/// ~380), while the composition with a 128k-token vocabulary costs time per DFA state and
/// the table costs up to 1 KiB per state. 10 000 leaves room for patterns twenty times
/// larger and stops blow-ups (`(a|b)*a(a|b){n}` needs 2^(n+1) states, `\w{100}` tens of
/// thousands) within tens of milliseconds and ~10 MB.
pub const DEFAULT_DFA_STATE_LIMIT: usize = 10_000;

/// NFA states allowed per allowed DFA state. Counted repetitions multiply NFA size
/// (`(\w{50}){50}` copies `\w` 2 500 times), so the NFA is capped too, in proportion.
const NFA_STATES_PER_DFA_STATE: usize = 64;
/// Floor for the NFA cap, so a tiny DFA limit still admits big Unicode classes.
const MIN_NFA_STATE_LIMIT: usize = 1 << 17;
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
    map: Option<&'p extensions::SpanMap>,
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

/// Options for compiling a pattern; [`ByteDfa::from_regex`] covers the common case.
#[derive(Clone, Debug)]
pub struct RegexBuilder {
    state_limit: usize,
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
        // State ids are u32 (DEAD = u32::MAX), so limits past that are clamped.
        let max_ids = (u32::MAX / 2) as usize;
        let limit = self.state_limit.clamp(1, max_ids);
        let nfa_limit = limit
            .saturating_mul(NFA_STATES_PER_DFA_STATE)
            .clamp(MIN_NFA_STATE_LIMIT, max_ids);
        self.compile_hir(&hir, uses, limit, nfa_limit)
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
        let nfa_terminals = nfa.terminals.clone();
        let budget = nfa_limit.saturating_mul(SET_ENTRIES_PER_NFA_STATE);
        let raw = if nfa.looks.is_empty() {
            dfa::determinize(&nfa, limit, budget)?
        } else {
            let cx = context::Limits {
                limit,
                nfa_limit,
                automata: &self.automata,
            }
            .contexts(&nfa, uses)?;
            look::determinize(&nfa, &cx, false, limit, budget)?
        };
        drop(nfa);
        Ok(ByteDfa::minimal(raw, &nfa_terminals))
    }
}

/// A deterministic, minimized byte automaton without a dead state: a missing transition
/// means no continuation can match. The start state is 0; states are numbered
/// breadth-first from it (classes in order, then terminals), so equal languages give
/// equal DFAs.
///
/// Besides bytes, a DFA compiled from a pattern with wildcard extensions has terminal
/// edges ([`ByteDfa::terminals`], [`ByteDfa::next_terminal`]), each reading one whole
/// token of a set chosen when composing with a vocabulary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByteDfa {
    classes: [u8; 256],
    num_classes: usize,
    table: Vec<u32>,
    accepting: Vec<bool>,
    /// The terminals with at least one edge, in precedence order.
    terminals: Vec<TerminalKind>,
    /// `[state * terminals.len() + k]` → target of terminal `k`, or [`DEAD`].
    terminal_table: Vec<u32>,
}

impl ByteDfa {
    /// Splits a table DFA (columns: byte classes, then `kinds`) into byte and terminal
    /// tables, dropping terminal columns without edges.
    fn from_table(dfa: dfa::TableDfa, kinds: &[TerminalKind]) -> ByteDfa {
        let (k, w) = (dfa.num_classes, dfa.width());
        let n = dfa.accepting.len();
        let used: Vec<usize> = (k..w)
            .filter(|&c| (0..n).any(|s| dfa.table[s * w + c] != DEAD))
            .collect();
        let mut table = Vec::with_capacity(n * k);
        let mut terminal_table = Vec::with_capacity(n * used.len());
        for row in dfa.table.chunks(w) {
            table.extend_from_slice(&row[..k]);
            terminal_table.extend(used.iter().map(|&c| row[c]));
        }
        ByteDfa {
            classes: dfa.classes,
            num_classes: k,
            table,
            accepting: dfa.accepting,
            terminals: used.iter().map(|&c| kinds[c - k]).collect(),
            terminal_table,
        }
    }

    /// Minimizes a table DFA (classes merged before and after) into a `ByteDfa`.
    fn minimal(raw: dfa::TableDfa, kinds: &[TerminalKind]) -> ByteDfa {
        let min = dfa::merge_classes(dfa::minimize(&dfa::merge_classes(raw)));
        ByteDfa::from_table(min, kinds)
    }

    /// Compiles `pattern` (full match) with at most `state_limit` DFA states.
    pub fn from_regex(pattern: &str, state_limit: usize) -> Result<ByteDfa, RegexError> {
        RegexBuilder::new().state_limit(state_limit).build(pattern)
    }

    /// The class of each byte; bytes of one class have the same transitions everywhere.
    pub fn byte_classes(&self) -> &[u8; 256] {
        &self.classes
    }

    /// Number of byte classes (columns of [`ByteDfa::transitions`]).
    pub fn num_classes(&self) -> usize {
        self.num_classes
    }

    /// The table `[state * num_classes + class]` → target state, or [`DEAD`].
    pub fn transitions(&self) -> &[u32] {
        &self.table
    }

    /// Number of states (at least 1: the start state).
    pub fn num_states(&self) -> usize {
        self.accepting.len()
    }

    /// Number of byte-labelled transitions, i.e. arcs of [`ByteDfa::to_fst`] (a class of
    /// ten bytes counts ten).
    pub fn num_transitions(&self) -> usize {
        let mut width = vec![0usize; self.num_classes];
        for &c in &self.classes {
            width[c as usize] += 1;
        }
        self.table
            .iter()
            .enumerate()
            .filter(|(_, &t)| t != DEAD)
            .map(|(i, _)| width[i % self.num_classes])
            .sum()
    }

    /// The start state (always 0).
    pub fn start(&self) -> u32 {
        0
    }

    /// Whether `state` accepts (`false` for out-of-range states).
    pub fn is_accepting(&self, state: u32) -> bool {
        self.accepting.get(state as usize).copied().unwrap_or(false)
    }

    /// The state reached from `state` by `byte`, or `None` when nothing can match anymore.
    pub fn next(&self, state: u32, byte: u8) -> Option<u32> {
        let i = state as usize * self.num_classes + self.classes[byte as usize] as usize;
        match self.table.get(i) {
            Some(&t) if t != DEAD => Some(t),
            _ => None,
        }
    }

    /// The terminals on this DFA's edges, distinct and in precedence order; terminal `k`
    /// of [`ByteDfa::next_terminal`] (and of `ByteAutomaton`) is `terminals()[k]`. Empty
    /// for patterns without wildcard extensions.
    pub fn terminals(&self) -> &[TerminalKind] {
        &self.terminals
    }

    /// The state reached from `state` by terminal `k` (an index into
    /// [`ByteDfa::terminals`]), or `None`.
    pub fn next_terminal(&self, state: u32, k: usize) -> Option<u32> {
        let t = self.terminals.len();
        if k >= t {
            return None;
        }
        match self.terminal_table.get(state as usize * t + k) {
            Some(&s) if s != DEAD => Some(s),
            _ => None,
        }
    }

    /// Whether the whole of `text` matches the pattern, reading bytes only: a pattern with
    /// terminals matches here only the texts that need no terminal edge (a terminal reads
    /// a token, which only exists once the DFA is composed with a vocabulary).
    pub fn is_match(&self, text: &[u8]) -> bool {
        let mut s = self.start();
        for &b in text {
            match self.next(s, b) {
                Some(t) => s = t,
                None => return false,
            }
        }
        self.is_accepting(s)
    }

    /// The DFA as a rustfst acceptor: one arc per byte (label per [`crate::labels`]),
    /// weights one, states numbered as here. Terminal edges have no byte label and are
    /// left out.
    pub fn to_fst(&self) -> VectorFst<TropicalWeight> {
        let mut fst = VectorFst::new();
        fst.add_states(self.num_states());
        // Every state index below exists, so these calls cannot fail.
        fst.set_start(0).expect("state 0 exists");
        for s in 0..self.num_states() as u32 {
            if self.is_accepting(s) {
                fst.set_final(s, TropicalWeight::one())
                    .expect("state exists");
            }
            for b in 0..=255u8 {
                if let Some(t) = self.next(s, b) {
                    let l = byte_label(b);
                    fst.add_tr(s, Tr::new(l, l, TropicalWeight::one(), t))
                        .expect("state exists");
                }
            }
        }
        fst
    }

    /// Graphviz DOT; edges to one target are merged into one label of byte ranges
    /// (`[0-9]`, `a`, `\xC3`), listed by their lowest byte; then terminal edges, dashed
    /// and labelled by name (`<PARAGRAPH_TOKEN>`). Deterministic.
    pub fn to_dot(&self) -> String {
        let mut out = String::from(
            "digraph byte_dfa {\n  rankdir=LR;\n  node [shape=circle];\n  \
             start [shape=point, label=\"\"];\n  start -> 0;\n",
        );
        for s in 0..self.num_states() as u32 {
            if self.is_accepting(s) {
                out.push_str(&format!("  {s} [shape=doublecircle];\n"));
            } else {
                out.push_str(&format!("  {s};\n"));
            }
        }
        for s in 0..self.num_states() as u32 {
            // (target, bytes) in order of first byte.
            let mut groups: Vec<(u32, Vec<u8>)> = Vec::new();
            for b in 0..=255u8 {
                if let Some(t) = self.next(s, b) {
                    match groups.iter_mut().find(|(g, _)| *g == t) {
                        Some((_, bytes)) => bytes.push(b),
                        None => groups.push((t, vec![b])),
                    }
                }
            }
            for (t, bytes) in groups {
                out.push_str(&format!(
                    "  {s} -> {t} [label=\"{}\"];\n",
                    ranges_label(&bytes)
                ));
            }
            for (k, kind) in self.terminals.iter().enumerate() {
                if let Some(t) = self.next_terminal(s, k) {
                    out.push_str(&format!(
                        "  {s} -> {t} [label=\"<{}>\", style=dashed];\n",
                        kind.name()
                    ));
                }
            }
        }
        out.push_str("}\n");
        out
    }
}

/// A sorted byte set as a DOT label: one byte bare, otherwise a bracketed class.
fn ranges_label(bytes: &[u8]) -> String {
    if bytes.len() == 1 {
        return escape_bytes(bytes);
    }
    let esc = |b: u8| -> String {
        match b {
            // Class metacharacters get a backslash (itself escaped for DOT).
            b'-' | b'[' | b']' | b'^' => format!("\\\\{}", b as char),
            _ => escape_bytes(&[b]),
        }
    };
    let mut out = String::from("[");
    let mut i = 0;
    while i < bytes.len() {
        let lo = bytes[i];
        let mut j = i;
        while j + 1 < bytes.len() && bytes[j + 1] == bytes[j] + 1 {
            j += 1;
        }
        let hi = bytes[j];
        out.push_str(&esc(lo));
        if hi > lo {
            if hi > lo + 1 {
                out.push('-');
            }
            out.push_str(&esc(hi));
        }
        i = j + 1;
    }
    out.push(']');
    out
}

impl ByteAutomaton for ByteDfa {
    fn num_states(&self) -> usize {
        ByteDfa::num_states(self)
    }
    fn start(&self) -> u32 {
        ByteDfa::start(self)
    }
    fn is_accepting(&self, state: u32) -> bool {
        ByteDfa::is_accepting(self, state)
    }
    fn next(&self, state: u32, byte: u8) -> Option<u32> {
        ByteDfa::next(self, state, byte)
    }
    fn byte_classes(&self) -> Option<&[u8; 256]> {
        Some(ByteDfa::byte_classes(self))
    }
    fn class_table(&self) -> Option<&[u32]> {
        Some(&self.table)
    }
    fn num_terminals(&self) -> usize {
        self.terminals.len()
    }
    fn next_terminal(&self, state: u32, terminal: usize) -> Option<u32> {
        ByteDfa::next_terminal(self, state, terminal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_labels_are_readable_classes() {
        assert_eq!(ranges_label(b"a"), "a");
        assert_eq!(ranges_label(b"0123456789"), "[0-9]");
        assert_eq!(ranges_label(b"ab"), "[ab]");
        assert_eq!(ranges_label(b"-09"), "[\\\\-09]");
        assert_eq!(ranges_label(&[0xC3]), "\\\\xC3");
        assert_eq!(
            ranges_label(&[0x80, 0x81, 0x82, 0xBF]),
            "[\\\\x80-\\\\x82\\\\xBF]"
        );
    }

    #[test]
    fn long_fragments_are_cut() {
        assert_eq!(shown("abc"), "abc");
        assert_eq!(shown(&"x".repeat(100)).chars().count(), 41);
    }

    #[test]
    fn extreme_limits_are_clamped() {
        assert!(ByteDfa::from_regex("", 0).unwrap().is_match(b""));
        assert!(ByteDfa::from_regex("a", 0).is_err());
        assert!(ByteDfa::from_regex("a+", usize::MAX)
            .unwrap()
            .is_match(b"aa"));
    }
}
