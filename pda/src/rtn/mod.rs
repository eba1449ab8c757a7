//! Grammars as recursive transition networks: every rule that is kept (the start rule and
//! the genuinely recursive ones) becomes a minimized DFA over bytes and calls, with the
//! other rules inlined; the analysis then proves that one byte of lookahead decides every
//! move, and [`crate::Pda`] is built from the DFAs (see `build`).
//!
//! Because alternatives are merged by the subset construction, common prefixes and
//! overlapping alternatives cost nothing: only a choice between reading a byte, calling a
//! rule, skipping a rule that may be empty and returning must be decided by the next byte.
//! Left recursion, direct (`A ::= A x | y` as `A ::= y x*`) and indirect, is rewritten
//! first (`left`).

mod analysis;
mod build;
mod dfa;
mod hidden;
mod left;
mod witness;

use std::collections::HashMap;

use fstc_core::bytes::{Algebra, ByteDfa};

use crate::budget::Budget;
use crate::byte_pda::Pda;
use crate::error::{PdaError, PdaErrorKind};
use crate::gbnf::{fmt_rule_at, tree_bytes, Expr, Pos, Rules};
use crate::grammar::Grammar;

use dfa::RuleDfa;

/// The kept rules and their DFAs. Rule 0 is the start rule.
#[derive(Clone, Debug)]
pub(crate) struct Rtn {
    pub names: Vec<String>,
    pub at: Vec<Option<Pos>>,
    pub dfas: Vec<RuleDfa>,
}

/// Every rule name referenced in `e`, with where.
fn refs<'e>(e: &'e Expr, out: &mut Vec<(&'e str, Option<Pos>)>) {
    match e {
        Expr::Ref(n, at) => out.push((n, *at)),
        Expr::Seq(v) | Expr::Alt(v) => v.iter().for_each(|x| refs(x, out)),
        Expr::Repeat { expr, .. } => refs(expr, out),
        Expr::Bytes(_) | Expr::Class { .. } | Expr::Dfa(_) => {}
    }
}

/// Inlined rules are kept as calls past this depth of nested inlining (so that building
/// never recurses deeply)...
const MAX_INLINE_DEPTH: u32 = 32;
/// ...or past this size of inlined body (so that a rule used many times by rules used many
/// times cannot blow up exponentially).
const MAX_INLINE_SIZE: u64 = 4096;

/// A rough size of `e` once built (its literal bytes, classes and references, repeated).
fn expr_size(e: &Expr) -> u64 {
    match e {
        Expr::Bytes(b) => b.len().max(1) as u64,
        Expr::Class { .. } | Expr::Ref(..) => 1,
        Expr::Dfa(d) => d.num_states() as u64,
        Expr::Seq(v) | Expr::Alt(v) => v.iter().map(expr_size).sum::<u64>().max(1),
        Expr::Repeat { expr, min, max, .. } => {
            expr_size(expr).saturating_mul(u64::from(max.unwrap_or(*min + 1).max(1)))
        }
    }
}

