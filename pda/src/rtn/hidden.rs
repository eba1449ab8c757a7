//! Hidden left recursion: a rule that calls itself after items that may be empty
//! (`A ::= B A "x" | "y"` with `B ::= "" | "b"`). Each such alternative `x1 rest`, `x1`
//! nullable, becomes `x1' rest | rest` with `x1'` the texts of `x1` but the empty one
//! (the same language), until the call leads its alternative; `left.rs` then rewrites
//! it as any left recursion. A group that starts an alternative and may call back first is
//! opened the same way (`(A | "b") "x"` → `A "x" | "b" "x"`, `(A "x")* "y"` → `"y" | A "x"
//! (A "x")* "y"`); a repetition whose body may be empty repeats the body's non-empty
//! texts instead (`("" | A "x")* "y"` → `(A "x")* "y"`, the same language), so opening
//! it ends. Only alternatives whose hidden call leads back to their own rule are split,
//! so other grammars are read unchanged. A byte-DFA element (a regex terminal) that
//! matches the empty text is split as `D ∩ Σ⁺ | ""`.

use std::collections::HashMap;
use std::sync::Arc;

use fstc_core::bytes::{Algebra, ByteDfa};

/// Most alternatives one rule may be split into, and most groups opened one in another.
const MAX_ALTERNATIVES: usize = 4096;
const MAX_OPENED: usize = 64;

/// The suffix of the name of a rule made for the non-empty texts of another.
const NON_EMPTY: &str = " (non-empty)";

use super::left::alternatives;
use crate::gbnf::{Expr, RuleDef, Rules};

/// The rules with hidden left recursion made visible, or `None` when there is none.
pub(super) fn unhide(rules: &Rules) -> Option<Rules> {
    let nullable = nullable_rules(&rules.rules);
    let index: HashMap<&str, usize> = rules
        .rules
        .iter()
        .enumerate()
        .map(|(i, r)| (r.name.as_str(), i))
        .collect();
    let graph = leading_graph(&rules.rules, &index, &nullable);
    let mut x = Unhide {
        defs: &rules.rules,
        nullable: &nullable,
        index: &index,
        graph,
        new: Vec::new(),
    };
    let mut out = rules.clone();
    let mut changed = false;
    for (i, def) in rules.rules.iter().enumerate() {
        let alts = alternatives(&def.body);
        if !alts.iter().any(|a| x.hides(a, i) || x.opens(a, i)) {
            continue;
        }
        let mut split = Vec::new();
        for alt in alts {
            x.split(alt, i, &mut split, 0)?;
            if split.len() > MAX_ALTERNATIVES {
                return None;
            }
        }
        out.rules[i].body = Expr::Alt(split.into_iter().map(Expr::Seq).collect());
        changed = true;
    }
    out.rules.extend(x.new);
    changed.then_some(out)
}

struct Unhide<'a> {
    defs: &'a [RuleDef],
    nullable: &'a [bool],
    index: &'a HashMap<&'a str, usize>,
    /// Each rule's leading calls (`leading_graph`).
    graph: Vec<Vec<usize>>,
    /// Rules `B'` made for the non-empty texts of a nullable `B`.
    new: Vec<RuleDef>,
}

