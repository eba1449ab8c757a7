//! The GLR walker on random nondeterministic token PDAs whose nodes have many results per
//! class (pushes laid as DAGs from eight results up), against the definition walked with
//! explicit stacks: every configuration `(node, stack)` kept apart, its pop chain followed
//! stack by stack. Masks, EOS and refusals agree at every step of random walks.

use std::collections::BTreeSet;

use fstc_core::glr_walker::GlrWalker;
use fstc_core::parts::{PdaEdge, PdaParts};
use fstc_core::sample::SplitMix64;
use fstc_core::token_pda::TokenPda;

const NODES: u32 = 4;
const TOKENS: u32 = 5;
const SYMBOLS: u32 = 3;

/// A random PDA: each class at each node has up to 16 results, pushing up to 3 symbols,
/// many with the same target and top symbol; each node pops some symbols.
fn random_parts(rng: &mut SplitMix64) -> PdaParts {
    let mut push_seqs: Vec<Vec<u32>> = vec![Vec::new()];
    let mut seq_index = |seq: Vec<u32>| match push_seqs.iter().position(|s| *s == seq) {
        Some(i) => i as u32,
        None => {
            push_seqs.push(seq);
            push_seqs.len() as u32 - 1
        }
    };
    let mut edges = Vec::new();
    for _ in 0..NODES {
        let mut list = Vec::new();
        for class in 0..TOKENS {
            let results = [0, 1, 3, 9, 16][rng.index(5)];
            for _ in 0..results {
                let len = rng.index(4);
                let seq = (0..len)
                    .map(|_| rng.index(SYMBOLS as usize) as u32)
                    .collect();
                list.push(PdaEdge {
                    class,
                    target: rng.index(NODES as usize) as u32,
                    push: seq_index(seq),
                });
            }
        }
        list.sort_unstable();
        list.dedup();
        edges.push(list);
    }
    let mut pops = vec![Vec::new(); NODES as usize];
    for list in &mut pops {
        for s in 0..SYMBOLS {
            if rng.index(3) > 0 {
                list.push((s, rng.index(NODES as usize) as u32));
            }
        }
    }
    PdaParts {
        vocab_size: TOKENS + 1,
        vocab_fingerprint: 1,
        eos_ids: vec![TOKENS],
        num_stack_symbols: SYMBOLS,
        start: 0,
        accepting: (0..NODES).map(|n| n % 2 == 0).collect(),
        num_classes: TOKENS,
        class_of_token: (0..TOKENS).chain([u32::MAX]).collect(),
        edges,
        pops,
        push_seqs,
        nondeterministic: true,
    }
}

type Configs = BTreeSet<(u32, Vec<u32>)>;

/// Every configuration and the configurations its pops lead to.
fn chain_points(pda: &TokenPda, configs: &Configs) -> Configs {
    let mut out = configs.clone();
    let mut work: Vec<(u32, Vec<u32>)> = configs.iter().cloned().collect();
    while let Some((node, mut stack)) = work.pop() {
        let Some(&top) = stack.last() else { continue };
        if let Some(next) = pda.pop_target(node, top) {
            stack.pop();
            if out.insert((next, stack.clone())) {
                work.push((next, stack));
            }
        }
    }
    out
}

/// The allowed tokens (EOS last) at `configs`.
fn allowed(pda: &TokenPda, configs: &Configs) -> Vec<bool> {
    let points = chain_points(pda, configs);
    let mut out: Vec<bool> = (0..TOKENS)
        .map(|t| {
            pda.token_class(t).is_some_and(|class| {
                (points.iter()).any(|(n, _)| pda.edges(*n).any(|(c, _, _)| c == class))
            })
        })
        .collect();
    out.push(
        points
            .iter()
            .any(|(n, s)| s.is_empty() && pda.is_accepting(*n)),
    );
    out
}

fn consume(pda: &TokenPda, configs: &Configs, token: u32) -> Configs {
    let class = pda.token_class(token).expect("a text token");
    let mut out = Configs::new();
    for (node, stack) in chain_points(pda, configs) {
        for (c, target, push) in pda.edges(node) {
            if c == class {
                let mut next = stack.clone();
                next.extend_from_slice(pda.push_seq(push));
                out.insert((target, next));
            }
        }
    }
    out
}

#[test]
fn many_results_per_class_walk_as_with_explicit_stacks() {
    let mut rng = SplitMix64::new(22);
    let (mut many, mut steps) = (0, 0);
    for _ in 0..300 {
        let parts = random_parts(&mut rng);
        let most = (parts.edges.iter())
            .flat_map(|l| l.chunk_by(|a, b| a.class == b.class).map(|r| r.len()))
            .max()
            .unwrap_or(0);
        many += usize::from(most >= 8);
        let pda = TokenPda::from_parts(parts).unwrap();
        let mut w = GlrWalker::new(&pda);
        let mut configs: Configs = [(0, Vec::new())].into();
        let mut mask = vec![0u32; 1];
        for _ in 0..5 {
            let expected = allowed(&pda, &configs);
            w.fill_mask(&mut mask).unwrap();
            let got: Vec<bool> = (0..=TOKENS).map(|t| mask[0] >> t & 1 == 1).collect();
            assert_eq!(got, expected, "masks differ at {configs:?}");
            for t in 0..TOKENS {
                assert_eq!(w.is_allowed(t), expected[t as usize]);
            }
            let open: Vec<u32> = (0..TOKENS).filter(|&t| expected[t as usize]).collect();
            if open.is_empty() {
                break;
            }
            let t = open[rng.index(open.len())];
            w.consume(t).unwrap();
            configs = consume(&pda, &configs, t);
            steps += 1;
        }
    }
    assert!(
        many >= 200,
        "PDAs with 8 results of a class at a node: {many}"
    );
    assert!(steps >= 600, "steps walked: {steps}");
}
