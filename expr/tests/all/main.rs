//! fstc-expr's integration tests, one binary.

mod differential;
mod forms;
mod grammar;
mod tokens;
