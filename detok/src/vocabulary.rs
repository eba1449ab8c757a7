//! [`Vocabulary`]: a real tokenizer seen as exact bytes per token id, with its special tokens
//! and EOS ids.
//!
//! The loaders (`hf`, `gpt2`, `tiktoken`, `tekken`, `gguf`) turn a file into [`RawVocabulary`];
//! [`Vocabulary::assemble`], the one place a `Vocabulary` is built, checks the ids, packs the
//! bytes into one arena (so that `token_bytes` is a slice lookup and loading a 150k-token
//! vocabulary stays cheap) and settles the EOS ids. The tokenizer behind
//! `Vocabulary::tokenize` (feature `tokenize`) is built from the token bytes the first
//! time it is used.

use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;
use std::sync::Arc;
#[cfg(feature = "tokenize")]
use std::sync::OnceLock;

use fstc_core::TokenVocabulary;

#[cfg(feature = "tokenize")]
use crate::engine::Engine;
use crate::error::{io_error, malformed, Result, VocabError, VocabErrorKind};
#[cfg(feature = "tokenize")]
use crate::raw::Source;
use crate::raw::{read, Eos, Family, RawVocabulary, MAX_TOKEN_ID, WELL_KNOWN_EOS};
use crate::tiktoken::TiktokenOptions;

/// Which added tokens that are text [`Vocabulary::with_added_as_special`] makes special.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AddedAsSpecial {
    /// Every added token that is text.
    All,
    /// The added tokens with these names (their content in the tokenizer file).
    Named(Vec<String>),
}

/// A tokenizer's vocabulary as exact bytes per token id.
///
/// Ids run over `0..len()`. Text tokens have their exact bytes (a byte-level token may hold
/// part of a UTF-8 character), and so do added tokens that are not special (the bytes the
/// tokenizer's own decoder gives them: Qwen's `<think>`, Gemma's newline runs); special
/// tokens and ids the file does not define (holes) have none. EOS ids are a set of special
/// ids. Cloning is cheap for the tokenizer part (shared) and copies the byte arena.
#[derive(Clone)]
pub struct Vocabulary {
    family: Family,
    origin: Arc<str>,
    /// `offsets[id]..offsets[id + 1]` is token `id` in `bytes`; empty means no text.
    offsets: Vec<u32>,
    bytes: Vec<u8>,
    /// Sorted by id, one entry per id.
    specials: Vec<(u32, String)>,
    /// Added tokens that are text, with their names; sorted by id, one entry per id.
    added_text: Vec<(u32, String)>,
    by_name: HashMap<String, u32>,
    eos: Vec<u32>,
    /// What [`Vocabulary::tokenize`] builds its tokenizer from, and the tokenizer once built.
    #[cfg(feature = "tokenize")]
    source: Arc<Source>,
    #[cfg(feature = "tokenize")]
    engine: Arc<OnceLock<Result<Engine>>>,
}

impl fmt::Debug for Vocabulary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Vocabulary")
            .field("origin", &self.origin)
            .field("family", &self.family)
            .field("len", &self.len())
            .field("specials", &self.specials.len())
            .field("added_text", &self.added_text.len())
            .field("eos", &self.eos)
            .finish()
    }
}

