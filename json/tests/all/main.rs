//! fstc-json's integration tests, one binary: the schema corpus against the `jsonschema`
//! crate on byte DFAs (`differential`) and token automata (`tokens`), the lazy matcher
//! against the eager walker (`lazy`), errors and mutated
//! schemas (`errors`), typed constraints (`typed`); `support` holds what they share.

mod differential;
mod domains;
mod errors;
mod escapes;
mod exactness;
mod formats;
mod lazy;
mod sizes;
mod support;
mod tokens;
mod typed;
