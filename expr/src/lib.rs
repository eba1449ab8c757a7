//! Expressions over constraints, compiled to one token automaton:
//! `intersect(regex("[a-z]+@[a-z]+\.com"), json("schema.json"), max_tokens(200))`.
//!
//! An expression is written as text ([`Expr::parse`]), as JSON
//! (`{"intersect": [{"regex": "..."}, {"max_tokens": 200}]}`, [`Expr::from_json`]) or
//! built in Rust ([`Expr::regex`], [`Expr::intersect`], ...); the three make the same
//! tree, and errors name the node at fault by line and column, or by JSON pointer.
//!
//! Texts are combined where the language requires it, tokens where it is exact:
//! concatenation and closure run on byte DFAs before the one composition with the
//! vocabulary (a token may span the boundary between two parts), while intersection,
//! union, difference and complement are exact on token automata too, because every
//! compiled automaton accepts every tokenization of its texts. `max_tokens(N)` and
//! `automaton("file.fstc")` are token languages, so an operation on them runs on tokens
//! ([`fstc_core::ops::TokenAlgebra`]). [`ExprCompiler`] has the limits of both.
//!
//! ```
//! use fstc_core::ByteVocabulary;
//! use fstc_expr::{Expr, ExprCompiler};
//!
//! let expr = Expr::parse(r#"intersect(concat(text("id-"), regex("[0-9]+")), max_tokens(4))"#).unwrap();
//! assert_eq!(expr, Expr::intersect([
//!     Expr::concat([Expr::text("id-"), Expr::regex("[0-9]+")]),
//!     Expr::max_tokens(4),
//! ]));
//! let vocab = ByteVocabulary::from_strs(&["i", "d", "-", "id-", "1", "2", "12"]);
//! let a = ExprCompiler::new().compile(&expr, &vocab).unwrap().automaton;
//! assert!(a.num_states() > 0);
//! let err = Expr::parse("intersect(regex(\"a\") regex(\"b\"))").unwrap_err();
//! assert_eq!(err.at(), "column 22");
//! ```

mod compile;
mod error;
mod json_form;
mod keywords;
mod read;
mod text;
mod tree;

pub use compile::{ExprCompiler, Level};
pub use error::ExprError;
pub use fstc_core::ops::openfst::Labels;
pub use tree::Scalar;
pub use tree::{Expr, MAX_DEPTH, MAX_REPEAT};
