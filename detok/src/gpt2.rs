//! GPT-2's `encoder.json` (+ `vocab.bpe`) loader.
//!
//! encoder.json maps byte-level token strings to ids; `<|endoftext|>` is its one special
//! token and the EOS. vocab.bpe (the merges) is not needed for the bytes, only to tokenize
//! text, so it is read lazily by the tokenizer engine.

use std::path::Path;

use crate::byte_level;
use crate::error::Result;
use crate::hf::parse_token_map;
use crate::raw::{Eos, Family, RawVocabulary, Source};

/// GPT-2's only special token, which is also its EOS.
pub const GPT2_END_OF_TEXT: &str = "<|endoftext|>";

pub(crate) fn load(path: &Path, data: &[u8]) -> Result<RawVocabulary> {
    let origin = path.display().to_string();
    let entries = parse_token_map(&origin, data)?;
    let mut text = Vec::with_capacity(entries.len());
    let mut specials = Vec::new();
    for (token, id) in entries {
        if token == GPT2_END_OF_TEXT {
            specials.push((id, token));
        } else {
            text.push((id, byte_level::decode_token(&token)));
        }
    }
    let eos = Eos::Ids {
        ids: specials.iter().map(|&(id, _)| id).collect(),
        well_known: false,
    };
    Ok(RawVocabulary {
        family: Family::ByteLevelBpe,
        origin,
        text,
        added_text: Vec::new(),
        specials,
        eos,
        source: Source::Gpt2 {
            merges_path: path.with_file_name("vocab.bpe"),
        },
    })
}
