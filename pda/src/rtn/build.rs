//! The byte PDA of a checked RTN, its states and stack symbols named by `witness`.
//!
//! PDA states are the DFA states of the kept rules. A byte edge follows the byte's route
//! down through calls (each pushes its return state, except tail calls: a call whose
//! return state is final with nothing after it pushes nothing, so right recursion does not
//! grow the stack) to the state that reads it; where a byte has several routes (a
//! nondeterministic grammar), one edge per way down. A state where its rule may end has
//! one epsilon edge per return address of the rule, popping it and entering it.

use std::collections::{BTreeSet, HashMap};

use super::analysis::{Analysis, Route};
use super::dfa::CALL;
use super::witness::Witness;
use super::Rtn;
use crate::budget::Budget;
use crate::byte_pda::{Edge, Pda, StackSym};
use crate::error::PdaError;

/// Whether the call returning to state `r` of rule `k` is a tail call (pushes nothing).
fn is_tail(rtn: &Rtn, k: usize, r: u32) -> bool {
    let d = &rtn.dfas[k];
    d.finals[r as usize] && d.trans[r as usize].is_empty()
}

/// An edge before states are numbered: byte (`None`: epsilon), pop (epsilon edges only),
/// target (rule, state; `None`: accept), pushes.
type RawEdge = (Option<u8>, StackSym, Option<(usize, u32)>, Vec<StackSym>);

/// Every way byte `b` goes down from state `q` of rule `k` to a state that reads it: the
/// pushes and that state, distinct, in route order. One at most in a deterministic
/// grammar. Terminates: the left-recursion check rules out a call cycle before a byte, and
/// a state is not entered twice with the same pushes.
fn descend(
    rtn: &Rtn,
    a: &Analysis,
    sym_of: &HashMap<(usize, u32), StackSym>,
    (k, q, b): (usize, usize, u8),
) -> Vec<(Vec<StackSym>, (usize, u32))> {
    let mut out: Vec<(Vec<StackSym>, (usize, u32))> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut work = vec![(k, q, Vec::new())];
    while let Some((k, q, pushes)) = work.pop() {
        if !seen.insert((k, q, pushes.clone())) {
            continue;
        }
        // Reversed onto the stack, so that routes are followed in order.
        for route in a.routes(rtn, k, q, b).into_iter().rev() {
            match route {
                Route::Byte(t) => {
                    let found = (pushes.clone(), (k, t));
                    if !out.contains(&found) {
                        out.push(found);
                    }
                }
                Route::Call(m, r) => {
                    let mut p = pushes.clone();
                    p.extend(sym_of.get(&(k, r)).copied());
                    work.push((m as usize, 0, p));
                }
                Route::Skip(_, r) => work.push((k, r as usize, pushes.clone())),
                Route::Return => {}
            }
        }
    }
    out
}

