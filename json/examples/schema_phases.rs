//! Compile + first mask of JSON Schema files in the per-request (lazy) mode, phase by
//! phase: the figure a server waits for, split where it goes (wall time, then the
//! thread's CPU time: the figure to compare on a loaded machine).
//!
//! Run: `cargo run --release -p fstc-json --example schema_phases -- VOCAB SCHEMA...`

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use fstc_core::matcher::Matcher;
use fstc_core::vocab::VocabTrie;
use fstc_json::{Config, JsonSchemaCompiler, Whitespace};

#[path = "common/cpu.rs"]
mod cpu;
use cpu::thread_cpu_ns;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let vocab_path = PathBuf::from(args.next().ok_or("usage: VOCAB SCHEMA...")?);
    let vocab = fstc_detok::Vocabulary::from_file(&vocab_path)?;
    let trie = Arc::new(VocabTrie::new(&vocab));
    // `SCHEMA_PHASES_BUDGET=SECONDS` raises the time budget: to see what a slow refusal
    // would end in, or how long a compile past the default budget takes.
    let mut config = Config::new().whitespace(Whitespace::Compact);
    if let Ok(seconds) = std::env::var("SCHEMA_PHASES_BUDGET") {
        config = config.time_budget(std::time::Duration::from_secs_f64(seconds.parse()?));
    }
    let compiler = JsonSchemaCompiler::new().configure(config);
    for path in args {
        let text = std::fs::read_to_string(&path)?;
        let (started, cpu) = (Instant::now(), thread_cpu_ns());
        let cpu_ms = || {
            let spent = thread_cpu_ns().zip(cpu).map(|(b, a)| (b - a) as f64 / 1e6);
            spent.map_or("-".to_string(), |c| format!("{c:.2}"))
        };
        match compiler.compile_lazy(&text, trie.clone()) {
            Ok(compiled) => {
                let matcher = compiled.automaton.start_matcher();
                let mut mask = vec![0u32; matcher.mask_words()];
                matcher.fill_mask(&mut mask)?;
                let ms = started.elapsed().as_secs_f64() * 1e3;
                let stats = compiled.stats.to_string().replace('\n', " | ");
                println!("{path}\t{ms:.2} ms\t{} ms cpu\t{stats}", cpu_ms());
            }
            Err(e) => {
                let ms = started.elapsed().as_secs_f64() * 1e3;
                let msg: String = e.to_string().chars().take(300).collect();
                println!("{path}\t{ms:.2} ms\t{} ms cpu\tERROR {msg}", cpu_ms());
            }
        }
    }
    Ok(())
}
