//! Shared helpers of the JSON Schema tests: the corpus, an independent validator, walks
//! and tokenizations.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;

use fstc_core::automaton::TokenAutomaton;
use fstc_core::bytes::ByteDfa;
use fstc_core::sample::SplitMix64;
use fstc_core::walker::Walker;
use fstc_json::Whitespace;
use serde_json::Value;

/// One corpus file: a schema with instances that must and must not validate.
pub struct Case {
    pub name: String,
    pub schema: Value,
    pub valid: Vec<Value>,
    pub invalid: Vec<Value>,
}

pub fn corpus() -> Vec<Case> {
    json_files("tests/schemas")
        .into_iter()
        .map(|(name, mut file)| {
            let list = |v: Value| v.as_array().cloned().unwrap_or_default();
            Case {
                name,
                schema: file["schema"].take(),
                valid: list(file["valid"].take()),
                invalid: list(file["invalid"].take()),
            }
        })
        .collect()
}

/// The JSON files of a folder of the crate, by file name in order.
pub fn json_files(dir: &str) -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, serde_json::from_str(&text).unwrap())
        })
        .collect()
}

/// The independent oracle: the `jsonschema` crate with format assertions on.
pub fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap()
}

/// The byte DFA of `schema` under `config` with compact whitespace, or the error's text.
pub fn compact_dfa(schema: &Value, config: fstc_json::Config) -> Result<ByteDfa, String> {
    let compiler =
        fstc_json::JsonSchemaCompiler::new().configure(config.whitespace(Whitespace::Compact));
    let regex = compiler
        .to_regex(&schema.to_string())
        .map_err(|e| e.to_string())?;
    regex.dfa(100_000).map_err(|e| e.to_string())
}

/// Asserts that `n` random texts of `dfa` validate under `oracle` (texts with numerals a
/// double cannot hold are not compared); returns how many were compared.
pub fn walks_validate(
    dfa: &ByteDfa,
    oracle: &jsonschema::Validator,
    rng: &mut SplitMix64,
    n: usize,
) -> usize {
    let mut compared = 0;
    for _ in 0..n {
        let text = String::from_utf8(dfa_walk(dfa, rng, 60)).unwrap();
        if beyond_f64(&text) {
            continue;
        }
        let value: Value = serde_json::from_str(&text).unwrap();
        assert!(oracle.is_valid(&value), "{text}");
        compared += 1;
    }
    compared
}

/// Whether `text` has a numeral of more than 15 significant digits (or a digit run that
/// long in a string): the oracle reads numbers as doubles, which round such a numeral
/// (`21299136720145417940.08` reads as an integer), while the schema speaks of the decimal
/// value written. Walks with one are not compared.
pub fn beyond_f64(text: &str) -> bool {
    text.split(|c: char| !c.is_ascii_digit() && c != '.')
        .any(|run| {
            run.trim_start_matches(['0', '.'])
                .chars()
                .filter(char::is_ascii_digit)
                .count()
                > 15
        })
}

/// `value` serialized in a whitespace style (flexible: the compact form).
pub fn serialize(value: &Value, style: Whitespace) -> String {
    match style {
        Whitespace::Pretty { indent } => {
            let mut out = Vec::new();
            let spaces = " ".repeat(indent);
            let formatter = serde_json::ser::PrettyFormatter::with_indent(spaces.as_bytes());
            let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
            serde::Serialize::serialize(value, &mut ser).unwrap();
            String::from_utf8(out).unwrap()
        }
        _ => value.to_string(),
    }
}

pub const STYLES: [Whitespace; 3] = [
    Whitespace::Compact,
    Whitespace::Flexible { max_whitespace: 8 },
    Whitespace::Pretty { indent: 2 },
];

/// A random text of the byte DFA: uniform over the bytes with a transition, steered to
/// the nearest accepting state once `budget` bytes are spent; stops at accepting states
/// with probability 1/8.
pub fn dfa_walk(dfa: &ByteDfa, rng: &mut SplitMix64, budget: usize) -> Vec<u8> {
    let dist = byte_distances(dfa);
    let mut s = dfa.start();
    let mut out = Vec::new();
    loop {
        if dfa.is_accepting(s) && (out.len() >= budget || rng.below(8) == 0) {
            return out;
        }
        let moves: Vec<(u8, u32)> = (0..=255u8)
            .filter_map(|b| dfa.next(s, b).map(|t| (b, t)))
            .collect();
        if moves.is_empty() {
            return out;
        }
        let moves: Vec<(u8, u32)> = if out.len() >= budget {
            let best = moves.iter().map(|m| dist[m.1 as usize]).min().unwrap();
            moves
                .into_iter()
                .filter(|m| dist[m.1 as usize] == best)
                .collect()
        } else {
            moves
        };
        let (b, t) = moves[rng.index(moves.len())];
        out.push(b);
        s = t;
    }
}

