//! `fstc compile grammar`: a grammar file (GBNF or the paper's arrow notation) composed
//! with a vocabulary into a token PDA file (container kind 1).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use fstc_core::vocab::VocabTrie;
use fstc_pda::{Config, GrammarCompiler};

use crate::VocabArgs;

#[derive(Args)]
pub struct CompileGrammarArgs {
    /// The grammar file; its extension gives the syntax (`.gbnf`) unless --syntax does.
    file: PathBuf,
    #[command(flatten)]
    vocab: VocabArgs,
    /// Where to write the token PDA.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Grammar syntax: `gbnf` (llama.cpp's) or `paper` (the paper's `S → "ab" | "a" S "b"`).
    /// One reader takes both (`::=`, `->` and `→` are all rule arrows); the option says
    /// what the file is when its extension does not.
    #[arg(long, value_enum)]
    syntax: Option<SyntaxArg>,
    /// Most token PDA nodes (boundary states and pop nodes) before merging.
    #[arg(long, value_name = "N")]
    node_limit: Option<usize>,
    /// Most token edges before tokens are grouped into classes.
    #[arg(long, value_name = "N")]
    token_edge_limit: Option<usize>,
    /// Most stack symbols one token may pop.
    #[arg(long, value_name = "N")]
    pop_limit: Option<usize>,
    /// Print the compile's phase timings and the token PDA's size to stderr.
    #[arg(long)]
    stats: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum SyntaxArg {
    Gbnf,
    Paper,
}

pub fn compile_grammar(args: CompileGrammarArgs) -> Result<ExitCode> {
    if args.syntax.is_none() && args.file.extension().and_then(|e| e.to_str()) != Some("gbnf") {
        bail!(
            "{}: cannot tell the grammar syntax from the file name; name it `.gbnf` or give --syntax gbnf|paper",
            args.file.display()
        );
    }
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read grammar {}", args.file.display()))?;
    let started = Instant::now();
    let vocab = crate::load_vocab(&args.vocab)?;
    let loaded = started.elapsed();
    let mut config = Config::new();
    if let Some(n) = args.node_limit {
        config = config.node_limit(n);
    }
    if let Some(n) = args.token_edge_limit {
        config = config.token_edge_limit(n);
    }
    if let Some(n) = args.pop_limit {
        config = config.pop_limit(n);
    }
    let trie_start = Instant::now();
    let trie = VocabTrie::new(&vocab);
    let indexed = trie_start.elapsed();
    let compiled = GrammarCompiler::new()
        .configure(config)
        .compile_with_trie(&text, &trie)
        .with_context(|| format!("{}", args.file.display()))?;
    compiled.automaton.write_file(&args.output)?;
    if args.stats {
        crate::print_stats(&vocab, loaded, indexed, &compiled.stats);
    }
    Ok(ExitCode::SUCCESS)
}
