//! The operations on token automata files, after OpenFst's tools: `intersect`, `union`,
//! `difference`, `complement`, `equivalent`, `shortest`, `project`, `export`, and
//! `compile fst` (an OpenFst byte acceptor as a constraint).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::Args;
use fstc_core::automaton::TokenAutomaton;
use fstc_core::compiled::CompileStats;
use fstc_core::ops::openfst::{
    byte_dfa_from_openfst_before, to_binary, to_text, Labels, OpenFstExport, DEFAULT_ARC_LIMIT,
};
use fstc_core::ops::{text_tokens, OpsError, OpsErrorKind, TokenAlgebra};
use fstc_core::{AnyAutomaton, TokenVocabulary};
use fstc_detok::Vocabulary;
use fstc_regex::RegexCompiler;

use crate::{deadline_after, load_vocab, BudgetArgs, OptionalVocabArgs, VocabArgs};

#[derive(Args)]
pub struct BinaryArgs {
    /// The first token automaton file (a token FSA; for `intersect`, either may be a token
    /// PDA).
    a: PathBuf,
    /// The second token automaton file, compiled for the same vocabulary and EOS ids.
    b: PathBuf,
    /// Where to write the result.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    #[command(flatten)]
    limits: OpsLimits,
}

#[derive(Args)]
pub struct OpsLimits {
    /// Most product states before the operation fails (default 1,000,000).
    #[arg(long, value_name = "N")]
    state_limit: Option<usize>,
    #[command(flatten)]
    budget: BudgetArgs,
    /// Print the operation's phase timings and the result's size to stderr.
    #[arg(long)]
    stats: bool,
}

impl OpsLimits {
    /// The operations with these limits, the time budget counted from the command's start.
    fn algebra(&self) -> TokenAlgebra {
        budgeted(&self.budget, self.state_limit)
    }
}

/// An operation's error, naming the option to raise when it is past a budget.
fn with_option(e: OpsError) -> anyhow::Error {
    let option = match e.kind() {
        OpsErrorKind::Deadline => " (`--time-budget`)",
        OpsErrorKind::Memory { .. } => " (`--memory-budget`)",
        _ => "",
    };
    anyhow::anyhow!("{e}{option}")
}

/// The operations with a state limit and the budgets of the compilers (their defaults
/// too), the time budget counted from the command's start.
fn budgeted(budget: &BudgetArgs, state_limit: Option<usize>) -> TokenAlgebra {
    let memory = (budget.memory_budget).unwrap_or(fstc_json::Config::DEFAULT_MEMORY_BUDGET);
    let algebra = TokenAlgebra::new()
        .deadline(deadline_after(budget.time_budget))
        .memory_limit(memory);
    match state_limit {
        Some(n) => algebra.state_limit(n),
        None => algebra,
    }
}

#[derive(Args)]
pub struct ComplementArgs {
    /// The token automaton file (a token FSA).
    a: PathBuf,
    /// The vocabulary it was compiled for: the complement ranges over its text tokens.
    #[command(flatten)]
    vocab: VocabArgs,
    /// Where to write the result.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    #[command(flatten)]
    limits: OpsLimits,
}

#[derive(Args)]
pub struct EquivalentArgs {
    /// The first token automaton file.
    a: PathBuf,
    /// The second token automaton file.
    b: PathBuf,
    /// With --vocab, the distinguishing sequence is also shown as text.
    #[command(flatten)]
    vocab: OptionalVocabArgs,
    /// Most product states before the comparison fails (default 1,000,000).
    #[arg(long, value_name = "N")]
    state_limit: Option<usize>,
    #[command(flatten)]
    budget: BudgetArgs,
    /// Print the comparison's time and the operands' sizes to stderr.
    #[arg(long)]
    stats: bool,
}

#[derive(Args)]
pub struct ShortestArgs {
    /// The token automaton file.
    a: PathBuf,
    /// With --vocab, the sequence is also shown as text.
    #[command(flatten)]
    vocab: OptionalVocabArgs,
    /// Longest the search may run, in seconds (default 10); past it, an error.
    #[arg(long, value_name = "SECONDS", value_parser = crate::parse_seconds)]
    time_budget: Option<std::time::Duration>,
    /// Print the search's time and the automaton's size to stderr.
    #[arg(long)]
    stats: bool,
}

