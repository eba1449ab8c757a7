//! The entry point: options, schema text in, regex or token automaton out.

use std::sync::Arc;

use fstc_core::automaton::TokenAutomaton;
use fstc_core::bytes::ByteDfa;
use fstc_core::lazy::LazyAutomaton;
use fstc_core::vocab::VocabTrie;
use fstc_core::TokenVocabulary;
use fstc_regex::{BuildError, BuildErrorKind, CompileStats, RegexCompiler};
use serde_json::Value;

use crate::blame;
use crate::config::{Config, Escapes, Whitespace};
use crate::decimal::NumberTexts;
use crate::error::{JsonSchemaError, Warning};
use crate::schema::Translator;
use crate::schema_regex::SchemaRegex;

/// A compiled schema.
#[derive(Debug)]
pub struct Compiled {
    /// The token automaton.
    pub automaton: TokenAutomaton,
    /// Keywords not enforced (empty unless [`Config::lenient`]).
    pub warnings: Vec<Warning>,
    /// Stage timings of the regex compile.
    pub stats: CompileStats,
}

/// A schema compiled for lazy matching: only its byte DFA is built; each state's tokens are
/// composed when a walk first reaches it (`fstc_core::lazy`).
#[derive(Clone, Debug)]
pub struct LazyCompiled {
    /// The lazy automaton; `automaton.start_matcher()` gives a matcher.
    pub automaton: LazyAutomaton,
    /// Keywords not enforced (empty unless [`Config::lenient`]).
    pub warnings: Vec<Warning>,
    /// Time to translate the schema into its regex and build the byte DFA.
    pub byte_dfa_time: std::time::Duration,
    /// States of the byte DFA.
    pub byte_dfa_states: usize,
}

/// Compiles JSON Schemas (draft 2020-12, with draft-07 spellings) into token automata.
#[derive(Clone, Debug, Default)]
pub struct JsonSchemaCompiler {
    config: Config,
}

impl JsonSchemaCompiler {
    /// A compiler with the default [`Config`].
    pub fn new() -> JsonSchemaCompiler {
        JsonSchemaCompiler::default()
    }

    /// A compiler with `config`.
    pub fn with_config(config: Config) -> JsonSchemaCompiler {
        JsonSchemaCompiler { config }
    }

    /// The options in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Sets the whitespace style.
    pub fn whitespace(mut self, whitespace: Whitespace) -> JsonSchemaCompiler {
        self.config.whitespace = whitespace;
        self
    }

    /// Sets which string escapes the output may use.
    pub fn escapes(mut self, escapes: Escapes) -> JsonSchemaCompiler {
        self.config.escapes = escapes;
        self
    }

    /// Sets whether unnamed properties are allowed when `additionalProperties` is absent.
    pub fn additional_properties(mut self, allowed: bool) -> JsonSchemaCompiler {
        self.config.additional_properties = allowed;
        self
    }

    /// Sets how many expansions of one `$ref` target may be nested.
    pub fn recursion_depth(mut self, depth: usize) -> JsonSchemaCompiler {
        self.config.recursion_depth = depth;
        self
    }

    /// Sets the nesting depth of schema-free JSON.
    pub fn any_json_depth(mut self, depth: usize) -> JsonSchemaCompiler {
        self.config.any_json_depth = depth;
        self
    }

    /// Turns refusals into warnings.
    pub fn lenient(mut self, yes: bool) -> JsonSchemaCompiler {
        self.config.lenient = yes;
        self
    }

    /// Sets the byte DFA state limit.
    pub fn dfa_state_limit(mut self, limit: usize) -> JsonSchemaCompiler {
        self.config.dfa_state_limit = limit;
        self
    }

    /// Sets the token edge limit.
    pub fn token_edge_limit(mut self, limit: usize) -> JsonSchemaCompiler {
        self.config.token_edge_limit = limit;
        self
    }

    /// The regex of the JSON texts `schema` (JSON text) admits; its numbers are read at
    /// the decimal value written.
    pub fn to_regex(&self, schema: &str) -> Result<SchemaRegex, JsonSchemaError> {
        let (value, numbers) = parse(schema)?;
        self.regex_of(&value, &numbers)
    }

    /// The regex of the JSON texts a parsed schema admits. Its numbers are what serde_json
    /// made of them: beyond 2^64 or 17 significant digits, doubles ([`to_regex`](Self::to_regex)
    /// reads them exactly).
    pub fn value_to_regex(&self, schema: &Value) -> Result<SchemaRegex, JsonSchemaError> {
        self.regex_of(schema, &NumberTexts::default())
    }

    /// Refuses a keyword value of the wrong type anywhere in the document, then translates.
    fn regex_of(
        &self,
        schema: &Value,
        numbers: &NumberTexts,
    ) -> Result<SchemaRegex, JsonSchemaError> {
        crate::shape::check(schema, "")?;
        let mut translator = Translator::new(schema, &self.config, numbers)?;
        let Some(regex) = translator.root()? else {
            let mut message = "the schema admits no JSON text in this output form".to_string();
            if let Some(cut) = translator.cuts.first() {
                message.push_str(&format!(
                    " within the recursion depth {}: the recursive `$ref` `{cut}` was cut there \
                     and the schema requires going deeper (raise recursion_depth)",
                    self.config.recursion_depth
                ));
            }
            return Err(JsonSchemaError::other(message));
        };
        let (warnings, automata) = translator.into_parts();
        Ok(SchemaRegex {
            regex,
            automata: automata.list,
            warnings,
        })
    }

