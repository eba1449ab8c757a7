//! Options of the JSON Schema compiler.

use crate::error::JsonSchemaError;

/// Where whitespace may go between the tokens of the JSON text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Whitespace {
    /// None at all: `{"a":1,"b":[true]}`.
    Compact,
    /// Between any two JSON tokens (never before or after the whole value), up to `max_whitespace`
    /// characters of `[ \t\n\r]` in a row: enough to indent, too few to loop in forever.
    Flexible {
        /// Longest whitespace run.
        max_whitespace: usize,
    },
    /// Exactly as `serde_json::to_string_pretty` writes with `indent` spaces: a newline
    /// and the indent before each member and closing bracket, `": "` after keys, `{}`
    /// and `[]` for empty containers.
    Pretty {
        /// Spaces per nesting level.
        indent: usize,
    },
}

/// Which spellings of a string's code points the JSON text may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Escapes {
    /// One spelling per string, serde_json's: `\"`, `\\`, `\b\f\n\r\t`, other controls
    /// as `\u00xx` (lower-case), everything else raw UTF-8.
    Canonical,
    /// Every spelling JSON allows: a code point raw (unless `"`, `\` or a control), by
    /// its short escape (`\" \\ \/ \b \f \n \r \t`), as `\uXXXX` (either case, not a
    /// surrogate) or, above U+FFFF, as a surrogate pair; never a lone surrogate. Lengths,
    /// patterns, enums, formats and property names apply to the decoded string.
    Any,
}

/// Options of [`JsonSchemaCompiler`](crate::JsonSchemaCompiler). An option not set keeps
/// its default (or, given to
/// [`JsonSchemaCompiler::configure`](crate::JsonSchemaCompiler::configure), the compiler's
/// current value).
#[derive(Clone, Debug, Default)]
pub struct Config {
    whitespace: Option<Whitespace>,
    escapes: Option<Escapes>,
    additional_properties: Option<bool>,
    recursion_depth: Option<usize>,
    any_json_depth: Option<usize>,
    lenient: Option<bool>,
    dfa_state_limit: Option<usize>,
    token_edge_limit: Option<usize>,
    time_budget: Option<std::time::Duration>,
    memory_budget: Option<usize>,
    ref_dir: Option<std::path::PathBuf>,
}

impl Config {
    /// Default whitespace: flexible, at most 8 characters in a row.
    pub const DEFAULT_WHITESPACE: Whitespace = Whitespace::Flexible { max_whitespace: 8 };
    /// Default `$ref` recursion depth.
    pub const DEFAULT_RECURSION_DEPTH: usize = 3;
    /// Default nesting depth of schema-free JSON.
    pub const DEFAULT_ANY_JSON_DEPTH: usize = 2;
    /// Default byte DFA state limit.
    pub const DEFAULT_DFA_STATE_LIMIT: usize = 100_000;
    /// Default token edge limit.
    pub const DEFAULT_TOKEN_EDGE_LIMIT: usize = 1_000_000_000;
    /// Largest `recursion_depth`: a recursive array or object nests several regex groups
    /// per level, and regex-syntax refuses more than 250, so deeper never compiles; the
    /// translation up to that refusal costs seconds per level.
    pub const MAX_RECURSION_DEPTH: usize = 64;
    /// Largest `any_json_depth`: the byte DFA of schema-free JSON remembers the open
    /// containers, so its size doubles per level; depth 6 passes the default DFA state
    /// limit after seconds of work, depth 8 exhausts memory.
    pub const MAX_ANY_JSON_DEPTH: usize = 5;
    /// Largest `any_json_depth` of a lazy compile (`JsonSchemaCompiler::compile_lazy`):
    /// there each level is one small machine of the call network, called, not copied, so
    /// compile time and memory grow linearly with the depth (see `examples/any_json_depth.rs`
    /// for the figures); the bound is that of `recursion_depth`.
    pub const MAX_LAZY_ANY_JSON_DEPTH: usize = 64;
    /// Largest pretty `indent`: each level's indent is spelled out in the regex.
    pub const MAX_INDENT: usize = 64;
    /// Default time budget of one compile.
    pub const DEFAULT_TIME_BUDGET: std::time::Duration = std::time::Duration::from_secs(10);
    /// Default memory budget of one compile: 1 GiB of automata.
    pub const DEFAULT_MEMORY_BUDGET: usize = 1 << 30;

