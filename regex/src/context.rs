//! The DFAs of an NFA's look conditions ([`look::Contexts`]): for a word character, a
//! line break or a look-around body `R`, a tracker `Σ*R` for the text before a position
//! and `R` itself for the text after it; for a body with assertions of its own, its
//! marked language (`Σ* # R Σ*` or `Σ* R # Σ*`, see `look`), built by `look` in mark
//! mode with the body's own contexts (so nesting recurses once per level).

use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir, Repetition};

use super::extensions::Use;
use super::look::{self, Ahead, Contexts, MARK};
use super::nfa::{self, Context, Nfa};
use super::SET_ENTRIES_PER_NFA_STATE;
use fstc_core::bytes::{self as dfa, Algebra, ByteDfa, Universe};

use super::{RegexBuilder, RegexError};

/// The size limits in force (as `RegexBuilder::build` derives them).
#[derive(Clone, Copy)]
pub(crate) struct Limits<'a> {
    pub(crate) limit: usize,
    pub(crate) nfa_limit: usize,
    /// The DFAs `(?P<AUTOMATON>N)` refers to (`RegexBuilder::automata`).
    pub(crate) automata: &'a [std::sync::Arc<ByteDfa>],
    /// `RegexBuilder::deadline`.
    pub(crate) deadline: Option<std::time::Instant>,
    /// `RegexBuilder::memory_budget`.
    pub(crate) memory: usize,
}

/// Where one context's DFA went in [`Contexts`].
#[derive(Clone, Copy)]
enum Placed {
    Tracker(usize),
    Ahead(usize),
    Marked(usize, usize),
}

impl Limits<'_> {
    /// The limits of one subset construction.
    pub(crate) fn subsets(self) -> dfa::Limits {
        let budget = self.nfa_limit.saturating_mul(SET_ENTRIES_PER_NFA_STATE);
        dfa::Limits::new(self.limit, budget)
            .until(self.deadline)
            .within(self.memory)
    }

    /// The contexts of `nfa`'s look conditions, each context language built once.
    pub(crate) fn contexts(self, nfa: &Nfa, uses: &[Use]) -> Result<Contexts, RegexError> {
        let mut out = Contexts::default();
        let mut placed: Vec<(bool, &Context, Placed)> = Vec::new();
        for spec in &nfa.looks {
            let mut cond = look::Cond::default();
            for (ahead, side) in [(false, &spec.behind), (true, &spec.ahead)] {
                let Some((cx, want)) = side else { continue };
                cond.what = describe(cx, uses);
                let found = placed.iter().find(|p| p.0 == ahead && p.1 == cx);
                let at = match found {
                    Some(p) => p.2,
                    None => {
                        let at = self.place(cx, ahead, uses, &mut out)?;
                        placed.push((ahead, cx, at));
                        at
                    }
                };
                match at {
                    Placed::Tracker(b) => cond.behind = Some((b, *want)),
                    Placed::Ahead(a) => cond.ahead = Some((a, *want)),
                    Placed::Marked(b, a) => cond.marked = Some((b, a, *want)),
                }
            }
            out.conds.push(cond);
        }
        Ok(out)
    }

    /// Builds the DFA of context `cx` on one side and adds it to `out`.
    fn place(
        self,
        cx: &Context,
        ahead: bool,
        uses: &[Use],
        out: &mut Contexts,
    ) -> Result<Placed, RegexError> {
        let fixed = |p: &str| RegexBuilder::new().build(p);
        let r = match cx {
            Context::Word { unicode: true } => fixed(r"\w")?,
            Context::Word { unicode: false } => fixed(r"(?-u:\w)")?,
            Context::Byte(b) => fixed(&format!(r"\x{b:02X}"))?,
            Context::Body { use_id, hir } => {
                let u = &uses[*use_id];
                let body = nfa::Compiler::new(self.nfa_limit, uses)
                    .with_automata(self.automata)
                    .compile(hir)?;
                if let Some(t) = body.terminals.first() {
                    return Err(u.unsupported(&format!(
                        "its body has the wildcard terminal `<{}>`, whose bytes are unknown \
                         until composition, so what the look-around sees is not known",
                        t.name()
                    )));
                }
                if !body.looks.is_empty() || body.has_anchors() {
                    let marked = self.marked(hir, ahead, uses)?;
                    out.behind.push(marked.clone());
                    out.ahead.push(Ahead::marked(marked));
                    return Ok(Placed::Marked(out.behind.len() - 1, out.ahead.len() - 1));
                }
                let raw = dfa::determinize_within(&body, self.subsets())?;
                ByteDfa::minimal_until(raw, &[], self.deadline)?
            }
        };
        if ahead {
            out.ahead.push(Ahead::plain(r));
            return Ok(Placed::Ahead(out.ahead.len() - 1));
        }
        let mut algebra = Algebra::new();
        algebra.state_limit(self.limit).deadline(self.deadline);
        let universe = ByteDfa::universe(Universe::Utf8);
        out.behind.push(algebra.concat(&universe, &r)?);
        Ok(Placed::Tracker(out.behind.len() - 1))
    }

    /// The DFA of the marked language of a look-around body with assertions.
    fn marked(self, body: &Hir, ahead: bool, uses: &[Use]) -> Result<ByteDfa, RegexError> {
        let any = Hir::repetition(Repetition {
            min: 0,
            max: None,
            greedy: true,
            sub: Box::new(Hir::class(Class::Unicode(ClassUnicode::new([
                ClassUnicodeRange::new('\0', char::MAX),
            ])))),
        });
        let mark = Hir::literal([MARK]);
        let parts = if ahead {
            vec![any.clone(), mark, body.clone(), any]
        } else {
            vec![any.clone(), body.clone(), mark, any]
        };
        let nfa = nfa::Compiler::new(self.nfa_limit, uses)
            .with_automata(self.automata)
            .compile(&Hir::concat(parts))?;
        let cx = self.contexts(&nfa, uses)?;
        let raw = look::determinize(&nfa, &cx, true, self.subsets())?;
        Ok(ByteDfa::minimal_until(raw, &[], self.deadline)?)
    }
}

/// The assertion a context belongs to, for messages.
fn describe(cx: &Context, uses: &[Use]) -> String {
    match cx {
        Context::Word { .. } => "a word boundary (`\\b`, `\\B`, `\\<`, `\\>`, ...)".to_string(),
        Context::Byte(_) => "a multi-line anchor (`(?m)^`, `(?m)$`)".to_string(),
        Context::Body { use_id, .. } => uses[*use_id].describe(),
    }
}
