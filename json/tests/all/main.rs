//! fstc-json's integration tests, one binary: the schema corpus against the `jsonschema`
//! crate on byte DFAs (`differential`) and token automata (`tokens`), errors and mutated
//! schemas (`errors`), typed constraints (`typed`); `support` holds what they share.

mod differential;
mod errors;
mod exactness;
mod formats;
mod support;
mod tokens;
mod typed;
