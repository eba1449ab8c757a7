//! The one error of this crate: what is wrong, and where in the spec.

use std::fmt;

/// Why a structural tag could not be read or compiled. `path` is a JSON pointer into the
/// spec (`/format/tags/0/content`), or into the tree the builder made (same names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagsError {
    path: String,
    message: String,
}

impl TagsError {
    pub(crate) fn at(path: &str, message: impl Into<String>) -> TagsError {
        TagsError {
            path: path.to_string(),
            message: message.into(),
        }
    }

    /// Where in the spec (a JSON pointer; empty for the whole spec).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What is wrong there.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for TagsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "structural tag: {}", self.message)
        } else {
            write!(f, "structural tag at {}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for TagsError {}

/// `path` extended by one reference token, escaped per RFC 6901.
pub(crate) fn child(path: &str, token: impl fmt::Display) -> String {
    let token = token.to_string();
    format!("{path}/{}", token.replace('~', "~0").replace('/', "~1"))
}