/// Strongly connected components (iterative Kosaraju): per rule its component, and the
/// components' members in an order where callers come before callees.
pub(crate) fn components(calls: &[Vec<usize>]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let n = calls.len();
    let mut post = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    for root in 0..n {
        if std::mem::replace(&mut seen[root], true) {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        while let Some((v, i)) = stack.pop() {
            match calls[v].get(i) {
                Some(&w) => {
                    stack.push((v, i + 1));
                    if !std::mem::replace(&mut seen[w], true) {
                        stack.push((w, 0));
                    }
                }
                None => post.push(v),
            }
        }
    }
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (v, out) in calls.iter().enumerate() {
        out.iter().for_each(|&w| callers[w].push(v));
    }
    let mut comp = vec![usize::MAX; n];
    let mut members = Vec::new();
    for &root in post.iter().rev() {
        if comp[root] != usize::MAX {
            continue;
        }
        let id = members.len();
        let (mut group, mut work) = (Vec::new(), vec![root]);
        comp[root] = id;
        while let Some(v) = work.pop() {
            group.push(v);
            for &u in &callers[v] {
                if comp[u] == usize::MAX {
                    comp[u] = id;
                    work.push(u);
                }
            }
        }
        members.push(group);
    }
    (comp, members)
}

/// The rules kept as RTN rules, start first: the start rule, the rules in a cycle of calls,
/// and non-recursive rules too deep or too large to inline, of those the start reaches;
/// and which rules the start reaches.
fn choose_kept(start: usize, bodies: &[Expr], calls: &[Vec<usize>]) -> (Vec<usize>, Vec<bool>) {
    let n = calls.len();
    let (comp, members) = components(calls);
    let recursive = |i: usize| members[comp[i]].len() > 1 || calls[i].contains(&i);
    let mut keep: Vec<bool> = (0..n).map(|i| i == start || recursive(i)).collect();
    // Callees before callers: height and size of each rule once inlined.
    let (mut height, mut size) = (vec![0u32; n], vec![1u64; n]);
    for group in members.iter().rev() {
        for &i in group {
            if keep[i] {
                continue;
            }
            let inlined = calls[i].iter().filter(|&&j| !keep[j]);
            height[i] = 1 + inlined.clone().map(|&j| height[j]).max().unwrap_or(0);
            size[i] = inlined.fold(expr_size(&bodies[i]), |s, &j| s.saturating_add(size[j]));
            if height[i] > MAX_INLINE_DEPTH || size[i] > MAX_INLINE_SIZE {
                keep[i] = true;
            }
        }
    }
    // Reachable kept rules, start first.
    let mut reached = vec![false; n];
    let mut work = vec![start];
    reached[start] = true;
    while let Some(i) = work.pop() {
        for &j in &calls[i] {
            if !std::mem::replace(&mut reached[j], true) {
                work.push(j);
            }
        }
    }
    let mut order = vec![start];
    order.extend((0..n).filter(|&i| i != start && reached[i] && keep[i]));
    (order, reached)
}

impl Rtn {
    /// Checks names, rewrites direct left recursion, decides which rules are kept and builds
    /// their DFAs, within `budget`.
    pub fn new(rules: &Rules, budget: &Budget) -> Result<Rtn, PdaError> {
        // The copy of the bodies rewritten below, charged before it is made (and again for
        // the rules with hidden left recursion made visible, when there are any).
        let copy = || "copying the grammar's rules to rewrite them".to_string();
        budget.charge(tree_bytes(rules.rules.iter().map(|d| &d.body)), copy)?;
        let unhidden = hidden::unhide(rules);
        if let Some(u) = &unhidden {
            budget.charge(tree_bytes(u.rules.iter().map(|d| &d.body)), copy)?;
        }
        let rules = unhidden.as_ref().unwrap_or(rules);
        let defs = &rules.rules;
        let index: HashMap<&str, usize> = defs
            .iter()
            .enumerate()
            .map(|(i, r)| (r.name.as_str(), i))
            .collect();
        let Some(&start) = index.get(rules.start.as_str()) else {
            return Err(PdaError::new(
                PdaErrorKind::EmptyGrammar,
                format!("the start rule `{}` is not defined", rules.start),
            ));
        };
        // A rule that cannot be rewritten keeps its body; the error counts if it is used.
        let mut unusable: Vec<Option<PdaError>> = Vec::new();
        let mut bodies = Vec::new();
        for (d, rewritten) in defs.iter().zip(left::rewrite(defs, budget)?) {
            match rewritten {
                Ok(body) => (bodies.push(body), unusable.push(None)),
                Err(e) => (bodies.push(d.body.clone()), unusable.push(Some(e))),
            };
        }
        // Who refers to whom, unknown names reported where they are written.
        let mut calls: Vec<Vec<usize>> = Vec::new();
        for (d, body) in defs.iter().zip(&bodies) {
            let mut found = Vec::new();
            refs(body, &mut found);
            let place = || format!("resolving the references of {}", fmt_rule_at(&d.name, d.at));
            budget.poll(1 + found.len(), || 0, place)?;
            let mut out = Vec::new();
            for (name, at) in found {
                let Some(&i) = index.get(name) else {
                    let place = at.map_or(String::new(), |p| format!(" at {p}"));
                    return Err(PdaError::new(
                        PdaErrorKind::UnknownNonterminal,
                        format!(
                            "unknown rule `{name}`{place} in {}: no rule defines it",
                            fmt_rule_at(&d.name, d.at)
                        ),
                    ));
                };
                out.push(i);
            }
            calls.push(out);
        }
        let (kept_rules, reached) = choose_kept(start, &bodies, &calls);
        if let Some(e) = (0..defs.len()).find_map(|i| unusable[i].take().filter(|_| reached[i])) {
            return Err(e);
        }
        let mut kept: Vec<Option<u32>> = vec![None; defs.len()];
        for (k, &i) in kept_rules.iter().enumerate() {
            kept[i] = Some(k as u32);
        }
        let order = kept_rules;
        let ctx = dfa::Ctx {
            bodies: &bodies,
            kept: &kept,
            index: &index,
            budget,
        };
        let dfas = order
            .iter()
            .map(|&i| {
                let rule = || fmt_rule_at(&defs[i].name, defs[i].at);
                budget.check_time(|| format!("building the DFA of {}", rule()))?;
                let dfa = dfa::build(&ctx, &defs[i], &bodies[i])?;
                budget.charge(dfa.bytes(), || format!("building the DFA of {}", rule()))?;
                Ok(dfa)
            })
            .collect::<Result<Vec<_>, PdaError>>()?;
        Ok(Rtn {
            names: order.iter().map(|&i| defs[i].name.clone()).collect(),
            at: order.iter().map(|&i| defs[i].at).collect(),
            dfas,
        })
    }

    /// How messages name rule `k`.
    pub fn rule_name(&self, k: usize) -> String {
        fmt_rule_at(&self.names[k], self.at[k])
    }
}

/// The minimized byte DFA of the language of `rules` when it needs no stack: every rule
/// the start rule reaches is inlined into it (none is recursive or too large to inline),
/// so the start rule's DFA reads bytes only. `None` when a rule stays a call. At most
/// `state_limit` states.
pub fn regular_dfa(rules: &Rules, state_limit: usize) -> Result<Option<ByteDfa>, PdaError> {
    let rtn = Rtn::new(rules, &Budget::unlimited())?;
    let [start] = rtn.dfas.as_slice() else {
        return Ok(None);
    };
    let mut edges = Vec::new();
    for (s, list) in start.trans.iter().enumerate() {
        for &(label, t) in list {
            let Ok(b) = u8::try_from(label) else {
                return Ok(None); // the start rule calls itself
            };
            edges.push((s as u32, b, b, t));
        }
    }
    let mut algebra = Algebra::new();
    algebra.state_limit(state_limit);
    let dfa = algebra
        .from_edges(&edges, &start.finals)
        .map_err(|e| PdaError::new(PdaErrorKind::TooLarge, format!("{}: {e}", rtn.rule_name(0))))?;
    Ok(Some(dfa))
}

impl Pda {
    /// Builds the PDA of a grammar built in code, or says why it cannot give a
    /// deterministic one (see [`Pda::from_rules`]).
    pub fn from_grammar(grammar: &Grammar) -> Result<Pda, PdaError> {
        Pda::from_rules(&Rules::from_grammar(grammar))
    }

    /// Reads GBNF (or the paper's arrow notation, see [`crate::gbnf`]) and builds its PDA.
    pub fn from_gbnf(text: &str) -> Result<Pda, PdaError> {
        Pda::from_rules(&crate::gbnf::parse(text)?)
    }

    /// Reads `text` in `syntax` and builds its PDA.
    pub fn from_text(text: &str, syntax: crate::Syntax) -> Result<Pda, PdaError> {
        Pda::from_rules(&syntax.parse(text)?)
    }

    /// [`Pda::from_text`] within `budget`.
    pub(crate) fn from_text_within(
        text: &str,
        syntax: crate::Syntax,
        budget: &Budget,
    ) -> Result<Pda, PdaError> {
        let (rules, held) = syntax.parse_within(text, budget)?;
        // The rules as read (`Rtn::new` charges its copy of their bodies).
        budget.charge(held, || "reading the grammar".to_string())?;
        budget.check_time(|| "reading the grammar".to_string())?;
        Pda::from_rules_within(&rules, budget)
    }

    /// Builds the PDA of `rules` (rules → RTN → checks → byte PDA), or says why they cannot
    /// give a deterministic one: an unknown rule, a rule that cannot finish, left recursion
    /// that is not direct, or the conflicts (all of them) where one byte of lookahead does
    /// not decide.
    pub fn from_rules(rules: &Rules) -> Result<Pda, PdaError> {
        Pda::from_rules_within(rules, &Budget::unlimited())
    }

    /// [`Pda::from_rules`] within `budget`.
    pub(crate) fn from_rules_within(rules: &Rules, budget: &Budget) -> Result<Pda, PdaError> {
        let rtn = Rtn::new(rules, budget)?;
        let analysis = analysis::Analysis::new(&rtn, budget)?;
        let conflicts = analysis.conflict_report(&rtn, budget)?;
        build::to_pda(&rtn, &analysis, conflicts, budget)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The passes before the rule DFAs (left recursion, references) poll the deadline: a
    /// grammar read before it passed stops in them, naming the rule.
    #[test]
    fn the_passes_of_rtn_new_stop_at_the_deadline() {
        let n = 10_000;
        let mut text = String::from("root ::= r0\n");
        for i in 0..n {
            text.push_str(&format!("r{i} ::= \"a\" r{}\n", (i + 1) % n));
        }
        let rules = crate::gbnf::parse(&text).unwrap();
        let budget = Budget::new(std::time::Duration::ZERO, usize::MAX);
        let e = Rtn::new(&rules, &budget).map(|_| ()).unwrap_err();
        assert_eq!(e.kind(), PdaErrorKind::TimeBudget, "{e}");
        let message = e.to_string();
        assert!(
            message.contains("rewriting the left recursion of rule `r"),
            "{message}"
        );
        assert!(message.contains("(line "), "{message}");
        assert!(Rtn::new(&rules, &Budget::unlimited()).is_ok());
    }
}
