//! The pda crate's integration tests, one binary (modules by subject).

mod budget;
mod common;
mod constructs;
mod differential;
mod earley;
mod ebnf_lookahead;
mod ebnf_syntax;
mod errors;
mod figure7;
mod gbnf_grammars;
mod gbnf_syntax;
mod grammar_formats;
mod hostile;
mod intersect;
mod lark_json;
mod lark_literals;
mod lark_syntax;
mod lark_templates;
mod random_grammars;
mod real_vocab;
mod regular;
mod stack_limit;
mod unbounded_returns;
