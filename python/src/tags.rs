//! `fstc.compile_structural_tag`: a structural tag (XGrammar's JSON, current or legacy
//! spelling) into one token automaton through `fstc-tags`, with the JSON options of
//! `compile_json_schema` for its schemas.

use crate::ints::Int;
use fstc_tags::{StructuralTag, StructuralTagCompiler};
use pyo3::prelude::*;

use crate::errors::fstc_error;
use crate::json::{json_text, lazy_or_eager, JsonOptions, SchemaWarning};
use crate::lazy::EitherAutomaton;
use crate::vocab::Vocabulary;

/// Compiles a structural tag into one token automaton for `vocab`; returns `(automaton,
/// warnings)`; the automaton is a token PDA (kind `"pda"`) when a piece is a recursive `grammar`. `spec` is JSON text or a Python object (`dict`) in XGrammar's spelling
/// (`{"type": "structural_tag", "format": {...}}`), its legacy spelling (`{"structures":
/// [...], "triggers": [...]}`, as vLLM and SGLang forward it) or a bare format object.
/// Free text, triggers, tags, JSON Schemas and regexes become one automaton, so a token
/// may cross from free text into a tag. The JSON options apply to every `json_schema`
/// in the tag (see `compile_json_schema`); what fstc would not enforce exactly raises
/// `FstcError` naming it and its path in the spec. `lazy=True` gives a `LazyAutomaton`,
/// `state_work_limit` bounding the work of composing one of its states as in
/// `compile_json_schema`. `time_budget` (seconds, default 10) and `memory_budget` (bytes,
/// default 1 GiB) bound the whole compile as `--time-budget`/`--memory-budget` do.
/// The GIL is released while compiling.
#[pyfunction]
#[pyo3(signature = (
    spec, vocab, *, lazy = false, whitespace = "flexible", max_whitespace = Int::new(8), indent = Int::new(2),
    escapes = "canonical", additional_properties = true, recursion_depth = None, any_json_depth = None,
    lenient = false, dfa_state_limit = None, token_edge_limit = None, state_work_limit = None,
    time_budget = None, memory_budget = None
))]
#[allow(clippy::too_many_arguments)]
pub fn compile_structural_tag(
    py: Python<'_>,
    spec: &Bound<'_, PyAny>,
    vocab: &Vocabulary,
    lazy: bool,
    whitespace: &str,
    max_whitespace: Int,
    indent: Int,
    escapes: &str,
    additional_properties: bool,
    recursion_depth: Option<Int>,
    any_json_depth: Option<Int>,
    lenient: bool,
    dfa_state_limit: Option<Int>,
    token_edge_limit: Option<Int>,
    state_work_limit: Option<Int>,
    time_budget: Option<f64>,
    memory_budget: Option<Int>,
) -> PyResult<(EitherAutomaton, Vec<SchemaWarning>)> {
    let text = json_text(spec, "the structural tag")?;
    let tag = StructuralTag::from_json(&text).map_err(fstc_error)?;
    // A token named by text (`{"type": "token", "token": "<|python_tag|>"}`) is its id here.
    let tag = tag
        .resolve_token_names(|name| vocab.inner.token_id(name))
        .map_err(fstc_error)?;
    let options = JsonOptions {
        whitespace,
        max_whitespace,
        indent,
        escapes,
        additional_properties,
        recursion_depth,
        any_json_depth,
        lenient,
        dfa_state_limit,
        time_budget,
        memory_budget,
    }
    .options()?
    .int("token_edge_limit", token_edge_limit.as_ref())?
    .int("state_work_limit", state_work_limit.as_ref())?;
    let compiler = |config| StructuralTagCompiler::new().configure(config);
    lazy_or_eager(
        py,
        vocab,
        (lazy, options),
        |config, trie| compiler(config).compile_lazy(&tag, trie),
        |config, trie| compiler(config).compile_any_with_trie(&tag, trie),
    )
}
