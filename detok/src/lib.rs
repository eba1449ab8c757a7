//! Vocabularies.
