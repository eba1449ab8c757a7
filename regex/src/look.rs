//! Subset construction for NFAs with `Look` states: word boundaries, multi-line and CRLF
//! anchors, look-ahead and look-behind, exactly, under full-match semantics.
//!
//! A condition on the text *before* a position is a regular language `Σ*R` of the text
//! read so far, so a DFA for it (a *tracker*) runs alongside the subset construction,
//! one state per tracker in each DFA state. A condition on the text *after* a position
//! becomes an *obligation* of the NFA thread that crossed it: a run of a DFA from that
//! position. A positive one (`(?=R)`, the next character is a word character) is
//! discharged when the run reaches a *settled* state (every continuation matches) and
//! kills its thread when the run dies or the text ends outside acceptance; a negative one
//! (`(?!R)`) is the reverse. A DFA state is the trackers' states plus the set of threads
//! `(NFA state, obligations)`. NFAs without `Look` states never come here.
//!
//! A look-around whose body has assertions of its own (`(?=a$)`, `(?<!^x)`, `(?=.*\bfoo)`)
//! is a condition on the text on both sides of its position. It becomes a *marked*
//! language: `Σ* # R Σ*` for a look-ahead, `Σ* R # Σ*` for a look-behind, where `#` is
//! the byte [`MARK`] (never in UTF-8 text) standing for the position, and the body's
//! assertions see the text around it with the mark left out. Its DFA (built here too, in
//! *mark mode*, where trackers and obligations step over the mark, `^` still holds after a
//! leading mark and `$` just before a final one) runs as a tracker over the text; at the
//! position, the obligation starts from the tracker's state after reading `#`.
//!
//! Wildcard terminals (one edge reading a whole token) are followed too: a tracker that
//! crossed one is unknown until a byte brings all its states together, and a condition
//! decided by an unknown tracker, or an obligation still pending when its thread crosses
//! a terminal, is an error (the outcome depends on the token's bytes).

use std::collections::HashSet;

use fstc_core::bytes::{
    classes_from_boundaries, nfa_boundaries, ByteDfa, Limits, State, Subsets, TableDfa,
    TerminalKind, Universe, DEAD,
};

use super::nfa::Nfa;
use super::{RegexError, RegexErrorKind};

/// The byte that marks a look-around's position in a marked language; invalid in UTF-8,
/// so no text or pattern byte is confused with it.
pub(crate) const MARK: u8 = 0xFF;

/// A tracker's state after a wildcard terminal, before bytes make it known again.
const UNKNOWN: u32 = DEAD - 1;

/// A pending obligation: (ahead DFA, its state, positive).
type Obligation = (u32, u32, bool);

/// One side of a condition: the index of its DFA and the outcome required.
pub(crate) type Side = Option<(usize, bool)>;

/// A DFA run as an obligation, with its *settled* states: those from which every
/// continuation at a character boundary matches (for a plain body `R`, its accepting
/// states: the rest of the text starts with `R`).
pub(crate) struct Ahead {
    pub(crate) dfa: ByteDfa,
    pub(crate) settled: Vec<bool>,
}

impl Ahead {
    /// A body DFA `R` whose acceptance settles the condition.
    pub(crate) fn plain(dfa: ByteDfa) -> Ahead {
        let settled = (0..dfa.num_states() as u32)
            .map(|s| dfa.is_accepting(s))
            .collect();
        Ahead { dfa, settled }
    }

    /// A marked DFA, settled where it accepts every continuation.
    pub(crate) fn marked(dfa: ByteDfa) -> Ahead {
        let settled = universal_states(&dfa);
        Ahead { dfa, settled }
    }
}

/// The conditions of one `Look` state (`Nfa::looks[i]` is `conds[i]`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Cond {
    /// (tracker, must accept).
    pub(crate) behind: Side,
    /// (ahead DFA started in its state 0, positive).
    pub(crate) ahead: Side,
    /// (tracker, ahead DFA, positive): a marked language, started from the tracker's
    /// state after [`MARK`].
    pub(crate) marked: Option<(usize, usize, bool)>,
    /// The assertion, for errors next to wildcard terminals.
    pub(crate) what: String,
}

/// The DFAs of an NFA's look conditions.
#[derive(Default)]
pub(crate) struct Contexts {
    /// Trackers: DFAs of `Σ*R` (or marked languages), run over the whole text.
    pub(crate) behind: Vec<ByteDfa>,
    /// DFAs run from the position of the assertion.
    pub(crate) ahead: Vec<Ahead>,
    pub(crate) conds: Vec<Cond>,
}

/// An NFA thread: a state, whether it passed `$` in mark mode (it may then read only
/// marks), and the pending look-ahead runs `(ahead DFA, state, positive)`, sorted.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Thread {
    state: u32,
    ended: bool,
    obligations: Vec<Obligation>,
}

