//! The `fstc` binary end to end, one test binary: every command, its output and exit
//! codes (`commands`), `compile grammar` (`grammar`), fstc's OpenFst files against
//! OpenFst's own tools (`openfst_tools`), the shell sessions of the README
//! and docs/ (`docs`), ARCHITECTURE.md's crate table (`architecture`), no file circles inside a
//! crate (`file_circles`), the compile options' names
//! (`option_names`), and the fuzz
//! targets over their seeds and mutations (`fuzz_seeds`, the targets included from `fuzz/`)
//! and under proptest for a time budget (`fuzz_budget`).

mod architecture;
mod commands;
mod common;
mod docs;
mod expr;
mod file_circles;
mod fuzz_budget;
mod fuzz_seeds;
// The fuzz crate is outside the workspace (cargo-fuzz, nightly); its target functions are
// plain stable Rust over the workspace's crates, compiled here as a module.
#[path = "../../../fuzz/src/lib.rs"]
mod fuzz_targets;
mod grammar;
mod openfst_tools;
mod ops;
mod option_names;
