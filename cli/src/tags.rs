//! `fstc compile structural-tag`: a structural tag (XGrammar's JSON, current or legacy
//! spelling) composed with a vocabulary into one token automaton file: a token FSA, or a
//! token PDA when a piece is a `grammar`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use fstc_core::any::AnyAutomaton;
use fstc_tags::{StructuralTag, StructuralTagCompiler};

use crate::{json_config, read_text, Indexed, JsonOptions, VocabArgs};

#[derive(Args)]
pub struct CompileStructuralTagArgs {
    /// The structural tag file (JSON), or `-` to read it from stdin.
    spec: PathBuf,
    #[command(flatten)]
    vocab: VocabArgs,
    /// Where to write the token automaton (a token PDA when a piece is a `grammar`).
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Options of every `json_schema` in the tag, and the compile limits.
    #[command(flatten)]
    json: JsonOptions,
    /// Print compile time, automaton size and warnings to stderr.
    #[arg(long)]
    stats: bool,
}

pub fn compile_structural_tag(args: CompileStructuralTagArgs) -> Result<ExitCode> {
    let tag = StructuralTag::from_json(&read_text(&args.spec, "spec")?)?;
    let v = Indexed::load(&args.vocab)?;
    // A token named by text (`{"type": "token", "token": "<|python_tag|>"}`) is its id here.
    let tag = tag.resolve_token_names(|name| v.vocab.token_id(name))?;
    let compiler = StructuralTagCompiler::new().configure(json_config(&args.json));
    let compiled = compiler.compile_any_with_trie(&tag, &v.trie)?;
    match &compiled.automaton {
        AnyAutomaton::Fsa(fsa) => fsa.write_file(&args.output)?,
        AnyAutomaton::Pda(pda) => pda.write_file(&args.output)?,
    }
    if args.stats {
        v.print_stats(&compiled.stats);
        eprintln!("warnings: {}", compiled.warnings.len());
    }
    for warning in &compiled.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(ExitCode::SUCCESS)
}
