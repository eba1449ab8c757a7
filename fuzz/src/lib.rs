//! The fuzz targets of issue 27, one per input surface. Each takes arbitrary bytes, feeds
//! them to one front end (or the file loader) with small limits and a time budget, and
//! uses what comes out (masks, walks); an error is a fine outcome, a panic, an abort or a
//! hang is what the fuzzer reports. `fuzz_targets/` wraps them for libFuzzer, `replay`
//! runs them over files on stable, and the workspace's test command runs them over
//! [`seeds`] and their [`mutations`] (`cli/tests/all/fuzz_seeds.rs` includes this file).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use fstc_core::matcher::Matcher;
use fstc_core::sample::{random_matcher_walk, SplitMix64};
use fstc_core::vocab::VocabTrie;
use fstc_core::{AnyAutomaton, ByteVocabulary};

/// Time budget of one compile: well under libFuzzer's default 1200 s timeout, and what
/// `replay` and the fuzzer's `-timeout` flag measure a hang against.
pub const TIME_BUDGET: Duration = Duration::from_secs(2);

/// State limits small enough that an input can reach them quickly.
const STATE_LIMIT: usize = 3_000;

/// Every byte as a token, some multi-byte tokens JSON and grammars use, and EOS.
fn vocabulary() -> &'static (ByteVocabulary, Arc<VocabTrie>) {
    static VOCAB: OnceLock<(ByteVocabulary, Arc<VocabTrie>)> = OnceLock::new();
    VOCAB.get_or_init(|| {
        let mut tokens: Vec<Option<Vec<u8>>> = (0..=255u8).map(|b| Some(vec![b])).collect();
        for t in [
            "{\"", "\":", "\",", "true", "null", "false", ", ", "ab", "<f=", "</f>", "é",
        ] {
            tokens.push(Some(t.as_bytes().to_vec()));
        }
        tokens.push(None);
        let eos = tokens.len() as u32 - 1;
        let vocab = ByteVocabulary::new(tokens, vec![eos]);
        let trie = Arc::new(VocabTrie::new(&vocab));
        (vocab, trie)
    })
}

/// A few random walks with masks, as a decoder would use `matcher`.
fn walk(mut matcher: Box<dyn Matcher + '_>, eos: &[u32]) {
    let mut rng = SplitMix64::new(7);
    for _ in 0..3 {
        matcher.reset();
        random_matcher_walk(matcher.as_mut(), eos, &mut rng, 40);
    }
}

/// A JSON Schema (the bytes as UTF-8 text), compiled eagerly and lazily, then walked.
pub fn json_schema(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // A leading digit picks the options a server may raise.
    let depth = text.bytes().next().map_or(0, |b| (b % 4) as usize);
    let config = fstc_json::Config::new()
        .dfa_state_limit(STATE_LIMIT)
        .recursion_depth(depth + 1)
        .any_json_depth(depth)
        .time_budget(TIME_BUDGET)
        .memory_budget(256 << 20);
    let compiler = fstc_json::JsonSchemaCompiler::new().configure(config);
    let (vocab, trie) = vocabulary();
    let eos = fstc_core::TokenVocabulary::eos_ids(vocab).to_vec();
    if let Ok(compiled) = compiler.compile_with_trie(text, trie) {
        let any = AnyAutomaton::Fsa(compiled.automaton);
        walk(any.matcher(), &eos);
    }
    if let Ok(compiled) = compiler.compile_lazy(text, trie.clone()) {
        walk(Box::new(compiled.automaton.start_matcher()), &eos);
    }
}

