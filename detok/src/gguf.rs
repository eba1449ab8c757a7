//! GGUF files (llama.cpp's model format): the tokenizer stored in their metadata.
//!
//! A GGUF file is a header (`GGUF`, version 2 or 3, tensor and key-value counts), the
//! metadata key-values (typed, little-endian, arrays included), then tensor descriptions and
//! data. Only the header and the metadata are read, through a buffered reader, so a model of
//! hundreds of MB costs the tokenizer's few MB. Every length and count is checked against the
//! bytes left in the file before anything is read, skipped or allocated, so a corrupt file is
//! an error naming the key and byte offset, never a panic or an unbounded allocation.
//!
//! Bytes per id are what llama.cpp's `llama_token_to_piece` gives with `special = false`:
//! by `tokenizer.ggml.token_type`, a normal token (1) is its text decoded by the family
//! (`gpt2`: GPT-2's byte-to-unicode table; `llama`: `▁` is a space), a byte token (6) of the
//! byte token (6) is the byte of its `<0xHH>` name (in both families: Gemma 4 is byte-level
//! BPE with byte fallback), a user-defined token (4) is its text as written; unknown (2),
//! control (3), unused (5) and undefined (0) tokens have no text (special). Without `token_type` every token is normal.
//!
//! EOS is llama.cpp's end-of-generation set (`llama_vocab_is_eog`), what a llama.cpp user's
//! generation stops on: the ids of the EOS, end-of-turn and end-of-message keys; the
//! fill-in-the-middle pad, repository and file-separator tokens (by their keys, else by
//! their names: SmolLM2's `<reponame>`), which a code model emits when it starts another
//! file; and every token named like an end token ([`EOG_NAMES`]). As in llama.cpp, a token
//! with such a role or name has no text even if its type says otherwise (llama.cpp makes it
//! a control token). Two llama.cpp model-specific repairs are not reproduced: dropping
//! `<|end|>` when `<|return|>` and `<|call|>` exist (gpt-oss) and `</s>` when
//! `<|tool_response>` exists (Gemma 4); nor its default EOS id for files without the key.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::byte_level;
use crate::byte_token::byte_token;
use crate::error::{io_error, malformed, unsupported, Result, VocabError, VocabErrorKind};
use crate::raw::{Eos, Family, GgufModel, RawVocabulary, Source, MAX_TOKEN_ID};

/// The first four bytes of every GGUF file.
pub(crate) const MAGIC: &[u8; 4] = b"GGUF";

/// Metadata keys are at most this long (the GGUF specification's limit).
const MAX_KEY_LEN: u64 = u16::MAX as u64;

/// Arrays nest at most this deep; deeper is taken as corruption (no real file nests).
const MAX_DEPTH: u32 = 4;

/// The keys whose ids end generation in llama.cpp: EOS, end of turn, end of message, and
/// the fill-in-the-middle pad, repository and file separator.
const EOS_KEYS: [&str; 6] = [
    "tokenizer.ggml.eos_token_id",
    "tokenizer.ggml.eot_token_id",
    "tokenizer.ggml.eom_token_id",
    FIM_KEYS[0],
    FIM_KEYS[1],
    FIM_KEYS[2],
];

/// The fill-in-the-middle keys of [`EOS_KEYS`], in the order of [`FIM_NAMES`].
const FIM_KEYS: [&str; 3] = [
    "tokenizer.ggml.fim_pad_token_id",
    "tokenizer.ggml.fim_rep_token_id",
    "tokenizer.ggml.fim_sep_token_id",
];

/// The names llama.cpp takes for the FIM pad, repository and file-separator tokens when
/// their key is absent (llama-vocab.cpp, "auto-detect special tokens by text").
const FIM_NAMES: [&[&str]; 3] = [
    &["<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"],
    &[
        "<|fim_repo|>",
        "<|repo_name|>",
        "<fim-repo>",
        "<REPO>",
        "<reponame>",
    ],
    &["<|file_sep|>"],
];

/// Token names llama.cpp always counts as end of generation.
const EOG_NAMES: &[&str] = &[
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|flush|>",
    "<|calls|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "</s>",
    "<|eom_id|>",
    "<EOT>",
    "_<EOT>",
    "[EOT]",
    "[EOS]",
    "<|end_of_text|>",
    "<end_of_utterance>",
    "<eos>",
    "<turn|>",
    "<|tool_response>",
    "<\u{ff5c}end\u{2581}of\u{2581}sentence\u{ff5c}>",
    "[e~[",
];

