//! The `fstc` binary end to end, one test binary: every command, its output and exit
//! codes (`commands`), `compile grammar` (`grammar`), the shell sessions of the README
//! and docs/ (`docs`), and ARCHITECTURE.md's crate table (`architecture`).

mod architecture;
mod commands;
mod common;
mod docs;
mod expr;
mod grammar;
mod ops;
