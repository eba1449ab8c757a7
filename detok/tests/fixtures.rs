//! The committed fixtures under testdata/: every id against the tokenizer's own decoding,
//! specials, EOS ids, and exact tokenization.

mod common;

use common::*;
use detok::{Family, TiktokenOptions, VocabErrorKind, Vocabulary};
use fst_core::TokenVocabulary;

fn tiktoken_options() -> TiktokenOptions {
    TiktokenOptions {
        special_tokens: vec![
            ("<|begin_of_text|>".into(), 2000),
            ("<|end_of_text|>".into(), 2001),
            ("<|eot_id|>".into(), 2002),
        ],
        pattern: None,
    }
}

#[test]
fn bytelevel_fixture_matches_tokenizers_for_every_id() {
    let path = testdata("bytelevel/tokenizer.json");
    let vocab = Vocabulary::from_file(&path).unwrap();
    assert_eq!(vocab.family(), Family::ByteLevelBpe);
    // 2000 Llama 3 tokens, then the renumbered specials 2000..=2002 and the non-special
    // added token at 2003.
    assert_eq!(vocab.len(), 2004);
    let stats = check_against_tokenizers(&vocab, &path);
    assert_eq!(stats.specials, 4);
    assert_eq!(stats.holes, 0);
    assert_eq!(stats.exact + stats.lossy, 2000);
    assert!(stats.lossy > 0, "split UTF-8 tokens are exercised");
    let specials: Vec<(u32, &str)> = vocab.special_tokens().collect();
    assert_eq!(
        specials,
        [
            (2000, "<|begin_of_text|>"),
            (2001, "<|end_of_text|>"),
            (2002, "<|eot_id|>"),
            (2003, "<|reserved_special_token_0|>"),
        ]
    );
    // tokenizer_config.json gives eos_token as {"content": "<|eot_id|>"}.
    assert_eq!(vocab.eos_ids(), &[2002]);
    assert_eq!(vocab.token_id("<|begin_of_text|>"), Some(2000));
    assert_eq!(vocab.token_id("Hello"), None);
    // Byte-level ids 0..256 are the single bytes; 'Ġ' is the space.
    assert_eq!(vocab.token_bytes(0), Some(&b"!"[..]));
    assert_eq!(vocab.token_bytes(220), Some(&b" "[..]));
}

#[test]
fn sentencepiece_fixture_matches_tokenizers_for_every_id() {
    let path = testdata("sentencepiece/tokenizer.json");
    let vocab = Vocabulary::from_file(&path).unwrap();
    assert_eq!(vocab.family(), Family::SentencePiece);
    let stats = check_against_tokenizers(&vocab, &path);
    assert_eq!(stats.specials, 3);
    assert!(
        stats.holes > 20_000,
        "the fixture keeps Llama 2's ids, with holes"
    );
    assert!(
        stats.lossy >= 128,
        "byte pieces 0x80..0xFF are single non-UTF-8 bytes"
    );
    assert_eq!(
        vocab.special_tokens().collect::<Vec<_>>(),
        [(0, "<unk>"), (1, "<s>"), (2, "</s>")]
    );
    assert_eq!(vocab.eos_ids(), &[2]);
    // <0x0A> is the newline byte, <0xE4> a lone lead byte; ▁ is a space.
    assert_eq!(vocab.token_bytes(3 + 0x0A), Some(&b"\n"[..]));
    assert_eq!(vocab.token_bytes(3 + 0xE4), Some(&[0xE4u8][..]));
    // This Llama 2 file has ▁ at 28705 and ▁▁ at 259.
    assert_eq!(vocab.token_bytes(28705), Some(&b" "[..]));
    assert_eq!(vocab.token_bytes(259), Some(&b"  "[..]));
}

#[test]
fn gpt2_fixture_matches_the_byte_level_decoder() {
    let path = testdata("gpt2/encoder.json");
    let vocab = Vocabulary::from_file(&path).unwrap();
    assert_eq!(vocab.family(), Family::ByteLevelBpe);
    assert_eq!(vocab.len(), 50257);
    let stats = check_gpt2_against_decoder(&vocab, &path);
    assert_eq!(stats.specials, 1);
    assert_eq!(vocab.eos_ids(), &[50256]);
    assert_eq!(
        vocab.special_tokens().collect::<Vec<_>>(),
        [(50256, "<|endoftext|>")]
    );
    assert_eq!(vocab.token_id("<|endoftext|>"), Some(50256));
}