/// Other names llama.cpp makes control tokens (no text) whatever their type: the FIM
/// prefix, suffix and middle tokens and the end-of-turn names not in [`EOG_NAMES`].
const CONTROL_NAMES: &[&str] = &[
    "<|fim_prefix|>",
    "<fim-prefix>",
    "<fim_prefix>",
    "<\u{ff5c}fim\u{2581}begin\u{ff5c}>",
    "<PRE>",
    "\u{2581}<PRE>",
    "<|code_prefix|>",
    "<|prefix|>",
    "<|fim_suffix|>",
    "<fim-suffix>",
    "<fim_suffix>",
    "<\u{ff5c}fim\u{2581}hole\u{ff5c}>",
    "<SUF>",
    "\u{2581}<SUF>",
    "<|code_suffix|>",
    "<|suffix|>",
    "<|fim_middle|>",
    "<fim-middle>",
    "<fim_middle>",
    "<\u{ff5c}fim\u{2581}end\u{ff5c}>",
    "<MID>",
    "\u{2581}<MID>",
    "<|code_middle|>",
    "<|middle|>",
];

const MODEL_KEY: &str = "tokenizer.ggml.model";
const TOKENS_KEY: &str = "tokenizer.ggml.tokens";
const TYPES_KEY: &str = "tokenizer.ggml.token_type";
const PRE_KEY: &str = "tokenizer.ggml.pre";
const MERGES_KEY: &str = "tokenizer.ggml.merges";
const SCORES_KEY: &str = "tokenizer.ggml.scores";

/// Whether the file at `path` starts with the GGUF magic (reads 4 bytes).
pub(crate) fn has_magic(path: &Path) -> Result<bool> {
    let mut head = [0u8; 4];
    let mut file = File::open(path).map_err(|e| io_error(path, e))?;
    let mut got = 0;
    while got < 4 {
        match file.read(&mut head[got..]) {
            Ok(0) => return Ok(false),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_error(path, e)),
        }
    }
    Ok(&head == MAGIC)
}

/// The raw vocabulary of a GGUF file of `len` bytes read from `reader`, positioned at its start
/// (lengths and counts are checked against `len`); `origin` names it in errors.
pub(crate) fn load(reader: impl Read, len: u64, origin: &str) -> Result<RawVocabulary> {
    let mut reader = Reader {
        inner: reader,
        offset: 0,
        len,
        origin,
    };
    let meta = read_metadata(&mut reader)?;
    build(meta, origin)
}

/// A GGUF value type (the specification's numbering).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ValueType {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    F32,
    Bool,
    Str,
    Array,
    U64,
    I64,
    F64,
}

impl ValueType {
    const ALL: [ValueType; 13] = [
        ValueType::U8,
        ValueType::I8,
        ValueType::U16,
        ValueType::I16,
        ValueType::U32,
        ValueType::I32,
        ValueType::F32,
        ValueType::Bool,
        ValueType::Str,
        ValueType::Array,
        ValueType::U64,
        ValueType::I64,
        ValueType::F64,
    ];

    fn name(self) -> &'static str {
        match self {
            ValueType::U8 => "uint8",
            ValueType::I8 => "int8",
            ValueType::U16 => "uint16",
            ValueType::I16 => "int16",
            ValueType::U32 => "uint32",
            ValueType::I32 => "int32",
            ValueType::F32 => "float32",
            ValueType::Bool => "bool",
            ValueType::Str => "string",
            ValueType::Array => "array",
            ValueType::U64 => "uint64",
            ValueType::I64 => "int64",
            ValueType::F64 => "float64",
        }
    }

    /// The fewest bytes a value of this type takes (its size when fixed).
    fn min_size(self) -> u64 {
        match self {
            ValueType::U8 | ValueType::I8 | ValueType::Bool => 1,
            ValueType::U16 | ValueType::I16 => 2,
            ValueType::U32 | ValueType::I32 | ValueType::F32 => 4,
            ValueType::U64 | ValueType::I64 | ValueType::F64 | ValueType::Str => 8,
            ValueType::Array => 12,
        }
    }

    fn is_fixed(self) -> bool {
        !matches!(self, ValueType::Str | ValueType::Array)
    }

    fn is_integer(self) -> bool {
        matches!(
            self,
            ValueType::U8
                | ValueType::I8
                | ValueType::U16
                | ValueType::I16
                | ValueType::U32
                | ValueType::I32
                | ValueType::U64
                | ValueType::I64
        )
    }
}

