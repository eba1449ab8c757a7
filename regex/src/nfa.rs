//! Thompson-style byte NFA built from a regex-syntax HIR.
//!
//! States live in one vector; their byte ranges and epsilon targets live in two shared
//! arenas so a state is a small `Copy` value and a 100 000-state NFA costs a few MB.
//! Unicode classes become UTF-8 byte sequences (`Utf8Sequences`), merged into a small
//! trie with shared suffixes, so that `\w` is a few hundred states rather than thousands
//! and the subset construction sees few NFA states per DFA state.

use std::collections::HashMap;
use std::rc::Rc;

use regex_syntax::hir::{Capture, Class, Hir, HirKind, Look};
use regex_syntax::utf8::Utf8Sequences;

use fstc_core::bytes::{ByteDfa, State, TerminalKind};
use fstc_core::fast_hash::FastMap;

use super::extensions::{is_reserved, placeholder_id, unrecognized, Kind, Use};
use super::fragments;
use super::graph::{ByteGraph, Dest};
use super::RegexError;

/// The byte NFA of a pattern: fstc-core's NFA whose `Look` states index [`LookSpec`]s.
pub(crate) type Nfa = fstc_core::bytes::Nfa<LookSpec>;

/// A language of text next to a position: what precedes it must end with one
/// (`behind`), or what follows must (or must not) start with one (`ahead`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Context {
    /// One word character: `\w` (Unicode) or `[0-9A-Za-z_]` (ASCII).
    Word { unicode: bool },
    /// One byte (`\n`, `\r`).
    Byte(u8),
    /// The body of look-around group `use_id` (its placeholder number).
    Body { use_id: usize, hir: Box<Hir> },
}

/// A conjunction of at most one condition on the text before a position and one on
/// the text after it; disjunctions are `Split`s over several `Look` states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LookSpec {
    /// The text so far ends with `Context` (`true`) or does not (`false`).
    pub(crate) behind: Option<(Context, bool)>,
    /// The rest of the text starts with `Context` (`true`) or does not (`false`).
    pub(crate) ahead: Option<(Context, bool)>,
}

/// Builds an NFA from a HIR, refusing to grow past `limit` states.
pub(crate) struct Compiler<'u> {
    nfa: Nfa,
    limit: usize,
    /// Class graphs by HIR node address: a class repeated by `{n}` is compiled once.
    classes: HashMap<usize, Rc<ByteGraph>>,
    /// The extension groups, by placeholder number (`extensions::rewrite`).
    uses: &'u [Use],
    /// Extension graphs (`TEXT_UNTIL`, `SUBSTRING_OF`) by placeholder number.
    graphs: HashMap<usize, Rc<ByteGraph>>,
    /// The terminals the NFA reads, in first-use order (`Terminal` states index it until
    /// `compile` sorts it into precedence order).
    terminals: Vec<TerminalKind>,
    /// The DFAs `(?P<AUTOMATON>N)` refers to (`RegexBuilder::automata`).
    automata: &'u [std::sync::Arc<ByteDfa>],
}

