//! `compile_regex`: a regex into an `AnyAutomaton` (or, lazily, a `LazyAutomaton`).

use fstc_core::any;
use fstc_regex::{Config, Dialect, RegexCompiler};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::automaton::AnyAutomaton;
use crate::errors::fstc_error;
use crate::ints::{optional_usize, Int};
use crate::lazy::{refuse_eager_options, EitherAutomaton, LazyAutomaton};
use crate::vocab::Vocabulary;

/// The pattern dialect named by `dialect`.
fn dialect(name: &str) -> PyResult<Dialect> {
    match name {
        "regex" => Ok(Dialect::Regex),
        "ecmascript" => Ok(Dialect::EcmaScript),
        other => Err(PyValueError::new_err(format!(
            "dialect must be \"regex\" or \"ecmascript\", got {other:?}"
        ))),
    }
}

/// Compiles a regular expression (full-match semantics, the `regex` crate's syntax plus
/// fstc's extensions, or with `dialect="ecmascript"` ECMA-262 with the `u` flag, as JSON
/// Schema's `pattern`) into a token automaton for `vocab`: an `AnyAutomaton`, or with
/// `lazy=True` a `LazyAutomaton` (only the byte DFA is built now; see its docs). The GIL
/// is released while compiling. Limits turn state explosions into `FstcError`s.
#[pyfunction]
#[pyo3(signature = (
    pattern, vocab, *, lazy = false, dialect = "regex", dfa_state_limit = None,
    token_edge_limit = None, image_tokens = None
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
) -> PyResult<EitherAutomaton> {
    let dfa_state_limit = optional_usize(dfa_state_limit, "dfa_state_limit")?;
    let token_edge_limit = optional_usize(token_edge_limit, "token_edge_limit")?;
    let image_tokens = image_tokens
        .map(|ids| {
            ids.iter()
                .map(|i| i.u32("image_tokens"))
                .collect::<PyResult<Vec<u32>>>()
        })
        .transpose()?;
    let mut config = Config::new().dialect(self::dialect(dialect)?);
    if let Some(limit) = dfa_state_limit {
        config = config.dfa_state_limit(limit);
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
        let compiler = RegexCompiler::new().configure(config);
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
    if let Some(limit) = token_edge_limit {
        config = config.token_edge_limit(limit);
    }
    if let Some(ids) = image_tokens {
        config = config.image_tokens(ids);
    }
    let compiler = RegexCompiler::new().configure(config);
    let compiled = py
        .detach(|| compiler.compile_with_trie(pattern, &vocab.trie()))
        .map_err(fstc_error)?;
    Ok(EitherAutomaton::Any(AnyAutomaton::from_any(
        any::AnyAutomaton::Fsa(compiled.automaton),
    )))
}
