//! `fstc.compile_json_schema`: a JSON Schema (text or Python object) into a token automaton
//! through `fstc-json`, with the keywords left out under `lenient` as `SchemaWarning`s.

use std::sync::Arc;

use fstc_core::any;
use fstc_core::compiled::{Compiled, Warning};
use fstc_core::lazy;
use fstc_core::vocab::VocabTrie;
use fstc_json::{Config, Escapes, JsonSchemaCompiler, Whitespace};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::automaton::AnyAutomaton;
use crate::errors::fstc_error;
use crate::ints::{optional_seconds, optional_usize, Int};
use crate::lazy::{refuse_eager_options, EitherAutomaton, LazyAutomaton};
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

/// The whitespace style named by `whitespace`.
fn whitespace(name: &str, max_whitespace: usize, indent: usize) -> PyResult<Whitespace> {
    match name {
        "flexible" => Ok(Whitespace::Flexible { max_whitespace }),
        "compact" => Ok(Whitespace::Compact),
        "pretty" => Ok(Whitespace::Pretty { indent }),
        other => Err(PyValueError::new_err(format!(
            "whitespace must be \"flexible\", \"compact\" or \"pretty\", got {other:?}"
        ))),
    }
}

/// The string escapes named by `escapes`.
fn escapes(name: &str) -> PyResult<Escapes> {
    match name {
        "canonical" => Ok(Escapes::Canonical),
        "any" => Ok(Escapes::Any),
        other => Err(PyValueError::new_err(format!(
            "escapes must be \"canonical\" or \"any\", got {other:?}"
        ))),
    }
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
    /// The JSON compiler's options (the token edge limit, eager only, is set by the caller);
    /// an integer out of range raises `FstcError` naming its argument.
    pub(crate) fn config(self) -> PyResult<Config> {
        let mut config = Config::new()
            .whitespace(whitespace(
                self.whitespace,
                self.max_whitespace.usize("max_whitespace")?,
                self.indent.usize("indent")?,
            )?)
            .escapes(escapes(self.escapes)?)
            .additional_properties(self.additional_properties)
            .lenient(self.lenient);
        if let Some(depth) = optional_usize(self.recursion_depth, "recursion_depth")? {
            config = config.recursion_depth(depth);
        }
        if let Some(depth) = optional_usize(self.any_json_depth, "any_json_depth")? {
            config = config.any_json_depth(depth);
        }
        if let Some(limit) = optional_usize(self.dfa_state_limit, "dfa_state_limit")? {
            config = config.dfa_state_limit(limit);
        }
        if let Some(budget) = optional_seconds(self.time_budget, "time_budget")? {
            config = config.time_budget(budget);
        }
        if let Some(bytes) = optional_usize(self.memory_budget, "memory_budget")? {
            config = config.memory_budget(bytes);
        }
        Ok(config)
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
/// a schema used once. `time_budget` (seconds, default 10) and `memory_budget` (bytes of
/// automata, default 1 GiB) bound the compile: past either it raises `FstcError` naming the
/// sub-schema being built, so a compile in a thread ends by its deadline. The GIL is
/// released while compiling.
#[pyfunction]
#[pyo3(signature = (
    schema, vocab, *, lazy = false, whitespace = "flexible", max_whitespace = Int::new(8), indent = Int::new(2),
    escapes = "canonical", additional_properties = true, recursion_depth = None, any_json_depth = None,
    lenient = false, dfa_state_limit = None, token_edge_limit = None, time_budget = None,
    memory_budget = None
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
) -> PyResult<(EitherAutomaton, Vec<SchemaWarning>)> {
    let token_edge_limit = optional_usize(token_edge_limit, "token_edge_limit")?;
    let text = json_text(schema, "the schema")?;
    let config = JsonOptions {
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
    .config()?;
    let compiler = |config| JsonSchemaCompiler::new().configure(config);
    lazy_or_eager(
        py,
        vocab,
        (lazy, token_edge_limit, config),
        |config, trie| compiler(config).compile_lazy(&text, trie),
        |config, trie| {
            let compiled = compiler(config).compile_with_trie(&text, trie);
            compiled.map(|c| c.map(any::AnyAutomaton::Fsa))
        },
    )
}

/// The compile both JSON front ends share: lazily over the vocabulary's shared trie, or
/// eagerly with the token edge limit (refused with `lazy`), the GIL released.
pub(crate) fn lazy_or_eager<E: std::fmt::Display + Send>(
    py: Python<'_>,
    vocab: &Vocabulary,
    (lazy, token_edge_limit, mut config): (bool, Option<usize>, Config),
    compile_lazy: impl FnOnce(Config, Arc<VocabTrie>) -> Result<Compiled<lazy::LazyAutomaton>, E> + Send,
    compile_eager: impl FnOnce(Config, &VocabTrie) -> Result<Compiled<any::AnyAutomaton>, E> + Send,
) -> PyResult<(EitherAutomaton, Vec<SchemaWarning>)> {
    if lazy {
        refuse_eager_options(&[(
            "token_edge_limit",
            token_edge_limit.is_some(),
            "bounds the token edges composed up front",
        )])?;
        let (compiled, fingerprint) = py
            .detach(|| {
                let trie = vocab.trie();
                let fingerprint = trie.fingerprint();
                compile_lazy(config, trie).map(|c| (c, fingerprint))
            })
            .map_err(fstc_error)?;
        let automaton = EitherAutomaton::Lazy(LazyAutomaton::new(compiled.automaton, fingerprint));
        return Ok((automaton, schema_warnings(compiled.warnings)));
    }
    if let Some(limit) = token_edge_limit {
        config = config.token_edge_limit(limit);
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