struct Builder<'a> {
    nfa: &'a Nfa,
    cx: &'a Contexts,
    /// Mark mode: the NFA is a marked language (see the module docs).
    mark: bool,
}

impl Builder<'_> {
    /// Closes `seeds` under epsilon moves, pushing byte- and terminal-reading threads to
    /// `out` (unless `at_end`); returns whether, with the text ending here (`at_end`), a
    /// thread reaches `Match` with its obligations met.
    fn close(
        &self,
        seeds: Vec<Thread>,
        trackers: &[u32],
        at_start: bool,
        at_end: bool,
        out: &mut Vec<Thread>,
    ) -> Result<bool, RegexError> {
        let mut seen: HashSet<Thread> = HashSet::new();
        let mut stack = seeds;
        let mut matched = false;
        while let Some(t) = stack.pop() {
            if seen.contains(&t) {
                continue;
            }
            seen.insert(t.clone());
            let next = |s: u32| Thread {
                state: s,
                ended: t.ended,
                obligations: t.obligations.clone(),
            };
            match self.nfa.states[t.state as usize] {
                State::Bytes { len, .. } => {
                    if !at_end && len > 0 {
                        out.push(t);
                    }
                }
                State::Terminal { .. } => {
                    if !at_end {
                        out.push(t);
                    }
                }
                State::Split { off, len } => {
                    for &s in self.nfa.split_targets(off, len) {
                        stack.push(next(s));
                    }
                }
                State::Start(s) if at_start => stack.push(next(s)),
                State::End(s) if at_end => stack.push(next(s)),
                State::End(s) if self.mark => stack.push(Thread {
                    ended: true,
                    ..next(s)
                }),
                State::Start(_) | State::End(_) => {}
                State::Look { id, next: s } => {
                    if let Some(obligations) = self.enter(id as usize, trackers, &t.obligations)? {
                        stack.push(Thread {
                            state: s,
                            ended: t.ended,
                            obligations,
                        });
                    }
                }
                State::Match => {
                    matched |= at_end
                        && t.obligations.iter().all(|&(a, q, positive)| {
                            self.cx.ahead[a as usize].dfa.is_accepting(q) == positive
                        })
                }
            }
        }
        if !at_end {
            out.sort_unstable();
            out.dedup();
        }
        Ok(matched)
    }

    /// The obligations after crossing condition `id`, or `None` when it fails here.
    fn enter(
        &self,
        id: usize,
        trackers: &[u32],
        obligations: &[Obligation],
    ) -> Result<Option<Vec<Obligation>>, RegexError> {
        let cond = &self.cx.conds[id];
        let tracker = |b: usize| match trackers[b] {
            UNKNOWN => Err(self.after_terminal(cond)),
            q => Ok(q),
        };
        if let Some((b, want)) = cond.behind {
            if self.cx.behind[b].is_accepting(tracker(b)?) != want {
                return Ok(None);
            }
        }
        let mut out = obligations.to_vec();
        if let Some((a, positive)) = cond.ahead {
            if !self.start(a, Some(0), positive, &mut out) {
                return Ok(None);
            }
        }
        if let Some((b, a, positive)) = cond.marked {
            let from = match tracker(b)? {
                DEAD => None,
                q => self.cx.behind[b].next(q, MARK),
            };
            if !self.start(a, from, positive, &mut out) {
                return Ok(None);
            }
        }
        Ok(Some(out))
    }

    /// Adds the run of ahead DFA `a` from `state` to `out`, unless it is settled at
    /// once; `false` when that settles the condition against the thread.
    fn start(
        &self,
        a: usize,
        state: Option<u32>,
        positive: bool,
        out: &mut Vec<Obligation>,
    ) -> bool {
        let Some(q) = state else {
            return !positive;
        };
        if self.cx.ahead[a].settled[q as usize] {
            return positive;
        }
        let o = (a as u32, q, positive);
        if let Err(i) = out.binary_search(&o) {
            out.insert(i, o);
        }
        true
    }

    /// Advances a thread's obligations over `byte`; `None` when one fails.
    fn advance(&self, obligations: &[Obligation], byte: u8) -> Option<Vec<Obligation>> {
        if self.mark && byte == MARK {
            return Some(obligations.to_vec());
        }
        let mut out = Vec::with_capacity(obligations.len());
        for &(a, q, positive) in obligations {
            let ahead = &self.cx.ahead[a as usize];
            match ahead.dfa.next(q, byte) {
                None if positive => return None,
                None => {}
                Some(q2) if ahead.settled[q2 as usize] && !positive => return None,
                Some(q2) if ahead.settled[q2 as usize] => {}
                Some(q2) => out.push((a, q2, positive)),
            }
        }
        out.sort_unstable();
        out.dedup();
        Some(out)
    }

    /// The error for a condition whose tracker crossed a wildcard terminal.
    fn after_terminal(&self, cond: &Cond) -> RegexError {
        terminal_error(
            self.nfa,
            &format!(
                "{} comes after a wildcard terminal with no byte between them that settles \
                 it, so whether it holds depends on the bytes of the token the terminal reads",
                cond.what
            ),
        )
    }
}

