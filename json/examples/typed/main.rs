//! Typed constraints (Koo et al. §5.2, there with Python dataclasses): a Rust type that
//! derives `schemars::JsonSchema` and `serde::Deserialize` gives the constraint, and every
//! text the token automaton lets a decoder produce parses back into the type.
//!
//! Run: `cargo run --release -p fstc-json --example typed [VOCAB]` (default: the GPT-2
//! fixture in `testdata/`). Prints the schema schemars derives, the automaton's size, then
//! random walks of the automaton (a stand-in for a model's sampling), each decoded and
//! parsed with `serde_json::from_str::<WeatherReport>`. The type and the helpers are in
//! `weather.rs`, which `json/tests/all/typed.rs` shares to check the same.

mod weather;

use std::path::PathBuf;

use fstc_detok::Vocabulary;

use weather::{compile_type, sample_text, WeatherReport};

fn main() {
    let path = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| testkit::vocabs::testdata_dir().join("gpt2/encoder.json"));
    let vocab = Vocabulary::from_file(&path).unwrap_or_else(|e| {
        eprintln!("typed: {}: {e}", path.display());
        std::process::exit(2)
    });
    let (schema, automaton) = compile_type::<WeatherReport>(&vocab);
    println!("{schema}");
    println!(
        "automaton: {} states, {} bytes",
        automaton.num_states(),
        automaton.to_bytes().len()
    );
    for seed in 1..=3 {
        let text = sample_text(&automaton, &vocab, seed);
        let report: WeatherReport = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{text:?} does not parse back: {e}"));
        println!("{text}\n  -> {report:?}");
    }
}
