//! The `fstc` binary end to end, one test binary: every command, its output and exit
//! codes (`commands`), `compile grammar` (`grammar`), and the shell sessions of the README
//! and docs/ (`docs`).

mod commands;
mod common;
mod docs;
mod grammar;
