//! The peers behind the harness's [`Constraint`] interface: outlines-core and llguidance.
//!
//! Each is compiled once per (constraint, vocabulary) from the same token bytes fstc gets,
//! then walked as a decoder walks it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use llguidance::api::TopLevelGrammar;
use llguidance::{Matcher, ParserFactory};
use outlines_core::prelude::{Index, Vocabulary};
use toktrie::{ApproximateTokEnv, TokEnv, TokRxInfo, TokTrie};

use crate::vocab::LoadedVocab;
use crate::walk::Constraint;

/// Sets bit `t` of `mask`.
#[inline]
fn set_bit(mask: &mut [u32], t: u32) {
    if let Some(w) = mask.get_mut((t / 32) as usize) {
        *w |= 1 << (t % 32);
    }
}

/// outlines-core's vocabulary: every text token by its bytes, plus one EOS id; and the
/// time to build it (per-vocabulary setup).
pub fn outlines_vocabulary(vocab: &LoadedVocab) -> Result<(Vocabulary, Duration)> {
    let started = Instant::now();
    let eos = vocab.eos_ids[0];
    let mut v = Vocabulary::new(eos);
    for (id, bytes) in vocab.tokens.iter().enumerate() {
        if let Some(bytes) = bytes {
            if id as u32 != eos {
                v.try_insert(bytes.clone(), id as u32)
                    .map_err(|e| anyhow!("outlines-core rejects token {id}: {e}"))?;
            }
        }
    }
    Ok((v, started.elapsed()))
}

/// An outlines-core index and the current state.
pub struct Outlines {
    pub index: Index,
    state: u32,
}

impl Outlines {
    /// Builds the index (the timed part is `Index::new`).
    pub fn compile(pattern: &str, vocabulary: &Vocabulary) -> Result<(Outlines, Duration)> {
        let started = Instant::now();
        let index = Index::new(pattern, vocabulary)
            .map_err(|e| anyhow!("outlines-core cannot index {pattern:?}: {e}"))?;
        let elapsed = started.elapsed();
        let state = index.initial_state();
        Ok((Outlines { index, state }, elapsed))
    }

    /// States with transitions, and transitions (its EOS self-loops included).
    pub fn shape(&self) -> (usize, usize) {
        let t = self.index.transitions();
        (t.len(), t.values().map(|m| m.len()).sum())
    }

    /// Size of the index serialized with bincode (its own `Encode` derive).
    pub fn artifact_bytes(&self) -> Result<usize> {
        let bytes = bincode::encode_to_vec(&self.index, bincode::config::standard())
            .context("bincode cannot encode the outlines-core index")?;
        Ok(bytes.len())
    }
}

impl Constraint for Outlines {
    fn fill_mask(&mut self, mask: &mut [u32]) -> Result<()> {
        mask.fill(0);
        // `allowed_tokens_iter` is `allowed_tokens` without the Vec it allocates.
        if let Some(tokens) = self.index.allowed_tokens_iter(&self.state) {
            for &t in tokens {
                set_bit(mask, t);
            }
        }
        Ok(())
    }

    fn consume(&mut self, token: u32) -> Result<()> {
        self.state = self
            .index
            .next_state(&self.state, &token)
            .ok_or_else(|| anyhow!("outlines-core: token {token} not allowed"))?;
        Ok(())
    }

    fn restart(&mut self) -> Result<()> {
        self.state = self.index.initial_state();
        Ok(())
    }
}

/// llguidance's token environment over the given bytes: its own trie, one EOS id.
/// Special tokens get a `0xFF<...>` name, the marker llguidance uses for them.
pub fn llguidance_factory(vocab: &LoadedVocab) -> Result<(ParserFactory, Duration)> {
    let words: Vec<Vec<u8>> = vocab
        .tokens
        .iter()
        .enumerate()
        .map(|(id, t)| match t {
            Some(bytes) => bytes.clone(),
            None => {
                let mut w = vec![TokTrie::SPECIAL_TOKEN_MARKER];
                w.extend_from_slice(format!("<|special_{id}|>").as_bytes());
                w
            }
        })
        .collect();
    let started = Instant::now();
    let info = TokRxInfo::new(words.len() as u32, vocab.eos_ids[0]);
    let trie = TokTrie::from(&info, &words);
    let env: TokEnv = Arc::new(ApproximateTokEnv::new(trie));
    let mut factory = ParserFactory::new_simple(&env)?;
    factory.quiet();
    Ok((factory, started.elapsed()))
}

/// An llguidance matcher for one regex.
pub struct Llguidance {
    matcher: Matcher,
    /// A copy taken before any step, to restart from when a step put the matcher in its
    /// (sticky) error state.
    pristine: Matcher,
}

impl Llguidance {
    /// Creates the parser. llguidance compiles lazily: this builds the grammar and the
    /// lexer's start; lexer states are built by the first masks that need them.
    pub fn compile(pattern: &str, factory: &ParserFactory) -> Result<(Llguidance, Duration)> {
        Llguidance::compile_grammar(TopLevelGrammar::from_regex(pattern), pattern, factory)
    }

    /// [`compile`](Self::compile) for any grammar (a JSON schema); `what` names it in errors.
    pub fn compile_grammar(
        grammar: TopLevelGrammar,
        what: &str,
        factory: &ParserFactory,
    ) -> Result<(Llguidance, Duration)> {
        let started = Instant::now();
        let parser = factory
            .create_parser(grammar)
            .map_err(|e| anyhow!("llguidance cannot compile {what:?}: {e}"))?;
        let matcher = Matcher::new(Ok(parser));
        let elapsed = started.elapsed();
        if let Some(e) = matcher.get_error() {
            return Err(anyhow!("llguidance cannot compile {what:?}: {e}"));
        }
        let pristine = matcher.deep_clone();
        Ok((Llguidance { matcher, pristine }, elapsed))
    }
}

impl Constraint for Llguidance {
    fn fill_mask(&mut self, mask: &mut [u32]) -> Result<()> {
        let vob = self
            .matcher
            .compute_mask_or_eos()
            .map_err(|e| anyhow!("llguidance compute_mask: {e}"))?;
        let words = vob.as_slice();
        let n = words.len().min(mask.len());
        mask[..n].copy_from_slice(&words[..n]);
        mask[n..].fill(0);
        Ok(())
    }

    fn consume(&mut self, token: u32) -> Result<()> {
        self.matcher
            .consume_token(token)
            .map_err(|e| anyhow!("llguidance: token {token}: {e}"))
    }

    fn restart(&mut self) -> Result<()> {
        if self.matcher.is_error() {
            self.matcher = self.pristine.deep_clone();
            return Ok(());
        }
        self.matcher
            .reset()
            .map_err(|e| anyhow!("llguidance reset: {e}"))
    }
}
