//! Options of the JSON Schema compiler.

/// Where whitespace may go between the tokens of the JSON text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Whitespace {
    /// None at all: `{"a":1,"b":[true]}`.
    Compact,
    /// Between any two JSON tokens (never before or after the whole value), up to `max`
    /// characters of `[ \t\n\r]` in a row: enough to indent, too few to loop in forever.
    Flexible {
        /// Longest whitespace run.
        max: usize,
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

/// Options of [`JsonSchemaCompiler`].
#[derive(Clone, Debug)]
pub struct Config {
    /// Whitespace style (default: flexible, at most 8 characters in a row).
    pub whitespace: Whitespace,
    /// String escapes (default: canonical, one spelling per string: smaller automata).
    pub escapes: Escapes,
    /// Whether objects admit properties the schema does not name when it says nothing
    /// (`additionalProperties` absent). The spec says yes (default); strict servers no.
    pub additional_properties: bool,
    /// How many expansions of one `$ref` target may be nested (the root reference
    /// counts); a deeper one is cut: it admits nothing, so only optional recursion can be
    /// cut, and a schema that needs more is an error naming the reference.
    pub recursion_depth: usize,
    /// Nesting depth of schema-free JSON (`true`, `{}`, `--any-json`): depth 0 admits
    /// scalars only, depth d containers of depth-(d-1) values.
    pub any_json_depth: usize,
    /// Leave out keywords that cannot be enforced exactly, with a [`Warning`] each,
    /// instead of failing.
    pub lenient: bool,
    /// Most states of the byte DFA.
    pub dfa_state_limit: usize,
    /// Most edges of the token automaton.
    pub token_edge_limit: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            whitespace: Whitespace::Flexible { max: 8 },
            escapes: Escapes::Canonical,
            additional_properties: true,
            recursion_depth: 3,
            any_json_depth: 2,
            lenient: false,
            dfa_state_limit: 100_000,
            token_edge_limit: 1_000_000_000,
        }
    }
}