/// A counting reader over the file: every read is checked against the bytes left.
struct Reader<'o, R> {
    inner: R,
    offset: u64,
    len: u64,
    origin: &'o str,
}

impl<R: Read> Reader<'_, R> {
    fn error(&self, at: u64, what: &str, msg: impl std::fmt::Display) -> VocabError {
        malformed(format!("{}: GGUF {what} at byte {at}: {msg}", self.origin))
    }

    fn left(&self) -> u64 {
        self.len.saturating_sub(self.offset)
    }

    /// Fails unless `n` more bytes are in the file.
    fn need(&self, n: Option<u64>, what: &str) -> Result<()> {
        match n {
            Some(n) if n <= self.left() => Ok(()),
            _ => Err(self.error(
                self.offset,
                what,
                format!(
                    "the file is truncated or a length is corrupt: {} bytes needed, {} left",
                    n.map_or("more than 2^64".to_string(), |n| n.to_string()),
                    self.left()
                ),
            )),
        }
    }

    fn fill(&mut self, buf: &mut [u8], what: &str) -> Result<()> {
        self.need(Some(buf.len() as u64), what)?;
        self.inner.read_exact(buf).map_err(|e| {
            let msg = if e.kind() == io::ErrorKind::UnexpectedEof {
                "the file ends early".to_string()
            } else {
                e.to_string()
            };
            self.error(self.offset, what, msg)
        })?;
        self.offset += buf.len() as u64;
        Ok(())
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let mut buf = [0u8; N];
        self.fill(&mut buf, what)?;
        Ok(buf)
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        self.array(what).map(u32::from_le_bytes)
    }

    fn u64(&mut self, what: &str) -> Result<u64> {
        self.array(what).map(u64::from_le_bytes)
    }

    fn skip(&mut self, n: u64, what: &str) -> Result<()> {
        self.need(Some(n), what)?;
        let copied = io::copy(&mut (&mut self.inner).take(n), &mut io::sink())
            .map_err(|e| self.error(self.offset, what, e))?;
        if copied != n {
            return Err(self.error(self.offset + copied, what, "the file ends early"));
        }
        self.offset += n;
        Ok(())
    }

    fn value_type(&mut self, what: &str) -> Result<ValueType> {
        let at = self.offset;
        let code = self.u32(what)?;
        ValueType::ALL
            .get(code as usize)
            .copied()
            .ok_or_else(|| self.error(at, what, format!("unknown value type {code}")))
    }

    /// A length-prefixed UTF-8 string.
    fn string(&mut self, what: &str) -> Result<String> {
        let at = self.offset;
        let n = self.u64(what)?;
        self.string_of_len(at, n, what)
    }

    /// The `n` bytes of a string whose length (read at `at`) was `n`, as UTF-8.
    fn string_of_len(&mut self, at: u64, n: u64, what: &str) -> Result<String> {
        self.need(Some(n), what)?;
        let mut buf = vec![0u8; n as usize];
        self.fill(&mut buf, what)?;
        String::from_utf8(buf).map_err(|e| self.error(at, what, format!("invalid UTF-8: {e}")))
    }

    /// An integer of any integer type, as i64.
    fn integer(&mut self, ty: ValueType, what: &str) -> Result<i64> {
        let at = self.offset;
        Ok(match ty {
            ValueType::U8 => self.array::<1>(what)?[0] as i64,
            ValueType::I8 => self.array::<1>(what)?[0] as i8 as i64,
            ValueType::U16 => u16::from_le_bytes(self.array(what)?) as i64,
            ValueType::I16 => i16::from_le_bytes(self.array(what)?) as i64,
            ValueType::U32 => self.u32(what)? as i64,
            ValueType::I32 => i32::from_le_bytes(self.array(what)?) as i64,
            ValueType::I64 => i64::from_le_bytes(self.array(what)?),
            ValueType::U64 => {
                let v = self.u64(what)?;
                i64::try_from(v)
                    .map_err(|_| self.error(at, what, format!("{v} is out of range")))?
            }
            _ => return Err(self.error(at, what, format!("{} is not an integer", ty.name()))),
        })
    }

    /// Reads an array header, checking that `count` elements of `elem` fit in the file.
    fn array_header(&mut self, what: &str) -> Result<(ValueType, u64)> {
        let elem = self.value_type(what)?;
        let count = self.u64(what)?;
        self.need(count.checked_mul(elem.min_size()), what)?;
        Ok((elem, count))
    }

    /// Skips a value of type `ty`, checking its structure.
    fn skip_value(&mut self, ty: ValueType, what: &str, depth: u32) -> Result<()> {
        match ty {
            ValueType::Str => {
                let n = self.u64(what)?;
                self.skip(n, what)
            }
            ValueType::Array => {
                if depth >= MAX_DEPTH {
                    return Err(self.error(self.offset, what, "arrays nested too deep"));
                }
                let (elem, count) = self.array_header(what)?;
                if elem.is_fixed() {
                    self.skip(count * elem.min_size(), what)
                } else {
                    (0..count).try_for_each(|_| self.skip_value(elem, what, depth + 1))
                }
            }
            fixed => self.skip(fixed.min_size(), what),
        }
    }
}

