//! The one exception type: fstc's own errors reach Python as `fstc.FstcError` (a
//! `ValueError`) carrying the Rust message, never as a crash.

use std::fmt::Display;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::PyErr;

create_exception!(
    fstc,
    FstcError,
    PyValueError,
    "An fstc operation failed: a bad pattern, vocabulary, automaton file, token or bitmask. \
     The message names the construct at fault."
);

/// `FstcError` with the error's own message.
pub(crate) fn fstc_error(e: impl Display) -> PyErr {
    FstcError::new_err(e.to_string())
}
