//! Bad files give errors that name the file and the fault, never a panic.

use std::path::PathBuf;

use fstc_core::TokenVocabulary;
use fstc_detok::{TiktokenOptions, VocabError, VocabErrorKind, Vocabulary};
use testkit::vocabs::testdata;

/// Writes `files` (name, content) into a fresh directory and returns it.
fn dir_with(test: &str, files: &[(&str, &[u8])]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("detok-malformed")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, content) in files {
        std::fs::write(dir.join(name), content).unwrap();
    }
    dir
}

fn tokenizer_json_err(test: &str, json: &str) -> VocabError {
    let dir = dir_with(test, &[("tokenizer.json", json.as_bytes())]);
    let err = Vocabulary::from_tokenizer_json(dir.join("tokenizer.json")).unwrap_err();
    assert!(
        err.to_string().contains("tokenizer.json"),
        "names the file: {err}"
    );
    err
}

fn expect(err: &VocabError, kind: VocabErrorKind, needle: &str) {
    assert_eq!(err.kind(), kind, "{err}");
    assert!(
        err.to_string().contains(needle),
        "{err:?} should mention {needle:?}"
    );
}

const BPE_MODEL: &str = r#""model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": []}"#;

#[test]
fn truncated_json() {
    let full = std::fs::read(testdata("bytelevel/tokenizer.json")).unwrap();
    let dir = dir_with("truncated", &[("tokenizer.json", &full[..full.len() / 2])]);
    let err = Vocabulary::from_file(dir.join("tokenizer.json")).unwrap_err();
    expect(&err, VocabErrorKind::Malformed, "EOF");
}

