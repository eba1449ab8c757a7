//! Mistral's `tekken.json` (the format of the `mistral-common` package, read by vLLM and
//! SGLang for Mistral models).
//!
//! The file is a JSON object: `vocab`, a list of `{rank, token_bytes (base64), token_str}` in
//! rank order; `special_tokens`, a list of `{rank, token_str, is_control}` (absent from files
//! of format v7 and older, which get a fixed list of 20 names); `config` with `pattern` (the
//! split pattern), `default_vocab_size` (all ids) and `default_num_special_tokens` (N).
//! Ids `0..N` are the special tokens, listed ones first, then fillers `<SPECIAL_i>`; the
//! ordinary token of rank `r` has id `N + r`, and only the first `default_vocab_size - N`
//! entries of `vocab` are used. No special token has text, control or not: `mistral-common`
//! decodes none of them into text and never produces one from text. Tokenizing is tiktoken's
//! byte-pair encoding by rank ([`crate::tiktoken::RankEncoder`]; ids keep the rank order).

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

use base64::Engine as _;

use crate::error::{malformed, unsupported, Result};
use crate::raw::{Eos, Family, RawVocabulary, Source, MAX_TOKEN_ID};

#[derive(serde::Deserialize)]
struct TekkenFile<'a> {
    #[serde(borrow)]
    vocab: Vec<Entry<'a>>,
    #[serde(default)]
    special_tokens: Option<Vec<SpecialEntry>>,
    config: Config,
}

#[derive(serde::Deserialize)]
struct Entry<'a> {
    rank: u32,
    /// Borrowed from the file unless escaped (a writer may escape base64's `/` as `\/`).
    #[serde(borrow)]
    token_bytes: Cow<'a, str>,
}

#[derive(serde::Deserialize)]
struct SpecialEntry {
    rank: u32,
    token_str: String,
    /// Required as in `mistral-common`; every special token is without text either way.
    #[allow(dead_code)]
    is_control: bool,
}

#[derive(serde::Deserialize)]
struct Config {
    pattern: String,
    default_vocab_size: u32,
    default_num_special_tokens: u32,
    #[serde(default)]
    version: Option<String>,
}

/// The special tokens of files of format v7 and older that list none (`mistral-common`'s
/// names for them), ids 0..20.
const LEGACY_SPECIALS: [&str; 20] = [
    "<unk>",
    "<s>",
    "</s>",
    "[INST]",
    "[/INST]",
    "[AVAILABLE_TOOLS]",
    "[/AVAILABLE_TOOLS]",
    "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]",
    "[TOOL_CALLS]",
    "[IMG]",
    "<pad>",
    "[IMG_BREAK]",
    "[IMG_END]",
    "[PREFIX]",
    "[MIDDLE]",
    "[SUFFIX]",
    "[SYSTEM_PROMPT]",
    "[/SYSTEM_PROMPT]",
    "[TOOL_CONTENT]",
];

pub(crate) fn load(path: &Path, data: &[u8]) -> Result<RawVocabulary> {
    let origin = path.display().to_string();
    let file: TekkenFile = serde_json::from_slice(data)
        .map_err(|e| malformed(format!("{origin}: not a valid tekken.json: {e}")))?;
    let config = &file.config;
    let (size, num_special) = (config.default_vocab_size, config.default_num_special_tokens);
    if size > MAX_TOKEN_ID + 1 {
        return Err(malformed(format!(
            "{origin}: config.default_vocab_size {size} is above the supported maximum {}",
            MAX_TOKEN_ID + 1
        )));
    }
    if num_special > size {
        return Err(malformed(format!(
            "{origin}: config.default_num_special_tokens {num_special} is more than \
             config.default_vocab_size {size}"
        )));
    }
    let ordinary = (size - num_special) as usize;
    if file.vocab.len() < ordinary {
        return Err(malformed(format!(
            "{origin}: vocab has {} entries, fewer than default_vocab_size - \
             default_num_special_tokens = {ordinary}",
            file.vocab.len()
        )));
    }
    let specials = special_names(&origin, &file, num_special)?;
    let text = ordinary_tokens(&origin, &file.vocab[..ordinary], num_special)?;
    let splitter = crate::raw::splitter(&config.pattern).map_err(|e| {
        unsupported(format!(
            "{origin}: bad config.pattern {:?}: {e}",
            config.pattern
        ))
    })?;
    Ok(RawVocabulary {
        family: Family::Tekken,
        origin,
        text,
        added_text: Vec::new(),
        specials,
        eos: Eos::Named("</s>".to_string()),
        source: Source::Tiktoken { splitter },
    })
}

