//! The operations on token FSAs (`fstc_core::ops::TokenAlgebra`), after OpenFst's tools:
//! `intersect`, `union`, `difference`, `complement`, `equivalent`, `shortest`, `project`.

use std::sync::Arc;
use std::time::Instant;

use fstc_core::any::SharedAutomaton;
use fstc_core::automaton::TokenAutomaton;
use fstc_core::compiled::Compiled;
use fstc_core::ops::openfst::{to_binary, to_text, OpenFstExport, DEFAULT_ARC_LIMIT};
use fstc_core::ops::{text_tokens_of_trie, OpsError, OpsErrorKind, TokenAlgebra};
use fstc_core::options::OptionValue;
use fstc_core::TokenVocabulary;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::automaton::AnyAutomaton;
use crate::errors::fstc_error;
use crate::ints::Int;
use crate::vocab::Vocabulary;

/// The token FSA of `a`; a token PDA is refused by name.
fn fsa(a: &AnyAutomaton, operation: &str) -> PyResult<Arc<TokenAutomaton>> {
    match &a.inner {
        SharedAutomaton::Fsa(f) => Ok(Arc::clone(f)),
        SharedAutomaton::Pda(_) => Err(fstc_error(format!(
            "{operation} takes token FSAs; this is a token PDA (a compiled grammar)"
        ))),
    }
}

/// The limits of one operation, as the CLI's: a state limit, and the compilers' budgets
/// (`time_budget` seconds, default 10, starting now; `memory_budget` bytes, default 1 GiB).
#[derive(Default)]
struct Limits {
    state_limit: Option<Int>,
    time_budget: Option<f64>,
    memory_budget: Option<Int>,
}

impl Limits {
    fn new(
        state_limit: Option<Int>,
        time_budget: Option<f64>,
        memory_budget: Option<Int>,
    ) -> Limits {
        Limits {
            state_limit,
            time_budget,
            memory_budget,
        }
    }

    /// The deadline (the time budget starting now) and the memory budget; out-of-range
    /// arguments are an `FstcError` naming them.
    fn budgets(&self) -> PyResult<(Option<Instant>, usize)> {
        let time = match self.time_budget {
            Some(s) => OptionValue::Float(s)
                .seconds("time_budget")
                .map_err(fstc_error)?,
            None => fstc_json::Config::DEFAULT_TIME_BUDGET,
        };
        let memory = match &self.memory_budget {
            Some(n) => n.usize("memory_budget")?,
            None => fstc_json::Config::DEFAULT_MEMORY_BUDGET,
        };
        Ok((Instant::now().checked_add(time), memory))
    }

    /// The operations within these limits, the time budget starting now.
    fn algebra(&self) -> PyResult<TokenAlgebra> {
        let (deadline, memory) = self.budgets()?;
        let algebra = TokenAlgebra::new().deadline(deadline).memory_limit(memory);
        Ok(match &self.state_limit {
            Some(n) => algebra.state_limit(n.usize("state_limit")?),
            None => algebra,
        })
    }

    /// An export within these budgets and `arc_limit` arcs, the time budget starting now.
    fn export(&self, arc_limit: Option<Int>) -> PyResult<OpenFstExport> {
        let (deadline, memory) = self.budgets()?;
        let arcs = match arc_limit {
            Some(n) => n.usize("arc_limit")?,
            None => DEFAULT_ARC_LIMIT,
        };
        Ok(OpenFstExport::new()
            .arc_limit(arcs)
            .memory_limit(memory)
            .deadline(deadline))
    }
}

/// An operation's error as `FstcError`, naming the argument to raise past a budget.
fn ops_error(e: OpsError) -> PyErr {
    let argument = match e.kind() {
        OpsErrorKind::Deadline => " (`time_budget`)",
        OpsErrorKind::Memory { .. } => " (`memory_budget`)",
        _ => "",
    };
    fstc_error(format!("{e}{argument}"))
}