/// The tokenizer keys of a file's metadata, with the byte offset of each value.
#[derive(Default)]
struct Meta {
    model: Option<String>,
    pre: Option<String>,
    tokens: Option<(Vec<String>, u64)>,
    types: Option<(Vec<i64>, u64)>,
    /// BPE merges (`a b`), for tokenizing text.
    merges: Option<Vec<String>>,
    /// SentencePiece scores, for tokenizing text.
    scores: Option<(Vec<f32>, u64)>,
    /// EOS-like keys found: key, id, offset.
    eos: Vec<(&'static str, i64, u64)>,
}

fn read_metadata<R: Read>(r: &mut Reader<'_, R>) -> Result<Meta> {
    let magic = r.array::<4>("header")?;
    if &magic != MAGIC {
        return Err(r.error(0, "header", "the file does not start with \"GGUF\""));
    }
    let version = r.u32("header")?;
    match version {
        2 | 3 => {}
        v if (1..=3).contains(&v.swap_bytes()) => {
            return Err(unsupported(format!(
                "{}: big-endian GGUF files are not supported (version field {v:#x})",
                r.origin
            )))
        }
        v => {
            return Err(unsupported(format!(
                "{}: GGUF version {v} is not supported (versions 2 and 3 are)",
                r.origin
            )))
        }
    }
    let _tensors = r.u64("header")?;
    let count = r.u64("header")?;
    // A key-value takes at least 13 bytes: key length, type, one byte of value.
    r.need(count.checked_mul(13), "metadata key-value count")?;
    let mut meta = Meta::default();
    let mut seen = HashSet::new();
    for _ in 0..count {
        let at = r.offset;
        let key = read_key(r)?;
        if !seen.insert(key.clone()) {
            return Err(r.error(at, "metadata", format!("key {key:?} appears twice")));
        }
        read_value(r, &key, &mut meta)?;
    }
    Ok(meta)
}

fn read_key<R: Read>(r: &mut Reader<'_, R>) -> Result<String> {
    let at = r.offset;
    let n = r.u64("metadata key")?;
    if n > MAX_KEY_LEN {
        return Err(r.error(at, "metadata key", format!("key length {n} is over 65535")));
    }
    r.string_of_len(at, n, "metadata key")
}

fn read_value<R: Read>(r: &mut Reader<'_, R>, key: &str, meta: &mut Meta) -> Result<()> {
    let what = format!("value of key {key:?}");
    let ty_at = r.offset;
    let ty = r.value_type(&what)?;
    let at = r.offset;
    let wrong = |r: &Reader<'_, R>, expected: &str| {
        r.error(
            ty_at,
            &what,
            format!("expected {expected}, found {}", ty.name()),
        )
    };
    match key {
        MODEL_KEY | PRE_KEY => {
            if ty != ValueType::Str {
                return Err(wrong(r, "a string"));
            }
            let s = r.string(&what)?;
            *(if key == MODEL_KEY {
                &mut meta.model
            } else {
                &mut meta.pre
            }) = Some(s);
        }
        TOKENS_KEY => {
            if ty != ValueType::Array {
                return Err(wrong(r, "an array of strings"));
            }
            meta.tokens = Some((read_strings(r, &what)?, at));
        }
        TYPES_KEY => {
            if ty != ValueType::Array {
                return Err(wrong(r, "an array of integers"));
            }
            meta.types = Some((read_integers(r, &what)?, at));
        }
        MERGES_KEY => {
            if ty != ValueType::Array {
                return Err(wrong(r, "an array of strings"));
            }
            meta.merges = Some(read_strings(r, &what)?);
        }
        SCORES_KEY => {
            if ty != ValueType::Array {
                return Err(wrong(r, "an array of float32"));
            }
            meta.scores = Some((read_floats(r, &what)?, at));
        }
        _ => match EOS_KEYS.iter().find(|&&k| k == key) {
            Some(&k) => {
                if !ty.is_integer() {
                    return Err(wrong(r, "an integer"));
                }
                let id = r.integer(ty, &what)?;
                meta.eos.push((k, id, at));
            }
            None => r.skip_value(ty, &what, 0)?,
        },
    }
    Ok(())
}