impl Unhide<'_> {
    fn nullable_expr(&self, e: &Expr) -> bool {
        is_nullable(e, &|n| self.index.get(n).is_some_and(|&i| self.nullable[i]))
    }

    /// The rules called after a leading nullable item, before any byte must be read.
    fn hidden_calls(&self, alt: &[Expr]) -> Vec<usize> {
        let mut out = Vec::new();
        for item in &alt[1..] {
            leading_calls(item, &|n| self.nullable_ref(n), &mut |n| {
                out.extend(self.rule_index(n))
            });
            if !self.nullable_expr(item) {
                break;
            }
        }
        out
    }

    /// The index of rule `n`; a rule made for the non-empty texts of `B` (`B (non-empty)`)
    /// is read as `B`, whose leading calls it has.
    fn rule_index(&self, n: &str) -> Option<usize> {
        let original = n.strip_suffix(NON_EMPTY).unwrap_or(n);
        self.index.get(original).copied()
    }

    fn nullable_ref(&self, n: &str) -> bool {
        self.index.get(n).is_some_and(|&i| self.nullable[i])
    }

    /// Whether `alt` of rule `i` starts with a nullable item and then may call, before
    /// reading a byte, a rule that leads back to `i`.
    fn hides(&self, alt: &[Expr], i: usize) -> bool {
        alt.len() > 1
            && self.nullable_expr(&alt[0])
            && self
                .hidden_calls(alt)
                .iter()
                .any(|&j| reaches(&self.graph, j, i))
    }

    /// Whether `alt` of rule `i` starts with a group (`( )`, a repetition) that may call,
    /// before reading a byte, a rule that leads back to `i`.
    fn opens(&self, alt: &[Expr], i: usize) -> bool {
        let group = matches!(
            alt.first(),
            Some(Expr::Seq(_) | Expr::Alt(_) | Expr::Repeat { .. })
        );
        let mut calls = Vec::new();
        if let (true, Some(first)) = (group, alt.first()) {
            leading_calls(first, &|n| self.nullable_ref(n), &mut |n| {
                calls.extend(self.rule_index(n))
            });
        }
        calls.iter().any(|&j| reaches(&self.graph, j, i))
    }

    /// `alt` of rule `i` split while it `hides` a call back to `i`, and its leading group
    /// opened where one `opens` such a call (`(a | b) x` → `a x | b x`, `y* x` → `x | y y*
    /// x`), until the call leads; `None` past [`MAX_ALTERNATIVES`] or [`MAX_OPENED`].
    fn split(
        &mut self,
        mut alt: Vec<Expr>,
        i: usize,
        out: &mut Vec<Vec<Expr>>,
        opened: usize,
    ) -> Option<()> {
        loop {
            if out.len() > MAX_ALTERNATIVES || opened > MAX_OPENED {
                return None;
            }
            if self.hides(&alt, i) {
                let first = alt.remove(0);
                if let Some(ne) = self.non_empty(&first)? {
                    out.push([vec![ne], alt.clone()].concat());
                }
            } else if self.opens(&alt, i) {
                let rest = alt.split_off(1);
                for mut seq in open(self.repeat_non_empty(alt.remove(0))?) {
                    seq.extend(rest.iter().cloned());
                    self.split(seq, i, out, opened + 1)?;
                }
                return Some(());
            } else {
                out.push(alt);
                return Some(());
            }
        }
    }

    /// The texts of `e` but the empty one (`None` inside: none are left); `None` when a
    /// byte-DFA element would have to lose the empty text.
    fn non_empty(&mut self, e: &Expr) -> Option<Option<Expr>> {
        if !self.nullable_expr(e) {
            return Some(Some(e.clone()));
        }
        Some(match e {
            Expr::Bytes(_) => None,
            Expr::Class { .. } => Some(e.clone()),
            Expr::Dfa(dfa) => non_empty_dfa(dfa)?.map(|d| Expr::Dfa(Arc::new(d))),
            Expr::Ref(name, at) => Some(Expr::Ref(self.non_empty_rule(name)?, *at)),
            Expr::Alt(parts) => {
                let mut alts = Vec::new();
                for p in parts {
                    alts.extend(self.non_empty(p)?);
                }
                (!alts.is_empty()).then_some(Expr::Alt(alts))
            }
            Expr::Seq(items) => {
                // Some item is the first non-empty one; those before it are empty.
                let mut alts = Vec::new();
                for (k, item) in items.iter().enumerate() {
                    if let Some(ne) = self.non_empty(item)? {
                        alts.push(Expr::Seq([vec![ne], items[k + 1..].to_vec()].concat()));
                    }
                    if !self.nullable_expr(item) {
                        break;
                    }
                }
                (!alts.is_empty()).then_some(Expr::Alt(alts))
            }
            Expr::Repeat { expr, max, at, .. } => {
                // A nullable body: any number of its repetitions may be empty.
                let ne = self.non_empty(expr)?;
                match (ne, max) {
                    (None, _) | (_, Some(0)) => None,
                    (Some(ne), _) => Some(Expr::Seq(vec![
                        ne,
                        Expr::Repeat {
                            expr: expr.clone(),
                            min: 0,
                            max: max.map(|m| m - 1),
                            at: *at,
                        },
                    ])),
                }
            }
        })
    }

    /// A repetition whose body may be empty as the repetition of the body's non-empty
    /// texts, which derives the same texts (`X{m,n}` = `X'{0,n}`: empty iterations pad any
    /// count up to `m`); other expressions as they are. `None` where `non_empty` is.
    fn repeat_non_empty(&mut self, e: Expr) -> Option<Expr> {
        match e {
            Expr::Repeat { expr, max, at, .. } if self.nullable_expr(&expr) => {
                Some(match self.non_empty(&expr)? {
                    Some(ne) => Expr::Repeat {
                        expr: Box::new(ne),
                        min: 0,
                        max,
                        at,
                    },
                    None => Expr::Seq(Vec::new()),
                })
            }
            other => Some(other),
        }
    }

    /// The name of the rule of `name`'s non-empty texts, made once; `None` when it has
    /// none (the split is then given up).
    fn non_empty_rule(&mut self, name: &str) -> Option<String> {
        let made = format!("{name}{NON_EMPTY}");
        if self.new.iter().any(|r| r.name == made) {
            return Some(made);
        }
        let def = &self.defs[*self.index.get(name)?];
        self.new.push(RuleDef {
            name: made.clone(),
            at: def.at,
            body: Expr::Alt(Vec::new()),
        });
        let slot = self.new.len() - 1;
        self.new[slot].body = self.non_empty(&def.body)??;
        Some(made)
    }
}

