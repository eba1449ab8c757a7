//! fstc-json's integration tests, one binary: the schema corpus against the `jsonschema`
//! crate on byte DFAs (`differential`) and token automata (`tokens`), the lazy matcher
//! against the eager walker (`lazy`), errors and mutated
//! schemas (`errors`), typed constraints (`typed`), the official test suite's outcomes
//! (`conformance`); `support` holds what they share.

mod conformance;
mod differential;
mod domains;
mod errors;
mod escapes;
mod exactness;
mod formats;
mod hostile;
mod lazy;
mod presence;
mod refs;
mod sizes;
mod support;
mod tokens;
mod typed;
mod unevaluated;
