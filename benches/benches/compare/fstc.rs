//! fstc behind the harness's `Constraint` interface.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use fst_core::automaton::TokenAutomaton;
use fst_core::compiler::RegexCompiler;
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

/// Compiles `pattern` for `vocab` the way `fstc compile` does.
pub fn compile(pattern: &str, vocab: &detok::Vocabulary) -> Result<(TokenAutomaton, Duration)> {
    let started = Instant::now();
    let automaton = RegexCompiler::new()
        .compile(pattern, vocab)
        .map_err(|e| anyhow!("fstc cannot compile {pattern:?}: {e}"))?;
    Ok((automaton, started.elapsed()))
}

/// Where an fstc compile spends its time: (vocabulary trie, byte DFA, byte-DFA states,
/// composition + minimization, layout), from a second compile with the stages timed apart.
pub fn stages(
    pattern: &str,
    vocab: &detok::Vocabulary,
) -> Result<(Duration, Duration, usize, Duration, Duration)> {
    let started = Instant::now();
    let trie = VocabTrie::new(vocab);
    let trie_time = started.elapsed();
    let (_, stats) = RegexCompiler::new()
        .compile_with_trie(pattern, &trie)
        .map_err(|e| anyhow!("fstc cannot compile {pattern:?}: {e}"))?;
    Ok((
        trie_time,
        stats.byte_dfa_time,
        stats.byte_dfa_states,
        stats.compose_time,
        stats.layout_time,
    ))
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
