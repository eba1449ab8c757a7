//! fstc-tags' integration tests, one binary.

mod differential;
mod errors;
mod generate;
mod lazy;
mod oracle;
mod tokens;
