//! Integer arguments: one contract for every method. An `int` argument out of the range it
//! may take (negative, or too large) raises `FstcError` (a `ValueError`) naming the
//! argument and its range, never an `OverflowError`; a non-`int` is pyo3's `TypeError`.
//! Token ids handed to a matcher are different: any `int` that is not an allowed token is
//! simply not allowed (see `TokenId`).

use pyo3::prelude::*;
use pyo3::types::PyInt;

use crate::errors::FstcError;

/// A Python `int` (or any integer-like object, as numpy's), read as a `u64` when it fits; the range check waits for the argument's
/// name ([`Int::get`]).
pub(crate) struct Int(Result<u64, String>);

impl<'py> FromPyObject<'_, 'py> for Int {
    type Error = PyErr;

    fn extract(ob: Borrowed<'_, 'py, PyAny>) -> PyResult<Int> {
        match ob.extract::<u64>() {
            Ok(v) => Ok(Int(Ok(v))),
            Err(_) => Ok(Int(Err(as_int(ob)?.to_string()))),
        }
    }
}

impl Int {
    /// An argument's default.
    pub(crate) const fn new(value: u64) -> Int {
        Int(Ok(value))
    }

    /// The value, if within `0..=max`; else `FstcError` naming `name`.
    pub(crate) fn at_most(&self, name: &str, max: u64) -> PyResult<u64> {
        match &self.0 {
            Ok(v) if *v <= max => Ok(*v),
            Ok(v) => Err(out_of_range(name, &v.to_string(), max)),
            Err(text) => Err(out_of_range(name, text, max)),
        }
    }

    /// The value as a `usize` (any non-negative `int` the machine's word holds).
    pub(crate) fn usize(&self, name: &str) -> PyResult<usize> {
        Ok(self.at_most(name, usize::MAX as u64)? as usize)
    }

    /// The value as a `u32`.
    pub(crate) fn u32(&self, name: &str) -> PyResult<u32> {
        Ok(self.at_most(name, u32::MAX.into())? as u32)
    }

    /// The value as a `u64`.
    pub(crate) fn u64(&self, name: &str) -> PyResult<u64> {
        self.at_most(name, u64::MAX)
    }
}

fn out_of_range(name: &str, value: &str, max: u64) -> PyErr {
    FstcError::new_err(format!(
        "argument '{name}' must be an integer from 0 to {max}, got {value}"
    ))
}

/// A token id as a matcher reads it: any `int`; `None` when it cannot be a token id (and
/// so is never allowed).
pub(crate) struct TokenId(pub(crate) Option<u32>);

impl<'py> FromPyObject<'_, 'py> for TokenId {
    type Error = PyErr;

    fn extract(ob: Borrowed<'_, 'py, PyAny>) -> PyResult<TokenId> {
        match ob.extract::<u32>() {
            Ok(v) => Ok(TokenId(Some(v))),
            Err(_) => as_int(ob).map(|_| TokenId(None)),
        }
    }
}

/// `operator.index(ob)`: the `int` an integer-like object (a Python `int`, a numpy integer)
/// stands for, else a `TypeError`.
fn as_int<'py>(ob: Borrowed<'_, 'py, PyAny>) -> PyResult<Bound<'py, PyInt>> {
    let py = ob.py();
    let int = py.import("operator")?.getattr("index")?.call1((ob,))?;
    Ok(int.cast_into::<PyInt>()?)
}

/// An optional integer argument as a `usize`, out of range an `FstcError` naming `name`.
pub(crate) fn optional_usize(value: Option<Int>, name: &str) -> PyResult<Option<usize>> {
    value.map(|v| v.usize(name)).transpose()
}
