//! How token ids and bytes become rustfst labels.
//!
//! rustfst reserves label 0 for epsilon, so every real symbol is shifted by one. All
//! code that builds or reads rustfst automata (the byte FSA, the detokenizing FST
//! T_V, the reference composition) goes through these functions.

use rustfst::Label;

/// The epsilon label.
pub const EPSILON: Label = 0;

/// The label of byte `b` on a byte FSA or on the output side of T_V.
pub fn byte_label(b: u8) -> Label {
    Label::from(b) + 1
}

/// The byte a byte label stands for, or `None` for epsilon and out-of-range labels.
pub fn label_byte(label: Label) -> Option<u8> {
    label.checked_sub(1).and_then(|b| u8::try_from(b).ok())
}

/// The label of token `id` on the input side of T_V and on token automata.
pub fn token_label(id: u32) -> Label {
    id + 1
}

/// The token id a token label stands for, or `None` for epsilon.
pub fn label_token(label: Label) -> Option<u32> {
    label.checked_sub(1)
}
