//! HuggingFace `tokenizer.json` (+ `tokenizer_config.json`) loader.
//!
//! Only what decides token bytes is read: the model's vocabulary and kind, `added_tokens`,
//! and the normalizer, pre-tokenizer and decoder, which tell byte-level BPE (tokens written
//! with GPT-2's byte table) from SentencePiece style (`▁` for space, `<0xHH>` byte pieces).
//! The token bytes are what the tokenizer's own decoder gives for a token that is not the
//! first of a text (decoders such as `Strip` only touch the start of the whole text). That
//! holds for added tokens too: one marked `"special": false` is text (its content through
//! the decoder, so a SentencePiece `▁` is a space), one marked `"special": true` has none.

use std::fmt;
use std::path::Path;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::byte_level;
use crate::byte_token::byte_token;
use crate::error::{malformed, unsupported, Result, VocabError, VocabErrorKind};
use crate::raw::{read, Eos, Family, RawVocabulary, Source};

#[derive(serde::Deserialize)]
struct TokenizerFile {
    #[serde(default)]
    added_tokens: Vec<AddedToken>,
    #[serde(default)]
    normalizer: Option<Value>,
    #[serde(default)]
    pre_tokenizer: Option<Value>,
    #[serde(default)]
    decoder: Option<Value>,
    model: Model,
}

#[derive(serde::Deserialize)]
struct AddedToken {
    id: u32,
    content: String,
    /// Required, as in the `tokenizers` crate: whether the token is a control token without
    /// text or text.
    special: bool,
}

#[derive(serde::Deserialize)]
struct Model {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    vocab: Option<ModelVocab>,
    #[serde(default)]
    merges: Option<IgnoredAny>,
    #[serde(default)]
    byte_fallback: Option<bool>,
    #[serde(default)]
    continuing_subword_prefix: Option<String>,
    #[serde(default)]
    end_of_word_suffix: Option<String>,
}

/// A model vocabulary: a map `token -> id` (BPE, and GPT-2's encoder.json) or a list of
/// `[piece, score]` whose positions are the ids (Unigram).
pub(crate) enum ModelVocab {
    Map(Vec<(String, u32)>),
    List(Vec<String>),
}

impl<'de> Deserialize<'de> for ModelVocab {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ModelVocab;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map from token to id or a list of [piece, score] pairs")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<ModelVocab, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some(entry) = map.next_entry::<String, u32>()? {
                    out.push(entry);
                }
                Ok(ModelVocab::Map(out))
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<ModelVocab, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some((piece, _score)) = seq.next_element::<(String, f64)>()? {
                    out.push(piece);
                }
                Ok(ModelVocab::List(out))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// How token strings become bytes.
enum Spelling {
    ByteLevel,
    SentencePiece {
        /// `(from, to)` string replacements of the decoder, in order.
        replacements: Vec<(String, String)>,
        byte_fallback: bool,
    },
}

pub(crate) fn load(path: &Path, data: Vec<u8>) -> Result<RawVocabulary> {
    let origin = path.display().to_string();
    let file: TokenizerFile = serde_json::from_slice(&data)
        .map_err(|e| malformed(format!("{origin}: not a valid tokenizer.json: {e}")))?;
    let (family, spelling) = spelling(&origin, &file)?;

    let text: Vec<(u32, Vec<u8>)> = match file.model.vocab {
        None => return Err(malformed(format!("{origin}: model has no \"vocab\""))),
        Some(ModelVocab::Map(entries)) => entries
            .into_iter()
            .map(|(token, id)| (id, spell(&spelling, &token)))
            .collect(),
        Some(ModelVocab::List(pieces)) => {
            let mut out = Vec::with_capacity(pieces.len());
            for (i, piece) in pieces.into_iter().enumerate() {
                let id = u32::try_from(i).map_err(|_| {
                    malformed(format!("{origin}: too many pieces in the model vocab"))
                })?;
                out.push((id, spell(&spelling, &piece)));
            }
            out
        }
    };
    // As the tokenizer's decoder does: a special added token is left out of the text (it
    // is a control token), any other added token is its content passed through the decoder.
    let (specials, added): (Vec<AddedToken>, Vec<AddedToken>) =
        file.added_tokens.into_iter().partition(|t| t.special);
    let specials = specials.into_iter().map(|t| (t.id, t.content)).collect();
    let added_text = added
        .into_iter()
        .map(|t| {
            let bytes = spell(&spelling, &t.content);
            (t.id, t.content, bytes)
        })
        .collect();
    let mut raw = RawVocabulary {
        family,
        origin: origin.clone(),
        text,
        added_text,
        specials,
        eos: Eos::well_known(),
        source: Source::HfJson { json: data },
    };

    let config_path = path.with_file_name("tokenizer_config.json");
    let eos_name = if config_path.is_file() {
        config_eos(&config_path)?
    } else {
        None
    };
    if let Some(name) = eos_name {
        if !raw.ensure_special(&name) {
            return Err(VocabError::new(
                VocabErrorKind::Eos,
                format!(
                    "{}: eos_token {name:?} is not a token of {origin}",
                    config_path.display()
                ),
            ));
        }
        raw.eos = Eos::Named(name);
    }
    Ok(raw)
}

