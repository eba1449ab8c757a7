//! Merging nodes that behave the same under every stack (Moore-style partition
//! refinement): same acceptance, same classes with the same pushes into equivalent nodes,
//! same pop symbols into equivalent nodes. Distinct dotted rules and pop nodes of
//! different states often have the same future (`T -> "b" •` and `T -> S "b" •`), and
//! pop graphs may come out cyclic. The result is numbered breadth-first from the start,
//! so equal automata give equal parts.

use std::collections::{HashMap, VecDeque};

use super::columns::Edge;

/// A token PDA over classes: per node its acceptance, edges (sorted by class) and pops.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct ClassGraph {
    pub start: u32,
    pub accepting: Vec<bool>,
    pub edges: Vec<Vec<Edge>>,
    /// Per node: `(symbol, node)`, sorted by symbol.
    pub pops: Vec<Vec<(u32, u32)>>,
}

/// Numbers keys by first appearance. Returns the numbers and how many there were.
fn number<K: std::hash::Hash + Eq>(keys: impl Iterator<Item = K>) -> (Vec<u32>, usize) {
    let mut ids: HashMap<K, u32> = HashMap::new();
    let class = keys
        .map(|k| {
            let next = ids.len() as u32;
            *ids.entry(k).or_insert(next)
        })
        .collect();
    (class, ids.len())
}

/// The blocks of equivalent nodes.
fn blocks(g: &ClassGraph) -> (Vec<u32>, usize) {
    let (mut block, mut count) = number(g.accepting.iter());
    loop {
        let keys = (0..g.accepting.len()).map(|n| {
            let edges: Vec<Edge> = g.edges[n]
                .iter()
                .map(|&(c, t, p)| (c, block[t as usize], p))
                .collect();
            let pops: Vec<(u32, u32)> = g.pops[n]
                .iter()
                .map(|&(s, t)| (s, block[t as usize]))
                .collect();
            (block[n], edges, pops)
        });
        let (next, next_count) = number(keys);
        block = next;
        if next_count == count {
            return (block, count);
        }
        count = next_count;
    }
}

/// The minimal equivalent graph, numbered breadth-first from the start (edges in class
/// order, then pops in symbol order).
pub(super) fn minimize(g: &ClassGraph) -> ClassGraph {
    let (block, count) = blocks(g);
    let mut rep = vec![u32::MAX; count];
    for n in (0..g.accepting.len()).rev() {
        rep[block[n] as usize] = n as u32;
    }
    let mut order: Vec<u32> = Vec::with_capacity(count);
    let mut number_of = vec![u32::MAX; count];
    let mut queue = VecDeque::from([block[g.start as usize]]);
    number_of[block[g.start as usize] as usize] = 0;
    while let Some(b) = queue.pop_front() {
        order.push(b);
        let n = rep[b as usize] as usize;
        let targets = g.edges[n]
            .iter()
            .map(|e| e.1)
            .chain(g.pops[n].iter().map(|p| p.1));
        for t in targets {
            let tb = block[t as usize];
            if number_of[tb as usize] == u32::MAX {
                number_of[tb as usize] = (order.len() + queue.len()) as u32;
                queue.push_back(tb);
            }
        }
    }
    let new = |t: u32| number_of[block[t as usize] as usize];
    let mut out = ClassGraph::default();
    for &b in &order {
        let n = rep[b as usize] as usize;
        out.accepting.push(g.accepting[n]);
        out.edges
            .push(g.edges[n].iter().map(|&(c, t, p)| (c, new(t), p)).collect());
        out.pops
            .push(g.pops[n].iter().map(|&(s, t)| (s, new(t))).collect());
    }
    out
}