fn too_many<R: Read>(r: &Reader<'_, R>, count: u64, what: &str) -> Result<()> {
    if count > u64::from(MAX_TOKEN_ID) + 1 {
        return Err(r.error(
            r.offset,
            what,
            format!("{count} elements, more than the supported {MAX_TOKEN_ID} token ids"),
        ));
    }
    Ok(())
}

fn read_strings<R: Read>(r: &mut Reader<'_, R>, what: &str) -> Result<Vec<String>> {
    let at = r.offset;
    let (elem, count) = r.array_header(what)?;
    if elem != ValueType::Str {
        let msg = format!("expected an array of strings, found one of {}", elem.name());
        return Err(r.error(at, what, msg));
    }
    too_many(r, count, what)?;
    let mut out = Vec::with_capacity(count.min(1 << 16) as usize);
    for i in 0..count {
        out.push(r.string(&format!("{what}, element {i},"))?);
    }
    Ok(out)
}

fn read_integers<R: Read>(r: &mut Reader<'_, R>, what: &str) -> Result<Vec<i64>> {
    let at = r.offset;
    let (elem, count) = r.array_header(what)?;
    if !elem.is_integer() {
        let msg = format!(
            "expected an array of integers, found one of {}",
            elem.name()
        );
        return Err(r.error(at, what, msg));
    }
    too_many(r, count, what)?;
    let mut out = Vec::with_capacity(count.min(1 << 16) as usize);
    for _ in 0..count {
        out.push(r.integer(elem, what)?);
    }
    Ok(out)
}

fn read_floats<R: Read>(r: &mut Reader<'_, R>, what: &str) -> Result<Vec<f32>> {
    let at = r.offset;
    let (elem, count) = r.array_header(what)?;
    if elem != ValueType::F32 {
        let msg = format!("expected an array of float32, found one of {}", elem.name());
        return Err(r.error(at, what, msg));
    }
    too_many(r, count, what)?;
    let mut out = Vec::with_capacity(count.min(1 << 16) as usize);
    for _ in 0..count {
        out.push(f32::from_le_bytes(r.array(what)?));
    }
    Ok(out)
}

/// What one id is, by its token type.
enum Kind {
    Text(Vec<u8>),
    Special,
}

/// Bytes of token `id` per llama.cpp's `llama_token_to_piece(special = false)`.
fn classify(family: Family, id: usize, token: &str, ty: i64, origin: &str) -> Result<Kind> {
    Ok(match (ty, family) {
        (1, Family::ByteLevelBpe) => Kind::Text(byte_level::decode_token(token)),
        (1, _) => Kind::Text(token.replace('\u{2581}', " ").into_bytes()),
        (4, _) => Kind::Text(token.as_bytes().to_vec()),
        (6, _) => Kind::Text(vec![byte_token(token).ok_or_else(|| {
            malformed(format!(
                "{origin}: token {id} {token:?} has type 6 (byte) but is not spelled <0xHH>"
            ))
        })?]),
        (0 | 2 | 3 | 5, _) => Kind::Special,
        (t, _) => {
            return Err(malformed(format!(
                "{origin}: {TYPES_KEY}: token {id} {token:?} has type {t}, not one of 0..=6"
            )))
        }
    })
}

