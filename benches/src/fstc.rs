//! fstc behind the harness's [`Constraint`] interface, through its decoding interface
//! ([`fstc_core::matcher::Matcher`]): one code path for a token FSA's walker and a token PDA's.

use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use fstc_core::automaton::TokenAutomaton;
use fstc_regex::{CompileStats, RegexCompiler};
use fstc_core::vocab::VocabTrie;
use fstc_core::matcher::Matcher;

use crate::vocab::LoadedVocab;
use crate::walk::Constraint;

/// fstc's per-vocabulary setup: the vocabulary trie every compile shares, and its time.
pub fn vocab_trie(vocab: &LoadedVocab) -> (VocabTrie, Duration) {
    let started = Instant::now();
    let trie = VocabTrie::new(&vocab.detok);
    (trie, started.elapsed())
}

/// Compiles `pattern` with the vocabulary trie built once per vocabulary (the setup that
/// matches the peers' per-vocabulary setup): the wall time and fstc's own stage timings.
pub fn compile(
    pattern: &str,
    trie: &VocabTrie,
) -> Result<(TokenAutomaton, Duration, CompileStats)> {
    let started = Instant::now();
    let (automaton, stats) = RegexCompiler::new()
        .compile_with_trie(pattern, trie)
        .map_err(|e| anyhow!("fstc cannot compile {pattern:?}: {e}"))?;
    Ok((automaton, started.elapsed(), stats))
}

/// The size of the automaton's file.
pub fn artifact_bytes(automaton: &TokenAutomaton) -> usize {
    automaton.to_bytes().len()
}

/// Any fstc matcher (a `Walker`, a `PdaWalker`, ...) walked as a decoder walks it.
pub struct Fstc<M>(pub M);

impl<M: Matcher> Constraint for Fstc<M> {
    fn fill_mask(&mut self, mask: &mut [u32]) -> Result<()> {
        self.0
            .fill_mask(mask)
            .map_err(|e| anyhow!("fstc fill_mask: {e}"))
    }

    fn consume(&mut self, token: u32) -> Result<()> {
        self.0
            .consume(token)
            .map_err(|e| anyhow!("fstc: token {token}: {e}"))
    }

    fn restart(&mut self) -> Result<()> {
        self.0.reset();
        Ok(())
    }
}
