//! Call networks made of other call networks: a front end that composes languages (a
//! structural tag's tools, each a JSON Schema's network) adds each part's network here,
//! gets the number its root machine has in the whole, and writes calls of it in machines
//! of its own.
//!
//! Machines are hash-consed: a machine equal to one added before (after its calls are
//! renumbered) is that machine, so parts that share sub-languages (the same string body,
//! the same nested object in many tools) share machines, and the lazy walk's per-machine
//! caches with them.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use super::{CallNetwork, CallNetworkError};
use crate::bytes::{ByteDfa, TerminalKind};
use crate::fast_hash::{FastHasher, FastMap};

/// Gathers machines from several networks and new ones; see the module documentation.
#[derive(Debug, Default)]
pub struct NetworkBuilder {
    machines: Vec<Arc<ByteDfa>>,
    /// By content hash: the machines with that hash.
    by_hash: FastMap<u64, Vec<u32>>,
    /// By address: machines added as they were given (a leaf shared between networks is
    /// found without hashing its table).
    by_address: FastMap<usize, u32>,
}

impl NetworkBuilder {
    /// An empty builder.
    pub fn new() -> NetworkBuilder {
        NetworkBuilder::default()
    }

    /// Number of machines so far.
    pub fn num_machines(&self) -> usize {
        self.machines.len()
    }

    /// Adds the machines of `network` reachable from its root, each call renumbered to
    /// the callee's number here; returns the number of its root here.
    pub fn add_network(&mut self, network: &CallNetwork) -> u32 {
        let mut number: Vec<Option<u32>> = vec![None; network.num_machines()];
        for m in callees_first(network) {
            let machine = &network.machines[m as usize];
            let renumbered = if machine.terminals().is_empty() {
                Arc::clone(machine)
            } else {
                let terminals = (0..machine.terminals().len())
                    .map(|k| {
                        let callee = network.callee(m, k) as usize;
                        TerminalKind::Call(number[callee].expect("callees are added first"))
                    })
                    .collect();
                Arc::new(ByteDfa {
                    terminals,
                    ..ByteDfa::clone(machine)
                })
            };
            number[m as usize] = Some(self.intern(renumbered));
        }
        number[network.root() as usize].expect("the root is reachable from itself")
    }

    /// Adds `machine`, whose calls must use this builder's numbers (checked by
    /// [`finish`](Self::finish)); returns its number.
    pub fn add_machine(&mut self, machine: Arc<ByteDfa>) -> u32 {
        self.intern(machine)
    }

    /// The network of the machines added, whose language is machine `root`'s; fails as
    /// [`CallNetwork::new`] does.
    pub fn finish(self, root: u32) -> Result<CallNetwork, CallNetworkError> {
        CallNetwork::new(self.machines, root)
    }

    /// The number of a machine equal to `machine`, adding it if there is none.
    fn intern(&mut self, machine: Arc<ByteDfa>) -> u32 {
        // The address is stable and unique while `machines` holds the Arc.
        let address = Arc::as_ptr(&machine) as usize;
        if let Some(&m) = self.by_address.get(&address) {
            return m;
        }
        let m = self.intern_content(machine);
        self.by_address
            .insert(Arc::as_ptr(&self.machines[m as usize]) as usize, m);
        m
    }

    fn intern_content(&mut self, machine: Arc<ByteDfa>) -> u32 {
        let hash = content_hash(&machine);
        let same = self.by_hash.entry(hash).or_default();
        if let Some(&m) = same
            .iter()
            .find(|&&m| *self.machines[m as usize] == *machine)
        {
            return m;
        }
        let m = self.machines.len() as u32;
        same.push(m);
        self.machines.push(machine);
        m
    }
}

fn content_hash(dfa: &ByteDfa) -> u64 {
    let mut h = FastHasher::default();
    dfa.classes.hash(&mut h);
    dfa.table.hash(&mut h);
    dfa.accepting.hash(&mut h);
    dfa.terminals.hash(&mut h);
    dfa.terminal_table.hash(&mut h);
    h.finish()
}

/// The machines reachable from the root, each after every machine it calls (an
/// iterative post-order: the networks are acyclic, and deep ones must not recurse).
fn callees_first(network: &CallNetwork) -> Vec<u32> {
    let mut order = Vec::new();
    let mut seen = vec![false; network.num_machines()];
    let mut stack = vec![(network.root(), 0usize)];
    seen[network.root() as usize] = true;
    while let Some((m, k)) = stack.pop() {
        let calls = network.machine(m).terminals().len();
        if k == calls {
            order.push(m);
            continue;
        }
        stack.push((m, k + 1));
        let c = network.callee(m, k);
        if !std::mem::replace(&mut seen[c as usize], true) {
            stack.push((c, 0));
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::super::tests::machine;
    use super::*;

    /// Two networks calling equal leaves share one machine; the combined network's
    /// calls point at the renumbered callees.
    #[test]
    fn networks_combine_and_share_equal_machines() {
        let leaf = machine(b"x", None);
        let first = CallNetwork::new(vec![leaf.clone(), machine(b"ab", Some((1, 0)))], 1).unwrap();
        let second = CallNetwork::new(vec![machine(b"c", Some((0, 1))), leaf], 0).unwrap();
        let mut b = NetworkBuilder::new();
        let r1 = b.add_network(&first);
        let r2 = b.add_network(&second);
        assert_eq!(b.num_machines(), 3, "the leaf `x` is added once");
        assert_eq!(b.add_network(&first), r1, "equal machines are one");
        let r = b.add_machine(machine(b"-", Some((0, r1))));
        let net = b.finish(r).unwrap();
        assert_eq!(net.callee(r, 0), r1);
        assert_eq!(net.callee(r1, 0), net.callee(r2, 0));
    }

    #[test]
    fn a_call_of_a_machine_not_added_is_refused() {
        let mut b = NetworkBuilder::new();
        let r = b.add_machine(machine(b"a", Some((1, 7))));
        let err = b.finish(r).unwrap_err();
        assert!(err.to_string().contains("calls machine 7"), "{err}");
    }
}
