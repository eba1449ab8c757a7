//! One rule's body as a minimized DFA over bytes and calls: Thompson NFA (classes as UTF-8
//! byte sequences, non-recursive rules inlined), subset construction, then dead states
//! dropped and equivalent states merged (Moore refinement).
//!
//! Labels are `u32`: `0..=255` read a byte, `CALL + k` calls rule `k` of the RTN.

use std::collections::{BTreeMap, HashMap};

use fstc_core::bytes::ByteDfa;
use regex_syntax::utf8::Utf8Sequences;

use crate::error::{PdaError, PdaErrorKind};
use crate::gbnf::{fmt_rule_at, Expr, RuleDef};

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
}

struct Nfa<'a> {
    edges: Vec<Vec<(NLabel, u32)>>,
    ctx: &'a Ctx<'a>,
    rule: &'a RuleDef,
}

impl Nfa<'_> {
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
        self.edges.push(Vec::new());
        Ok(self.edges.len() as u32 - 1)
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

/// The class's ranges as sorted, merged scalar-value ranges (complemented when negated).
fn scalar_ranges(ranges: &[(u32, u32)], negated: bool) -> Vec<(char, char)> {
    let mut sorted: Vec<(u32, u32)> = ranges.to_vec();
    sorted.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::new();
    for (lo, hi) in sorted {
        match merged.last_mut() {
            Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
            _ => merged.push((lo, hi)),
        }
    }
    if negated {
        let mut gaps = Vec::new();
        let mut next = 0u32;
        for &(lo, hi) in &merged {
            if lo > next {
                gaps.push((next, lo - 1));
            }
            next = hi + 1;
        }
        if next <= 0x10FFFF {
            gaps.push((next, 0x10FFFF));
        }
        merged = gaps;
    }
    // Surrogates are not characters: clip range ends that fall on them.
    merged
        .into_iter()
        .filter_map(|(lo, hi)| {
            let lo = if (0xD800..=0xDFFF).contains(&lo) {
                0xE000
            } else {
                lo
            };
            let hi = if (0xD800..=0xDFFF).contains(&hi) {
                0xD7FF
            } else {
                hi
            };
            Some((char::from_u32(lo)?, char::from_u32(hi)?)).filter(|(l, h)| l <= h)
        })
        .collect()
}

fn closure(nfa: &[Vec<(NLabel, u32)>], set: &mut Vec<u32>) {
    let mut i = 0;
    while i < set.len() {
        for &(label, to) in &nfa[set[i] as usize] {
            if matches!(label, NLabel::Eps) && !set.contains(&to) {
                set.push(to);
            }
        }
        i += 1;
    }
    set.sort_unstable();
}

/// Builds the minimized DFA of `rule`'s body (already rewritten for left recursion).
pub(crate) fn build(ctx: &Ctx<'_>, rule: &RuleDef, body: &Expr) -> Result<RuleDfa, PdaError> {
    let mut nfa = Nfa {
        edges: Vec::new(),
        ctx,
        rule,
    };
    let start = nfa.state()?;
    let end = nfa.expr(body, start)?;
    let edges = nfa.edges;
    let mut first = vec![start];
    closure(&edges, &mut first);
    let mut ids: HashMap<Vec<u32>, u32> = HashMap::from([(first.clone(), 0)]);
    let mut sets = vec![first];
    let mut dfa = RuleDfa {
        trans: Vec::new(),
        finals: Vec::new(),
    };
    while dfa.len() < sets.len() {
        let set = sets[dfa.len()].clone();
        let mut moves: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for &s in &set {
            for &(label, to) in &edges[s as usize] {
                match label {
                    NLabel::Eps => {}
                    NLabel::Bytes(lo, hi) => {
                        (lo..=hi).for_each(|b| moves.entry(u32::from(b)).or_default().push(to))
                    }
                    NLabel::Call(k) => moves.entry(CALL + k).or_default().push(to),
                }
            }
        }
        let mut row = Vec::with_capacity(moves.len());
        for (label, mut target) in moves {
            closure(&edges, &mut target);
            target.dedup();
            let next = sets.len() as u32;
            let id = *ids.entry(target.clone()).or_insert(next);
            if id == next {
                if sets.len() >= MAX_STATES {
                    return Err(PdaError::new(
                        PdaErrorKind::TooLarge,
                        format!(
                            "{} needs more than {MAX_STATES} DFA states",
                            fmt_rule_at(&rule.name, rule.at)
                        ),
                    ));
                }
                sets.push(target);
            }
            row.push((label, id));
        }
        dfa.finals.push(set.binary_search(&end).is_ok());
        dfa.trans.push(row);
    }
    Ok(minimize(trim(dfa)))
}

/// Drops transitions into states from which no final state can be reached.
fn trim(mut dfa: RuleDfa) -> RuleDfa {
    let n = dfa.len();
    let mut live = dfa.finals.clone();
    let mut changed = true;
    while changed {
        changed = false;
        for s in 0..n {
            if !live[s] && dfa.trans[s].iter().any(|&(_, t)| live[t as usize]) {
                live[s] = true;
                changed = true;
            }
        }
    }
    for row in &mut dfa.trans {
        row.retain(|&(_, t)| live[t as usize]);
    }
    dfa
}

/// Merges equivalent states (Moore refinement) and renumbers them breadth-first from 0,
/// dropping unreachable ones.
fn minimize(dfa: RuleDfa) -> RuleDfa {
    let n = dfa.len();
    let mut class: Vec<u32> = dfa.finals.iter().map(|&f| u32::from(f)).collect();
    let mut count = 0;
    loop {
        let mut ids: HashMap<(u32, Vec<(u32, u32)>), u32> = HashMap::new();
        let next: Vec<u32> = (0..n)
            .map(|s| {
                let key = (
                    class[s],
                    dfa.trans[s]
                        .iter()
                        .map(|&(l, t)| (l, class[t as usize]))
                        .collect(),
                );
                let fresh = ids.len() as u32;
                *ids.entry(key).or_insert(fresh)
            })
            .collect();
        class = next;
        if ids.len() == count {
            break;
        }
        count = ids.len();
    }
    // Breadth-first over classes from the start's.
    let mut number: HashMap<u32, u32> = HashMap::from([(class[0], 0)]);
    let mut reps = vec![0usize];
    let mut out = RuleDfa {
        trans: Vec::new(),
        finals: Vec::new(),
    };
    while out.len() < reps.len() {
        let s = reps[out.len()];
        let row = dfa.trans[s]
            .iter()
            .map(|&(l, t)| {
                let c = class[t as usize];
                let fresh = reps.len() as u32;
                let id = *number.entry(c).or_insert(fresh);
                if id == fresh {
                    reps.push(t as usize);
                }
                (l, id)
            })
            .collect();
        out.trans.push(row);
        out.finals.push(dfa.finals[s]);
    }
    out
}
