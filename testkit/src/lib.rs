//! fstc's shared test fixtures, in one dev-only crate (`publish = false`) so that a fixture
//! is written once and every crate's tests use the same one:
//!
//! - [`patterns`]: random regex patterns, every short text over some pieces, and a
//!   DFA's count of Myhill–Nerode classes, for the regex and lazy-automaton tests.
//! - [`paper`]: the worked examples of Koo et al. (Figure 4's vocabulary and its ids,
//!   Figure 5's pattern and token automaton).
//! - [`file`](mod@file): the format's checksum written independently, forged after an edit so that
//!   validation reaches the damage, and section lookup.
//! - [`tokenize`]: random tokenizations of a text and acceptance by walking.
//! - [`lockstep`]: two matchers of one constraint (lazy and eager) compared step by step.
//! - [`masks`]: a matcher's mask at its minimum width, and a mask's tokens.
//! - [`stack`]: a test body on a 2 MiB stack (recursion on input depth shows there).
//! - [`vocabs`]: where the tokenizer files are, the small ones in `testdata/` and the real
//!   ones in `../shared/vocabs` or `$FSTC_VOCABS` (skipped when absent), for the tests and
//!   the examples alike.
#![forbid(unsafe_code)]

/// docs/rust.md's examples, run as doctests (`cargo test -p testkit --doc`).
#[cfg(doctest)]
#[doc = include_str!("../../docs/rust.md")]
pub struct RustDocs;

pub mod file;
pub mod lockstep;
pub mod masks;
pub mod paper;
pub mod patterns;
pub mod stack;
pub mod tokenize;
pub mod vocabs;