/// A grammar: the first byte picks the syntax (GBNF, Lark, EBNF, the paper's), the rest
/// is its text; compiled and walked.
pub fn grammar(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let syntax = fstc_pda::Syntax::ALL[first as usize % 4];
    let config = fstc_pda::Config::new()
        .syntax(syntax)
        .node_limit(STATE_LIMIT)
        .config_limit(STATE_LIMIT)
        .time_budget(TIME_BUDGET);
    let (vocab, trie) = vocabulary();
    let eos = fstc_core::TokenVocabulary::eos_ids(vocab).to_vec();
    let compiler = fstc_pda::GrammarCompiler::new().configure(config);
    if let Ok(compiled) = compiler.compile_with_trie(text, trie) {
        let any = AnyAutomaton::Pda(compiled.automaton);
        walk(any.matcher(), &eos);
    }
}

/// A regex: the first byte picks the dialect and case folding, the rest is the pattern;
/// built within a deadline, matched against the pattern's own bytes, then composed.
pub fn regex(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let Ok(pattern) = std::str::from_utf8(rest) else {
        return;
    };
    let dialect = match first & 1 {
        0 => fstc_regex::Dialect::Regex,
        _ => fstc_regex::Dialect::EcmaScript,
    };
    let built = fstc_regex::RegexBuilder::new()
        .dialect(dialect)
        .case_insensitive(first & 2 != 0)
        .state_limit(STATE_LIMIT)
        .deadline(Some(Instant::now() + TIME_BUDGET))
        .build(pattern);
    let Ok(dfa) = built else {
        return;
    };
    dfa.is_match(rest);
    let (vocab, trie) = vocabulary();
    let eos = fstc_core::TokenVocabulary::eos_ids(vocab).to_vec();
    let config = fstc_regex::Config::new()
        .dfa_state_limit(STATE_LIMIT)
        .time_budget(TIME_BUDGET)
        .memory_budget(256 << 20);
    let compiler = fstc_regex::RegexCompiler::new().configure(config);
    if let Ok(compiled) = compiler.compile_dfa_with_trie(&dfa, "the pattern", trie) {
        let any = AnyAutomaton::Fsa(compiled.automaton);
        walk(any.matcher(), &eos);
    }
}

/// An automaton file: the bytes as words (zero-padded), the checksum recomputed so the
/// mutations reach the checks behind it; loaded, masked and walked.
pub fn automaton_file(data: &[u8]) {
    if data.len() < 16 {
        return;
    }
    let mut words: Vec<u32> = data
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect();
    testkit::file::forge_checksum(&mut words);
    let Ok(any) = AnyAutomaton::from_words(words) else {
        return;
    };
    let eos = match &any {
        AnyAutomaton::Fsa(a) => a.eos_ids().to_vec(),
        AnyAutomaton::Pda(p) => p.eos_ids().to_vec(),
    };
    walk(any.matcher(), &eos);
}

/// A structural tag spec (JSON text), lowered to its byte DFA and composed lazily; one with
/// a `grammar` piece compiled to its token PDA instead.
pub fn structural_tag(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(tag) = fstc_tags::StructuralTag::from_json(text) else {
        return;
    };
    let config = fstc_json::Config::new()
        .dfa_state_limit(STATE_LIMIT)
        .time_budget(TIME_BUDGET)
        .memory_budget(256 << 20);
    let compiler = fstc_tags::StructuralTagCompiler::new().configure(config);
    let (vocab, trie) = vocabulary();
    let eos = fstc_core::TokenVocabulary::eos_ids(vocab).to_vec();
    if tag.format.has_grammar() {
        if let Ok(compiled) = compiler.compile_pda_with_trie(&tag, trie) {
            let any = AnyAutomaton::Pda(compiled.automaton);
            walk(any.matcher(), &eos);
        }
        return;
    }
    if let Ok(compiled) = compiler.compile_lazy(&tag, trie.clone()) {
        walk(Box::new(compiled.automaton.start_matcher()), &eos);
    }
}

/// A fuzz target: arbitrary bytes in, nothing out (a failure is a panic, abort or hang).
pub type Target = fn(&[u8]);

/// The targets by name, for `replay`.
pub const TARGETS: [(&str, Target); 5] = [
    ("json_schema", json_schema),
    ("grammar", grammar),
    ("regex", regex),
    ("automaton_file", automaton_file),
    ("structural_tag", structural_tag),
];