/// The special tokens, id = position: the file's list (or the legacy one) then fillers.
fn special_names(origin: &str, file: &TekkenFile, num_special: u32) -> Result<Vec<(u32, String)>> {
    let listed: Vec<String> = match &file.special_tokens {
        Some(list) => {
            for (i, t) in list.iter().enumerate() {
                if t.rank as usize != i {
                    return Err(malformed(format!(
                        "{origin}: special_tokens[{i}] ({:?}) has rank {}; the special tokens \
                         must have ranks 0, 1, 2, ... in order",
                        t.token_str, t.rank
                    )));
                }
            }
            list.iter().map(|t| t.token_str.clone()).collect()
        }
        None => {
            let version = file.config.version.as_deref();
            let legacy = version
                .and_then(|v| v.strip_prefix('v'))
                .and_then(|n| n.parse::<u32>().ok())
                .is_some_and(|n| n <= 7);
            if !legacy {
                return Err(malformed(format!(
                    "{origin}: no special_tokens, which only files of config.version v7 or \
                     older may omit (version {version:?})"
                )));
            }
            LEGACY_SPECIALS.iter().map(|s| s.to_string()).collect()
        }
    };
    if listed.len() > num_special as usize {
        return Err(malformed(format!(
            "{origin}: {} special tokens, more than config.default_num_special_tokens {num_special}",
            listed.len()
        )));
    }
    let mut names: Vec<(u32, String)> = listed
        .into_iter()
        .enumerate()
        .map(|(i, n)| (i as u32, n))
        .collect();
    let listed_len = names.len() as u32;
    names.extend((listed_len..num_special).map(|i| (i, format!("<SPECIAL_{i}>"))));
    let mut seen: HashMap<&str, u32> = HashMap::with_capacity(names.len());
    for (id, name) in &names {
        if let Some(prev) = seen.insert(name.as_str(), *id) {
            return Err(malformed(format!(
                "{origin}: special tokens {prev} and {id} are both named {name:?}"
            )));
        }
    }
    Ok(names)
}

/// The ordinary tokens `entries` (the used part of `vocab`) with ids `num_special + rank`.
fn ordinary_tokens(
    origin: &str,
    entries: &[Entry],
    num_special: u32,
) -> Result<Vec<(u32, Vec<u8>)>> {
    let b64 = &base64::engine::general_purpose::STANDARD;
    let mut text = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        if entry.rank as usize != i {
            return Err(malformed(format!(
                "{origin}: vocab[{i}] has rank {}; ranks must be 0, 1, 2, ... in order",
                entry.rank
            )));
        }
        let bytes = b64.decode(entry.token_bytes.as_bytes()).map_err(|e| {
            malformed(format!(
                "{origin}: vocab[{i}]: bad base64 token_bytes {:?}: {e}",
                entry.token_bytes
            ))
        })?;
        if i < 256 && bytes != [i as u8] {
            return Err(malformed(format!(
                "{origin}: vocab[{i}] is \"{}\"; ranks 0..256 must be the single bytes in order",
                bytes.escape_ascii()
            )));
        }
        if bytes.is_empty() {
            return Err(malformed(format!("{origin}: vocab[{i}] is empty")));
        }
        text.push((num_special + i as u32, bytes));
    }
    let mut seen: HashMap<&[u8], u32> = HashMap::with_capacity(text.len());
    for (rank, (_, bytes)) in text.iter().enumerate() {
        if let Some(prev) = seen.insert(bytes.as_slice(), rank as u32) {
            return Err(malformed(format!(
                "{origin}: vocab[{rank}] \"{}\" repeats vocab[{prev}]",
                bytes.escape_ascii()
            )));
        }
    }
    Ok(text)
}
