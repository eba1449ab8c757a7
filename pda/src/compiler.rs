//! The grammar compiler: grammar text → byte PDA → token PDA parts → the token PDA file
//! fstc-core walks.

use fstc_core::compiled::{CompileStats, Compiled};
use fstc_core::parts::PdaParts;
use fstc_core::token_pda::TokenPda;
use fstc_core::vocab::VocabTrie;
use fstc_core::TokenVocabulary;

use crate::budget::Budget;
use crate::byte_pda::Pda;
use crate::compose::compose;
use crate::config::Config;
use crate::error::{PdaError, PdaErrorKind};
use crate::gbnf::Rules;

/// Compiles grammars for a vocabulary into token PDAs.
///
/// Configured by value, as the regex and JSON Schema compilers are:
/// `GrammarCompiler::new().configure(Config::new().node_limit(10_000))`.
///
/// ```
/// use fstc_core::ByteVocabulary;
/// use fstc_pda::GrammarCompiler;
///
/// // The paper's Figure 6 grammar and Figure 7 vocabulary (EOS is id 4).
/// let vocab = ByteVocabulary::from_strs(&["a", "b", "bb", "aaab"]);
/// let pda = GrammarCompiler::new().compile(r#"S → "ab" | "a" S "b""#, &vocab)?.automaton;
/// assert_eq!(pda.eos_ids(), [4]);
/// assert_eq!(pda.num_stack_symbols(), 1); // the return address `S: "a" S •`
/// # Ok::<(), fstc_pda::PdaError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct GrammarCompiler {
    config: Config,
}

impl GrammarCompiler {
    /// A compiler with the default options.
    pub fn new() -> GrammarCompiler {
        GrammarCompiler::default()
    }

    /// The compiler with the options set in `config` replacing its own.
    pub fn configure(mut self, config: Config) -> GrammarCompiler {
        self.config = self.config.overwrite(config);
        self
    }

    /// The options in effect.
    pub fn get_config(&self) -> &Config {
        &self.config
    }

    /// Reads `grammar_text` (in the configured [`Syntax`](crate::Syntax), GBNF by default) and
    /// composes it with `vocab`. Builds the vocabulary trie first (a phase of its own): to
    /// compile many grammars for one vocabulary, build it once and use
    /// [`GrammarCompiler::compile_with_trie`].
    pub fn compile<V: TokenVocabulary + ?Sized>(
        &self,
        grammar_text: &str,
        vocab: &V,
    ) -> Result<Compiled<TokenPda>, PdaError> {
        Compiled::over_vocab_trie(vocab, |trie| self.compile_with_trie(grammar_text, trie))
    }

    /// [`GrammarCompiler::compile`] over a prebuilt vocabulary trie: the byte PDA, the
    /// composition, the file layout, each a phase, all within the time and memory budgets.
    pub fn compile_with_trie(
        &self,
        grammar_text: &str,
        trie: &VocabTrie,
    ) -> Result<Compiled<TokenPda>, PdaError> {
        let budget = Budget::new(&self.config);
        let mut stats = CompileStats::new();
        let pda = stats.time("byte PDA", || {
            Pda::from_text_within(grammar_text, self.config.get_syntax(), &budget)
        })?;
        self.finish(&pda, trie, &budget, stats)
    }

    /// [`GrammarCompiler::compile_with_trie`] for grammar rules built by a program (the
    /// structural tags' one grammar of a whole structure) rather than read from text.
    pub fn compile_rules_with_trie(
        &self,
        rules: &Rules,
        trie: &VocabTrie,
    ) -> Result<Compiled<TokenPda>, PdaError> {
        let budget = Budget::new(&self.config);
        let mut stats = CompileStats::new();
        let pda = stats.time("byte PDA", || Pda::from_rules_within(rules, &budget))?;
        self.finish(&pda, trie, &budget, stats)
    }

    /// The composition of `pda` with the vocabulary and the layout of the token PDA,
    /// within `budget`.
    fn finish(
        &self,
        pda: &Pda,
        trie: &VocabTrie,
        budget: &Budget,
        mut stats: CompileStats,
    ) -> Result<Compiled<TokenPda>, PdaError> {
        let composed = self.compose_within(pda, trie, budget)?;
        stats.extend(composed.stats);
        let place = || "laying out the token PDA".to_string();
        budget.check_time(place)?;
        budget.charge(layout_bytes(&composed.automaton), place)?;
        let pda = stats
            .time("layout", || {
                TokenPda::from_parts_before(composed.automaton, budget.deadline())
            })
            .map_err(|e| PdaError::new(PdaErrorKind::Layout, format!("token PDA layout: {e}")))?
            .ok_or_else(|| budget.out_of_time(&place()))?;
        stats.set_count("bytes", pda.as_words().len() * 4);
        Ok(Compiled::new(pda, stats))
    }

    /// Composes a byte PDA (e.g. from [`Pda::from_grammar`]) with the vocabulary of `trie`
    /// into the token PDA's parts, with their sizes, within the time and memory budgets
    /// (counted from this call).
    pub fn compose(&self, pda: &Pda, trie: &VocabTrie) -> Result<Compiled<PdaParts>, PdaError> {
        self.compose_within(pda, trie, &Budget::new(&self.config))
    }

    fn compose_within(
        &self,
        pda: &Pda,
        trie: &VocabTrie,
        budget: &Budget,
    ) -> Result<Compiled<PdaParts>, PdaError> {
        if let (true, Some(report)) = (self.config.get_require_deterministic(), pda.conflicts()) {
            return Err(PdaError::new(PdaErrorKind::Conflict, report.to_string()));
        }
        let mut stats = CompileStats::new();
        let parts = stats.time("composition", || compose(pda, trie, &self.config, budget))?;
        count_parts(&mut stats, &parts);
        Ok(Compiled::new(parts, stats))
    }
}

/// About what laying `parts` out takes: the canonical parts and the file's words (a class
/// per token, each token in one class's mask words, a label and target per edge).
fn layout_bytes(parts: &PdaParts) -> usize {
    let edges: usize = parts.edges.iter().map(Vec::len).sum();
    let pops: usize = parts.pops.iter().map(Vec::len).sum();
    let pushes: usize = parts.push_seqs.iter().map(Vec::len).sum();
    let words = 3 * parts.vocab_size as usize + 3 * edges + 2 * parts.accepting.len() + 2 * pops;
    2 * 4 * (words + pushes)
}

/// The sizes of a token PDA's parts, as `--stats` prints them.
fn count_parts(stats: &mut CompileStats, parts: &PdaParts) {
    let mut popped = vec![false; parts.accepting.len()];
    for &(_, n) in parts.pops.iter().flatten() {
        popped[n as usize] = true;
    }
    stats.set_count("nodes", parts.accepting.len());
    stats.set_count(
        "nodes reached by pops",
        popped.iter().filter(|&&p| p).count(),
    );
    stats.set_count(
        "accepting nodes",
        parts.accepting.iter().filter(|&&a| a).count(),
    );
    stats.set_count("class edges", parts.edges.iter().map(Vec::len).sum());
    stats.set_count("pop edges", parts.pops.iter().map(Vec::len).sum());
    stats.set_count("classes", parts.num_classes as usize);
    stats.set_count("stack symbols", parts.num_stack_symbols as usize);
    if parts.nondeterministic {
        stats.set_count("nondeterministic", 1);
    }
}
