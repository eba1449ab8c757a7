//! Reading an expression from either form: apart from `tree`, which the readers build
//! on, so that no module imports the one that imports it.

use crate::error::ExprError;
use crate::tree::Expr;

impl Expr {
    /// Reads the text form: `intersect(regex("[a-z]+"), max_tokens(5))`.
    pub fn parse(text: &str) -> Result<Expr, ExprError> {
        crate::text::parse(text)
    }

    /// Reads the JSON form: `{"intersect": [{"regex": "[a-z]+"}, {"max_tokens": 5}]}`.
    pub fn from_json(text: &str) -> Result<Expr, ExprError> {
        crate::json_form::parse(text)
    }

    /// Reads either form: JSON when the text starts with `{`.
    pub fn parse_any(text: &str) -> Result<Expr, ExprError> {
        if text.trim_start().starts_with('{') {
            Expr::from_json(text)
        } else {
            Expr::parse(text)
        }
    }
}
