//! Tokenizing text with a GGUF file's byte-level BPE (`tokenizer.ggml.model = "gpt2"`): the
//! tokens and merges are in the file, but the pre-tokenizer is not: llama.cpp picks its split
//! patterns in code by the name in `tokenizer.ggml.pre`. The patterns of the names below are
//! written here from llama.cpp's documented behaviour (the same splits as the models' own
//! tokenizer.json pre-tokenizers), and checked against llama.cpp's tokenization in
//! detok/tests/all/gguf.rs. Other names stay a clear error. SentencePiece files:
//! [`crate::gguf_spm`]; user-defined tokens are cut out of the text first ([`crate::gguf_user`]).

use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::{Vocab, BPE};
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
use tokenizers::pre_tokenizers::PreTokenizerWrapper;
use tokenizers::{SplitDelimiterBehavior, Tokenizer};

use crate::byte_level;
use crate::error::{Result, VocabError, VocabErrorKind};
use fstc_core::TokenVocabulary;

/// GPT-2's split: contractions, letters, digits, other symbols, each with one optional
/// leading space, then whitespace not followed by a non-space.
const GPT2: &str = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)";

/// Llama 3's split: case-insensitive contractions, letters with one leading non-letter,
/// numbers of at most three digits, symbols with trailing newlines, newline runs, spaces.
const LLAMA3: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// Qwen 2's split: Llama 3's with single digits.
const QWEN2: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// The `tokenizer.ggml.pre` names tokenized, for messages.
pub(crate) const KNOWN: &str =
    "\"gpt-2\", \"llama-bpe\" (also \"llama3\", \"llama-v3\"), \"qwen2\", \"smollm\"";

/// A pre-tokenizer name's split patterns, applied in turn (each to the pieces of the one
/// before), and whether a piece that is a whole token skips the merges (llama.cpp's
/// `ignore_merges`, Llama 3's).
fn kind(pre: &str) -> Option<(&'static [&'static str], bool)> {
    Some(match pre {
        "gpt-2" => (&[GPT2], false),
        "llama-bpe" | "llama3" | "llama-v3" => (&[LLAMA3], true),
        "qwen2" => (&[QWEN2], false),
        // Every digit alone first, then GPT-2's split.
        "smollm" => (&[r"\p{N}", GPT2], false),
        _ => return None,
    })
}

fn error(origin: &str, msg: String) -> VocabError {
    VocabError::new(VocabErrorKind::Tokenize, format!("{origin}: {msg}"))
}

/// The tokenizer of a byte-level GGUF file: `tokens` its token bytes, `merges` its BPE merges.
pub(crate) fn tokenizer(
    pre: Option<&str>,
    merges: Option<&[String]>,
    tokens: &impl TokenVocabulary,
    origin: &str,
) -> Result<Tokenizer> {
    let unsupported = |why: String| {
        error(
            origin,
            format!(
                "tokenizing text is not supported for this GGUF file: {why}; give token ids \
                 (fstc check --tokens) or use the model's tokenizer.json"
            ),
        )
    };
    let Some(merges) = merges else {
        return Err(unsupported(
            "it is byte-level BPE (tokenizer.ggml.model \"gpt2\") without merges \
             (tokenizer.ggml.merges)"
                .into(),
        ));
    };
    let shown = pre.map_or("absent".to_string(), |p| format!("{p:?}"));
    let Some((patterns, ignore_merges)) = pre.and_then(kind) else {
        return Err(unsupported(format!(
            "its pre-tokenizer (tokenizer.ggml.pre = {shown}) is llama.cpp code, not data in \
             the file, and fstc has the ones named {KNOWN}"
        )));
    };
    let mut map = Vocab::default();
    for id in 0..tokens.len() as u32 {
        if let Some(bytes) = tokens.token_bytes(id) {
            map.insert(byte_level::encode_bytes(bytes), id);
        }
    }
    let mut pairs = Vec::with_capacity(merges.len());
    for (i, merge) in merges.iter().enumerate() {
        let Some((a, b)) = merge.split_once(' ').filter(|(_, b)| !b.contains(' ')) else {
            return Err(error(
                origin,
                format!("tokenizer.ggml.merges[{i}] is {merge:?}, not `a b`"),
            ));
        };
        // A merge into a token that has no text here (named like a control token, as
        // llama.cpp makes `</s>`) is left out: fstc spells text with text tokens only.
        if [a, b, &format!("{a}{b}")]
            .iter()
            .all(|t| map.contains_key(*t))
        {
            pairs.push((a.to_string(), b.to_string()));
        }
    }
    let bpe = BPE::builder()
        .vocab_and_merges(map, pairs)
        .ignore_merges(ignore_merges)
        .build()
        .map_err(|e| error(origin, format!("cannot build the BPE: {e}")))?;
    let mut steps = Vec::with_capacity(patterns.len() + 1);
    for &pattern in patterns {
        let split = Split::new(
            SplitPattern::Regex(pattern.to_string()),
            SplitDelimiterBehavior::Isolated,
            false,
        )
        .map_err(|e| error(origin, format!("split pattern {pattern:?}: {e}")))?;
        steps.push(PreTokenizerWrapper::Split(split));
    }
    // Bytes to GPT-2's characters only: the splitting is done above.
    steps.push(PreTokenizerWrapper::ByteLevel(ByteLevel::new(
        false, true, false,
    )));
    let mut tokenizer = Tokenizer::new(bpe);
    tokenizer.with_pre_tokenizer(Some(Sequence::new(steps)));
    tokenizer.with_decoder(Some(ByteLevelDecoder::default()));
    Ok(tokenizer)
}
