//! Grammar constraints: context-free grammars over bytes, their pushdown automata, and the
//! composition of those with a tokenizer vocabulary into token PDAs that a decoder walks one
//! token at a time (Koo, Liu & He, section 3).
//!
//! The pipeline is grammar text (a [`Syntax`]: llama.cpp's GBNF or the paper's arrow
//! notation, [`gbnf`]; [`lark`]; XGrammar's EBNF, [`gbnf::parse_ebnf`]) or a [`Grammar`] built in code → [`gbnf::Rules`] → [`Pda`] (byte level) → composition
//! with fstc-core's `VocabTrie` ([`GrammarCompiler`], [`Config`]) → token PDA parts,
//! which fstc-core lays out as a file (kind 1) and walks.
//!
//! What to expect:
//!
//! - **Regular parts are automata.** Each rule that must stay a call (the start rule and the
//!   rules that can call themselves) becomes a minimized DFA over bytes and calls, with the
//!   other rules inlined. Common prefixes and overlapping alternatives therefore cost nothing
//!   (the paper's `S → ab | aSb` is deterministic as printed), and only genuinely recursive
//!   calls push.
//! - **Determinism where it is free.** What remains is decided by the next byte when it can
//!   be: in every DFA state, a byte may be read, start a call, follow a call of a rule that
//!   may be empty, or follow the end of the rule. Where a byte allows several of these (the
//!   dangling `else`, keywords that are also identifiers, ambiguity), every way is kept: the
//!   token PDA is *nondeterministic* (`PdaParts::nondeterministic`; its nodes may have several
//!   edges per class) and fstc-core walks it with a set of configurations over a shared
//!   stack (`GlrWalker`). [`Pda::conflicts`] lists the conflicts with their rule, an input
//!   that leads there and the bytes; [`Config::require_deterministic`] refuses them instead.
//!   Left recursion, direct (`e ::= e "+" t | t` as `e ::= t ("+" t)*`) and indirect, is
//!   rewritten.
//! - **Stack.** Stack symbols are return addresses (DFA states after a call). Tail calls
//!   push nothing, so right-recursive lists do not grow the stack.
//! - **Token PDA.** A node's edges are the token classes that pop nothing there; tokens
//!   that pop are edges of the pop nodes its pop edges lead to, per symbol on top of the
//!   stack; a token that returns through an unbounded nest of calls (a dangling `else`)
//!   follows a cycle of pop edges. EOS is allowed exactly when the text may end, there are no epsilon edges,
//!   tokens behaving alike everywhere share a class, and equivalent nodes are merged.
//!
//! ```
//! use fstc_core::vocab::VocabTrie;
//! use fstc_core::ByteVocabulary;
//! use fstc_pda::{GrammarCompiler, Pda};
//!
//! // The paper's Figure 6 grammar as printed: a^n b^n (n >= 1).
//! let pda = Pda::from_gbnf(r#"S ::= "ab" | "a" S "b""#)?;
//! assert!(pda.accepts(b"aaabbb") && !pda.accepts(b"aab"));
//!
//! // The paper's Figure 7 vocabulary, plus EOS (id 4): the token PDA's parts.
//! let vocab = ByteVocabulary::from_strs(&["a", "b", "bb", "aaab"]);
//! let parts = GrammarCompiler::new().compose(&pda, &VocabTrie::new(&vocab))?.automaton;
//! assert_eq!(parts.num_stack_symbols, 1); // the return address `S: "a" S •`
//! # Ok::<(), fstc_pda::PdaError>(())
//! ```
#![forbid(unsafe_code)]

mod budget;
pub mod byte_pda;
mod compiler;
mod compose;
mod config;
pub mod error;
pub mod gbnf;
pub mod grammar;
pub mod lark;
mod options;
mod rtn;
mod syntax;

pub use byte_pda::{Edge, Pda, StackSym, MAX_STACK_DEPTH};
pub use compiler::GrammarCompiler;
pub use config::Config;
pub use error::{PdaError, PdaErrorKind};
pub use grammar::{Grammar, Symbol};
pub use options::OPTION_NAMES;
pub use rtn::regular_dfa;
pub use syntax::Syntax;