/// An assertion whose outcome depends on a wildcard terminal's token.
fn terminal_error(nfa: &Nfa, why: &str) -> RegexError {
    let names: Vec<String> = nfa
        .terminals
        .iter()
        .map(|t| format!("`<{}>`", t.name()))
        .collect();
    RegexError::new(
        RegexErrorKind::Unsupported {
            construct: "assertion with wildcard terminals",
        },
        None,
        format!(
            "an assertion next to a wildcard terminal ({}): {why}; a terminal is one edge \
             of the automaton whose bytes are only known per token at composition; put a \
             literal character between the assertion and the terminal, or drop one",
            names.join(", ")
        ),
    )
}

/// The states of `d` from which every valid UTF-8 continuation matches, by a greatest
/// fixpoint on the product with the UTF-8 universe (a state is *bad* when the universe
/// accepts where `d` does not, reads a byte `d` cannot, or reaches a bad pair).
pub(crate) fn universal_states(d: &ByteDfa) -> Vec<bool> {
    let u = ByteDfa::universe(Universe::Utf8);
    let mut reps = Vec::new();
    let mut pairs = HashSet::new();
    for b in 0..=255u8 {
        if pairs.insert((d.byte_classes()[b as usize], u.byte_classes()[b as usize])) {
            reps.push(b);
        }
    }
    let (n, m) = (d.num_states(), u.num_states());
    let at = |q: u32, v: u32| q as usize * m + v as usize;
    let mut bad = vec![false; n * m];
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n * m];
    let mut work = Vec::new();
    for q in 0..n as u32 {
        for v in 0..m as u32 {
            let mut direct = u.is_accepting(v) && !d.is_accepting(q);
            for &b in &reps {
                if let Some(v2) = u.next(v, b) {
                    match d.next(q, b) {
                        None => direct = true,
                        Some(q2) => preds[at(q2, v2)].push(at(q, v) as u32),
                    }
                }
            }
            if direct {
                bad[at(q, v)] = true;
                work.push(at(q, v));
            }
        }
    }
    while let Some(i) = work.pop() {
        for &p in &preds[i] {
            if !bad[p as usize] {
                bad[p as usize] = true;
                work.push(p as usize);
            }
        }
    }
    (0..n as u32).map(|q| !bad[at(q, 0)]).collect()
}

/// Byte classes refining the NFA's ranges and every context DFA's classes (and, in mark
/// mode, putting [`MARK`] in a class of its own).
fn joint_classes(nfa: &Nfa, cx: &Contexts, mark: bool) -> ([u8; 256], usize) {
    let mut boundary = nfa_boundaries(nfa);
    for d in cx.behind.iter().chain(cx.ahead.iter().map(|a| &a.dfa)) {
        let c = d.byte_classes();
        for b in 1..256 {
            boundary[b] |= c[b] != c[b - 1];
        }
    }
    boundary[MARK as usize] |= mark;
    classes_from_boundaries(&boundary)
}

/// Per tracker and byte class: the one state every tracker state goes to by that byte
/// (dead ones left out), or [`UNKNOWN`] when they differ; what an unknown tracker becomes.
fn synchronizing(cx: &Contexts, rep: &[u8]) -> Vec<Vec<u32>> {
    cx.behind
        .iter()
        .map(|d| {
            rep.iter()
                .map(|&b| {
                    let mut to = (0..d.num_states() as u32).filter_map(|q| d.next(q, b));
                    match to.next() {
                        None => DEAD,
                        Some(first) if to.all(|t| t == first) => first,
                        Some(_) => UNKNOWN,
                    }
                })
                .collect()
        })
        .collect()
}

/// The threads of `kernel` that read `byte` (all of them in mark mode when `skip`: the
/// mark is invisible to the body's own checks), with their obligations advanced.
fn byte_seeds(builder: &Builder<'_>, kernel: &[Thread], byte: u8, skip: bool) -> Vec<Thread> {
    let mut seeds = Vec::new();
    for t in kernel.iter().filter(|t| !t.ended || skip) {
        for &(lo, hi, to) in builder.nfa.byte_ranges(t.state) {
            if (lo..=hi).contains(&byte) {
                if let Some(obligations) = builder.advance(&t.obligations, byte) {
                    seeds.push(Thread {
                        state: to,
                        ended: t.ended,
                        obligations,
                    });
                }
            }
        }
    }
    seeds
}

