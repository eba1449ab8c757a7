//! `fstc compile expr`: an expression over constraints (`intersect(regex("..."),
//! json("schema.json"), max_tokens(200))`, or its JSON form) compiled for a vocabulary.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use fstc_core::AnyAutomaton;
use fstc_expr::{Expr, ExprCompiler, Level};

use crate::{json_config, read_text, Indexed, JsonOptions, VocabArgs};

#[derive(Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["expr", "file"])))]
pub struct CompileExprArgs {
    /// The expression: calls such as `intersect(regex("[a-z]+"), max_tokens(5))`, or the
    /// JSON form (`{"intersect": [...]}`) when it starts with `{`.
    expr: Option<String>,
    /// Read the expression from a file (`-` for stdin); relative file names in it are read
    /// beside the file.
    #[arg(long, value_name = "PATH")]
    file: Option<PathBuf>,
    #[command(flatten)]
    vocab: VocabArgs,
    /// Where to write the token automaton.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Options of every `json` and `json_schema`; the limits bound every byte operation
    /// and composition.
    #[command(flatten)]
    json: JsonOptions,
    /// Most product states of each token-level operation (default 1,000,000).
    #[arg(long, value_name = "N")]
    state_limit: Option<usize>,
    /// Where intersection, union, difference and complement of byte languages run:
    /// `bytes` (one composition at the end) or `tokens` (each operand composed first).
    /// The result is the same file.
    #[arg(long, value_enum, default_value_t = LevelArg::Bytes)]
    boolean_level: LevelArg,
    /// Print compile time and automaton size to stderr.
    #[arg(long)]
    stats: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum LevelArg {
    Bytes,
    Tokens,
}

pub fn compile_expr(args: CompileExprArgs) -> Result<ExitCode> {
    let (text, base) = match (&args.expr, &args.file) {
        (Some(text), _) => (text.clone(), None),
        // Relative file names in a file are read beside it (from stdin: here).
        (None, Some(path)) => {
            let base = (path.as_os_str() != "-").then(|| path.parent().map(Path::to_path_buf));
            (read_text(path, "expression")?, base.flatten())
        }
        (None, None) => unreachable!("clap requires EXPR or --file"),
    };
    let expr = Expr::parse_any(&text).map_err(|e| with_excerpt(e, &text))?;
    // Loaded before the budgets are read: they count from the command's start.
    let v = Indexed::load(&args.vocab)?;
    let mut compiler = ExprCompiler::new()
        .configure(json_config(&args.json))
        .boolean_level(match args.boolean_level {
            LevelArg::Bytes => Level::Bytes,
            LevelArg::Tokens => Level::Tokens,
        });
    if let Some(n) = args.state_limit {
        compiler = compiler.state_limit(n);
    }
    if let Some(dir) = base {
        compiler = compiler.base_dir(dir);
    }
    let compiled = compiler
        .compile_any_with_trie(&expr, &v.trie)
        .map_err(|e| with_excerpt(e, &text))?;
    match &compiled.automaton {
        AnyAutomaton::Fsa(a) => a.write_file(&args.output)?,
        AnyAutomaton::Pda(p) => p.write_file(&args.output)?,
    }
    if args.stats {
        v.print_stats(&compiled.stats);
    }
    for warning in &compiled.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The error, and under it the line of the expression it is in with a caret at the place.
fn with_excerpt(e: fstc_expr::ExprError, text: &str) -> anyhow::Error {
    let Some(offset) = e.offset() else {
        return e.into();
    };
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = &text[start..end];
    if line.chars().count() > 200 {
        return e.into();
    }
    let pad = " ".repeat(text[start..offset].chars().count());
    anyhow::anyhow!("{e}\n  {line}\n  {pad}^")
}
