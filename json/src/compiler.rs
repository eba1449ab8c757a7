//! The entry point: options, schema text in, regex or token automaton out.

use std::collections::HashMap;
use std::sync::Arc;

use fstc_core::automaton::TokenAutomaton;
use fstc_core::bytes::{ByteDfa, CallNetwork};
use fstc_core::compiled::{CompileStats, Compiled};
use fstc_core::lazy::LazyAutomaton;
use fstc_core::vocab::VocabTrie;
use fstc_core::TokenVocabulary;
use fstc_regex::{BuildError, BuildErrorKind, RegexBuilder, RegexCompiler, RegexErrorKind};
use serde_json::Value;

use crate::blame;
use crate::budget::Budget;
use crate::check::Automata;
use crate::config::Config;
use crate::decimal::NumberTexts;
use crate::error::{show_pointer, JsonSchemaError};
use crate::schema::Translator;
use crate::schema_regex::SchemaRegex;
use fstc_core::compiled::Warning;

/// Compiles JSON Schemas (draft 2020-12, with draft-07 spellings) into token automata.
///
/// Configured by value, as the regex and grammar compilers are:
/// `JsonSchemaCompiler::new().configure(Config::new().whitespace(Whitespace::Compact))`.
#[derive(Clone, Debug, Default)]
pub struct JsonSchemaCompiler {
    config: Config,
}

impl JsonSchemaCompiler {
    /// A compiler with the default options.
    pub fn new() -> JsonSchemaCompiler {
        JsonSchemaCompiler::default()
    }

    /// The compiler with the options set in `config` replacing its own.
    pub fn configure(mut self, config: Config) -> JsonSchemaCompiler {
        self.config = self.config.overwrite(config);
        self
    }

    /// The options in effect.
    pub fn get_config(&self) -> &Config {
        &self.config
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
        crate::document::check_depth(schema, "the schema")?;
        self.regex_of(schema, &NumberTexts::default())
    }

    /// Refuses a keyword value of the wrong type anywhere in the document, then translates;
    /// the regex is flat (every call inlined).
    fn regex_of(
        &self,
        schema: &Value,
        numbers: &NumberTexts,
    ) -> Result<SchemaRegex, JsonSchemaError> {
        Ok(flat(self.translation(schema, numbers, false)?)?.0)
    }

    /// The schema's translation: the root's text, whose sub-schemas are calls of machines;
    /// options checked against the bounds of a `lazy` compile or an eager one.
    pub(crate) fn translation(
        &self,
        schema: &Value,
        numbers: &NumberTexts,
        lazy: bool,
    ) -> Result<Translation, JsonSchemaError> {
        self.config.check(lazy)?;
        crate::shape::check(schema, "")?;
        let bundled = crate::refs::bundle(schema, numbers, &self.config)?;
        // Once per compile, the documents read from `ref_dir` included (not again in
        // each translator a diagnosis makes); the compile's running total starts there.
        let held = crate::document::check(&bundled.value, self.config.get_memory_budget())?;
        let anchors = bundled.anchors;
        let mut translator =
            Translator::new(&bundled.value, &self.config, &bundled.numbers, anchors);
        translator.automata.budget.hold(held);
        let Some(root) = translator.root()? else {
            let mut message = "the schema admits no JSON text in this output form".to_string();
            if let Some(cut) = translator.cuts.first() {
                message.push_str(&format!(
                    " within the recursion depth {}: the recursive `$ref` `{cut}` was cut there \
                     and the schema requires going deeper (raise recursion_depth)",
                    self.config.get_recursion_depth()
                ));
            }
            return Err(JsonSchemaError::other(message));
        };
        let (warnings, automata) = translator.into_parts();
        Ok(Translation {
            root,
            automata,
            warnings,
        })
    }

    /// The regex of any JSON value up to [`Config::get_any_json_depth`] (an error only
    /// for options out of range).
    pub fn any_json_regex(&self) -> Result<String, JsonSchemaError> {
        Ok(self.value_to_regex(&Value::Bool(true))?.regex)
    }

    /// Compiles `schema` (JSON text) for `vocab`, building the vocabulary trie first (a
    /// phase of its own).
    pub fn compile<V>(
        &self,
        schema: &str,
        vocab: &V,
    ) -> Result<Compiled<TokenAutomaton>, JsonSchemaError>
    where
        V: TokenVocabulary + ?Sized,
    {
        Compiled::over_vocab_trie(vocab, |trie| self.compile_with_trie(schema, trie))
    }

    /// Compiles `schema` reusing a vocabulary trie built once.
    pub fn compile_with_trie(
        &self,
        schema: &str,
        trie: &VocabTrie,
    ) -> Result<Compiled<TokenAutomaton>, JsonSchemaError> {
        let (schema, stats) = self.translate(|| parse(schema))?;
        self.compile_regex(schema, stats, trie)
    }

    /// Compiles schema-free JSON (depth [`Config::get_any_json_depth`]) for the vocabulary.
    pub fn compile_any_json(
        &self,
        trie: &VocabTrie,
    ) -> Result<Compiled<TokenAutomaton>, JsonSchemaError> {
        let (schema, stats) = self.translate(|| Ok((Value::Bool(true), NumberTexts::default())))?;
        self.compile_regex(schema, stats, trie)
    }

