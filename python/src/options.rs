//! Keyword arguments as named options for a front end's `Config::with_options` (fstc-core's
//! `options`): the names, the checks and the errors of the C ABI's options object.

use fstc_core::options::{check_lazy, OptionError, OptionValue};
use pyo3::prelude::*;

use crate::errors::fstc_error;
use crate::ints::Int;

/// Named options, in the order given.
#[derive(Default)]
pub(crate) struct Options(pub(crate) Vec<(&'static str, OptionValue)>);

impl Options {
    pub(crate) fn text(mut self, name: &'static str, value: &str) -> Options {
        self.0.push((name, OptionValue::Str(value.to_string())));
        self
    }

    pub(crate) fn flag(mut self, name: &'static str, value: bool) -> Options {
        self.0.push((name, OptionValue::Bool(value)));
        self
    }

    /// An integer argument, if given; out of range an `FstcError` naming it.
    pub(crate) fn int(mut self, name: &'static str, value: Option<&Int>) -> PyResult<Options> {
        if let Some(v) = value {
            self.0.push((name, OptionValue::Int(v.u64(name)?)));
        }
        Ok(self)
    }

    /// Token ids, if given.
    pub(crate) fn ids(mut self, name: &'static str, value: Option<&[Int]>) -> PyResult<Options> {
        if let Some(ids) = value {
            let ids = ids.iter().map(|i| i.u64(name)).collect::<PyResult<_>>()?;
            self.0.push((name, OptionValue::Ints(ids)));
        }
        Ok(self)
    }

    /// A number of seconds, if given.
    pub(crate) fn seconds(mut self, name: &'static str, value: Option<f64>) -> Options {
        if let Some(s) = value {
            self.0.push((name, OptionValue::Float(s)));
        }
        self
    }

    /// Refuses what a `lazy` (or eager) compile would ignore; takes out `state_work_limit`,
    /// which is the lazy automaton's, not the compiler's.
    pub(crate) fn split_lazy(mut self, lazy: bool) -> PyResult<(Options, Option<u64>)> {
        check_lazy(lazy, self.0.iter().map(|(name, _)| *name)).map_err(fstc_error)?;
        let limit = match self
            .0
            .iter()
            .position(|(name, _)| *name == "state_work_limit")
        {
            Some(i) => Some(
                self.0
                    .remove(i)
                    .1
                    .u64("state_work_limit")
                    .map_err(fstc_error)?,
            ),
            None => None,
        };
        Ok((self, limit))
    }

    /// `with_options` of a front end's `Config` over these, its error an `FstcError`.
    pub(crate) fn apply<C>(
        &self,
        with_options: impl FnOnce(&[(&str, OptionValue)]) -> Result<C, OptionError>,
    ) -> PyResult<C> {
        with_options(&self.0).map_err(fstc_error)
    }
}