    /// Every option at its default.
    pub fn new() -> Config {
        Config::default()
    }

    /// Whitespace style (default [`Config::DEFAULT_WHITESPACE`]); a pretty indent is at
    /// most [`Config::MAX_INDENT`].
    pub fn whitespace(mut self, whitespace: Whitespace) -> Config {
        self.whitespace = Some(whitespace);
        self
    }

    /// String escapes (default canonical, one spelling per string: smaller automata).
    pub fn escapes(mut self, escapes: Escapes) -> Config {
        self.escapes = Some(escapes);
        self
    }

    /// Whether objects admit properties the schema does not name when it says nothing
    /// (`additionalProperties` absent). The spec says yes (default); strict servers no.
    pub fn additional_properties(mut self, allowed: bool) -> Config {
        self.additional_properties = Some(allowed);
        self
    }

    /// How many expansions of one `$ref` target may be nested (the root reference
    /// counts); a deeper one is cut: it admits nothing, so only optional recursion can be
    /// cut, and a schema that needs more is an error naming the reference. At most
    /// [`Config::MAX_RECURSION_DEPTH`]; a compile with more is an error naming the option.
    pub fn recursion_depth(mut self, depth: usize) -> Config {
        self.recursion_depth = Some(depth);
        self
    }

    /// The folder of documents that `$ref`s to other documents name (default none: such a
    /// `$ref` is an error naming it). A document `SCHEME://HOST/PATH` is the file `PATH`
    /// under the folder; a reference relative to a root schema without `$id` names a file
    /// by its path relative to the folder.
    pub fn ref_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Config {
        self.ref_dir = Some(dir.into());
        self
    }

    /// Nesting depth of schema-free JSON (`true`, `{}`, `--any-json`): depth 0 admits
    /// scalars only, depth d containers of depth-(d-1) values. At most
    /// [`Config::MAX_ANY_JSON_DEPTH`] ([`Config::MAX_LAZY_ANY_JSON_DEPTH`] for a lazy
    /// compile); a compile with more is an error naming the option.
    pub fn any_json_depth(mut self, depth: usize) -> Config {
        self.any_json_depth = Some(depth);
        self
    }

    /// Leave out keywords that cannot be enforced exactly, with a warning each, instead
    /// of failing (default false).
    pub fn lenient(mut self, yes: bool) -> Config {
        self.lenient = Some(yes);
        self
    }

    /// Most states of the byte DFA.
    pub fn dfa_state_limit(mut self, limit: usize) -> Config {
        self.dfa_state_limit = Some(limit);
        self
    }

    /// Most edges of the token automaton.
    pub fn token_edge_limit(mut self, limit: usize) -> Config {
        self.token_edge_limit = Some(limit);
        self
    }

    /// Longest a compile may run: checked before each sub-schema is translated and each
    /// automaton is built, so a compile past it ends within one such step, in an error
    /// naming the sub-schema being built. A server's per-request deadline.
    pub fn time_budget(mut self, budget: std::time::Duration) -> Config {
        self.time_budget = Some(budget);
        self
    }

    /// Most bytes of automata and texts a compile may hold (the DFAs of sub-schemas, of the
    /// algebra's operands and results, of the machines; the machines' regex texts and the
    /// translations kept for reuse), checked as each is built; past it, an error names the
    /// sub-schema being built. Each single build is bounded by the state limit.
    pub fn memory_budget(mut self, bytes: usize) -> Config {
        self.memory_budget = Some(bytes);
        self
    }

    /// The time budget in effect.
    pub fn get_time_budget(&self) -> std::time::Duration {
        self.time_budget.unwrap_or(Config::DEFAULT_TIME_BUDGET)
    }