#[test]
fn tiktoken_fixture_has_the_bytelevel_fixtures_bytes() {
    let tik = Vocabulary::from_tiktoken(testdata("tiktoken/small.tiktoken"), &tiktoken_options())
        .unwrap();
    let bl = Vocabulary::from_file(testdata("bytelevel/tokenizer.json")).unwrap();
    assert_eq!(tik.family(), Family::Tiktoken);
    assert_eq!(tik.len(), 2003);
    for id in 0..2003 {
        assert_eq!(tik.token_bytes(id), bl.token_bytes(id), "id {id}");
    }
    // EOS: the well-known names among the specials.
    assert_eq!(tik.eos_ids(), &[2001, 2002]);

    // Without options the file alone: ranks 0..2000, no specials, no EOS.
    let bare = Vocabulary::from_file(testdata("tiktoken/small.tiktoken")).unwrap();
    assert_eq!(bare.len(), 2000);
    assert_eq!(bare.eos_ids(), &[] as &[u32]);
    assert_eq!(bare.special_tokens().count(), 0);
}

#[test]
fn tokenize_round_trips_on_every_fixture() {
    for rel in [
        "bytelevel/tokenizer.json",
        "sentencepiece/tokenizer.json",
        "gpt2/encoder.json",
    ] {
        let vocab = Vocabulary::from_file(testdata(rel)).unwrap();
        check_round_trips(&vocab, &[]);
    }
    let tik = Vocabulary::from_tiktoken(testdata("tiktoken/small.tiktoken"), &tiktoken_options())
        .unwrap();
    check_round_trips(&tik, &[]);
}

#[test]
fn bytelevel_tokenize_is_the_tokenizers_encoding() {
    let path = testdata("bytelevel/tokenizer.json");
    let vocab = Vocabulary::from_file(&path).unwrap();
    let tok = tokenizers::Tokenizer::from_file(&path).unwrap();
    for text in TEXTS {
        if text.contains("<|") {
            continue; // the original matches added tokens in text; we never do
        }
        let theirs = tok.encode(*text, false).unwrap().get_ids().to_vec();
        assert_eq!(vocab.tokenize(text).unwrap(), theirs, "{text:?}");
    }
    // Marker-like text is text: no special id comes out.
    let ids = vocab.tokenize("<|eot_id|>").unwrap();
    assert!(ids.iter().all(|&id| id < 2000), "{ids:?}");
}

#[test]
fn sentencepiece_tokenize_is_the_tokenizers_encoding_without_the_prepended_space() {
    let path = testdata("sentencepiece/tokenizer.json");
    let vocab = Vocabulary::from_file(&path).unwrap();
    let tok = tokenizers::Tokenizer::from_file(&path).unwrap();
    for text in TEXTS {
        if text.is_empty() || text.contains("<s>") || text.contains("</s>") {
            continue;
        }
        // The original turns `text` into "▁" + text with spaces as ▁; so do we for " " + text.
        let theirs = tok.encode(*text, false).unwrap().get_ids().to_vec();
        assert_eq!(
            vocab.tokenize(&format!(" {text}")).unwrap(),
            theirs,
            "{text:?}"
        );
    }
    let ids = vocab.tokenize("Hello").unwrap();
    assert_eq!(spell(&vocab, &ids), b"Hello");
    assert_ne!(
        vocab.token_bytes(ids[0]).unwrap()[0],
        b' ',
        "no prepended space"
    );
}

#[test]
fn sentencepiece_cannot_spell_its_space_marker() {
    let vocab = Vocabulary::from_file(testdata("sentencepiece/tokenizer.json")).unwrap();
    let err = vocab.tokenize("a\u{2581}b").unwrap_err();
    assert_eq!(err.kind(), VocabErrorKind::Tokenize);
    assert!(
        err.to_string().contains("cannot spell this text exactly"),
        "{err}"
    );
}

#[test]
fn tiktoken_tokenize_agrees_with_the_bytelevel_fixture() {
    // Same tokens, same ids, same split pattern: tiktoken's rank merging must find the
    // tokenization that the Llama 3 BPE (merges derived from the same ranks) finds.
    let tik = Vocabulary::from_tiktoken(testdata("tiktoken/small.tiktoken"), &tiktoken_options())
        .unwrap();
    let bl = Vocabulary::from_file(testdata("bytelevel/tokenizer.json")).unwrap();
    for text in TEXTS {
        assert_eq!(
            tik.tokenize(text).unwrap(),
            bl.tokenize(text).unwrap(),
            "{text:?}"
        );
    }
}

