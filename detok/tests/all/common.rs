//! Shared helpers for the detok integration tests: texts for round trips, and oracles built
//! on the `tokenizers` crate's own decoders. Fixture paths come from `testkit::vocabs`.

use fstc_core::TokenVocabulary;
use fstc_detok::{Family, Vocabulary};
use tokenizers::decoders::byte_level::ByteLevel;
use tokenizers::{Decoder, Tokenizer};

/// Texts for round trips: ASCII, spaces, newlines, tabs, Unicode, emoji, marker-like text.
pub const TEXTS: &[&str] = &[
    "",
    "a",
    " ",
    "Hello, world!",
    "Hello world",
    "  two leading spaces",
    "trailing spaces   ",
    "new\nlines\n\n\nand\r\nCRLF\ttab",
    "naïve café, Grüße, ñandú, Ελληνικά, русский",
    "日本語のテキストと中文",
    "emoji 😀👍🏽 family 👨‍👩‍👧 flag 🇫🇷",
    "numbers 1234567 3.14159 -42 1e10",
    "fn main() { println!(\"hi {}\", x[0]); } // code",
    "{\"json\": [1, 2, {\"k\": null}]}",
    "<|eot_id|> and </s> and <s> are just text here",
    "<|endoftext|><|im_end|>",
    "zero\u{0}byte and \u{7f} del",
    "       \n        \n",
    "I'm sure they'll've done it, we'd",
];

/// The bytes `ids` spell in `vocab`, panicking on an id with no text.
pub fn spell(vocab: &Vocabulary, ids: &[u32]) -> Vec<u8> {
    let mut out = Vec::new();
    for &id in ids {
        out.extend_from_slice(
            vocab
                .token_bytes(id)
                .unwrap_or_else(|| panic!("token {id} has no text")),
        );
    }
    out
}

/// Checks that tokenize() spells every text of [`TEXTS`] (plus `extra`) exactly.
pub fn check_round_trips(vocab: &Vocabulary, extra: &[&str]) {
    for text in TEXTS.iter().chain(extra) {
        let ids = vocab
            .tokenize(text)
            .unwrap_or_else(|e| panic!("{}: tokenize({text:?}) failed: {e}", vocab.origin()));
        assert_eq!(
            spell(vocab, &ids),
            text.as_bytes(),
            "{}: {text:?} -> {ids:?}",
            vocab.origin()
        );
        if !text.is_empty() {
            assert!(!ids.is_empty());
        }
    }
}

/// How many ids were compared exactly (valid UTF-8) and how many only up to lossy UTF-8.
#[derive(Debug, Default)]
pub struct OracleStats {
    pub exact: usize,
    pub lossy: usize,
    pub specials: usize,
    /// Added tokens that are text (also counted in `exact` or `lossy`).
    pub added_text: usize,
    pub holes: usize,
}

fn compare(id: u32, ours: &[u8], decoded: &str, stats: &mut OracleStats) {
    match std::str::from_utf8(ours) {
        Ok(s) => {
            assert_eq!(s, decoded, "token {id}");
            stats.exact += 1;
        }
        Err(_) => {
            assert_eq!(String::from_utf8_lossy(ours), decoded, "token {id}");
            stats.lossy += 1;
        }
    }
}

/// Every id of a tokenizer.json vocabulary against the `tokenizers` crate loading the same
/// file: specials are exactly its special added tokens, holes are its holes, and text tokens
/// (added tokens that are not special included) are what its decoder gives for the token
/// after a known token (to get past decoders that strip the start of a text). Byte-level tokens that are not valid UTF-8 are compared after lossy
/// conversion, since the decoder itself returns a lossy string.
pub fn check_against_tokenizers(vocab: &Vocabulary, path: &std::path::Path) -> OracleStats {
    let tok = Tokenizer::from_file(path).expect("the tokenizers crate loads the file");
    let added: std::collections::HashMap<u32, tokenizers::AddedToken> =
        tok.get_added_tokens_decoder().into_iter().collect();
    // For SentencePiece, decode [prefix, id]: the Strip decoder removes one leading space of
    // the whole text, which the prefix shields.
    let prefix_id = tok.token_to_id("a").expect("the vocabulary has \"a\"");
    let mut stats = OracleStats::default();
    for id in 0..vocab.len() as u32 {
        if let Some(token) = added.get(&id).filter(|t| t.special) {
            let name = token.content.as_str();
            assert_eq!(vocab.token_bytes(id), None, "special token {id} {name:?}");
            assert_eq!(vocab.special_name(id), Some(name));
            stats.specials += 1;
            continue;
        }
        assert_eq!(vocab.special_name(id), None, "{id} is special for us only");
        let added_text = added.get(&id).map(|t| t.content.as_str());
        assert_eq!(vocab.added_text_name(id), added_text, "added token {id}");
        stats.added_text += usize::from(added_text.is_some());
        let Some(piece) = tok.id_to_token(id) else {
            assert_eq!(vocab.token_bytes(id), None, "hole {id}");
            stats.holes += 1;
            continue;
        };
        let ours = vocab
            .token_bytes(id)
            .unwrap_or_else(|| panic!("token {id} {piece:?} has no bytes"));
        match vocab.family() {
            Family::ByteLevelBpe => {
                let decoded = tok.decode(&[id], false).unwrap();
                compare(id, ours, &decoded, &mut stats);
                // Where the decoder is lossy, at least the byte table must give back the
                // file's string (the table itself is checked against Python's in the
                // tiktoken fixture test). An added token's content is raw text, not
                // written with the table.
                if added_text.is_none() {
                    assert_eq!(
                        fstc_detok::byte_level::encode_bytes(ours),
                        piece,
                        "token {id}"
                    );
                }
            }
            Family::SentencePiece => {
                let decoded = tok.decode(&[prefix_id, id], false).unwrap();
                let decoded = decoded.strip_prefix('a').expect("prefix kept");
                compare(id, ours, decoded, &mut stats);
            }
            Family::Tiktoken | Family::Tekken => unreachable!(),
        }
    }
    assert!(tok.get_vocab_size(true) <= vocab.len());
    stats
}

/// Every entry of a GPT-2 encoder.json against the `tokenizers` ByteLevel decoder.
pub fn check_gpt2_against_decoder(vocab: &Vocabulary, encoder: &std::path::Path) -> OracleStats {
    let text = std::fs::read_to_string(encoder).unwrap();
    let map: std::collections::HashMap<String, u32> = serde_json::from_str(&text).unwrap();
    assert_eq!(map.len(), vocab.len());
    let decoder = ByteLevel::default();
    let mut stats = OracleStats::default();
    for (token, id) in map {
        if token == "<|endoftext|>" {
            assert_eq!(vocab.token_bytes(id), None);
            stats.specials += 1;
            continue;
        }
        let decoded = decoder.decode_chain(vec![token.clone()]).unwrap().concat();
        compare(id, vocab.token_bytes(id).unwrap(), &decoded, &mut stats);
    }
    stats
}
