//! The fast path on real byte-level BPE vocabularies (GPT-2, Llama 3), when
//! `../shared/vocabs` is present next to the workspace (or `$FSTC_VOCABS_DIR` names it);
//! skipped otherwise. Prints timings, the best of five runs (run with
//! `--release -- --nocapture`); asserts only correctness.
#![cfg(feature = "compile")]

mod compose_support;

use std::path::PathBuf;
use std::time::Instant;

use compose_support::{detokenizer, TableDfa};
use fst_core::compose::{compose_trimmed_with_trie, compose_with_trie, ComposeLimits, VocabTrie};
use fst_core::minimize::minimize;
use fst_core::reference::compose_reference;
use fst_core::{ByteVocabulary, TokenVocabulary};

/// `../shared/vocabs` next to the workspace, or `$FSTC_VOCABS_DIR` (for worktrees that
/// live elsewhere).
fn vocabs_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("FSTC_VOCABS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/vocabs"));
    dir.is_dir().then_some(dir)
}

/// Just enough JSON for tokenizer files.
#[derive(Debug)]
enum Json {
    Object(Vec<(String, Json)>),
    Array(Vec<Json>),
    String(String),
    Number(f64),
    Other,
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.at < self.text.len() && self.text[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) {
        self.skip_ws();
        assert_eq!(
            self.text[self.at], byte,
            "JSON: expected {} at {}",
            byte as char, self.at
        );
        self.at += 1;
    }

    fn value(&mut self) -> Json {
        self.skip_ws();
        match self.text[self.at] {
            b'{' => {
                self.at += 1;
                let mut fields = Vec::new();
                self.skip_ws();
                if self.text[self.at] == b'}' {
                    self.at += 1;
                    return Json::Object(fields);
                }
                loop {
                    self.skip_ws();
                    let key = self.string();
                    self.eat(b':');
                    fields.push((key, self.value()));
                    self.skip_ws();
                    self.at += 1;
                    if self.text[self.at - 1] == b'}' {
                        return Json::Object(fields);
                    }
                }
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                self.skip_ws();
                if self.text[self.at] == b']' {
                    self.at += 1;
                    return Json::Array(items);
                }
                loop {
                    items.push(self.value());
                    self.skip_ws();
                    self.at += 1;
                    if self.text[self.at - 1] == b']' {
                        return Json::Array(items);
                    }
                }
            }
            b'"' => Json::String(self.string()),
            b'-' | b'0'..=b'9' => {
                let start = self.at;
                while self.at < self.text.len()
                    && matches!(
                        self.text[self.at],
                        b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
                    )
                {
                    self.at += 1;
                }
                let s = std::str::from_utf8(&self.text[start..self.at]).unwrap();
                Json::Number(s.parse().unwrap())
            }
            _ => {
                while self.at < self.text.len() && self.text[self.at].is_ascii_alphabetic() {
                    self.at += 1;
                }
                Json::Other
            }
        }
    }

    fn hex4(&mut self) -> u32 {
        let s = std::str::from_utf8(&self.text[self.at..self.at + 4]).unwrap();
        self.at += 4;
        u32::from_str_radix(s, 16).unwrap()
    }

