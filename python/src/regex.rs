//! `compile_regex`: a regex into a `TokenAutomaton` (or, lazily, a `LazyAutomaton`).

use fstc_core::any::AnyAutomaton;
use fstc_regex::RegexCompiler;
use pyo3::prelude::*;

use crate::automaton::TokenAutomaton;
use crate::errors::fstc_error;
use crate::lazy::{refuse_eager_options, EitherAutomaton, LazyAutomaton};
use crate::vocab::Vocabulary;

/// Compiles a regular expression (full-match semantics, the `regex` crate's syntax plus
/// fstc's extensions) into a token automaton for `vocab`: a `TokenAutomaton`, or with
/// `lazy=True` a `LazyAutomaton` (only the byte DFA is built now; see its docs). The GIL is
/// released while compiling. Limits turn state explosions into `FstcError`s.
#[pyfunction]
#[pyo3(signature = (
    pattern, vocab, *, lazy = false, dfa_state_limit = None, token_edge_limit = None,
    image_tokens = None
))]
pub fn compile_regex(
    py: Python<'_>,
    pattern: &str,
    vocab: &Vocabulary,
    lazy: bool,
    dfa_state_limit: Option<usize>,
    token_edge_limit: Option<usize>,
    image_tokens: Option<Vec<u32>>,
) -> PyResult<EitherAutomaton> {
    let mut compiler = RegexCompiler::new();
    if let Some(limit) = dfa_state_limit {
        compiler = compiler.dfa_state_limit(limit);
    }
    if lazy {
        refuse_eager_options(&[
            (
                "token_edge_limit",
                token_edge_limit.is_some(),
                "bounds the token edges composed up front",
            ),
            (
                "image_tokens",
                image_tokens.is_some(),
                "feeds the IMAGE terminal label",
            ),
        ])?;
        let (inner, fingerprint) = py
            .detach(|| {
                let trie = vocab.trie();
                let fingerprint = trie.fingerprint();
                compiler
                    .compile_lazy(pattern, trie)
                    .map(|a| (a, fingerprint))
            })
            .map_err(fstc_error)?;
        return Ok(EitherAutomaton::Lazy(LazyAutomaton::new(
            inner,
            fingerprint,
        )));
    }
    if let Some(limit) = token_edge_limit {
        compiler = compiler.token_edge_limit(limit);
    }
    if let Some(ids) = image_tokens {
        compiler = compiler.image_tokens(ids);
    }
    let (inner, _) = py
        .detach(|| compiler.compile_with_trie(pattern, &vocab.trie()))
        .map_err(fstc_error)?;
    Ok(EitherAutomaton::Token(TokenAutomaton::from_any(
        AnyAutomaton::Fsa(inner),
    )))
}