    /// Compiles `schema` (JSON text) for lazy matching over the vocabulary of `trie`: the
    /// choice for one-off schemas, where compile plus the first mask matters (see
    /// `fstc_core::lazy` for what it costs). Each distinct sub-schema is a small byte DFA
    /// of its own, its uses are calls (`fstc_core::bytes::CallNetwork`), and the inlined
    /// DFA's states are only made as walks reach them. Same language and errors as
    /// [`compile_with_trie`](Self::compile_with_trie), except for the byte-DFA state
    /// limit, which bounds each sub-schema's DFA instead of the whole.
    pub fn compile_lazy(
        &self,
        schema: &str,
        trie: Arc<VocabTrie>,
    ) -> Result<Compiled<LazyAutomaton>, JsonSchemaError> {
        let mut stats = CompileStats::new();
        let (t, network) = self.translated_network(schema, &mut stats)?;
        let lazy = stats.time("lazy automaton", || {
            LazyAutomaton::with_calls(Arc::new(network), trie.clone())
        });
        let automaton = match lazy {
            Ok(lazy) => lazy,
            // A vocabulary without every byte as a token of its own: the inlined DFA,
            // with the eager bounds (inlining copies what the network calls).
            Err(_) => {
                self.config.check(false)?;
                let flat = SchemaRegex {
                    regex: t.automata.inline_within(&t.root)?.into_owned(),
                    automata: t.automata.list.clone(),
                    warnings: Vec::new(),
                };
                let root = serde_json::from_str(schema).unwrap_or(Value::Null);
                let budget = &t.automata.budget;
                let dfa = stats.time("byte DFA", || self.schema_dfa(&flat, &root, budget))?;
                let lazy = RegexCompiler::new()
                    .compile_dfa_lazy(&dfa, "the schema's regex", trie)
                    .map_err(|e| compile_error(&e))?;
                stats.extend(lazy.stats);
                lazy.automaton
            }
        };
        Ok(Compiled {
            automaton,
            stats,
            warnings: t.warnings,
        })
    }

    /// Each machine of the translation and its root as a byte DFA; a machine too large
    /// for the state limit is named by the pointer of the sub-schema it was made for.
    pub(crate) fn network(&self, t: &Translation) -> Result<CallNetwork, JsonSchemaError> {
        let builder = || {
            let mut b = RegexBuilder::new();
            b.state_limit(self.config.get_dfa_state_limit())
                .deadline(t.automata.budget.deadline());
            b
        };
        let automata = &t.automata;
        // Spliced automata (string bodies, formats, the algebra's results) are machines of
        // their own, numbered after the translation's, each added on first use.
        let first = automata.machines.len() as u32;
        let mut spliced: Vec<Arc<ByteDfa>> = Vec::new();
        let mut spliced_ids = std::collections::HashMap::new();
        let mut as_calls = |text: &str| {
            automata.splices_as_calls(text, |k| {
                *spliced_ids.entry(k).or_insert_with(|| {
                    spliced.push(Arc::clone(&automata.list[k]));
                    first + spliced.len() as u32 - 1
                })
            })
        };
        let texts: Vec<String> = automata.machines.iter().map(|m| as_calls(m)).collect();
        let root_text = as_calls(&t.root);
        let mut machines = Vec::with_capacity(texts.len() + spliced.len() + 1);
        let budget = &automata.budget;
        for (text, pointer) in texts.iter().zip(&automata.machine_pointers) {
            budget.enter(pointer)?;
            let dfa = leaf_machine(text, self.config.get_dfa_state_limit(), || {
                builder().build(text)
            })
            .map_err(|e| {
                if *e.kind() == RegexErrorKind::Deadline {
                    return budget.out_of_time();
                }
                let short: String = e.to_string().chars().take(300).collect();
                JsonSchemaError::other(format!(
                    "the automaton of the sub-schema at {} could not be built: {short}",
                    show_pointer(pointer)
                ))
            })?;
            budget.charge(&dfa)?;
            budget.leave();
            machines.push(dfa);
        }
        machines.extend(spliced);
        let root = builder().build(&root_text).map_err(|e| match e.kind() {
            RegexErrorKind::Deadline => budget.out_of_time(),
            _ => JsonSchemaError::other(format!("the schema's automaton could not be built: {e}")),
        })?;
        machines.push(Arc::new(root));
        let root = machines.len() as u32 - 1;
        CallNetwork::new(machines, root).map_err(|e| {
            JsonSchemaError::other(format!("the schema's automaton could not be built: {e}"))
        })
    }