impl<'u> Compiler<'u> {
    /// A compiler for a pattern whose extension groups are `uses`.
    pub(crate) fn new(limit: usize, uses: &'u [Use]) -> Compiler<'u> {
        Compiler {
            nfa: Nfa {
                states: Vec::new(),
                ranges: Vec::new(),
                targets: Vec::new(),
                start: 0,
                terminals: Vec::new(),
                looks: Vec::new(),
            },
            limit,
            classes: HashMap::new(),
            uses,
            graphs: HashMap::new(),
            terminals: Vec::new(),
            automata: &[],
        }
    }

    /// Lets `(?P<AUTOMATON>N)` refer to `automata[N]`.
    pub(crate) fn with_automata(mut self, automata: &'u [std::sync::Arc<ByteDfa>]) -> Compiler<'u> {
        self.automata = automata;
        self
    }

    /// An upper bound on the number of NFA states `compile` will create for `hir`
    /// (saturating), computed without building anything big so that `a{100000}{100}` is
    /// refused at once. Also checks the extensions' arguments, so that their errors come
    /// before any size error.
    pub(crate) fn estimate(&mut self, hir: &Hir) -> Result<u64, RegexError> {
        Ok(match hir.kind() {
            HirKind::Empty => 0,
            HirKind::Literal(lit) => lit.0.len() as u64,
            HirKind::Class(class) => self.class_graph(hir, class).nodes.len() as u64,
            HirKind::Look(_) => 1,
            HirKind::Repetition(rep) => {
                let sub = self.estimate(&rep.sub)?;
                // `min` copies then either a loop body or `max - min` optional copies.
                let copies = match rep.max {
                    None => u64::from(rep.min) + 1,
                    Some(max) => u64::from(max),
                };
                sub.saturating_add(1)
                    .saturating_mul(copies)
                    .saturating_add(1)
            }
            HirKind::Capture(cap) => match self.extension(cap) {
                Some(id) => self.estimate_extension(id, &cap.sub)?,
                None => {
                    if let Some(name) = cap.name.as_deref().filter(|n| is_reserved(n)) {
                        // Only a verbose-mode comment can hide a group from the rewriter.
                        return Err(unrecognized(name));
                    }
                    self.estimate(&cap.sub)?
                }
            },
            HirKind::Concat(subs) => {
                let mut acc = 0u64;
                for h in subs {
                    acc = acc.saturating_add(self.estimate(h)?);
                }
                acc
            }
            HirKind::Alternation(subs) => {
                let mut acc = 1u64;
                for h in subs {
                    acc = acc.saturating_add(self.estimate(h)?);
                }
                acc
            }
        })
    }

    /// Compiles `hir` followed by a `Match` state.
    pub(crate) fn compile(mut self, hir: &Hir) -> Result<Nfa, RegexError> {
        let matched = self.push(State::Match)?;
        let start = self.compile_into(hir, matched)?;
        self.nfa.start = start;
        let mut sorted = self.terminals.clone();
        sorted.sort_unstable();
        // `Terminal` states were numbered in first-use order; they read the sorted list.
        for state in &mut self.nfa.states {
            if let State::Terminal { symbol, .. } = state {
                let kind = self.terminals[*symbol as usize];
                *symbol = sorted.binary_search(&kind).expect("used") as u32;
            }
        }
        self.nfa.terminals = sorted;
        Ok(self.nfa)
    }

    /// The placeholder number when `cap` is an extension group of this pattern.
    fn extension(&self, cap: &Capture) -> Option<usize> {
        let id = placeholder_id(cap.name.as_deref()?)?;
        (id < self.uses.len()).then_some(id)
    }

    fn estimate_extension(&mut self, id: usize, sub: &Hir) -> Result<u64, RegexError> {
        let uses = self.uses;
        let u = &uses[id];
        let fields = fields(sub);
        Ok(match u.kind {
            Kind::Terminal(_) | Kind::LookAround { .. } => 1,
            Kind::QuotedText => self.estimate(fragments::quoted_text())?,
            Kind::UnquotedText => self.estimate(fragments::unquoted_text())?,
            Kind::TextUntil | Kind::SubstringOf | Kind::Automaton => {
                self.graph(id, &fields)?.nodes.len() as u64 + 1
            }
            Kind::DelimitedList => {
                let (min, max) = (u.min, u.max);
                let delim = self.estimate(fields[0])?;
                let item = self.estimate(fields[1])?;
                match max {
                    // "delimiter, item" once per required item past the first, and one
                    // looping copy (the last item), plus two splits.
                    None => delim
                        .saturating_add(item)
                        .saturating_mul(min.max(1) as u64)
                        .saturating_add(2),
                    // A copy of the item, then copies of "delimiter, item" (as a repetition).
                    Some(max) => delim
                        .saturating_add(item)
                        .saturating_add(1)
                        .saturating_mul(max as u64)
                        .saturating_add(item)
                        .saturating_add(2),
                }
            }
            Kind::DelimitedSubsequenceOf => {
                let delim = self.estimate(fields[0])?;
                let mut acc = 0u64;
                for item in &fields[1..] {
                    acc = acc
                        .saturating_add(self.estimate(item)?)
                        .saturating_add(delim)
                        .saturating_add(2);
                }
                acc
            }
        })
    }

    /// The DFA a `(?P<AUTOMATON>N)` group refers to.
    fn automaton(&self, id: usize, fields: &[&Hir]) -> Result<&'u ByteDfa, RegexError> {
        let u = &self.uses[id];
        let n = fields
            .first()
            .and_then(|f| literal(f))
            .and_then(|l| String::from_utf8(l).ok())
            .and_then(|t| t.parse::<usize>().ok())
            .ok_or_else(|| u.error("the argument must be a decimal automaton number"))?;
        let dfa = self.automata.get(n).ok_or_else(|| {
            u.error(&format!(
                "no automaton {n}: {} were given to RegexBuilder::automata",
                self.automata.len()
            ))
        })?;
        if !dfa.terminals().is_empty() {
            return Err(u.error("the automaton has wildcard terminal edges"));
        }
        Ok(dfa)
    }

    /// The cached graph of a `TEXT_UNTIL`, `SUBSTRING_OF` or `AUTOMATON` group, built on
    /// first use.
    fn graph(&mut self, id: usize, fields: &[&Hir]) -> Result<Rc<ByteGraph>, RegexError> {
        if let Some(g) = self.graphs.get(&id) {
            return Ok(Rc::clone(g));
        }
        let uses = self.uses;
        let u = &uses[id];
        if u.kind == Kind::Automaton {
            let graph = Rc::new(fragments::dfa_graph(self.automaton(id, fields)?));
            self.graphs.insert(id, Rc::clone(&graph));
            return Ok(graph);
        }
        let mut literals = Vec::with_capacity(fields.len());
        for (i, field) in fields.iter().enumerate() {
            let what = match u.kind {
                Kind::TextUntil => format!("stop phrase {}", i + 1),
                _ => "the string".to_string(),
            };
            let lit = literal(field).ok_or_else(|| {
                u.error(&format!(
                    "{what} must be a literal string, but it is a pattern; escape regex \
                     metacharacters with `\\` (and note that case-insensitive mode turns \
                     letters into classes)"
                ))
            })?;
            if lit.is_empty() {
                return Err(u.error(&format!("{what} is empty")));
            }
            literals.push(lit);
        }
        let graph = match u.kind {
            Kind::TextUntil => fragments::text_until(&literals),
            _ => {
                let text = std::str::from_utf8(&literals[0])
                    .map_err(|_| u.error("the string is not valid UTF-8"))?;
                fragments::substrings(text)
            }
        };
        let graph = Rc::new(graph);
        self.graphs.insert(id, Rc::clone(&graph));
        Ok(graph)
    }

    /// Compiles extension group `id` (argument HIR `sub`) in continuation style.
    fn compile_extension(&mut self, id: usize, sub: &Hir, next: u32) -> Result<u32, RegexError> {
        let u = &self.uses[id];
        let (kind, min, max) = (u.kind, u.min, u.max);
        let fields = fields(sub);
        match kind {
            Kind::Terminal(t) => {
                let symbol = match self.terminals.iter().position(|&u| u == t) {
                    Some(i) => i,
                    None => {
                        self.terminals.push(t);
                        self.terminals.len() - 1
                    }
                };
                self.push(State::Terminal {
                    symbol: symbol as u32,
                    next,
                })
            }
            Kind::LookAround { ahead, negated } => {
                let cx = Context::Body {
                    use_id: id,
                    hir: Box::new(sub.clone()),
                };
                let spec = if ahead {
                    LookSpec {
                        behind: None,
                        ahead: Some((cx, !negated)),
                    }
                } else {
                    LookSpec {
                        behind: Some((cx, !negated)),
                        ahead: None,
                    }
                };
                self.push_look(spec, next)
            }
            Kind::QuotedText => self.compile_into(fragments::quoted_text(), next),
            Kind::UnquotedText => self.compile_into(fragments::unquoted_text(), next),
            Kind::TextUntil | Kind::SubstringOf => {
                let graph = self.graph(id, &fields)?;
                self.instantiate(&graph, next)
            }
            Kind::Automaton => {
                let graph = self.graph(id, &fields)?;
                let entry = self.instantiate(&graph, next)?;
                // A graph exits on a byte: the empty text is an epsilon around it.
                if self.automaton(id, &fields)?.is_accepting(0) {
                    self.push_split(&[entry, next])
                } else {
                    Ok(entry)
                }
            }
            Kind::DelimitedList => self.delimited_list(fields[0], fields[1], min, max, next),
            Kind::DelimitedSubsequenceOf => {
                // Back to front: `choose` enters item i or skips to a later one; after
                // item i the text ends or a delimiter leads to a later item. Each item
                // and delimiter is compiled once per position: linear size.
                let (delim, items) = (fields[0], &fields[1..]);
                let last = items.len() - 1;
                let mut choose = self.compile_into(items[last], next)?;
                for item in items[..last].iter().rev() {
                    let more = self.compile_into(delim, choose)?;
                    let after = self.push_split(&[next, more])?;
                    let entry = self.compile_into(item, after)?;
                    choose = self.push_split(&[entry, choose])?;
                }
                Ok(choose)
            }
        }
    }

    /// `(?P<DELIMITED_LIST>DELIMITER|ITEM|MIN|MAX)`: ITEM, then "DELIMITER ITEM" repeated as
    /// `Repetition` does; without MAX one copy of ITEM loops back to itself through the
    /// delimiter, so nested lists grow linearly with depth, not twice per level.
    fn delimited_list(
        &mut self,
        delim: &Hir,
        item: &Hir,
        min: usize,
        max: Option<usize>,
        next: u32,
    ) -> Result<u32, RegexError> {
        if max == Some(0) {
            // MIN = MAX = 0: only the empty text.
            return Ok(next);
        }
        let lo = min.max(1) - 1;
        let entry = match max {
            None => {
                let lp = self.push_split(&[])?;
                let tail = self.compile_into(item, lp)?;
                let again = self.compile_into(delim, tail)?;
                let off = self.nfa.targets.len() as u32;
                self.nfa.targets.extend_from_slice(&[again, next]);
                self.nfa.states[lp as usize] = State::Split { off, len: 2 };
                let mut cur = tail;
                for _ in 0..lo {
                    cur = self.compile_into(delim, cur)?;
                    cur = self.compile_into(item, cur)?;
                }
                cur
            }
            Some(max) => {
                let mut cur = next;
                for _ in lo..max - 1 {
                    let body = self.compile_into(item, cur)?;
                    let body = self.compile_into(delim, body)?;
                    cur = self.push_split(&[body, next])?;
                }
                for _ in 0..lo {
                    cur = self.compile_into(item, cur)?;
                    cur = self.compile_into(delim, cur)?;
                }
                self.compile_into(item, cur)?
            }
        };
        if min == 0 {
            self.push_split(&[entry, next])
        } else {
            Ok(entry)
        }
    }

    fn push(&mut self, state: State) -> Result<u32, RegexError> {
        if self.nfa.states.len() >= self.limit {
            return Err(RegexError::too_many_nfa_states(self.limit));
        }
        self.nfa.states.push(state);
        Ok((self.nfa.states.len() - 1) as u32)
    }

    /// An assertion as a `Split` over conjunctions of conditions on the text around it
    /// (`Start`/`End` for the text's ends). Word characters count as the text's ends'
    /// neighbours do not: the ends are non-word.
    fn compile_look(&mut self, look: Look, next: u32) -> Result<u32, RegexError> {
        use Context::{Byte, Word};
        let cond = |behind: Option<(Context, bool)>, ahead: Option<(Context, bool)>| LookSpec {
            behind,
            ahead,
        };
        let word = |unicode| Word { unicode };
        let mut alts = Vec::new();
        match look {
            Look::Start => return self.push(State::Start(next)),
            Look::End => return self.push(State::End(next)),
            Look::StartLF => alts.push(cond(Some((Byte(b'\n'), true)), None)),
            Look::EndLF => alts.push(cond(None, Some((Byte(b'\n'), true)))),
            Look::StartCRLF => {
                alts.push(cond(Some((Byte(b'\n'), true)), None));
                alts.push(cond(Some((Byte(b'\r'), true)), Some((Byte(b'\n'), false))));
            }
            Look::EndCRLF => {
                alts.push(cond(None, Some((Byte(b'\r'), true))));
                alts.push(cond(Some((Byte(b'\r'), false)), Some((Byte(b'\n'), true))));
            }
            Look::WordAscii
            | Look::WordUnicode
            | Look::WordAsciiNegate
            | Look::WordUnicodeNegate => {
                let u = matches!(look, Look::WordUnicode | Look::WordUnicodeNegate);
                let negate = matches!(look, Look::WordAsciiNegate | Look::WordUnicodeNegate);
                alts.push(cond(Some((word(u), true)), Some((word(u), negate))));
                alts.push(cond(Some((word(u), false)), Some((word(u), !negate))));
            }
            Look::WordStartAscii | Look::WordStartUnicode => {
                let u = look == Look::WordStartUnicode;
                alts.push(cond(Some((word(u), false)), Some((word(u), true))));
            }
            Look::WordEndAscii | Look::WordEndUnicode => {
                let u = look == Look::WordEndUnicode;
                alts.push(cond(Some((word(u), true)), Some((word(u), false))));
            }
            Look::WordStartHalfAscii | Look::WordStartHalfUnicode => {
                let u = look == Look::WordStartHalfUnicode;
                alts.push(cond(Some((word(u), false)), None));
            }
            Look::WordEndHalfAscii | Look::WordEndHalfUnicode => {
                let u = look == Look::WordEndHalfUnicode;
                alts.push(cond(None, Some((word(u), false))));
            }
        }
        let mut targets = Vec::with_capacity(alts.len() + 1);
        // Line anchors also hold at the text's ends.
        if matches!(look, Look::StartLF | Look::StartCRLF) {
            targets.push(self.push(State::Start(next))?);
        }
        if matches!(look, Look::EndLF | Look::EndCRLF) {
            targets.push(self.push(State::End(next))?);
        }
        for spec in alts {
            targets.push(self.push_look(spec, next)?);
        }
        match targets[..] {
            [one] => Ok(one),
            _ => self.push_split(&targets),
        }
    }

    /// A `Look` state for `spec` (conditions numbered by first use).
    fn push_look(&mut self, spec: LookSpec, next: u32) -> Result<u32, RegexError> {
        let id = match self.nfa.looks.iter().position(|l| *l == spec) {
            Some(id) => id,
            None => {
                self.nfa.looks.push(spec);
                self.nfa.looks.len() - 1
            }
        };
        self.push(State::Look {
            id: id as u32,
            next,
        })
    }

    fn push_split(&mut self, targets: &[u32]) -> Result<u32, RegexError> {
        let off = self.nfa.targets.len() as u32;
        self.nfa.targets.extend_from_slice(targets);
        self.push(State::Split {
            off,
            len: targets.len() as u32,
        })
    }

    fn push_bytes(&mut self, ranges: &[(u8, u8, u32)]) -> Result<u32, RegexError> {
        let off = self.nfa.ranges.len() as u32;
        self.nfa.ranges.extend_from_slice(ranges);
        self.push(State::Bytes {
            off,
            len: ranges.len() as u32,
        })
    }

    /// Compiles `hir` in continuation style: returns the entry state of a fragment whose
    /// every way out leads to `next`. Building back to front needs no patching except
    /// for loops.
    fn compile_into(&mut self, hir: &Hir, next: u32) -> Result<u32, RegexError> {
        match hir.kind() {
            HirKind::Empty => Ok(next),
            HirKind::Literal(lit) => {
                let mut cur = next;
                for &b in lit.0.iter().rev() {
                    cur = self.push_bytes(&[(b, b, cur)])?;
                }
                Ok(cur)
            }
            HirKind::Class(class) => {
                let graph = self.class_graph(hir, class);
                self.instantiate(&graph, next)
            }
            HirKind::Look(look) => self.compile_look(*look, next),
            HirKind::Repetition(rep) => {
                let mut cur = next;
                match rep.max {
                    None => {
                        // Loop state: either one more round of `sub` or leave.
                        let lp = self.push_split(&[])?;
                        let body = self.compile_into(&rep.sub, lp)?;
                        let off = self.nfa.targets.len() as u32;
                        self.nfa.targets.extend_from_slice(&[body, next]);
                        self.nfa.states[lp as usize] = State::Split { off, len: 2 };
                        cur = lp;
                    }
                    Some(max) => {
                        for _ in rep.min..max {
                            let body = self.compile_into(&rep.sub, cur)?;
                            cur = self.push_split(&[body, next])?;
                        }
                    }
                }
                for _ in 0..rep.min {
                    cur = self.compile_into(&rep.sub, cur)?;
                }
                Ok(cur)
            }
            HirKind::Capture(cap) => match self.extension(cap) {
                Some(id) => self.compile_extension(id, &cap.sub, next),
                None => self.compile_into(&cap.sub, next),
            },
            HirKind::Concat(subs) => {
                let mut cur = next;
                for sub in subs.iter().rev() {
                    cur = self.compile_into(sub, cur)?;
                }
                Ok(cur)
            }
            HirKind::Alternation(subs) => {
                let mut entries = Vec::with_capacity(subs.len());
                for sub in subs {
                    entries.push(self.compile_into(sub, next)?);
                }
                self.push_split(&entries)
            }
        }
    }

    /// Copies a class graph into the NFA with its exits wired to `next`.
    fn instantiate(&mut self, graph: &ByteGraph, next: u32) -> Result<u32, RegexError> {
        let base = self.nfa.states.len() as u32;
        let mut buf = Vec::new();
        for node in &graph.nodes {
            buf.clear();
            buf.extend(node.iter().map(|&(lo, hi, d)| {
                let t = match d {
                    Dest::Node(i) => base + i,
                    Dest::Out => next,
                };
                (lo, hi, t)
            }));
            self.push_bytes(&buf)?;
        }
        Ok(base + graph.entry)
    }

    fn class_graph(&mut self, hir: &Hir, class: &Class) -> Rc<ByteGraph> {
        let key = hir as *const Hir as usize;
        if let Some(g) = self.classes.get(&key) {
            return Rc::clone(g);
        }
        let g = Rc::new(build_class_graph(class));
        self.classes.insert(key, Rc::clone(&g));
        g
    }
}

/// The argument fields of an extension group: `rewrite` wraps each in its own capture,
/// so the group's HIR is one capture or a concatenation of captures (argument-less
/// groups hold a dummy instead, never looked at).
fn fields(sub: &Hir) -> Vec<&Hir> {
    fn unwrap(h: &Hir) -> &Hir {
        match h.kind() {
            HirKind::Capture(c) => &c.sub,
            _ => h,
        }
    }
    match sub.kind() {
        HirKind::Empty => Vec::new(),
        HirKind::Concat(subs) => subs.iter().map(unwrap).collect(),
        _ => vec![unwrap(sub)],
    }
}

/// The bytes `hir` matches when it matches exactly one text (literals, possibly inside
/// groups), else `None`.
fn literal(hir: &Hir) -> Option<Vec<u8>> {
    match hir.kind() {
        HirKind::Empty => Some(Vec::new()),
        HirKind::Literal(lit) => Some(lit.0.to_vec()),
        HirKind::Capture(c) if placeholder_id(c.name.as_deref().unwrap_or("")).is_none() => {
            literal(&c.sub)
        }
        HirKind::Concat(subs) => {
            let mut out = Vec::new();
            for h in subs {
                out.extend(literal(h)?);
            }
            Some(out)
        }
        _ => None,
    }
}

/// Turns a class into a byte DAG: its UTF-8 sequences (which come sorted and
/// prefix-free) inserted one after another along a path of open nodes; when a sequence
/// leaves the path, the nodes it leaves are complete and are looked up, so equal
/// continuations (`[80-BF]` tails) exist once. The same minimal DAG as building the whole
/// trie and sharing suffixes afterwards, without the trie: a Unicode `\w` (~1,000
/// sequences) is the costliest class of a typical pattern.
fn build_class_graph(class: &Class) -> ByteGraph {
    let mut builder = ClassGraphBuilder::default();
    match class {
        Class::Bytes(c) => {
            for r in c.ranges() {
                builder.add(&[(r.start(), r.end())]);
            }
        }
        Class::Unicode(c) => {
            let mut seq = Vec::with_capacity(4);
            for r in c.ranges() {
                for s in Utf8Sequences::new(r.start(), r.end()) {
                    seq.clear();
                    seq.extend(s.as_slice().iter().map(|u| (u.start, u.end)));
                    builder.add(&seq);
                }
            }
        }
    }
    builder.finish()
}

type Edges = Vec<(u8, u8, Dest)>;

/// The state of [`build_class_graph`]: `open[0]` is the root and the last edge of each
/// open node leads to the next one (its `Dest` is filled in when that node closes).
#[derive(Default)]
struct ClassGraphBuilder {
    open: Vec<Edges>,
    /// Closed nodes by their edges; ids are assigned in closing order.
    ids: FastMap<Edges, u32>,
    /// Buffers of closed nodes that turned out to exist already, for new open nodes.
    spare: Vec<Edges>,
}

impl ClassGraphBuilder {
    fn add(&mut self, seq: &[(u8, u8)]) {
        if self.open.is_empty() {
            self.open.push(Vec::new());
        }
        // Follow the open path while the sequence repeats its last edges (never its own
        // last range: that one ends the sequence).
        let mut depth = 0;
        while depth + 1 < seq.len() && depth + 1 < self.open.len() {
            match self.open[depth].last() {
                Some(&(lo, hi, _)) if (lo, hi) == seq[depth] => depth += 1,
                _ => break,
            }
        }
        self.close_down_to(depth);
        for (i, &(lo, hi)) in seq.iter().enumerate().skip(depth) {
            if i + 1 == seq.len() {
                self.open[i].push((lo, hi, Dest::Out));
            } else {
                // Filled in when the node opened here closes.
                self.open[i].push((lo, hi, Dest::Node(u32::MAX)));
                self.open.push(self.spare.pop().unwrap_or_default());
            }
        }
    }

