//! `fstc.compile_grammar`: a context-free grammar (GBNF, Lark, XGrammar's EBNF or the
//! paper's arrow notation)
//! composed with a vocabulary into a token PDA by the `pda` crate, exactly as
//! `fstc compile grammar` does.

use fstc_core::any;
use fstc_pda::{Config, GrammarCompiler};
use pyo3::prelude::*;

use crate::automaton::AnyAutomaton;
use crate::errors::fstc_error;
use crate::ints::Int;
use crate::options::Options;
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
/// `config_limit` bounds them while decoding); `require_deterministic=True`
/// (`--require-deterministic`) refuses it instead, listing the conflicts. `time_budget` (seconds, default 10) and
/// `memory_budget` (bytes of automata and tables, default 1 GiB) bound the whole compile,
/// as `--time-budget` and `--memory-budget`. A grammar that is malformed (line and column), left-recursive in
/// every alternative, too large or past a budget (naming the rule and where it is) raises `FstcError` with the compiler's message. The GIL is released while compiling.
#[pyfunction]
#[pyo3(signature = (text, vocab, *, syntax = "gbnf", node_limit = None, token_edge_limit = None, pop_limit = None, config_limit = None, require_deterministic = false, time_budget = None, memory_budget = None))]
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
    require_deterministic: bool,
    time_budget: Option<f64>,
    memory_budget: Option<Int>,
) -> PyResult<AnyAutomaton> {
    let config = Options::default()
        .text("syntax", syntax)
        .int("node_limit", node_limit.as_ref())?
        .int("token_edge_limit", token_edge_limit.as_ref())?
        .int("pop_limit", pop_limit.as_ref())?
        .int("config_limit", config_limit.as_ref())?
        .flag("require_deterministic", require_deterministic)
        .seconds("time_budget", time_budget)
        .int("memory_budget", memory_budget.as_ref())?
        .apply(|o| Config::new().with_options(o))?;
    let compiler = GrammarCompiler::new().configure(config);
    let compiled = py
        .detach(|| compiler.compile_with_trie(text, &vocab.trie()))
        .map_err(fstc_error)?;
    Ok(AnyAutomaton::from_any(any::AnyAutomaton::Pda(
        compiled.automaton,
    )))
}
