//! Caller-owned bitmask arrays: an int32 array of shape `(batch, words)`, C-contiguous,
//! writable, on the CPU. Numpy arrays (and anything else exposing
//! `__array_interface__`) and torch tensors (`data_ptr()`) are accepted; anything else,
//! or a wrong dtype, shape, layout or device, is a `TypeError`/`ValueError` naming what
//! is wrong. The abi3 build cannot use the buffer protocol (limited API before 3.11).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The rows of a validated bitmask array. Holds the array object, so the memory stays
/// alive as long as the view does.
pub(crate) struct Bitmask<'py> {
    _array: Bound<'py, PyAny>,
    pub(crate) rows: RawRows,
}

/// Where the rows are, as plain numbers: `Send`, so a batch fill can run without the GIL.
#[derive(Clone, Copy)]
pub(crate) struct RawRows {
    addr: usize,
    pub(crate) num_rows: usize,
    pub(crate) words: usize,
}

impl RawRows {
    /// Row `index` as words.
    ///
    /// # Safety
    /// `index < num_rows`, the array is alive, and no other reference to that row exists
    /// while the slice does (callers hand out each row at most once at a time).
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn row(&self, index: usize) -> &mut [u32] {
        debug_assert!(index < self.num_rows);
        let ptr = (self.addr as *mut u32).add(index * self.words);
        std::slice::from_raw_parts_mut(ptr, self.words)
    }

    /// `Ok` when `index` (the argument `name`) names a row.
    pub(crate) fn check_index(&self, index: usize, name: &str) -> PyResult<()> {
        if index >= self.num_rows {
            return Err(crate::errors::fstc_error(format!(
                "argument '{name}': bitmask row index {index} is out of range: the bitmask has {} rows",
                self.num_rows
            )));
        }
        Ok(())
    }
}

impl<'py> Bitmask<'py> {
    /// Validates `array` as a bitmask.
    pub(crate) fn from_py(array: &Bound<'py, PyAny>) -> PyResult<Bitmask<'py>> {
        let rows = if let Ok(interface) = array.getattr("__array_interface__") {
            from_array_interface(interface.cast::<PyDict>()?)?
        } else if array.hasattr("data_ptr")? {
            from_torch(array)?
        } else {
            return Err(PyTypeError::new_err(format!(
                "bitmask must be a numpy array or a torch tensor of int32, got {}",
                array.get_type().name()?
            )));
        };
        if rows.num_rows > 0 && rows.words > 0 && rows.addr % 4 != 0 {
            return Err(PyValueError::new_err("bitmask data is not 4-byte aligned"));
        }
        Ok(Bitmask {
            _array: array.clone(),
            rows,
        })
    }
}

/// The shape as `(rows, words)`; a 1-D array is one row.
fn shape_2d(shape: &[usize]) -> PyResult<(usize, usize)> {
    match *shape {
        [rows, words] => Ok((rows, words)),
        _ => Err(PyValueError::new_err(format!(
            "bitmask must be 2-D (batch, ceil(vocab_size / 32)), got shape {shape:?}"
        ))),
    }
}

fn from_array_interface(interface: &Bound<'_, PyDict>) -> PyResult<RawRows> {
    let get = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        interface
            .get_item(key)?
            .ok_or_else(|| PyTypeError::new_err(format!("__array_interface__ has no {key:?}")))
    };
    let typestr: String = get("typestr")?.extract()?;
    let native = if cfg!(target_endian = "little") {
        "<i4"
    } else {
        ">i4"
    };
    if typestr != native {
        return Err(PyTypeError::new_err(format!(
            "bitmask dtype must be int32 (typestr {native:?}), got typestr {typestr:?}"
        )));
    }
    let shape: Vec<usize> = get("shape")?.extract()?;
    let (num_rows, words) = shape_2d(&shape)?;
    let strides = get("strides")?;
    if !strides.is_none() {
        let strides: Vec<isize> = strides.extract()?;
        let contiguous =
            (num_rows <= 1 || strides[0] == 4 * words as isize) && (words <= 1 || strides[1] == 4);
        if !contiguous {
            return Err(PyValueError::new_err(format!(
                "bitmask must be C-contiguous, got strides {strides:?} for shape {shape:?}"
            )));
        }
    }
    let data = get("data")?;
    let data = data.cast::<PyTuple>()?;
    let (addr, readonly): (usize, bool) = data.extract()?;
    if readonly {
        return Err(PyValueError::new_err("bitmask array is read-only"));
    }
    Ok(RawRows {
        addr,
        num_rows,
        words,
    })
}

fn from_torch(tensor: &Bound<'_, PyAny>) -> PyResult<RawRows> {
    let dtype = tensor.getattr("dtype")?.str()?.to_string();
    if dtype != "torch.int32" {
        return Err(PyTypeError::new_err(format!(
            "bitmask dtype must be torch.int32, got {dtype}"
        )));
    }
    let device = tensor
        .getattr("device")?
        .getattr("type")?
        .str()?
        .to_string();
    if device != "cpu" {
        return Err(PyValueError::new_err(format!(
            "bitmask must be on the CPU, got device {device:?}; fill a CPU tensor and copy it"
        )));
    }
    let shape: Vec<usize> = tensor.getattr("shape")?.extract()?;
    let (num_rows, words) = shape_2d(&shape)?;
    if !tensor.call_method0("is_contiguous")?.extract::<bool>()? {
        return Err(PyValueError::new_err("bitmask tensor must be contiguous"));
    }
    let addr: usize = tensor.call_method0("data_ptr")?.extract()?;
    Ok(RawRows {
        addr,
        num_rows,
        words,
    })
}