#[test]
fn gpt2_tokenizes_like_gpt2() {
    let vocab = Vocabulary::from_file(testdata("gpt2/encoder.json")).unwrap();
    assert_eq!(vocab.tokenize("Hello world").unwrap(), [15496, 995]);
    // <|endoftext|> in text is text, not the special token.
    let ids = vocab.tokenize("<|endoftext|>").unwrap();
    assert!(!ids.contains(&50256));
}

#[test]
fn eos_override() {
    let vocab = Vocabulary::from_file(testdata("bytelevel/tokenizer.json")).unwrap();
    let fp = vocab.fingerprint();
    let v2 = vocab.clone().with_eos_ids(vec![2001, 2002, 2001]).unwrap();
    assert_eq!(v2.eos_ids(), &[2001, 2002]);
    assert_eq!(
        v2.fingerprint(),
        fp,
        "EOS ids are not part of the fingerprint"
    );
    assert_eq!(fp, fst_core::fingerprint(&vocab));

    let err = vocab.clone().with_eos_ids(vec![2004]).unwrap_err();
    assert_eq!(err.kind(), VocabErrorKind::Eos);
    assert!(err.to_string().contains("out of range"), "{err}");
    let err = vocab.clone().with_eos_ids(vec![15]).unwrap_err();
    assert_eq!(err.kind(), VocabErrorKind::Eos);
    assert!(err.to_string().contains("text token"), "{err}");
    // Any special token will do, and so does a hole (no text either).
    assert_eq!(vocab.with_eos_ids(vec![2003]).unwrap().eos_ids(), &[2003]);
    let sp = Vocabulary::from_file(testdata("sentencepiece/tokenizer.json")).unwrap();
    let hole = (0..sp.len() as u32)
        .find(|&id| sp.token_bytes(id).is_none() && sp.special_name(id).is_none())
        .unwrap();
    assert_eq!(sp.with_eos_ids(vec![hole]).unwrap().eos_ids(), &[hole]);
}

#[test]
fn fingerprints_tell_the_fixtures_apart() {
    let fps: Vec<u64> = [
        "bytelevel/tokenizer.json",
        "sentencepiece/tokenizer.json",
        "gpt2/encoder.json",
        "tiktoken/small.tiktoken",
    ]
    .iter()
    .map(|rel| Vocabulary::from_file(testdata(rel)).unwrap().fingerprint())
    .collect();
    for i in 0..fps.len() {
        for j in 0..i {
            assert_ne!(fps[i], fps[j]);
        }
    }
}

#[test]
fn metaspace_form_of_the_sentencepiece_fixture() {
    // Newer SentencePiece conversions put ▁ handling in a Metaspace pre-tokenizer and
    // decoder instead of Prepend/Replace normalizers. Same pieces, same bytes, same spelling.
    let path = testdata("sentencepiece/tokenizer.json");
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    json["normalizer"] = serde_json::Value::Null;
    json["pre_tokenizer"] = serde_json::json!({
        "type": "Metaspace", "replacement": "\u{2581}", "prepend_scheme": "first", "split": false
    });
    json["decoder"] = serde_json::json!({
        "type": "Sequence",
        "decoders": [
            {"type": "Metaspace", "replacement": "\u{2581}", "prepend_scheme": "first", "split": false},
            {"type": "ByteFallback"},
            {"type": "Fuse"}
        ]
    });
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("detok-metaspace");
    std::fs::create_dir_all(&dir).unwrap();
    let meta_path = dir.join("tokenizer.json");
    std::fs::write(&meta_path, serde_json::to_vec(&json).unwrap()).unwrap();

    let meta = Vocabulary::from_file(&meta_path).unwrap();
    let orig = Vocabulary::from_file(&path).unwrap();
    assert_eq!(meta.family(), Family::SentencePiece);
    assert_eq!(meta.len(), orig.len());
    for id in 0..orig.len() as u32 {
        assert_eq!(meta.token_bytes(id), orig.token_bytes(id), "id {id}");
    }
    // No config beside it: EOS from the well-known names.
    assert_eq!(meta.eos_ids(), &[2]);
    check_against_tokenizers(&meta, &meta_path);
    check_round_trips(&meta, &[]);
    for text in TEXTS {
        assert_eq!(
            meta.tokenize(text).unwrap(),
            orig.tokenize(text).unwrap(),
            "{text:?}"
        );
    }
}