impl Vocabulary {
    /// Loads any supported tokenizer file, telling the format from the content (not the name):
    /// a JSON object with a `"model": {...}` member is a HuggingFace tokenizer.json (see
    /// [`Vocabulary::from_tokenizer_json`]), one with `"vocab": [...]` and `"config": {...}`
    /// is Mistral's tekken.json ([`Vocabulary::from_tekken`]), any other JSON object is a
    /// GPT-2 encoder.json
    /// ([`Vocabulary::from_gpt2_encoder`]), anything else is read as a tiktoken rank file
    /// without special tokens ([`Vocabulary::from_tiktoken`]). A file starting with `GGUF` is
    /// a GGUF model ([`Vocabulary::from_gguf`]), of which only the metadata is read.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Vocabulary> {
        let path = path.as_ref();
        if crate::gguf::has_magic(path)? {
            return Vocabulary::from_gguf(path);
        }
        let data = read(path)?;
        let first = data.iter().copied().find(|b| !b.is_ascii_whitespace());
        let raw = if first == Some(b'[') {
            // Neither JSON format is an array; let the tokenizer.json parser say so.
            crate::hf::load(path, data)?
        } else if first == Some(b'{') {
            if has_model_object(&data) {
                crate::hf::load(path, data)?
            } else if looks_like_tekken(&data) {
                crate::tekken::load(path, &data)?
            } else {
                crate::gpt2::load(path, &data)?
            }
        } else {
            crate::tiktoken::load(path, &data, &TiktokenOptions::default())?
        };
        Vocabulary::assemble(raw)
    }

    /// Loads a HuggingFace `tokenizer.json` (byte-level BPE, or SentencePiece-style BPE or
    /// Unigram).
    ///
    /// An entry of `added_tokens` marked `"special": true` becomes a special token (no text);
    /// one marked `"special": false` is text: the bytes the tokenizer's decoder gives its
    /// content (see [`Vocabulary::with_added_as_special`] to make such tokens special). EOS:
    /// if a `tokenizer_config.json` sits beside the file and has an `eos_token` (a string or
    /// `{"content": ...}`), that token alone; otherwise every special token named in
    /// [`WELL_KNOWN_EOS`].
    pub fn from_tokenizer_json(path: impl AsRef<Path>) -> Result<Vocabulary> {
        let path = path.as_ref();
        Vocabulary::assemble(crate::hf::load(path, read(path)?)?)
    }

    /// Loads GPT-2's `encoder.json`. `<|endoftext|>` is special and the EOS. The `vocab.bpe`
    /// beside it is only read by `Vocabulary::tokenize`.
    pub fn from_gpt2_encoder(path: impl AsRef<Path>) -> Result<Vocabulary> {
        let path = path.as_ref();
        Vocabulary::assemble(crate::gpt2::load(path, &read(path)?)?)
    }

    /// Loads Mistral's `tekken.json` (`mistral-common`'s format).
    ///
    /// Ids `0..default_num_special_tokens` are special tokens (no text, control or not, as in
    /// `mistral-common`'s decoding), named by the file's `special_tokens` (or, for files of
    /// format v7 and older without that list, `mistral-common`'s 20 names) and then
    /// `<SPECIAL_i>`; the token of rank `r` is id `default_num_special_tokens + r`, up to
    /// `default_vocab_size` ids. EOS: `</s>`. `Vocabulary::tokenize` splits by the file's
    /// pattern and merges by rank, as tiktoken does.
    pub fn from_tekken(path: impl AsRef<Path>) -> Result<Vocabulary> {
        let path = path.as_ref();
        Vocabulary::assemble(crate::tekken::load(path, &read(path)?)?)
    }

    /// Loads a tiktoken rank file (lines `base64(token bytes) rank`, rank = id).
    ///
    /// Rank files carry neither special tokens nor the pre-tokenization pattern, so both come
    /// from `options`. The vocabulary has `max rank + 1` ids, or more if a special id is
    /// higher; EOS ids are the specials named in [`WELL_KNOWN_EOS`].
    pub fn from_tiktoken(path: impl AsRef<Path>, options: &TiktokenOptions) -> Result<Vocabulary> {
        let path = path.as_ref();
        Vocabulary::assemble(crate::tiktoken::load(path, &read(path)?, options)?)
    }

    /// Loads the tokenizer of a GGUF model file (llama.cpp's format, versions 2 and 3),
    /// reading only its header and metadata.
    ///
    /// `tokenizer.ggml.model` must be `gpt2` (byte-level BPE) or `llama` (SentencePiece).
    /// Bytes per id are llama.cpp's (`llama_token_to_piece` with `special = false`): normal
    /// and user-defined tokens are text, `llama` byte tokens `<0xHH>` are one byte, control,
    /// unknown and unused tokens are special. EOS: the ids of `tokenizer.ggml.eos_token_id`,
    /// `eot_token_id` and `eom_token_id` (made special if the file types them as text), plus
    /// every special token named in [`WELL_KNOWN_EOS`] (llama.cpp ends generation on those
    /// too). `Vocabulary::tokenize` works for byte-level BPE files whose
    /// `tokenizer.ggml.pre` is one of llama.cpp's common names (`gpt-2`, `llama-bpe`,
    /// `qwen2`, `smollm`, ...: module `gguf_pre`) and for SentencePiece files (by their
    /// scores, as llama.cpp: module `gguf_spm`), and is an error naming the reason otherwise.
    pub fn from_gguf(path: impl AsRef<Path>) -> Result<Vocabulary> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|e| io_error(path, e))?;
        let len = file.metadata().map_err(|e| io_error(path, e))?.len();
        Vocabulary::from_gguf_reader(BufReader::new(file), len, &path.display().to_string())
    }

    /// [`Vocabulary::from_gguf`] on any reader positioned at the start of a GGUF file of
    /// `len` bytes (lengths and counts are checked against `len`); `origin` names it in
    /// errors.
    pub fn from_gguf_reader(reader: impl Read, len: u64, origin: &str) -> Result<Vocabulary> {
        Vocabulary::assemble(crate::gguf::load(reader, len, origin)?)
    }

    /// The one place a `Vocabulary` is built: checks ids, packs the bytes, settles EOS.
    fn assemble(raw: RawVocabulary) -> Result<Vocabulary> {
        let RawVocabulary {
            family,
            origin,
            text,
            added_text,
            specials,
            eos,
            source,
        } = raw;
        let len = id_space(&origin, &text, &added_text, &specials)?;
        let (specials, added_text) = check_added(&origin, specials, added_text)?;

        let mut slots: Vec<Option<Vec<u8>>> = vec![None; len];
        for (id, bytes) in text {
            let slot = &mut slots[id as usize];
            if let Some(prev) = slot {
                return Err(malformed(format!(
                    "{origin}: id {id} is given to two tokens, \"{}\" and \"{}\"",
                    prev.escape_ascii(),
                    bytes.escape_ascii()
                )));
            }
            *slot = Some(bytes);
        }
        let mut added_names = Vec::with_capacity(added_text.len());
        for (id, name, bytes) in added_text {
            // An added token with empty content has no text, like a hole.
            slots[id as usize] = Some(bytes).filter(|b| !b.is_empty());
            added_names.push((id, name));
        }
        for &(id, _) in &specials {
            slots[id as usize] = None;
        }
        let (offsets, bytes) = pack(&origin, &slots)?;

        let mut by_name = HashMap::with_capacity(specials.len() + added_names.len());
        for (id, name) in specials.iter().chain(&added_names) {
            let lowest = by_name.entry(name.clone()).or_insert(*id);
            *lowest = (*lowest).min(*id);
        }
        let mut vocab = Vocabulary {
            family,
            origin: origin.into(),
            offsets,
            bytes,
            specials,
            added_text: added_names,
            by_name,
            eos: Vec::new(),
            #[cfg(feature = "tokenize")]
            source: Arc::new(source),
            #[cfg(feature = "tokenize")]
            engine: Arc::new(OnceLock::new()),
        };
        #[cfg(not(feature = "tokenize"))]
        drop(source);
        vocab.eos = vocab.resolve_eos(eos);
        Ok(vocab)
    }

    /// The EOS ids the file names, sorted and distinct.
    fn resolve_eos(&self, eos: Eos) -> Vec<u32> {
        let (mut ids, well_known) = match eos {
            // The loader made the name a special token, so it has an id.
            Eos::Named(name) => match self.token_id(&name) {
                Some(id) => (vec![id], false),
                None => (Vec::new(), true),
            },
            Eos::Ids { ids, well_known } => (ids, well_known),
        };
        if well_known {
            ids.extend(
                (self.specials.iter())
                    .filter(|(_, name)| WELL_KNOWN_EOS.contains(&name.as_str()))
                    .map(|&(id, _)| id),
            );
        }
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Makes added tokens that are text special (no text), for users who want to keep a
    /// constraint from producing them: e.g. Qwen's `<think>` or Gemma's `<table>` as text are
    /// then only spelled by ordinary tokens (or not at all), and the ids can serve as EOS.
    ///
    /// Fails if a name is neither an added token that is text nor a special token. Token
    /// bytes change, so the [fingerprint](Vocabulary::fingerprint) does too: an automaton
    /// compiled with one choice is refused with the other. `Vocabulary::tokenize` then no
    /// longer matches these tokens in text (where the tokenizer's model has the same token,
    /// as Gemma's newline runs, tokenizing such text fails saying which special token came
    /// out).
    pub fn with_added_as_special(mut self, which: &AddedAsSpecial) -> Result<Vocabulary> {
        let ids: Vec<u32> = match which {
            AddedAsSpecial::All => self.added_text.iter().map(|&(id, _)| id).collect(),
            AddedAsSpecial::Named(names) => self.added_ids_named(names)?,
        };
        if ids.is_empty() {
            return Ok(self);
        }
        let mut special = vec![false; self.len()];
        for &id in &ids {
            special[id as usize] = true;
        }
        let (moved, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.added_text)
            .into_iter()
            .partition(|&(id, _)| special[id as usize]);
        self.added_text = kept;
        self.specials.extend(moved);
        self.specials.sort_by_key(|&(id, _)| id);
        let slots: Vec<Option<Vec<u8>>> = (0..self.len() as u32)
            .map(|id| {
                let text = self.token_bytes(id).filter(|_| !special[id as usize]);
                text.map(<[u8]>::to_vec)
            })
            .collect();
        (self.offsets, self.bytes) = pack(&self.origin, &slots)?;
        // The tokenizer matches added tokens that are text; these no longer are.
        self.forget_tokenizer();
        Ok(self)
    }

    /// Gives the special tokens called `names` their name as text, so that a constraint can
    /// spell them: Llama 3's `<|python_tag|>` as a structural tag's trigger is then matched
    /// by the model's own token (as by ordinary tokens spelling the same bytes). The inverse
    /// of [`Vocabulary::with_added_as_special`], with the same change of fingerprint.
    ///
    /// Fails on a name that is an EOS id (EOS must stay special) or is no token at all; a
    /// name that is text already is left as it is.
    pub fn with_special_as_text(mut self, names: &[String]) -> Result<Vocabulary> {
        let mut text = vec![false; self.len()];
        for name in names {
            match self.specials.iter().find(|(_, n)| n == name) {
                Some(&(id, _)) if self.eos.contains(&id) => {
                    return Err(VocabError::new(
                        VocabErrorKind::AddedToken,
                        format!(
                            "{name:?} (id {id}) is an EOS id of {}: it stays special",
                            self.origin
                        ),
                    ))
                }
                Some(&(id, _)) => text[id as usize] = true,
                None if self.added_text.iter().any(|(_, n)| n == name) => {}
                None => {
                    return Err(VocabError::new(
                        VocabErrorKind::AddedToken,
                        format!("{name:?} is not a special token of {}", self.origin),
                    ))
                }
            }
        }
        if !text.contains(&true) {
            return Ok(self);
        }
        let (moved, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.specials)
            .into_iter()
            .partition(|&(id, _)| text[id as usize]);
        self.specials = kept;
        let slots: Vec<Option<Vec<u8>>> = (0..self.len() as u32)
            .map(|id| match moved.binary_search_by_key(&id, |&(i, _)| i) {
                Ok(i) => Some(moved[i].1.as_bytes().to_vec()),
                Err(_) => self.token_bytes(id).map(<[u8]>::to_vec),
            })
            .collect();
        (self.offsets, self.bytes) = pack(&self.origin, &slots)?;
        self.added_text.extend(moved);
        self.added_text.sort_by_key(|&(id, _)| id);
        // The tokenizer matches added tokens that are text; these now are.
        self.forget_tokenizer();
        Ok(self)
    }

    /// Drops the tokenizer built so far (the next `tokenize` builds it for the new token
    /// kinds); nothing to drop without the `tokenize` feature.
    fn forget_tokenizer(&mut self) {
        #[cfg(feature = "tokenize")]
        {
            self.engine = Arc::new(OnceLock::new());
        }
    }

    /// The ids of the added tokens that are text called `names`; names of special tokens are
    /// skipped (they are special already), any other name is an error.
    fn added_ids_named(&self, names: &[String]) -> Result<Vec<u32>> {
        let mut ids = Vec::with_capacity(names.len());
        for name in names {
            let found = self.added_text.iter().find(|(_, n)| n == name);
            match found {
                Some(&(id, _)) => ids.push(id),
                None if self.specials.iter().any(|(_, n)| n == name) => {}
                None => {
                    let known: Vec<&str> = self
                        .added_text
                        .iter()
                        .take(8)
                        .map(|(_, n)| n.as_str())
                        .collect();
                    return Err(VocabError::new(
                        VocabErrorKind::AddedToken,
                        format!(
                            "{name:?} is not an added token of {} (its added tokens that are \
                             text: {} in all{}{known:?})",
                            self.origin,
                            self.added_text.len(),
                            if known.is_empty() { "" } else { ", first " },
                        ),
                    ));
                }
            }
        }
        Ok(ids)
    }

    /// Replaces the EOS ids (sorted, duplicates dropped).
    ///
    /// Fails if an id is outside `0..len()` or is a text token: EOS must be a token that text
    /// can never reach. An empty list is allowed (an automaton then never finishes).
    ///
    /// A tiktoken rank file names no special tokens (they live in the model's code, e.g.
    /// cl100k's `<|endoftext|>` is 100257, past the ranks), so for that family an EOS id past
    /// the ranks extends the id space with special ids named `<|eos:ID|>`.
    pub fn with_eos_ids(mut self, ids: Vec<u32>) -> Result<Vocabulary> {
        let mut ids = ids;
        if self.family == Family::Tiktoken {
            self.extend_with_specials(&ids);
        }
        for &id in &ids {
            if id as usize >= self.len() {
                return Err(VocabError::new(
                    VocabErrorKind::Eos,
                    format!(
                        "EOS id {id} is out of range: {} has ids 0..{}",
                        self.origin,
                        self.len()
                    ),
                ));
            }
            if let Some(bytes) = self.token_bytes(id) {
                let hint = if self.added_text_name(id).is_some() {
                    " (it is an added token that is text; make it special first)"
                } else {
                    ""
                };
                return Err(VocabError::new(
                    VocabErrorKind::Eos,
                    format!(
                        "EOS id {id} is the text token \"{}\" of {}; EOS must be a special \
                         token{hint}",
                        bytes.escape_ascii(),
                        self.origin
                    ),
                ));
            }
        }
        ids.sort_unstable();
        ids.dedup();
        self.eos = ids;
        Ok(self)
    }

    /// Adds special ids for the `ids` past `len()` (up to [`MAX_TOKEN_ID`]), ids between them
    /// becoming holes.
    fn extend_with_specials(&mut self, ids: &[u32]) {
        let old_len = self.len() as u32;
        let Some(&max) = ids.iter().filter(|&&id| id <= MAX_TOKEN_ID).max() else {
            return;
        };
        if max < old_len {
            return;
        }
        let end = *self.offsets.last().expect("offsets has len + 1 entries");
        self.offsets.resize(max as usize + 2, end);
        // Every existing special id is below `old_len`, so pushing sorted new ids keeps
        // `specials` sorted.
        let mut new: Vec<u32> = ids
            .iter()
            .copied()
            .filter(|id| (old_len..=max).contains(id))
            .collect();
        new.sort_unstable();
        new.dedup();
        for id in new {
            let name = format!("<|eos:{id}|>");
            self.by_name.insert(name.clone(), id);
            self.specials.push((id, name));
        }
    }

    /// How the tokenizer writes token bytes.
    pub fn family(&self) -> Family {
        self.family
    }

    /// Special tokens (no text) with their names, by increasing id.
    pub fn special_tokens(&self) -> impl Iterator<Item = (u32, &str)> + '_ {
        self.specials.iter().map(|(id, name)| (*id, name.as_str()))
    }

    /// Added tokens that are text (`"special": false` in a tokenizer.json), with their
    /// names, by increasing id. They have bytes like any text token.
    pub fn added_text_tokens(&self) -> impl Iterator<Item = (u32, &str)> + '_ {
        self.added_text
            .iter()
            .map(|(id, name)| (*id, name.as_str()))
    }

    /// The name of `id` if it is an added token that is text.
    pub fn added_text_name(&self, id: u32) -> Option<&str> {
        let i = self
            .added_text
            .binary_search_by_key(&id, |&(i, _)| i)
            .ok()?;
        Some(&self.added_text[i].1)
    }

    /// What the vocabulary holds, in one line: family, ids, text tokens, special tokens and
    /// added tokens that are text, holes, EOS ids.
    pub fn summary(&self) -> String {
        let text = (0..self.len() as u32)
            .filter(|&id| self.token_bytes(id).is_some())
            .count();
        let holes = self.len() - text - self.specials.len();
        let eos: Vec<String> = self.eos.iter().map(u32::to_string).collect();
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        format!(
            "{:?}, {} ids: {text} with text ({}), {} without text, {}; EOS ids {}",
            self.family,
            self.len(),
            plural(
                self.added_text.len(),
                "of them an added token",
                "of them added tokens"
            ),
            plural(self.specials.len(), "special token", "special tokens"),
            plural(holes, "hole", "holes"),
            if eos.is_empty() {
                "none".to_string()
            } else {
                eos.join(",")
            }
        )
    }

    /// The id of the special or added token called `name` (the lowest, if two share a name).
    pub fn token_id(&self, name: &str) -> Option<u32> {
        self.by_name.get(name).copied()
    }

    /// The name of special token `id`, or `None` if `id` is not a special token.
    pub fn special_name(&self, id: u32) -> Option<&str> {
        let i = self.specials.binary_search_by_key(&id, |&(i, _)| i).ok()?;
        Some(&self.specials[i].1)
    }

    /// The bytes a token sequence spells: what the model wrote. Special tokens and holes
    /// spell nothing.
    pub fn detokenize(&self, tokens: &[u32]) -> Vec<u8> {
        let mut text = Vec::new();
        for &token in tokens {
            text.extend_from_slice(self.token_bytes(token).unwrap_or_default());
        }
        text
    }

    /// The vocabulary fingerprint stored in compiled automata ([`fstc_core::fingerprint`]).
    pub fn fingerprint(&self) -> u64 {
        fstc_core::fingerprint(self)
    }

    /// The file the vocabulary was loaded from.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Tokenizes `text` the way the tokenizer does, with no BOS or other added tokens.
    ///
    /// The result spells `text` exactly: the concatenated bytes of the tokens are the bytes
    /// of `text`. SentencePiece's prepended `▁` is turned off; added tokens are not matched
    /// in the text (it is all text). If the tokenizer cannot spell the text exactly (an
    /// unknown character without byte fallback, a normalizer that changes it, a `▁` in a
    /// SentencePiece text) this is an error saying where. The tokenizer is built on the
    /// first call (for a tokenizer.json this parses the file again). Needs the `tokenize`
    /// feature (on by default), which brings in the `tokenizers` crate.
    #[cfg(feature = "tokenize")]
    pub fn tokenize(&self, text: &str) -> Result<Vec<u32>> {
        let engine = self
            .engine
            .get_or_init(|| {
                let added_text: Vec<u32> = self.added_text.iter().map(|&(id, _)| id).collect();
                Engine::build(&self.source, self, &added_text, &self.origin)
            })
            .as_ref()
            .map_err(Clone::clone)?;
        let ids = engine.encode(text, &self.origin)?;
        self.check_spelling(text, &ids)?;
        Ok(ids)
    }

    #[cfg(feature = "tokenize")]
    fn check_spelling(&self, text: &str, ids: &[u32]) -> Result<()> {
        let text = text.as_bytes();
        let mut pos = 0usize;
        let fail = |msg: String| {
            Err(VocabError::new(
                VocabErrorKind::Tokenize,
                format!(
                    "{}: the tokenizer cannot spell this text exactly: {msg}",
                    self.origin
                ),
            ))
        };
        for &id in ids {
            let Some(bytes) = self.token_bytes(id) else {
                let what = match self.special_name(id) {
                    Some(name) => format!("special token {name:?}"),
                    None => "an id with no token".to_string(),
                };
                return fail(format!(
                    "at byte {pos} it gives token {id}, {what}, which has no text"
                ));
            };
            let end = pos + bytes.len();
            if text.get(pos..end) != Some(bytes) {
                let here = &text[pos..end.min(text.len())];
                return fail(format!(
                    "at byte {pos} it gives token {id} = \"{}\" where the text has \"{}\" \
                     (a normalizer changes the text, or the text holds a character the \
                     tokenizer uses as a marker)",
                    bytes.escape_ascii(),
                    here.escape_ascii()
                ));
            }
            pos = end;
        }
        if pos != text.len() {
            return fail(format!("its tokens stop at byte {pos} of {}", text.len()));
        }
        Ok(())
    }
}

