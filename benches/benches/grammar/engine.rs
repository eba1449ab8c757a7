//! fstc on a grammar: GBNF text, or a structural tag with a `grammar` piece → token PDA (the
//! file `fstc compile grammar` or `fstc compile structural-tag` writes), walked by a
//! `PdaWalker` (a `GlrWalker` for a nondeterministic PDA) through the harness's
//! `Fstc<M: Matcher>`.

use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use fstc_core::glr_walker::GlrWalker;
use fstc_core::pda_walker::PdaWalker;
use fstc_core::token_pda::TokenPda;
use fstc_core::vocab::VocabTrie;
use fstc_pda::GrammarCompiler;
use fstc_tags::{StructuralTag, StructuralTagCompiler};

use fstc_benches::walk::Event;

use crate::samples::Source;

/// A compiled grammar and what the table says about it.
pub struct Compiled {
    /// The token PDA.
    pub pda: TokenPda,
    /// Grammar text to the file's words: composition plus layout.
    pub time: Duration,
    /// The file's size.
    pub bytes: usize,
    /// Nodes, edges, classes and stack symbols, for the note column.
    pub shape: String,
}

/// Compiles `text` (of `source`'s kind) over the vocabulary trie built once per vocabulary
/// (the peers' own per-vocabulary setup is not timed either) and lays it out as the file
/// decoders load. A structural tag's time includes reading its JSON.
pub fn compile(source: Source, text: &str, trie: &VocabTrie) -> Result<Compiled> {
    let started = Instant::now();
    let tpda = match source {
        Source::Gbnf(_) => {
            GrammarCompiler::new()
                .compile_with_trie(text, trie)
                .map_err(|e| anyhow!("fstc cannot compile the grammar: {e}"))?
                .automaton
        }
        Source::StructuralTag(_) => {
            let tag = StructuralTag::from_json(text)
                .map_err(|e| anyhow!("fstc cannot read the structural tag: {e}"))?;
            StructuralTagCompiler::new()
                .compile_pda_with_trie(&tag, trie)
                .map_err(|e| anyhow!("fstc cannot compile the structural tag: {e}"))?
                .automaton
        }
    };
    let time = started.elapsed();
    let pop_edges: usize = (0..tpda.num_nodes()).map(|n| tpda.pops(n).count()).sum();
    let shape = format!(
        "{} nodes, {} token edges, {pop_edges} pop edges, {} classes, {} stack symbols",
        tpda.num_nodes(),
        tpda.num_edges(),
        tpda.num_classes(),
        tpda.num_stack_symbols()
    );
    let bytes = tpda.to_bytes().len();
    Ok(Compiled {
        pda: tpda,
        time,
        bytes,
        shape,
    })
}

/// The deepest stack fstc's walker holds along `events` (untimed; shows that the walks
/// push as deep as the texts nest, less the tail calls that push nothing).
pub fn max_stack_depth(tpda: &TokenPda, events: &[Event]) -> usize {
    let mut walker = PdaWalker::new(tpda);
    let mut max = 0;
    for event in events {
        match *event {
            Event::Consume(t) => {
                if walker.consume(t).is_err() {
                    return max;
                }
                max = max.max(walker.stack().len());
            }
            Event::Restart => walker.reset(),
            Event::Mask => {}
        }
    }
    max
}

/// A nondeterministic PDA's live configurations and chain points per step along `events`
/// (untimed): p50 and max of each, the work of its walker's steps.
pub fn configurations(tpda: &TokenPda, events: &[Event]) -> String {
    let mut walker = GlrWalker::new(tpda);
    let (mut configs, mut points) = (Vec::new(), Vec::new());
    for event in events {
        match *event {
            Event::Consume(t) => {
                if walker.consume(t).is_err() {
                    break;
                }
            }
            Event::Restart => walker.reset(),
            Event::Mask => {
                configs.push(walker.num_configurations());
                points.push(walker.num_chain_points());
            }
        }
    }
    let p50_max = |v: &mut Vec<usize>| {
        v.sort_unstable();
        (
            v.get(v.len() / 2).copied().unwrap_or(0),
            v.last().copied().unwrap_or(0),
        )
    };
    let (c50, cmax) = p50_max(&mut configs);
    let (p50, pmax) = p50_max(&mut points);
    format!(
        "live configurations per step p50 {c50}, max {cmax}; chain points p50 {p50}, max {pmax}"
    )
}