    /// The memory budget in effect.
    pub fn get_memory_budget(&self) -> usize {
        self.memory_budget.unwrap_or(Config::DEFAULT_MEMORY_BUDGET)
    }

    /// The whitespace style in effect.
    pub fn get_whitespace(&self) -> Whitespace {
        self.whitespace.unwrap_or(Config::DEFAULT_WHITESPACE)
    }

    /// The string escapes in effect.
    pub fn get_escapes(&self) -> Escapes {
        self.escapes.unwrap_or(Escapes::Canonical)
    }

    /// Whether unnamed properties are allowed when `additionalProperties` is absent.
    pub fn get_additional_properties(&self) -> bool {
        self.additional_properties.unwrap_or(true)
    }

    /// The folder of referenced documents, if any.
    pub fn get_ref_dir(&self) -> Option<&std::path::Path> {
        self.ref_dir.as_deref()
    }

    /// The `$ref` recursion depth in effect.
    pub fn get_recursion_depth(&self) -> usize {
        self.recursion_depth
            .unwrap_or(Config::DEFAULT_RECURSION_DEPTH)
    }

    /// The nesting depth of schema-free JSON in effect.
    pub fn get_any_json_depth(&self) -> usize {
        self.any_json_depth
            .unwrap_or(Config::DEFAULT_ANY_JSON_DEPTH)
    }

    /// Whether keywords that cannot be enforced become warnings.
    pub fn get_lenient(&self) -> bool {
        self.lenient.unwrap_or(false)
    }

    /// The byte DFA state limit in effect.
    pub fn get_dfa_state_limit(&self) -> usize {
        self.dfa_state_limit
            .unwrap_or(Config::DEFAULT_DFA_STATE_LIMIT)
    }

    /// The token edge limit in effect.
    pub fn get_token_edge_limit(&self) -> usize {
        self.token_edge_limit
            .unwrap_or(Config::DEFAULT_TOKEN_EDGE_LIMIT)
    }

    /// Refuses option values out of their range (before anything is sized by them), for a
    /// `lazy` compile or an eager one (whose automaton is the inlined, flat one).
    pub(crate) fn check(&self, lazy: bool) -> Result<(), JsonSchemaError> {
        let over = |name: &str, value: usize, max: usize| {
            JsonSchemaError::other(format!(
                "the option {name} is {value}, over its maximum {max}"
            ))
        };
        if self.get_recursion_depth() > Config::MAX_RECURSION_DEPTH {
            let depth = self.get_recursion_depth();
            return Err(over("recursion_depth", depth, Config::MAX_RECURSION_DEPTH));
        }
        let max_any = match lazy {
            true => Config::MAX_LAZY_ANY_JSON_DEPTH,
            false => Config::MAX_ANY_JSON_DEPTH,
        };
        if self.get_any_json_depth() > max_any {
            let depth = self.get_any_json_depth();
            let name = match lazy {
                true => "any_json_depth (lazy compile)",
                false => "any_json_depth",
            };
            return Err(over(name, depth, max_any));
        }
        if let Whitespace::Pretty { indent } = self.get_whitespace() {
            if indent > Config::MAX_INDENT {
                return Err(over("indent", indent, Config::MAX_INDENT));
            }
        }
        Ok(())
    }

    /// `self` with the options set in `other` replacing its own.
    pub(crate) fn overwrite(self, other: Config) -> Config {
        Config {
            whitespace: other.whitespace.or(self.whitespace),
            escapes: other.escapes.or(self.escapes),
            additional_properties: other.additional_properties.or(self.additional_properties),
            recursion_depth: other.recursion_depth.or(self.recursion_depth),
            any_json_depth: other.any_json_depth.or(self.any_json_depth),
            lenient: other.lenient.or(self.lenient),
            dfa_state_limit: other.dfa_state_limit.or(self.dfa_state_limit),
            token_edge_limit: other.token_edge_limit.or(self.token_edge_limit),
            time_budget: other.time_budget.or(self.time_budget),
            memory_budget: other.memory_budget.or(self.memory_budget),
            ref_dir: other.ref_dir.or(self.ref_dir),
        }
    }
}