/// Refuses a vocabulary other than the one `a` was compiled for.
fn same_vocabulary(a: &TokenAutomaton, vocab: &Vocabulary, operation: &str) -> PyResult<()> {
    let v = vocab.inner.as_ref();
    if a.vocab_fingerprint() != v.fingerprint() || a.vocab_size() as usize != v.len() {
        return Err(fstc_error(format!(
            "{operation}: the automaton was compiled for another vocabulary (size {}, \
             fingerprint {:016x}; this one has size {}, fingerprint {:016x})",
            a.vocab_size(),
            a.vocab_fingerprint(),
            v.len(),
            v.fingerprint()
        )));
    }
    Ok(())
}

fn wrap(result: Result<Compiled<TokenAutomaton>, OpsError>) -> PyResult<AnyAutomaton> {
    let compiled = result.map_err(ops_error)?;
    Ok(AnyAutomaton::from_any(fstc_core::AnyAutomaton::Fsa(
        compiled.automaton,
    )))
}

/// Token sequences both `a` and `b` accept (OpenFst's `fstintersect`). Both must be
/// compiled for the same vocabulary and EOS ids; on compiled constraints this is the
/// automaton of the texts both admit. Token FSAs give a token FSA; one operand may be a
/// token PDA (a compiled
/// grammar): the result is then a token PDA without dead ends (every token it allows can
/// still be finished). `state_limit` caps the product states
/// (default 1,000,000), `time_budget` (seconds, default 10) the time and `memory_budget`
/// (bytes, default 1 GiB) the working tables (the product's states; a grammar
/// intersection's analyses): past any of them it raises `FstcError` naming it, as the
/// CLI's `fstc intersect`. The GIL is released.
#[pyfunction]
#[pyo3(signature = (a, b, *, state_limit = None, time_budget = None, memory_budget = None))]
pub fn intersect(
    py: Python<'_>,
    a: &AnyAutomaton,
    b: &AnyAutomaton,
    state_limit: Option<Int>,
    time_budget: Option<f64>,
    memory_budget: Option<Int>,
) -> PyResult<AnyAutomaton> {
    let limits = Limits::new(state_limit, time_budget, memory_budget);
    let (pda, other) = match (&a.inner, &b.inner) {
        (SharedAutomaton::Pda(p), _) => (Arc::clone(p), b),
        (_, SharedAutomaton::Pda(p)) => (Arc::clone(p), a),
        _ => return binary(py, a, b, &limits, "intersect", TokenAlgebra::intersect),
    };
    let what = "intersect with a token PDA (a compiled grammar): the other operand";
    let (fsa, alg) = (fsa(other, what)?, limits.algebra()?);
    let compiled = py
        .detach(|| alg.intersect_pda(&pda, &fsa))
        .map_err(ops_error)?;
    Ok(AnyAutomaton::from_any(fstc_core::AnyAutomaton::Pda(
        compiled.automaton,
    )))
}

/// `operation` (named `name` in errors) on the token FSAs `a` and `b`, the GIL released.
fn binary(
    py: Python<'_>,
    a: &AnyAutomaton,
    b: &AnyAutomaton,
    limits: &Limits,
    name: &str,
    operation: fn(
        &TokenAlgebra,
        &TokenAutomaton,
        &TokenAutomaton,
    ) -> Result<Compiled<TokenAutomaton>, OpsError>,
) -> PyResult<AnyAutomaton> {
    let (a, b) = (fsa(a, name)?, fsa(b, name)?);
    let alg = limits.algebra()?;
    wrap(py.detach(|| operation(&alg, &a, &b)))
}

