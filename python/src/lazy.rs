//! `fstc.LazyAutomaton`: a constraint compiled with `lazy=True` (fstc-core's `lazy`
//! module), and [`EitherAutomaton`], what a `Matcher` walks: either kind of Python automaton.

use fstc_core::lazy;
use fstc_core::matcher::DynMatcher;
use fstc_core::sample::{random_matcher_walk, SplitMix64};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::automaton::AnyAutomaton;
use crate::ints::Int;

/// A regex or JSON Schema compiled with `lazy=True`: only the byte DFA is built, and each
/// state's allowed tokens are composed (one walk of the vocabulary trie) the first time a
/// matcher reaches it, then cached for every matcher and copy of this automaton, across
/// threads. The choice for a constraint used once (a schema per request): compiling it
/// and filling the first mask is several times faster than an eager compile, while the
/// first visit of each state costs a trie walk (tenths of a millisecond to a few on
/// 128k-152k vocabularies). `Matcher` walks it exactly as the eager `AnyAutomaton` of
/// the same constraint. It has no file form: there is no `save`/`to_bytes`; compile
/// without `lazy` to store an automaton.
#[pyclass(module = "fstc", frozen)]
#[derive(Clone)]
pub struct LazyAutomaton {
    inner: lazy::LazyAutomaton,
    /// The fingerprint of the vocabulary compiled for (the trie's).
    fingerprint: u64,
}

impl LazyAutomaton {
    pub(crate) fn new(inner: lazy::LazyAutomaton, fingerprint: u64) -> LazyAutomaton {
        LazyAutomaton { inner, fingerprint }
    }

    fn start_matcher(&self) -> Box<dyn DynMatcher> {
        Box::new(self.inner.start_matcher())
    }
}

#[pymethods]
impl LazyAutomaton {
    /// `"lazy"` (an `AnyAutomaton` says `"fsa"` or `"pda"`).
    #[getter]
    fn kind(&self) -> &'static str {
        "lazy"
    }

    /// Number of byte-DFA states: the most states the cache can hold.
    #[getter]
    fn num_dfa_states(&self) -> usize {
        self.inner.num_dfa_states()
    }

    /// Number of states whose tokens have been composed so far (by any matcher).
    #[getter]
    fn num_cached_states(&self) -> usize {
        self.inner.num_cached_states()
    }

    /// Size of the vocabulary compiled for; a bitmask row needs at least
    /// `ceil(vocab_size / 32)` int32 words.
    #[getter]
    fn vocab_size(&self) -> u32 {
        self.inner.vocab_size()
    }

    /// Fingerprint of that vocabulary (see `Vocabulary.fingerprint`).
    #[getter]
    fn vocab_fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The EOS ids, allowed exactly where the text may end.
    #[getter]
    fn eos_ids(&self) -> Vec<u32> {
        self.inner.eos_ids().to_vec()
    }

    /// Seeded random walks, uniform over the allowed choices at each step (EOS included
    /// where allowed), as `AnyAutomaton.sample`: `(tokens, complete)` pairs. The states
    /// walked through are composed and cached. The GIL is released.
    #[pyo3(signature = (count, seed = Int::new(0), max_tokens = Int::new(64)))]
    fn sample(
        &self,
        py: Python<'_>,
        count: Int,
        seed: Int,
        max_tokens: Int,
    ) -> PyResult<Vec<(Vec<u32>, bool)>> {
        let (count, max_tokens) = (count.usize("count")?, max_tokens.usize("max_tokens")?);
        let seed = seed.u64("seed")?;
        Ok(py.detach(|| {
            let mut rng = SplitMix64::new(seed);
            let eos = self.inner.eos_ids();
            (0..count)
                .map(|_| {
                    let mut m = self.inner.start_matcher();
                    let walk = random_matcher_walk(&mut m, eos, &mut rng, max_tokens);
                    (walk.tokens, walk.complete)
                })
                .collect()
        }))
    }

    fn __repr__(&self) -> String {
        format!(
            "LazyAutomaton(dfa_states={}, cached_states={}, vocab_size={})",
            self.inner.num_dfa_states(),
            self.inner.num_cached_states(),
            self.inner.vocab_size()
        )
    }
}

/// What `compile_regex` / `compile_json_schema` return and a `Matcher` walks.
#[derive(Clone, IntoPyObject)]
pub enum EitherAutomaton {
    /// Composed up front (a file can hold it).
    Any(AnyAutomaton),
    /// Composed state by state as matchers reach them.
    Lazy(LazyAutomaton),
}

impl EitherAutomaton {
    /// `automaton` as either kind, else a `TypeError` naming what it is.
    pub(crate) fn extract(automaton: &Bound<'_, PyAny>) -> PyResult<EitherAutomaton> {
        if let Ok(a) = automaton.cast::<AnyAutomaton>() {
            return Ok(EitherAutomaton::Any(a.get().clone()));
        }
        if let Ok(a) = automaton.cast::<LazyAutomaton>() {
            return Ok(EitherAutomaton::Lazy(a.get().clone()));
        }
        Err(PyTypeError::new_err(format!(
            "expected an AnyAutomaton or a LazyAutomaton, got {}",
            automaton.get_type().name()?
        )))
    }

    /// Whether a first visit of a state may compose it (a trie walk: worth releasing the
    /// GIL for).
    pub(crate) fn is_lazy(&self) -> bool {
        matches!(self, EitherAutomaton::Lazy(_))
    }

    /// A matcher at the start; `stack_limit` bounds a token PDA's stack, `config_limit` a
    /// nondeterministic token PDA's live configurations.
    pub(crate) fn start_matcher(
        &self,
        stack_limit: Option<usize>,
        config_limit: Option<usize>,
    ) -> Box<dyn DynMatcher> {
        match self {
            EitherAutomaton::Any(a) => a.start_matcher(stack_limit, config_limit),
            EitherAutomaton::Lazy(a) => a.start_matcher(),
        }
    }
}
