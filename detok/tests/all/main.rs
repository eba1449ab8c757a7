//! detok's integration tests as one binary (one link instead of one per file), a module per
//! subject; `common` holds the round-trip texts and the `tokenizers`-crate oracles they share.

mod common;

mod fixtures;
mod gguf;
mod malformed;
mod real_vocabs;
mod tekken;
