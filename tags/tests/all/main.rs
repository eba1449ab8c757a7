//! fstc-tags' integration tests, one binary.

mod differential;
#[path = "../../../pda/tests/all/earley.rs"]
mod earley;
mod errors;
mod generate;
mod grammar;
mod lazy;
mod lmql;
mod oracle;
mod pieces;
mod special;
mod text;
mod tokens;
mod wildcard;
