//! fstc-core's integration tests as one binary (one link instead of one per file), a
//! module per subject; the `*_support` modules are the helpers they share.

#[cfg(feature = "compile")]
mod compose_support;
mod matcher_contract;

mod compose_classes;
mod compose_differential;
mod compose_limits;
mod compose_minimize;
mod compose_paper;
mod compose_real_vocab;
mod detokenizing_fst;
mod format_corruption;
mod format_dense_masks;
mod format_roundtrip;
mod free_text;
mod glr_push_dags;
mod hostile_files;
mod lazy_differential;
mod ops;
mod ops_openfst;
mod ops_regex;
mod paper_examples;
mod pda_runtime;
mod terminals;
mod walker_semantics;
