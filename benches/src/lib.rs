//! What every bench of the harness shares, written once: loading a tokenizer into the same
//! token bytes for every engine ([`vocab`]), the interface every engine is walked through
//! and the timing of masks along a walk ([`walk`]), the peers behind that interface
//! ([`peers`]), fstc behind it through its decoding interface ([`fstc`]), the masks
//! cross-check and number formats of the tables ([`report`]), and the command line
//! ([`args`]).
//!
//! Each bench (`benches/benches/<name>/main.rs`) keeps only its own cases and tables.

pub mod args;
pub mod fstc;
pub mod peers;
pub mod report;
pub mod vocab;
pub mod walk;

/// Runs a bench's `main`: an error is printed with its causes and exits with status 1.
pub fn main_with(run: impl FnOnce() -> anyhow::Result<()>) {
    if let Err(e) = run() {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