/// The `eos_token` of a tokenizer_config.json: a string, `{"content": ...}`, or absent/null.
fn config_eos(path: &Path) -> Result<Option<String>> {
    let data = read(path)?;
    let value: Value = serde_json::from_slice(&data)
        .map_err(|e| malformed(format!("{}: not valid JSON: {e}", path.display())))?;
    let Some(obj) = value.as_object() else {
        return Err(malformed(format!("{}: not a JSON object", path.display())));
    };
    match obj.get("eos_token") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Object(o)) => match o.get("content") {
            Some(Value::String(s)) => Ok(Some(s.clone())),
            _ => Err(malformed(format!(
                "{}: eos_token is an object without a string \"content\"",
                path.display()
            ))),
        },
        Some(other) => Err(malformed(format!(
            "{}: eos_token must be a string or {{\"content\": ...}}, not {other}",
            path.display()
        ))),
    }
}

/// The `type` of each element of a component, looking inside `Sequence`s.
fn component_types<'a>(
    origin: &str,
    what: &str,
    value: Option<&'a Value>,
    list_key: &str,
    out: &mut Vec<(&'a str, &'a Value)>,
) -> Result<()> {
    let Some(value) = value else { return Ok(()) };
    if value.is_null() {
        return Ok(());
    }
    let Some(kind) = value.get("type").and_then(Value::as_str) else {
        return Err(malformed(format!("{origin}: a {what} has no \"type\"")));
    };
    if kind == "Sequence" {
        let Some(items) = value.get(list_key).and_then(Value::as_array) else {
            return Err(malformed(format!(
                "{origin}: a Sequence {what} has no \"{list_key}\" list"
            )));
        };
        for item in items {
            component_types(origin, what, Some(item), list_key, out)?;
        }
    } else {
        out.push((kind, value));
    }
    Ok(())
}

/// The family of the file and how its token strings become bytes, from the model and the
/// normalizer, pre-tokenizer and decoder (refusing what we cannot spell exactly).
fn spelling(origin: &str, file: &TokenizerFile) -> Result<(Family, Spelling)> {
    check_model(origin, &file.model)?;
    let mut decoders = Vec::new();
    component_types(
        origin,
        "decoder",
        file.decoder.as_ref(),
        "decoders",
        &mut decoders,
    )?;
    let mut pre = Vec::new();
    component_types(
        origin,
        "pre_tokenizer",
        file.pre_tokenizer.as_ref(),
        "pretokenizers",
        &mut pre,
    )?;
    let mut norms = Vec::new();
    component_types(
        origin,
        "normalizer",
        file.normalizer.as_ref(),
        "normalizers",
        &mut norms,
    )?;

    for (d, _) in &decoders {
        if !matches!(
            *d,
            "ByteLevel" | "Metaspace" | "Replace" | "ByteFallback" | "Fuse" | "Strip"
        ) {
            return Err(unsupported(format!(
                "{origin}: decoder type {d} is not supported (supported: ByteLevel, Metaspace, \
                 Replace, ByteFallback, Fuse, Strip)"
            )));
        }
    }

    let byte_level = decoders.iter().any(|(d, _)| *d == "ByteLevel")
        || pre.iter().any(|(p, _)| *p == "ByteLevel")
        || norms.iter().any(|(n, _)| *n == "ByteLevel");
    if byte_level {
        if let Some((d, _)) = decoders
            .iter()
            .find(|(d, _)| matches!(*d, "Metaspace" | "Replace" | "ByteFallback"))
        {
            return Err(unsupported(format!(
                "{origin}: decoder {d} combined with ByteLevel is not supported"
            )));
        }
        return Ok((Family::ByteLevelBpe, Spelling::ByteLevel));
    }
    let spelling = sentencepiece_spelling(origin, &file.model, &decoders, &pre, &norms)?;
    Ok((Family::SentencePiece, spelling))
}

