//! Loading the tokenizers every engine is measured on.
//!
//! A vocabulary is a folder holding either `tokenizer.json` (with an optional
//! `tokenizer_config.json` naming the EOS token) or GPT-2's `encoder.json` + `vocab.bpe`.
//! For GPT-2 an equivalent `tokenizer.json` is built in memory, so that every vocabulary
//! has one: the `tokenizers` crate tokenizes the sample texts with it, and llguidance's
//! own reader of tokenizer files is cross-checked against the bytes the engines get.
//!
//! All three engines receive the SAME bytes per token id (from `detok`), so a mask
//! difference between engines is a difference of regex semantics or of the engines, never
//! of tokenizer parsing.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use fstc_core::TokenVocabulary;
use serde_json::{json, Value};

/// A token two readers of one tokenizer decode differently: (id, bytes, other bytes).
pub type Disagreement = (u32, Option<Vec<u8>>, Option<Vec<u8>>);

/// A tokenizer as the harness uses it.
pub struct LoadedVocab {
    /// Short name (the folder name).
    pub name: String,
    /// The folder it was read from.
    pub dir: PathBuf,
    /// Exact bytes per token id; `None` for special tokens (added tokens marked
    /// `"special": false` are text, e.g. Gemma's newline runs: the tokenizer emits them).
    pub tokens: Vec<Option<Vec<u8>>>,
    /// Ids that end generation.
    pub eos_ids: Vec<u32>,
    /// Tokenizes sample texts (with any "prepend a space" normalizer removed, as a
    /// constrained decoder continuing a prompt would see).
    pub tokenizer: tokenizers::Tokenizer,
    /// Tokens llguidance's reader decodes to other bytes than the engines get, as (id,
    /// engines' bytes, reader's bytes); an error when that reader cannot read the
    /// tokenizer (the engines still get detok's bytes).
    pub reader_disagreements: std::result::Result<Vec<Disagreement>, String>,
    /// The fstc vocabulary, where the bytes come from.
    pub detok: fstc_detok::Vocabulary,
}

impl LoadedVocab {
    /// Number of token ids (the mask width in bits).
    pub fn size(&self) -> usize {
        self.tokens.len()
    }

    /// Words of a full-width mask.
    pub fn mask_words(&self) -> usize {
        self.size().div_ceil(32)
    }

    /// [`tokenize`](Self::tokenize) for each of `texts`: the token sequences of a walk.
    pub fn tokenize_all(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
        texts.iter().map(|t| self.tokenize(t)).collect()
    }

    /// Tokenizes `text` and checks that the tokens spell it exactly.
    pub fn tokenize(&self, text: &str) -> Result<Vec<u32>> {
        let encoding = self
            .tokenizer
            .encode(text, false)
            .map_err(|e| anyhow!("{}: cannot tokenize {text:?}: {e}", self.name))?;
        let ids = encoding.get_ids().to_vec();
        let mut spelled = Vec::new();
        for &id in &ids {
            match self.tokens.get(id as usize) {
                Some(Some(bytes)) => spelled.extend_from_slice(bytes),
                _ => bail!("{}: tokenizing {text:?} gave special token {id}", self.name),
            }
        }
        if spelled != text.as_bytes() {
            bail!(
                "{}: the tokens of {text:?} spell {:?} instead",
                self.name,
                String::from_utf8_lossy(&spelled)
            );
        }
        Ok(ids)
    }
}

/// Where named vocabularies are looked for: `<repo>/../shared/vocabs`, then `benches/vocabs`.
pub fn search_dirs() -> Vec<PathBuf> {
    let benches = Path::new(env!("CARGO_MANIFEST_DIR"));
    let repo = benches.parent().unwrap_or(benches);
    vec![repo.join("../shared/vocabs"), benches.join("vocabs")]
}

/// The vocabularies to run when none is named: every folder of the first search dir that
/// has any.
pub fn default_vocabs() -> Vec<PathBuf> {
    for dir in search_dirs() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("tokenizer.json").is_file() || p.join("encoder.json").is_file())
            .collect();
        if !found.is_empty() {
            found.sort();
            return found;
        }
    }
    Vec::new()
}

/// The vocabularies the `--vocab` arguments name, else [`default_vocabs`].
pub fn chosen(args: &[String]) -> Result<Vec<PathBuf>> {
    if args.is_empty() {
        return Ok(default_vocabs());
    }
    args.iter().map(|v| resolve(v)).collect()
}

/// A `--vocab` argument: a name from the search dirs, a folder, or a tokenizer.json file.
pub fn resolve(arg: &str) -> Result<PathBuf> {
    let path = Path::new(arg);
    if path.is_file() {
        return Ok(path.parent().unwrap_or(Path::new(".")).to_path_buf());
    }
    if path.is_dir() {
        return Ok(path.to_path_buf());
    }
    for dir in search_dirs() {
        let candidate = dir.join(arg);
        if candidate.is_dir() {
            return Ok(candidate);
        }
    }
    bail!(
        "vocabulary {arg:?} is neither a folder, a tokenizer.json nor a name under {:?}; \
         run benches/fetch_tokenizers.sh {arg} to fetch it",
        search_dirs()
    )
}

/// Resolves a `--vocab` argument and loads it, saying so on stderr.
pub fn load_named(arg: &str) -> Result<LoadedVocab> {
    let dir = resolve(arg)?;
    eprintln!("loading {}", dir.display());
    load(&dir)
}

