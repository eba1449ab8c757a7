//! One rule's body as a minimized DFA over bytes and calls: a Thompson graph (classes as
//! UTF-8 byte sequences, non-recursive rules inlined) as fstc-core's byte NFA with calls
//! as extra alphabet symbols, its determinizer, then its minimizer (dead states dropped,
//! equivalent states merged).
//!
//! Labels are `u32`: `0..=255` read a byte, `CALL + k` calls rule `k` of the RTN.

use std::collections::HashMap;

use fstc_core::bytes::ByteDfa;
use regex_syntax::utf8::Utf8Sequences;

use fstc_core::bytes::{determinize_within, ByteDfaErrorKind, Limits, Nfa, State, DEAD};
use fstc_core::minimize::minimal_dfa;

use crate::budget::Budget;
use crate::error::{PdaError, PdaErrorKind};
use crate::gbnf::{fmt_rule_at, scalar_ranges, Expr, RuleDef};

/// First call label: `CALL + k` calls rule `k`.
pub(crate) const CALL: u32 = 256;

/// Bound on the NFA and DFA of one rule, so that nested repetitions cannot take unbounded
/// memory.
const MAX_STATES: usize = 200_000;

/// A DFA over bytes and calls; state 0 is the start.
#[derive(Clone, Debug)]
pub(crate) struct RuleDfa {
    /// Per state, transitions sorted by label.
    pub trans: Vec<Vec<(u32, u32)>>,
    pub finals: Vec<bool>,
}

impl RuleDfa {
    pub fn len(&self) -> usize {
        self.finals.len()
    }

    /// The bytes it holds, for the memory budget.
    pub fn bytes(&self) -> usize {
        let edges: usize = self.trans.iter().map(Vec::len).sum();
        edges * 8 + self.len() * (std::mem::size_of::<Vec<(u32, u32)>>() + 1)
    }
}

#[derive(Clone, Copy)]
enum NLabel {
    Eps,
    Bytes(u8, u8),
    Call(u32),
}

/// What the builder needs to know about the other rules.
pub(crate) struct Ctx<'a> {
    /// Rule bodies with direct left recursion rewritten.
    pub bodies: &'a [Expr],
    /// Per definition: `Some(k)` when it is kept as RTN rule `k` (called), `None` when inlined.
    pub kept: &'a [Option<u32>],
    pub index: &'a HashMap<&'a str, usize>,
    pub budget: &'a Budget,
}

/// The Thompson graph of a rule body under construction: per state, labelled edges.
struct Thompson<'a> {
    edges: Vec<Vec<(NLabel, u32)>>,
    ctx: &'a Ctx<'a>,
    rule: &'a RuleDef,
}

