//! `fstc.compile_grammar`: a context-free grammar (GBNF, Lark, XGrammar's EBNF or the
//! paper's arrow notation)
//! composed with a vocabulary into a token PDA by the `pda` crate, exactly as
//! `fstc compile grammar` does.

use fstc_core::any::AnyAutomaton;
use fstc_core::token_pda::TokenPda;
use fstc_pda::compose::Config;
use fstc_pda::{GrammarCompiler, Syntax};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::automaton::TokenAutomaton;
use crate::errors::fstc_error;
use crate::vocab::Vocabulary;

/// Compiles a context-free grammar into a token PDA for `vocab` (a `TokenAutomaton` of
/// kind `"pda"`, walked by `Matcher` like any other). `syntax` is `"gbnf"` (llama.cpp's),
/// `"lark"`, `"ebnf"` (XGrammar's) or `"paper"` (`S → "ab" | "a" S "b"`), as the CLI's
/// `--syntax`. The limits
/// are `fstc compile grammar`'s: token PDA nodes before merging, token edges before
/// grouping, stack symbols one token may pop. A grammar that is malformed (line and
/// column), ambiguous for one byte of lookahead, left-recursive or too large raises
/// `FstcError` with the compiler's message. The GIL is released while compiling.
#[pyfunction]
#[pyo3(signature = (text, vocab, *, syntax = "gbnf", node_limit = None, token_edge_limit = None, pop_limit = None))]
pub fn compile_grammar(
    py: Python<'_>,
    text: &str,
    vocab: &Vocabulary,
    syntax: &str,
    node_limit: Option<usize>,
    token_edge_limit: Option<usize>,
    pop_limit: Option<usize>,
) -> PyResult<TokenAutomaton> {
    let syntax: Syntax = syntax.parse().map_err(PyValueError::new_err)?;
    let mut config = Config::new();
    if let Some(n) = node_limit {
        config = config.max_nodes(n);
    }
    if let Some(n) = token_edge_limit {
        config = config.max_token_edges(n);
    }
    if let Some(n) = pop_limit {
        config = config.max_pops(n);
    }
    let pda = py.detach(|| {
        let parts = GrammarCompiler::new()
            .configure(config)
            .syntax(syntax)
            .compile_with_trie(text, &vocab.trie())
            .map_err(fstc_error)?;
        TokenPda::from_parts(parts).map_err(fstc_error)
    })?;
    Ok(TokenAutomaton::from_any(AnyAutomaton::Pda(pda)))
}
