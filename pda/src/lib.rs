//! Grammar constraints: deterministic context-free grammars over bytes, their pushdown
//! automata, and the composition of those with a tokenizer vocabulary into token PDAs that a
//! decoder walks one token at a time (Koo, Liu & He, section 3).
//!
//! The pipeline is [`Grammar`] → [`Pda`] (byte level, one state per dotted rule, return
//! addresses on the stack) → [`compose`] → [`TokenPda`]. Grammars must be deterministic with
//! one byte of lookahead (LL(1) over bytes, no left recursion); anything else is reported
//! as a [`PdaError`] naming the nonterminal, rules and byte at fault, as the paper does
//! ("detect non-deterministic grammars and signal an error").
//!
//! What to expect:
//!
//! - **Grammars** are rules over nonterminals and byte-string literals, built with
//!   [`Grammar::add_rule`] or parsed from a small text syntax ([`grammar`] documents it).
//! - **Determinism.** Every choice must be decided by the next byte: no left recursion
//!   (direct, indirect or through symbols that can be empty), and the alternatives of a
//!   nonterminal may not share a possible first byte (FOLLOW counts for empty ones). Common
//!   prefixes must be left-factored: `S -> "a" T ; T -> "b" | S "b"`, not
//!   `S -> "ab" | "a" S "b"`.
//! - **Stack.** Stack symbols are return addresses (dotted rules). Tail calls push nothing,
//!   so right-recursive lists do not grow the stack.
//! - **Token PDA.** Edges carry whole pop and push sequences, EOS is allowed exactly when the
//!   text may end, there are no epsilon edges, and equivalent states are merged.
//!
//! ```
//! use fst_core::ByteVocabulary;
//! use pda::{compose, ComposeLimits, Grammar, Pda};
//!
//! // a^n b^n (n >= 1), left-factored so that the next byte always decides.
//! let grammar = Grammar::parse(r#"S -> "a" T ; T -> "b" | S "b" ;"#)?;
//! let pda = Pda::from_grammar(&grammar)?;
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