/// The threads of `kernel` that read terminal `kind`; an obligation still open there
/// depends on the token's bytes, which the byte automaton does not see: refused.
fn terminal_seeds(
    nfa: &Nfa,
    kernel: &[Thread],
    kind: TerminalKind,
) -> Result<Vec<Thread>, RegexError> {
    let mut seeds = Vec::new();
    for t in kernel {
        if let State::Terminal { symbol, next } = nfa.states[t.state as usize] {
            if nfa.terminals[symbol as usize] != kind || t.ended {
                continue;
            }
            if !t.obligations.is_empty() {
                return Err(terminal_error(
                    nfa,
                    &format!(
                        "a condition on the text after a position (a word boundary's \
                         next character, a multi-line `$`, a look-ahead) is still \
                         undecided when `<{}>` is read, so it depends on the token's \
                         bytes",
                        kind.name()
                    ),
                ));
            }
            seeds.push(Thread {
                state: next,
                ended: false,
                obligations: Vec::new(),
            });
        }
    }
    Ok(seeds)
}

/// A DFA state under construction: trackers, whether only marks were read so far, and
/// the threads.
type Pending = (Vec<u32>, bool, Vec<Thread>);

/// Subset construction with trackers and obligations, within `limits` (those of every
/// subset construction: `fstc_core::bytes::Subsets`). `mark` selects mark mode (for a
/// marked language's own DFA).
pub(crate) fn determinize(
    nfa: &Nfa,
    cx: &Contexts,
    mark: bool,
    limits: Limits,
) -> Result<TableDfa, RegexError> {
    let (classes, k) = joint_classes(nfa, cx, mark);
    let mut rep = vec![0u8; k];
    for b in (0..=255u8).rev() {
        rep[classes[b as usize] as usize] = b;
    }
    let terminals = &nfa.terminals;
    let sync = if terminals.is_empty() {
        Vec::new()
    } else {
        synchronizing(cx, &rep)
    };
    let builder = Builder { nfa, cx, mark };
    let mut states: Subsets<Pending> = Subsets::new(limits);
    let width = k + terminals.len();
    // The successor of a state given its trackers and seeds, or DEAD.
    let step = |trackers: Vec<u32>,
                at_start: bool,
                seeds: Vec<Thread>,
                states: &mut Subsets<Pending>|
     -> Result<u32, RegexError> {
        if seeds.is_empty() {
            return Ok(DEAD);
        }
        let acc = builder.close(seeds.clone(), &trackers, at_start, true, &mut Vec::new())?;
        let mut next = Vec::new();
        builder.close(seeds, &trackers, at_start, false, &mut next)?;
        if next.is_empty() && !acc {
            return Ok(DEAD);
        }
        intern(states, (trackers, at_start, next), acc)
    };

    let start = Thread {
        state: nfa.start,
        ended: false,
        obligations: Vec::new(),
    };
    step(vec![0u32; cx.behind.len()], true, vec![start], &mut states)?;
    while let Some((trackers, at_start, kernel)) = states.next_row(width)? {
        for (c, &byte) in rep.iter().enumerate() {
            let skip = mark && byte == MARK;
            // A dead tracker stays dead: its language can no longer match here.
            let moved: Vec<u32> = trackers
                .iter()
                .enumerate()
                .map(|(j, &q)| match q {
                    _ if skip => q,
                    DEAD => DEAD,
                    UNKNOWN => sync[j][c],
                    q => cx.behind[j].next(q, byte).unwrap_or(DEAD),
                })
                .collect();
            let seeds = byte_seeds(&builder, &kernel, byte, skip);
            let id = step(moved, at_start && skip, seeds, &mut states)?;
            states.set(width, c, id);
        }
        for (i, &kind) in terminals.iter().enumerate() {
            let seeds = terminal_seeds(nfa, &kernel, kind)?;
            let unknown = vec![UNKNOWN; trackers.len()];
            let id = step(unknown, false, seeds, &mut states)?;
            states.set(width, k + i, id);
        }
    }
    Ok(states.finish(classes, k, terminals.len()))
}

/// The id of `state` (accepting when `acc`), keyed by its trackers, flags and threads.
fn intern(states: &mut Subsets<Pending>, state: Pending, acc: bool) -> Result<u32, RegexError> {
    let (trackers, at_start, kernel) = &state;
    let mut key = trackers.clone();
    key.push(u32::from(acc) | u32::from(*at_start) << 1);
    for t in kernel {
        key.extend([t.state, u32::from(t.ended), t.obligations.len() as u32]);
        for &(a, q, p) in &t.obligations {
            key.extend([a, q, u32::from(p)]);
        }
    }
    Ok(states.intern(&key, key.len(), acc, || state)?)
}
