//! GGUF vocabularies: the committed fixtures (written by the small GGUF writer below, which
//! shares no code with detok's reader), bytes per id and EOS ids for both tokenizer families,
//! malformed and mutated files (errors, never panics), and real files when present.
//!
//! `FSTC_WRITE_GGUF_FIXTURES=1 cargo test -p fstc-detok --test all gguf::` rewrites testdata/gguf/.

use std::io::Cursor;

use fstc_core::TokenVocabulary;
use fstc_detok::{Family, VocabError, VocabErrorKind, Vocabulary};
use proptest::prelude::*;
use testkit::vocabs::testdata;

/// A GGUF value, written per the specification (little-endian, u64 lengths and counts).
enum V {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(bool),
    Str(&'static str),
    U64(u64),
    I64(i64),
    F64(f64),
    /// Element type code and elements (all of that type).
    Arr(u32, Vec<V>),
}

impl V {
    fn code(&self) -> u32 {
        match self {
            V::U8(_) => 0,
            V::I8(_) => 1,
            V::U16(_) => 2,
            V::I16(_) => 3,
            V::U32(_) => 4,
            V::I32(_) => 5,
            V::F32(_) => 6,
            V::Bool(_) => 7,
            V::Str(_) => 8,
            V::Arr(..) => 9,
            V::U64(_) => 10,
            V::I64(_) => 11,
            V::F64(_) => 12,
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            V::U8(v) => out.push(*v),
            V::I8(v) => out.extend(v.to_le_bytes()),
            V::U16(v) => out.extend(v.to_le_bytes()),
            V::I16(v) => out.extend(v.to_le_bytes()),
            V::U32(v) => out.extend(v.to_le_bytes()),
            V::I32(v) => out.extend(v.to_le_bytes()),
            V::F32(v) => out.extend(v.to_le_bytes()),
            V::Bool(v) => out.push(*v as u8),
            V::Str(s) => write_str(out, s.as_bytes()),
            V::U64(v) => out.extend(v.to_le_bytes()),
            V::I64(v) => out.extend(v.to_le_bytes()),
            V::F64(v) => out.extend(v.to_le_bytes()),
            V::Arr(elem, items) => {
                out.extend(elem.to_le_bytes());
                out.extend((items.len() as u64).to_le_bytes());
                for item in items {
                    assert_eq!(item.code(), *elem);
                    item.write(out);
                }
            }
        }
    }
}

fn write_str(out: &mut Vec<u8>, s: &[u8]) {
    out.extend((s.len() as u64).to_le_bytes());
    out.extend(s);
}

/// A whole GGUF file: header, key-values, one tiny tensor description and its data (which
/// the reader must never need).
fn gguf(version: u32, kvs: Vec<(&str, V)>) -> Vec<u8> {
    let mut out = b"GGUF".to_vec();
    out.extend(version.to_le_bytes());
    out.extend(1u64.to_le_bytes());
    out.extend((kvs.len() as u64).to_le_bytes());
    for (key, value) in &kvs {
        write_str(&mut out, key.as_bytes());
        out.extend(value.code().to_le_bytes());
        value.write(&mut out);
    }
    // Tensor info: name, 1 dimension of 4, type F32 (0), offset 0; aligned data.
    write_str(&mut out, b"weight");
    out.extend(1u32.to_le_bytes());
    out.extend(4u64.to_le_bytes());
    out.extend(0u32.to_le_bytes());
    out.extend(0u64.to_le_bytes());
    while out.len() % 32 != 0 {
        out.push(0);
    }
    out.extend([0u8; 16]);
    out
}

fn strs(items: &[&'static str]) -> V {
    V::Arr(8, items.iter().map(|s| V::Str(s)).collect())
}

fn i32s(items: &[i32]) -> V {
    V::Arr(5, items.iter().map(|&t| V::I32(t)).collect())
}

/// Keys of every value type the reader must skip, nested arrays included.
fn other_keys() -> Vec<(&'static str, V)> {
    vec![
        ("general.alignment", V::U32(32)),
        ("test.u8", V::U8(7)),
        ("test.i8", V::I8(-7)),
        ("test.u16", V::U16(700)),
        ("test.i16", V::I16(-700)),
        ("test.f32", V::F32(0.5)),
        ("test.bool", V::Bool(true)),
        ("test.u64", V::U64(1 << 40)),
        ("test.i64", V::I64(-(1 << 40))),
        ("test.f64", V::F64(2.5)),
        (
            "test.nested",
            V::Arr(9, vec![strs(&["a", "bc"]), i32s(&[1, 2, 3])]),
        ),
        ("tokenizer.chat_template", V::Str("{{ messages }}")),
    ]
}

// Token types: 1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte.
const LLAMA_TOKENS: &[(&str, i32)] = &[
    ("<unk>", 2),
    ("<s>", 3),
    ("</s>", 3),
    ("<0x0A>", 6),
    ("<0xE2>", 6),
    ("<0x82>", 6),
    ("<0xAC>", 6),
    ("\u{2581}hello", 1),
    ("\u{2581}", 1),
    ("world", 1),
    ("\u{2581}\u{2581}x\u{2581}", 1),
    ("<|user|>", 4),
    ("\u{2581}user\u{2581}defined", 4),
    ("<pad>", 5),
    ("<|im_end|>", 3),
    ("€", 1),
];

const GPT2_TOKENS: &[(&str, i32)] = &[
    ("Ġhello", 1),
    ("world", 1),
    ("Ċ", 1),
    ("Ã", 1),
    ("<|endoftext|>", 3),
    ("<|eot_id|>", 1),
    ("<tool>", 4),
    ("Ġ<x>Ġ", 4),
    ("<0x41>", 6),
    ("<unused>", 5),
    ("ĠĠ", 1),
];

fn llama_fixture() -> Vec<u8> {
    let tokens: Vec<&'static str> = LLAMA_TOKENS.iter().map(|t| t.0).collect();
    let types: Vec<i32> = LLAMA_TOKENS.iter().map(|t| t.1).collect();
    let mut kvs = vec![
        ("general.architecture", V::Str("llama")),
        ("tokenizer.ggml.model", V::Str("llama")),
        ("tokenizer.ggml.tokens", strs(&tokens)),
        (
            "tokenizer.ggml.scores",
            V::Arr(6, (0..tokens.len()).map(|i| V::F32(-(i as f32))).collect()),
        ),
        ("tokenizer.ggml.token_type", i32s(&types)),
        ("tokenizer.ggml.bos_token_id", V::U32(1)),
        ("tokenizer.ggml.eos_token_id", V::U32(2)),
        ("tokenizer.ggml.unknown_token_id", V::U32(0)),
    ];
    kvs.extend(other_keys());
    gguf(3, kvs)
}

fn gpt2_fixture() -> Vec<u8> {
    let tokens: Vec<&'static str> = GPT2_TOKENS.iter().map(|t| t.0).collect();
    let types: Vec<i32> = GPT2_TOKENS.iter().map(|t| t.1).collect();
    let mut kvs = other_keys();
    kvs.extend([
        ("tokenizer.ggml.model", V::Str("gpt2")),
        ("tokenizer.ggml.pre", V::Str("smollm")),
        ("tokenizer.ggml.tokens", strs(&tokens)),
        ("tokenizer.ggml.token_type", i32s(&types)),
        ("tokenizer.ggml.merges", strs(&["Ġ h", "w o"])),
        ("tokenizer.ggml.eos_token_id", V::U32(4)),
        ("tokenizer.ggml.eot_token_id", V::I32(5)),
    ]);
    gguf(2, kvs)
}

/// llama.cpp's end-of-generation roles: keys, FIM tokens found by name, end names of any
/// type (see `eog_set_is_llama_cpps`).
const EOG_TOKENS: &[(&str, i32)] = &[
    ("<|endoftext|>", 3),
    ("<|im_start|>", 3),
    ("<|im_end|>", 3),
    ("<repo_name>", 3),
    ("<reponame>", 3),
    ("<file_sep>", 3),
    ("<|fim_pad|>", 1),
    ("<pad_here>", 3),
    ("<fim_prefix>", 4),
    ("hello", 1),
    ("<end_of_turn>", 4),
    ("<|file_sep|>", 1),
];

fn eog_fixture() -> Vec<u8> {
    let tokens: Vec<&'static str> = EOG_TOKENS.iter().map(|t| t.0).collect();
    let types: Vec<i32> = EOG_TOKENS.iter().map(|t| t.1).collect();
    gguf(
        3,
        vec![
            ("general.architecture", V::Str("llama")),
            ("tokenizer.ggml.model", V::Str("gpt2")),
            ("tokenizer.ggml.pre", V::Str("smollm")),
            ("tokenizer.ggml.tokens", strs(&tokens)),
            ("tokenizer.ggml.token_type", i32s(&types)),
            ("tokenizer.ggml.merges", strs(&["h e", "l l"])),
            ("tokenizer.ggml.eos_token_id", V::U32(0)),
            ("tokenizer.ggml.fim_pad_token_id", V::U32(7)),
        ],
    )
}

/// Writes one fixture file's bytes.
type Writer = fn() -> Vec<u8>;

const FIXTURES: [(&str, Writer); 3] = [
    ("gguf/llama.gguf", llama_fixture),
    ("gguf/gpt2.gguf", gpt2_fixture),
    ("gguf/eog.gguf", eog_fixture),
];

#[test]
fn committed_fixtures_are_what_the_writer_writes() {
    let write = std::env::var_os("FSTC_WRITE_GGUF_FIXTURES").is_some();
    for (rel, make) in FIXTURES {
        let path = testdata(rel);
        if write {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, make()).unwrap();
        }
        let committed = std::fs::read(&path).unwrap();
        assert!(
            committed == make(),
            "{rel} is stale: rerun with FSTC_WRITE_GGUF_FIXTURES=1"
        );
    }
}

fn load(rel: &str) -> Vocabulary {
    Vocabulary::from_file(testdata(rel)).unwrap()
}

fn bytes(vocab: &Vocabulary) -> Vec<Option<Vec<u8>>> {
    (0..vocab.len() as u32)
        .map(|id| vocab.token_bytes(id).map(<[u8]>::to_vec))
        .collect()
}

#[test]
fn llama_family_bytes_per_id() {
    let vocab = load("gguf/llama.gguf");
    assert_eq!(vocab.family(), Family::SentencePiece);
    let b = |s: &str| Some(s.as_bytes().to_vec());
    let expected = vec![
        None,
        None,
        None,
        Some(vec![b'\n']),
        Some(vec![0xE2]),
        Some(vec![0x82]),
        Some(vec![0xAC]),
        b(" hello"),
        b(" "),
        b("world"),
        b("  x "),
        // User-defined tokens are their text as written (no ▁ replacement).
        b("<|user|>"),
        b("\u{2581}user\u{2581}defined"),
        None,
        None,
        b("€"),
    ];
    assert_eq!(bytes(&vocab), expected);
    let specials: Vec<(u32, &str)> = vocab.special_tokens().collect();
    assert_eq!(
        specials,
        [
            (0, "<unk>"),
            (1, "<s>"),
            (2, "</s>"),
            (13, "<pad>"),
            (14, "<|im_end|>")
        ]
    );
    // eos_token_id, plus the control token with an end name llama.cpp knows.
    assert_eq!(vocab.eos_ids(), &[2, 14]);
    // The byte tokens spell "€" like the normal token does.
    assert_eq!(vocab.detokenize(&[4, 5, 6]), vocab.token_bytes(15).unwrap());
}

#[test]
fn gpt2_family_bytes_per_id() {
    let vocab = load("gguf/gpt2.gguf");
    assert_eq!(vocab.family(), Family::ByteLevelBpe);
    let b = |s: &str| Some(s.as_bytes().to_vec());
    let expected = vec![
        b(" hello"),
        b("world"),
        b("\n"),
        Some(vec![0xC3]),
        None,
        // Typed normal, but eot_token_id names it: special.
        None,
        b("<tool>"),
        // User-defined: the text as written, not byte-level decoded.
        b("Ġ<x>Ġ"),
        // A byte token is its byte in the gpt2 family too (llama.cpp's token_to_byte).
        b("A"),
        None,
        b("  "),
    ];
    assert_eq!(bytes(&vocab), expected);
    assert_eq!(vocab.eos_ids(), &[4, 5]);
    assert_eq!(vocab.special_name(5), Some("<|eot_id|>"));
    assert_eq!(vocab.token_id("<unused>"), Some(9));
}

/// EOS is llama.cpp's end-of-generation set: the EOS key's id (0); the FIM pad key's id (7),
/// so the token named `<|fim_pad|>` stays text; the FIM repository and file-separator
/// tokens found by name where no key names them (`<reponame>`, SmolLM2's id 4, and
/// `<|file_sep|>`, typed normal); every end name whatever its type (`<|im_end|>`, the
/// user-defined `<end_of_turn>`). Such tokens, and FIM prefix names (`<fim_prefix>`), have
/// no text, as llama.cpp makes them control tokens. `<repo_name>` and `<file_sep>` are not
/// names llama.cpp knows. (`testdata/gguf_pieces.py testdata/gguf/eog.gguf` prints what
/// llama.cpp itself says of this file: the same.)
#[test]
fn eog_set_is_llama_cpps() {
    let vocab = load("gguf/eog.gguf");
    assert_eq!(vocab.eos_ids(), &[0, 2, 4, 7, 10, 11]);
    let text: Vec<u32> = (0..vocab.len() as u32)
        .filter(|&id| vocab.token_bytes(id).is_some())
        .collect();
    assert_eq!(text, [6, 9]);
    assert_eq!(vocab.token_bytes(6), Some(&b"<|fim_pad|>"[..]));
}

#[test]
fn tokenize_refusals_are_clear_errors() {
    // The llama fixture has no "▁" + "h..." pieces: "hello" has no tokens, nor byte tokens.
    let msg = load("gguf/llama.gguf")
        .tokenize("hello")
        .unwrap_err()
        .to_string();
    assert!(msg.contains("\"h\"") && msg.contains("<0x68>"), "{msg}");
    // Its user-defined tokens are cut out first; the rest is SentencePiece (whose "▁hello" no
    // pair of pieces makes).
    let ids = load("gguf/llama.gguf").tokenize(" <|user|> €").unwrap();
    assert_eq!(ids, [8, 11, 8, 15]);
    let data = gguf(
        3,
        vec![
            ("tokenizer.ggml.model", V::Str("gpt2")),
            ("tokenizer.ggml.tokens", strs(&["a"])),
            ("tokenizer.ggml.pre", V::Str("gpt-2")),
        ],
    );
    let msg = from_bytes(&data).unwrap().tokenize("a").unwrap_err();
    assert!(msg.to_string().contains("without merges"), "{msg}");
    for (pre, needle) in [
        (Some("deepseek-coder"), "\"deepseek-coder\""),
        (None, "absent"),
    ] {
        let data = bytelevel_gguf(pre);
        let err = from_bytes(&data).unwrap().tokenize("hello").unwrap_err();
        assert_eq!(err.kind(), VocabErrorKind::Tokenize);
        let msg = err.to_string();
        assert!(
            msg.contains(needle) && msg.contains("\"smollm\"") && msg.contains("tokenizer.json"),
            "{msg}"
        );
    }
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

/// A GGUF file of byte-level BPE `tokens` (id order; `ty` gives each id's token type)
/// and `merges`, pre-tokenizer `pre`.
fn bpe_gguf(
    tokens: &[&'static str],
    ty: impl Fn(usize) -> i32,
    merges: &[&'static str],
    pre: Option<&'static str>,
) -> Vec<u8> {
    let types: Vec<i32> = (0..tokens.len()).map(ty).collect();
    let mut kvs = vec![
        ("tokenizer.ggml.model", V::Str("gpt2")),
        ("tokenizer.ggml.tokens", strs(tokens)),
        ("tokenizer.ggml.token_type", i32s(&types)),
        ("tokenizer.ggml.merges", strs(merges)),
    ];
    if let Some(pre) = pre {
        kvs.push(("tokenizer.ggml.pre", V::Str(pre)));
    }
    gguf(3, kvs)
}

/// A tokenizer.json's BPE as a GGUF file: its vocabulary and merges, its added tokens (ids
/// below `limit`) as control tokens, or, with `user_defined`, those that are text
/// (`"special": false`) as user-defined tokens, as llama.cpp's converter writes them.
fn tokenizer_json_gguf(
    path: &std::path::Path,
    limit: usize,
    pre: Option<&'static str>,
    user_defined: bool,
) -> Vec<u8> {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let vocab = json["model"]["vocab"].as_object().unwrap();
    let mut tokens = vec![""; limit];
    for (text, id) in vocab {
        tokens[id.as_u64().unwrap() as usize] = leak(text);
    }
    let mut text_ids = Vec::new();
    for added in json["added_tokens"].as_array().unwrap() {
        let id = added["id"].as_u64().unwrap() as usize;
        if id < tokens.len() {
            tokens[id] = leak(added["content"].as_str().unwrap());
            if user_defined && added["special"] == false {
                text_ids.push(id);
            }
        }
    }
    let merges: Vec<&'static str> = json["model"]["merges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| match m {
            serde_json::Value::Array(pair) => leak(&format!(
                "{} {}",
                pair[0].as_str().unwrap(),
                pair[1].as_str().unwrap()
            )),
            m => leak(m.as_str().unwrap()),
        })
        .collect();
    let ty = |id| match id {
        _ if text_ids.contains(&id) => 4,
        _ if id >= vocab.len() => 3,
        _ => 1,
    };
    bpe_gguf(&tokens, ty, &merges, pre)
}

/// The byte-level fixture (Llama 3's BPE cut to 2,000 ids, then three special tokens).
fn bytelevel_gguf(pre: Option<&'static str>) -> Vec<u8> {
    tokenizer_json_gguf(&testdata("bytelevel/tokenizer.json"), 2003, pre, false)
}

/// Texts for tokenizer comparisons: contractions in both cases, digit runs, punctuation
/// runs, space runs, tabs, non-ASCII letters and symbols (no newline, no 8-space run and no
/// `<table>`: the fixture's tokenizer.json has added text tokens for them, which a GGUF
/// would hold as user-defined tokens).
const TEXTS: &[&str] = &[
    "hello world",
    "Hello World, it's fine; they'RE here and I'M not. We'll see; you'd've",
    "1234567 + 89 = 1234656, 3.14159 and -0.5e10",
    "   leading and trailing spaces   ",
    "tabs\tand\t\tmore\t",
    "symbols !!! ??? ... --- ((( ))) {\"a\": [1, 2]}",
    "caf\u{e9} na\u{ef}ve \u{fc}ber stra\u{df}e \u{4e2d}\u{6587} \u{65e5}\u{672c}\u{8a9e} \u{1f600}!",
    "x  y   z    w",
    "a'b 'tis 's",
    "",
];

/// Texts with newlines, for vocabularies whose added tokens are all special.
const LINES: &[&str] = &[
    "line one\nline two\n\n\nthree\r\nfour\n  indented\n\tend\n",
    "def f(x):\n    return x ** 2  # square\n",
    "<table><tr><td>1</td></tr></table>\n        eight spaces",
];

/// `gguf` tokenizes every text as `reference` does.
fn same_tokens(gguf: &[u8], reference: &Vocabulary, texts: &[&str]) {
    let vocab = from_bytes(gguf).unwrap();
    for text in texts {
        let ids = vocab.tokenize(text).unwrap();
        assert_eq!(ids, reference.tokenize(text).unwrap(), "{text:?}");
        assert_eq!(vocab.detokenize(&ids), text.as_bytes());
    }
}

/// A GGUF file named `llama-bpe` tokenizes as the tokenizers crate does with the same
/// tokens and merges and Llama 3's pre-tokenizer from the tokenizer.json (an independent
/// implementation of the same splits): the byte-level fixture, and Llama 3's and Qwen 3's
/// whole vocabularies (`qwen2`) when the shared vocabularies are there.
#[test]
fn bpe_gguf_tokenizes_as_its_tokenizer_json() {
    let reference = Vocabulary::from_file(testdata("bytelevel/tokenizer.json")).unwrap();
    same_tokens(&bytelevel_gguf(Some("llama-bpe")), &reference, TEXTS);
    for (rel, pre) in [
        ("llama3/tokenizer.json", "llama-bpe"),
        ("qwen3/tokenizer.json", "qwen2"),
    ] {
        let Some(path) = testkit::vocabs::shared_vocab_path(rel) else {
            continue;
        };
        let reference = Vocabulary::from_file(&path).unwrap();
        let gguf = tokenizer_json_gguf(&path, reference.len(), Some(pre), false);
        same_tokens(&gguf, &reference, TEXTS);
        same_tokens(&gguf, &reference, LINES);
    }
}

/// The byte-level fixture's added tokens that are text (newline runs, eight spaces, `<table>`)
/// as user-defined tokens: cut out of the text before the BPE, as the tokenizer.json's added
/// tokens are matched first (Qwen 3's whole vocabulary too, when the shared vocabularies are
/// there: its `<think>`, `<tool_call>`, ...; llama.cpp itself in python/tests/test_gguf_llama.py).
#[test]
fn user_defined_tokens_are_cut_out_first() {
    let path = testdata("bytelevel/tokenizer.json");
    let reference = Vocabulary::from_file(&path).unwrap();
    let data = tokenizer_json_gguf(&path, reference.len(), Some("llama-bpe"), true);
    let vocab = from_bytes(&data).unwrap();
    assert_eq!(bytes(&vocab), bytes(&reference));
    let table = vocab.token_id("<table>").unwrap();
    assert_eq!(vocab.tokenize("<table><table>").unwrap(), [table, table]);
    same_tokens(&data, &reference, TEXTS);
    same_tokens(&data, &reference, LINES);
    same_tokens(
        &data,
        &reference,
        &["\n\n\n\n\n x\n\n<table>        \n", "a<table>b<tab"],
    );
    if let Some(path) = testkit::vocabs::shared_vocab_path("qwen3/tokenizer.json") {
        let reference = Vocabulary::from_file(&path).unwrap();
        let data = tokenizer_json_gguf(&path, reference.len(), Some("qwen2"), true);
        let texts = [
            "<think>\nhmm</think> <tool_call>{\"a\": 1}</tool_call>\n",
            "</think",
        ];
        same_tokens(&data, &reference, &texts);
        same_tokens(&data, &reference, LINES);
    }
}

/// Llama 2's tokenizer.json (SentencePiece BPE with byte fallback) as a SentencePiece GGUF
/// file, as llama.cpp's converter writes one: the pieces, `<0xHH>` byte tokens, the added
/// tokens as control tokens but id 0 (unknown), and scores: a piece's is minus the rank of
/// the first merge making it (the tokenizer.json's merges list the SentencePiece model's
/// pieces by falling score), a piece no merge makes (one character) scores minus its id.
fn spm_gguf(path: &std::path::Path) -> Vec<u8> {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let vocab = json["model"]["vocab"].as_object().unwrap();
    let mut tokens = vec![""; vocab.len()];
    for (text, id) in vocab {
        tokens[id.as_u64().unwrap() as usize] = leak(text);
    }
    let added: Vec<usize> = (json["added_tokens"].as_array().unwrap().iter())
        .map(|t| t["id"].as_u64().unwrap() as usize)
        .collect();
    let types: Vec<i32> = (0..tokens.len())
        .map(|id| match id {
            0 => 2,
            _ if added.contains(&id) => 3,
            _ if tokens[id].len() == 6 && tokens[id].starts_with("<0x") => 6,
            _ => 1,
        })
        .collect();
    let mut rank = std::collections::HashMap::new();
    for (r, merge) in json["model"]["merges"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let merged = match merge {
            serde_json::Value::Array(pair) => pair.iter().map(|p| p.as_str().unwrap()).collect(),
            m => m.as_str().unwrap().replace(' ', ""),
        };
        rank.entry(merged).or_insert(r);
    }
    let scores = (0..tokens.len())
        .map(|id| match (types[id], rank.get(tokens[id])) {
            (1, Some(&r)) => V::F32(-(r as f32)),
            (1, None) => V::F32(-(id as f32)),
            _ => V::F32(0.0),
        })
        .collect();
    gguf(
        3,
        vec![
            ("tokenizer.ggml.model", V::Str("llama")),
            ("tokenizer.ggml.tokens", strs(&tokens)),
            ("tokenizer.ggml.scores", V::Arr(6, scores)),
            ("tokenizer.ggml.token_type", i32s(&types)),
            ("tokenizer.ggml.eos_token_id", V::U32(2)),
        ],
    )
}

/// A SentencePiece GGUF file tokenizes as its tokenizer.json does with the tokenizers crate
/// (merges by rank, where llama.cpp's algorithm merges by score): Llama 2's, when the shared
/// vocabularies are there; its bytes per id are the tokenizer.json's too.
#[test]
fn spm_gguf_tokenizes_as_its_tokenizer_json() {
    let Some(path) = testkit::vocabs::shared_vocab_path("llama2/tokenizer.json") else {
        println!("skipped: the shared vocabularies are absent");
        return;
    };
    let reference = Vocabulary::from_file(&path).unwrap();
    let data = spm_gguf(&path);
    let vocab = from_bytes(&data).unwrap();
    assert_eq!(bytes(&vocab), bytes(&reference));
    same_tokens(&data, &reference, TEXTS);
    same_tokens(&data, &reference, LINES);
    same_tokens(&data, &reference, SPM_TEXTS);
}

/// Texts where SentencePiece merging order matters: long words, runs of one letter, spaces
/// before punctuation, markup, code.
const SPM_TEXTS: &[&str] = &[
    "internationalization antidisestablishmentarianism pneumonoultramicroscopic",
    "aaaaaaaaaaaaaaaa bbbbbbbb          zzzz",
    " \u{2014} ,,, ;;; ... !!! ??? \u{201c}quoted\u{201d} \u{ab}guillemets\u{bb}",
    "<s> </s> <unk> [INST] <<SYS>> <0x0A> </s>",
    "fn main() { println!(\"{}\", x.iter().map(|y| y * 2).sum::<i64>()); }",
];

/// A GGUF file named `gpt-2` tokenizes as GPT-2's encoder.json and vocab.bpe do.
#[test]
fn gpt2_gguf_tokenizes_as_its_encoder() {
    let encoder: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(testdata("gpt2/encoder.json")).unwrap())
            .unwrap();
    let encoder = encoder.as_object().unwrap();
    let mut tokens = vec![""; encoder.len()];
    for (text, id) in encoder {
        tokens[id.as_u64().unwrap() as usize] = leak(text);
    }
    let bpe = std::fs::read_to_string(testdata("gpt2/vocab.bpe")).unwrap();
    let merges: Vec<&'static str> = bpe
        .lines()
        .filter(|l| !l.starts_with("#version") && !l.trim().is_empty())
        .map(leak)
        .collect();
    let last = tokens.len() - 1; // <|endoftext|>
    let reference = Vocabulary::from_file(testdata("gpt2/encoder.json")).unwrap();
    let gguf = bpe_gguf(
        &tokens,
        |id| if id == last { 3 } else { 1 },
        &merges,
        Some("gpt-2"),
    );
    same_tokens(&gguf, &reference, TEXTS);
    same_tokens(&gguf, &reference, LINES);
}

/// A real GGUF file's tokenization against llama.cpp's own, when present: `FSTC_GGUF_FILE`
/// names the model and `FSTC_GGUF_TOKENS` the output of `testdata/gguf_tokens.py` on it
/// (llama.cpp's `llama_tokenize` of texts, without special tokens).
#[test]
fn real_gguf_file_tokenizes_as_llama_cpp() {
    let (Some(file), Some(tokens)) = (
        std::env::var_os("FSTC_GGUF_FILE"),
        std::env::var_os("FSTC_GGUF_TOKENS"),
    ) else {
        println!("skipped: set FSTC_GGUF_FILE and FSTC_GGUF_TOKENS (testdata/gguf_tokens.py)");
        return;
    };
    let vocab = Vocabulary::from_file(&file).unwrap();
    let lines = std::fs::read_to_string(tokens).unwrap();
    let mut checked = 0;
    for line in lines.lines() {
        let (hex, ids) = line.split_once('\t').unwrap();
        let text: Vec<u8> = (0..hex.len() / 2)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        let text = String::from_utf8(text).unwrap();
        let expected: Vec<u32> = ids.split_whitespace().map(|t| t.parse().unwrap()).collect();
        assert_eq!(vocab.tokenize(&text).unwrap(), expected, "{text:?}");
        checked += 1;
    }
    println!("{checked} texts tokenized as llama.cpp does");
    assert!(checked > 0);
}

fn from_bytes(data: &[u8]) -> Result<Vocabulary, VocabError> {
    Vocabulary::from_gguf_reader(Cursor::new(data), data.len() as u64, "test.gguf")
}

fn expect_err(data: &[u8], kind: VocabErrorKind, needles: &[&str]) {
    let err = from_bytes(data).unwrap_err();
    assert_eq!(err.kind(), kind, "{err}");
    let msg = err.to_string();
    assert!(msg.starts_with("test.gguf: "), "names the file: {msg}");
    for needle in needles {
        assert!(msg.contains(needle), "{msg:?} should mention {needle:?}");
    }
}

fn with_tokens(kvs_after: Vec<(&str, V)>) -> Vec<u8> {
    let mut kvs = vec![
        ("tokenizer.ggml.model", V::Str("llama")),
        ("tokenizer.ggml.tokens", strs(&["a", "b"])),
    ];
    kvs.extend(kvs_after);
    gguf(3, kvs)
}

#[test]
fn every_truncation_is_an_error() {
    for (rel, make) in FIXTURES {
        let full = make();
        // The metadata ends before the tensor info; past it the file still loads.
        let meta_end = full.windows(6).rposition(|w| w == b"weight").unwrap() - 8;
        for cut in 0..meta_end {
            let err = from_bytes(&full[..cut]).unwrap_err();
            assert_eq!(
                err.kind(),
                VocabErrorKind::Malformed,
                "{rel} cut at {cut}: {err}"
            );
            assert!(err.to_string().contains("at byte"), "{err}");
        }
        assert!(
            from_bytes(&full[..meta_end]).is_ok(),
            "{rel}: tensor data is never read"
        );
    }
}

#[test]
fn absurd_lengths_and_counts_are_errors_naming_the_key() {
    let mut data = with_tokens(vec![]);
    // The token array count sits after its key, type (9) and element type (8).
    let key = b"tokenizer.ggml.tokens";
    let at = data.windows(key.len()).position(|w| w == key).unwrap() + key.len() + 8;
    data[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    expect_err(
        &data,
        VocabErrorKind::Malformed,
        &[
            "\"tokenizer.ggml.tokens\"",
            &format!("at byte {}", at + 8),
            "truncated",
        ],
    );
    // A string length past the end of the file.
    let mut data = with_tokens(vec![]);
    let at = data
        .windows(9)
        .position(|w| w == b"\x01\0\0\0\0\0\0\0a")
        .unwrap();
    data[at..at + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    expect_err(
        &data,
        VocabErrorKind::Malformed,
        &["element 0", "truncated"],
    );
    // A key-value count no file of this size can hold.
    let mut data = with_tokens(vec![]);
    data[16..24].copy_from_slice(&(u64::MAX / 2).to_le_bytes());
    expect_err(
        &data,
        VocabErrorKind::Malformed,
        &["key-value count", "at byte 24"],
    );
}

#[test]
fn wrong_types_and_values_are_named() {
    let data = gguf(3, vec![("tokenizer.ggml.model", V::U32(1))]);
    expect_err(
        &data,
        VocabErrorKind::Malformed,
        &[
            "\"tokenizer.ggml.model\"",
            "expected a string, found uint32",
            "at byte 52",
        ],
    );
    let data = gguf(
        3,
        vec![
            ("tokenizer.ggml.model", V::Str("gpt2")),
            ("tokenizer.ggml.tokens", i32s(&[1])),
        ],
    );
    expect_err(
        &data,
        VocabErrorKind::Malformed,
        &["array of strings, found one of int32"],
    );
    let data = with_tokens(vec![("tokenizer.ggml.token_type", strs(&["a", "b"]))]);
    expect_err(&data, VocabErrorKind::Malformed, &["array of integers"]);
    let data = with_tokens(vec![("tokenizer.ggml.token_type", i32s(&[1]))]);
    expect_err(&data, VocabErrorKind::Malformed, &["1 types for 2 tokens"]);
    let data = with_tokens(vec![("tokenizer.ggml.scores", strs(&["a", "b"]))]);
    expect_err(&data, VocabErrorKind::Malformed, &["array of float32"]);
    let data = with_tokens(vec![("tokenizer.ggml.scores", i32s(&[1, 2]))]);
    expect_err(
        &data,
        VocabErrorKind::Malformed,
        &["\"tokenizer.ggml.scores\"", "found one of int32"],
    );
    let data = with_tokens(vec![(
        "tokenizer.ggml.scores",
        V::Arr(6, vec![V::F32(0.0)]),
    )]);
    expect_err(&data, VocabErrorKind::Malformed, &["1 scores for 2 tokens"]);
    let data = with_tokens(vec![("tokenizer.ggml.token_type", i32s(&[1, 9]))]);
    expect_err(
        &data,
        VocabErrorKind::Malformed,
        &["token 1 \"b\" has type 9"],
    );
    let data = with_tokens(vec![("tokenizer.ggml.token_type", i32s(&[1, 6]))]);
    expect_err(
        &data,
        VocabErrorKind::Malformed,
        &["type 6 (byte)", "<0xHH>"],
    );
    let data = with_tokens(vec![("tokenizer.ggml.eos_token_id", V::U32(2))]);
    expect_err(
        &data,
        VocabErrorKind::Eos,
        &["eos_token_id", "id 2 is not a token"],
    );
    let data = with_tokens(vec![("tokenizer.ggml.eot_token_id", V::Str("x"))]);
    expect_err(
        &data,
        VocabErrorKind::Malformed,
        &["expected an integer, found string"],
    );
    let data = with_tokens(vec![("tokenizer.ggml.model", V::Str("again"))]);
    expect_err(
        &data,
        VocabErrorKind::Malformed,
        &["\"tokenizer.ggml.model\" appears twice"],
    );
    let data = gguf(3, vec![("tokenizer.ggml.model", V::Str("bert"))]);
    expect_err(
        &data,
        VocabErrorKind::Unsupported,
        &["\"bert\"", "gpt2", "llama"],
    );
    let data = gguf(3, vec![("general.name", V::Str("no tokenizer"))]);
    expect_err(
        &data,
        VocabErrorKind::Malformed,
        &["no \"tokenizer.ggml.model\" key"],
    );
    let data = gguf(3, vec![("tokenizer.ggml.model", V::Str("llama"))]);
    expect_err(
        &data,
        VocabErrorKind::Malformed,
        &["no \"tokenizer.ggml.tokens\""],
    );
}

#[test]
fn bad_headers_utf8_and_value_types_are_errors() {
    let good = with_tokens(vec![]);
    let mut v1 = good.clone();
    v1[4] = 1;
    expect_err(&v1, VocabErrorKind::Unsupported, &["GGUF version 1"]);
    let mut big_endian = good.clone();
    big_endian[4..8].copy_from_slice(&3u32.to_be_bytes());
    expect_err(&big_endian, VocabErrorKind::Unsupported, &["big-endian"]);
    let mut magic = good.clone();
    magic[0] = b'X';
    expect_err(
        &magic,
        VocabErrorKind::Malformed,
        &["does not start with \"GGUF\""],
    );
    // Token "b" becomes the invalid UTF-8 byte 0xFF.
    let mut bad_utf8 = good.clone();
    let at = bad_utf8
        .windows(9)
        .rposition(|w| w == b"\x01\0\0\0\0\0\0\0b")
        .unwrap();
    bad_utf8[at + 8] = 0xFF;
    expect_err(
        &bad_utf8,
        VocabErrorKind::Malformed,
        &["element 1", "invalid UTF-8"],
    );
    let mut bad_type = good.clone();
    // The type of the first value (after the 24-byte header and the 20-byte first key).
    bad_type[24 + 8 + 20] = 13;
    expect_err(
        &bad_type,
        VocabErrorKind::Malformed,
        &["unknown value type 13", "at byte 52"],
    );
    let deep = V::Arr(
        9,
        vec![V::Arr(
            9,
            vec![V::Arr(9, vec![V::Arr(9, vec![V::Arr(4, vec![V::U32(1)])])])],
        )],
    );
    let data = with_tokens(vec![("test.deep", deep)]);
    expect_err(
        &data,
        VocabErrorKind::Malformed,
        &["\"test.deep\"", "nested too deep"],
    );
}

#[test]
fn from_file_tells_gguf_by_its_magic() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("detok-gguf");
    std::fs::create_dir_all(&dir).unwrap();
    // Any name: the content decides.
    let path = dir.join("model.bin");
    std::fs::write(&path, gpt2_fixture()).unwrap();
    assert_eq!(
        Vocabulary::from_file(&path).unwrap().family(),
        Family::ByteLevelBpe
    );
    std::fs::write(&path, &gpt2_fixture()[..40]).unwrap();
    let err = Vocabulary::from_file(&path).unwrap_err();
    assert!(err.to_string().contains("model.bin: GGUF"), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Mutated and truncated fixtures load or fail cleanly; what loads is a consistent
    /// vocabulary.
    #[test]
    fn mutated_files_never_panic(
        which in 0usize..2,
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut data = FIXTURES[which].1();
        for (at, byte) in edits {
            let i = at.index(data.len());
            data[i] = byte;
        }
        if truncate {
            data.truncate(cut.index(data.len()));
        }
        if let Ok(vocab) = from_bytes(&data) {
            prop_assert!(vocab.len() <= data.len());
            for &id in vocab.eos_ids() {
                prop_assert!(vocab.token_bytes(id).is_none());
            }
        }
    }
}

/// Real GGUF files against the tokenizer's own files, when present: `FSTC_GGUF_DIR` names a
/// folder with llama.cpp's vocabulary-only GGUF files (`ggml-vocab-llama-bpe.gguf`,
/// `ggml-vocab-gpt-2.gguf`, from llama.cpp's `models/` folder, e.g. inside the
/// llama-cpp-python source package), compared id by id with the `tokenizers` crate decoding
/// Llama 3's and GPT-2's files in the shared vocabularies. (llama.cpp's `llama-spm` file is
/// not the shared Llama 2 tokenizer: their ids differ from 260 on.)
#[test]
fn real_gguf_files_match_the_tokenizers_decoding() {
    let Some(dir) = std::env::var_os("FSTC_GGUF_DIR") else {
        println!("skipped: set FSTC_GGUF_DIR to a folder of llama.cpp's ggml-vocab-*.gguf");
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    let pairs = [
        ("ggml-vocab-llama-bpe.gguf", "llama3/tokenizer.json"),
        ("ggml-vocab-gpt-2.gguf", "gpt2/encoder.json"),
    ];
    let mut checked = 0;
    for (file, rel) in pairs {
        let gguf = dir.join(file);
        let Some(reference) = testkit::vocabs::shared_vocab_path(rel) else {
            continue;
        };
        if !gguf.exists() {
            println!("skipped: {} is absent", gguf.display());
            continue;
        }
        let vocab = Vocabulary::from_file(&gguf).unwrap();
        let stats = if rel.ends_with("encoder.json") {
            crate::common::check_gpt2_against_decoder(&vocab, &reference)
        } else {
            crate::common::check_against_tokenizers(&vocab, &reference)
        };
        println!(
            "{file}: {} ids, {stats:?}, eos {:?}",
            vocab.len(),
            vocab.eos_ids()
        );
        checked += 1;
    }
    assert!(
        checked > 0,
        "FSTC_GGUF_DIR is set but no pair could be checked"
    );
}

/// A real GGUF file against llama.cpp's own pieces, when present: `FSTC_GGUF_FILE` names the
/// model and `FSTC_GGUF_PIECES` the output of `testdata/gguf_pieces.py` on it (llama.cpp's
/// `llama_token_to_piece` for every id, and whether it ends generation).
#[test]
fn real_gguf_file_matches_llama_cpp_pieces() {
    let (Some(file), Some(pieces)) = (
        std::env::var_os("FSTC_GGUF_FILE"),
        std::env::var_os("FSTC_GGUF_PIECES"),
    ) else {
        println!("skipped: set FSTC_GGUF_FILE and FSTC_GGUF_PIECES (testdata/gguf_pieces.py)");
        return;
    };
    let vocab = Vocabulary::from_file(&file).unwrap();
    let pieces = std::fs::read_to_string(pieces).unwrap();
    let lines: Vec<&str> = pieces.lines().collect();
    assert_eq!(lines.len(), vocab.len(), "one line per id");
    let (mut text, mut eog) = (0, Vec::new());
    for (id, line) in lines.iter().enumerate() {
        let mut fields = line.split(' ');
        let hex = fields.next().unwrap();
        let piece: Vec<u8> = (0..hex.len() / 2)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        if fields.next() == Some("eog") {
            eog.push(id as u32);
        }
        let ours = vocab.token_bytes(id as u32).unwrap_or_default();
        assert_eq!(ours, &piece[..], "token {id}");
        text += !ours.is_empty() as usize;
    }
    println!(
        "{} ids, {text} with text, eos {:?}, llama.cpp eog {eog:?}",
        vocab.len(),
        vocab.eos_ids()
    );
    assert_eq!(vocab.eos_ids(), &eog[..]);
}
