//! Vocabularies of real tokenizers as exact bytes per token id.
//!
//! Constrained decoding works on bytes, so it needs, for every token id, the exact bytes the
//! token stands for (a byte-level BPE token can be half a UTF-8 character), which ids are
//! special (never produced by text), and which ids end generation. [`Vocabulary`] loads that
//! from HuggingFace `tokenizer.json` files (byte-level BPE like GPT-2, Llama 3 and Qwen;
//! SentencePiece-style BPE or Unigram like Llama 2), GPT-2's `encoder.json`, tiktoken rank
//! files, Mistral's `tekken.json` and the metadata of GGUF model files (llama.cpp; [`Vocabulary::from_gguf`]), and
//! implements [`fstc_core::TokenVocabulary`]. `Vocabulary::tokenize` (the default feature
//! `tokenize`) gives the tokenizer's own tokenization of a text, spelled exactly, for
//! `fstc check --text`.
//! (The paper's T_V over such a vocabulary is `fstc_core::reference::detokenizing_fst`.)
//!
//! ```
//! use fstc_detok::{Family, Vocabulary};
//! use fstc_core::TokenVocabulary;
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/bytelevel/tokenizer.json");
//! let vocab = Vocabulary::from_file(path)?;
//! assert_eq!(vocab.family(), Family::ByteLevelBpe);
//! // The EOS named by tokenizer_config.json beside the file.
//! let eot = vocab.token_id("<|eot_id|>").unwrap();
//! assert_eq!(vocab.eos_ids(), &[eot]);
//! assert_eq!(vocab.token_bytes(eot), None);
//!
//! let ids = vocab.tokenize("Hello, world!\n")?;
//! let spelled: Vec<u8> = ids.iter().flat_map(|&id| vocab.token_bytes(id).unwrap().to_vec()).collect();
//! assert_eq!(spelled, b"Hello, world!\n");
//! # Ok::<(), fstc_detok::VocabError>(())
//! ```
#![forbid(unsafe_code)]

pub mod byte_level;
mod byte_token;
#[cfg(feature = "tokenize")]
mod engine;
mod error;
mod gguf;
#[cfg(feature = "tokenize")]
mod gguf_pre;
#[cfg(feature = "tokenize")]
mod gguf_spm;
#[cfg(feature = "tokenize")]
mod gguf_user;
mod gpt2;
mod hf;
mod raw;
mod tekken;
mod tiktoken;
mod vocabulary;

pub use error::{Result, VocabError, VocabErrorKind};
pub use gpt2::GPT2_END_OF_TEXT;
pub use raw::{Family, MAX_TOKEN_ID, WELL_KNOWN_EOS};
pub use tiktoken::{TiktokenOptions, CL100K_PATTERN};
pub use vocabulary::{AddedAsSpecial, Vocabulary};
