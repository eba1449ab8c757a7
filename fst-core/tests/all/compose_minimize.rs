//! Token-level minimization against a naive Moore refinement.
#![cfg(feature = "compile")]

use std::collections::{BTreeMap, HashMap};

use crate::compose_support::{parts_accept, Rng};
use fstc_core::automaton::AutomatonParts;
use fstc_core::minimize::minimize;

fn parts(start: u32, accepting: Vec<bool>, edges: Vec<Vec<(u32, u32)>>) -> AutomatonParts {
    AutomatonParts {
        vocab_size: 1000,
        vocab_fingerprint: 99,
        eos_ids: vec![999],
        start,
        accepting,
        edges,
        terminals: Vec::new(),
    }
}

/// A random partial DFA with unreachable and dead states likely.
fn random_parts(rng: &mut Rng) -> AutomatonParts {
    let n = 1 + rng.below(25);
    let labels = 1 + rng.below(40);
    let density = 5 + rng.below(60);
    let accepting = (0..n).map(|_| rng.chance(30)).collect();
    let mut edges = vec![Vec::new(); n];
    for list in &mut edges {
        for tok in 0..labels as u32 {
            if rng.chance(density) {
                list.push((tok * 7 % 1000, rng.below(n) as u32));
            }
        }
    }
    parts(rng.below(n) as u32, accepting, edges)
}

