//! Token automata for constrained decoding: the automata algebra and the runtime under
//! fstc's front ends (regexes in `fstc-regex`, JSON Schemas in `fstc-json`, grammars in
//! `fstc-pda`).
//!
//! A constraint is compiled into a [`TokenAutomaton`](automaton::TokenAutomaton): a deterministic
//! automaton over the token ids of one vocabulary (its edges stored by token class: tokens
//! that behave alike everywhere), so a decoder masks logits with one lookup per step
//! instead of matching text (Koo, Liu & He, "Automata-based
//! constraints for language model decoding"). EOS ids are allowed exactly in accepting
//! states.
//!
//! The always-built half is what a decoder needs: [`automaton`] (the type), [`parts`]
//! (what a compiler hands over, checked), [`format`](mod@format) (its validated,
//! zero-copy file format), [`matcher`] (the decoding interface every automaton kind
//! implements) and [`walker`] (its token FSA implementation: masks, consume, rollback,
//! fast-forward), [`token_pda`], [`pda_walker`] and [`glr_walker`] (token push-down
//! automata for grammars: their file, kind 1, and their matchers, one configuration or a
//! set of them over a shared stack for nondeterministic PDAs), [`AnyAutomaton`] (either kind, by the file's
//! kind word), plus [`sample`] and [`dot`]. With default features off it depends on
//! `bytemuck` only. Feature `compile` (default) adds what the front ends compile with:
//! byte automata (`bytes`: NFA, determinizer, `ByteDfa`, algebra), the minimizer,
//! composition with a vocabulary (`compose`, `lazy`), the vocabulary trie and the rustfst
//! reference path.
//!
//! Build an automaton by hand (the paper's Figure 5, `/(foo)+d/` over the tokens `f`,
//! `oo`, `foo`, `for`, `food`), save it, load it back and walk it:
//!
//! ```
//! use fstc_core::automaton::{AutomatonParts, TokenAutomaton};
//! use fstc_core::walker::Walker;
//!
//! let (f, oo, foo, food, eos) = (0, 1, 2, 4, 5);
//! let parts = AutomatonParts {
//!     vocab_size: 6,
//!     vocab_fingerprint: 0,
//!     eos_ids: vec![eos],
//!     start: 0,
//!     accepting: vec![false, false, true],
//!     edges: vec![vec![(f, 1), (foo, 0), (food, 2)], vec![(oo, 0)], vec![]],
//!     terminals: vec![],
//! };
//! let bytes = TokenAutomaton::from_parts(parts)?.to_bytes(); // what `write_file` stores
//!
//! // A decoder loads the file (zero-copy `from_bytes` needs a 4-byte-aligned buffer).
//! let automaton = TokenAutomaton::from_bytes_copied(&bytes)?;
//! let mut walker = Walker::new(&automaton);
//! let mut mask = vec![0u32; 1]; // one bit per token id
//! walker.fill_mask(&mut mask)?;
//! assert_eq!(mask[0], 1 << f | 1 << foo | 1 << food);
//!
//! walker.consume(f)?;
//! assert_eq!(walker.forced_tokens(), [oo]); // only "oo" can follow "f"
//! walker.consume_tokens(&[oo, food])?;
//! assert!(walker.only_eos_allowed());
//! walker.consume(eos)?;
//! assert!(walker.is_finished());
//!
//! // The same through the decoding interface, with the automaton shared by an `Arc`.
//! use fstc_core::matcher::Matcher;
//! use fstc_core::walker::OwnedWalker;
//! let mut matcher = OwnedWalker::new(std::sync::Arc::new(automaton));
//! assert_eq!(matcher.validate_tokens(&[f, oo, food, eos, f]), 4);
//! matcher.consume_tokens(&[foo, food])?;
//! matcher.rollback(1)?;
//! matcher.fill_mask(&mut mask)?;
//! assert_eq!(mask[0], 1 << f | 1 << foo | 1 << food);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

pub mod any;
pub mod automaton;
pub mod dot;
pub mod fast_hash;
pub mod format;
pub mod glr_walker;
pub mod matcher;
pub mod parts;
pub mod pda_walker;
mod pop_closure;
mod push_dag;
pub mod sample;
pub mod token_pda;
pub mod vocab;
pub mod walker;

#[cfg(feature = "compile")]
pub mod bytes;
#[cfg(feature = "compile")]
pub mod compiled;
#[cfg(feature = "compile")]
pub mod compose;
#[cfg(feature = "compile")]
pub mod labels;
#[cfg(feature = "compile")]
pub mod lazy;
#[cfg(feature = "compile")]
pub mod minimize;
#[cfg(feature = "compile")]
pub mod ops;
#[cfg(feature = "compile")]
pub mod options;
#[cfg(feature = "compile")]
pub mod reference;

pub use any::AnyAutomaton;
pub use vocab::{fingerprint, ByteVocabulary, TokenVocabulary};