/// The sequences a leading group stands for: its items, each alternative, or a
/// repetition's first iteration (and nothing, where it may be absent) before the rest.
fn open(group: Expr) -> Vec<Vec<Expr>> {
    match group {
        Expr::Seq(items) => vec![items],
        Expr::Alt(parts) => parts
            .into_iter()
            .map(|p| match p {
                Expr::Seq(items) => items,
                other => vec![other],
            })
            .collect(),
        Expr::Repeat { max: Some(0), .. } => vec![Vec::new()],
        Expr::Repeat { expr, min, max, at } => {
            let more = Expr::Repeat {
                expr: expr.clone(),
                min: min.saturating_sub(1),
                max: max.map(|m| m - 1),
                at,
            };
            let once = vec![*expr, more];
            match min {
                0 => vec![Vec::new(), once],
                _ => vec![once],
            }
        }
        other => vec![vec![other]],
    }
}

/// The non-empty texts of a byte DFA (`None` inside: it matches only the empty text);
/// `None` when the algebra refuses (past its state limit), which leaves the rule as it is.
fn non_empty_dfa(dfa: &ByteDfa) -> Option<Option<ByteDfa>> {
    let algebra = Algebra::new();
    let plus = algebra
        .from_edges(&[(0, 0, 255, 1), (1, 0, 255, 1)], &[false, true])
        .ok()?;
    let ne = algebra.intersect(dfa, &plus).ok()?;
    Some((!ne.is_empty()).then_some(ne))
}

/// Which rules derive the empty text (a fixpoint over the rules).
fn nullable_rules(defs: &[RuleDef]) -> Vec<bool> {
    let index: HashMap<&str, usize> = defs
        .iter()
        .enumerate()
        .map(|(i, r)| (r.name.as_str(), i))
        .collect();
    let mut nullable = vec![false; defs.len()];
    loop {
        let mut changed = false;
        for (i, d) in defs.iter().enumerate() {
            let known = |n: &str| index.get(n).is_some_and(|&j| nullable[j]);
            if !nullable[i] && is_nullable(&d.body, &known) {
                nullable[i] = true;
                changed = true;
            }
        }
        if !changed {
            return nullable;
        }
    }
}

/// Whether `e` derives the empty text, rules judged by `rule`.
fn is_nullable(e: &Expr, rule: &dyn Fn(&str) -> bool) -> bool {
    match e {
        Expr::Bytes(b) => b.is_empty(),
        Expr::Class { .. } => false,
        Expr::Dfa(dfa) => dfa.is_accepting(dfa.start()),
        Expr::Ref(n, _) => rule(n),
        Expr::Seq(items) => items.iter().all(|i| is_nullable(i, rule)),
        Expr::Alt(parts) => parts.iter().any(|p| is_nullable(p, rule)),
        Expr::Repeat { expr, min, .. } => *min == 0 || is_nullable(expr, rule),
    }
}

/// Calls `f` with each rule `e` may call before it reads a byte.
fn leading_calls(e: &Expr, nullable: &dyn Fn(&str) -> bool, f: &mut dyn FnMut(&str)) {
    match e {
        Expr::Ref(n, _) => f(n),
        Expr::Seq(items) => {
            for item in items {
                leading_calls(item, nullable, f);
                if !is_nullable(item, nullable) {
                    break;
                }
            }
        }
        Expr::Alt(parts) => parts.iter().for_each(|p| leading_calls(p, nullable, f)),
        Expr::Repeat { expr, .. } => leading_calls(expr, nullable, f),
        Expr::Bytes(_) | Expr::Class { .. } | Expr::Dfa(_) => {}
    }
}

/// For each rule, the rules it may call before reading a byte.
fn leading_graph(
    defs: &[RuleDef],
    index: &HashMap<&str, usize>,
    nullable: &[bool],
) -> Vec<Vec<usize>> {
    let known = |name: &str| index.get(name).is_some_and(|&j| nullable[j]);
    defs.iter()
        .map(|d| {
            let mut out = Vec::new();
            leading_calls(&d.body, &known, &mut |name| {
                out.extend(index.get(name).copied())
            });
            out
        })
        .collect()
}

/// Whether rule `from` is rule `to` or may call it before reading a byte.
fn reaches(graph: &[Vec<usize>], from: usize, to: usize) -> bool {
    let mut seen = vec![false; graph.len()];
    let mut work = vec![from];
    while let Some(j) = work.pop() {
        if j == to {
            return true;
        }
        if !std::mem::replace(&mut seen[j], true) {
            work.extend(&graph[j]);
        }
    }
    false
}
