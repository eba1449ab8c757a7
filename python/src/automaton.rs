//! `fstc.TokenAutomaton` and the `compile_*` functions that build one.

use std::path::PathBuf;
use std::sync::Arc;

use fst_core::automaton::TokenAutomaton as Automaton;
use fst_core::compiler::RegexCompiler;
use fst_core::format::FormatError;
use fst_core::matcher::DynMatcher;
use fst_core::sample::{random_walk, SplitMix64};
use fst_core::walker::OwnedWalker;
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::fstc_error;
use crate::vocab::Vocabulary;

/// A compiled constraint over one vocabulary's token ids: immutable, shared by any number
/// of `Matcher`s (one per sequence). Build with `compile_regex`, store with `save` /
/// `to_bytes`, and load with `load` / `from_bytes` (every load validates the file).
#[pyclass(module = "fstc", frozen)]
#[derive(Clone)]
pub struct TokenAutomaton {
    pub(crate) inner: Arc<Automaton>,
}

impl TokenAutomaton {
    /// A matcher at the start, through the decoding interface (the one place that
    /// knows which walker an automaton kind uses).
    pub(crate) fn start_matcher(&self) -> Box<dyn DynMatcher> {
        Box::new(OwnedWalker::new(Arc::clone(&self.inner)))
    }
}

/// A file error as `OSError` when the operating system refused, else `FstcError`.
fn format_error(e: FormatError) -> PyErr {
    match e.io_error() {
        Some(_) => PyOSError::new_err(e.to_string()),
        None => fstc_error(e),
    }
}

#[pymethods]
impl TokenAutomaton {
    /// Writes the automaton to a file (the format `fstc compile` writes).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.detach(|| self.inner.write_file(&path))
            .map_err(format_error)
    }

    /// Reads and validates an automaton file.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let inner = py
            .detach(|| Automaton::read_file(&path))
            .map_err(format_error)?;
        Ok(TokenAutomaton {
            inner: Arc::new(inner),
        })
    }

    /// The automaton's file bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_bytes())
    }

    /// Validates and loads file bytes (any alignment).
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        let inner = Automaton::from_bytes_copied(data).map_err(format_error)?;
        Ok(TokenAutomaton {
            inner: Arc::new(inner),
        })
    }

    /// Number of states.
    #[getter]
    fn num_states(&self) -> u32 {
        self.inner.num_states()
    }

    /// Number of accepting states (where EOS is allowed).
    #[getter]
    fn num_accepting(&self) -> u32 {
        self.inner.num_accepting()
    }

    /// Number of token edges (class edges expanded) plus terminal edges.
    #[getter]
    fn num_edges(&self) -> u32 {
        self.inner.num_edges()
    }

    /// Number of token classes (tokens with the same target from every state).
    #[getter]
    fn num_classes(&self) -> u32 {
        self.inner.num_classes()
    }

    /// Number of wildcard terminals (`IMAGE`, `TEXT_TOKEN`, ...).
    #[getter]
    fn num_terminals(&self) -> u32 {
        self.inner.num_terminals()
    }

    /// Size of the vocabulary the automaton was compiled for; a bitmask row needs at
    /// least `ceil(vocab_size / 32)` int32 words.
    #[getter]
    fn vocab_size(&self) -> u32 {
        self.inner.vocab_size()
    }

    /// Fingerprint of that vocabulary (see `Vocabulary.fingerprint`).
    #[getter]
    fn vocab_fingerprint(&self) -> u64 {
        self.inner.vocab_fingerprint()
    }

    /// The EOS ids, allowed exactly in accepting states.
    #[getter]
    fn eos_ids(&self) -> Vec<u32> {
        self.inner.eos_ids().to_vec()
    }

    /// Size of the file bytes.
    #[getter]
    fn size_bytes(&self) -> usize {
        self.inner.memory_bytes()
    }

    /// Seeded random walks, uniform over the allowed choices at each step (EOS included
    /// where allowed). Returns `(tokens, complete)` pairs; `complete` says the walk ended
    /// with EOS (not included in `tokens`) rather than after `max_tokens`.
    #[pyo3(signature = (n, seed = 0, max_tokens = 64))]
    fn sample(&self, n: usize, seed: u64, max_tokens: usize) -> Vec<(Vec<u32>, bool)> {
        let mut rng = SplitMix64::new(seed);
        (0..n)
            .map(|_| {
                let walk = random_walk(&self.inner, &mut rng, max_tokens);
                (walk.tokens, walk.complete)
            })
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "TokenAutomaton(states={}, edges={}, vocab_size={}, bytes={})",
            self.inner.num_states(),
            self.inner.num_edges(),
            self.inner.vocab_size(),
            self.inner.memory_bytes()
        )
    }
}

/// Compiles a regular expression (full-match semantics, the `regex` crate's syntax plus
/// fstc's extensions) into a token automaton for `vocab`. The GIL is released while
/// compiling. Limits turn state explosions into `FstcError`s.
#[pyfunction]
#[pyo3(signature = (pattern, vocab, *, dfa_state_limit = None, token_edge_limit = None, image_tokens = None))]
pub fn compile_regex(
    py: Python<'_>,
    pattern: &str,
    vocab: &Vocabulary,
    dfa_state_limit: Option<usize>,
    token_edge_limit: Option<usize>,
    image_tokens: Option<Vec<u32>>,
) -> PyResult<TokenAutomaton> {
    let mut compiler = RegexCompiler::new();
    if let Some(limit) = dfa_state_limit {
        compiler = compiler.dfa_state_limit(limit);
    }
    if let Some(limit) = token_edge_limit {
        compiler = compiler.token_edge_limit(limit);
    }
    if let Some(ids) = image_tokens {
        compiler = compiler.image_tokens(ids);
    }
    let vocab = Arc::clone(&vocab.inner);
    let inner = py
        .detach(|| compiler.compile(pattern, vocab.as_ref()))
        .map_err(fstc_error)?;
    Ok(TokenAutomaton {
        inner: Arc::new(inner),
    })
}
