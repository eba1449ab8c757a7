//! Composition of a byte PDA with a vocabulary into a token PDA (the paper's Figure 7) in
//! the form fstc-core lays out and walks: [`PdaParts`].
//!
//! The stages, one file each: the byte PDA as tables and one byte of a token's run with a
//! symbolic stack (`steps`); the walk over fstc-core's `VocabTrie` from every state reached
//! at a token boundary and every state a token returns to below its own pushes, whose
//! nodes are the sets of ways a token may go on after the symbols popped (`walk`); token classes, tokens whose edges agree at every node, and the merging of
//! equivalent nodes, after which classes that became equal are merged again (`classes`,
//! by fstc-core's grouping routine and minimizer).
//!
//! A decoder reads a node's tokens that pop nothing from its own edges, and those that pop
//! from the nodes its pop edges lead to for the symbols on top of the stack: a mask is the
//! OR of the class masks along that chain.

mod classes;
mod explore;
mod steps;
mod walk;

use fstc_core::vocab::VocabTrie;

use crate::budget::Budget;
use crate::byte_pda::Pda;
use crate::config::Config;
use crate::error::{PdaError, PdaErrorKind};
use classes::{group, group_sets, merge_nodes, ClassGraph};
use fstc_core::parts::{PdaEdge, PdaParts, NO_CLASS};

/// The token PDA of `pda` over the vocabulary of `trie` (see the module documentation),
/// within `budget`.
pub(crate) fn compose(
    pda: &Pda,
    trie: &VocabTrie,
    config: &Config,
    budget: &Budget,
) -> Result<PdaParts, PdaError> {
    let vocab_size = u32::try_from(trie.vocab_size()).map_err(|_| {
        PdaError::new(
            PdaErrorKind::TokenPdaLimit,
            format!(
                "the vocabulary has {} ids, more than a u32 can number",
                trie.vocab_size()
            ),
        )
    })?;
    let tables = steps::Steps::bytes(pda);
    budget.charge(tables, || {
        "laying out the byte PDA's lookup tables".to_string()
    })?;
    let steps = steps::Steps::new(pda);
    let graph = walk::walk(
        &steps,
        trie,
        pda.start(),
        pda.num_states(),
        (config, budget),
    )?;
    let place = |phase: &'static str| move || format!("{phase} (after walking the vocabulary)");
    let grouping_tokens = place("grouping the tokens into classes");
    budget.charge(graph.bytes(), grouping_tokens)?;
    // A nondeterministic PDA's node may have several edges per token: grouped by their set.
    let grouping = if pda.is_deterministic() {
        group
    } else {
        group_sets
    };
    let (class_of_token, token_classes, edges) =
        grouping(trie.vocab_size(), &graph.edges, budget, &grouping_tokens)?;
    let mut pops = graph.pops;
    pops.iter_mut().for_each(|p| p.sort_unstable());
    let minimal = merge_nodes(
        &ClassGraph {
            start: 0,
            accepting: graph.accepting,
            edges,
            pops,
        },
        budget,
    )?;
    // Classes whose edges only differed between nodes now merged.
    let (class_of_class, num_classes, edges) = grouping(
        token_classes as usize,
        &minimal.edges,
        budget,
        &place("grouping the classes of the merged nodes"),
    )?;
    let class_of_token = class_of_token
        .iter()
        .map(|&c| class_of_class.get(c as usize).copied().unwrap_or(NO_CLASS))
        .collect();
    let (edges, push_seqs) = renumber_pushes(edges, &graph.push_seqs);
    if !pda.is_deterministic() {
        check_config_limit(&edges, &push_seqs, config)?;
    }
    Ok(PdaParts {
        vocab_size,
        vocab_fingerprint: trie.fingerprint(),
        eos_ids: trie.eos_ids().to_vec(),
        num_stack_symbols: pda.num_stack_symbols() as u32 - 1,
        start: 0,
        accepting: minimal.accepting,
        num_classes,
        class_of_token,
        edges,
        pops: minimal.pops,
        push_seqs,
        nondeterministic: !pda.is_deterministic(),
    })
}

/// The compile-time half of the configuration limit: from one configuration, a token of a
/// class leads to a configuration per distinct (target, top symbol) among the class's edges
/// at the node (the walker merges the rest), whatever the stack. More than the limit is
/// certain to be refused at decode time, so it is refused here.
fn check_config_limit(
    edges: &[Vec<PdaEdge>],
    push_seqs: &[Vec<u32>],
    config: &Config,
) -> Result<(), PdaError> {
    let limit = config.get_config_limit();
    for (node, list) in edges.iter().enumerate() {
        for run in list.chunk_by(|a, b| a.class == b.class) {
            let mut tops: Vec<(u32, Option<u32>)> = run
                .iter()
                .map(|e| (e.target, push_seqs[e.push as usize].last().copied()))
                .collect();
            tops.sort_unstable();
            tops.dedup();
            if tops.len() > limit {
                return Err(PdaError::new(
                    PdaErrorKind::TokenPdaLimit,
                    format!(
                        "a token of class {} at node {node} leads to {} configurations from one, more than the limit `config_limit` ({limit}); raise it or make the grammar less ambiguous",
                        run[0].class,
                        tops.len()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The edges with push sequences numbered by first use (0 stays empty), and only the
/// sequences used; each node's edges sorted by class, target and push. Edges of one class
/// and target (a nondeterministic PDA) are visited by their sequences, so the numbering
/// does not depend on the order the composition met them in.
fn renumber_pushes(
    edges: Vec<Vec<classes::Edge>>,
    seqs: &[Vec<u32>],
) -> (Vec<Vec<PdaEdge>>, Vec<Vec<u32>>) {
    let mut new = vec![u32::MAX; seqs.len()];
    new[0] = 0;
    let mut used = vec![Vec::new()];
    let edges = edges
        .into_iter()
        .map(|mut list| {
            list.sort_by(|a, b| {
                (a.0, a.1 .0, &seqs[a.1 .1 as usize]).cmp(&(b.0, b.1 .0, &seqs[b.1 .1 as usize]))
            });
            list.into_iter()
                .map(|(class, (target, push))| {
                    if new[push as usize] == u32::MAX {
                        new[push as usize] = used.len() as u32;
                        used.push(seqs[push as usize].clone());
                    }
                    PdaEdge {
                        class,
                        target,
                        push: new[push as usize],
                    }
                })
                .collect::<Vec<PdaEdge>>()
        })
        .map(|mut list: Vec<PdaEdge>| {
            list.sort_unstable();
            list
        })
        .collect();
    (edges, used)
}
