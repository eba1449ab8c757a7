//! JSON Schema → token automaton (Koo, Liu & He, §5.1).
//!
//! A schema whose recursion is bounded admits a regular language of JSON texts. This
//! crate translates a schema, keyword by keyword, into a regular expression over the
//! bytes of those texts (in one chosen output form: properties in schema order, one
//! whitespace style, canonical string escapes or, with [`Escapes::Any`], every
//! spelling), which fstc-core compiles to a byte DFA and composes with a vocabulary like
//! any other regex. Keywords that need intersection,
//! difference or complement (`allOf`, `not`, `if`, `contains`, property counts and
//! dependencies, `multipleOf`, pattern-matched names) are computed on byte DFAs with
//! fstc-core's `Algebra` and spliced back into the regex (see `combine.rs` for why this
//! rather than look-ahead, and for when a complement is exact). A keyword that cannot be
//! enforced exactly is an error naming it and its JSON pointer, or with
//! [`Config::lenient`] a warning (`fstc_core::compiled::Warning`) (and the keyword is left out).
//!
//! ```
//! use fstc_json::JsonSchemaCompiler;
//! let schema = r#"{"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}"#;
//! let dfa = JsonSchemaCompiler::new().to_regex(schema)?.dfa(10_000)?;
//! assert!(dfa.is_match(br#"{"ok": true}"#));
//! assert!(!dfa.is_match(br#"{"ok": 1}"#));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

mod blame;
mod budget;
mod check;
mod combine;
mod compiler;
mod config;
mod containers;
mod decimal;
mod error;
mod fold;
mod formats;
mod lang;
mod memo;
mod multiple;
mod network;
mod numbers;
mod options;
mod pattern;
mod presence;
mod refs;
mod reuse;
mod scalars;
mod schema;
mod schema_regex;
mod shape;
mod strings;
mod unevaluated;
mod uri;
mod value;

pub use compiler::JsonSchemaCompiler;
pub use config::{Config, Escapes, Whitespace};
pub use error::JsonSchemaError;
pub use options::OPTION_NAMES;
pub use schema_regex::SchemaRegex;
