//! `fstc.compile_json_schema`: a JSON Schema (text or Python object) into a token automaton
//! through `fstc-json`, with the keywords left out under `lenient` as `SchemaWarning`s.

use std::sync::Arc;

use fstc_core::any;
use fstc_core::compiled::{Compiled, Warning};
use fstc_core::lazy;
use fstc_core::vocab::VocabTrie;
use fstc_json::{Config, JsonSchemaCompiler};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::automaton::AnyAutomaton;
use crate::errors::fstc_error;
use crate::ints::Int;
use crate::lazy::{EitherAutomaton, LazyAutomaton};
use crate::options::Options;
use crate::vocab::Vocabulary;

/// A schema keyword the automaton does not enforce (only under `lenient=True`).
#[pyclass(module = "fstc", frozen)]
pub struct SchemaWarning {
    inner: Warning,
}

#[pymethods]
impl SchemaWarning {
    /// JSON pointer of the schema object holding the keyword (`""` is the root).
    #[getter]
    fn pointer(&self) -> &str {
        &self.inner.pointer
    }

    /// The keyword left out.
    #[getter]
    fn keyword(&self) -> &str {
        &self.inner.keyword
    }

    /// Why it is not enforced.
    #[getter]
    fn message(&self) -> &str {
        &self.inner.message
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "SchemaWarning(pointer={:?}, keyword={:?}, message={:?})",
            self.inner.pointer, self.inner.keyword, self.inner.message
        )
    }
}

/// `what` (the schema, a spec) as JSON text: a `str` as it is, anything else through `json.dumps`.
pub(crate) fn json_text(schema: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    if schema.is_instance_of::<PyString>() {
        return schema.extract();
    }
    let json = schema.py().import("json")?;
    json.call_method1("dumps", (schema,))
        .and_then(|text| text.extract())
        .map_err(|e| {
            PyValueError::new_err(format!(
                "{what} must be JSON text or a JSON-serializable object: {e}"
            ))
        })
}

/// The output-form options of `compile_json_schema`, shared by `compile_structural_tag`.
pub(crate) struct JsonOptions<'a> {
    pub whitespace: &'a str,
    pub max_whitespace: Int,
    pub indent: Int,
    pub escapes: &'a str,
    pub additional_properties: bool,
    pub recursion_depth: Option<Int>,
    pub any_json_depth: Option<Int>,
    pub lenient: bool,
    pub dfa_state_limit: Option<Int>,
    pub time_budget: Option<f64>,
    pub memory_budget: Option<Int>,
}

impl JsonOptions<'_> {
    /// The JSON compiler's options by name (the caller adds the eager or lazy ones); an
    /// integer out of range raises `FstcError` naming its argument.
    pub(crate) fn options(self) -> PyResult<Options> {
        Options::default()
            .text("whitespace", self.whitespace)
            .int("max_whitespace", Some(&self.max_whitespace))?
            .int("indent", Some(&self.indent))?
            .text("escapes", self.escapes)
            .flag("additional_properties", self.additional_properties)
            .flag("lenient", self.lenient)
            .int("recursion_depth", self.recursion_depth.as_ref())?
            .int("any_json_depth", self.any_json_depth.as_ref())?
            .int("dfa_state_limit", self.dfa_state_limit.as_ref())?
            .seconds("time_budget", self.time_budget)
            .int("memory_budget", self.memory_budget.as_ref())
    }
}

