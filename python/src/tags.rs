//! `fstc.compile_structural_tag`: a structural tag (XGrammar's JSON, current or legacy
//! spelling) into one token automaton through `fstc-tags`, with the JSON options of
//! `compile_json_schema` for its schemas.

use fstc_core::any;
use fstc_tags::{StructuralTag, StructuralTagCompiler};
use pyo3::prelude::*;

use crate::automaton::AnyAutomaton;
use crate::errors::fstc_error;
use crate::json::{json_text, schema_warnings, JsonOptions, SchemaWarning};
use crate::lazy::{refuse_eager_options, EitherAutomaton, LazyAutomaton};
use crate::vocab::Vocabulary;

/// Compiles a structural tag into one token automaton for `vocab`; returns `(automaton,
/// warnings)`. `spec` is JSON text or a Python object (`dict`) in XGrammar's spelling
/// (`{"type": "structural_tag", "format": {...}}`), its legacy spelling (`{"structures":
/// [...], "triggers": [...]}`, as vLLM and SGLang forward it) or a bare format object.
/// Free text, triggers, tags, JSON Schemas and regexes become one automaton, so a token
/// may cross from free text into a tag. The JSON options apply to every `json_schema`
/// in the tag (see `compile_json_schema`); what fstc would not enforce exactly raises
/// `FstcError` naming it and its path in the spec. `lazy=True` gives a `LazyAutomaton`.
/// The GIL is released while compiling.
#[pyfunction]
#[pyo3(signature = (
    spec, vocab, *, lazy = false, whitespace = "flexible", max_whitespace = 8, indent = 2,
    escapes = "canonical", additional_properties = true, recursion_depth = None, any_json_depth = None,
    lenient = false, dfa_state_limit = None, token_edge_limit = None
))]
#[allow(clippy::too_many_arguments)]
pub fn compile_structural_tag(
    py: Python<'_>,
    spec: &Bound<'_, PyAny>,
    vocab: &Vocabulary,
    lazy: bool,
    whitespace: &str,
    max_whitespace: usize,
    indent: usize,
    escapes: &str,
    additional_properties: bool,
    recursion_depth: Option<usize>,
    any_json_depth: Option<usize>,
    lenient: bool,
    dfa_state_limit: Option<usize>,
    token_edge_limit: Option<usize>,
) -> PyResult<(EitherAutomaton, Vec<SchemaWarning>)> {
    let text = json_text(spec, "the structural tag")?;
    let tag = StructuralTag::from_json(&text).map_err(fstc_error)?;
    let mut config = JsonOptions {
        whitespace,
        max_whitespace,
        indent,
        escapes,
        additional_properties,
        recursion_depth,
        any_json_depth,
        lenient,
        dfa_state_limit,
        time_budget: None,
        memory_budget: None,
    }
    .config()?;
    if lazy {
        refuse_eager_options(&[(
            "token_edge_limit",
            token_edge_limit.is_some(),
            "bounds the token edges composed up front",
        )])?;
        let compiler = StructuralTagCompiler::new().configure(config);
        let (compiled, fingerprint) = py
            .detach(|| {
                let trie = vocab.trie();
                let fingerprint = trie.fingerprint();
                compiler.compile_lazy(&tag, trie).map(|c| (c, fingerprint))
            })
            .map_err(fstc_error)?;
        let automaton = EitherAutomaton::Lazy(LazyAutomaton::new(compiled.automaton, fingerprint));
        return Ok((automaton, schema_warnings(compiled.warnings)));
    }
    if let Some(limit) = token_edge_limit {
        config = config.token_edge_limit(limit);
    }
    let compiler = StructuralTagCompiler::new().configure(config);
    let compiled = py
        .detach(|| compiler.compile_with_trie(&tag, &vocab.trie()))
        .map_err(fstc_error)?;
    let automaton = AnyAutomaton::from_any(any::AnyAutomaton::Fsa(compiled.automaton));
    Ok((
        EitherAutomaton::Any(automaton),
        schema_warnings(compiled.warnings),
    ))
}
