//! The one error of this crate: what is wrong, and where in the expression.

use std::fmt;

/// Why an expression could not be read or compiled. `at` names the node: a line and
/// column of the text form, a JSON pointer into the JSON form, or, for a tree made by
/// the builder, the pointer the node has in the tree's JSON form (`/intersect/1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    at: String,
    offset: Option<usize>,
    message: String,
}

impl ExprError {
    pub(crate) fn new(at: String, offset: Option<usize>, message: impl Into<String>) -> ExprError {
        ExprError {
            at,
            offset,
            message: message.into(),
        }
    }

    /// Where: `column 12`, `line 2, column 3`, or a JSON pointer (`/intersect/1`; empty
    /// for the whole expression).
    pub fn at(&self) -> &str {
        &self.at
    }

    /// The byte offset into the text form, when the error is in one.
    pub fn offset(&self) -> Option<usize> {
        self.offset
    }

    /// What is wrong there.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.at.is_empty() {
            write!(f, "expression: {}", self.message)
        } else {
            write!(f, "expression at {}: {}", self.at, self.message)
        }
    }
}

impl std::error::Error for ExprError {}
