//! `fstc.Matcher` (one sequence's position in an automaton, with vLLM's structured-output
//! semantics) and `fill_bitmasks` (many matchers into one bitmask, in parallel).

use std::collections::HashSet;

use fstc_core::matcher::{DynMatcher, MatchErrorKind};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::bitmask::Bitmask;
use crate::errors::fstc_error;
use crate::lazy::EitherAutomaton;
use crate::walk::mask_ones;

/// One sequence's position in a token automaton of any kind (a token PDA's position
/// includes its stack; a lazy automaton's composes states on first visit). Cheap to
/// create and to copy: the automaton is shared. Token ids outside `0..2**32` are simply
/// not allowed.
#[pyclass(module = "fstc")]
pub struct Matcher {
    /// The position, through fstc-core's decoding interface (any automaton kind).
    inner: Box<dyn DynMatcher>,
    automaton: EitherAutomaton,
}

/// Runs `f` without the GIL when `lazy`: a step into a state no matcher reached before
/// composes it (a walk of the vocabulary trie, up to milliseconds), and other Python
/// threads should not wait on that. An eager step is too short to be worth the switch.
fn detach_if<T: Send>(py: Python<'_>, lazy: bool, f: impl FnOnce() -> T + Send) -> T {
    if lazy {
        py.detach(f)
    } else {
        f()
    }
}

/// Token ids as `u32`, or `None` if one cannot be a token id (and so is never allowed).
fn token_ids(tokens: &[i64]) -> Vec<Option<u32>> {
    tokens.iter().map(|&t| u32::try_from(t).ok()).collect()
}

impl Matcher {
    /// How many leading tokens would be accepted, stopping at the first impossible id.
    fn valid_prefix(&self, py: Python<'_>, tokens: &[i64]) -> usize {
        let ids: Vec<u32> = token_ids(tokens).into_iter().map_while(|t| t).collect();
        let inner = &self.inner;
        detach_if(py, self.automaton.is_lazy(), || inner.validate_tokens(&ids))
    }
}

#[pymethods]
impl Matcher {
    /// A matcher at the start state of `automaton` (an `AnyAutomaton` or a
    /// `LazyAutomaton`). `stack_limit` bounds a token PDA's stack (default 10,000
    /// symbols): masks leave out a token that would push past it, and `accept_tokens`
    /// given one raises `FstcError`. An FSA has no stack and ignores it.
    #[new]
    #[pyo3(signature = (automaton, stack_limit = None))]
    fn new(automaton: &Bound<'_, PyAny>, stack_limit: Option<usize>) -> PyResult<Self> {
        let automaton = EitherAutomaton::extract(automaton)?;
        Ok(Matcher {
            inner: automaton.start_matcher(stack_limit),
            automaton,
        })
    }

    /// A copy of this matcher at the same position, with the same history (so it can
    /// roll back as far), sharing the automaton: fork one per beam or parallel sample.
    /// The two then move independently.
    fn copy(&self) -> Matcher {
        Matcher {
            inner: self.inner.fork(),
            automaton: self.automaton.clone(),
        }
    }

    /// `copy.copy(matcher)`: see `copy`.
    fn __copy__(&self) -> Matcher {
        self.copy()
    }

    /// `copy.deepcopy(matcher)`: see `copy` (the automaton is immutable and stays
    /// shared).
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Matcher {
        self.copy()
    }

    /// Consumes all of `tokens` and returns True, or, if any is not allowed where it
    /// comes, consumes none and returns False. EOS in an accepting state terminates the
    /// matcher; nothing is accepted after it. A token that would push a PDA's stack past
    /// its limit (masks leave it out), or would leave a nondeterministic PDA's walker more
    /// live configurations than its limit, raises `FstcError` (consuming none), so a
    /// decoder can tell a limit from an ordinary refusal.
    fn accept_tokens(&mut self, py: Python<'_>, tokens: Vec<i64>) -> PyResult<bool> {
        let Some(ids) = token_ids(&tokens).into_iter().collect::<Option<Vec<u32>>>() else {
            return Ok(false);
        };
        let inner = &mut self.inner;
        match detach_if(py, self.automaton.is_lazy(), || inner.consume_tokens(&ids)) {
            Ok(()) => Ok(true),
            Err(e)
                if matches!(
                    e.kind(),
                    MatchErrorKind::StackLimit | MatchErrorKind::ConfigLimit
                ) =>
            {
                Err(fstc_error(e))
            }
            Err(_) => Ok(false),
        }
    }

    /// `accept_tokens([token])`.
    fn accept_token(&mut self, py: Python<'_>, token: i64) -> PyResult<bool> {
        self.accept_tokens(py, vec![token])
    }

    /// How many leading tokens of `tokens` would be accepted from here, without moving
    /// (EOS counts, and ends the prefix).
    fn validate_tokens(&self, py: Python<'_>, tokens: Vec<i64>) -> usize {
        self.valid_prefix(py, &tokens)
    }

    /// Undoes the last `n` accepted tokens (EOS included). Raises `FstcError`, changing
    /// nothing, if fewer than `n` were accepted.
    fn rollback(&mut self, n: usize) -> PyResult<()> {
        self.inner.rollback(n).map_err(fstc_error)
    }