/// The files of `path` in name order (the file itself when it is not a directory).
pub fn files(path: &Path) -> Vec<PathBuf> {
    if !path.is_dir() {
        return vec![path.to_path_buf()];
    }
    let mut out: Vec<PathBuf> = std::fs::read_dir(path)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// Patterns for `regex`, each after its first byte (dialect and case folding).
const PATTERNS: [&str; 10] = [
    r"[^\W\d]\w*",
    r"((25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(25[0-5]|2[0-4]\d|[01]?\d\d?)",
    r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}",
    r"(?:\b\w+\b[ ,]*){1,8}",
    r"(?m)(?:^[a-z]+: \d+$\n?){1,5}",
    r"(?=.*\d)(?=.*[a-z])(?!.*\s).{8,16}",
    r"(?:\d|(?<!-)-)+(?<=\d)",
    r"(?P<PARAGRAPH_TOKEN>)+x",
    r#""([^"\\]|\\.)*""#,
    r"(?i)hello|wor(ld)?",
];

/// A starting input: its target, a name, its bytes.
pub struct Seed {
    pub target: &'static str,
    pub name: String,
    pub data: Vec<u8>,
}

/// Starting inputs for every target from the repository at `repo`: its test schemas,
/// grammars and structural tag specs, some patterns, and a small FSA file and PDA file
/// (the paper's figures 5 and 7: `automaton_file` inputs must look like files to get past
/// the header).
pub fn seeds(repo: &Path) -> std::io::Result<Vec<Seed>> {
    use fstc_core::automaton::TokenAutomaton;
    use fstc_core::token_pda::TokenPda;
    use testkit::paper::{figure5_parts, figure7_pda_parts};
    let mut out = Vec::new();
    let mut push = |target, name: String, data: Vec<u8>| out.push(Seed { target, name, data });
    for path in files(&repo.join("json/tests/schemas")) {
        // A test file holds the schema and its instances: `{"schema": …, "valid": …}`.
        let Ok(file) = serde_json::from_slice::<serde_json::Value>(&std::fs::read(&path)?) else {
            continue;
        };
        let schema = file.get("schema").unwrap_or(&file).to_string();
        push("json_schema", name_of(&path), schema.into_bytes());
    }
    for path in files(&repo.join("pda/tests/grammars")) {
        let syntax = match path.extension().and_then(|e| e.to_str()) {
            Some("gbnf") => 0u8,
            Some("lark") => 1,
            Some("ebnf") => 2,
            _ => continue,
        };
        let mut data = vec![syntax];
        data.extend(std::fs::read(&path)?);
        push("grammar", name_of(&path), data);
    }
    let specs = ["tags/tests/specs", "tags/tests/specs/grammar"];
    for path in specs.iter().flat_map(|d| files(&repo.join(d))) {
        // A test case file holds the spec beside texts; the target reads the spec.
        if path.is_file() {
            let case: serde_json::Value = serde_json::from_slice(&std::fs::read(&path)?)?;
            push(
                "structural_tag",
                name_of(&path),
                case["spec"].to_string().into_bytes(),
            );
        }
    }
    for (i, pattern) in PATTERNS.iter().enumerate() {
        let mut data = vec![i as u8 % 4];
        data.extend(pattern.as_bytes());
        push("regex", format!("{i:02}"), data);
    }
    let fsa = TokenAutomaton::from_parts(figure5_parts()).expect("figure 5 builds");
    let pda = TokenPda::from_parts(figure7_pda_parts()).expect("figure 7 builds");
    push(
        "automaton_file",
        "figure5.fstc".into(),
        le_bytes(fsa.as_words()),
    );
    push(
        "automaton_file",
        "figure7.fstc".into(),
        le_bytes(pda.as_words()),
    );
    Ok(out)
}