impl TokenVocabulary for Vocabulary {
    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    fn token_bytes(&self, id: u32) -> Option<&[u8]> {
        let i = id as usize;
        let start = *self.offsets.get(i)? as usize;
        let end = *self.offsets.get(i + 1)? as usize;
        (end > start).then(|| &self.bytes[start..end])
    }

    fn eos_ids(&self) -> &[u32] {
        &self.eos
    }
}

/// The number of ids: one past the largest id of any token. Fails on an id above
/// [`MAX_TOKEN_ID`].
fn id_space(
    origin: &str,
    text: &[(u32, Vec<u8>)],
    added_text: &[(u32, String, Vec<u8>)],
    specials: &[(u32, String)],
) -> Result<usize> {
    let ids = (text.iter().map(|(id, _)| id))
        .chain(added_text.iter().map(|(id, _, _)| id))
        .chain(specials.iter().map(|(id, _)| id));
    let mut len = 0usize;
    for &id in ids {
        if id > MAX_TOKEN_ID {
            return Err(malformed(format!(
                "{origin}: token id {id} is above the supported maximum {MAX_TOKEN_ID}"
            )));
        }
        len = len.max(id as usize + 1);
    }
    Ok(len)
}

/// Sorts the specials and added tokens that are text by id (exact repeats dropped) and
/// checks that no id is given to two of them.
#[allow(clippy::type_complexity)]
fn check_added(
    origin: &str,
    mut specials: Vec<(u32, String)>,
    mut added_text: Vec<(u32, String, Vec<u8>)>,
) -> Result<(Vec<(u32, String)>, Vec<(u32, String, Vec<u8>)>)> {
    specials.sort_by_key(|&(id, _)| id);
    specials.dedup();
    added_text.sort_by_key(|&(id, _, _)| id);
    added_text.dedup();
    let mut all: Vec<(u32, &str)> = (specials.iter().map(|(id, n)| (*id, n.as_str())))
        .chain(added_text.iter().map(|(id, n, _)| (*id, n.as_str())))
        .collect();
    all.sort_unstable();
    if let Some(w) = all.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(malformed(format!(
            "{origin}: id {} is given to two added tokens, {:?} and {:?}",
            w[0].0, w[0].1, w[1].1
        )));
    }
    Ok((specials, added_text))
}

