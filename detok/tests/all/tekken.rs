//! Mistral's tekken.json: the committed fixture against `mistral-common`'s own reading of it
//! (testdata/tekken/expected.json, from testdata/make_tekken_fixture.py), the legacy special
//! tokens, malformed and mutated files (errors, never panics), and a real file against a dump
//! of testdata/tekken_dump.py when `FSTC_TEKKEN_FILE` and `FSTC_TEKKEN_DUMP` are set.

use std::path::PathBuf;
use std::time::Instant;

use fstc_core::TokenVocabulary;
use fstc_detok::{Family, VocabErrorKind, Vocabulary};
use proptest::prelude::*;
use serde_json::{json, Value};
use testkit::vocabs::testdata;

/// `mistral-common`'s reading of a tekken.json, as tekken_dump.py writes it.
#[derive(serde::Deserialize)]
struct Dump {
    num_special: usize,
    special: Vec<String>,
    eos: u32,
    pieces: Vec<String>,
    texts: Vec<(String, Vec<u32>)>,
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// Compares every id's bytes, the specials, EOS and the tokenizations with the dump; returns
/// (ids compared, texts compared) and fails listing the first mismatches.
fn compare_with_dump(vocab: &Vocabulary, dump: &Dump) -> (usize, usize) {
    assert_eq!(vocab.len(), dump.pieces.len(), "one piece per id");
    let mut mismatches = Vec::new();
    for (id, piece) in dump.pieces.iter().enumerate() {
        let id = id as u32;
        let ours = vocab.token_bytes(id).unwrap_or_default();
        if ours != hex(piece).as_slice() {
            mismatches.push(format!(
                "id {id}: ours {:?}, theirs {piece}",
                ours.escape_ascii().to_string()
            ));
        }
    }
    let specials: Vec<(u32, &str)> = vocab.special_tokens().collect();
    let theirs: Vec<(u32, &str)> = (dump.special.iter().enumerate())
        .map(|(id, name)| (id as u32, name.as_str()))
        .collect();
    assert_eq!(specials.len(), dump.num_special);
    assert_eq!(specials, theirs, "special tokens by id");
    assert_eq!(vocab.eos_ids(), &[dump.eos]);
    for (text, ids) in &dump.texts {
        match vocab.tokenize(text) {
            Ok(ours) if &ours == ids => {}
            other => mismatches.push(format!(
                "tokenize({text:?}): ours {other:?}, theirs {ids:?}"
            )),
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches, first: {:#?}",
        mismatches.len(),
        &mismatches[..mismatches.len().min(10)]
    );
    (dump.pieces.len(), dump.texts.len())
}

fn fixture() -> Vocabulary {
    Vocabulary::from_file(testdata("tekken/tekken.json")).unwrap()
}

fn fixture_json() -> Value {
    serde_json::from_slice(&std::fs::read(testdata("tekken/tekken.json")).unwrap()).unwrap()
}

#[test]
fn fixture_matches_mistral_common_for_every_id_and_text() {
    let vocab = fixture();
    assert_eq!(vocab.family(), Family::Tekken);
    let dump: Dump =
        serde_json::from_slice(&std::fs::read(testdata("tekken/expected.json")).unwrap()).unwrap();
    assert_eq!(compare_with_dump(&vocab, &dump), (624, 20));
}

#[test]
fn fixture_ids_specials_and_eos() {
    let vocab = fixture();
    // 24 specials, then the first 600 of the 700 entries (default_vocab_size cuts the rest).
    assert_eq!(vocab.len(), 624);
    for b in 0..=255u8 {
        assert_eq!(vocab.token_bytes(24 + b as u32), Some(&[b][..]), "byte {b}");
    }
    let file = fixture_json();
    let b64 = file["vocab"][599]["token_bytes"].as_str().unwrap();
    use base64::Engine as _;
    let last = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    assert_eq!(vocab.token_bytes(623), Some(&last[..]));
    // Control or not ("[IMG]" is marked not control), listed or filler: no text.
    for id in 0..24 {
        assert_eq!(vocab.token_bytes(id), None, "special {id}");
    }
    assert_eq!(vocab.token_id("[IMG]"), Some(10));
    assert_eq!(vocab.token_id("[CALL_ID]"), Some(21));
    assert_eq!(vocab.special_name(23), Some("<SPECIAL_23>"));
    assert_eq!(vocab.eos_ids(), &[2]);
    // Special names in text are text.
    let ids = vocab.tokenize("</s>[INST]<SPECIAL_23>").unwrap();
    assert!(ids.iter().all(|&id| id >= 24), "{ids:?}");
    crate::common::check_round_trips(&vocab, &[]);
}

/// What `fstc compile regex --vocab tekken.json` does: a regex compiled over the vocabulary
/// accepts the tokenizer's own tokens for matching texts, and never a special token.
#[test]
fn regex_compiled_over_the_fixture_walks_its_tokenizations() {
    let vocab = fixture();
    let automaton = fstc_regex::RegexCompiler::new()
        .compile("[0-9]{3}-[0-9]{4}( [a-z]+)*", &vocab)
        .unwrap()
        .automaton;
    for text in ["555-1234", "012-3456 call me now"] {
        let ids = vocab.tokenize(text).unwrap();
        let mut walker = fstc_core::walker::Walker::new(&automaton);
        walker.consume_tokens(&ids).unwrap();
        assert!(walker.is_accepting(), "{text:?} -> {ids:?}");
    }
    let mut walker = fstc_core::walker::Walker::new(&automaton);
    assert!(
        walker.consume_tokens(&[10]).is_err(),
        "special [IMG] is no text"
    );
}

fn write(test: &str, data: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("detok-tekken");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{test}.tekken.json"));
    std::fs::write(&path, data).unwrap();
    path
}

fn load_value(test: &str, value: &Value) -> fstc_detok::Result<Vocabulary> {
    let path = write(test, &serde_json::to_vec(value).unwrap());
    let direct = Vocabulary::from_tekken(&path);
    let detected = Vocabulary::from_file(&path);
    assert_eq!(
        direct
            .as_ref()
            .map(Vocabulary::len)
            .map_err(ToString::to_string),
        detected
            .as_ref()
            .map(Vocabulary::len)
            .map_err(ToString::to_string),
        "from_file reads it as a tekken.json"
    );
    direct
}

#[test]
fn files_without_special_tokens_get_mistral_commons_legacy_list() {
    let mut file = fixture_json();
    file.as_object_mut().unwrap().remove("special_tokens");
    file["config"]["version"] = json!("v3");
    let vocab = load_value("legacy", &file).unwrap();
    let names: Vec<&str> = vocab.special_tokens().map(|(_, n)| n).collect();
    assert_eq!(names[..3], ["<unk>", "<s>", "</s>"]);
    assert_eq!(names[19], "[TOOL_CONTENT]");
    assert_eq!(
        names[20..],
        [
            "<SPECIAL_20>",
            "<SPECIAL_21>",
            "<SPECIAL_22>",
            "<SPECIAL_23>"
        ]
    );
    assert_eq!(vocab.eos_ids(), &[2]);
    // Later formats must list them.
    file["config"]["version"] = json!("v11");
    let err = load_value("legacy-v11", &file).unwrap_err();
    assert!(err.to_string().contains("no special_tokens"), "{err}");
}

#[test]
fn escaped_token_bytes_are_read() {
    // A JSON writer may escape base64's "/" as "\/"; rank 588 is "INC/".
    let text = std::fs::read_to_string(testdata("tekken/tekken.json")).unwrap();
    assert_eq!(text.matches("\"INC/\"").count(), 1);
    let path = write("escaped", text.replace("\"INC/\"", "\"INC\\/\"").as_bytes());
    let vocab = Vocabulary::from_file(path).unwrap();
    assert_eq!(vocab.token_bytes(24 + 588), fixture().token_bytes(24 + 588));
    assert_eq!(vocab.token_bytes(24 + 588).map(<[u8]>::len), Some(3));
}

#[test]
fn malformed_files_are_errors_naming_the_fault() {
    type Edit = fn(&mut Value);
    let cases: &[(&str, Edit, &str)] = &[
        (
            "rank-order",
            |f| f["vocab"][300]["rank"] = json!(301),
            "vocab[300] has rank 301",
        ),
        (
            "base64",
            |f| f["vocab"][400]["token_bytes"] = json!("!!"),
            "vocab[400]: bad base64",
        ),
        (
            "not-bytes",
            |f| f["vocab"][65]["token_bytes"] = json!("Qg=="),
            "ranks 0..256 must be the single bytes",
        ),
        (
            "empty",
            |f| f["vocab"][500]["token_bytes"] = json!(""),
            "vocab[500] is empty",
        ),
        (
            "repeat",
            |f| f["vocab"][501]["token_bytes"] = f["vocab"][300]["token_bytes"].clone(),
            "vocab[501]",
        ),
        (
            "specials-over-size",
            |f| f["config"]["default_num_special_tokens"] = json!(700),
            "more than config.default_vocab_size",
        ),
        (
            "short-vocab",
            |f| f["config"]["default_vocab_size"] = json!(800),
            "vocab has 700 entries",
        ),
        (
            "huge-size",
            |f| f["config"]["default_vocab_size"] = json!(4_000_000_000u32),
            "above the supported maximum",
        ),
        (
            "huge-specials",
            |f| {
                f["config"]["default_vocab_size"] = json!(4_000_000_000u32);
                f["config"]["default_num_special_tokens"] = json!(3_999_999_500u32);
            },
            "above the supported maximum",
        ),
        (
            "special-rank",
            |f| f["special_tokens"][5]["rank"] = json!(6),
            "special_tokens[5]",
        ),
        (
            "special-twice",
            |f| f["special_tokens"][5]["token_str"] = json!("</s>"),
            "both named \"</s>\"",
        ),
        (
            "filler-name",
            |f| f["special_tokens"][5]["token_str"] = json!("<SPECIAL_23>"),
            "both named \"<SPECIAL_23>\"",
        ),
        (
            "too-many-specials",
            |f| f["config"]["default_num_special_tokens"] = json!(10),
            "more than config.default_num_special_tokens 10",
        ),
        (
            "no-control-flag",
            |f| {
                f["special_tokens"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("is_control");
            },
            "missing field `is_control`",
        ),
        (
            "no-pattern",
            |f| {
                f["config"].as_object_mut().unwrap().remove("pattern");
            },
            "missing field `pattern`",
        ),
        (
            "rank-type",
            |f| f["vocab"][3]["rank"] = json!("3"),
            "invalid type",
        ),
        (
            "negative-size",
            |f| f["config"]["default_vocab_size"] = json!(-1),
            "invalid value",
        ),
    ];
    for (name, edit, needle) in cases {
        let mut file = fixture_json();
        edit(&mut file);
        let err = load_value(name, &file).unwrap_err();
        assert_eq!(err.kind(), VocabErrorKind::Malformed, "{name}: {err}");
        let msg = err.to_string();
        assert!(
            msg.contains(needle),
            "{name}: {msg:?} should mention {needle:?}"
        );
        assert!(
            msg.contains(&format!("{name}.tekken.json")),
            "{name}: names the file: {msg}"
        );
    }
    // A pattern the regex engine refuses.
    let mut file = fixture_json();
    file["config"]["pattern"] = json!("(unclosed");
    let err = load_value("bad-pattern", &file).unwrap_err();
    assert_eq!(err.kind(), VocabErrorKind::Unsupported, "{err}");
    assert!(err.to_string().contains("bad config.pattern"), "{err}");
    // Cut short.
    let data = std::fs::read(testdata("tekken/tekken.json")).unwrap();
    let path = write("truncated", &data[..data.len() / 2]);
    let err = Vocabulary::from_tekken(&path).unwrap_err();
    assert!(err.to_string().contains("EOF"), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Mutated and truncated fixtures load or fail cleanly; what loads is consistent.
    #[test]
    fn mutated_files_never_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut data = std::fs::read(testdata("tekken/tekken.json")).unwrap();
        for (at, byte) in edits {
            let i = at.index(data.len());
            data[i] = byte;
        }
        if truncate {
            data.truncate(cut.index(data.len()));
        }
        let path = write(&format!("mutated-{:?}", std::thread::current().id()).replace(['(', ')'], ""), &data);
        if let Ok(vocab) = Vocabulary::from_file(&path) {
            prop_assert!(vocab.len() <= data.len());
            for &id in vocab.eos_ids() {
                prop_assert!(vocab.token_bytes(id).is_none());
            }
            if vocab.family() == Family::Tekken {
                // Tokenizing either works and spells the text, or is an error.
                if let Ok(ids) = vocab.tokenize("Hello, world 42!") {
                    prop_assert_eq!(vocab.detokenize(&ids), b"Hello, world 42!".to_vec());
                }
            }
        }
    }
}

/// A real tekken.json against `mistral-common`'s dump of it (testdata/tekken_dump.py):
/// `FSTC_TEKKEN_FILE=tekken.json FSTC_TEKKEN_DUMP=dump.json`.
#[test]
fn real_tekken_file_matches_mistral_common() {
    let (Some(file), Some(dump)) = (
        std::env::var_os("FSTC_TEKKEN_FILE"),
        std::env::var_os("FSTC_TEKKEN_DUMP"),
    ) else {
        println!("skipped: set FSTC_TEKKEN_FILE and FSTC_TEKKEN_DUMP (testdata/tekken_dump.py)");
        return;
    };
    let start = Instant::now();
    let vocab = Vocabulary::from_file(&file).unwrap();
    let loaded = start.elapsed();
    assert_eq!(vocab.family(), Family::Tekken);
    let dump: Dump = serde_json::from_slice(&std::fs::read(dump).unwrap()).unwrap();
    let (ids, texts) = compare_with_dump(&vocab, &dump);
    println!(
        "{}: loaded in {loaded:?}; {ids} ids and {texts} texts compared, 0 mismatches; {}",
        vocab.origin(),
        vocab.summary()
    );
}
