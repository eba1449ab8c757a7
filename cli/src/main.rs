//! `fstc`: compile constraints into token automata, inspect, draw, sample and check them.
//!
//! Exit codes: 0 success (for `check`: accepted; `equivalent`: equivalent), 1 `check`
//! rejected the input, `equivalent` found a difference or `shortest` found nothing,
//! 2 bad usage or bad input (unreadable file, bad pattern, wrong vocabulary...).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use fstc_core::automaton::TokenAutomaton;
use fstc_core::compiled::CompileStats;
use fstc_core::sample::{random_matcher_walk, random_walk, SplitMix64};
use fstc_core::token_pda::TokenPda;
use fstc_core::vocab::VocabTrie;
use fstc_core::AnyAutomaton;
use fstc_core::TokenVocabulary;
use fstc_detok::{AddedAsSpecial, Vocabulary};
use fstc_json::{Escapes, JsonSchemaCompiler, Whitespace};
use fstc_regex::RegexCompiler;

mod expr;
mod grammar;
mod ops;
mod tags;

#[derive(Parser)]
#[command(
    name = "fstc",
    version,
    about = "Compile output constraints into token automata for constrained LLM decoding",
    long_about = "Compile output constraints (regular expressions, JSON Schemas, grammars) into token \
automata: deterministic finite or pushdown automata over a tokenizer's token ids that a decoder \
walks one token at a time to mask logits.\n\n\
Exit codes: 0 success, 1 `check` rejected the input (or `equivalent` found a difference, \
`shortest` found no sequence), 2 bad usage or bad input."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compile a constraint into a token automaton file.
    #[command(subcommand)]
    Compile(CompileCommand),
    /// Print a token automaton's size, vocabulary and EOS ids.
    Info(InfoArgs),
    /// Print Graphviz DOT: a token automaton (FSA or PDA), a regex's byte automaton, a grammar's
    /// byte PDA, or a vocabulary's detokenizer.
    Dot(DotArgs),
    /// Print random walks through a token automaton, one JSON line each.
    Sample(SampleArgs),
    /// Check whether a text or a token sequence is accepted (exit 0) or rejected (exit 1).
    Check(CheckArgs),
    /// Token sequences both automata accept (OpenFst's fstintersect).
    Intersect(ops::BinaryArgs),
    /// Token sequences either automaton accepts (fstunion).
    Union(ops::BinaryArgs),
    /// Token sequences the first accepts and the second does not (fstdifference).
    Difference(ops::BinaryArgs),
    /// Sequences of the vocabulary's text tokens the automaton does not accept.
    Complement(ops::ComplementArgs),
    /// Whether two automata accept the same token sequences (exit 0), else a shortest one
    /// that tells them apart (exit 1) (fstequivalent).
    Equivalent(ops::EquivalentArgs),
    /// A shortest accepted token sequence, the least by token ids (fstshortestpath).
    Shortest(ops::ShortestArgs),
    /// The byte automaton of the texts an automaton accepts, as DOT, AT&T text or an
    /// OpenFst file (fstproject onto the output of T_V).
    Project(ops::ProjectArgs),
    /// Write a token automaton, or a vocabulary's detokenizer T_V, as an OpenFst file.
    Export(ops::ExportArgs),
}

#[derive(Subcommand)]
enum CompileCommand {
    /// Compile a regular expression (full-match semantics) for a vocabulary.
    Regex(CompileRegexArgs),
    /// Compile a JSON Schema (draft 2020-12, draft-07 spellings) for a vocabulary.
    JsonSchema(CompileJsonSchemaArgs),
    /// Compile a context-free grammar (GBNF, Lark, XGrammar's EBNF, or the paper's arrow
    /// notation) into a token PDA.
    Grammar(grammar::CompileGrammarArgs),
    /// Compile a structural tag (XGrammar's JSON, current or legacy spelling): free text,
    /// tool calls, JSON Schemas and regexes as one token automaton.
    StructuralTag(tags::CompileStructuralTagArgs),
    /// Compile an OpenFst byte or code-point acceptor (binary `.fst` or AT&T text) for a vocabulary.
    Fst(ops::CompileFstArgs),
    /// Every sequence of at most N text tokens of a vocabulary: a length bound to intersect
    /// with another automaton (`fstc intersect`).
    MaxTokens(ops::CompileMaxTokensArgs),
    /// Compile an expression over constraints: `intersect(regex("..."), json("schema.json"),
    /// max_tokens(200))`, with union, difference, complement, concat, star and repeat.
    Expr(expr::CompileExprArgs),
}