#[derive(Args)]
pub struct ProjectArgs {
    /// The token automaton file.
    a: PathBuf,
    /// The vocabulary it was compiled for: tokens are read as their bytes.
    #[command(flatten)]
    vocab: VocabArgs,
    /// Write the byte acceptor as an OpenFst binary file (labels: byte + 1) instead of
    /// printing DOT.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Print the byte acceptor as AT&T text (`fstprint`'s format) instead of DOT.
    #[arg(long, conflicts_with = "output")]
    att: bool,
    /// Most byte DFA states before the projection fails (as compile regex's --dfa-state-limit).
    #[arg(long, value_name = "N", default_value_t = fstc_core::bytes::DEFAULT_DFA_STATE_LIMIT)]
    state_limit: usize,
    /// Longest the projection may run, in seconds (default 10); past it, an error.
    #[arg(long, value_name = "SECONDS", value_parser = crate::parse_seconds)]
    time_budget: Option<std::time::Duration>,
    /// Print the projection's time and the byte DFA's size to stderr.
    #[arg(long)]
    stats: bool,
}

#[derive(Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["file", "vocab"])))]
pub struct ExportArgs {
    /// A token automaton file (a token FSA), written as an acceptor over token labels
    /// (token id + 1); final states are where EOS is allowed.
    file: Option<PathBuf>,
    /// Without FILE: write the vocabulary's detokenizing transducer T_V (token labels in,
    /// byte labels out).
    #[command(flatten)]
    vocab: OptionalVocabArgs,
    /// Where to write the OpenFst file.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Write AT&T text (`fstprint`'s format) instead of an OpenFst binary file.
    #[arg(long)]
    att: bool,
    /// Most arcs the file may have (one per token edge, or per token and trie edge of T_V;
    /// default 50,000,000).
    #[arg(long, value_name = "N")]
    arc_limit: Option<usize>,
    #[command(flatten)]
    budget: BudgetArgs,
    /// Print the export's time and the file's states, arcs and bytes to stderr.
    #[arg(long)]
    stats: bool,
}

#[derive(Args)]
pub struct CompileFstArgs {
    /// An OpenFst acceptor: a binary `.fst` file (a vector FST with standard arcs) or AT&T
    /// text (`fstprint`'s format, numeric labels).
    file: PathBuf,
    #[command(flatten)]
    vocab: VocabArgs,
    /// Where to write the token automaton.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// What the labels are: `fstc` (byte + 1), `bytes` (byte values 1-255, Pynini's byte
    /// mode) or `code-points` (Unicode scalars, Pynini's utf8 mode).
    #[arg(long, value_enum, default_value_t = LabelsArg::Fstc)]
    labels: LabelsArg,
    /// Most states the byte automaton may have before compiling fails.
    #[arg(long, value_name = "N", default_value_t = fstc_core::bytes::DEFAULT_DFA_STATE_LIMIT)]
    dfa_state_limit: usize,
    /// Most token edges the token automaton may have before compiling fails.
    #[arg(long, value_name = "N")]
    token_edge_limit: Option<usize>,
    #[command(flatten)]
    budget: BudgetArgs,
    /// Print compile time and automaton size to stderr.
    #[arg(long)]
    stats: bool,
}

#[derive(Args)]
pub struct CompileMaxTokensArgs {
    /// The most tokens a sequence may have.
    n: usize,
    #[command(flatten)]
    vocab: VocabArgs,
    /// Where to write the token automaton.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Most states the automaton (N + 1 of them) may have (default 1,000,000).
    #[arg(long, value_name = "N")]
    state_limit: Option<usize>,
    #[command(flatten)]
    budget: BudgetArgs,
    /// Print the build time and the automaton's size to stderr.
    #[arg(long)]
    stats: bool,
}

