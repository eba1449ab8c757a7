//! `fstc.Matcher` (one sequence's position in an automaton, with vLLM's structured-output
//! semantics) and `fill_bitmasks` (many matchers into one bitmask, in parallel).

use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard};

use fstc_core::matcher::{DynMatcher, MatchErrorKind};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::bitmask::Bitmask;
use crate::errors::fstc_error;
use crate::ints::{Int, TokenId};
use crate::lazy::EitherAutomaton;
use crate::walk::mask_ones;

/// One sequence's position in a token automaton of any kind (a token PDA's position
/// includes its stack; a lazy automaton's composes states on first visit). Cheap to
/// create and to copy: the automaton is shared. A token id that is no token of the
/// vocabulary (negative, too large, of any size) is simply not allowed. Safe to share
/// across threads: each operation holds the matcher's lock for its duration (never while
/// holding the GIL and waiting, so threads cannot deadlock on it).
#[pyclass(module = "fstc")]
pub struct Matcher {
    /// The position, through fstc-core's decoding interface (any automaton kind).
    inner: Mutex<Box<dyn DynMatcher>>,
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

/// The matcher behind `lock` (a panic inside an operation leaves a position that is still
/// whole: each operation changes it only on success).
fn locked(lock: &Mutex<Box<dyn DynMatcher>>) -> MutexGuard<'_, Box<dyn DynMatcher>> {
    lock.lock().unwrap_or_else(|e| e.into_inner())
}

impl Matcher {
    /// Runs `f` on the matcher under its lock, without the GIL when lazy (see `detach_if`).
    fn with<T: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut dyn DynMatcher) -> T + Send) -> T {
        let inner = &self.inner;
        detach_if(py, self.automaton.is_lazy(), || f(locked(inner).as_mut()))
    }

    /// How many leading tokens would be accepted, stopping at the first impossible id.
    fn valid_prefix(&self, py: Python<'_>, tokens: &[TokenId]) -> usize {
        let ids: Vec<u32> = tokens.iter().map_while(|t| t.0).collect();
        self.with(py, |m| m.validate_tokens(&ids))
    }
}

#[pymethods]
impl Matcher {
    /// A matcher at the start state of `automaton` (an `AnyAutomaton` or a
    /// `LazyAutomaton`). `stack_limit` bounds a token PDA's stack (default 10,000
    /// symbols): masks leave out a token that would push past it, and `accept_tokens`
    /// given one raises `FstcError`. An FSA has no stack and ignores it. `config_limit`
    /// bounds the live configurations of a nondeterministic token PDA's matcher (default
    /// 1,024): `accept_tokens` given a token that would leave more raises `FstcError`
    /// (masks do not reflect it: it is a resource limit, not part of the language). Other
    /// automata follow one configuration and ignore it.
    #[new]
    #[pyo3(signature = (automaton, stack_limit = None, config_limit = None))]
    fn new(
        automaton: &Bound<'_, PyAny>,
        stack_limit: Option<Int>,
        config_limit: Option<Int>,
    ) -> PyResult<Self> {
        let stack_limit = stack_limit.map(|l| l.usize("stack_limit")).transpose()?;
        let config_limit = config_limit.map(|l| l.usize("config_limit")).transpose()?;
        let automaton = EitherAutomaton::extract(automaton)?;
        Ok(Matcher {
            inner: Mutex::new(automaton.start_matcher(stack_limit, config_limit)),
            automaton,
        })
    }

    /// A copy of this matcher at the same position, with the same history (so it can
    /// roll back as far), sharing the automaton: fork one per beam or parallel sample.
    /// The two then move independently.
    fn copy(&self, py: Python<'_>) -> Matcher {
        Matcher {
            inner: Mutex::new(self.with(py, |m| m.fork())),
            automaton: self.automaton.clone(),
        }
    }

    /// `copy.copy(matcher)`: see `copy`.
    fn __copy__(&self, py: Python<'_>) -> Matcher {
        self.copy(py)
    }

    /// `copy.deepcopy(matcher)`: see `copy` (the automaton is immutable and stays
    /// shared).
    fn __deepcopy__(&self, py: Python<'_>, _memo: &Bound<'_, PyAny>) -> Matcher {
        self.copy(py)
    }

    /// Consumes all of `tokens` and returns True, or, if any is not allowed where it
    /// comes, consumes none and returns False. EOS in an accepting state terminates the
    /// matcher; nothing is accepted after it. A token that would push a PDA's stack past
    /// its limit (masks leave it out), or would leave a nondeterministic PDA's walker more
    /// live configurations than its limit, or needs a lazy automaton's state whose
    /// composition passes its work limit, raises `FstcError` (consuming none), so a
    /// decoder can tell a limit from an ordinary refusal.
    fn accept_tokens(&self, py: Python<'_>, tokens: Vec<TokenId>) -> PyResult<bool> {
        let Some(ids) = tokens.iter().map(|t| t.0).collect::<Option<Vec<u32>>>() else {
            return Ok(false);
        };
        match self.with(py, |m| m.consume_tokens(&ids)) {
            Ok(()) => Ok(true),
            Err(e)
                if matches!(
                    e.kind(),
                    MatchErrorKind::StackLimit
                        | MatchErrorKind::ConfigLimit
                        | MatchErrorKind::ComposeLimit
                ) =>
            {
                Err(fstc_error(e))
            }
            Err(_) => Ok(false),
        }
    }

    /// `accept_tokens([token])`.
    fn accept_token(&self, py: Python<'_>, token: TokenId) -> PyResult<bool> {
        self.accept_tokens(py, vec![token])
    }