fn byte_distances(dfa: &ByteDfa) -> Vec<u32> {
    let n = dfa.num_states();
    let mut reverse = vec![Vec::new(); n];
    for s in 0..n as u32 {
        for b in 0..=255u8 {
            if let Some(t) = dfa.next(s, b) {
                reverse[t as usize].push(s);
            }
        }
    }
    bfs(n, |s| dfa.is_accepting(s), &reverse)
}

fn bfs(n: usize, accepting: impl Fn(u32) -> bool, reverse: &[Vec<u32>]) -> Vec<u32> {
    let mut dist = vec![u32::MAX; n];
    let mut queue = VecDeque::new();
    for s in 0..n as u32 {
        if accepting(s) {
            dist[s as usize] = 0;
            queue.push_back(s);
        }
    }
    while let Some(s) = queue.pop_front() {
        for &p in &reverse[s as usize] {
            if dist[p as usize] == u32::MAX {
                dist[p as usize] = dist[s as usize] + 1;
                queue.push_back(p);
            }
        }
    }
    dist
}

/// A random complete token sequence of the automaton, steered like [`dfa_walk`]: each
/// step uniform over the token edges. Works on class edges (a class's tokens share a
/// target), so it never expands a state's tens of thousands of token edges.
pub fn token_walk(automaton: &TokenAutomaton, rng: &mut SplitMix64, budget: usize) -> Vec<u32> {
    let n = automaton.num_states() as usize;
    let mut reverse = vec![Vec::new(); n];
    for s in 0..n as u32 {
        for (_, t) in automaton.class_edges(s) {
            reverse[t as usize].push(s);
        }
    }
    let dist = bfs(n, |s| automaton.is_accepting(s), &reverse);
    let mut s = automaton.start();
    let mut out = Vec::new();
    loop {
        if automaton.is_accepting(s) && (out.len() >= budget || rng.below(8) == 0) {
            return out;
        }
        let mut moves: Vec<(u32, u32)> = automaton.class_edges(s).collect();
        if moves.is_empty() {
            return out;
        }
        if out.len() >= budget {
            let best = moves.iter().map(|m| dist[m.1 as usize]).min().unwrap();
            moves.retain(|m| dist[m.1 as usize] == best);
        }
        let total: usize = moves.iter().map(|m| automaton.class_size(m.0)).sum();
        let mut pick = rng.index(total);
        for (class, target) in moves {
            let size = automaton.class_size(class);
            if pick < size {
                out.push(automaton.class_tokens(class).nth(pick).unwrap());
                s = target;
                break;
            }
            pick -= size;
        }
    }
}

/// Whether the automaton accepts `tokens` followed by EOS.
pub fn accepts(automaton: &TokenAutomaton, tokens: &[u32]) -> bool {
    let mut walker = Walker::new(automaton);
    walker.consume_tokens(tokens).is_ok() && walker.is_accepting()
}

/// Each token's bytes to its id (tokens without text left out), for random tokenizations.
pub fn ids_by_bytes(vocab: &fstc_detok::Vocabulary) -> HashMap<Vec<u8>, u32> {
    use fstc_core::TokenVocabulary;
    (0..vocab.len() as u32)
        .filter_map(|id| {
            let bytes = vocab.token_bytes(id).filter(|b| !b.is_empty())?;
            Some((bytes.to_vec(), id))
        })
        .collect()
}

/// A random split of `text` into tokens of the vocabulary (`None` if some byte has no token).
pub fn random_tokenization(
    by_bytes: &HashMap<Vec<u8>, u32>,
    text: &[u8],
    rng: &mut SplitMix64,
) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let options: Vec<(usize, u32)> = (1..=16.min(text.len() - i))
            .filter_map(|len| by_bytes.get(&text[i..i + len]).map(|&id| (len, id)))
            .collect();
        let &(len, id) = options.get(rng.index(options.len().max(1)))?;
        out.push(id);
        i += len;
    }
    Some(out)
}