/// Token sequences `a` or `b` accepts (`fstunion`); as `intersect` otherwise.
#[pyfunction]
#[pyo3(signature = (a, b, *, state_limit = None, time_budget = None, memory_budget = None))]
pub fn union(
    py: Python<'_>,
    a: &AnyAutomaton,
    b: &AnyAutomaton,
    state_limit: Option<Int>,
    time_budget: Option<f64>,
    memory_budget: Option<Int>,
) -> PyResult<AnyAutomaton> {
    let limits = Limits::new(state_limit, time_budget, memory_budget);
    binary(py, a, b, &limits, "union", TokenAlgebra::union)
}

/// Token sequences `a` accepts and `b` does not (`fstdifference`); as `intersect`
/// otherwise.
#[pyfunction]
#[pyo3(signature = (a, b, *, state_limit = None, time_budget = None, memory_budget = None))]
pub fn difference(
    py: Python<'_>,
    a: &AnyAutomaton,
    b: &AnyAutomaton,
    state_limit: Option<Int>,
    time_budget: Option<f64>,
    memory_budget: Option<Int>,
) -> PyResult<AnyAutomaton> {
    let limits = Limits::new(state_limit, time_budget, memory_budget);
    binary(py, a, b, &limits, "difference", TokenAlgebra::difference)
}

/// Sequences of `vocab`'s text tokens (EOS and tokens without text left out) that `a`
/// does not accept. `vocab` must be the one `a` was compiled for. Limits as `intersect`.
#[pyfunction]
#[pyo3(signature = (a, vocab, *, state_limit = None, time_budget = None, memory_budget = None))]
pub fn complement(
    py: Python<'_>,
    a: &AnyAutomaton,
    vocab: &Vocabulary,
    state_limit: Option<Int>,
    time_budget: Option<f64>,
    memory_budget: Option<Int>,
) -> PyResult<AnyAutomaton> {
    let limits = Limits::new(state_limit, time_budget, memory_budget);
    let (a, alg) = (fsa(a, "complement")?, limits.algebra()?);
    same_vocabulary(&a, vocab, "complement")?;
    wrap(py.detach(|| alg.complement(&a, &text_tokens_of_trie(&vocab.trie()))))
}

/// `None` when `a` and `b` accept the same token sequences (`fstequivalent`), else
/// `(tokens, accepted_by_a)`: a shortest sequence only one of them accepts (the least by
/// token ids) and whether it is `a`. Limits as `intersect`.
#[pyfunction]
#[pyo3(signature = (a, b, *, state_limit = None, time_budget = None, memory_budget = None))]
pub fn equivalent(
    py: Python<'_>,
    a: &AnyAutomaton,
    b: &AnyAutomaton,
    state_limit: Option<Int>,
    time_budget: Option<f64>,
    memory_budget: Option<Int>,
) -> PyResult<Option<(Vec<u32>, bool)>> {
    let limits = Limits::new(state_limit, time_budget, memory_budget);
    let (a, b) = (fsa(a, "equivalent")?, fsa(b, "equivalent")?);
    let alg = limits.algebra()?;
    let found = py.detach(|| alg.equivalent(&a, &b)).map_err(ops_error)?;
    Ok(found.map(|d| (d.tokens, d.accepted_by_first)))
}

/// A shortest token sequence `a` accepts, the least by token ids (`fstshortestpath`), or
/// `None` when it accepts none. Past `time_budget` (seconds, default 10) it raises
/// `FstcError`. The GIL is released.
#[pyfunction]
#[pyo3(signature = (a, *, time_budget = None))]
pub fn shortest(
    py: Python<'_>,
    a: &AnyAutomaton,
    time_budget: Option<f64>,
) -> PyResult<Option<Vec<u32>>> {
    let a = fsa(a, "shortest")?;
    let alg = Limits::new(None, time_budget, None).algebra()?;
    py.detach(|| alg.shortest(&a)).map_err(ops_error)
}