    /// How many leading tokens of `tokens` would be accepted from here, without moving
    /// (EOS counts, and ends the prefix).
    fn validate_tokens(&self, py: Python<'_>, tokens: Vec<TokenId>) -> usize {
        self.valid_prefix(py, &tokens)
    }

    /// Undoes the last `n` accepted tokens (EOS included). Raises `FstcError`, changing
    /// nothing, if fewer than `n` were accepted.
    fn rollback(&self, py: Python<'_>, n: Int) -> PyResult<()> {
        let n = n.usize("n")?;
        self.with(py, |m| m.rollback(n)).map_err(fstc_error)
    }

    /// Writes the allowed next tokens into row `index` of `bitmask`, an int32 array of
    /// shape (batch, words) with words >= ceil(vocab_size / 32): token t is allowed iff
    /// bit t % 32 of word t // 32 is set (bit 31 is the sign bit). The whole row is
    /// written; bits past the vocabulary are 0; after EOS the row is all 0.
    #[pyo3(signature = (bitmask, index = Int::new(0)))]
    fn fill_bitmask(&self, py: Python<'_>, bitmask: &Bound<'_, PyAny>, index: Int) -> PyResult<()> {
        let index = index.usize("index")?;
        let mask = Bitmask::from_py(bitmask)?;
        mask.rows.check_index(index, "index")?;
        let rows = mask.rows;
        self.with(py, |m| {
            // SAFETY: the index is in range, the array is held by `mask`, and this is the
            // only slice of the row.
            m.fill_mask(unsafe { rows.row(index) })
        })
        .map_err(fstc_error)
    }

    /// The allowed next token ids, sorted (EOS ids included where allowed).
    fn allowed_tokens(&self, py: Python<'_>) -> PyResult<Vec<u32>> {
        let mask = self.with(py, |m| {
            let mut mask = vec![0u32; m.mask_words()];
            m.fill_mask(&mut mask).map(|()| mask)
        });
        Ok(mask_ones(&mask.map_err(fstc_error)?))
    }

    /// Whether EOS has been accepted: the constrained output is complete.
    fn is_terminated(&self, py: Python<'_>) -> bool {
        self.with(py, |m| m.is_finished())
    }

    /// Whether the text so far is complete, i.e. EOS is allowed now (or was accepted).
    fn is_accepting(&self, py: Python<'_>) -> bool {
        self.with(py, |m| m.is_accepting())
    }

    /// Whether EOS is the only token allowed now: a decoder can stop without sampling.
    /// A query of the position (no mask fill).
    fn only_eos_allowed(&self, py: Python<'_>) -> bool {
        self.with(py, |m| m.only_eos_allowed())
    }

    /// Back to the start state with nothing accepted.
    fn reset(&self, py: Python<'_>) {
        self.with(py, |m| m.reset())
    }

    /// The tokens the constraint forces from here (jump-forward): a decoder may append
    /// them without sampling, then `accept_tokens` them.
    fn forced_tokens(&self, py: Python<'_>) -> Vec<u32> {
        self.with(py, |m| m.forced_tokens())
    }

    /// Number of tokens accepted since the start, EOS included.
    #[getter]
    fn num_accepted(&self, py: Python<'_>) -> usize {
        self.with(py, |m| m.num_consumed())
    }

    /// The vocabulary size of the automaton (minimum bitmask width is its ceil / 32).
    #[getter]
    fn vocab_size(&self, py: Python<'_>) -> u32 {
        self.with(py, |m| m.vocab_size())
    }

    /// The automaton being matched (an `AnyAutomaton` or a `LazyAutomaton`).
    #[getter]
    fn automaton(&self) -> EitherAutomaton {
        self.automaton.clone()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let yes_no = |b: bool| if b { "True" } else { "False" };
        self.with(py, |m| {
            format!(
                "Matcher(accepted={}, accepting={}, terminated={})",
                m.num_consumed(),
                yes_no(m.is_accepting()),
                yes_no(m.is_finished())
            )
        })
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
    indices: Option<Vec<Int>>,
) -> PyResult<()> {
    let mask = Bitmask::from_py(bitmask)?;
    let indices = match indices {
        Some(list) => list
            .iter()
            .map(|i| i.usize("indices"))
            .collect::<PyResult<Vec<usize>>>()?,
        None => (0..matchers.len()).collect(),
    };
    if indices.len() != matchers.len() {
        return Err(PyValueError::new_err(format!(
            "{} matchers but {} row indices",
            matchers.len(),
            indices.len()
        )));
    }
    let mut seen = HashSet::with_capacity(indices.len());
    for &i in &indices {
        mask.rows.check_index(i, "indices")?;
        if !seen.insert(i) {
            return Err(PyValueError::new_err(format!(
                "bitmask row {i} is named twice in indices"
            )));
        }
    }
    // Each distinct matcher is locked once (one may fill several rows), without the GIL,
    // in address order: calls from several threads over shared matchers cannot deadlock.
    let addr = |l: &Mutex<Box<dyn DynMatcher>>| l as *const _ as usize;
    let mut locks: Vec<&Mutex<Box<dyn DynMatcher>>> = matchers.iter().map(|m| &m.inner).collect();
    locks.sort_by_key(|l| addr(l));
    locks.dedup_by_key(|l| addr(l));
    let slot: Vec<usize> = matchers
        .iter()
        .map(|m| locks.partition_point(|l| addr(l) < addr(&m.inner)))
        .collect();
    let rows = mask.rows;
    py.detach(|| {
        let guards: Vec<_> = locks.iter().map(|l| locked(l)).collect();
        let inners: Vec<&dyn DynMatcher> = slot.iter().map(|&k| guards[k].as_ref()).collect();
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
