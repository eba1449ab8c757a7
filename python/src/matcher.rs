//! `fstc.Matcher` (one sequence's position in an automaton, with vLLM's structured-output
//! semantics) and `fill_bitmasks` (many matchers into one bitmask, in parallel).

use std::collections::HashSet;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::automaton::TokenAutomaton;
use crate::bitmask::Bitmask;
use crate::errors::fstc_error;
use crate::walk::Cursor;

/// One sequence's position in a token automaton. Cheap to create: the automaton is
/// shared. Token ids outside `0..2**32` are simply not allowed.
#[pyclass(module = "fstc")]
pub struct Matcher {
    cursor: Cursor,
}

/// Token ids as `u32`, or `None` if one cannot be a token id (and so is never allowed).
fn token_ids(tokens: &[i64]) -> Vec<Option<u32>> {
    tokens.iter().map(|&t| u32::try_from(t).ok()).collect()
}

impl Matcher {
    /// How many leading tokens would be accepted, stopping at the first impossible id.
    fn valid_prefix(&self, tokens: &[i64]) -> (usize, Vec<u32>) {
        let ids: Vec<u32> = token_ids(tokens).into_iter().map_while(|t| t).collect();
        (self.cursor.validate_tokens(&ids), ids)
    }
}

#[pymethods]
impl Matcher {
    /// A matcher at the automaton's start state.
    #[new]
    fn new(automaton: &TokenAutomaton) -> Self {
        Matcher {
            cursor: Cursor::new(automaton.inner.clone()),
        }
    }

    /// Consumes all of `tokens` and returns True, or, if any is not allowed where it
    /// comes, consumes none and returns False. EOS in an accepting state terminates the
    /// matcher; nothing is accepted after it.
    fn accept_tokens(&mut self, tokens: Vec<i64>) -> bool {
        let (n, ids) = self.valid_prefix(&tokens);
        if n != tokens.len() {
            return false;
        }
        // Cannot fail: validated above.
        self.cursor.consume_tokens(&ids).is_ok()
    }

    /// `accept_tokens([token])`.
    fn accept_token(&mut self, token: i64) -> bool {
        self.accept_tokens(vec![token])
    }

    /// How many leading tokens of `tokens` would be accepted from here, without moving
    /// (EOS counts, and ends the prefix).
    fn validate_tokens(&self, tokens: Vec<i64>) -> usize {
        self.valid_prefix(&tokens).0
    }

    /// Undoes the last `n` accepted tokens (EOS included). Raises `FstcError`, changing
    /// nothing, if fewer than `n` were accepted.
    fn rollback(&mut self, n: usize) -> PyResult<()> {
        self.cursor.rollback(n).map_err(fstc_error)
    }

    /// Writes the allowed next tokens into row `index` of `bitmask`, an int32 array of
    /// shape (batch, words) with words >= ceil(vocab_size / 32): token t is allowed iff
    /// bit t % 32 of word t // 32 is set (bit 31 is the sign bit). The whole row is
    /// written; bits past the vocabulary are 0; after EOS the row is all 0.
    #[pyo3(signature = (bitmask, index = 0))]
    fn fill_bitmask(&self, bitmask: &Bound<'_, PyAny>, index: usize) -> PyResult<()> {
        let mask = Bitmask::from_py(bitmask)?;
        mask.rows.check_index(index)?;
        // SAFETY: the index is in range, the array is held by `mask`, and this is the only
        // slice of the row.
        let row = unsafe { mask.rows.row(index) };
        self.cursor.fill_mask(row).map_err(fstc_error)
    }

    /// The allowed next token ids, sorted (EOS ids included where allowed).
    fn allowed_tokens(&self) -> PyResult<Vec<u32>> {
        let vocab = self.cursor.automaton().vocab_size() as usize;
        let mut mask = vec![0u32; vocab.div_ceil(32)];
        self.cursor.fill_mask(&mut mask).map_err(fstc_error)?;
        let ones = mask.iter().enumerate().flat_map(|(i, &w)| {
            (0..32)
                .filter(move |b| w >> b & 1 == 1)
                .map(move |b| (i * 32 + b) as u32)
        });
        Ok(ones.collect())
    }

    /// Whether EOS has been accepted: the constrained output is complete.
    fn is_terminated(&self) -> bool {
        self.cursor.is_finished()
    }

    /// Whether the text so far is complete, i.e. EOS is allowed now (or was accepted).
    fn is_accepting(&self) -> bool {
        self.cursor.is_accepting()
    }

    /// Whether EOS is the only token allowed now.
    fn only_eos_allowed(&self) -> bool {
        self.cursor.only_eos_allowed()
    }

    /// Back to the start state with nothing accepted.
    fn reset(&mut self) {
        self.cursor.reset()
    }

    /// The tokens the constraint forces from here (jump-forward): a decoder may append
    /// them without sampling, then `accept_tokens` them.
    fn forced_tokens(&self) -> Vec<u32> {
        self.cursor.forced_tokens()
    }

    /// Number of tokens accepted since the start, EOS included.
    #[getter]
    fn num_accepted(&self) -> usize {
        self.cursor.num_consumed()
    }

    /// The current automaton state (for debugging).
    #[getter]
    fn state(&self) -> u32 {
        self.cursor.state()
    }

    /// The vocabulary size of the automaton (minimum bitmask width is its ceil / 32).
    #[getter]
    fn vocab_size(&self) -> u32 {
        self.cursor.automaton().vocab_size()
    }

    /// The automaton being matched.
    #[getter]
    fn automaton(&self) -> TokenAutomaton {
        TokenAutomaton {
            inner: self.cursor.automaton().clone(),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Matcher(state={}, accepted={}, terminated={})",
            self.cursor.state(),
            self.cursor.num_consumed(),
            if self.cursor.is_finished() {
                "True"
            } else {
                "False"
            }
        )
    }
}

/// Fills row `indices[i]` of `bitmask` for `matchers[i]` (row i when `indices` is
/// None), in parallel on a thread pool with the GIL released. Rows must be distinct.
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
    let cursors: Vec<&Cursor> = matchers.iter().map(|m| &m.cursor).collect();
    let rows = mask.rows;
    py.detach(|| {
        cursors
            .par_iter()
            .zip(indices.par_iter())
            .try_for_each(|(cursor, &i)| {
                // SAFETY: indices are distinct and in range, and `mask` keeps the array alive.
                cursor.fill_mask(unsafe { rows.row(i) })
            })
    })
    .map_err(fstc_error)
}
