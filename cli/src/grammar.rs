//! `fstc compile grammar`: a grammar file (GBNF, Lark, XGrammar's EBNF or the paper's arrow
//! notation) composed with a vocabulary into a token PDA file (container kind 1).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use fstc_core::parts::PdaParts;
use fstc_core::token_pda::TokenPda;
use fstc_core::vocab::VocabTrie;
use fstc_core::TokenVocabulary;
use fstc_pda::compose::Config;
use fstc_pda::{GrammarCompiler, Syntax};
use std::path::Path;

use crate::VocabArgs;

#[derive(Args)]
pub struct CompileGrammarArgs {
    /// The grammar file; its extension gives the syntax (`.gbnf`, `.lark`, `.ebnf`) unless
    /// --syntax does.
    file: PathBuf,
    #[command(flatten)]
    vocab: VocabArgs,
    /// Where to write the token PDA.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Grammar syntax: `gbnf` (llama.cpp's), `lark`, `ebnf` (XGrammar's) or `paper` (the
    /// paper's `S → "ab" | "a" S "b"`, read by the GBNF reader). Overrides the extension.
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
    /// Print compile time and the token PDA's size to stderr.
    #[arg(long)]
    stats: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum SyntaxArg {
    Gbnf,
    Lark,
    Ebnf,
    Paper,
}

impl From<SyntaxArg> for Syntax {
    fn from(s: SyntaxArg) -> Syntax {
        match s {
            SyntaxArg::Gbnf => Syntax::Gbnf,
            SyntaxArg::Lark => Syntax::Lark,
            SyntaxArg::Ebnf => Syntax::Ebnf,
            SyntaxArg::Paper => Syntax::Paper,
        }
    }
}

/// The syntax of a grammar file from its extension (`.gbnf`, `.lark`, `.ebnf`).
pub fn syntax_of(path: &Path) -> Option<Syntax> {
    Syntax::from_extension(path.extension()?.to_str()?)
}

pub fn compile_grammar(args: CompileGrammarArgs) -> Result<ExitCode> {
    let Some(syntax) = args
        .syntax
        .map(Syntax::from)
        .or_else(|| syntax_of(&args.file))
    else {
        bail!(
            "{}: cannot tell the grammar syntax from the file name; name it `.gbnf`, `.lark` or `.ebnf`, or give --syntax gbnf|lark|ebnf|paper",
            args.file.display()
        );
    };
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read grammar {}", args.file.display()))?;
    let started = Instant::now();
    let vocab = crate::load_vocab(&args.vocab)?;
    let loaded = started.elapsed();
    let mut config = Config::new();
    if let Some(n) = args.node_limit {
        config = config.max_nodes(n);
    }
    if let Some(n) = args.token_edge_limit {
        config = config.max_token_edges(n);
    }
    if let Some(n) = args.pop_limit {
        config = config.max_pops(n);
    }
    let trie_start = Instant::now();
    let trie = VocabTrie::new(&vocab);
    let indexed = trie_start.elapsed();
    let compile_start = Instant::now();
    let parts = GrammarCompiler::new()
        .configure(config)
        .syntax(syntax)
        .compile_with_trie(&text, &trie)
        .with_context(|| format!("{}", args.file.display()))?;
    let compiled = compile_start.elapsed();
    let stats = Stats::of(&parts);
    let pda = TokenPda::from_parts(parts)?;
    pda.write_file(&args.output)?;
    if args.stats {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        eprintln!(
            "vocabulary: {} ids loaded in {:.1} ms, indexed in {:.1} ms",
            vocab.len(),
            ms(loaded),
            ms(indexed)
        );
        eprintln!("compile: {:.1} ms", ms(compiled));
        eprintln!(
            "token PDA: {} nodes ({} reached by pops, {} accepting), {} class edges, {} pop edges, {} classes, {} stack symbols, {} bytes",
            stats.nodes,
            stats.pop_nodes,
            stats.accepting,
            stats.edges,
            stats.pop_edges,
            stats.classes,
            stats.symbols,
            pda.as_words().len() * 4
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Sizes of a token PDA, for `--stats`.
struct Stats {
    nodes: usize,
    pop_nodes: usize,
    accepting: usize,
    edges: usize,
    pop_edges: usize,
    classes: u32,
    symbols: u32,
}

impl Stats {
    fn of(parts: &PdaParts) -> Stats {
        let mut popped = vec![false; parts.accepting.len()];
        for &(_, n) in parts.pops.iter().flatten() {
            popped[n as usize] = true;
        }
        Stats {
            nodes: parts.accepting.len(),
            pop_nodes: popped.iter().filter(|&&p| p).count(),
            accepting: parts.accepting.iter().filter(|&&a| a).count(),
            edges: parts.edges.iter().map(Vec::len).sum(),
            pop_edges: parts.pops.iter().map(Vec::len).sum(),
            classes: parts.num_classes,
            symbols: parts.num_stack_symbols,
        }
    }
}
