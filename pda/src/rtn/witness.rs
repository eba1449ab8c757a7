//! Example texts for a kept rule's states: the fewest labels that reach a state (its name
//! in messages and DOT output), a shortest text of each rule, and an input that reaches
//! each rule's start. The conflict analysis and the PDA builder both use them.

use std::collections::VecDeque;

use super::dfa::CALL;
use super::Rtn;
use crate::budget::Budget;
use crate::error::PdaError;
use crate::grammar::fmt_literal;

/// Per state, the fewest labels that reach it (as a BFS tree: a path is walked back from
/// its state, so storing them costs one entry per state, not one path each); per rule, a
/// shortest text and an input that reaches its start.
pub(crate) struct Witness {
    /// Per rule and state: the previous state and label on its path (the start: none).
    parents: Vec<Vec<Option<(u32, u32)>>>,
    short: Vec<Vec<u8>>,
    reach: Vec<Option<Vec<u8>>>,
}

/// Most labels a state name shows: a longer path shows its last ones after `…`, so the
/// names of a long literal's states cost linear, not quadratic, space.
const NAME_LABELS: usize = 32;

fn shorter(old: &Option<Vec<u8>>, new: &[u8]) -> bool {
    old.as_ref().map_or(true, |o| new.len() < o.len())
}

impl Witness {
    /// The paths only: enough for state names.
    pub fn new(rtn: &Rtn) -> Witness {
        let parents = rtn.dfas.iter().map(|d| {
            let mut parent: Vec<Option<(u32, u32)>> = vec![None; d.len()];
            let mut seen = vec![false; d.len()];
            seen[0] = true;
            let mut queue = VecDeque::from([0u32]);
            while let Some(q) = queue.pop_front() {
                for &(l, t) in &d.trans[q as usize] {
                    if !seen[t as usize] {
                        seen[t as usize] = true;
                        parent[t as usize] = Some((q, l));
                        queue.push_back(t);
                    }
                }
            }
            parent
        });
        Witness {
            parents: parents.collect(),
            short: Vec::new(),
            reach: vec![None; rtn.dfas.len()],
        }
    }

    /// The labels of the path to state `q` of rule `k`, last first, at most `max` of them,
    /// and whether the path is longer.
    fn path_back(&self, k: usize, q: usize, max: usize) -> (Vec<u32>, bool) {
        let mut labels = Vec::new();
        let mut at = q;
        while let Some((p, l)) = self.parents[k][at] {
            if labels.len() == max {
                return (labels, true);
            }
            labels.push(l);
            at = p as usize;
        }
        (labels, false)
    }

    /// The labels of the path to state `q` of rule `k`.
    fn path(&self, k: usize, q: usize) -> Vec<u32> {
        let mut labels = self.path_back(k, q, usize::MAX).0;
        labels.reverse();
        labels
    }

    /// Also example inputs, for [`Witness::input`], within `budget`. Needs every rule to be
    /// able to finish (checked before).
    pub fn with_inputs(rtn: &Rtn, budget: &Budget) -> Result<Witness, PdaError> {
        let mut w = Witness::new(rtn);
        w.short = shortest_texts(rtn, budget)?;
        w.reach[0] = Some(Vec::new());
        let mut changed = true;
        while changed {
            changed = false;
            for (k, d) in rtn.dfas.iter().enumerate() {
                let Some(before) = w.reach[k].clone() else {
                    continue;
                };
                for q in 0..d.len() {
                    budget.tick(|| example_inputs(rtn, k))?;
                    for &(l, _) in d.trans[q].iter().filter(|(l, _)| *l >= CALL) {
                        let text = [before.as_slice(), &w.expand(&w.path(k, q))].concat();
                        let m = (l - CALL) as usize;
                        if shorter(&w.reach[m], &text) {
                            w.reach[m] = Some(text);
                            changed = true;
                        }
                    }
                }
            }
        }
        Ok(w)
    }

    fn expand(&self, labels: &[u32]) -> Vec<u8> {
        let mut out = Vec::new();
        for &l in labels {
            match l.checked_sub(CALL) {
                None => out.push(l as u8),
                Some(m) => out.extend_from_slice(&self.short[m as usize]),
            }
        }
        out
    }

    /// A text that reaches state `q` of rule `k` from the start of the grammar.
    pub fn input(&self, k: usize, q: usize) -> Vec<u8> {
        let before = self.reach[k].clone().unwrap_or_default();
        [before, self.expand(&self.path(k, q))].concat()
    }

    /// `name: "a" S •`: the rule and the fewest literals and calls that reach the state.
    pub fn state_name(&self, rtn: &Rtn, k: usize, q: usize) -> String {
        let mut out = format!("{}:", rtn.names[k]);
        let (mut labels, cut) = self.path_back(k, q, NAME_LABELS);
        labels.reverse();
        if cut {
            out.push_str(" …");
        }
        let mut lit = Vec::new();
        for &l in &labels {
            match l.checked_sub(CALL) {
                None => lit.push(l as u8),
                Some(m) => {
                    if !lit.is_empty() {
                        out.push(' ');
                        out.push_str(&fmt_literal(&std::mem::take(&mut lit)));
                    }
                    out.push(' ');
                    out.push_str(&rtn.names[m as usize]);
                }
            }
        }
        if !lit.is_empty() {
            out.push(' ');
            out.push_str(&fmt_literal(&lit));
        }
        out.push_str(" •");
        out
    }
}

/// What finding example inputs for rule `k` is doing, for a budget's message.
fn example_inputs(rtn: &Rtn, k: usize) -> String {
    format!(
        "finding example inputs for the conflicts of {}",
        rtn.rule_name(k)
    )
}

/// A shortest complete text of every rule (every rule can finish), within `budget`.
fn shortest_texts(rtn: &Rtn, budget: &Budget) -> Result<Vec<Vec<u8>>, PdaError> {
    let mut sfx: Vec<Vec<Option<Vec<u8>>>> = rtn
        .dfas
        .iter()
        .map(|d| d.finals.iter().map(|&f| f.then(Vec::new)).collect())
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for (k, d) in rtn.dfas.iter().enumerate() {
            for q in 0..d.len() {
                budget.tick(|| example_inputs(rtn, k))?;
                for &(l, t) in &d.trans[q] {
                    let Some(rest) = sfx[k][t as usize].clone() else {
                        continue;
                    };
                    let head = match l.checked_sub(CALL) {
                        None => vec![l as u8],
                        Some(m) => match &sfx[m as usize][0] {
                            Some(s) => s.clone(),
                            None => continue,
                        },
                    };
                    let text = [head, rest].concat();
                    if shorter(&sfx[k][q], &text) {
                        sfx[k][q] = Some(text);
                        changed = true;
                    }
                }
            }
        }
    }
    Ok(sfx
        .into_iter()
        .map(|s| s[0].clone().unwrap_or_default())
        .collect())
}
