//! The grammar compiler: grammar text → byte PDA → token PDA parts, which fstc-core lays
//! out as a file and walks.

use fstc_core::vocab::VocabTrie;
use fstc_core::TokenVocabulary;

use crate::byte_pda::Pda;
use crate::compose::{compose, Config};
use crate::error::PdaError;
use crate::syntax::Syntax;
use fstc_core::parts::PdaParts;

/// Compiles grammars for a vocabulary into token PDA parts.
///
/// ```
/// use fstc_core::ByteVocabulary;
/// use fstc_pda::GrammarCompiler;
///
/// // The paper's Figure 6 grammar and Figure 7 vocabulary (EOS is id 4).
/// let vocab = ByteVocabulary::from_strs(&["a", "b", "bb", "aaab"]);
/// let parts = GrammarCompiler::new().compile(r#"S → "ab" | "a" S "b""#, &vocab)?;
/// assert_eq!(parts.eos_ids, [4]);
/// assert!(!parts.accepting[parts.start as usize]); // a^n b^n needs n >= 1
/// # Ok::<(), fstc_pda::PdaError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct GrammarCompiler {
    config: Config,
    syntax: Syntax,
}

impl GrammarCompiler {
    /// A compiler with the default [`Config`].
    pub fn new() -> GrammarCompiler {
        GrammarCompiler::default()
    }

    /// Replaces the configuration.
    pub fn configure(&mut self, config: Config) -> &mut GrammarCompiler {
        self.config = config;
        self
    }

    /// Sets the syntax grammar text is read in (default [`Syntax::Gbnf`]).
    pub fn syntax(&mut self, syntax: Syntax) -> &mut GrammarCompiler {
        self.syntax = syntax;
        self
    }

    /// Reads `grammar_text` (in the compiler's [`Syntax`], GBNF by default) and
    /// composes it with `vocab`. Builds the vocabulary trie first: to compile many grammars
    /// for one vocabulary, build it once and use [`GrammarCompiler::compile_with_trie`].
    pub fn compile<V: TokenVocabulary + ?Sized>(
        &self,
        grammar_text: &str,
        vocab: &V,
    ) -> Result<PdaParts, PdaError> {
        self.compile_with_trie(grammar_text, &VocabTrie::new(vocab))
    }

    /// [`GrammarCompiler::compile`] over a prebuilt vocabulary trie.
    pub fn compile_with_trie(
        &self,
        grammar_text: &str,
        trie: &VocabTrie,
    ) -> Result<PdaParts, PdaError> {
        self.compose(&Pda::from_text(grammar_text, self.syntax)?, trie)
    }

    /// Composes a byte PDA (e.g. from [`Pda::from_grammar`]) with the vocabulary of `trie`.
    pub fn compose(&self, pda: &Pda, trie: &VocabTrie) -> Result<PdaParts, PdaError> {
        compose(pda, trie, &self.config)
    }
}