fn build(meta: Meta, origin: &str) -> Result<RawVocabulary> {
    let model = meta.model.as_deref().ok_or_else(|| {
        malformed(format!(
            "{origin}: the GGUF metadata has no {MODEL_KEY:?} key: the file holds no tokenizer"
        ))
    })?;
    let family = match model {
        "gpt2" => Family::ByteLevelBpe,
        "llama" => Family::SentencePiece,
        other => {
            return Err(unsupported(format!(
                "{origin}: {MODEL_KEY} is {other:?}; supported tokenizer models are \"gpt2\" \
                 (byte-level BPE) and \"llama\" (SentencePiece)"
            )))
        }
    };
    let (tokens, _) = meta
        .tokens
        .ok_or_else(|| malformed(format!("{origin}: the GGUF metadata has no {TOKENS_KEY:?}")))?;
    if let Some((types, at)) = &meta.types {
        same_count((types.len(), "types"), tokens.len(), TYPES_KEY, *at, origin)?;
    }
    if let Some((scores, at)) = &meta.scores {
        same_count(
            (scores.len(), "scores"),
            tokens.len(),
            SCORES_KEY,
            *at,
            origin,
        )?;
    }
    let model = match family {
        Family::SentencePiece => GgufModel::Spm {
            texts: tokens.clone(),
            scores: meta.scores.map(|(scores, _)| scores),
        },
        _ => GgufModel::Bpe {
            merges: meta.merges,
        },
    };
    let eos = eog_ids(&meta.eos, &tokens, origin)?;
    let mut text = Vec::with_capacity(tokens.len());
    let mut specials = Vec::new();
    let mut added_text = Vec::new();
    for (id, token) in tokens.into_iter().enumerate() {
        let ty = meta.types.as_ref().map_or(1, |(types, _)| types[id]);
        let kind = classify(family, id, &token, ty, origin)?;
        match kind {
            Kind::Text(_) if eos.contains(&(id as u32)) || CONTROL_NAMES.contains(&&*token) => {
                specials.push((id as u32, token))
            }
            // User-defined tokens are llama.cpp's added tokens that are text: listed as such, so
            // `--added-as-special` can name them as for a tokenizer.json.
            Kind::Text(bytes) if ty == 4 => added_text.push((id as u32, token, bytes)),
            Kind::Text(bytes) => text.push((id as u32, bytes)),
            Kind::Special => specials.push((id as u32, token)),
        }
    }
    Ok(RawVocabulary {
        family,
        origin: origin.to_string(),
        text,
        specials,
        added_text,
        // llama.cpp's end-of-generation set, complete (its own names, not WELL_KNOWN_EOS).
        eos: Eos::Ids {
            ids: eos,
            well_known: false,
        },
        source: Source::Gguf {
            pre: meta.pre,
            model,
        },
    })
}

/// Fails unless a per-token array (`key`'s, at byte `at`) has one element per token.
fn same_count(
    (n, what): (usize, &str),
    tokens: usize,
    key: &str,
    at: u64,
    origin: &str,
) -> Result<()> {
    if n == tokens {
        return Ok(());
    }
    Err(malformed(format!(
        "{origin}: GGUF value of key {key:?} at byte {at}: {n} {what} for {tokens} tokens"
    )))
}

/// llama.cpp's end-of-generation ids (see the module documentation): the EOS keys' ids,
/// each checked to be a token of the file, the FIM tokens found by name where their key
/// is absent (every token of such a name: llama.cpp takes the first its hash map yields),
/// and the tokens of [`EOG_NAMES`]. Sorted, distinct.
fn eog_ids(found: &[(&str, i64, u64)], tokens: &[String], origin: &str) -> Result<Vec<u32>> {
    let mut ids = eos_key_ids(found, tokens.len(), origin)?;
    for (key, names) in FIM_KEYS.iter().zip(FIM_NAMES) {
        if found.iter().all(|(k, _, _)| k != key) {
            ids.extend(ids_named(tokens, names));
        }
    }
    ids.extend(ids_named(tokens, EOG_NAMES));
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

/// The ids of the tokens spelled as one of `names`.
fn ids_named<'a>(tokens: &'a [String], names: &'a [&str]) -> impl Iterator<Item = u32> + 'a {
    (tokens.iter().enumerate())
        .filter(|(_, t)| names.contains(&t.as_str()))
        .map(|(id, _)| id as u32)
}

/// The ids of the EOS keys, each checked to be a token of the file.
fn eos_key_ids(found: &[(&str, i64, u64)], n_tokens: usize, origin: &str) -> Result<Vec<u32>> {
    let mut ids = Vec::new();
    for &(key, id, at) in found {
        if id < 0 || id as u64 >= n_tokens as u64 {
            return Err(VocabError::new(
                VocabErrorKind::Eos,
                format!(
                    "{origin}: GGUF value of key {key:?} at byte {at}: id {id} is not a token \
                     (the file has {n_tokens})"
                ),
            ));
        }
        ids.push(id as u32);
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_types_follow_the_specification_numbering() {
        assert_eq!(ValueType::ALL[8], ValueType::Str);
        assert_eq!(ValueType::ALL[9], ValueType::Array);
        assert_eq!(ValueType::ALL[12], ValueType::F64);
    }
}