/// `what` as an OpenFst machine (`fstc export`): a token FSA as an acceptor over token
/// labels (token id + 1; final states where EOS is allowed), or a `Vocabulary` as its
/// detokenizing transducer T_V (token labels in, byte labels b + 1 out). `format` "fst"
/// (an OpenFst binary file, `bytes`, what `fstinfo` and Pynini read) or "att" (AT&T
/// text, `str`). `arc_limit` caps the machine's arcs (default 50,000,000); `time_budget`
/// (seconds, default 10) and `memory_budget` (bytes, default 1 GiB; 64 bytes an arc and
/// 96 a state, the machine and its file) as `fstc export`'s. The GIL is released.
#[pyfunction]
#[pyo3(signature = (what, *, format = "fst", arc_limit = None, time_budget = None, memory_budget = None))]
pub fn export(
    py: Python<'_>,
    what: &Bound<'_, PyAny>,
    format: &str,
    arc_limit: Option<Int>,
    time_budget: Option<f64>,
    memory_budget: Option<Int>,
) -> PyResult<Py<PyAny>> {
    if !matches!(format, "att" | "fst") {
        return Err(PyValueError::new_err(format!(
            "format must be \"fst\" or \"att\", got {format:?}"
        )));
    }
    let export = Limits::new(None, time_budget, memory_budget).export(arc_limit)?;
    let fst = if let Ok(a) = what.cast::<AnyAutomaton>() {
        let a = fsa(&a.borrow(), "export")?;
        py.detach(|| export.acceptor(&a)).map_err(ops_error)?
    } else if let Ok(v) = what.cast::<Vocabulary>() {
        let inner = std::sync::Arc::clone(&v.borrow().inner);
        py.detach(|| export.detokenizer(inner.as_ref()))
            .map_err(ops_error)?
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "export takes an AnyAutomaton (a token FSA) or a Vocabulary",
        ));
    };
    let bytes = py
        .detach(|| export.write(&fst, format == "att"))
        .map_err(ops_error)?;
    Ok(if format == "att" {
        let text = String::from_utf8(bytes).expect("AT&T text is UTF-8");
        PyString::new(py, &text).into_any().unbind()
    } else {
        PyBytes::new(py, &bytes).into_any().unbind()
    })
}

/// The minimal byte automaton of the texts `a` accepts, each token read as its bytes in
/// `vocab` (the one `a` was compiled for): `format` "att" (AT&T text, `str`, labels byte +
/// 1), "fst" (an OpenFst binary file, `bytes`) or "dot" (Graphviz, `str`). `state_limit`
/// bounds the byte automaton (default 10,000 states), `time_budget` (seconds, default 10)
/// the time.
#[pyfunction]
#[pyo3(signature = (a, vocab, *, format = "att", state_limit = None, time_budget = None))]
pub fn project(
    py: Python<'_>,
    a: &AnyAutomaton,
    vocab: &Vocabulary,
    format: &str,
    state_limit: Option<Int>,
    time_budget: Option<f64>,
) -> PyResult<Py<PyAny>> {
    if !matches!(format, "att" | "fst" | "dot") {
        return Err(PyValueError::new_err(format!(
            "format must be \"att\", \"fst\" or \"dot\", got {format:?}"
        )));
    }
    let a = fsa(a, "project")?;
    same_vocabulary(&a, vocab, "project")?;
    let limit = Int::new(fstc_core::bytes::DEFAULT_DFA_STATE_LIMIT as u64);
    let alg = Limits::new(Some(state_limit.unwrap_or(limit)), time_budget, None).algebra()?;
    let inner = vocab.inner.as_ref();
    let dfa = py.detach(|| alg.project(&a, inner)).map_err(ops_error)?;
    Ok(match format {
        "dot" => PyString::new(py, &dfa.to_dot()).into_any().unbind(),
        "att" => {
            let text = to_text(&dfa.to_fst()).map_err(fstc_error)?;
            PyString::new(py, &text).into_any().unbind()
        }
        _ => {
            let bytes = to_binary(&dfa.to_fst()).map_err(fstc_error)?;
            PyBytes::new(py, &bytes).into_any().unbind()
        }
    })
}