fn name_of(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

fn le_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Pieces the mutations insert: the syntax the front ends branch on.
const DICTIONARY: [&str; 16] = [
    r##"{"$ref": "#"}"##,
    r#""type": "array", "items": "#,
    r#""minItems": 9999"#,
    r#""anyOf": [{}, "#,
    r#""pattern": "(a|b)*a""#,
    "-1",
    "1e308",
    "{0,99}",
    "(?=",
    "::= ",
    " | ",
    "(",
    ")*",
    "[^",
    "\\",
    "\"",
];

/// `count` mutations of `seed`, the same on every run (`rng` numbers them): each makes one
/// to four of the edits libFuzzer makes: a byte changed, a bit flipped, a byte inserted or
/// erased, a span erased or repeated, a dictionary piece inserted.
pub fn mutations(seed: &[u8], count: usize, rng: u64) -> Vec<Vec<u8>> {
    let mut rng = SplitMix64::new(rng);
    (0..count)
        .map(|_| {
            let mut data = seed.to_vec();
            for _ in 0..1 + rng.index(4) {
                mutate(&mut data, &mut rng);
            }
            data
        })
        .collect()
}

/// One edit of an input, of the kinds libFuzzer makes. `kind` picks it (a byte changed, a
/// bit flipped, a byte inserted or erased, a span erased or repeated, a dictionary piece
/// inserted); `at` and `len` are taken modulo the input's length, `piece` modulo the
/// dictionary's, so any values make a valid edit (proptest draws them in the test command).
#[derive(Clone, Copy, Debug)]
pub struct Edit {
    pub kind: u8,
    pub at: usize,
    pub byte: u8,
    pub len: usize,
    pub piece: usize,
}

impl Edit {
    /// Applies the edit to `data`.
    pub fn apply(self, data: &mut Vec<u8>) {
        let at = self.at % (data.len() + 1);
        match self.kind % 7 {
            0 if at < data.len() => data[at] = self.byte,
            1 if at < data.len() => data[at] ^= 1 << (self.byte % 8),
            2 => data.insert(at, self.byte),
            3 if at < data.len() => {
                data.remove(at);
            }
            4 => {
                let end = (at + 1 + self.len % 16).min(data.len());
                data.drain(at..end);
            }
            5 => {
                let end = (at + 1 + self.len % 32).min(data.len());
                let span = data[at..end].to_vec();
                data.splice(at..at, span);
            }
            _ => {
                let piece = DICTIONARY[self.piece % DICTIONARY.len()];
                data.splice(at..at, piece.bytes());
            }
        }
    }
}

/// One edit of `data` at a random place.
fn mutate(data: &mut Vec<u8>, rng: &mut SplitMix64) {
    let edit = Edit {
        at: rng.index(data.len() + 1),
        byte: rng.next_u64() as u8,
        kind: rng.index(7) as u8,
        len: rng.index(32),
        piece: rng.index(DICTIONARY.len()),
    };
    edit.apply(data);
}

/// Mutations per target in the test command's run ([`smoke_inputs`]).
pub const SMOKE_MUTATIONS: usize = 300;

/// What the test command runs `target` over: its seeds, each followed by its share of
/// [`SMOKE_MUTATIONS`] mutations, named `SEED~k` (`replay smoke DIR` writes the same files).
pub fn smoke_inputs(seeds: &[Seed], target: &str) -> Vec<(String, Vec<u8>)> {
    let mine: Vec<&Seed> = seeds.iter().filter(|s| s.target == target).collect();
    let per_seed = SMOKE_MUTATIONS.div_ceil(mine.len().max(1));
    let mut out = Vec::new();
    for (i, seed) in mine.iter().enumerate() {
        out.push((seed.name.clone(), seed.data.clone()));
        let mutated = mutations(&seed.data, per_seed, i as u64);
        out.extend(
            (mutated.into_iter().enumerate()).map(|(k, m)| (format!("{}~{k}", seed.name), m)),
        );
    }
    out
}
