//! Structural tags: free text with tool calls, reasoning blocks, JSON answers — XGrammar's
//! structural-tag description, in its current and legacy JSON spellings or built in Rust
//! ([`Format`]) — compiled to **one** token automaton.
//!
//! The whole structure becomes one byte language (free text as UTF-8 without the
//! triggers and excluded strings, each JSON Schema through fstc-json, each regex through
//! fstc-regex), composed with the vocabulary once, so a token that ends the free text and
//! starts a tag is allowed exactly when the text it spells is in the language: eagerly as
//! one DFA, or for many large tools in pieces (each tool body composed on its own, joined
//! exactly at token level: the same automaton, at the sum of the tools' cost;
//! [`Composition`]), lazily as a call network whose root calls each schema's own network.
//! The eager compile runs within the JSON options' time and memory budgets.
//! A `grammar` piece without recursion is a byte DFA like a `regex`; a structure with a
//! recursive one becomes one grammar instead (the tree
//! its start rule, the pieces' rules renamed into it) composed into one token PDA by
//! fstc-pda. `max_tokens` (on free text or a tag body) is exact, eagerly and lazily, by
//! composing the texts with a marker after each token (`tokens`). What fstc would not enforce exactly
//! (token-level formats, XML argument styles) is refused by name with its path in the spec.
//! docs/structural-tags.md says what each format means.
//!
//! ```
//! use fstc_core::ByteVocabulary;
//! use fstc_tags::{StructuralTag, StructuralTagCompiler};
//!
//! let spec = r#"{"type": "structural_tag", "format": {
//!     "type": "triggered_tags", "triggers": ["<f="],
//!     "tags": [{"begin": "<f=add>", "content": {"type": "json_schema",
//!               "json_schema": {"type": "integer"}}, "end": "</f>"}]}}"#;
//! let tag = StructuralTag::from_json(spec).unwrap();
//! let (dfa, _) = StructuralTagCompiler::new().byte_dfa(&tag).unwrap();
//! assert!(dfa.is_match(b"sum: <f=add>12</f> done"));
//! assert!(!dfa.is_match(b"sum: <f=mul>12</f>"));
//! # let vocab = ByteVocabulary::new((0u8..=255).map(|b| Some(vec![b])).collect(), vec![]);
//! # StructuralTagCompiler::new().compile(&tag, &vocab).unwrap();
//! ```

mod budget;
mod compiler;
mod error;
mod format;
mod lower;
mod networks;
mod parse;
mod pieces;
mod special;
mod tokens;

pub use compiler::{Composition, StructuralTagCompiler};
pub use error::TagsError;
pub use format::{Format, Tag, TagsWithSeparator, TokenRef, TriggeredTags};
pub use parse::StructuralTag;