    /// Writes the allowed next tokens into row `index` of `bitmask`, an int32 array of
    /// shape (batch, words) with words >= ceil(vocab_size / 32): token t is allowed iff
    /// bit t % 32 of word t // 32 is set (bit 31 is the sign bit). The whole row is
    /// written; bits past the vocabulary are 0; after EOS the row is all 0.
    #[pyo3(signature = (bitmask, index = 0))]
    fn fill_bitmask(
        &self,
        py: Python<'_>,
        bitmask: &Bound<'_, PyAny>,
        index: usize,
    ) -> PyResult<()> {
        let mask = Bitmask::from_py(bitmask)?;
        mask.rows.check_index(index)?;
        let (rows, inner) = (mask.rows, &self.inner);
        detach_if(py, self.automaton.is_lazy(), || {
            // SAFETY: the index is in range, the array is held by `mask`, and this is the
            // only slice of the row.
            inner.fill_mask(unsafe { rows.row(index) })
        })
        .map_err(fstc_error)
    }

    /// The allowed next token ids, sorted (EOS ids included where allowed).
    fn allowed_tokens(&self, py: Python<'_>) -> PyResult<Vec<u32>> {
        let inner = &self.inner;
        let mask = detach_if(py, self.automaton.is_lazy(), || {
            let mut mask = vec![0u32; inner.mask_words()];
            inner.fill_mask(&mut mask).map(|()| mask)
        });
        Ok(mask_ones(&mask.map_err(fstc_error)?))
    }

    /// Whether EOS has been accepted: the constrained output is complete.
    fn is_terminated(&self) -> bool {
        self.inner.is_finished()
    }

    /// Whether the text so far is complete, i.e. EOS is allowed now (or was accepted).
    fn is_accepting(&self) -> bool {
        self.inner.is_accepting()
    }

    /// Whether EOS is the only token allowed now: a decoder can stop without sampling.
    /// A query of the position (no mask fill).
    fn only_eos_allowed(&self, py: Python<'_>) -> bool {
        let inner = &self.inner;
        detach_if(py, self.automaton.is_lazy(), || inner.only_eos_allowed())
    }

    /// Back to the start state with nothing accepted.
    fn reset(&mut self) {
        self.inner.reset()
    }

    /// The tokens the constraint forces from here (jump-forward): a decoder may append
    /// them without sampling, then `accept_tokens` them.
    fn forced_tokens(&self, py: Python<'_>) -> Vec<u32> {
        let inner = &self.inner;
        detach_if(py, self.automaton.is_lazy(), || inner.forced_tokens())
    }

    /// Number of tokens accepted since the start, EOS included.
    #[getter]
    fn num_accepted(&self) -> usize {
        self.inner.num_consumed()
    }

    /// The vocabulary size of the automaton (minimum bitmask width is its ceil / 32).
    #[getter]
    fn vocab_size(&self) -> u32 {
        self.inner.vocab_size()
    }

    /// The automaton being matched (an `AnyAutomaton` or a `LazyAutomaton`).
    #[getter]
    fn automaton(&self) -> EitherAutomaton {
        self.automaton.clone()
    }

    fn __repr__(&self) -> String {
        let yes_no = |b: bool| if b { "True" } else { "False" };
        format!(
            "Matcher(accepted={}, accepting={}, terminated={})",
            self.inner.num_consumed(),
            yes_no(self.inner.is_accepting()),
            yes_no(self.inner.is_finished())
        )
    }
}

/// Fills row `indices[i]` of `bitmask` for `matchers[i]` (row i when `indices` is
/// None), in parallel on a thread pool with the GIL released. Rows must be distinct; a
/// matcher may fill several rows (beams that share a prefix).
#[pyfunction]
#[pyo3(signature = (matchers, bitmask, indices = None))]
pub fn fill_bitmasks(
    py: Python<'_>,
    matchers: Vec<PyRef<'_, Matcher>>,
    bitmask: &Bound<'_, PyAny>,
    indices: Option<Vec<usize>>,
) -> PyResult<()> {
    let mask = Bitmask::from_py(bitmask)?;
    let indices = indices.unwrap_or_else(|| (0..matchers.len()).collect());
    if indices.len() != matchers.len() {
        return Err(PyValueError::new_err(format!(
            "{} matchers but {} row indices",
            matchers.len(),
            indices.len()
        )));
    }
    let mut seen = HashSet::with_capacity(indices.len());
    for &i in &indices {
        mask.rows.check_index(i)?;
        if !seen.insert(i) {
            return Err(PyValueError::new_err(format!(
                "bitmask row {i} is named twice in indices"
            )));
        }
    }
    let inners: Vec<&dyn DynMatcher> = matchers.iter().map(|m| m.inner.as_ref()).collect();
    let rows = mask.rows;
    py.detach(|| {
        inners
            .par_iter()
            .zip(indices.par_iter())
            .try_for_each(|(matcher, &i)| {
                // SAFETY: indices are distinct and in range, and `mask` keeps the array alive.
                matcher.fill_mask(unsafe { rows.row(i) })
            })
    })
    .map_err(fstc_error)
}