#[derive(Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["schema", "any_json"])))]
struct CompileJsonSchemaArgs {
    /// The schema file, or `-` to read it from stdin.
    schema: Option<PathBuf>,
    /// Any JSON value up to --any-json-depth instead of a schema.
    #[arg(long)]
    any_json: bool,
    #[command(flatten)]
    vocab: VocabArgs,
    /// Where to write the token automaton.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    #[command(flatten)]
    json: JsonOptions,
    /// Print compile time, automaton size and warnings to stderr.
    #[arg(long)]
    stats: bool,
}

/// The JSON output form and the compile limits, shared by `compile json-schema` and
/// `compile structural-tag`.
#[derive(Args)]
struct JsonOptions {
    /// Whitespace between JSON tokens: `compact`, `flexible` (at most --max-whitespace in a row)
    /// or `pretty` (indented by --indent spaces).
    #[arg(long, default_value = "flexible", value_parser = ["compact", "flexible", "pretty"])]
    whitespace: String,
    /// Longest whitespace run of the flexible style.
    #[arg(long, value_name = "N", default_value_t = 8)]
    max_whitespace: usize,
    /// Indent of the pretty style.
    #[arg(long, value_name = "N", default_value_t = 2)]
    indent: usize,
    /// String escapes: `canonical` (one spelling per string, serde_json's) or `any` (every
    /// spelling JSON allows: `\u00e9`, `\/`, surrogate pairs...; larger automata).
    #[arg(long, value_enum, default_value_t = EscapesArg::Canonical)]
    escapes: EscapesArg,
    /// What an absent `additionalProperties` means: `true` (JSON Schema's default: objects
    /// admit unnamed properties) or `false` (they admit none, as strict servers read it).
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    additional_properties: bool,
    /// How many expansions of one `$ref` target may be nested (default 3).
    #[arg(long, value_name = "N")]
    recursion_depth: Option<usize>,
    /// Folder of the documents that `$ref`s to other documents name: `SCHEME://HOST/PATH`
    /// is the file PATH under it (without it, such a `$ref` is an error).
    #[arg(long, value_name = "DIR")]
    ref_dir: Option<PathBuf>,
    /// Nesting depth of schema-free JSON (`true`, `{}`, --any-json; default 2).
    #[arg(long, value_name = "N")]
    any_json_depth: Option<usize>,
    /// Leave out keywords that cannot be enforced exactly (each listed as a warning) instead of failing.
    #[arg(long)]
    lenient: bool,
    /// Most states the byte automaton may have before compiling fails.
    #[arg(long, value_name = "N")]
    dfa_state_limit: Option<usize>,
    /// Most token edges the token automaton may have before compiling fails.
    #[arg(long, value_name = "N")]
    token_edge_limit: Option<usize>,
    #[command(flatten)]
    budget: BudgetArgs,
}

/// The time and memory budgets of one compile or operation, shared by the compilers of
/// regexes, OpenFst acceptors, JSON Schemas, structural tags, grammars, expressions and
/// token bounds (`compile max-tokens`), by the operations on automata files (`intersect`,
/// `union`, `difference`, `complement`, `equivalent`) and by `export`.
#[derive(Args)]
struct BudgetArgs {
    /// Longest the command may run, in seconds (default 10), counted from its start
    /// (reading the vocabulary and the input included: the compile gets what is left);
    /// past it, an error names what was being built (the sub-schema, the grammar rule
    /// with its line and column, or the operation).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    time_budget: Option<std::time::Duration>,
    /// Most bytes of automata, tables and texts the compile may hold (default 1 GiB; for
    /// an operation, its working tables; for `export`, the machine and its file, 64 bytes an
    /// arc and 96 a state); past it, an error names what was being built.
    #[arg(long, value_name = "BYTES")]
    memory_budget: Option<usize>,
}

impl BudgetArgs {
    /// `config` with the budgets given (the others at the regex compiler's defaults), the
    /// time budget less what the command has run so far.
    fn regex(&self, config: fstc_regex::Config) -> fstc_regex::Config {
        let mut config = config.time_budget(self.time_left());
        if let Some(bytes) = self.memory_budget {
            config = config.memory_budget(bytes);
        }
        config
    }

