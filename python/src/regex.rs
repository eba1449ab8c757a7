//! `compile_regex`: a regex into an `AnyAutomaton` (or, lazily, a `LazyAutomaton`).

use fstc_core::any;
use fstc_regex::{Config, RegexCompiler};
use pyo3::prelude::*;

use crate::automaton::AnyAutomaton;
use crate::errors::fstc_error;
use crate::ints::Int;
use crate::lazy::{EitherAutomaton, LazyAutomaton};
use crate::options::Options;
use crate::vocab::Vocabulary;

/// Compiles a regular expression (full-match semantics, the `regex` crate's syntax plus
/// fstc's extensions, or with `dialect="ecmascript"` ECMA-262 with the `u` flag, as JSON
/// Schema's `pattern`) into a token automaton for `vocab`: an `AnyAutomaton`, or with
/// `lazy=True` a `LazyAutomaton` (only the byte DFA is built now; see its docs). The GIL
/// is released while compiling. Limits turn state explosions into `FstcError`s;
/// `time_budget` (seconds, default 10) and `memory_budget` (bytes, default 1 GiB) bound the
/// byte DFA's construction and the composition, as for JSON Schemas and grammars.
#[pyfunction]
#[pyo3(signature = (
    pattern, vocab, *, lazy = false, dialect = "regex", dfa_state_limit = None,
    token_edge_limit = None, image_tokens = None, time_budget = None, memory_budget = None
))]
#[allow(clippy::too_many_arguments)]
pub fn compile_regex(
    py: Python<'_>,
    pattern: &str,
    vocab: &Vocabulary,
    lazy: bool,
    dialect: &str,
    dfa_state_limit: Option<Int>,
    token_edge_limit: Option<Int>,
    image_tokens: Option<Vec<Int>>,
    time_budget: Option<f64>,
    memory_budget: Option<Int>,
) -> PyResult<EitherAutomaton> {
    let options = Options::default()
        .text("dialect", dialect)
        .int("dfa_state_limit", dfa_state_limit.as_ref())?
        .int("token_edge_limit", token_edge_limit.as_ref())?
        .ids("image_tokens", image_tokens.as_deref())?
        .seconds("time_budget", time_budget)
        .int("memory_budget", memory_budget.as_ref())?;
    let (options, _) = options.split_lazy(lazy)?;
    let compiler =
        RegexCompiler::new().configure(options.apply(|o| Config::new().with_options(o))?);
    if lazy {
        let (compiled, fingerprint) = py
            .detach(|| {
                let trie = vocab.trie();
                let fingerprint = trie.fingerprint();
                compiler
                    .compile_lazy(pattern, trie)
                    .map(|c| (c, fingerprint))
            })
            .map_err(fstc_error)?;
        return Ok(EitherAutomaton::Lazy(LazyAutomaton::new(
            compiled.automaton,
            fingerprint,
        )));
    }
    let compiled = py
        .detach(|| compiler.compile_with_trie(pattern, &vocab.trie()))
        .map_err(fstc_error)?;
    Ok(EitherAutomaton::Any(AnyAutomaton::from_any(
        any::AnyAutomaton::Fsa(compiled.automaton),
    )))
}