    fn string(&mut self) -> String {
        self.eat(b'"');
        let mut out = String::new();
        loop {
            let start = self.at;
            while self.text[self.at] != b'"' && self.text[self.at] != b'\\' {
                self.at += 1;
            }
            out.push_str(std::str::from_utf8(&self.text[start..self.at]).unwrap());
            let c = self.text[self.at];
            self.at += 1;
            if c == b'"' {
                return out;
            }
            let e = self.text[self.at];
            self.at += 1;
            match e {
                b'n' => out.push('\n'),
                b't' => out.push('\t'),
                b'r' => out.push('\r'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'u' => {
                    let mut code = self.hex4();
                    if (0xd800..0xdc00).contains(&code) {
                        self.at += 2; // the "\u" of the low surrogate
                        let low = self.hex4();
                        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
                    }
                    out.push(char::from_u32(code).unwrap());
                }
                other => out.push(other as char),
            }
        }
    }
}

fn parse_json(path: &std::path::Path) -> Json {
    let text = std::fs::read(path).unwrap();
    Parser { text: &text, at: 0 }.value()
}

/// GPT-2's byte-level alphabet read backwards: the character standing for each byte.
fn byte_decoder() -> std::collections::HashMap<char, u8> {
    let printable = |b: u8| matches!(b, b'!'..=b'~' | 0xa1..=0xac | 0xae..=0xff);
    let mut shifted = 0u32;
    (0..=255u8)
        .map(|b| {
            if printable(b) {
                (char::from(b), b)
            } else {
                shifted += 1;
                (char::from_u32(255 + shifted).unwrap(), b)
            }
        })
        .collect()
}

/// A vocabulary from a byte-level BPE token map; `specials` have no text.
fn byte_level_vocab(map: &Json, specials: &[(String, u32)], eos: &str) -> ByteVocabulary {
    let decoder = byte_decoder();
    let Json::Object(fields) = map else {
        panic!("vocab is not an object")
    };
    let size = fields
        .iter()
        .map(|(_, id)| match id {
            Json::Number(n) => *n as usize + 1,
            _ => 0,
        })
        .chain(specials.iter().map(|&(_, id)| id as usize + 1))
        .max()
        .unwrap();
    let mut tokens: Vec<Option<Vec<u8>>> = vec![None; size];
    for (text, id) in fields {
        let Json::Number(id) = id else { continue };
        if specials.iter().any(|(s, _)| s == text) {
            continue;
        }
        tokens[*id as usize] = Some(text.chars().map(|c| decoder[&c]).collect());
    }
    let eos = specials
        .iter()
        .filter(|(s, _)| s == eos)
        .map(|&(_, id)| id)
        .collect();
    ByteVocabulary::new(tokens, eos)
}

fn gpt2(dir: &std::path::Path) -> ByteVocabulary {
    let map = parse_json(&dir.join("gpt2/encoder.json"));
    byte_level_vocab(
        &map,
        &[("<|endoftext|>".to_string(), 50256)],
        "<|endoftext|>",
    )
}

fn llama3(dir: &std::path::Path) -> ByteVocabulary {
    let json = parse_json(&dir.join("llama3/tokenizer.json"));
    let Some(Json::Array(added)) = json.get("added_tokens") else {
        panic!("no added_tokens")
    };
    let specials: Vec<(String, u32)> = added
        .iter()
        .filter_map(|t| match (t.get("content"), t.get("id")) {
            (Some(Json::String(s)), Some(Json::Number(id))) => Some((s.clone(), *id as u32)),
            _ => None,
        })
        .collect();
    let map = json.get("model").and_then(|m| m.get("vocab")).unwrap();
    byte_level_vocab(map, &specials, "<|end_of_text|>")
}

fn digits() -> TableDfa {
    TableDfa::new(2, &[1], &[])
        .with_range(0, b'0'..=b'9', 1)
        .with_range(1, b'0'..=b'9', 1)
}

fn lower_and_space() -> TableDfa {
    TableDfa::new(1, &[0], &[]).with_range(0, (b'a'..=b'z').chain([b' ']), 0)
}

fn any_bytes() -> TableDfa {
    TableDfa::new(1, &[0], &[]).with_range(0, 0..=255, 0)
}

/// `[0-9]{4}-[0-9]{2}-[0-9]{2}`.
fn date() -> TableDfa {
    let mut dfa = TableDfa::new(11, &[10], &[(4, b'-', 5), (7, b'-', 8)]);
    for s in [0, 1, 2, 3, 5, 6, 8, 9] {
        dfa = dfa.with_range(s, b'0'..=b'9', s + 1);
    }
    dfa
}

/// `[a-z]{1,30}`: a chain of 31 states, all but the first accepting.
fn bounded_word() -> TableDfa {
    let accepting: Vec<u32> = (1..=30).collect();
    let mut dfa = TableDfa::new(31, &accepting, &[]);
    for s in 0..30 {
        dfa = dfa.with_range(s, b'a'..=b'z', s + 1);
    }
    dfa
}

fn count_tokens(vocab: &ByteVocabulary, keep: impl Fn(&[u8]) -> bool) -> usize {
    (0..vocab.len() as u32)
        .filter_map(|id| vocab.token_bytes(id))
        .filter(|b| !b.is_empty() && keep(b))
        .count()
}

fn measure(name: &str, vocab: &ByteVocabulary) {
    let started = Instant::now();
    let trie = VocabTrie::new(vocab);
    println!(
        "{name}: {} ids, {} text tokens, {} trie nodes, trie built in {:.1} ms",
        vocab.len(),
        trie.num_text_tokens(),
        trie.num_nodes(),
        started.elapsed().as_secs_f64() * 1e3
    );
    let limits = ComposeLimits::default();
    let cases = [
        ("[0-9]+", digits()),
        ("[a-z ]*", lower_and_space()),
        ("date", date()),
        ("[a-z]{1,30}", bounded_word()),
        ("(any byte)*", any_bytes()),
    ];
    let best_of_5 = |run: &mut dyn FnMut()| {
        (0..5)
            .map(|_| {
                let started = Instant::now();
                run();
                started.elapsed()
            })
            .min()
            .unwrap()
    };
    for (pattern, dfa) in &cases {
        let mut trimmed = None;
        let walk = best_of_5(&mut || {
            trimmed = Some(compose_trimmed_with_trie(dfa, &trie, &limits).unwrap())
        });
        let trimmed = trimmed.unwrap();
        let mut minimal = None;
        let min_time = best_of_5(&mut || minimal = Some(minimize(trimmed.clone())));
        let mut full = None;
        let total = best_of_5(&mut || full = Some(compose_with_trie(dfa, &trie, &limits).unwrap()));
        let full = full.unwrap();
        assert_eq!(Some(&full), minimal.as_ref());
        println!(
            "  {pattern:12} walk+trim {:7.2} ms, minimize {:7.2} ms, compose_with_trie {:7.2} ms: \
             {} -> {} states, {} edges",
            walk.as_secs_f64() * 1e3,
            min_time.as_secs_f64() * 1e3,
            total.as_secs_f64() * 1e3,
            trimmed.accepting.len(),
            full.accepting.len(),
            full.edges.iter().map(Vec::len).sum::<usize>(),
        );
    }

    // What the edges must be, counted directly from the token bytes.
    let digit_only = count_tokens(vocab, |b| b.iter().all(u8::is_ascii_digit));
    let parts = compose_with_trie(&digits(), &trie, &limits).unwrap();
    assert_eq!(parts.accepting, [false, true]);
    assert_eq!(parts.edges[0].len(), digit_only);
    assert_eq!(parts.edges[0], parts.edges[1]);
    let lower = count_tokens(vocab, |b| {
        b.iter().all(|&c| c == b' ' || c.is_ascii_lowercase())
    });
    let parts = compose_with_trie(&lower_and_space(), &trie, &limits).unwrap();
    assert_eq!(parts.edges, [parts.edges[0].clone()]);
    assert_eq!(parts.edges[0].len(), lower);
    let parts = compose_with_trie(&any_bytes(), &trie, &limits).unwrap();
    assert_eq!(parts.edges[0].len(), trie.num_text_tokens());
    assert_eq!(parts.eos_ids, vocab.eos_ids());
}

#[test]
fn gpt2_vocabulary() {
    let Some(dir) = vocabs_dir() else {
        println!("skipped: no shared/vocabs next to the workspace");
        return;
    };
    let vocab = gpt2(&dir);
    assert_eq!(vocab.len(), 50257);
    assert_eq!(vocab.token_bytes(220), Some(&b" "[..]));
    assert_eq!(vocab.eos_ids(), [50256]);
    measure("gpt2", &vocab);
}

#[test]
fn llama3_vocabulary() {
    let Some(dir) = vocabs_dir() else {
        println!("skipped: no shared/vocabs next to the workspace");
        return;
    };
    let vocab = llama3(&dir);
    assert_eq!(vocab.len(), 128256);
    assert_eq!(vocab.eos_ids(), [128001]);
    measure("llama3", &vocab);
}

#[test]
fn gpt2_subset_agrees_with_reference() {
    let Some(dir) = vocabs_dir() else {
        println!("skipped: no shared/vocabs next to the workspace");
        return;
    };
    // The first 700 ids: every single byte and the earliest merges (" t", "he", "in", ...).
    let full = gpt2(&dir);
    let tokens = (0..700)
        .map(|id| full.token_bytes(id).map(<[u8]>::to_vec))
        .collect();
    let vocab = ByteVocabulary::new(tokens, vec![]);
    let tv = detokenizer(&vocab);
    let limits = ComposeLimits::default();
    for (name, dfa) in [
        ("[0-9]+", digits()),
        ("[a-z ]*", lower_and_space()),
        ("date", date()),
        ("[a-z]{1,30}", bounded_word()),
    ] {
        let started = Instant::now();
        let reference = compose_reference(&dfa.to_fst(), &tv, &vocab).unwrap();
        let reference_time = started.elapsed();
        let fast = fst_core::compose::compose(&dfa, &vocab, &limits).unwrap();
        assert_eq!(fast, reference, "{name}");
        println!(
            "gpt2[..700] {name}: reference path {:.1} ms, {} states",
            reference_time.as_secs_f64() * 1e3,
            fast.accepting.len()
        );
    }
}

#[test]
fn full_gpt2_agrees_with_reference() {
    let Some(dir) = vocabs_dir() else {
        println!("skipped: no shared/vocabs next to the workspace");
        return;
    };
    let vocab = gpt2(&dir);
    let tv = detokenizer(&vocab);
    for (name, dfa) in [
        ("[0-9]+", digits()),
        ("date", date()),
        ("[a-z ]*", lower_and_space()),
    ] {
        let started = Instant::now();
        let reference = compose_reference(&dfa.to_fst(), &tv, &vocab).unwrap();
        let reference_time = started.elapsed();
        let fast = fst_core::compose::compose(&dfa, &vocab, &ComposeLimits::default()).unwrap();
        assert_eq!(fast, reference, "{name}");
        println!(
            "gpt2 {name}: reference path {:.1} ms",
            reference_time.as_secs_f64() * 1e3
        );
    }
}
