//! The tokenizers behind [`Vocabulary::tokenize`](crate::Vocabulary::tokenize), built on
//! first use so that loading a vocabulary stays cheap, from the token bytes and the
//! [`Source`] a loader kept (never from a `Vocabulary`, which this module does not know).
//!
//! For a tokenizer.json the `tokenizers` crate does the work, on a copy of the file adjusted
//! so that the output spells the input: only the added tokens that are text are matched
//! (the others are marked special and `encode_special_tokens` makes the crate leave special
//! tokens to the model; removing them instead would renumber the rest), no post-processor adds BOS/EOS, no truncation or padding, and SentencePiece's prepended `▁`
//! is off (the Prepend normalizer is dropped, Metaspace gets `prepend_scheme: never`,
//! ByteLevel gets `add_prefix_space: false`). For GPT-2's encoder.json a byte-level BPE is
//! built from the vocabulary and vocab.bpe; tiktoken rank files use [`RankEncoder`]; GGUF
//! files the byte-level BPE of [`crate::gguf_pre`] or the SentencePiece of [`crate::gguf_spm`], after
//! [`crate::gguf_user`] cut out their user-defined tokens.

use serde_json::Value;
use tokenizers::models::bpe::{Vocab, BPE};
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::Tokenizer;

use crate::byte_level;
use crate::error::{Result, VocabError, VocabErrorKind};
use crate::gguf_spm::SpmTokenizer;
use crate::gguf_user::UserDefined;
use crate::raw::{GgufModel, Source};
use crate::tiktoken::RankEncoder;
use fstc_core::TokenVocabulary;

pub(crate) enum Engine {
    Hf(Box<Tokenizer>),
    Ranks(Box<RankEncoder>),
    Spm(Box<SpmTokenizer>),
    /// A GGUF file's user-defined tokens cut out of the text, the rest to the engine.
    UserDefined(Box<(UserDefined, Engine)>),
}

fn build_error(origin: &str, msg: String) -> VocabError {
    VocabError::new(
        VocabErrorKind::Tokenize,
        format!("{origin}: cannot build the tokenizer: {msg}"),
    )
}

impl Engine {
    /// The tokenizer of `source` over the token bytes of `tokens`; `added_text` (sorted) are
    /// the ids of the added tokens that are text, `origin` names the file in errors.
    pub fn build(
        source: &Source,
        tokens: &impl TokenVocabulary,
        added_text: &[u32],
        origin: &str,
    ) -> Result<Engine> {
        match source {
            Source::HfJson { json } => {
                let mut value: Value = serde_json::from_slice(json)
                    .map_err(|e| build_error(origin, format!("invalid JSON: {e}")))?;
                exact_spelling_config(&mut value, added_text);
                let mut tokenizer: Tokenizer = serde_json::from_value(value)
                    .map_err(|e| build_error(origin, e.to_string()))?;
                tokenizer.set_encode_special_tokens(true);
                Ok(Engine::Hf(Box::new(tokenizer)))
            }
            Source::Gpt2 { merges_path } => {
                let merges_text = std::fs::read_to_string(merges_path).map_err(|e| {
                    build_error(
                        origin,
                        format!(
                            "tokenizing with encoder.json needs vocab.bpe beside it; cannot read \
                             {}: {e}",
                            merges_path.display()
                        ),
                    )
                })?;
                let mut merges = Vec::new();
                for (n, line) in merges_text.lines().enumerate() {
                    if line.starts_with("#version") || line.trim().is_empty() {
                        continue;
                    }
                    let mut it = line.split(' ');
                    match (it.next(), it.next(), it.next()) {
                        (Some(a), Some(b), None) => merges.push((a.to_string(), b.to_string())),
                        _ => {
                            return Err(build_error(
                                origin,
                                format!(
                                    "{}:{}: expected `a b`, found {line:?}",
                                    merges_path.display(),
                                    n + 1
                                ),
                            ))
                        }
                    }
                }
                let mut map = Vocab::default();
                for id in 0..tokens.len() as u32 {
                    if let Some(bytes) = tokens.token_bytes(id) {
                        map.insert(byte_level::encode_bytes(bytes), id);
                    }
                }
                let bpe = BPE::builder()
                    .vocab_and_merges(map, merges)
                    .build()
                    .map_err(|e| build_error(origin, format!("{}: {e}", merges_path.display())))?;
                let mut tokenizer = Tokenizer::new(bpe);
                tokenizer.with_pre_tokenizer(Some(ByteLevel::new(false, true, true)));
                tokenizer.with_decoder(Some(ByteLevel::default()));
                Ok(Engine::Hf(Box::new(tokenizer)))
            }
            Source::Tiktoken { splitter } => {
                Ok(Engine::Ranks(Box::new(RankEncoder::new(tokens, splitter))))
            }
            Source::Gguf { pre, model } => {
                let inner = match model {
                    GgufModel::Spm { texts, scores } => {
                        Engine::Spm(Box::new(SpmTokenizer::new(texts, scores.as_deref())))
                    }
                    GgufModel::Bpe { merges } => Engine::Hf(Box::new(crate::gguf_pre::tokenizer(
                        pre.as_deref(),
                        merges.as_deref(),
                        tokens,
                        origin,
                    )?)),
                };
                Ok(match added_text {
                    [] => inner,
                    ids => Engine::UserDefined(Box::new((UserDefined::new(tokens, ids), inner))),
                })
            }
        }
    }