    /// Closes the open nodes deeper than `depth`, deepest first, pointing each parent's
    /// last edge at the closed node's id.
    fn close_down_to(&mut self, depth: usize) {
        while self.open.len() > depth + 1 {
            let edges = self.open.pop().expect("deeper than depth");
            let id = self.intern(edges);
            let parent = self.open.last_mut().expect("the root stays open");
            parent.last_mut().expect("the edge into the closed node").2 = Dest::Node(id);
        }
    }

    fn intern(&mut self, mut edges: Edges) -> u32 {
        if let Some(&id) = self.ids.get(&edges) {
            edges.clear();
            self.spare.push(edges);
            return id;
        }
        let id = self.ids.len() as u32;
        self.ids.insert(edges, id);
        id
    }

    fn finish(mut self) -> ByteGraph {
        self.close_down_to(0);
        let root = self.open.pop().unwrap_or_default();
        let entry = self.intern(root);
        let mut nodes = vec![Vec::new(); self.ids.len()];
        for (edges, id) in self.ids {
            nodes[id as usize] = edges;
        }
        ByteGraph { nodes, entry }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};

    fn graph(ranges: &[(char, char)]) -> ByteGraph {
        let class = ClassUnicode::new(ranges.iter().map(|&(a, b)| ClassUnicodeRange::new(a, b)));
        build_class_graph(&Class::Unicode(class))
    }