/// The minimal automaton by Moore rounds over explicit signatures, numbered like
/// `minimize` promises: start 0, breadth-first, edges in token order.
fn moore(p: &AutomatonParts) -> AutomatonParts {
    let n = p.accepting.len();
    // Useful states: reachable and co-reachable.
    let mut reach = vec![false; n];
    let mut stack = vec![p.start];
    reach[p.start as usize] = true;
    while let Some(s) = stack.pop() {
        for &(_, t) in &p.edges[s as usize] {
            if !reach[t as usize] {
                reach[t as usize] = true;
                stack.push(t);
            }
        }
    }
    let mut live: Vec<bool> = (0..n).map(|s| reach[s] && p.accepting[s]).collect();
    loop {
        let mut changed = false;
        for s in 0..n {
            if reach[s] && !live[s] && p.edges[s].iter().any(|&(_, t)| live[t as usize]) {
                live[s] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    if !live[p.start as usize] {
        return parts(0, vec![false], vec![vec![]]);
    }
    let mut class: Vec<usize> = (0..n).map(|s| usize::from(p.accepting[s])).collect();
    loop {
        let mut ids: HashMap<(usize, Vec<(u32, usize)>), usize> = HashMap::new();
        let next: Vec<usize> = (0..n)
            .map(|s| {
                let mut sig: Vec<(u32, usize)> = p.edges[s]
                    .iter()
                    .filter(|&&(_, t)| live[t as usize])
                    .map(|&(tok, t)| (tok, class[t as usize]))
                    .collect();
                sig.sort();
                let len = ids.len();
                *ids.entry((class[s], sig)).or_insert(len)
            })
            .collect();
        let stable = ids.len() == class.iter().collect::<std::collections::HashSet<_>>().len();
        class = next;
        if stable {
            break;
        }
    }
    let mut number: BTreeMap<usize, u32> = BTreeMap::new();
    let mut queue = vec![p.start];
    number.insert(class[p.start as usize], 0);
    let (mut accepting, mut edges) = (Vec::new(), Vec::new());
    let mut head = 0;
    while head < queue.len() {
        let s = queue[head] as usize;
        head += 1;
        accepting.push(p.accepting[s]);
        let mut list: Vec<(u32, u32)> = p.edges[s]
            .iter()
            .filter(|&&(_, t)| live[t as usize])
            .copied()
            .collect();
        list.sort();
        let list = list
            .into_iter()
            .map(|(tok, t)| {
                let len = number.len() as u32;
                let id = *number.entry(class[t as usize]).or_insert_with(|| {
                    queue.push(t);
                    len
                });
                (tok, id)
            })
            .collect();
        edges.push(list);
    }
    parts(0, accepting, edges)
}

#[test]
fn agrees_with_moore_on_random_partial_dfas() {
    let mut rng = Rng::new(7);
    let mut merged = 0;
    for case in 0..2000 {
        let input = random_parts(&mut rng);
        let expected = moore(&input);
        let got = minimize(input.clone());
        assert_eq!(got, expected, "case {case}: {input:?}");
        merged += usize::from(got.accepting.len() < input.accepting.len());
    }
    assert!(merged > 500, "only {merged} cases shrank");
}

#[test]
fn preserves_the_language() {
    let mut rng = Rng::new(8);
    for _ in 0..300 {
        let input = random_parts(&mut rng);
        let out = minimize(input.clone());
        let labels: Vec<u32> = input.edges.iter().flatten().map(|&(t, _)| t).collect();
        if labels.is_empty() {
            continue;
        }
        for _ in 0..200 {
            let len = rng.below(6);
            let seq: Vec<u32> = (0..len).map(|_| labels[rng.below(labels.len())]).collect();
            assert_eq!(
                parts_accept(&input, &seq),
                parts_accept(&out, &seq),
                "{seq:?}"
            );
        }
    }
}

#[test]
fn is_idempotent_and_ignores_state_order() {
    let mut rng = Rng::new(9);
    for _ in 0..300 {
        let input = random_parts(&mut rng);
        let once = minimize(input.clone());
        assert_eq!(minimize(once.clone()), once);
        // Reverse the state numbering and shuffle edge order: same canonical result.
        let n = input.accepting.len() as u32;
        let flip = |s: u32| n - 1 - s;
        let mut accepting = input.accepting.clone();
        accepting.reverse();
        let edges: Vec<Vec<(u32, u32)>> = input
            .edges
            .iter()
            .rev()
            .map(|l| l.iter().rev().map(|&(tok, t)| (tok, flip(t))).collect())
            .collect();
        let permuted = parts(flip(input.start), accepting, edges);
        assert_eq!(minimize(permuted), once);
    }
}

#[test]
fn merges_a_chain_of_equivalent_branches() {
    // Two copies of "x y*" hanging off the start by different tokens collapse to one.
    let input = parts(
        0,
        vec![false, true, true, false],
        vec![
            vec![(1, 1), (2, 2), (3, 3)],
            vec![(5, 1)],
            vec![(5, 2)],
            vec![(9, 3)],
        ],
    );
    let out = minimize(input);
    assert_eq!(out.accepting, [false, true]);
    assert_eq!(out.edges, [vec![(1, 1), (2, 1)], vec![(5, 1)]]);
    assert_eq!(out.eos_ids, [999]);
    assert_eq!((out.vocab_size, out.vocab_fingerprint), (1000, 99));
}

#[test]
fn long_chain_and_wide_alphabet() {
    // Two identical chains of 5000 states with 200 parallel tokens per step: Moore
    // rounds would need 5000 passes; the chains must merge into one and no two states
    // of a chain may merge.
    let len = 5000u32;
    let wide = 200u32;
    let mut edges: Vec<Vec<(u32, u32)>> = Vec::new();
    let mut accepting = Vec::new();
    // Start 0 branches into two identical chains: 1..=len and len+1..=2len.
    edges.push(vec![(0, 1), (1, len + 1)]);
    accepting.push(false);
    for copy in 0..2 {
        for i in 0..len {
            let s = 1 + copy * len + i;
            let next = if i + 1 < len { vec![s + 1] } else { vec![] };
            edges.push(
                next.iter()
                    .flat_map(|&t| (0..wide).map(move |tok| (tok, t)))
                    .collect(),
            );
            accepting.push(i + 1 == len);
        }
    }
    let out = minimize(parts(0, accepting, edges));
    assert_eq!(out.accepting.len() as u32, len + 1);
    assert_eq!(out.edges[0], [(0, 1), (1, 1)]);
    assert_eq!(
        out.edges.iter().map(Vec::len).sum::<usize>() as u32,
        2 + (len - 1) * wide
    );
}
