//! A digest of each schema's translation (its regex text and the tables of the automata
//! it splices in), one line per schema: run it on two builds and `diff` the outputs to
//! show that a change to the translator kept every language as it was.
//!
//! Run: `cargo run --release -p fstc-json --example translation_digest -- compact|flexible|pretty SCHEMA...`

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use fstc_json::{Config, JsonSchemaCompiler, Whitespace};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: compact|flexible|pretty SCHEMA...";
    let whitespace = match args.next().ok_or(usage)?.as_str() {
        "compact" => Whitespace::Compact,
        "flexible" => Config::DEFAULT_WHITESPACE,
        "pretty" => Whitespace::Pretty { indent: 2 },
        _ => return Err(usage.into()),
    };
    let compiler = JsonSchemaCompiler::new().configure(Config::new().whitespace(whitespace));
    for path in args {
        let schema: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
        let name = path.rsplit('/').next().unwrap_or(&path);
        match compiler.value_to_regex(&schema) {
            Ok(out) => {
                let mut hash = DefaultHasher::new();
                out.regex.hash(&mut hash);
                for automaton in &out.automata {
                    automaton.num_states().hash(&mut hash);
                    automaton.transitions().hash(&mut hash);
                }
                let (n, w) = (out.automata.len(), out.warnings.len());
                println!("{name} {:016x} automata {n} warnings {w}", hash.finish());
            }
            Err(e) => println!("{name} error: {e}"),
        }
    }
    Ok(())
}
