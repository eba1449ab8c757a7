//! Python bindings for fstc (the `fstc._fstc` extension module).
//!
//! The Python package re-exports these classes from `fstc`. The serving API follows what
//! inference servers already call (vLLM's structured-output grammar): a `Matcher`
//! per sequence over a shared, immutable `AnyAutomaton`, bitmasks filled
//! into caller-owned int32 arrays, and a batch fill that runs in parallel without the GIL.
//! Every constraint kind is a `compile_*` function returning an `AnyAutomaton`
//! (`compile_regex`, `compile_json_schema`, `compile_structural_tag`: token FSAs;
//! `compile_grammar`: a token PDA; `compile_expr`: an expression over constraints),
//! or with `lazy=True` (regexes, schemas) a `LazyAutomaton` composed state by state; a
//! `Matcher` walks any of them through fstc-core's `Matcher` interface. Compiles share one
//! vocabulary trie per `Vocabulary`.

use pyo3::prelude::*;

mod automaton;
mod bitmask;
mod errors;
mod expr;
mod grammar;
mod ints;
mod json;
mod lazy;
mod matcher;
mod ops;
mod options;
mod regex;
mod tags;
mod vocab;
mod walk;

#[pymodule]
fn _fstc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("FstcError", m.py().get_type::<errors::FstcError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<vocab::Vocabulary>()?;
    m.add_class::<automaton::AnyAutomaton>()?;
    m.add_class::<lazy::LazyAutomaton>()?;
    m.add_class::<matcher::Matcher>()?;
    m.add_class::<json::SchemaWarning>()?;
    m.add_function(wrap_pyfunction!(regex::compile_regex, m)?)?;
    m.add_function(wrap_pyfunction!(json::compile_json_schema, m)?)?;
    m.add_function(wrap_pyfunction!(grammar::compile_grammar, m)?)?;
    m.add_function(wrap_pyfunction!(tags::compile_structural_tag, m)?)?;
    m.add_function(wrap_pyfunction!(expr::compile_expr, m)?)?;
    m.add_function(wrap_pyfunction!(matcher::fill_bitmasks, m)?)?;
    m.add_function(wrap_pyfunction!(ops::intersect, m)?)?;
    m.add_function(wrap_pyfunction!(ops::union, m)?)?;
    m.add_function(wrap_pyfunction!(ops::difference, m)?)?;
    m.add_function(wrap_pyfunction!(ops::complement, m)?)?;
    m.add_function(wrap_pyfunction!(ops::equivalent, m)?)?;
    m.add_function(wrap_pyfunction!(ops::shortest, m)?)?;
    m.add_function(wrap_pyfunction!(ops::project, m)?)?;
    m.add_function(wrap_pyfunction!(ops::export, m)?)?;
    Ok(())
}