/// Loads the tokenizer in `dir`.
pub fn load(dir: &Path) -> Result<LoadedVocab> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string());
    let tokenizer_json = if dir.join("tokenizer.json").is_file() {
        let text = std::fs::read_to_string(dir.join("tokenizer.json"))
            .with_context(|| format!("reading {}", dir.join("tokenizer.json").display()))?;
        serde_json::from_str(&text)
            .with_context(|| format!("parsing {}", dir.join("tokenizer.json").display()))?
    } else if dir.join("encoder.json").is_file() && dir.join("vocab.bpe").is_file() {
        gpt2_tokenizer_json(dir)?
    } else {
        bail!(
            "{} has neither tokenizer.json nor encoder.json + vocab.bpe",
            dir.display()
        );
    };

    let tokenizer = tokenizers::Tokenizer::from_bytes(serde_json::to_vec(&without_prepend(
        tokenizer_json.clone(),
    ))?)
    .map_err(|e| anyhow!("{name}: the tokenizers crate rejects the tokenizer: {e}"))?;

    let detok = load_detok(dir)?;
    let tokens: Vec<Option<Vec<u8>>> = (0..detok.len() as u32)
        .map(|id| detok.token_bytes(id).map(<[u8]>::to_vec))
        .collect();
    let reader_disagreements = llguidance_reader_tokens(&tokenizer_json)
        .with_context(|| format!("{name}: llguidance's tokenizer.json reader"))
        .map(|r| disagreements(&tokens, &r))
        .map_err(|e| format!("{e:#}"));
    Ok(LoadedVocab {
        name,
        dir: dir.to_path_buf(),
        tokens,
        eos_ids: detok.eos_ids().to_vec(),
        tokenizer,
        reader_disagreements,
        detok,
    })
}

/// The fstc vocabulary of the tokenizer in `dir` (detok finds the EOS ids itself).
fn load_detok(dir: &Path) -> Result<fstc_detok::Vocabulary> {
    let file = if dir.join("tokenizer.json").is_file() {
        dir.join("tokenizer.json")
    } else {
        dir.join("encoder.json")
    };
    fstc_detok::Vocabulary::from_file(&file)
        .map_err(|e| anyhow!("detok cannot load {}: {e}", file.display()))
}

/// Tokens whose bytes differ between two readings of the same tokenizer.
fn disagreements(a: &[Option<Vec<u8>>], b: &[Option<Vec<u8>>]) -> Vec<Disagreement> {
    let n = a.len().max(b.len());
    (0..n)
        .filter_map(|i| {
            let x = a.get(i).cloned().flatten();
            let y = b.get(i).cloned().flatten();
            (x != y).then_some((i as u32, x, y))
        })
        .collect()
}

/// Bytes per id as llguidance reads the tokenizer.json; its special tokens (a 0xFF marker
/// before the name) become `None`. A lone 0xFF is the byte token of byte 0xFF.
fn llguidance_reader_tokens(json: &Value) -> Result<Vec<Option<Vec<u8>>>> {
    let raw = llguidance::token_bytes_from_tokenizer_json(json)?;
    Ok(raw
        .into_iter()
        .map(|b| {
            if b.is_empty() || (b.len() > 1 && b[0] == toktrie::TokTrie::SPECIAL_TOKEN_MARKER) {
                None
            } else {
                Some(b)
            }
        })
        .collect())
}

/// The tokenizer.json with normalizers that prepend a space removed and Metaspace told
/// not to prepend: the sample texts are continuations, not starts of a prompt.
fn without_prepend(mut json: Value) -> Value {
    // `get_mut`, not indexing: indexing a missing key of a `Value` inserts it.
    if let Some(normalizer) = json.get_mut("normalizer") {
        if normalizer.get("type").and_then(Value::as_str) == Some("Prepend") {
            *normalizer = Value::Null;
        } else if let Some(list) = normalizer
            .get_mut("normalizers")
            .and_then(Value::as_array_mut)
        {
            list.retain(|n| n.get("type").and_then(Value::as_str) != Some("Prepend"));
        }
    }
    fn no_metaspace_prefix(p: &mut Value) {
        if p.get("type").and_then(Value::as_str) == Some("Metaspace") {
            p["prepend_scheme"] = json!("never");
            p["add_prefix_space"] = json!(false);
        }
        if let Some(list) = p.get_mut("pretokenizers").and_then(Value::as_array_mut) {
            list.iter_mut().for_each(no_metaspace_prefix);
        }
    }
    if let Some(pre) = json.get_mut("pre_tokenizer") {
        no_metaspace_prefix(pre);
    }
    json
}

/// A tokenizer.json equivalent to GPT-2's encoder.json + vocab.bpe.
fn gpt2_tokenizer_json(dir: &Path) -> Result<Value> {
    let encoder: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("encoder.json"))
            .with_context(|| format!("reading {}", dir.join("encoder.json").display()))?,
    )
    .context("parsing encoder.json")?;
    let merges: Vec<String> = std::fs::read_to_string(dir.join("vocab.bpe"))
        .with_context(|| format!("reading {}", dir.join("vocab.bpe").display()))?
        .lines()
        .filter(|l| !l.starts_with("#version") && !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    let eos_id = encoder["<|endoftext|>"]
        .as_u64()
        .context("encoder.json has no <|endoftext|>")?;
    let byte_level = json!({"type": "ByteLevel", "add_prefix_space": false,
                            "trim_offsets": true, "use_regex": true});
    Ok(json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [{"id": eos_id, "content": "<|endoftext|>", "single_word": false,
                          "lstrip": false, "rstrip": false, "normalized": false, "special": true}],
        "normalizer": null,
        "pre_tokenizer": byte_level,
        "post_processor": null,
        "decoder": byte_level,
        "model": {"type": "BPE", "dropout": null, "unk_token": null,
                  "continuing_subword_prefix": null, "end_of_word_suffix": null,
                  "fuse_unk": false, "byte_fallback": false,
                  "vocab": encoder, "merges": merges}
    }))
}
