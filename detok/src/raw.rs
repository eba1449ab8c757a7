//! What a loader hands over: a file's tokens before ids are checked and bytes packed.
//!
//! Every loader (`hf`, `gpt2`, `tiktoken`, `tekken`, `gguf`) turns a file into [`RawVocabulary`] and knows
//! nothing of [`Vocabulary`](crate::Vocabulary); `Vocabulary::assemble` is the one place
//! that checks the ids, packs the bytes and settles the EOS ids. The tokenizer engine is
//! built later from the token bytes and the [`Source`] kept here.

use std::path::{Path, PathBuf};

#[cfg(feature = "tokenize")]
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
#[cfg(feature = "tokenize")]
use tokenizers::SplitDelimiterBehavior;

use crate::error::{io_error, Result};

/// How a tokenizer writes token bytes, which decides how its files are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// GPT-2-style byte-level BPE (GPT-2, Llama 3, Qwen): token strings use GPT-2's
    /// byte-to-unicode table.
    ByteLevelBpe,
    /// SentencePiece-style BPE or Unigram (Llama 2, Mistral, T5): `▁` stands for a space and,
    /// with byte fallback, `<0xHH>` pieces are single bytes.
    SentencePiece,
    /// A tiktoken rank file: each line is the base64 of a token's bytes and its rank (= id).
    Tiktoken,
    /// Mistral's tekken.json: tiktoken-style base64 token bytes by rank, after the special
    /// tokens, which take the first ids.
    Tekken,
}

/// Ids at or above this bound are rejected, so that a corrupt id cannot make us allocate
/// gigabytes. Real vocabularies stay far below it (the largest are around 262k).
pub const MAX_TOKEN_ID: u32 = fstc_core::vocab::MAX_VOCAB_SIZE - 1;

/// Names that mark an end-of-sequence token when no config says which one it is.
///
/// Every special token whose name is in this list becomes an EOS id (so Qwen without a config
/// gets both `<|endoftext|>` and `<|im_end|>`, Llama 3 both `<|end_of_text|>` and `<|eot_id|>`).
pub const WELL_KNOWN_EOS: &[&str] = &[
    "</s>",
    "<|endoftext|>",
    "<|end_of_text|>",
    "<|im_end|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|end|>",
    "<eos>",
    "<end_of_turn>",
];

/// Which ids end generation, as the file says.
pub(crate) enum Eos {
    /// The special token of this name (a config's `eos_token`, which the loader made
    /// special with [`RawVocabulary::ensure_special`]); every special named in [`WELL_KNOWN_EOS`]
    /// if none has the name.
    Named(String),
    /// These ids (specials of the file), plus, when `well_known`, every special named in
    /// [`WELL_KNOWN_EOS`].
    Ids { ids: Vec<u32>, well_known: bool },
}

impl Eos {
    /// Every special named in [`WELL_KNOWN_EOS`], for files that name no EOS.
    pub fn well_known() -> Eos {
        Eos::Ids {
            ids: Vec::new(),
            well_known: true,
        }
    }
}

/// What a vocabulary keeps to build its tokenizer later (read only with the `tokenize`
/// feature; the loaders are the same without it).
#[cfg_attr(not(feature = "tokenize"), allow(dead_code))]
pub(crate) enum Source {
    /// The tokenizer.json file's bytes.
    HfJson { json: Vec<u8> },
    /// GPT-2: the merges file beside encoder.json (the vocabulary itself is rebuilt from the
    /// token bytes).
    Gpt2 { merges_path: PathBuf },
    /// tiktoken and tekken: the compiled split pattern (ranks are the token bytes; a
    /// tekken's ids are its ranks shifted by the number of specials, which keeps their order).
    Tiktoken { splitter: Splitter },
    /// A GGUF file: its pre-tokenizer's name (`tokenizer.ggml.pre`: llama.cpp code, not data,
    /// rebuilt for the names [`crate::gguf_pre`] knows) and its model's tables.
    Gguf {
        pre: Option<String>,
        model: GgufModel,
    },
}

/// A split pattern as tokenizing needs it: compiled at load, so that a bad pattern is a load
/// error. Without the `tokenize` feature nothing splits, and the pattern is kept unchecked.
#[cfg(feature = "tokenize")]
pub(crate) type Splitter = Split;
#[cfg(not(feature = "tokenize"))]
pub(crate) type Splitter = String;

/// The [`Splitter`] of a fancy-regex `pattern`, or why it is not one.
#[cfg(feature = "tokenize")]
pub(crate) fn splitter(pattern: &str) -> std::result::Result<Splitter, String> {
    Split::new(
        SplitPattern::Regex(pattern.to_string()),
        SplitDelimiterBehavior::Isolated,
        false,
    )
    .map_err(|e| e.to_string())
}

#[cfg(not(feature = "tokenize"))]
pub(crate) fn splitter(pattern: &str) -> std::result::Result<Splitter, String> {
    Ok(pattern.to_string())
}

/// What a GGUF file's tokenizer model keeps to tokenize text.
#[cfg_attr(not(feature = "tokenize"), allow(dead_code))]
pub(crate) enum GgufModel {
    /// Byte-level BPE (`gpt2`): the merges (`a b`), if the file has them.
    Bpe { merges: Option<Vec<String>> },
    /// SentencePiece (`llama`): every token's text as in the file, and the scores, if any
    /// ([`crate::gguf_spm`]).
    Spm {
        texts: Vec<String>,
        scores: Option<Vec<f32>>,
    },
}

/// What a loader found in a file, before ids are checked and bytes packed.
pub(crate) struct RawVocabulary {
    pub family: Family,
    /// The file, for error messages.
    pub origin: String,
    /// Text tokens: id and exact bytes.
    pub text: Vec<(u32, Vec<u8>)>,
    /// Added tokens that are text (`"special": false`): id, name (the file's content) and
    /// the bytes the tokenizer's decoder gives them. They override a text token with the
    /// same id, as the tokenizer's own decoding does.
    pub added_text: Vec<(u32, String, Vec<u8>)>,
    /// Special tokens (no text): id and name. They override a text token with the same id.
    pub specials: Vec<(u32, String)>,
    pub eos: Eos,
    pub source: Source,
}

impl RawVocabulary {
    /// Makes the text token spelled `name` special, for an EOS token that a config names but
    /// that the vocabulary lists as text (then, as in `transformers`, the name is special).
    /// An added token that is text and has that name becomes special too. Returns whether
    /// the name is now a special token.
    pub fn ensure_special(&mut self, name: &str) -> bool {
        if self.specials.iter().any(|(_, n)| n == name) {
            return true;
        }
        if let Some(pos) = self.added_text.iter().position(|(_, n, _)| n == name) {
            let (id, name, _) = self.added_text.swap_remove(pos);
            self.specials.push((id, name));
            return true;
        }
        let Some(pos) = self.text.iter().position(|(_, b)| b == name.as_bytes()) else {
            return false;
        };
        let (id, _) = self.text.swap_remove(pos);
        self.specials.push((id, name.to_string()));
        true
    }
}

/// The bytes of the file at `path`, or an I/O error naming it.
pub(crate) fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| io_error(path, e))
}
