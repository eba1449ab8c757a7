//! Token automata for constrained decoding.
#![forbid(unsafe_code)]

pub mod automaton;
pub mod dot;
pub mod format;
pub mod sample;
pub mod vocab;
pub mod walker;

#[cfg(feature = "compile")]
pub mod compiler;
#[cfg(feature = "compile")]
pub mod compose;
#[cfg(feature = "compile")]
pub mod labels;
#[cfg(feature = "compile")]
pub mod minimize;
#[cfg(feature = "compile")]
pub mod reference;
#[cfg(feature = "compile")]
pub mod regex;

pub use vocab::{fingerprint, ByteVocabulary, TokenVocabulary};