/// Packs the bytes of every id into one arena: `offsets[id]..offsets[id + 1]` is token `id`.
fn pack(origin: &str, slots: &[Option<Vec<u8>>]) -> Result<(Vec<u32>, Vec<u8>)> {
    let total: usize = slots.iter().flatten().map(Vec::len).sum();
    if u32::try_from(total).is_err() {
        return Err(malformed(format!(
            "{origin}: the tokens hold {total} bytes in all, more than 4 GiB"
        )));
    }
    let mut bytes = Vec::with_capacity(total);
    let mut offsets = Vec::with_capacity(slots.len() + 1);
    offsets.push(0u32);
    for slot in slots {
        if let Some(b) = slot {
            bytes.extend_from_slice(b);
        }
        offsets.push(bytes.len() as u32);
    }
    Ok((offsets, bytes))
}

/// Whether a JSON document has a `"model"` key whose value is an object: true of every
/// tokenizer.json, false of an encoder.json (whose values are all numbers).
fn has_model_object(data: &[u8]) -> bool {
    has_key_opening(data, b"\"model\"", b'{')
}

/// Whether a JSON document looks like a tekken.json: a `"vocab"` key whose value is a list
/// and a `"config"` key whose value is an object (a tokenizer.json's vocabulary sits inside
/// `"model"`, which is checked first; an encoder.json's values are numbers).
fn looks_like_tekken(data: &[u8]) -> bool {
    has_key_opening(data, b"\"vocab\"", b'[') && has_key_opening(data, b"\"config\"", b'{')
}