    pub fn encode(&self, text: &str, origin: &str) -> Result<Vec<u32>> {
        match self {
            Engine::Hf(tokenizer) => {
                let encoding = tokenizer.encode(text, false).map_err(|e| {
                    VocabError::new(
                        VocabErrorKind::Tokenize,
                        format!("{origin}: tokenizing failed: {e}"),
                    )
                })?;
                Ok(encoding.get_ids().to_vec())
            }
            Engine::Ranks(encoder) => encoder.encode(text, origin),
            Engine::Spm(spm) => spm.encode(text, origin),
            Engine::UserDefined(split) => split.0.encode(text, |t| split.1.encode(t, origin)),
        }
    }
}

/// Adjusts a tokenizer.json so that encoding spells the text exactly (see the module doc):
/// every added token but those with ids in `added_text` (sorted; the ones that are text)
/// is marked special.
fn exact_spelling_config(value: &mut Value, added_text: &[u32]) {
    let Some(obj) = value.as_object_mut() else {
        return;
    };
    if let Some(added) = obj.get_mut("added_tokens").and_then(Value::as_array_mut) {
        for token in added.iter_mut().filter_map(Value::as_object_mut) {
            let id = token.get("id").and_then(Value::as_u64);
            let text = id.is_some_and(|id| added_text.binary_search(&(id as u32)).is_ok());
            token.insert("special".into(), Value::Bool(!text));
        }
    }
    for key in ["post_processor", "truncation", "padding"] {
        obj.insert(key.into(), Value::Null);
    }
    if let Some(n) = obj.get_mut("normalizer") {
        drop_prepend(n);
    }
    if let Some(p) = obj.get_mut("pre_tokenizer") {
        no_prefix_space(p);
    }
}

fn kind(value: &Value) -> Option<&str> {
    value.get("type").and_then(Value::as_str)
}

fn drop_prepend(normalizer: &mut Value) {
    match kind(normalizer) {
        Some("Prepend") => *normalizer = Value::Null,
        Some("Sequence") => {
            if let Some(items) = normalizer
                .get_mut("normalizers")
                .and_then(Value::as_array_mut)
            {
                items.retain(|n| kind(n) != Some("Prepend"));
                items.iter_mut().for_each(drop_prepend);
            }
        }
        _ => {}
    }
}

fn no_prefix_space(pre: &mut Value) {
    match kind(pre) {
        Some("Metaspace") => {
            if let Some(o) = pre.as_object_mut() {
                o.insert("prepend_scheme".into(), Value::String("never".into()));
                if o.contains_key("add_prefix_space") {
                    o.insert("add_prefix_space".into(), Value::Bool(false));
                }
            }
        }
        Some("ByteLevel") => {
            if let Some(o) = pre.as_object_mut() {
                o.insert("add_prefix_space".into(), Value::Bool(false));
            }
        }
        Some("Sequence") => {
            if let Some(items) = pre.get_mut("pretokenizers").and_then(Value::as_array_mut) {
                items.iter_mut().for_each(no_prefix_space);
            }
        }
        _ => {}
    }
}