    /// What is left of the time budget (the compilers' default when none is given) for
    /// a compile starting now: the budget counts from the command's start, so the
    /// vocabulary and the input read before the compile are inside it (whole
    /// milliseconds, as the compile's error then shows it).
    fn time_left(&self) -> Duration {
        let budget = self
            .time_budget
            .unwrap_or(fstc_json::Config::DEFAULT_TIME_BUDGET);
        let left = budget.saturating_sub(started().elapsed());
        Duration::from_millis(u64::try_from(left.as_millis()).unwrap_or(u64::MAX))
    }
}

/// When the command started: `--time-budget` counts from here.
static STARTED: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

fn started() -> Instant {
    *STARTED.get_or_init(Instant::now)
}

/// The deadline of a time budget (the compilers' default when none is given) counted
/// from the command's start, for the operations on automata files.
fn deadline_after(time_budget: Option<Duration>) -> Option<Instant> {
    started().checked_add(time_budget.unwrap_or(fstc_json::Config::DEFAULT_TIME_BUDGET))
}

/// A non-negative number of seconds.
fn parse_seconds(text: &str) -> std::result::Result<std::time::Duration, String> {
    let seconds: f64 = text.parse().map_err(|e| format!("{e}"))?;
    std::time::Duration::try_from_secs_f64(seconds).map_err(|e| format!("{e}"))
}

#[derive(Args)]
struct VocabArgs {
    /// Tokenizer: a tokenizer.json, a GPT-2 encoder.json (vocab.bpe beside it), a tiktoken rank file, Mistral's tekken.json, or a GGUF model file.
    #[arg(long, value_name = "VOCAB")]
    vocab: PathBuf,
    /// EOS token ids, comma-separated; overrides what the tokenizer files say.
    #[arg(long, value_name = "ID,ID,...", value_delimiter = ',')]
    eos_ids: Option<Vec<u32>>,
    #[command(flatten)]
    added: AddedArgs,
}

/// Added tokens that are text (`"special": false`, e.g. Qwen's `<think>`, Gemma's newline
/// runs) made special instead: no text, so no constraint produces them.
#[derive(Args, Clone, Default)]
struct AddedArgs {
    /// Treat this added token (its content in the tokenizer file) as special: no text. Repeat for several.
    #[arg(long, value_name = "TOKEN")]
    added_as_special: Vec<String>,
    /// Treat every added token as special (no text), as fstc did before added tokens were text.
    #[arg(long, conflicts_with = "added_as_special")]
    all_added_as_special: bool,
}

impl AddedArgs {
    fn apply(&self, vocab: Vocabulary) -> Result<Vocabulary> {
        let which = if self.all_added_as_special {
            AddedAsSpecial::All
        } else if !self.added_as_special.is_empty() {
            AddedAsSpecial::Named(self.added_as_special.clone())
        } else {
            return Ok(vocab);
        };
        Ok(vocab.with_added_as_special(&which)?)
    }
}