    #[test]
    fn class_graphs_share_prefixes_and_suffixes() {
        // All of Unicode: 1-4 byte sequences with shared continuation tails.
        let any = graph(&[('\0', char::MAX)]);
        assert!(any.nodes.len() <= 8, "{} nodes", any.nodes.len());
        // Every node is deterministic: its ranges do not overlap.
        for node in &any.nodes {
            let mut r: Vec<(u8, u8)> = node.iter().map(|&(l, h, _)| (l, h)).collect();
            r.sort();
            assert!(r.windows(2).all(|w| w[0].1 < w[1].0));
        }
        // é and è share their lead byte C3: one root edge, one shared continuation node.
        let g = graph(&[('è', 'é')]);
        assert_eq!(g.nodes.len(), 2);
        assert_eq!(g.nodes[g.entry as usize], vec![(0xC3, 0xC3, Dest::Node(0))]);
    }

    /// The size estimate never undercounts the built NFA (it is what the state limit checks).
    fn assert_estimate_bounds(pattern: &str, text: &str, uses: &[crate::extensions::Use]) {
        let hir = regex_syntax::parse(text).unwrap();
        let mut c = Compiler::new(1 << 20, uses);
        let est = c.estimate(&hir).unwrap();
        let nfa = c.compile(&hir).unwrap();
        assert!(
            nfa.states.len() as u64 <= est + 1,
            "{pattern}: {} > {est}",
            nfa.states.len()
        );
    }

