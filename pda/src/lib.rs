//! Grammar constraints: context-free grammars over bytes, their pushdown automata, and the
//! composition of those with a tokenizer vocabulary into token PDAs that a decoder walks one
//! token at a time (Koo, Liu & He, section 3).
//!
//! The pipeline is grammar text ([`gbnf`]: llama.cpp's GBNF or the paper's arrow notation)
//! or a [`Grammar`] built in code → [`gbnf::Rules`] → [`Pda`] (byte level) → [`compose`] →
//! [`TokenPda`].
//!
//! What to expect:
//!
//! - **Regular parts are automata.** Each rule that must stay a call (the start rule and the
//!   rules that can call themselves) becomes a minimized DFA over bytes and calls, with the
//!   other rules inlined. Common prefixes and overlapping alternatives therefore cost nothing
//!   (the paper's `S → ab | aSb` is deterministic as printed), and only genuinely recursive
//!   calls push.
//! - **Determinism.** What remains must be decided by the next byte: in every DFA state, a
//!   byte may be read, start a call, follow a call of a rule that may be empty, or follow the
//!   end of the rule, but only one of these. Direct left recursion (`e ::= e "+" t | t`) is
//!   rewritten (`e ::= t ("+" t)*`); indirect left recursion is refused. A refused grammar's
//!   error lists every conflict with its rule, an input that leads there and the bytes.
//! - **Stack.** Stack symbols are return addresses (DFA states after a call). Tail calls
//!   push nothing, so right-recursive lists do not grow the stack.
//! - **Token PDA.** Edges carry whole pop and push sequences, EOS is allowed exactly when the
//!   text may end, there are no epsilon edges, and equivalent states are merged.
//!
//! ```
//! use fst_core::ByteVocabulary;
//! use pda::{compose, ComposeLimits, Pda};
//!
//! // The paper's Figure 6 grammar as printed: a^n b^n (n >= 1).
//! let pda = Pda::from_gbnf(r#"S ::= "ab" | "a" S "b""#)?;
//! assert!(pda.accepts(b"aaabbb") && !pda.accepts(b"aab"));
//!
//! // The paper's Figure 7 vocabulary, plus EOS (id 4).
//! let vocab = ByteVocabulary::from_strs(&["a", "b", "bb", "aaab"]);
//! let tpda = compose(&pda, &vocab, &ComposeLimits::default())?;
//! let (mut state, mut stack) = (tpda.start(), tpda.initial_stack());
//! for token in [3, 1] {
//!     // "aaab" then "b"
//!     assert!(tpda.allowed_tokens(state, &stack).contains(&token));
//!     state = tpda.step(state, &mut stack, token).expect("allowed");
//! }
//! assert_eq!(tpda.allowed_tokens(state, &stack), vec![1]); // one more "b", not "bb"
//! state = tpda.step(state, &mut stack, 1).unwrap();
//! state = tpda.step(state, &mut stack, 4).unwrap(); // EOS
//! assert!(tpda.is_accepting(state, &stack));
//! # Ok::<(), pda::PdaError>(())
//! ```
#![forbid(unsafe_code)]

pub mod byte_pda;
pub mod error;
pub mod gbnf;
pub mod grammar;
mod rtn;
pub mod token_pda;

pub use byte_pda::{Edge, Pda, StackSym, MAX_STACK_DEPTH};
pub use error::{PdaError, PdaErrorKind};
pub use grammar::{Grammar, Symbol};
pub use token_pda::{compose, ComposeLimits, TokenEdge, TokenPda};
