//! The fuzz targets of issue 27, one per input surface. Each takes arbitrary bytes, feeds
//! them to one front end (or the file loader) with small limits and a time budget, and
//! uses what comes out (masks, walks); an error is a fine outcome, a panic, an abort or a
//! hang is what the fuzzer reports. `fuzz_targets/` wraps them for libFuzzer, `replay`
//! runs them over files on stable.

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
        .config_limit(STATE_LIMIT);
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
    let config = fstc_regex::Config::new().dfa_state_limit(STATE_LIMIT);
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
