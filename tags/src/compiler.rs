//! The entry point: a structural tag in, one token automaton (eager or lazy) out.

use std::sync::Arc;

use fstc_core::automaton::TokenAutomaton;
use fstc_core::bytes::ByteDfa;
use fstc_core::compiled::{CompileStats, Compiled, Warning};
use fstc_core::lazy::LazyAutomaton;
use fstc_core::vocab::VocabTrie;
use fstc_core::TokenVocabulary;
use fstc_json::{Config, JsonSchemaCompiler};
use fstc_regex::{BuildError, BuildErrorKind, RegexBuilder, RegexCompiler};

use crate::error::TagsError;
use crate::lower::Lowering;
use crate::parse::StructuralTag;

/// Compiles structural tags into token automata. Configured with the JSON Schema
/// compiler's options (whitespace, escapes, limits), which apply to every `json_schema`
/// and, for the limits, to the whole automaton.
#[derive(Clone, Debug, Default)]
pub struct StructuralTagCompiler {
    json: JsonSchemaCompiler,
}

impl StructuralTagCompiler {
    /// A compiler with the default options.
    pub fn new() -> StructuralTagCompiler {
        StructuralTagCompiler::default()
    }

    /// The compiler with the options set in `config` replacing its own.
    pub fn configure(self, config: Config) -> StructuralTagCompiler {
        StructuralTagCompiler {
            json: self.json.configure(config),
        }
    }

    /// The options in effect.
    pub fn get_config(&self) -> &Config {
        self.json.get_config()
    }

    /// The minimized byte DFA of the texts `tag` admits, and the JSON Schema keywords left
    /// out (only under `lenient`).
    pub fn byte_dfa(&self, tag: &StructuralTag) -> Result<(ByteDfa, Vec<Warning>), TagsError> {
        let language = Lowering::new(&self.json).language(tag)?;
        let dfa = RegexBuilder::new()
            .state_limit(self.get_config().get_dfa_state_limit())
            .automata(language.automata)
            .build(&language.regex)
            .map_err(|e| {
                let short: String = e.to_string().chars().take(300).collect();
                TagsError::at("", format!("the automaton could not be built: {short}"))
            })?;
        if dfa.is_empty() {
            return Err(TagsError::at("", "the structural tag admits no text"));
        }
        Ok((dfa, language.warnings))
    }

    /// Compiles `tag` for `vocab`, building the vocabulary trie first (a phase of its own).
    pub fn compile<V>(
        &self,
        tag: &StructuralTag,
        vocab: &V,
    ) -> Result<Compiled<TokenAutomaton>, TagsError>
    where
        V: TokenVocabulary + ?Sized,
    {
        let mut stats = CompileStats::new();
        let trie = stats.time("vocabulary trie", || VocabTrie::new(vocab));
        let mut compiled = self.compile_with_trie(tag, &trie)?;
        stats.extend(compiled.stats);
        compiled.stats = stats;
        Ok(compiled)
    }

    /// Compiles `tag` reusing a vocabulary trie built once.
    pub fn compile_with_trie(
        &self,
        tag: &StructuralTag,
        trie: &VocabTrie,
    ) -> Result<Compiled<TokenAutomaton>, TagsError> {
        let mut stats = CompileStats::new();
        let (dfa, warnings) = stats.time("byte DFA", || self.byte_dfa(tag))?;
        let config = fstc_regex::Config::new()
            .dfa_state_limit(self.get_config().get_dfa_state_limit())
            .token_edge_limit(self.get_config().get_token_edge_limit());
        let composed = RegexCompiler::new()
            .configure(config)
            .compile_dfa_with_trie(&dfa, "the structural tag", trie)
            .map_err(|e| compose_error(&e))?;
        stats.extend(composed.stats);
        Ok(Compiled {
            automaton: composed.automaton,
            stats,
            warnings,
        })
    }

    /// Compiles `tag` for lazy matching over the vocabulary of `trie` (each state's
    /// tokens composed when a walk first reaches it): for one-off requests.
    pub fn compile_lazy(
        &self,
        tag: &StructuralTag,
        trie: Arc<VocabTrie>,
    ) -> Result<Compiled<LazyAutomaton>, TagsError> {
        let mut stats = CompileStats::new();
        let (dfa, warnings) = stats.time("byte DFA", || self.byte_dfa(tag))?;
        let lazy = RegexCompiler::new()
            .compile_dfa_lazy(&dfa, "the structural tag", trie)
            .map_err(|e| compose_error(&e))?;
        stats.extend(lazy.stats);
        Ok(Compiled {
            automaton: lazy.automaton,
            stats,
            warnings,
        })
    }
}

/// A composition error, without the generated pattern.
fn compose_error(error: &BuildError) -> TagsError {
    let message = match error.kind() {
        BuildErrorKind::Compose { error, .. } => error.to_string(),
        _ => error.to_string(),
    };
    TagsError::at("", format!("the automaton could not be built: {message}"))
}
