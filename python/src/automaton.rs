//! `fstc.AnyAutomaton`: a compiled token FSA or PDA (fstc-core's `AnyAutomaton`), shared
//! by its matchers.

use std::path::PathBuf;

use fstc_core::any::{self, SharedAutomaton};
use fstc_core::automaton::AutomatonKind;
use fstc_core::format::FormatError;
use fstc_core::matcher::DynMatcher;
use fstc_core::sample::{random_matcher_walk, random_walk, SplitMix64};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::fstc_error;
use crate::ints::Int;

/// A compiled constraint over one vocabulary's token ids: immutable, shared by any number
/// of `Matcher`s (one per sequence). Either kind of automaton file: a token FSA
/// (`kind == "fsa"`, from `compile_regex` and `compile_json_schema`) or a token PDA
/// (`kind == "pda"`, from `compile_grammar`); a `Matcher` walks both the same way. Store
/// with `save` / `to_bytes`, and load with `load` / `from_bytes` (every load validates the
/// file and tells the kind from its header).
#[pyclass(module = "fstc", frozen)]
#[derive(Clone)]
pub struct AnyAutomaton {
    pub(crate) inner: SharedAutomaton,
}

impl AnyAutomaton {
    /// A matcher at the start, through the decoding interface; `stack_limit` bounds a
    /// token PDA's stack (an FSA has none), `config_limit` a nondeterministic token PDA's
    /// live configurations.
    pub(crate) fn start_matcher(
        &self,
        stack_limit: Option<usize>,
        config_limit: Option<usize>,
    ) -> Box<dyn DynMatcher> {
        self.inner.matcher(stack_limit, config_limit)
    }

    pub(crate) fn from_any(any: any::AnyAutomaton) -> AnyAutomaton {
        AnyAutomaton {
            inner: SharedAutomaton::from(any),
        }
    }

    /// Picks the FSA's or the PDA's value.
    fn either<T>(
        &self,
        fsa: impl FnOnce(&fstc_core::automaton::TokenAutomaton) -> T,
        pda: impl FnOnce(&fstc_core::token_pda::TokenPda) -> T,
    ) -> T {
        match &self.inner {
            SharedAutomaton::Fsa(a) => fsa(a),
            SharedAutomaton::Pda(p) => pda(p),
        }
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
impl AnyAutomaton {
    /// Writes the automaton to a file (the format `fstc compile` writes).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.detach(|| self.either(|a| a.write_file(&path), |p| p.write_file(&path)))
            .map_err(format_error)
    }

    /// Reads and validates an automaton file of either kind.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let any = py
            .detach(|| any::AnyAutomaton::read_file(&path))
            .map_err(format_error)?;
        Ok(AnyAutomaton::from_any(any))
    }

    /// The automaton's file bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.either(|a| a.to_bytes(), |p| p.to_bytes()))
    }

    /// Validates and loads file bytes of either kind (any alignment).
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        let any = any::AnyAutomaton::from_bytes_copied(data).map_err(format_error)?;
        Ok(AnyAutomaton::from_any(any))
    }

    /// `"fsa"` (a token FSA: regexes, JSON Schemas) or `"pda"` (a token PDA: grammars).
    #[getter]
    fn kind(&self) -> &'static str {
        match self.inner.kind() {
            AutomatonKind::TokenPda => "pda",
            _ => "fsa",
        }
    }

    /// Number of states (of a PDA: nodes).
    #[getter]
    fn num_states(&self) -> u32 {
        self.either(|a| a.num_states(), |p| p.num_nodes())
    }

    /// Number of accepting states (where EOS is allowed; in a PDA, once the stack is empty).
    #[getter]
    fn num_accepting(&self) -> u32 {
        self.either(|a| a.num_accepting(), |p| p.num_accepting())
    }

    /// Number of token edges (class edges expanded) plus terminal edges; of a PDA, its
    /// class edges.
    #[getter]
    fn num_edges(&self) -> u32 {
        self.either(|a| a.num_edges(), |p| p.num_edges())
    }

    /// Number of token classes (tokens with the same target from every state).
    #[getter]
    fn num_classes(&self) -> u32 {
        self.either(|a| a.num_classes(), |p| p.num_classes())
    }

    /// Number of wildcard terminals (`IMAGE`, `TEXT_TOKEN`, ...); 0 for a PDA.
    #[getter]
    fn num_terminals(&self) -> u32 {
        self.either(|a| a.num_terminals(), |_| 0)
    }

    /// Number of stack symbols (return addresses) of a PDA; 0 for an FSA.
    #[getter]
    fn num_stack_symbols(&self) -> u32 {
        self.either(|_| 0, |p| p.num_stack_symbols())
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

    /// The EOS ids, allowed exactly where the text may end.
    #[getter]
    fn eos_ids(&self) -> Vec<u32> {
        self.inner.eos_ids().to_vec()
    }

    /// Size of the file bytes.
    #[getter]
    fn size_bytes(&self) -> usize {
        self.either(|a| a.memory_bytes(), |p| p.memory_bytes())
    }

    /// Seeded random walks, uniform over the allowed choices at each step (EOS included
    /// where allowed). Returns `(tokens, complete)` pairs; `complete` says the walk ended
    /// with EOS (not included in `tokens`) rather than after `max_tokens`.
    #[pyo3(signature = (count, seed = Int::new(0), max_tokens = Int::new(64)))]
    fn sample(&self, count: Int, seed: Int, max_tokens: Int) -> PyResult<Vec<(Vec<u32>, bool)>> {
        let (count, max_tokens) = (count.usize("count")?, max_tokens.usize("max_tokens")?);
        let mut rng = SplitMix64::new(seed.u64("seed")?);
        Ok((0..count)
            .map(|_| {
                let walk = match &self.inner {
                    SharedAutomaton::Fsa(a) => random_walk(a, &mut rng, max_tokens),
                    SharedAutomaton::Pda(p) => {
                        let mut m = self.start_matcher(None, None);
                        random_matcher_walk(m.as_mut(), p.eos_ids(), &mut rng, max_tokens)
                    }
                };
                (walk.tokens, walk.complete)
            })
            .collect())
    }

    fn __repr__(&self) -> String {
        format!(
            "AnyAutomaton(kind={:?}, states={}, edges={}, vocab_size={}, bytes={})",
            self.kind(),
            self.num_states(),
            self.num_edges(),
            self.inner.vocab_size(),
            self.size_bytes()
        )
    }
}