/// Refuses model kinds and BPE options whose token strings we cannot turn into bytes.
fn check_model(origin: &str, model: &Model) -> Result<()> {
    let kind = match model.kind.as_deref() {
        Some(k) => k,
        // Old files omit the type; tokenizers then guesses from the fields.
        None if model.merges.is_some() => "BPE",
        None if matches!(model.vocab, Some(ModelVocab::List(_))) => "Unigram",
        None => return Err(malformed(format!("{origin}: model has no \"type\""))),
    };
    if kind != "BPE" && kind != "Unigram" {
        return Err(unsupported(format!(
            "{origin}: model type {kind} is not supported (supported: BPE, Unigram)"
        )));
    }
    for (field, value) in [
        (
            "continuing_subword_prefix",
            &model.continuing_subword_prefix,
        ),
        ("end_of_word_suffix", &model.end_of_word_suffix),
    ] {
        if let Some(v) = value.as_deref().filter(|v| !v.is_empty()) {
            return Err(unsupported(format!(
                "{origin}: BPE with {field} {v:?} is not supported"
            )));
        }
    }
    Ok(())
}

/// The SentencePiece-style spelling: the decoder's string replacements (a Metaspace's `▁`
/// to space) and whether `<0xHH>` pieces are bytes.
fn sentencepiece_spelling(
    origin: &str,
    model: &Model,
    decoders: &[(&str, &Value)],
    pre: &[(&str, &Value)],
    norms: &[(&str, &Value)],
) -> Result<Spelling> {
    let mut replacements = Vec::new();
    for (d, value) in decoders {
        match *d {
            "Replace" => {
                let from = value
                    .get("pattern")
                    .and_then(|p| p.get("String"))
                    .and_then(Value::as_str);
                let to = value.get("content").and_then(Value::as_str);
                match (from, to) {
                    (Some(from), Some(to)) => replacements.push((from.to_string(), to.to_string())),
                    _ => {
                        return Err(unsupported(format!(
                            "{origin}: Replace decoder {value} is not supported (only a \
                             String pattern with a string content is)"
                        )))
                    }
                }
            }
            "Metaspace" => {
                let r = value
                    .get("replacement")
                    .and_then(Value::as_str)
                    .unwrap_or("\u{2581}");
                replacements.push((r.to_string(), " ".to_string()));
            }
            _ => {}
        }
    }
    let sp_marks = pre.iter().any(|(p, _)| *p == "Metaspace")
        || norms.iter().any(|(n, v)| {
            matches!(*n, "Replace" | "Prepend") && v.to_string().contains('\u{2581}')
        });
    let byte_fallback =
        model.byte_fallback == Some(true) || decoders.iter().any(|(d, _)| *d == "ByteFallback");
    if replacements.is_empty() && !sp_marks {
        return Err(unsupported(format!(
            "{origin}: cannot tell how token strings map to bytes: no ByteLevel component and \
             no SentencePiece-style ▁ handling (Metaspace, or a Replace of ▁) in the \
             normalizer, pre_tokenizer or decoder"
        )));
    }
    if replacements.is_empty() {
        replacements.push(("\u{2581}".to_string(), " ".to_string()));
    }
    Ok(Spelling::SentencePiece {
        replacements,
        byte_fallback,
    })
}

fn spell(spelling: &Spelling, token: &str) -> Vec<u8> {
    match spelling {
        Spelling::ByteLevel => byte_level::decode_token(token),
        Spelling::SentencePiece {
            replacements,
            byte_fallback,
        } => {
            if *byte_fallback {
                if let Some(b) = byte_token(token) {
                    return vec![b];
                }
            }
            let mut s = token.to_string();
            for (from, to) in replacements {
                if !from.is_empty() && s.contains(from.as_str()) {
                    s = s.replace(from.as_str(), to);
                }
            }
            s.into_bytes()
        }
    }
}

/// Parses a JSON object mapping token strings to ids (GPT-2's encoder.json).
pub(crate) fn parse_token_map(origin: &str, data: &[u8]) -> Result<Vec<(String, u32)>> {
    match serde_json::from_slice::<ModelVocab>(data) {
        Ok(ModelVocab::Map(entries)) => Ok(entries),
        Ok(ModelVocab::List(_)) => Err(malformed(format!(
            "{origin}: expected a JSON object mapping tokens to ids, found a list"
        ))),
        Err(e) => Err(malformed(format!(
            "{origin}: not a valid token-to-id JSON object: {e}"
        ))),
    }
}
