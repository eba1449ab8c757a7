//! `fstc.compile_grammar`: a context-free grammar (GBNF, Lark, XGrammar's EBNF or the
//! paper's arrow notation)
//! composed with a vocabulary into a token PDA by the `pda` crate, exactly as
//! `fstc compile grammar` does.

use fstc_core::any;
use fstc_pda::{Config, GrammarCompiler, Syntax};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::automaton::AnyAutomaton;
use crate::errors::fstc_error;
use crate::ints::{optional_seconds, optional_usize, Int};
use crate::vocab::Vocabulary;

/// Compiles a context-free grammar into a token PDA for `vocab` (an `AnyAutomaton` of
/// kind `"pda"`, walked by `Matcher` like any other). `syntax` is `"gbnf"` (llama.cpp's),
/// `"lark"`, `"ebnf"` (XGrammar's) or `"paper"` (`S → "ab" | "a" S "b"`), as the CLI's
/// `--syntax`. The limits
/// are `fstc compile grammar`'s: token PDA nodes before merging, token edges before
/// grouping, stack symbols one token may pop (a cycle of pop edges counted once). A grammar that one byte of lookahead does
/// not decide compiles to a nondeterministic token PDA, whose matcher keeps a set of
/// configurations; `config_limit` (default 1,024, `--config-limit`) refuses one where a
/// single token already leads from one configuration to more (the matcher's own
/// `config_limit` bounds them while decoding). `time_budget` (seconds, default 10) and
/// `memory_budget` (bytes of automata and tables, default 1 GiB) bound the whole compile,
/// as `--time-budget` and `--memory-budget`. A grammar that is malformed (line and column), left-recursive after a
/// rule that may be empty, too large or past a budget (naming the rule and where it is) raises `FstcError` with the compiler's message. The GIL is released while compiling.
#[pyfunction]
#[pyo3(signature = (text, vocab, *, syntax = "gbnf", node_limit = None, token_edge_limit = None, pop_limit = None, config_limit = None, time_budget = None, memory_budget = None))]
#[allow(clippy::too_many_arguments)]
pub fn compile_grammar(
    py: Python<'_>,
    text: &str,
    vocab: &Vocabulary,
    syntax: &str,
    node_limit: Option<Int>,
    token_edge_limit: Option<Int>,
    pop_limit: Option<Int>,
    config_limit: Option<Int>,
    time_budget: Option<f64>,
    memory_budget: Option<Int>,
) -> PyResult<AnyAutomaton> {
    let node_limit = optional_usize(node_limit, "node_limit")?;
    let token_edge_limit = optional_usize(token_edge_limit, "token_edge_limit")?;
    let pop_limit = optional_usize(pop_limit, "pop_limit")?;
    let config_limit = optional_usize(config_limit, "config_limit")?;
    let time_budget = optional_seconds(time_budget, "time_budget")?;
    let memory_budget = optional_usize(memory_budget, "memory_budget")?;
    let syntax: Syntax = syntax.parse().map_err(PyValueError::new_err)?;
    let mut config = Config::new();
    if let Some(n) = node_limit {
        config = config.node_limit(n);
    }
    if let Some(n) = token_edge_limit {
        config = config.token_edge_limit(n);
    }
    if let Some(n) = pop_limit {
        config = config.pop_limit(n);
    }
    if let Some(n) = config_limit {
        config = config.config_limit(n);
    }
    if let Some(budget) = time_budget {
        config = config.time_budget(budget);
    }
    if let Some(bytes) = memory_budget {
        config = config.memory_budget(bytes);
    }
    let compiler = GrammarCompiler::new().configure(config.syntax(syntax));
    let compiled = py
        .detach(|| compiler.compile_with_trie(text, &vocab.trie()))
        .map_err(fstc_error)?;
    Ok(AnyAutomaton::from_any(any::AnyAutomaton::Pda(
        compiled.automaton,
    )))
}
