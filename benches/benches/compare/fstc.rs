//! fstc behind the harness's `Constraint` interface.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use fst_core::automaton::TokenAutomaton;
use fst_core::compiler::{CompileStats, RegexCompiler};
use fst_core::compose::VocabTrie;
use fst_core::walker::Walker;
use fst_core::TokenVocabulary;

use crate::peers::Constraint;

/// The fstc vocabulary of the tokenizer in `dir`.
pub fn load_detok(dir: &Path) -> Result<detok::Vocabulary> {
    let file = if dir.join("tokenizer.json").is_file() {
        dir.join("tokenizer.json")
    } else {
        dir.join("encoder.json")
    };
    detok::Vocabulary::from_file(&file)
        .map_err(|e| anyhow!("detok cannot load {}: {e}", file.display()))
}

/// Bytes per id and EOS ids as fstc sees them: the bytes every engine is given.
pub fn detok_tokens(v: &detok::Vocabulary) -> (Vec<Option<Vec<u8>>>, Vec<u32>) {
    let tokens = (0..v.len() as u32)
        .map(|id| v.token_bytes(id).map(<[u8]>::to_vec))
        .collect();
    (tokens, v.eos_ids().to_vec())
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

/// A walker over a compiled automaton.
pub struct Fstc<'a> {
    walker: Walker<'a>,
}

impl<'a> Fstc<'a> {
    /// A walker at the start state.
    pub fn new(automaton: &'a TokenAutomaton) -> Fstc<'a> {
        Fstc {
            walker: Walker::new(automaton),
        }
    }
}

impl Constraint for Fstc<'_> {
    fn fill_mask(&mut self, mask: &mut [u32]) -> Result<()> {
        self.walker
            .fill_mask(mask)
            .map_err(|e| anyhow!("fstc fill_mask: {e}"))
    }

    fn consume(&mut self, token: u32) -> Result<()> {
        self.walker
            .consume(token)
            .map_err(|e| anyhow!("fstc: token {token}: {e}"))
    }

    fn restart(&mut self) -> Result<()> {
        self.walker.reset();
        Ok(())
    }
}