/// Whether `key` (quoted) occurs followed by `:` and a value starting with `open`.
fn has_key_opening(data: &[u8], key: &[u8], open: u8) -> bool {
    let mut from = 0;
    while let Some(i) = find(&data[from..], key) {
        let rest = &data[from + i + key.len()..];
        let mut it = rest.iter().copied().skip_while(u8::is_ascii_whitespace);
        if it.next() == Some(b':') && it.find(|b| !b.is_ascii_whitespace()) == Some(open) {
            return true;
        }
        from += i + key.len();
    }
    false
}

/// Substring search; memchr's, since a tekken.json or encoder.json is scanned whole (19 MB
/// for Mistral's).
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_tokenizer_json_from_encoder_json() {
        assert!(has_model_object(
            br#"{"version": "1.0", "model" : { "type": "BPE" }}"#
        ));
        // GPT-2 has a token spelled "model"; its value is a number.
        assert!(!has_model_object(
            r#"{"model": 19849, "Ġmodel": 2746}"#.as_bytes()
        ));
        assert!(!has_model_object(br#"{"a\"model\"": 1}"#));
    }

    #[test]
    fn vocabulary_can_be_shared_across_threads() {
        fn check<T: Send + Sync + Clone>() {}
        check::<Vocabulary>();
    }
}