/// Compiles a JSON Schema (draft 2020-12, with draft-07 spellings) into a token automaton
/// for `vocab`; returns `(automaton, warnings)`: an `AnyAutomaton` (a token FSA). `schema` is JSON text or a Python object
/// (`dict`, `bool`) that `json.dumps` accepts. The automaton admits the JSON texts valid
/// under the schema in one output form: properties in schema order, string escapes
/// `escapes` "canonical" (one spelling per string, as `json.dumps(ensure_ascii=False)`
/// writes it) or "any" (every spelling JSON allows: `\u00e9`, `\/`, surrogate pairs;
/// lengths, patterns and enums apply to the decoded string; larger automata), and
/// `whitespace` "flexible" (up to `max_whitespace` characters between tokens), "compact"
/// (none) or "pretty" (`indent` spaces, as `json.dumps(indent=...)` with
/// `separators=(",", ": ")`). A keyword that cannot be enforced exactly raises
/// `FstcError` naming it and its JSON pointer, unless `lenient`, which leaves it out with
/// a `SchemaWarning`. With `lazy=True` the automaton is a `LazyAutomaton` (only the byte
/// DFA is built now; each state's tokens when a matcher first reaches it): the choice for
/// a schema used once; `state_work_limit` (lazy only, default 2^23) bounds the work of
/// composing one state, past which the mask or token call that needed it raises
/// `FstcError`. `time_budget` (seconds, default 10) and `memory_budget` (bytes of
/// automata, default 1 GiB) bound the compile: past either it raises `FstcError` naming the
/// sub-schema being built, so a compile in a thread ends by its deadline. `ref_dir` is the
/// folder of the documents that `$ref`s to other documents name (`SCHEME://HOST/PATH` is
/// the file `PATH` under it); without it such a `$ref` raises `FstcError`. The GIL is
/// released while compiling.
#[pyfunction]
#[pyo3(signature = (
    schema, vocab, *, lazy = false, whitespace = "flexible", max_whitespace = Int::new(8), indent = Int::new(2),
    escapes = "canonical", additional_properties = true, recursion_depth = None, any_json_depth = None,
    lenient = false, dfa_state_limit = None, token_edge_limit = None, time_budget = None,
    memory_budget = None, state_work_limit = None, ref_dir = None
))]
#[allow(clippy::too_many_arguments)]
pub fn compile_json_schema(
    py: Python<'_>,
    schema: &Bound<'_, PyAny>,
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
    time_budget: Option<f64>,
    memory_budget: Option<Int>,
    state_work_limit: Option<Int>,
    ref_dir: Option<std::path::PathBuf>,
) -> PyResult<(EitherAutomaton, Vec<SchemaWarning>)> {
    let text = json_text(schema, "the schema")?;
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
    let options = match &ref_dir {
        Some(dir) => options.text("ref_dir", &dir.to_string_lossy()),
        None => options,
    };
    let compiler = |config| JsonSchemaCompiler::new().configure(config);
    lazy_or_eager(
        py,
        vocab,
        (lazy, options),
        |config, trie| compiler(config).compile_lazy(&text, trie),
        |config, trie| {
            let compiled = compiler(config).compile_with_trie(&text, trie);
            compiled.map(|c| c.map(any::AnyAutomaton::Fsa))
        },
    )
}

/// The compile both JSON front ends share: lazily over the vocabulary's shared trie (its
/// state work limit set), or eagerly, the options a mode would ignore refused, the GIL
/// released.
pub(crate) fn lazy_or_eager<E: std::fmt::Display + Send>(
    py: Python<'_>,
    vocab: &Vocabulary,
    (lazy, options): (bool, Options),
    compile_lazy: impl FnOnce(Config, Arc<VocabTrie>) -> Result<Compiled<lazy::LazyAutomaton>, E> + Send,
    compile_eager: impl FnOnce(Config, &VocabTrie) -> Result<Compiled<any::AnyAutomaton>, E> + Send,
) -> PyResult<(EitherAutomaton, Vec<SchemaWarning>)> {
    let (options, state_work_limit) = options.split_lazy(lazy)?;
    let config = options.apply(|o| Config::new().with_options(o))?;
    if lazy {
        let (compiled, fingerprint) = py
            .detach(|| {
                let trie = vocab.trie();
                let fingerprint = trie.fingerprint();
                compile_lazy(config, trie).map(|c| (c, fingerprint))
            })
            .map_err(fstc_error)?;
        if let Some(steps) = state_work_limit {
            compiled.automaton.set_state_work_limit(steps);
        }
        let automaton = EitherAutomaton::Lazy(LazyAutomaton::new(compiled.automaton, fingerprint));
        return Ok((automaton, schema_warnings(compiled.warnings)));
    }
    let compiled = py
        .detach(|| compile_eager(config, &vocab.trie()))
        .map_err(fstc_error)?;
    let automaton = AnyAutomaton::from_any(compiled.automaton);
    Ok((
        EitherAutomaton::Any(automaton),
        schema_warnings(compiled.warnings),
    ))
}

/// The keywords left out, for Python.
pub(crate) fn schema_warnings(warnings: Vec<Warning>) -> Vec<SchemaWarning> {
    warnings
        .into_iter()
        .map(|inner| SchemaWarning { inner })
        .collect()
}
