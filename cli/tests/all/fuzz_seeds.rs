//! The fuzz targets over the repository's own seed inputs and a few hundred deterministic
//! mutations per target ([`smoke_inputs`]), on stable, in the test command: a panic fails
//! the test; an abort or a stack overflow ends the test binary (`replay smoke DIR` then
//! `replay all DIR`, in `fuzz/`, finds the input). The long campaigns are libFuzzer's
//! (`fuzz/README.md`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use crate::fuzz_targets::{seeds, smoke_inputs, Target, TARGETS};

/// Runs the target `name` over its seeds and their mutations, naming the input that panics.
fn run(name: &str) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let seeds = seeds(&repo).expect("the seed files read");
    let target: Target = TARGETS
        .iter()
        .find(|(n, _)| *n == name)
        .expect("a target")
        .1;
    let inputs = smoke_inputs(&seeds, name);
    assert!(inputs.len() > 200, "{name}: {} inputs", inputs.len());
    for (input, data) in &inputs {
        if catch_unwind(AssertUnwindSafe(|| target(data))).is_err() {
            panic!(
                "{name} panicked on {input}: {:?}",
                String::from_utf8_lossy(data)
            );
        }
    }
}

#[test]
fn json_schema() {
    run("json_schema");
}

#[test]
fn grammar() {
    run("grammar");
}

#[test]
fn regex() {
    run("regex");
}

#[test]
fn automaton_file() {
    run("automaton_file");
}

#[test]
fn structural_tag() {
    run("structural_tag");
}