    /// The schema `source` gives, translated into its regex and byte DFA, each step a phase
    /// (reading the JSON text is part of the translation).
    fn translate(
        &self,
        source: impl FnOnce() -> Result<(Value, NumberTexts), JsonSchemaError>,
    ) -> Result<((SchemaRegex, ByteDfa, Budget), CompileStats), JsonSchemaError> {
        let mut stats = CompileStats::new();
        let (root, (schema, budget)) = stats.time("schema translation", || {
            let (root, numbers) = source()?;
            let schema = flat(self.translation(&root, &numbers, false)?)?;
            Ok::<_, JsonSchemaError>((root, schema))
        })?;
        let dfa = stats.time("byte DFA", || self.schema_dfa(&schema, &root, &budget))?;
        stats.set_count("byte DFA states", dfa.num_states());
        Ok(((schema, dfa, budget), stats))
    }

    /// The byte DFA of the regex of the schema `root`, within the state limit and the
    /// time `budget`; past the limit, the error names the sub-schema where the states
    /// multiply (`blame`, within the same budget).
    fn schema_dfa(
        &self,
        schema: &SchemaRegex,
        root: &Value,
        budget: &Budget,
    ) -> Result<ByteDfa, JsonSchemaError> {
        let deadline = budget.deadline();
        let limit = self.config.get_dfa_state_limit();
        budget.check_parse(schema.regex.len())?;
        schema.dfa_until(limit, deadline).map_err(|e| {
            let short: String = e.to_string().chars().take(300).collect();
            let message = format!("the schema's automaton could not be built: {short}");
            if *e.kind() == RegexErrorKind::Deadline {
                budget.out_of_time()
            } else if blame::limit_of(&e).is_some() {
                blame::too_large(root, &self.config, message, deadline)
            } else {
                JsonSchemaError::other(message)
            }
        })
    }

    /// The translated schema composed with the vocabulary of `trie` and laid out, within
    /// what is left of the budgets.
    fn compile_regex(
        &self,
        (schema, dfa, budget): (SchemaRegex, ByteDfa, Budget),
        mut stats: CompileStats,
        trie: &VocabTrie,
    ) -> Result<Compiled<TokenAutomaton>, JsonSchemaError> {
        let config = fstc_regex::Config::new()
            .dfa_state_limit(self.config.get_dfa_state_limit())
            .token_edge_limit(self.config.get_token_edge_limit());
        let composed = RegexCompiler::new()
            .configure(budget.bound(config))
            .compile_dfa_with_trie(&dfa, "the schema's regex", trie)
            .map_err(|e| {
                budget
                    .composition_failed(&e)
                    .unwrap_or_else(|| compile_error(&e))
            })?;
        stats.extend(composed.stats);
        Ok(Compiled {
            automaton: composed.automaton,
            stats,
            warnings: schema.warnings,
        })
    }
}

/// The DFA of a machine's text, from the process's cache when the text calls nothing (a
/// string with a length, a number range: the same text in many schemas), else built now.
fn leaf_machine(
    text: &str,
    limit: usize,
    build: impl FnOnce() -> Result<ByteDfa, fstc_regex::RegexError>,
) -> Result<Arc<ByteDfa>, fstc_regex::RegexError> {
    /// Entries kept; past it the cache starts over (the DFAs are small, the texts short).
    const MAX_ENTRIES: usize = 4096;
    static CACHE: std::sync::OnceLock<std::sync::Mutex<HashMap<String, Arc<ByteDfa>>>> =
        std::sync::OnceLock::new();
    let leaf = !text.contains("(?P<CALL>");
    let cache = CACHE.get_or_init(Default::default);
    if leaf {
        // A poisoned lock only means a panic elsewhere mid-insert of a complete entry.
        let hit = cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(text)
            .cloned();
        if let Some(dfa) = hit.filter(|d| d.num_states() <= limit) {
            return Ok(dfa);
        }
    }
    let dfa = Arc::new(build()?);
    if leaf {
        let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= MAX_ENTRIES {
            map.clear();
        }
        map.insert(text.to_string(), Arc::clone(&dfa));
    }
    Ok(dfa)
}

/// A translated schema: the root's regex text, which calls the machines of `automata`.
pub(crate) struct Translation {
    root: String,
    automata: Automata,
    pub(crate) warnings: Vec<Warning>,
}

/// The translation's flat regex (every call inlined), and its budget.
fn flat(t: Translation) -> Result<(SchemaRegex, Budget), JsonSchemaError> {
    let regex = t.automata.inline_within(&t.root)?.into_owned();
    let schema = SchemaRegex {
        regex,
        automata: t.automata.list,
        warnings: t.warnings,
    };
    Ok((schema, t.automata.budget))
}

/// `schema` parsed as JSON, and the texts of its numbers.
pub(crate) fn parse(schema: &str) -> Result<(Value, NumberTexts), JsonSchemaError> {
    crate::document::parse(schema, "the schema")
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
    use crate::config::Whitespace;

    /// `any_json_regex` is self-contained regex text (no `(?P<AUTOMATON>N)`, whose automata
    /// it would lose, although string bodies elsewhere are spliced): another engine (the
    /// `regex` crate) reads it as any JSON value.
    #[test]
    fn any_json_regex_is_plain_text() {
        let compiler =
            JsonSchemaCompiler::new().configure(Config::new().whitespace(Whitespace::Compact));
        let text = compiler.any_json_regex().unwrap();
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
