//! The same checks on the real tokenizers in ../shared/vocabs (skipped when absent): every id
//! against the tokenizer's own decoding, sizes, specials, EOS ids, exact tokenization.

use crate::common::*;
use fstc_core::TokenVocabulary;
use fstc_detok::{Family, Vocabulary};
use testkit::vocabs::shared_vocab_path;
use testkit::vocabs::testdata;

#[test]
fn gpt2() {
    let Some(path) = shared_vocab_path("gpt2/encoder.json") else {
        return;
    };
    let vocab = Vocabulary::from_file(&path).unwrap();
    assert_eq!(vocab.family(), Family::ByteLevelBpe);
    assert_eq!(vocab.len(), 50257);
    let stats = check_gpt2_against_decoder(&vocab, &path);
    println!("gpt2: {stats:?}");
    assert_eq!(vocab.eos_ids(), &[50256]);
    check_round_trips(&vocab, &[]);
    assert_eq!(vocab.tokenize("Hello world").unwrap(), [15496, 995]);
}

#[test]
fn llama2() {
    let Some(path) = shared_vocab_path("llama2/tokenizer.json") else {
        return;
    };
    let vocab = Vocabulary::from_file(&path).unwrap();
    assert_eq!(vocab.family(), Family::SentencePiece);
    assert_eq!(vocab.len(), 32000);
    let stats = check_against_tokenizers(&vocab, &path);
    println!("llama2: {stats:?}");
    assert_eq!(stats.specials, 3);
    assert_eq!(stats.holes, 0);
    assert_eq!(vocab.eos_ids(), &[2]);
    check_round_trips(&vocab, &[]);
    // The fixture keeps this file's ids: where both define a token, the bytes agree. Its
    // added tokens from 32000 on are its own.
    let fixture = Vocabulary::from_file(testdata("sentencepiece/tokenizer.json")).unwrap();
    for id in 0..vocab.len() as u32 {
        if let Some(bytes) = fixture.token_bytes(id) {
            assert_eq!(vocab.token_bytes(id), Some(bytes), "id {id}");
        }
    }
}

#[test]
fn llama3() {
    let Some(path) = shared_vocab_path("llama3/tokenizer.json") else {
        return;
    };
    let vocab = Vocabulary::from_file(&path).unwrap();
    assert_eq!(vocab.family(), Family::ByteLevelBpe);
    assert_eq!(vocab.len(), 128256);
    let stats = check_against_tokenizers(&vocab, &path);
    println!("llama3: {stats:?}");
    assert_eq!(stats.specials, 256);
    // tokenizer_config.json names <|end_of_text|>.
    assert_eq!(vocab.eos_ids(), &[128001]);
    assert_eq!(vocab.token_id("<|eot_id|>"), Some(128009));
    check_round_trips(&vocab, &[]);
    let fixture = Vocabulary::from_file(testdata("bytelevel/tokenizer.json")).unwrap();
    for id in 0..2000 {
        assert_eq!(fixture.token_bytes(id), vocab.token_bytes(id), "id {id}");
    }
}

#[test]
fn qwen3() {
    let Some(path) = shared_vocab_path("qwen3/tokenizer.json") else {
        return;
    };
    let vocab = Vocabulary::from_file(&path).unwrap();
    assert_eq!(vocab.family(), Family::ByteLevelBpe);
    assert_eq!(vocab.len(), 151669);
    let stats = check_against_tokenizers(&vocab, &path);
    println!("qwen3: {stats:?}");
    assert_eq!(stats.specials, 14);
    assert_eq!(stats.added_text, 12);
    // tokenizer_config.json names <|im_end|>; <think> is added but not special: its text.
    assert_eq!(vocab.eos_ids(), &[151645]);
    let think = vocab.token_id("<think>").unwrap();
    assert_eq!(vocab.token_bytes(think), Some(&b"<think>"[..]));
    check_round_trips(&vocab, &[]);
    // The tokenizer's own tokens for a tool call, as the model writes it.
    let call = "<tool_call>\n{\"name\": \"f\"}\n</tool_call>";
    let ids = vocab.tokenize(call).unwrap();
    assert_eq!(ids.first(), vocab.token_id("<tool_call>").as_ref());
    assert_eq!(ids.last(), vocab.token_id("</tool_call>").as_ref());
    let tok = tokenizers::Tokenizer::from_file(&path).unwrap();
    assert_eq!(ids, tok.encode(call, false).unwrap().get_ids());
    // Qwen normalizes to NFC: a decomposed é cannot be spelled as is.
    let err = vocab.tokenize("e\u{301}").unwrap_err();
    assert!(err.to_string().contains("cannot spell"), "{err}");
}

/// Gemma 3 (`benches/fetch_tokenizers.sh gemma3`, then `FSTC_VOCABS=benches/vocabs`): 6406
/// added tokens that are text (newline and whitespace runs, HTML tags, `<unusedN>`).
#[test]
fn gemma3() {
    let Some(path) = shared_vocab_path("gemma3/tokenizer.json") else {
        return;
    };
    let vocab = Vocabulary::from_file(&path).unwrap();
    assert_eq!(vocab.family(), Family::SentencePiece);
    let stats = check_against_tokenizers(&vocab, &path);
    println!("gemma3: {stats:?}");
    assert_eq!(stats.added_text, 6406);
    // tokenizer_config.json names <end_of_turn>.
    assert_eq!(vocab.eos_ids(), &[vocab.token_id("<end_of_turn>").unwrap()]);
    check_round_trips(&vocab, &["<table>\n<tr>\n\n\n\n</tr>"]);
    // Every newline run is one added token, as the model writes it.
    let ids = vocab.tokenize("a\n\nb\n").unwrap();
    assert_eq!(ids[1], vocab.token_id("\n\n").unwrap());
    assert_eq!(ids[3], vocab.token_id("\n").unwrap());
}

#[test]
fn real_tokenizers_agree_with_their_own_encoding() {
    for rel in [
        "llama3/tokenizer.json",
        "qwen3/tokenizer.json",
        "gemma3/tokenizer.json",
    ] {
        let Some(path) = shared_vocab_path(rel) else {
            continue;
        };
        let vocab = Vocabulary::from_file(&path).unwrap();
        let tok = tokenizers::Tokenizer::from_file(&path).unwrap();
        for text in TEXTS {
            if text.contains("<|") {
                continue;
            }
            let theirs = tok.encode(*text, false).unwrap().get_ids().to_vec();
            assert_eq!(vocab.tokenize(text).unwrap(), theirs, "{rel}: {text:?}");
        }
    }
}