    /// The regex of any JSON value up to [`Config::any_json_depth`].
    pub fn any_json_regex(&self) -> String {
        self.value_to_regex(&Value::Bool(true))
            .expect("`true` admits every value")
            .regex
    }

    /// Compiles `schema` (JSON text) for `vocab`.
    pub fn compile<V>(&self, schema: &str, vocab: &V) -> Result<Compiled, JsonSchemaError>
    where
        V: TokenVocabulary + ?Sized,
    {
        self.compile_with_trie(schema, &VocabTrie::new(vocab))
    }

    /// Compiles `schema` reusing a vocabulary trie built once.
    pub fn compile_with_trie(
        &self,
        schema: &str,
        trie: &VocabTrie,
    ) -> Result<Compiled, JsonSchemaError> {
        let (value, numbers) = parse(schema)?;
        self.compile_schema(&value, &numbers, trie)
    }

    /// Compiles schema-free JSON (depth [`Config::any_json_depth`]) for the vocabulary.
    pub fn compile_any_json(&self, trie: &VocabTrie) -> Result<Compiled, JsonSchemaError> {
        self.compile_schema(&Value::Bool(true), &NumberTexts::default(), trie)
    }

    /// Compiles `schema` (JSON text) for lazy matching over the vocabulary of `trie`: the
    /// choice for one-off schemas, where compile plus the first mask matters (see
    /// `fstc_core::lazy` for what it costs). Same errors as [`compile_with_trie`](Self::compile_with_trie).
    pub fn compile_lazy(
        &self,
        schema: &str,
        trie: Arc<VocabTrie>,
    ) -> Result<LazyCompiled, JsonSchemaError> {
        let started = std::time::Instant::now();
        let (value, numbers) = parse(schema)?;
        let schema = self.regex_of(&value, &numbers)?;
        let dfa = self.schema_dfa(&schema, &value)?;
        let byte_dfa_time = started.elapsed();
        let automaton = RegexCompiler::new()
            .compile_dfa_lazy(&dfa, "the schema's regex", trie)
            .map_err(|e| compile_error(&e))?;
        Ok(LazyCompiled {
            automaton,
            warnings: schema.warnings,
            byte_dfa_time,
            byte_dfa_states: dfa.num_states(),
        })
    }

    /// The byte DFA of the regex of the schema `root`, within the state limit; past it,
    /// the error names the sub-schema where the states multiply (`blame`).
    fn schema_dfa(&self, schema: &SchemaRegex, root: &Value) -> Result<ByteDfa, JsonSchemaError> {
        schema.dfa(self.config.dfa_state_limit).map_err(|e| {
            let short: String = e.to_string().chars().take(300).collect();
            let message = format!("the schema's automaton could not be built: {short}");
            if blame::limit_of(&e).is_some() {
                blame::too_large(root, &self.config, message)
            } else {
                JsonSchemaError::other(message)
            }
        })
    }

    fn compile_schema(
        &self,
        root: &Value,
        numbers: &NumberTexts,
        trie: &VocabTrie,
    ) -> Result<Compiled, JsonSchemaError> {
        let schema = self.regex_of(root, numbers)?;
        let started = std::time::Instant::now();
        let dfa = self.schema_dfa(&schema, root)?;
        let byte_dfa_time = started.elapsed();
        let (automaton, mut stats) = RegexCompiler::new()
            .dfa_state_limit(self.config.dfa_state_limit)
            .token_edge_limit(self.config.token_edge_limit)
            .compile_dfa_with_trie(&dfa, "the schema's regex", trie)
            .map_err(|e| compile_error(&e))?;
        stats.byte_dfa_time = byte_dfa_time;
        Ok(Compiled {
            automaton,
            warnings: schema.warnings,
            stats,
        })
    }
}

/// `schema` parsed as JSON, and the texts of its numbers.
fn parse(schema: &str) -> Result<(Value, NumberTexts), JsonSchemaError> {
    let value = serde_json::from_str(schema)
        .map_err(|e| JsonSchemaError::other(format!("the schema is not valid JSON: {e}")))?;
    Ok((value, NumberTexts::scan(schema)))
}

/// A regex compile error, without the (possibly huge) generated pattern.
fn compile_error(error: &BuildError) -> JsonSchemaError {
    let message = match error.kind() {
        BuildErrorKind::Compose { error, .. } => error.to_string(),
        _ => error.to_string(),
    };
    JsonSchemaError::other(format!(
        "the schema's automaton could not be built: {message}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `any_json_regex` is self-contained regex text (no `(?P<AUTOMATON>N)`, whose automata
    /// it would lose, although string bodies elsewhere are spliced): another engine (the
    /// `regex` crate) reads it as any JSON value.
    #[test]
    fn any_json_regex_is_plain_text() {
        let compiler = JsonSchemaCompiler::new().whitespace(Whitespace::Compact);
        let text = compiler.any_json_regex();
        assert!(!text.contains("AUTOMATON"), "{text}");
        let re = regex::Regex::new(&format!("^(?:{text})$")).unwrap();
        for ok in [r#"{"a":[1,"x\n",null]}"#, r#""é""#, "[]", "-0.5e3"] {
            assert!(re.is_match(ok), "{ok}");
        }
        for bad in [r#"{"a":}"#, "\"\n\"", "[1,]", "01"] {
            assert!(!re.is_match(bad), "{bad}");
        }
    }
}