#[derive(Args)]
struct CompileRegexArgs {
    /// The regular expression; the whole generated text must match it. It may start
    /// with `-` (`-?\d+`) without a `--` before it.
    #[arg(allow_hyphen_values = true)]
    pattern: String,
    #[command(flatten)]
    vocab: VocabArgs,
    /// Where to write the token automaton.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Most states the byte automaton of the pattern may have before compiling fails.
    #[arg(long, value_name = "N")]
    dfa_state_limit: Option<usize>,
    /// Most token edges the token automaton may have before compiling fails.
    #[arg(long, value_name = "N")]
    token_edge_limit: Option<usize>,
    /// Token ids that `(?P<IMAGE>)` matches (e.g. a multimodal model's image tokens), comma-separated.
    #[arg(long, value_name = "ID,ID,...", value_delimiter = ',')]
    image_tokens: Vec<u32>,
    /// Print compile time and automaton size to stderr.
    #[arg(long)]
    stats: bool,
    /// Pattern syntax: `regex` (the regex crate's) or `ecmascript` (ECMA-262 with the `u`
    /// flag, as JSON Schema's `pattern`: ASCII `\d`, `\w`, `\b`).
    #[arg(long, value_enum, default_value_t = DialectArg::Regex)]
    dialect: DialectArg,
    #[command(flatten)]
    budget: BudgetArgs,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum EscapesArg {
    Canonical,
    Any,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum DialectArg {
    Regex,
    Ecmascript,
}

#[derive(Args)]
#[command(group(clap::ArgGroup::new("what").required(true).multiple(true).args(["file", "vocab"])))]
struct InfoArgs {
    /// A token automaton file (a token FSA or a token PDA).
    file: Option<PathBuf>,
    /// With --vocab: describe the vocabulary (ids, text, special and added tokens, EOS), and
    /// with FILE say whether FILE was compiled for it.
    #[command(flatten)]
    vocab: OptionalVocabArgs,
}

#[derive(Args)]
#[command(group(
    clap::ArgGroup::new("what")
        .required(true)
        .multiple(true)
        .args(["file", "regex", "grammar", "vocab"])
))]
struct DotArgs {
    /// A token automaton file, FSA or PDA (with --vocab, edges show token text instead of
    /// ids).
    file: Option<PathBuf>,
    /// Draw the byte automaton of this regular expression.
    #[arg(
        long,
        value_name = "PATTERN",
        allow_hyphen_values = true,
        conflicts_with_all = ["file", "vocab"]
    )]
    regex: Option<String>,
    /// Draw the byte PDA of this grammar file (syntax from its extension `.lark` or `.ebnf`,
    /// else GBNF or the paper's arrow notation): bytes and calls on edges, the return address each call pushes, as in the paper's Figure 6.
    #[arg(long, value_name = "GRAMMAR", conflicts_with_all = ["file", "regex", "vocab"])]
    grammar: Option<PathBuf>,
    /// With --vocab: draw the vocabulary's detokenizing FST (for small vocabularies), or
    /// label FILE's edges with token text.
    #[command(flatten)]
    vocab: OptionalVocabArgs,
}

/// `--vocab` where it is optional (`info`, `dot`), with the options that shape the vocabulary.
#[derive(Args)]
struct OptionalVocabArgs {
    /// Tokenizer: a tokenizer.json, a GPT-2 encoder.json (vocab.bpe beside it), a tiktoken rank file, Mistral's tekken.json, or a GGUF model file.
    #[arg(long, value_name = "VOCAB")]
    vocab: Option<PathBuf>,
    /// EOS token ids, comma-separated, as given when FILE was compiled (a tiktoken vocabulary needs them).
    #[arg(
        long,
        value_name = "ID,ID,...",
        value_delimiter = ',',
        requires = "vocab"
    )]
    eos_ids: Option<Vec<u32>>,
    #[command(flatten)]
    added: AddedArgs,
}

impl OptionalVocabArgs {
    /// The vocabulary arguments, when `--vocab` was given.
    fn given(&self) -> Option<VocabArgs> {
        Some(VocabArgs {
            vocab: self.vocab.clone()?,
            eos_ids: self.eos_ids.clone(),
            added: self.added.clone(),
        })
    }
}

#[derive(Args)]
struct SampleArgs {
    /// A token automaton file (a token FSA or a token PDA).
    file: PathBuf,
    #[command(flatten)]
    vocab: VocabArgs,
    /// Number of walks.
    #[arg(short = 'n', long, default_value_t = 5)]
    count: usize,
    /// Seed of the random walks.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Longest walk, in tokens; a walk cut here is reported with "complete":false.
    #[arg(long, default_value_t = 64)]
    max_tokens: usize,
}

#[derive(Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["text", "tokens"])))]
struct CheckArgs {
    /// A token automaton file (a token FSA or a token PDA).
    file: PathBuf,
    #[command(flatten)]
    vocab: VocabArgs,
    /// A text, tokenized by the tokenizer (may start with `-`).
    #[arg(long, allow_hyphen_values = true)]
    text: Option<String>,
    /// Token ids, comma-separated (EOS may come last).
    #[arg(long, value_name = "ID,ID,...", value_delimiter = ',')]
    tokens: Option<Vec<u32>>,
}