    #[test]
    fn estimate_bounds_the_built_size() {
        for pattern in [r"\w{3}", "(ab|cd){2,5}", "x*y+z?", r"(\p{Greek}|[0-9]{2})*"] {
            assert_estimate_bounds(pattern, pattern, &[]);
        }
    }

    /// An unbounded list holds one looping copy of its item, so lists nested 24 deep
    /// stay linear in the depth (twice per level would be 2^24 copies).
    #[test]
    fn nested_unbounded_lists_grow_linearly() {
        let mut pattern = "x".to_string();
        for _ in 0..24 {
            pattern = format!("\\[(?P<DELIMITED_LIST>,|{pattern}|0)\\]");
        }
        let r = crate::extensions::rewrite(&pattern, false)
            .unwrap()
            .unwrap();
        let hir = regex_syntax::ParserBuilder::new()
            .nest_limit(1000)
            .build()
            .parse(&r.text)
            .unwrap();
        let mut c = Compiler::new(1 << 20, &r.uses);
        let est = c.estimate(&hir).unwrap();
        let nfa = c.compile(&hir).unwrap();
        assert!(nfa.states.len() < 500, "{} states", nfa.states.len());
        assert!(
            nfa.states.len() as u64 <= est + 1 && est < 1000,
            "estimate {est}"
        );
    }

    #[test]
    fn estimate_bounds_the_built_size_of_extensions() {
        for pattern in [
            "(?P<QUOTED_TEXT>)(?P<UNQUOTED_TEXT>)",
            "(?P<TEXT_TOKEN>)+(?P<IMAGE>){2}",
            "(?P<TEXT_UNTIL>abc|é|xyz)",
            "(?P<SUBSTRING_OF>abracadabra☃)",
            "(?P<DELIMITED_LIST>, |[a-z]+)",
            "(?P<DELIMITED_LIST>, |[a-z]+|0|5)",
            "(?P<DELIMITED_LIST>;|(?P<DELIMITED_LIST>,|x|2|3)|3)",
            "(?P<DELIMITED_LIST>, |[a-z]+|0)",
            "(?P<DELIMITED_LIST>, |[a-z]+|3)",
            "(?P<DELIMITED_SUBSEQUENCE_OF>, |a|bc|(?P<QUOTED_TEXT>)|d)",
        ] {
            let r = crate::extensions::rewrite(pattern, false).unwrap().unwrap();
            assert_estimate_bounds(pattern, &r.text, &r.uses);
        }
    }
}