impl Thompson<'_> {
    fn state(&mut self) -> Result<u32, PdaError> {
        if self.edges.len() >= MAX_STATES {
            return Err(PdaError::new(
                PdaErrorKind::TooLarge,
                format!(
                    "{} expands to more than {MAX_STATES} automaton states (nested repetitions or inlined rules); write it with fewer bounded repetitions",
                    fmt_rule_at(&self.rule.name, self.rule.at)
                ),
            ));
        }
        // A body may inline and repeat rules up to the state bound: seconds of work.
        let budget = self.ctx.budget;
        budget.tick(|| format!("building the DFA of {}", self.name()))?;
        self.edges.push(Vec::new());
        Ok(self.edges.len() as u32 - 1)
    }

    fn name(&self) -> String {
        fmt_rule_at(&self.rule.name, self.rule.at)
    }

    fn edge(&mut self, from: u32, label: NLabel, to: u32) {
        self.edges[from as usize].push((label, to));
    }

    /// Adds `e` starting at `from`; returns where it ends.
    fn expr(&mut self, e: &Expr, from: u32) -> Result<u32, PdaError> {
        match e {
            Expr::Bytes(bytes) => bytes.iter().try_fold(from, |at, &b| {
                let next = self.state()?;
                self.edge(at, NLabel::Bytes(b, b), next);
                Ok(next)
            }),
            Expr::Class { ranges, negated } => self.class(ranges, *negated, from),
            Expr::Dfa(dfa) => self.byte_dfa(dfa, from),
            Expr::Ref(name, _) => {
                // Unknown names were reported before the DFAs are built.
                let d = self.ctx.index[name.as_str()];
                match self.ctx.kept[d] {
                    Some(k) => {
                        let to = self.state()?;
                        self.edge(from, NLabel::Call(k), to);
                        Ok(to)
                    }
                    None => self.expr(&self.ctx.bodies[d], from),
                }
            }
            Expr::Seq(items) => items.iter().try_fold(from, |at, x| self.expr(x, at)),
            Expr::Alt(alts) => {
                let to = self.state()?;
                for a in alts {
                    let start = self.state()?;
                    self.edge(from, NLabel::Eps, start);
                    let end = self.expr(a, start)?;
                    self.edge(end, NLabel::Eps, to);
                }
                Ok(to)
            }
            Expr::Repeat { expr, min, max, .. } => {
                let mut at = from;
                for _ in 0..*min {
                    at = self.expr(expr, at)?;
                }
                match max {
                    None => {
                        // A fresh loop state: looping back to `at` would let whatever
                        // else loops there interleave (`" "* "b"*` read as `(" " | "b")*`).
                        let repeat = self.state()?;
                        self.edge(at, NLabel::Eps, repeat);
                        let body = self.state()?;
                        self.edge(repeat, NLabel::Eps, body);
                        let end = self.expr(expr, body)?;
                        self.edge(end, NLabel::Eps, repeat);
                        Ok(repeat)
                    }
                    Some(max) => {
                        let to = self.state()?;
                        for _ in *min..*max {
                            self.edge(at, NLabel::Eps, to);
                            at = self.expr(expr, at)?;
                        }
                        self.edge(at, NLabel::Eps, to);
                        Ok(to)
                    }
                }
            }
        }
    }

    /// A copy of `dfa` (a regex terminal): its byte classes become byte-range edges.
    fn byte_dfa(&mut self, dfa: &ByteDfa, from: u32) -> Result<u32, PdaError> {
        let to = self.state()?;
        let states = (0..dfa.num_states())
            .map(|_| self.state())
            .collect::<Result<Vec<u32>, _>>()?;
        self.edge(from, NLabel::Eps, states[0]);
        for (s, &at) in states.iter().enumerate() {
            let mut b = 0usize;
            while b < 256 {
                let target = dfa.next(s as u32, b as u8);
                let mut end = b;
                while end < 255 && dfa.next(s as u32, end as u8 + 1) == target {
                    end += 1;
                }
                if let Some(t) = target {
                    self.edge(at, NLabel::Bytes(b as u8, end as u8), states[t as usize]);
                }
                b = end + 1;
            }
            if dfa.is_accepting(s as u32) {
                self.edge(at, NLabel::Eps, to);
            }
        }
        Ok(to)
    }

    /// One character of the class, as UTF-8 byte-range sequences.
    fn class(&mut self, ranges: &[(u32, u32)], negated: bool, from: u32) -> Result<u32, PdaError> {
        let to = self.state()?;
        for (lo, hi) in scalar_ranges(ranges, negated) {
            for seq in Utf8Sequences::new(lo, hi) {
                let mut at = from;
                let parts = seq.as_slice();
                for (i, r) in parts.iter().enumerate() {
                    let next = if i + 1 == parts.len() {
                        to
                    } else {
                        self.state()?
                    };
                    self.edge(at, NLabel::Bytes(r.start, r.end), next);
                    at = next;
                }
            }
        }
        Ok(to)
    }
}