fn main() -> ExitCode {
    started();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Compile(CompileCommand::Regex(args)) => compile_regex(args),
        Command::Compile(CompileCommand::JsonSchema(args)) => compile_json_schema(args),
        Command::Compile(CompileCommand::Grammar(args)) => grammar::compile_grammar(args),
        Command::Compile(CompileCommand::StructuralTag(args)) => tags::compile_structural_tag(args),
        Command::Info(args) => info(args),
        Command::Dot(args) => dot(args),
        Command::Sample(args) => sample(args),
        Command::Check(args) => check(args),
        Command::Compile(CompileCommand::Fst(args)) => ops::compile_fst(args),
        Command::Compile(CompileCommand::MaxTokens(args)) => ops::compile_max_tokens(args),
        Command::Compile(CompileCommand::Expr(args)) => expr::compile_expr(args),
        Command::Intersect(args) => ops::binary("intersect", args),
        Command::Union(args) => ops::binary("union", args),
        Command::Difference(args) => ops::binary("difference", args),
        Command::Complement(args) => ops::complement(args),
        Command::Equivalent(args) => ops::equivalent(args),
        Command::Shortest(args) => ops::shortest(args),
        Command::Project(args) => ops::project(args),
        Command::Export(args) => ops::export(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn load_vocab(args: &VocabArgs) -> Result<Vocabulary> {
    let vocab = Vocabulary::from_file(&args.vocab)
        .with_context(|| format!("cannot load vocabulary {}", args.vocab.display()))?;
    let vocab = args.added.apply(vocab)?;
    match &args.eos_ids {
        Some(ids) => Ok(vocab.with_eos_ids(ids.clone())?),
        None => Ok(vocab),
    }
}

/// Loads a file of either kind (token FSA or token PDA), by its kind word.
fn load_automaton(path: &Path) -> Result<AnyAutomaton> {
    Ok(AnyAutomaton::read_file(path)?)
}

/// Loads the automaton and the vocabulary and checks that they belong together.
fn load_pair(file: &Path, vocab_args: &VocabArgs) -> Result<(AnyAutomaton, Vocabulary)> {
    let automaton = load_automaton(file)?;
    let vocab = load_vocab(vocab_args)?;
    if automaton.vocab_fingerprint() != vocab.fingerprint()
        || automaton.vocab_size() as usize != vocab.len()
    {
        bail!(
            "{} was compiled for another vocabulary (size {}, fingerprint {:016x}); {} has size {}, fingerprint {:016x}",
            file.display(),
            automaton.vocab_size(),
            automaton.vocab_fingerprint(),
            vocab_args.vocab.display(),
            vocab.len(),
            vocab.fingerprint()
        );
    }
    Ok((automaton, vocab))
}

fn compile_regex(args: CompileRegexArgs) -> Result<ExitCode> {
    let progress = Progress::new();
    progress.stage("loading and indexing vocabulary");
    let v = Indexed::load(&args.vocab)?;
    let mut config = fstc_regex::Config::new()
        .image_tokens(args.image_tokens.iter().copied())
        .dialect(match args.dialect {
            DialectArg::Regex => fstc_regex::Dialect::Regex,
            DialectArg::Ecmascript => fstc_regex::Dialect::EcmaScript,
        });
    if let Some(limit) = args.dfa_state_limit {
        config = config.dfa_state_limit(limit);
    }
    if let Some(limit) = args.token_edge_limit {
        config = config.token_edge_limit(limit);
    }
    let compiler = RegexCompiler::new().configure(args.budget.regex(config));
    progress.stage("compiling");
    let compiled = compiler.compile_with_trie(&args.pattern, &v.trie)?;
    progress.stage("writing");
    compiled.automaton.write_file(&args.output)?;
    progress.finish();
    if args.stats {
        v.print_stats(&compiled.stats);
    }
    Ok(ExitCode::SUCCESS)
}

/// A compile's vocabulary, loaded and indexed, with the time each took (for `--stats`).
struct Indexed {
    vocab: Vocabulary,
    trie: VocabTrie,
    loaded: Duration,
    indexed: Duration,
}

impl Indexed {
    fn load(args: &VocabArgs) -> Result<Indexed> {
        let started = Instant::now();
        let vocab = load_vocab(args)?;
        let loaded = started.elapsed();
        let started = Instant::now();
        let trie = VocabTrie::new(&vocab);
        let indexed = started.elapsed();
        Ok(Indexed {
            vocab,
            trie,
            loaded,
            indexed,
        })
    }

    /// The `--stats` lines of a compile: the vocabulary, then what the compiler measured.
    fn print_stats(&self, stats: &CompileStats) {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        eprintln!(
            "vocabulary: {} ids loaded in {:.1} ms, indexed in {:.1} ms",
            self.vocab.len(),
            ms(self.loaded),
            ms(self.indexed)
        );
        eprintln!("vocabulary: {}", self.vocab.summary());
        eprintln!("{stats}");
    }
}

/// The text of the file at `path`, or of stdin for `-`; `what` it is, for the error.
fn read_text(path: &Path, what: &str) -> Result<String> {
    if path.as_os_str() == "-" {
        return std::io::read_to_string(std::io::stdin())
            .with_context(|| format!("cannot read the {what} from stdin"));
    }
    std::fs::read_to_string(path).with_context(|| format!("cannot read {what} {}", path.display()))
}

/// The JSON compiler's options from the command line.
fn json_config(json: &JsonOptions) -> fstc_json::Config {
    let mut config = fstc_json::Config::new()
        .whitespace(match json.whitespace.as_str() {
            "compact" => Whitespace::Compact,
            "pretty" => Whitespace::Pretty {
                indent: json.indent,
            },
            _ => Whitespace::Flexible {
                max_whitespace: json.max_whitespace,
            },
        })
        .escapes(match json.escapes {
            EscapesArg::Canonical => Escapes::Canonical,
            EscapesArg::Any => Escapes::Any,
        })
        .additional_properties(json.additional_properties)
        .lenient(json.lenient);
    if let Some(depth) = json.recursion_depth {
        config = config.recursion_depth(depth);
    }
    if let Some(dir) = &json.ref_dir {
        config = config.ref_dir(dir);
    }
    if let Some(depth) = json.any_json_depth {
        config = config.any_json_depth(depth);
    }
    if let Some(limit) = json.dfa_state_limit {
        config = config.dfa_state_limit(limit);
    }
    if let Some(limit) = json.token_edge_limit {
        config = config.token_edge_limit(limit);
    }
    config = config.time_budget(json.budget.time_left());
    if let Some(bytes) = json.budget.memory_budget {
        config = config.memory_budget(bytes);
    }
    config
}

fn compile_json_schema(args: CompileJsonSchemaArgs) -> Result<ExitCode> {
    let v = Indexed::load(&args.vocab)?;
    let compiler = JsonSchemaCompiler::new().configure(json_config(&args.json));
    let compiled = match &args.schema {
        _ if args.any_json => compiler.compile_any_json(&v.trie)?,
        Some(path) => compiler.compile_with_trie(&read_text(path, "schema")?, &v.trie)?,
        None => bail!("give a schema file, `-` or --any-json"),
    };
    compiled.automaton.write_file(&args.output)?;
    if args.stats {
        v.print_stats(&compiled.stats);
        eprintln!("warnings: {}", compiled.warnings.len());
    }
    for warning in &compiled.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(ExitCode::SUCCESS)
}

/// A spinner on stderr naming the current stage, for compiles that take more than a moment.
///
/// It stays hidden when stderr is not a terminal, so scripts and logs see nothing.
struct Progress {
    bar: indicatif::ProgressBar,
}

impl Progress {
    fn new() -> Progress {
        let bar =
            indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                .expect("a valid template"),
        );
        bar.enable_steady_tick(std::time::Duration::from_millis(100));
        Progress { bar }
    }

    fn stage(&self, name: &'static str) {
        self.bar.set_message(name);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        // Errors end the compile early; the spinner must not stay on the screen.
        self.bar.finish_and_clear();
    }
}

fn info(args: InfoArgs) -> Result<ExitCode> {
    let vocab = args.vocab.given().as_ref().map(load_vocab).transpose()?;
    if let Some(vocab) = &vocab {
        println!(
            "vocabulary: {}; fingerprint {:016x}",
            vocab.summary(),
            vocab.fingerprint()
        );
    }
    let Some(file) = &args.file else {
        return Ok(ExitCode::SUCCESS);
    };
    let automaton = load_automaton(file)?;
    if let Some(vocab) = &vocab {
        let matches = automaton.vocab_fingerprint() == vocab.fingerprint()
            && automaton.vocab_size() as usize == vocab.len();
        println!(
            "compiled for this vocabulary: {}",
            if matches { "yes" } else { "no" }
        );
    }
    println!("kind: {}", automaton.kind());
    match &automaton {
        AnyAutomaton::Fsa(a) => info_fsa(a),
        AnyAutomaton::Pda(p) => info_pda(p),
    }
    Ok(ExitCode::SUCCESS)
}

/// `fstc info` of a token FSA, after the kind line.
fn info_fsa(automaton: &TokenAutomaton) {
    println!("states: {}", automaton.num_states());
    println!("accepting states: {}", automaton.num_accepting());
    println!("edges: {}", automaton.num_edges());
    let class_edges: usize = (0..automaton.num_states())
        .map(|s| automaton.class_edges(s).count())
        .sum();
    println!(
        "token classes: {} ({} tokens, {class_edges} class edges)",
        automaton.num_classes(),
        (0..automaton.num_classes())
            .map(|c| automaton.class_size(c))
            .sum::<usize>()
    );
    println!("start state: {}", automaton.start());
    println!("vocabulary size: {}", automaton.vocab_size());
    println!(
        "vocabulary fingerprint: {:016x}",
        automaton.vocab_fingerprint()
    );
    println!("eos ids: {}", join_ids(automaton.eos_ids()));
    println!("bytes: {}", automaton.as_words().len() * 4);
    // Terminal labels in precedence order, each with the number of tokens it stands for.
    println!("terminals: {}", automaton.num_terminals());
    for k in 0..automaton.num_terminals() {
        let tokens: u32 = automaton
            .terminal_mask(k)
            .unwrap_or_default()
            .iter()
            .map(|w| w.count_ones())
            .sum();
        let name = automaton.terminal_name(k).unwrap_or_default();
        let edges = (0..automaton.num_states())
            .flat_map(|s| automaton.terminal_edges(s))
            .filter(|&(j, _)| j == k)
            .count();
        println!("  terminal {k}: {name} ({tokens} tokens, {edges} edges)");
    }
}

/// `fstc info` of a token PDA, after the kind line.
fn info_pda(pda: &TokenPda) {
    let nodes = pda.num_nodes();
    println!("nodes: {nodes}");
    println!("accepting nodes: {}", pda.num_accepting());
    println!("edges: {}", pda.num_edges());
    let class_edges: usize = (0..nodes).map(|n| pda.edges(n).count()).sum();
    println!(
        "token classes: {} ({} tokens, {class_edges} class edges)",
        pda.num_classes(),
        (0..pda.num_classes())
            .map(|c| pda.class_size(c))
            .sum::<usize>()
    );
    let pushing = (0..nodes)
        .flat_map(|n| pda.edges(n))
        .filter(|&(_, _, push)| !pda.push_seq(push).is_empty())
        .count();
    println!("pushing class edges: {pushing}");
    let pops: usize = (0..nodes).map(|n| pda.pops(n).count()).sum();
    println!("pop edges: {pops}");
    println!("stack symbols: {}", pda.num_stack_symbols());
    println!("push sequences: {}", pda.num_push_seqs());
    if !pda.is_deterministic() {
        println!("nondeterministic: yes (walked with a set of configurations)");
    }
    println!("start node: {}", pda.start());
    println!("vocabulary size: {}", pda.vocab_size());
    println!("vocabulary fingerprint: {:016x}", pda.vocab_fingerprint());
    println!("eos ids: {}", join_ids(pda.eos_ids()));
    println!("bytes: {}", pda.as_words().len() * 4);
}

fn join_ids(ids: &[u32]) -> String {
    ids.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

fn dot(args: DotArgs) -> Result<ExitCode> {
    if let Some(pattern) = &args.regex {
        let dfa = fstc_regex::byte_dfa(pattern, fstc_core::bytes::DEFAULT_DFA_STATE_LIMIT)?;
        print!("{}", dfa.to_dot());
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(path) = &args.grammar {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read grammar {}", path.display()))?;
        let syntax = grammar::syntax_of(path).unwrap_or_default();
        let pda = fstc_pda::Pda::from_text(&text, syntax)
            .with_context(|| format!("{}", path.display()))?;
        print!("{}", pda.to_dot());
        return Ok(ExitCode::SUCCESS);
    }
    match (&args.file, args.vocab.given()) {
        (Some(file), None) => {
            let automaton = load_automaton(file)?;
            print!("{}", draw(&automaton, &|_| None));
        }
        (Some(file), Some(vocab_args)) => {
            let (automaton, vocab) = load_pair(file, &vocab_args)?;
            let text = |id: u32| vocab.token_bytes(id).map(<[u8]>::to_vec);
            print!("{}", draw(&automaton, &text));
        }
        (None, Some(vocab_args)) => {
            let vocab = load_vocab(&vocab_args)?;
            const MAX_DRAWN: usize = 5_000;
            if vocab.len() > MAX_DRAWN {
                bail!(
                    "{} has {} tokens; drawing the detokenizer is meant for small vocabularies (at most {MAX_DRAWN})",
                    vocab_args.vocab.display(),
                    vocab.len()
                );
            }
            let fst = fstc_core::reference::detokenizing_fst(&vocab);
            print!("{}", fstc_core::reference::detokenizer_dot(&fst, &vocab));
        }
        (None, None) => unreachable!("clap requires FILE, --regex or --vocab"),
    }
    Ok(ExitCode::SUCCESS)
}

/// DOT of a file of either kind.
fn draw(automaton: &AnyAutomaton, text: &dyn Fn(u32) -> Option<Vec<u8>>) -> String {
    match automaton {
        AnyAutomaton::Fsa(a) => fstc_core::dot::to_dot(a, text),
        AnyAutomaton::Pda(p) => fstc_core::dot::pda_to_dot(p, text),
    }
}

fn sample(args: SampleArgs) -> Result<ExitCode> {
    let (automaton, vocab) = load_pair(&args.file, &args.vocab)?;
    let mut rng = SplitMix64::new(args.seed);
    for _ in 0..args.count {
        let walk = match &automaton {
            AnyAutomaton::Fsa(a) => random_walk(a, &mut rng, args.max_tokens),
            // The allowed set depends on the stack: walk through the matcher.
            _ => random_matcher_walk(
                automaton.matcher().as_mut(),
                automaton.eos_ids(),
                &mut rng,
                args.max_tokens,
            ),
        };
        let text = String::from_utf8_lossy(&vocab.detokenize(&walk.tokens)).into_owned();
        let line = serde_json::json!({
            "tokens": walk.tokens,
            "text": text,
            "complete": walk.complete,
        });
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

fn check(args: CheckArgs) -> Result<ExitCode> {
    let (automaton, vocab) = load_pair(&args.file, &args.vocab)?;
    let (tokens, explicit_eos) = match (&args.text, &args.tokens) {
        (Some(text), None) => (vocab.tokenize(text)?, false),
        (None, Some(ids)) => {
            if let Some(&bad) = ids.iter().find(|&&id| id as usize >= vocab.len()) {
                return Err(anyhow!(
                    "token id {bad} is outside the vocabulary (size {})",
                    vocab.len()
                ));
            }
            let eos_last = ids
                .last()
                .is_some_and(|id| automaton.eos_ids().contains(id));
            (ids.clone(), eos_last)
        }
        _ => unreachable!("clap requires exactly one of --text and --tokens"),
    };
    let mut walker = automaton.matcher();
    for (position, &token) in tokens.iter().enumerate() {
        if let Err(err) = walker.consume(token) {
            let before =
                String::from_utf8_lossy(&vocab.detokenize(&tokens[..position])).into_owned();
            println!(
                "rejected at token {position} (id {token}, {}) after {:?}: {err}",
                describe_token(&vocab, token),
                before
            );
            return Ok(ExitCode::from(1));
        }
    }
    if explicit_eos || walker.is_accepting() {
        println!("accepted: {} tokens [{}]", tokens.len(), join_ids(&tokens));
        Ok(ExitCode::SUCCESS)
    } else {
        println!(
            "rejected: the input ends after {} tokens in a state that does not accept (the constraint wants more)",
            tokens.len()
        );
        Ok(ExitCode::from(1))
    }
}

fn describe_token(vocab: &Vocabulary, token: u32) -> String {
    match vocab.token_bytes(token) {
        Some(bytes) => format!("{:?}", String::from_utf8_lossy(bytes)),
        None => "a special token".to_string(),
    }
}