/// `compile max-tokens`: every sequence of at most N text tokens, to intersect with.
pub fn compile_max_tokens(args: CompileMaxTokensArgs) -> Result<ExitCode> {
    let algebra = budgeted(&args.budget, args.state_limit);
    let v = crate::Indexed::load(&args.vocab)?;
    let mut stats = CompileStats::new();
    let bound = stats
        .time("token bound", || algebra.at_most_tokens(&v.trie, args.n))
        .map_err(with_option)?;
    stats.count_automaton(&bound);
    bound.write_file(&args.output)?;
    if args.stats {
        v.print_stats(&stats);
    }
    Ok(ExitCode::SUCCESS)
}

/// The `--stats` lines of an operation, when asked for.
fn print_stats(wanted: bool, stats: &CompileStats) {
    if wanted {
        eprintln!("{stats}");
    }
}

/// Counts an operand's states and edges under `states` and `edges`.
fn count_operand(
    stats: &mut CompileStats,
    (states, edges): (&'static str, &'static str),
    a: &TokenAutomaton,
) {
    stats.set_count(states, a.num_states() as usize);
    stats.set_count(edges, a.num_edges() as usize);
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum LabelsArg {
    Fstc,
    Bytes,
    CodePoints,
}

/// Loads a token FSA; a token PDA is refused by name.
fn load_fsa(path: &Path, command: &str) -> Result<TokenAutomaton> {
    match AnyAutomaton::read_file(path)? {
        AnyAutomaton::Fsa(a) => Ok(a),
        AnyAutomaton::Pda(_) => bail!(
            "{} is a token PDA (a compiled grammar); `fstc {command}` takes token FSAs",
            path.display()
        ),
    }
}

/// Loads the vocabulary and checks that `a` was compiled for it.
fn vocab_for(a: &TokenAutomaton, path: &Path, args: &VocabArgs) -> Result<Vocabulary> {
    let vocab = load_vocab(args)?;
    if a.vocab_fingerprint() != vocab.fingerprint() || a.vocab_size() as usize != vocab.len() {
        bail!(
            "{} was compiled for another vocabulary (size {}, fingerprint {:016x}); {} has size {}, fingerprint {:016x}",
            path.display(),
            a.vocab_size(),
            a.vocab_fingerprint(),
            args.vocab.display(),
            vocab.len(),
            vocab.fingerprint()
        );
    }
    Ok(vocab)
}

/// `intersect`, `union` and `difference`.
pub fn binary(command: &'static str, args: BinaryArgs) -> Result<ExitCode> {
    if command == "intersect" {
        return intersect(args);
    }
    let a = load_fsa(&args.a, command)?;
    let b = load_fsa(&args.b, command)?;
    let algebra = args.limits.algebra();
    let compiled = match command {
        "intersect" => algebra.intersect(&a, &b),
        "union" => algebra.union(&a, &b),
        _ => algebra.difference(&a, &b),
    }
    .map_err(with_option)
    .with_context(|| format!("{} and {}", args.a.display(), args.b.display()))?;
    write_result(&compiled, &args.output, args.limits.stats)
}

/// `intersect`: two token FSAs give a token FSA; a token PDA and a token FSA (either
/// order) a token PDA without dead ends.
fn intersect(args: BinaryArgs) -> Result<ExitCode> {
    let operands = || format!("{} and {}", args.a.display(), args.b.display());
    let (a, b) = (
        AnyAutomaton::read_file(&args.a)?,
        AnyAutomaton::read_file(&args.b)?,
    );
    let algebra = args.limits.algebra();
    let (pda, fsa) = match (a, b) {
        (AnyAutomaton::Fsa(a), AnyAutomaton::Fsa(b)) => {
            let compiled = algebra
                .intersect(&a, &b)
                .map_err(with_option)
                .with_context(operands)?;
            return write_result(&compiled, &args.output, args.limits.stats);
        }
        (AnyAutomaton::Pda(p), AnyAutomaton::Fsa(f))
        | (AnyAutomaton::Fsa(f), AnyAutomaton::Pda(p)) => (p, f),
        (AnyAutomaton::Pda(_), AnyAutomaton::Pda(_)) => bail!(
            "{} and {} are both token PDAs (compiled grammars); the intersection of two \
             context-free languages need not be context-free, so `fstc intersect` takes at \
             most one token PDA",
            args.a.display(),
            args.b.display()
        ),
    };
    let compiled = algebra
        .intersect_pda(&pda, &fsa)
        .map_err(with_option)
        .with_context(operands)?;
    compiled.automaton.write_file(&args.output)?;
    print_stats(args.limits.stats, &compiled.stats);
    if compiled.automaton.num_accepting() == 0 {
        eprintln!("note: the result accepts no token sequence");
    }
    Ok(ExitCode::SUCCESS)
}

pub fn complement(args: ComplementArgs) -> Result<ExitCode> {
    let a = load_fsa(&args.a, "complement")?;
    let vocab = vocab_for(&a, &args.a, &args.vocab)?;
    let compiled = args
        .limits
        .algebra()
        .complement(&a, &text_tokens(&vocab))
        .map_err(with_option)
        .with_context(|| format!("{}", args.a.display()))?;
    write_result(&compiled, &args.output, args.limits.stats)
}

fn write_result(
    compiled: &fstc_core::compiled::Compiled<TokenAutomaton>,
    output: &Path,
    stats: bool,
) -> Result<ExitCode> {
    compiled.automaton.write_file(output)?;
    if stats {
        eprintln!("{}", compiled.stats);
    }
    if compiled.automaton.num_accepting() == 0 {
        eprintln!("note: the result accepts no token sequence");
    }
    Ok(ExitCode::SUCCESS)
}

/// Token ids and, with a vocabulary, their text: `3 tokens [1,2,3] "abc"`.
fn describe(tokens: &[u32], vocab: Option<&Vocabulary>) -> String {
    let ids = crate::join_ids(tokens);
    let mut out = format!("{} tokens [{ids}]", tokens.len());
    if let Some(vocab) = vocab {
        let text = String::from_utf8_lossy(&vocab.detokenize(tokens)).into_owned();
        out.push_str(&format!(" {text:?}"));
    }
    out
}

pub fn equivalent(args: EquivalentArgs) -> Result<ExitCode> {
    let a = load_fsa(&args.a, "equivalent")?;
    let b = load_fsa(&args.b, "equivalent")?;
    let vocab = match args.vocab.given() {
        Some(v) => Some(vocab_for(&a, &args.a, &v)?),
        None => None,
    };
    let algebra = budgeted(&args.budget, args.state_limit);
    let mut stats = CompileStats::new();
    let found = stats
        .time("equivalence", || algebra.equivalent(&a, &b))
        .map_err(with_option)
        .with_context(|| format!("{} and {}", args.a.display(), args.b.display()))?;
    count_operand(&mut stats, ("states of A", "edges of A"), &a);
    count_operand(&mut stats, ("states of B", "edges of B"), &b);
    print_stats(args.stats, &stats);
    let Some(d) = found else {
        println!("equivalent");
        return Ok(ExitCode::SUCCESS);
    };
    let (yes, no) = if d.accepted_by_first {
        (&args.a, &args.b)
    } else {
        (&args.b, &args.a)
    };
    println!(
        "not equivalent: {} accepts and {} rejects {}",
        yes.display(),
        no.display(),
        describe(&d.tokens, vocab.as_ref())
    );
    Ok(ExitCode::from(1))
}

pub fn shortest(args: ShortestArgs) -> Result<ExitCode> {
    let a = load_fsa(&args.a, "shortest")?;
    let vocab = match args.vocab.given() {
        Some(v) => Some(vocab_for(&a, &args.a, &v)?),
        None => None,
    };
    let mut stats = CompileStats::new();
    let algebra = TokenAlgebra::new().deadline(deadline_after(args.time_budget));
    let found = stats
        .time("shortest path", || algebra.shortest(&a))
        .map_err(with_option)
        .with_context(|| format!("{}", args.a.display()))?;
    count_operand(&mut stats, ("states", "edges"), &a);
    print_stats(args.stats, &stats);
    match found {
        Some(tokens) => {
            println!("{}", describe(&tokens, vocab.as_ref()));
            Ok(ExitCode::SUCCESS)
        }
        None => {
            println!("{} accepts no token sequence", args.a.display());
            Ok(ExitCode::from(1))
        }
    }
}

pub fn project(args: ProjectArgs) -> Result<ExitCode> {
    let a = load_fsa(&args.a, "project")?;
    let vocab = vocab_for(&a, &args.a, &args.vocab)?;
    let mut stats = CompileStats::new();
    let algebra = TokenAlgebra::new()
        .state_limit(args.state_limit)
        .deadline(deadline_after(args.time_budget));
    let dfa = stats
        .time("projection", || algebra.project(&a, &vocab))
        .map_err(with_option)
        .with_context(|| format!("{}", args.a.display()))?;
    stats.set_count("byte DFA states", dfa.num_states());
    print_stats(args.stats, &stats);
    if let Some(out) = &args.output {
        let bytes = to_binary(&dfa.to_fst())?;
        std::fs::write(out, bytes).with_context(|| format!("cannot write {}", out.display()))?;
    } else if args.att {
        print!("{}", to_text(&dfa.to_fst())?);
    } else {
        print!("{}", dfa.to_dot());
    }
    Ok(ExitCode::SUCCESS)
}

pub fn export(args: ExportArgs) -> Result<ExitCode> {
    let memory = (args.budget.memory_budget).unwrap_or(fstc_json::Config::DEFAULT_MEMORY_BUDGET);
    let export = OpenFstExport::new()
        .arc_limit(args.arc_limit.unwrap_or(DEFAULT_ARC_LIMIT))
        .memory_limit(memory)
        .deadline(deadline_after(args.budget.time_budget));
    let mut stats = CompileStats::new();
    let (fst, what) = match (&args.file, args.vocab.given()) {
        (Some(file), _) => {
            let a = load_fsa(file, "export")?;
            let fst = stats.time("OpenFst acceptor", || export.acceptor(&a));
            (fst, file.display().to_string())
        }
        (None, Some(v)) => {
            let vocab = load_vocab(&v)?;
            let fst = stats.time("OpenFst transducer T_V", || export.detokenizer(&vocab));
            (fst, v.vocab.display().to_string())
        }
        (None, None) => unreachable!("clap requires FILE or --vocab"),
    };
    let fst = fst.map_err(with_option).context(what.clone())?;
    let bytes = (stats.time("write", || export.write(&fst, args.att)))
        .map_err(with_option)
        .context(what)?;
    std::fs::write(&args.output, &bytes)
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    let (states, arcs) = fstc_core::ops::openfst::size(&fst);
    stats.set_count("OpenFst states", states);
    stats.set_count("OpenFst arcs", arcs);
    stats.set_count("file bytes", bytes.len());
    print_stats(args.stats, &stats);
    Ok(ExitCode::SUCCESS)
}

pub fn compile_fst(args: CompileFstArgs) -> Result<ExitCode> {
    let deadline = deadline_after(args.budget.time_budget);
    let v = crate::Indexed::load(&args.vocab)?;
    let data = std::fs::read(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let labels = match args.labels {
        LabelsArg::Fstc => Labels::Fstc,
        LabelsArg::Bytes => Labels::Bytes,
        LabelsArg::CodePoints => Labels::CodePoints,
    };
    let mut stats = fstc_core::compiled::CompileStats::new();
    let dfa = stats
        .time("byte DFA", || {
            byte_dfa_from_openfst_before(&data, labels, args.dfa_state_limit, deadline)
        })
        .map_err(with_option)
        .with_context(|| format!("{}", args.file.display()))?;
    let mut config = fstc_regex::Config::new();
    if let Some(limit) = args.token_edge_limit {
        config = config.token_edge_limit(limit);
    }
    let source = args.file.display().to_string();
    let compiled = RegexCompiler::new()
        .configure(args.budget.regex(config))
        .compile_dfa_with_trie(&dfa, &source, &v.trie)?;
    stats.extend(compiled.stats);
    compiled.automaton.write_file(&args.output)?;
    if args.stats {
        v.print_stats(&stats);
    }
    Ok(ExitCode::SUCCESS)
}
