//! The `fstc` binary end to end, one test binary: every command, its output and exit
//! codes (`commands`), and `compile grammar` (`grammar`).

mod commands;
mod common;
mod grammar;
