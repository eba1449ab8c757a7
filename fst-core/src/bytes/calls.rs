//! Byte DFAs that call each other: a recursive transition network without recursion.
//!
//! A front end that would otherwise inline the same sub-language many times (a JSON
//! Schema's `$defs`, its string bodies, every property value) gives each distinct
//! sub-language its own small [`ByteDfa`] and writes a use of it as a call terminal,
//! [`TerminalKind::Call`]. The network's language is the root machine's with every call
//! replaced by the callee's language; the lazy automaton (`crate::lazy`) walks it with a
//! stack of return states instead of building the inlined DFA, whose size is the product
//! of nesting and repetition.

use std::sync::Arc;

use super::{ByteDfa, TerminalKind};

mod builder;
pub use builder::NetworkBuilder;

/// Machines of a call network; see the module documentation.
#[derive(Clone, Debug)]
pub struct CallNetwork {
    machines: Vec<Arc<ByteDfa>>,
    root: u32,
    /// Per machine, per terminal index: the callee.
    callees: Vec<Vec<u32>>,
    /// Per machine, per state: whether the state has a byte transition.
    reads_bytes: Vec<Vec<bool>>,
    /// The coarsest byte classes that refine every machine's.
    classes: [u8; 256],
    num_classes: usize,
}

/// Why machines do not make a call network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallNetworkError {
    message: String,
}

impl std::fmt::Display for CallNetworkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CallNetworkError {}

fn invalid(message: String) -> CallNetworkError {
    CallNetworkError { message }
}

impl CallNetwork {
    /// The network of `machines` whose language is machine `root`'s. Every terminal must
    /// be a call of a machine that exists, every machine must accept some text, and calls
    /// must not form a cycle (the stack depth is then bounded by the number of machines).
    pub fn new(machines: Vec<Arc<ByteDfa>>, root: u32) -> Result<CallNetwork, CallNetworkError> {
        if root as usize >= machines.len() {
            return Err(invalid(format!(
                "the root machine {root} is not one of the {} machines",
                machines.len()
            )));
        }
        let mut callees = Vec::with_capacity(machines.len());
        for (m, dfa) in machines.iter().enumerate() {
            // Minimized DFAs are trimmed: one that accepts some text has an accepting state.
            if !(0..dfa.num_states() as u32).any(|s| dfa.is_accepting(s)) {
                return Err(invalid(format!("machine {m} accepts no text")));
            }
            let mut list = Vec::with_capacity(dfa.terminals().len());
            for kind in dfa.terminals() {
                match kind {
                    TerminalKind::Call(c) if (*c as usize) < machines.len() => list.push(*c),
                    TerminalKind::Call(c) => {
                        return Err(invalid(format!(
                            "machine {m} calls machine {c}, but the network has {}",
                            machines.len()
                        )))
                    }
                    other => {
                        return Err(invalid(format!(
                            "machine {m} reads the wildcard terminal <{}>, which a call \
                             network does not implement",
                            other.name()
                        )))
                    }
                }
            }
            callees.push(list);
        }
        check_acyclic(&callees)?;
        let reads_bytes = machines.iter().map(|d| reads_bytes(d)).collect();
        let (classes, num_classes) = refined_classes(&machines);
        Ok(CallNetwork {
            machines,
            root,
            callees,
            reads_bytes,
            classes,
            num_classes,
        })
    }

    /// The machine whose language is the network's.
    pub fn root(&self) -> u32 {
        self.root
    }

    /// Number of machines.
    pub fn num_machines(&self) -> usize {
        self.machines.len()
    }

    /// Machine `m`.
    pub fn machine(&self, m: u32) -> &ByteDfa {
        &self.machines[m as usize]
    }

    /// Machine `m`, shared.
    pub(crate) fn machine_arc(&self, m: u32) -> &Arc<ByteDfa> {
        &self.machines[m as usize]
    }

    /// The machine that terminal `k` of machine `m` calls.
    pub fn callee(&self, m: u32, k: usize) -> u32 {
        self.callees[m as usize][k]
    }

    /// Whether state `s` of machine `m` has a byte transition.
    pub fn reads_bytes(&self, m: u32, s: u32) -> bool {
        self.reads_bytes[m as usize][s as usize]
    }

    /// Byte classes that every machine's classes refine into: bytes of one class move
    /// alike in every machine.
    pub fn byte_classes(&self) -> &[u8; 256] {
        &self.classes
    }

    /// Number of [`byte_classes`](Self::byte_classes).
    pub fn num_classes(&self) -> usize {
        self.num_classes
    }