/// Builds the PDA of a checked RTN within `budget`; `conflicts` is the analysis's report
/// when one byte of lookahead does not decide every move.
pub(crate) fn to_pda(
    rtn: &Rtn,
    a: &Analysis,
    conflicts: Option<String>,
    budget: &Budget,
) -> Result<Pda, PdaError> {
    let witness = Witness::new(rtn);
    let StackSymbols {
        names: stack_names,
        sym_of,
        addr_of,
    } = stack_symbols(rtn, &witness);
    let ret = return_addresses(rtn, &sym_of, budget)?;
    let mut number: HashMap<(usize, u32), u32> = HashMap::from([((0, 0), 0)]);
    let mut order: Vec<(usize, u32)> = vec![(0, 0)];
    let mut raw: Vec<Vec<RawEdge>> = Vec::new();
    while raw.len() < order.len() {
        let (k, q) = order[raw.len()];
        let mut out = Vec::new();
        if a.nullable[k][q as usize] {
            for &x in &ret[k] {
                let target = (x != StackSym::INITIAL).then(|| addr_of[x.index() as usize]);
                let pushes = if target.is_none() {
                    vec![x]
                } else {
                    Vec::new()
                };
                out.push((None, x, target, pushes));
            }
        }
        let place = || {
            let state = witness.state_name(rtn, k, q as usize);
            format!("building the byte PDA at `{state}` in {}", rtn.rule_name(k))
        };
        for b in 0..=255u8 {
            budget.tick(place)?;
            for (pushes, target) in descend(rtn, a, &sym_of, (k, q as usize, b)) {
                out.push((Some(b), StackSym::INITIAL, Some(target), pushes));
            }
        }
        let pushed: usize = out.iter().map(|e| e.3.len() * 4).sum();
        budget.charge(out.len() * std::mem::size_of::<Edge>() + pushed, place)?;
        for t in out.iter().filter_map(|e| e.2) {
            if let std::collections::hash_map::Entry::Vacant(v) = number.entry(t) {
                v.insert(order.len() as u32);
                order.push(t);
            }
        }
        raw.push(out);
    }
    let accept = order.len() as u32;
    let mut offsets = vec![0];
    let (mut edges, mut complete, mut state_names) = (Vec::new(), Vec::new(), Vec::new());
    let mut state_rules = Vec::new();
    let mut return_bytes = Vec::new();
    for (s, list) in raw.into_iter().enumerate() {
        let (k, q) = order[s];
        let mut look = [0u64; 4];
        for b in (0..=255u8).filter(|&b| a.returns_before(k, q as usize, b)) {
            look[usize::from(b >> 6)] |= 1 << (b & 63);
        }
        return_bytes.push(look);
        complete.push(list.iter().all(|e| e.0.is_none()));
        state_names.push(witness.state_name(rtn, k, q as usize));
        state_rules.push(k as u32);
        for (input, pop, target, pushes) in list {
            edges.push(Edge {
                source: s as u32,
                input,
                pops: if input.is_none() {
                    vec![pop]
                } else {
                    Vec::new()
                },
                target: target.map_or(accept, |t| number[&t]),
                pushes,
            });
        }
        offsets.push(edges.len());
    }
    complete.push(true);
    state_names.push("accept".to_string());
    state_rules.push(0);
    return_bytes.push([0; 4]);
    offsets.push(edges.len());
    Ok(Pda {
        start: 0,
        accept,
        offsets,
        edges,
        complete,
        state_names,
        state_rules,
        rule_names: (0..rtn.dfas.len()).map(|k| rtn.rule_name(k)).collect(),
        stack_names,
        conflicts,
        return_bytes,
    })
}

/// Stack symbols: the initial one, then each return state `(rule, state)` of a non-tail
/// call.
struct StackSymbols {
    names: Vec<String>,
    /// The symbol of each return state.
    sym_of: HashMap<(usize, u32), StackSym>,
    /// The return state of each symbol.
    addr_of: Vec<(usize, u32)>,
}

fn stack_symbols(rtn: &Rtn, witness: &Witness) -> StackSymbols {
    let mut stack_names = vec!["[•]".to_string()];
    let mut sym_of: HashMap<(usize, u32), StackSym> = HashMap::new();
    let mut addr_of: Vec<(usize, u32)> = vec![(usize::MAX, 0)];
    for (k, d) in rtn.dfas.iter().enumerate() {
        for row in &d.trans {
            for &(_, r) in row.iter().filter(|(l, _)| *l >= CALL) {
                if !is_tail(rtn, k, r) && !sym_of.contains_key(&(k, r)) {
                    sym_of.insert((k, r), StackSym::from_index(addr_of.len() as u32));
                    addr_of.push((k, r));
                    stack_names.push(witness.state_name(rtn, k, r as usize));
                }
            }
        }
    }
    StackSymbols {
        names: stack_names,
        sym_of,
        addr_of,
    }
}

/// Per rule, the stack symbols that can be on top when it is called (tail calls pass on
/// their caller's), within `budget`.
fn return_addresses(
    rtn: &Rtn,
    sym_of: &HashMap<(usize, u32), StackSym>,
    budget: &Budget,
) -> Result<Vec<BTreeSet<StackSym>>, PdaError> {
    let mut ret: Vec<BTreeSet<StackSym>> = vec![BTreeSet::new(); rtn.dfas.len()];
    ret[0].insert(StackSym::INITIAL);
    let mut changed = true;
    while changed {
        changed = false;
        for (k, d) in rtn.dfas.iter().enumerate() {
            for row in &d.trans {
                budget.tick(|| format!("finding the return addresses of {}", rtn.rule_name(k)))?;
                for &(l, r) in row.iter().filter(|(l, _)| *l >= CALL) {
                    let m = (l - CALL) as usize;
                    let add: Vec<StackSym> = match sym_of.get(&(k, r)) {
                        Some(&s) => vec![s],
                        None => ret[k].iter().copied().collect(),
                    };
                    for s in add {
                        changed |= ret[m].insert(s);
                    }
                }
            }
        }
    }
    Ok(ret)
}
