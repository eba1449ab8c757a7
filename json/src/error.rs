//! Errors and warnings, each naming the keyword and its JSON pointer in the schema.

use std::fmt;

/// Why a schema could not be compiled.
#[derive(Debug)]
pub struct JsonSchemaError {
    pub(crate) message: String,
}

impl JsonSchemaError {
    /// A keyword at `pointer` that is invalid or cannot be enforced exactly.
    pub(crate) fn at(pointer: &str, keyword: &str, why: impl fmt::Display) -> JsonSchemaError {
        JsonSchemaError {
            message: format!("`{keyword}` at {}: {why}", show_pointer(pointer)),
        }
    }

    /// Any other failure (bad JSON, an empty language, a compile limit).
    pub(crate) fn other(message: impl Into<String>) -> JsonSchemaError {
        JsonSchemaError {
            message: message.into(),
        }
    }
}

impl fmt::Display for JsonSchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for JsonSchemaError {}

/// `#/pointer`, or the root named as such: how every message shows a JSON pointer.
pub(crate) fn show_pointer(pointer: &str) -> String {
    if pointer.is_empty() {
        "the schema root (#)".into()
    } else {
        format!("#{pointer}")
    }
}

/// `pointer` extended by one reference token, escaped per RFC 6901.
pub(crate) fn child(pointer: &str, token: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + 1 + token.len());
    out.push_str(pointer);
    out.push('/');
    match token.contains(['~', '/']) {
        false => out.push_str(token),
        true => out.push_str(&token.replace('~', "~0").replace('/', "~1")),
    }
    out
}