    /// The bytes some machine has a transition on.
    pub fn bytes_read(&self) -> [bool; 256] {
        let mut read = [false; 256];
        for dfa in &self.machines {
            let k = dfa.num_classes();
            let mut used = vec![false; k];
            for row in dfa.transitions().chunks_exact(k) {
                for (c, &t) in row.iter().enumerate() {
                    used[c] |= t != super::DEAD;
                }
            }
            for (b, r) in read.iter_mut().enumerate() {
                *r |= used[dfa.byte_classes()[b] as usize];
            }
        }
        read
    }
}

fn reads_bytes(dfa: &ByteDfa) -> Vec<bool> {
    let k = dfa.num_classes();
    dfa.transitions()
        .chunks_exact(k)
        .map(|row| row.iter().any(|&t| t != super::DEAD))
        .collect()
}

/// Refuses call cycles, by an iterative depth-first search (no recursion on depth).
fn check_acyclic(callees: &[Vec<u32>]) -> Result<(), CallNetworkError> {
    // 0 unvisited, 1 on the stack, 2 done.
    let mut mark = vec![0u8; callees.len()];
    for root in 0..callees.len() {
        if mark[root] != 0 {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        mark[root] = 1;
        while let Some((m, i)) = stack.pop() {
            if let Some(&c) = callees[m].get(i) {
                stack.push((m, i + 1));
                match mark[c as usize] {
                    0 => {
                        mark[c as usize] = 1;
                        stack.push((c as usize, 0));
                    }
                    1 => {
                        return Err(invalid(format!(
                            "machine {m} calls machine {c}, which is already being called: \
                             calls must not form a cycle"
                        )))
                    }
                    _ => {}
                }
            } else {
                mark[m] = 2;
            }
        }
    }
    Ok(())
}

/// The coarsest partition of the bytes that refines every machine's byte classes.
fn refined_classes(machines: &[Arc<ByteDfa>]) -> ([u8; 256], usize) {
    let mut classes = [0u8; 256];
    let mut count = 1usize;
    for dfa in machines {
        let theirs = dfa.byte_classes();
        let mut ids = crate::fast_hash::FastMap::default();
        let mut next = [0u8; 256];
        for b in 0..256 {
            let key = (classes[b], theirs[b]);
            let n = ids.len();
            next[b] = *ids.entry(key).or_insert(n) as u8;
        }
        count = ids.len();
        classes = next;
    }
    (classes, count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::{determinize, Nfa, State};

    /// A machine reading `text` with a call of `callee` before byte offset `at`.
    pub(super) fn machine(text: &[u8], call: Option<(usize, u32)>) -> Arc<ByteDfa> {
        let mut states = vec![State::Match];
        let mut ranges = Vec::new();
        let mut terminals = Vec::new();
        let mut next = 0u32;
        for i in (0..=text.len()).rev() {
            if let Some((at, callee)) = call.filter(|&(at, _)| at == i) {
                let _ = at;
                terminals.push(TerminalKind::Call(callee));
                states.push(State::Terminal { symbol: 0, next });
                next = states.len() as u32 - 1;
            }
            if i > 0 {
                let b = text[i - 1];
                ranges.push((b, b, next));
                let off = ranges.len() as u32 - 1;
                states.push(State::Bytes { off, len: 1 });
                next = states.len() as u32 - 1;
            }
        }
        let nfa: Nfa = Nfa {
            states,
            ranges,
            targets: Vec::new(),
            start: next,
            terminals: terminals.clone(),
            looks: Vec::new(),
        };
        let raw = determinize(&nfa, 100, 10_000).unwrap();
        Arc::new(ByteDfa::minimal(raw, &terminals))
    }

    #[test]
    fn cycles_and_bad_callees_are_refused() {
        let a = machine(b"ab", Some((1, 1)));
        let b = machine(b"c", Some((0, 0)));
        let err = CallNetwork::new(vec![a.clone(), b], 0).unwrap_err();
        assert!(err.to_string().contains("cycle"), "{err}");
        let err = CallNetwork::new(vec![a], 0).unwrap_err();
        assert!(err.to_string().contains("calls machine 1"), "{err}");
    }

    #[test]
    fn classes_refine_every_machine() {
        let a = machine(b"ab", Some((1, 1)));
        let b = machine(b"c", None);
        let net = CallNetwork::new(vec![a, b], 0).unwrap();
        let c = net.byte_classes();
        assert!(c[b'a' as usize] != c[b'b' as usize] && c[b'b' as usize] != c[b'c' as usize]);
        assert_eq!(c[b'x' as usize], c[b'y' as usize]);
        assert_eq!(net.num_classes(), 4);
        assert!(net.reads_bytes(0, 0) && net.bytes_read()[b'c' as usize]);
    }
}