/// Builds the minimized DFA of `rule`'s body (already rewritten for left recursion):
/// fstc-core's byte NFA, determinizer and minimizer, with rule calls as the NFA's extra
/// alphabet symbols.
pub(crate) fn build(ctx: &Ctx<'_>, rule: &RuleDef, body: &Expr) -> Result<RuleDfa, PdaError> {
    let mut thompson = Thompson {
        edges: Vec::new(),
        ctx,
        rule,
    };
    let start = thompson.state()?;
    let end = thompson.expr(body, start)?;
    let nfa = byte_nfa(&thompson.edges, start, end);
    let budget = ctx.budget;
    // A set entry is a u32 kept twice.
    let set_budget = budget.memory_left() / 8;
    let limits = Limits::new(MAX_STATES, set_budget).until(budget.deadline());
    let raw = determinize_within(&nfa, limits).map_err(|e| {
        let place = || format!("building the DFA of {}", thompson.name());
        match e.kind() {
            ByteDfaErrorKind::Deadline { .. } => budget.out_of_time(&place()),
            // The memory budget, not fstc-core's ceiling, stopped it.
            _ if e.set_budget() == Some(set_budget) => {
                let held = format!(
                    "{} bytes of subset-construction state sets on {} bytes built",
                    set_budget * 8,
                    budget.used()
                );
                budget.out_of_memory(&held, &place())
            }
            _ => PdaError::new(
                PdaErrorKind::TooLarge,
                format!(
                    "{} needs more than {MAX_STATES} DFA states",
                    thompson.name()
                ),
            ),
        }
    })?;
    // Labels per byte, then `CALL + k` per call column.
    let w = raw.width();
    let edges = (raw.table.chunks_exact(w))
        .map(|row| {
            let bytes = (0..=255u8).map(|b| (u32::from(b), row[raw.classes[b as usize] as usize]));
            let calls = (nfa.terminals.iter()).zip(&row[raw.num_classes..]);
            (bytes.chain(calls.map(|(&k, &t)| (CALL + k, t))))
                .filter(|&(_, t)| t != DEAD)
                .collect()
        })
        .collect();
    let (finals, trans) = minimal_dfa(0, raw.accepting, edges);
    Ok(RuleDfa { trans, finals })
}

/// The Thompson graph as fstc-core's byte NFA: state `s` becomes a `Split` into its
/// epsilon targets, a `Bytes` state with its byte ranges and a `Terminal` per call (the
/// called rules, ascending, are the extra symbols); `end` also splits into `Match`.
fn byte_nfa(edges: &[Vec<(NLabel, u32)>], start: u32, end: u32) -> Nfa<(), u32> {
    let mut calls: Vec<u32> = (edges.iter().flatten())
        .filter_map(|&(l, _)| match l {
            NLabel::Call(k) => Some(k),
            _ => None,
        })
        .collect();
    calls.sort_unstable();
    calls.dedup();
    let mut nfa = Nfa {
        states: vec![State::Match; edges.len() + 1],
        ranges: Vec::new(),
        targets: Vec::new(),
        start,
        terminals: Vec::new(),
        looks: Vec::new(),
    };
    let matched = edges.len() as u32;
    for (s, list) in edges.iter().enumerate() {
        let mut split: Vec<u32> = Vec::new();
        let mut ranges = Vec::new();
        for &(label, to) in list {
            match label {
                NLabel::Eps => split.push(to),
                NLabel::Bytes(lo, hi) => ranges.push((lo, hi, to)),
                NLabel::Call(k) => {
                    let symbol = calls.binary_search(&k).expect("collected above") as u32;
                    split.push(nfa.states.len() as u32);
                    nfa.states.push(State::Terminal { symbol, next: to });
                }
            }
        }
        if !ranges.is_empty() {
            let off = nfa.ranges.len() as u32;
            nfa.ranges.extend_from_slice(&ranges);
            split.push(nfa.states.len() as u32);
            nfa.states.push(State::Bytes {
                off,
                len: ranges.len() as u32,
            });
        }
        if s as u32 == end {
            split.push(matched);
        }
        let off = nfa.targets.len() as u32;
        nfa.targets.extend_from_slice(&split);
        nfa.states[s] = State::Split {
            off,
            len: split.len() as u32,
        };
    }
    nfa.terminals = calls;
    nfa
}