#[test]
fn missing_and_mistyped_fields() {
    let err = tokenizer_json_err("no-model", r#"{"added_tokens": []}"#);
    expect(&err, VocabErrorKind::Malformed, "missing field `model`");
    let err = tokenizer_json_err(
        "no-vocab",
        r#"{"model": {"type": "BPE", "merges": []}, "decoder": {"type": "ByteLevel"}}"#,
    );
    expect(&err, VocabErrorKind::Malformed, "model has no \"vocab\"");
    let err = tokenizer_json_err(
        "string-id",
        r#"{"model": {"type": "BPE", "vocab": {"a": "zero"}}}"#,
    );
    expect(
        &err,
        VocabErrorKind::Malformed,
        "invalid type: string \"zero\"",
    );
    let err = tokenizer_json_err(
        "negative-id",
        r#"{"model": {"type": "BPE", "vocab": {"a": -1}}}"#,
    );
    expect(&err, VocabErrorKind::Malformed, "invalid value");
    let err = tokenizer_json_err(
        "added-id",
        &format!(r#"{{"added_tokens": [{{"id": "x", "content": "<s>"}}], {BPE_MODEL}}}"#),
    );
    expect(&err, VocabErrorKind::Malformed, "invalid type");
    // Whether an added token is text or special is never guessed.
    let err = tokenizer_json_err(
        "added-no-special",
        &format!(r#"{{"added_tokens": [{{"id": 0, "content": "<s>"}}], {BPE_MODEL}}}"#),
    );
    expect(&err, VocabErrorKind::Malformed, "missing field `special`");
    let err = tokenizer_json_err(
        "untyped-decoder",
        &format!(r#"{{"decoder": {{}}, {BPE_MODEL}}}"#),
    );
    expect(&err, VocabErrorKind::Malformed, "decoder has no \"type\"");
    let err = tokenizer_json_err("not-object", "[1, 2]");
    expect(
        &err,
        VocabErrorKind::Malformed,
        "not a valid tokenizer.json",
    );
}

#[test]
fn unsupported_kinds_are_named() {
    let err = tokenizer_json_err(
        "wordpiece",
        r#"{"model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 1}}, "decoder": {"type": "WordPiece"}}"#,
    );
    expect(&err, VocabErrorKind::Unsupported, "model type WordPiece");
    let err = tokenizer_json_err(
        "bpe-decoder",
        &format!(r#"{{"decoder": {{"type": "BPEDecoder"}}, {BPE_MODEL}}}"#),
    );
    expect(&err, VocabErrorKind::Unsupported, "decoder type BPEDecoder");
    let err = tokenizer_json_err(
        "no-byte-rule",
        &format!(r#"{{"decoder": null, {BPE_MODEL}}}"#),
    );
    expect(
        &err,
        VocabErrorKind::Unsupported,
        "cannot tell how token strings map to bytes",
    );
    let err = tokenizer_json_err(
        "suffix",
        r#"{"model": {"type": "BPE", "vocab": {"a</w>": 0}, "merges": [], "end_of_word_suffix": "</w>"}, "decoder": {"type": "ByteLevel"}}"#,
    );
    expect(&err, VocabErrorKind::Unsupported, "end_of_word_suffix");
}

#[test]
fn ids_are_checked() {
    let dup = r#"{"model": {"type": "BPE", "vocab": {"a": 0, "b": 0}, "merges": []}, "pre_tokenizer": {"type": "ByteLevel"}}"#;
    let err = tokenizer_json_err("dup-id", dup);
    expect(
        &err,
        VocabErrorKind::Malformed,
        "id 0 is given to two tokens",
    );
    // A huge id would otherwise allocate gigabytes.
    let dir = dir_with(
        "huge-id",
        &[("encoder.json", br#"{"a": 0, "b": 4000000000}"#)],
    );
    let err = Vocabulary::from_file(dir.join("encoder.json")).unwrap_err();
    expect(
        &err,
        VocabErrorKind::Malformed,
        "above the supported maximum",
    );
    let dir = dir_with("encoder-type", &[("encoder.json", br#"{"a": [0]}"#)]);
    let err = Vocabulary::from_file(dir.join("encoder.json")).unwrap_err();
    expect(&err, VocabErrorKind::Malformed, "encoder.json");
}

#[test]
fn tiktoken_lines_are_checked() {
    let cases: &[(&str, &[u8], &str)] = &[
        (
            "bad-base64",
            b"IQ== 0\n!!notbase64 1\n",
            "small.tiktoken:2: bad base64",
        ),
        ("bad-rank", b"IQ== zero\n", "small.tiktoken:1: bad rank"),
        (
            "one-field",
            b"IQ==\n",
            "small.tiktoken:1: expected `base64 rank`",
        ),
        ("dup-bytes", b"IQ== 0\nIQ== 1\n", "already has rank 0"),
        (
            "dup-rank",
            b"IQ== 0\nIg== 0\n",
            "id 0 is given to two tokens",
        ),
        ("empty", b"\n\n", "no tokens"),
        (
            "huge-rank",
            b"IQ== 99999999\n",
            "above the supported maximum",
        ),
        ("binary", b"\xff\xfe\x00", "not UTF-8"),
    ];
    for (name, content, needle) in cases {
        let dir = dir_with(name, &[("small.tiktoken", content)]);
        let err = Vocabulary::from_file(dir.join("small.tiktoken")).unwrap_err();
        expect(&err, VocabErrorKind::Malformed, needle);
    }
    let dir = dir_with("special-clash", &[("small.tiktoken", b"IQ== 0\nIg== 1\n")]);
    let options = TiktokenOptions {
        special_tokens: vec![("<|endoftext|>".into(), 1)],
        pattern: None,
    };
    let err = Vocabulary::from_tiktoken(dir.join("small.tiktoken"), &options).unwrap_err();
    expect(
        &err,
        VocabErrorKind::Malformed,
        "special token \"<|endoftext|>\" has id 1",
    );
    let options = TiktokenOptions {
        special_tokens: vec![],
        pattern: Some("(unclosed".into()),
    };
    let err = Vocabulary::from_tiktoken(dir.join("small.tiktoken"), &options).unwrap_err();
    expect(&err, VocabErrorKind::Unsupported, "bad split pattern");
}

#[test]
fn config_problems() {
    let tok = std::fs::read(testdata("bytelevel/tokenizer.json")).unwrap();
    let dir = dir_with(
        "config-bad-json",
        &[
            ("tokenizer.json", &tok),
            ("tokenizer_config.json", b"{\"eos_token\": "),
        ],
    );
    let err = Vocabulary::from_file(dir.join("tokenizer.json")).unwrap_err();
    expect(
        &err,
        VocabErrorKind::Malformed,
        "tokenizer_config.json: not valid JSON",
    );
    let dir = dir_with(
        "config-unknown-eos",
        &[
            ("tokenizer.json", &tok),
            ("tokenizer_config.json", b"{\"eos_token\": \"<nope>\"}"),
        ],
    );
    let err = Vocabulary::from_file(dir.join("tokenizer.json")).unwrap_err();
    expect(
        &err,
        VocabErrorKind::Eos,
        "eos_token \"<nope>\" is not a token",
    );
    let dir = dir_with(
        "config-eos-type",
        &[
            ("tokenizer.json", &tok),
            ("tokenizer_config.json", b"{\"eos_token\": 7}"),
        ],
    );
    let err = Vocabulary::from_file(dir.join("tokenizer.json")).unwrap_err();
    expect(
        &err,
        VocabErrorKind::Malformed,
        "eos_token must be a string",
    );

    // No config: EOS from the well-known names among the specials.
    let dir = dir_with("no-config", &[("tokenizer.json", &tok)]);
    let vocab = Vocabulary::from_file(dir.join("tokenizer.json")).unwrap();
    assert_eq!(vocab.eos_ids(), &[2001, 2002]);
    // A config whose eos_token is null: the same.
    let dir = dir_with(
        "null-eos",
        &[
            ("tokenizer.json", &tok),
            ("tokenizer_config.json", b"{\"eos_token\": null}"),
        ],
    );
    assert_eq!(
        Vocabulary::from_file(dir.join("tokenizer.json"))
            .unwrap()
            .eos_ids(),
        &[2001, 2002]
    );
    // A config naming a text token makes it special.
    let dir = dir_with(
        "text-eos",
        &[
            ("tokenizer.json", &tok),
            ("tokenizer_config.json", b"{\"eos_token\": \"!\"}"),
        ],
    );
    let vocab = Vocabulary::from_file(dir.join("tokenizer.json")).unwrap();
    assert_eq!(vocab.eos_ids(), &[0]);
    assert_eq!(vocab.token_bytes(0), None);
    assert_eq!(vocab.special_name(0), Some("!"));
}

#[test]
fn missing_files() {
    let err = Vocabulary::from_file("/nonexistent/tokenizer.json").unwrap_err();
    expect(
        &err,
        VocabErrorKind::Io,
        "cannot read /nonexistent/tokenizer.json",
    );
    // encoder.json loads without vocab.bpe; tokenizing then says what is missing.
    let enc = std::fs::read(testdata("gpt2/encoder.json")).unwrap();
    let dir = dir_with("no-merges", &[("encoder.json", &enc)]);
    let vocab = Vocabulary::from_file(dir.join("encoder.json")).unwrap();
    let err = vocab.tokenize("hi").unwrap_err();
    expect(&err, VocabErrorKind::Tokenize, "needs vocab.bpe");
    // The failure is remembered, not retried into a panic.
    expect(
        &vocab.tokenize("hi").unwrap_err(),
        VocabErrorKind::Tokenize,
        "vocab.bpe",
    );
}

#[test]
fn unknown_characters_without_byte_fallback_are_a_tokenize_error() {
    // A SentencePiece-style Unigram without byte fallback cannot spell "z".
    let json = r#"{
      "added_tokens": [{"id": 0, "content": "<unk>", "single_word": false, "lstrip": false,
                        "rstrip": false, "normalized": false, "special": true}],
      "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
      "pre_tokenizer": null,
      "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never", "split": false},
      "model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["a", -1.0], ["▁", -2.0], ["▁a", -1.5]]}
    }"#;
    let dir = dir_with("unigram", &[("tokenizer.json", json.as_bytes())]);
    let vocab = Vocabulary::from_file(dir.join("tokenizer.json")).unwrap();
    assert_eq!(vocab.family(), fstc_detok::Family::SentencePiece);
    assert_eq!(vocab.token_bytes(3), Some(&b" a"[..]));
    assert_eq!(vocab.tokenize("a a").unwrap(), [1, 3]);
    let err = vocab.tokenize("a z").unwrap_err();
    expect(&err, VocabErrorKind::Tokenize, "special token \"<unk>\"");
}

/// One random `added_tokens` entry: an id in, near or far past the model's range (repeats
/// likely), a content of newlines, spaces, `▁`, tags, byte-level table characters or
/// nothing, a random `special` flag, sometimes missing.
fn random_added(rng: &mut fstc_core::sample::SplitMix64) -> serde_json::Value {
    const PARTS: &[&str] = &[
        "\n", " ", "\u{2581}", "<table>", "Ġ", "é", "<0x41>", "a", "",
    ];
    let id = match rng.below(4) {
        0 => rng.below(8),
        1 => 256 + rng.below(8),
        2 => 300 + rng.below(4),
        _ => u64::from(fstc_detok::MAX_TOKEN_ID) + rng.below(3),
    };
    let content: String = (0..rng.below(4))
        .map(|_| PARTS[rng.index(PARTS.len())])
        .collect();
    let mut entry = serde_json::json!({
        "id": id, "content": content, "single_word": false, "lstrip": false,
        "rstrip": false, "normalized": false, "special": rng.below(2) == 0,
    });
    if rng.below(10) == 0 {
        entry.as_object_mut().unwrap().remove("special");
    }
    entry
}

#[test]
fn random_added_tokens_load_as_the_tokenizer_decodes_them_or_fail_cleanly() {
    // A byte-level model of the 256 single bytes; each case adds random added tokens.
    let vocab: serde_json::Map<String, serde_json::Value> = (0..=255u8)
        .map(|b| (fstc_detok::byte_level::encode_bytes(&[b]), b.into()))
        .collect();
    let mut rng = fstc_core::sample::SplitMix64::new(14);
    let (mut loaded, mut refused) = (0, 0);
    for case in 0..150 {
        let added: Vec<serde_json::Value> =
            (0..rng.below(6)).map(|_| random_added(&mut rng)).collect();
        let json = serde_json::json!({
            "added_tokens": added, "normalizer": null,
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true},
            "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
            "model": {"type": "BPE", "vocab": vocab, "merges": []},
        });
        let text = serde_json::to_vec(&json).unwrap();
        let dir = dir_with(
            &format!("random-added-{case}"),
            &[("tokenizer.json", &text)],
        );
        let path = dir.join("tokenizer.json");
        let ours = match Vocabulary::from_file(&path) {
            Ok(v) => v,
            Err(err) => {
                // Named faults only: a missing flag, a repeated id, an id too large.
                let msg = err.to_string();
                assert!(
                    msg.contains("missing field `special`")
                        || msg.contains("is given to two")
                        || msg.contains("above the supported maximum"),
                    "case {case}: {msg}"
                );
                refused += 1;
                continue;
            }
        };
        loaded += 1;
        // Where the tokenizers crate keeps the file's ids, every id must agree with it.
        let Ok(tok) = tokenizers::Tokenizer::from_file(&path) else {
            continue;
        };
        let theirs = tok.get_added_tokens_decoder();
        if theirs
            .iter()
            .any(|(id, t)| ours.token_id(&t.content) != Some(*id))
        {
            continue; // renumbered or shadowed by the crate: no common ids to compare
        }
        for (id, t) in theirs {
            let decoded = tok.decode(&[id], false).unwrap();
            match (t.special, ours.token_bytes(id)) {
                (true, bytes) => assert_eq!(bytes, None, "case {case}: {id}"),
                (false, None) => assert_eq!(decoded, "", "case {case}: {id}"),
                (false, Some(b)) => {
                    assert_eq!(String::from_utf8_lossy(b), decoded, "case {case}: {id}")
                }
            }
        }
    }
    assert!(
        loaded > 20 && refused > 20,
        "{loaded} loaded, {refused} refused"
    );
}
