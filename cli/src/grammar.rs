//! `fstc compile grammar`: a grammar file (GBNF, Lark, XGrammar's EBNF or the paper's arrow
//! notation) composed with a vocabulary into a token PDA file (container kind 1).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::Args;
use fstc_pda::{Config, GrammarCompiler, Syntax};
use std::path::Path;

use crate::{BudgetArgs, VocabArgs};

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
    /// Most stack symbols one token may pop (a cycle of pop edges, returns through an unbounded nest of calls, counts once).
    #[arg(long, value_name = "N")]
    pop_limit: Option<usize>,
    /// Most live configurations one token may make from one in a nondeterministic token
    /// PDA (decode-time walkers refuse more with their own limit, default the same).
    #[arg(long, value_name = "N")]
    config_limit: Option<usize>,
    /// Refuse a grammar whose conflicts one byte of lookahead does not decide, listing
    /// them, instead of compiling a nondeterministic token PDA.
    #[arg(long, alias = "deterministic")]
    require_deterministic: bool,
    #[command(flatten)]
    budget: BudgetArgs,
    /// Print the compile's phase timings and the token PDA's size to stderr.
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
    let v = crate::Indexed::load(&args.vocab)?;
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
    if let Some(n) = args.config_limit {
        config = config.config_limit(n);
    }
    if args.require_deterministic {
        config = config.require_deterministic(true);
    }
    config = config.time_budget(args.budget.time_left());
    if let Some(bytes) = args.budget.memory_budget {
        config = config.memory_budget(bytes);
    }
    let compiled = GrammarCompiler::new()
        .configure(config.syntax(syntax))
        .compile_with_trie(&text, &v.trie)
        .with_context(|| format!("{}", args.file.display()))?;
    compiled.automaton.write_file(&args.output)?;
    if args.stats {
        v.print_stats(&compiled.stats);
    }
    Ok(ExitCode::SUCCESS)
}
