//! The entry point: a structural tag in, one token automaton (eager or lazy) out.

use std::sync::Arc;
use std::time::Instant;

use fstc_core::any::AnyAutomaton;
use fstc_core::automaton::TokenAutomaton;
use fstc_core::bytes::{Algebra, ByteDfa, CallNetwork};
use fstc_core::compiled::{CompileStats, Compiled, Warning};
use fstc_core::compose::ComposeLimits;
use fstc_core::lazy::LazyAutomaton;
use fstc_core::token_pda::TokenPda;
use fstc_core::vocab::{FreeText, VocabTrie};
use fstc_core::TokenVocabulary;
use fstc_json::{Config, JsonSchemaCompiler};
use fstc_pda::gbnf::Expr;
use fstc_pda::GrammarCompiler;
use fstc_regex::{BuildError, BuildErrorKind, RegexBuilder, RegexCompiler, RegexErrorKind};

use crate::budget::Budget;
use crate::error::TagsError;
use crate::lower::{needs_stack, Lowering};
use crate::networks;
use crate::parse::StructuralTag;
use crate::pieces::{self, PieceDfas};
use crate::special;
use crate::tokens;

/// How the eager compile composes a tool-call structure (one with `triggered_tags` or
/// `tags_with_separator`): each way gives the same automaton, file for file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Composition {
    /// In pieces when the one DFA would be large (the leaf automata pass
    /// 2^15 states, near where one composition outgrows its dense table and slows down
    /// many times), else one DFA of the whole text.
    #[default]
    Auto,
    /// One byte DFA of the whole text, composed once.
    Whole,
    /// In pieces (the dispatch and each distinct tool body composed on its own, joined at
    /// token level) wherever the cut is certain.
    Pieces,
}

/// The leaf automata's states up to which [`Composition::Auto`] composes one DFA.
const WHOLE_STATES: usize = 1 << 15;

/// What is composed with a vocabulary: the byte DFA, the warnings, and for a tag that
/// limits tokens the marked vocabulary.
type ToCompose = (ByteDfa, Vec<Warning>, Option<Arc<VocabTrie>>);

/// What the pieces' lowering led to.
enum Pieced {
    Compiled(Compiled<TokenAutomaton>),
    /// The one DFA, from the same lowering (small enough), and the warnings.
    Whole(ByteDfa, Vec<Warning>),
    /// Pieces do not fit: compose one DFA.
    No,
}

/// Compiles structural tags into token automata. Configured with the JSON Schema
/// compiler's options (whitespace, escapes, limits), which apply to every `json_schema`
/// and, for the limits, to the whole automaton.
#[derive(Clone, Debug, Default)]
pub struct StructuralTagCompiler {
    json: JsonSchemaCompiler,
    /// How a tool-call structure is composed.
    composition: Composition,
    /// Most table entries of a batch of pieces, if not the default.
    batch_entries: Option<usize>,
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
            ..self
        }
    }

    /// Composes the pieces of a tool-call structure in batches of at most `entries`
    /// (state, byte class) pairs (default 2^21, what the composition keeps in a dense
    /// table); at least one piece a batch. Tests set it low to join many batches.
    pub fn batch_entries(self, entries: usize) -> StructuralTagCompiler {
        StructuralTagCompiler {
            batch_entries: Some(entries),
            ..self
        }
    }

    /// How the eager compile composes a structure with tag lists: the automaton is the
    /// same either way, only the cost differs.
    pub fn composition(self, composition: Composition) -> StructuralTagCompiler {
        StructuralTagCompiler {
            composition,
            ..self
        }
    }

    /// The options in effect.
    pub fn get_config(&self) -> &Config {
        self.json.get_config()
    }

    /// The minimized byte DFA of the texts `tag` admits, and the JSON Schema keywords left
    /// out (only under `lenient`). A tag that limits tokens (`max_tokens`) has none: the
    /// error names the limit.
    /// A tag that names a token has none either (a token is not text): the error names it.
    pub fn byte_dfa(&self, tag: &StructuralTag) -> Result<(ByteDfa, Vec<Warning>), TagsError> {
        special::no_tokens(tag)?;
        self.byte_dfa_of(tag)
    }

    /// [`byte_dfa`](Self::byte_dfa), named tokens read as their markers (`crate::special`).
    fn byte_dfa_of(&self, tag: &StructuralTag) -> Result<(ByteDfa, Vec<Warning>), TagsError> {
        let language = Lowering::new(&self.json).language(tag)?;
        let dfa = self.build(&language.regex, language.automata)?;
        Ok((dfa, language.warnings))
    }

    /// The DFA of a lowered regex (which may call machines), refused when it accepts
    /// nothing, even through its calls (its trimmed DFA then has no accepting state).
    fn build(&self, regex: &str, automata: Vec<Arc<ByteDfa>>) -> Result<ByteDfa, TagsError> {
        let dfa = self.dfa(regex, automata)?;
        if !(0..dfa.num_states() as u32).any(|s| dfa.is_accepting(s)) {
            return Err(TagsError::at("", "the structural tag admits no text"));
        }
        Ok(dfa)
    }

    /// The DFA of a lowered regex (which may call machines), whatever it accepts.
    fn dfa(&self, regex: &str, automata: Vec<Arc<ByteDfa>>) -> Result<ByteDfa, TagsError> {
        self.dfa_within(regex, automata, None)
    }

    /// [`dfa`](Self::dfa) within the budget's deadline.
    fn dfa_within(
        &self,
        regex: &str,
        automata: Vec<Arc<ByteDfa>>,
        budget: Option<&Budget>,
    ) -> Result<ByteDfa, TagsError> {
        RegexBuilder::new()
            .state_limit(self.get_config().get_dfa_state_limit())
            .deadline(budget.and_then(Budget::deadline))
            .automata(automata)
            .build(regex)
            .map_err(|e| match budget {
                Some(b) if *e.kind() == RegexErrorKind::Deadline => {
                    b.out_of_time("", "building the byte automaton")
                }
                _ => {
                    let short: String = e.to_string().chars().take(300).collect();
                    TagsError::at("", format!("the automaton could not be built: {short}"))
                }
            })
    }

    /// For a tag that names tokens, the vocabulary of `trie` with their markers
    /// (`crate::special`), which the tag is composed with; `None` for one that names none.
    fn named_tokens(
        &self,
        tag: &StructuralTag,
        trie: &VocabTrie,
        stats: &mut CompileStats,
    ) -> Result<Option<Arc<VocabTrie>>, TagsError> {
        if !tag.format.names_tokens() {
            return Ok(None);
        }
        let ids = special::read_ids(tag, trie)?;
        let derived = stats.time("vocabulary with token markers", || {
            special::marker_trie_shared(trie, &ids)
        });
        Ok(Some(derived))
    }

    /// What is composed with the vocabulary of `trie`: the byte DFA, or for a tag that
    /// limits tokens the DFA of its markings with the marked vocabulary (`crate::tokens`).
    fn to_compose(
        &self,
        tag: &StructuralTag,
        trie: &VocabTrie,
        stats: &mut CompileStats,
        budget: &Budget,
    ) -> Result<ToCompose, TagsError> {
        if !tag.format.counts_tokens() {
            let (dfa, warnings) = stats.time("byte DFA", || {
                let language = Lowering::new(&self.json)
                    .with_budget(*budget)
                    .language(tag)?;
                let dfa = self.dfa_within(&language.regex, language.automata, Some(budget))?;
                if !(0..dfa.num_states() as u32).any(|s| dfa.is_accepting(s)) {
                    return Err(TagsError::at("", "the structural tag admits no text"));
                }
                Ok((dfa, language.warnings))
            })?;
            return Ok((dfa, warnings, None));
        }
        let (dfa, warnings) = stats.time("byte DFA of the markings", || self.markings(tag))?;
        let marked = stats.time("marked vocabulary", || tokens::marked_trie_shared(trie));
        Ok((dfa, warnings, Some(marked)))
    }

    /// The byte DFA of the markings of `tag` (`crate::tokens`): its texts with a marker
    /// after each token, within its token limits.
    fn markings(&self, tag: &StructuralTag) -> Result<(ByteDfa, Vec<Warning>), TagsError> {
        let language = Lowering::new(&self.json).with_markers().language(tag)?;
        let dfa = self.build(&language.regex, language.automata)?;
        let mut algebra = Algebra::new();
        algebra.state_limit(self.get_config().get_dfa_state_limit());
        let dfa = algebra
            .intersect(&dfa, &tokens::markings(&algebra))
            .map_err(|e| TagsError::at("", format!("the automaton could not be built: {e}")))?;
        if dfa.is_empty() {
            return Err(TagsError::at(
                "",
                "the structural tag admits no text within its token limits",
            ));
        }
        Ok((dfa, language.warnings))
    }

    /// Compiles `tag` for `vocab`: the token FSA of [`compile`](Self::compile), or when a
    /// piece is a recursive `grammar` (one whose language needs a stack), the token PDA of
    /// [`compile_pda_with_trie`](Self::compile_pda_with_trie).
    pub fn compile_any<V>(
        &self,
        tag: &StructuralTag,
        vocab: &V,
    ) -> Result<Compiled<AnyAutomaton>, TagsError>
    where
        V: TokenVocabulary + ?Sized,
    {
        Compiled::over_vocab_trie(vocab, |trie| self.compile_any_with_trie(tag, trie))
    }

    /// [`compile_any`](Self::compile_any) reusing a vocabulary trie built once.
    pub fn compile_any_with_trie(
        &self,
        tag: &StructuralTag,
        trie: &VocabTrie,
    ) -> Result<Compiled<AnyAutomaton>, TagsError> {
        if needs_stack(&tag.format, self.get_config().get_dfa_state_limit()) {
            let compiled = self.compile_pda_with_trie(tag, trie)?;
            return Ok(compiled.map(AnyAutomaton::Pda));
        }
        Ok(self.compile_with_trie(tag, trie)?.map(AnyAutomaton::Fsa))
    }

    /// Compiles `tag` to one token PDA over the vocabulary of `trie`: the tree becomes the
    /// start rule of one grammar (free text, literals, schemas and regexes as the same byte
    /// DFAs the token FSA is made of) and each `grammar` piece's rules join it renamed, so
    /// tokens cross every boundary as in the token FSA. For any structure; needed for one
    /// with a recursive `grammar` piece. Token limits (`max_tokens`) are refused by path.
    /// Runs within the JSON options' time and memory budgets, as the eager FSA compile.
    pub fn compile_pda_with_trie(
        &self,
        tag: &StructuralTag,
        trie: &VocabTrie,
    ) -> Result<Compiled<TokenPda>, TagsError> {
        let budget = Budget::start(self.get_config());
        let mut stats = CompileStats::new();
        let named = self.named_tokens(tag, trie, &mut stats)?;
        let own = trie;
        let trie = named.as_deref().unwrap_or(own);
        let (rules, warnings) = stats.time("rules", || {
            Lowering::<Expr>::new(&self.json)
                .with_budget(budget)
                .rules(tag)
        })?;
        // The grammar compile gets what is left of the budgets (its phases poll them).
        let config = fstc_pda::Config::new()
            .token_edge_limit(self.get_config().get_token_edge_limit())
            .time_budget(budget.time_left())
            .memory_budget(budget.memory());
        let compiled = GrammarCompiler::new()
            .configure(config)
            .compile_rules_with_trie(&rules, trie)
            .map_err(|e| budget.grammar_failed(&e))?;
        stats.extend(compiled.stats);
        let mut automaton = compiled.automaton;
        if named.is_some() {
            let mut parts = automaton.to_parts();
            parts.vocab_fingerprint = own.fingerprint();
            automaton = TokenPda::from_parts(parts)
                .map_err(|e| TagsError::at("", format!("the automaton could not be built: {e}")))?;
        }
        Ok(Compiled {
            automaton,
            stats,
            warnings,
        })
    }

    /// Compiles `tag` for `vocab` to a token FSA, building the vocabulary trie first (a
    /// phase of its own). A structure with a recursive `grammar` piece has none: the error names the
    /// piece ([`compile_any`](Self::compile_any) gives its token PDA).
    pub fn compile<V>(
        &self,
        tag: &StructuralTag,
        vocab: &V,
    ) -> Result<Compiled<TokenAutomaton>, TagsError>
    where
        V: TokenVocabulary + ?Sized,
    {
        Compiled::over_vocab_trie(vocab, |trie| self.compile_with_trie(tag, trie))
    }

    /// Compiles `tag` reusing a vocabulary trie built once.
    pub fn compile_with_trie(
        &self,
        tag: &StructuralTag,
        trie: &VocabTrie,
    ) -> Result<Compiled<TokenAutomaton>, TagsError> {
        let budget = Budget::start(self.get_config());
        let mut stats = CompileStats::new();
        let named = self.named_tokens(tag, trie, &mut stats)?;
        let own = trie;
        let trie = named.as_deref().unwrap_or(own);
        let pieced = match self.composition {
            Composition::Whole => Pieced::No,
            _ if tag.format.counts_tokens() => Pieced::No,
            _ => self.compile_pieces(tag, trie, &budget, &mut stats)?,
        };
        let (dfa, warnings, marked) = match pieced {
            Pieced::Compiled(compiled) if named.is_none() => return Ok(compiled),
            Pieced::Compiled(compiled) => {
                let automaton = restamped(compiled.automaton, own.fingerprint())?;
                return Ok(Compiled {
                    automaton,
                    ..compiled
                });
            }
            Pieced::Whole(dfa, warnings) => (dfa, warnings, None),
            Pieced::No => self.to_compose(tag, trie, &mut stats, &budget)?,
        };
        budget.check_time("", "building the byte automaton")?;
        let config = fstc_regex::Config::new()
            .dfa_state_limit(self.get_config().get_dfa_state_limit())
            .token_edge_limit(self.get_config().get_token_edge_limit())
            .memory_budget(budget.memory())
            .time_budget(fstc_regex::time_left(budget.deadline()));
        let composed = RegexCompiler::new()
            .configure(config)
            .compile_dfa_with_trie(
                &dfa,
                "the structural tag",
                marked.as_deref().unwrap_or(trie),
            )
            .map_err(|e| match e.kind() {
                BuildErrorKind::Compose { error, .. } => budget.composition_failed(error),
                _ => compose_error(&e),
            })?;
        stats.extend(composed.stats);
        let mut automaton = composed.automaton;
        if marked.is_some() || named.is_some() {
            automaton = restamped(automaton, own.fingerprint())?;
        }
        Ok(Compiled {
            automaton,
            stats,
            warnings,
        })
    }

    /// The token FSA of a structure with tag lists composed in pieces (`crate::pieces`):
    /// the dispatch and each distinct tool body on its own, joined at token level. `None`
    /// for a structure the pieces do not fit (no list, an exit that is not certain).
    fn compile_pieces(
        &self,
        tag: &StructuralTag,
        trie: &VocabTrie,
        budget: &Budget,
        stats: &mut CompileStats,
    ) -> Result<Pieced, TagsError> {
        let started = Instant::now();
        let lowered = Lowering::new(&self.json).with_budget(*budget).pieces(tag)?;
        let Some(language) = lowered else {
            return Ok(Pieced::No);
        };
        let leaves: usize = language.automata.iter().map(|a| a.num_states()).sum();
        if self.composition == Composition::Auto && leaves <= WHOLE_STATES {
            // One phase, as when the whole text is lowered for one DFA.
            let dfa = self.dfa_within(&language.whole, language.automata.clone(), Some(budget))?;
            stats.record("byte DFA", started.elapsed());
            if !(0..dfa.num_states() as u32).any(|s| dfa.is_accepting(s)) {
                return Err(TagsError::at("", "the structural tag admits no text"));
            }
            return Ok(Pieced::Whole(dfa, language.warnings));
        }
        stats.record("pieces", started.elapsed());
        let dfas = stats.time("byte DFAs", || {
            let automata = &language.automata;
            Ok::<_, TagsError>(PieceDfas {
                dispatch: self.dfa_within(&language.dispatch, automata.clone(), Some(budget))?,
                bodies: (language.bodies.iter())
                    .map(|body| self.dfa_within(body, automata.clone(), Some(budget)))
                    .collect::<Result<_, _>>()?,
                body_of_hole: language.body_of_hole.clone(),
            })
        })?;
        let limits = pieces::Limits {
            compose: ComposeLimits {
                token_edge_limit: self.get_config().get_token_edge_limit(),
                deadline: budget.deadline(),
                memory_limit: budget.memory(),
                ..ComposeLimits::default()
            },
            batch_entries: self.batch_entries.unwrap_or(pieces::BATCH_ENTRIES),
        };
        let Some((parts, sizes)) = pieces::compose(dfas, trie, &limits, budget, stats)? else {
            return Ok(Pieced::No);
        };
        stats.set_count("pieces", sizes.pieces);
        stats.set_count("batches", sizes.batches);
        stats.set_count("byte DFA states", sizes.byte_states);
        let laying_out = "laying out the token automaton";
        budget.check_time("", laying_out)?;
        let automaton = stats
            .time("layout", || {
                TokenAutomaton::from_class_parts_before(parts, budget.deadline())
            })
            .map_err(|e| TagsError::at("", format!("the automaton could not be built: {e}")))?
            .ok_or_else(|| budget.out_of_time("", laying_out))?;
        stats.count_automaton(&automaton);
        Ok(Pieced::Compiled(Compiled {
            automaton,
            stats: std::mem::take(stats),
            warnings: language.warnings,
        }))
    }

    /// The call network of the texts `tag` admits: the root machine is the tree with
    /// free text, literals and regexes inline, and each distinct JSON Schema is its own
    /// network (fstc-json's) whose root the tree calls, so the tools' schemas are never
    /// multiplied into one DFA. The state limit bounds each machine.
    pub fn call_network(&self, tag: &StructuralTag) -> Result<Compiled<CallNetwork>, TagsError> {
        special::no_tokens(tag)?;
        Ok(self.network_of(tag)?.0)
    }

    /// [`call_network`](Self::call_network), named tokens read as their markers, and the
    /// excluded strings of each free text without a limit.
    fn network_of(
        &self,
        tag: &StructuralTag,
    ) -> Result<(Compiled<CallNetwork>, Vec<Vec<String>>), TagsError> {
        let mut stats = CompileStats::new();
        let language = stats.time("machines", || {
            Lowering::new(&self.json).with_calls().language(tag)
        })?;
        let limit = self.get_config().get_dfa_state_limit();
        let root = stats.time("root machine", || {
            let build = |regex: &str, automata| self.build(regex, automata);
            networks::root_machine(limit, &language.regex, language.automata, build)
        })?;
        let mut builder = language.network.expect("lowered with calls");
        let root = builder.add_machine(root);
        let network = builder
            .finish(root)
            .map_err(|e| TagsError::at("", format!("the automaton could not be built: {e}")))?;
        stats.set_count("machines", network.num_machines());
        let compiled = Compiled {
            automaton: network,
            stats,
            warnings: language.warnings,
        };
        Ok((compiled, language.free_texts))
    }

    /// Compiles `tag` for lazy matching over the vocabulary of `trie` (each state's
    /// tokens composed when a walk first reaches it): for one-off requests. The call
    /// network ([`call_network`](Self::call_network)) is walked; on a vocabulary without
    /// every byte as a token of its own, the one byte DFA of [`byte_dfa`](Self::byte_dfa).
    /// A tag that limits tokens is composed from the DFA of its markings (`crate::tokens`)
    /// with the marked vocabulary; where a state's short tokens do not show it can still
    /// end within its limits, the lazy automaton searches its tokens when a walk needs it.
    pub fn compile_lazy(
        &self,
        tag: &StructuralTag,
        trie: Arc<VocabTrie>,
    ) -> Result<Compiled<LazyAutomaton>, TagsError> {
        let mut named = CompileStats::new();
        let trie = self.named_tokens(tag, &trie, &mut named)?.unwrap_or(trie);
        if tag.format.counts_tokens() {
            return self.compile_lazy_counted(tag, &trie);
        }
        let (network, free_texts) = self.network_of(tag)?;
        let mut stats = named;
        stats.extend(network.stats);
        // A free text whose strings pass `FreeText`'s bound is composed by walks.
        let free_texts = free_texts.iter().filter_map(|t| FreeText::new(t)).collect();
        let lazy = stats.time("lazy automaton", || {
            let network = Arc::new(network.automaton);
            LazyAutomaton::with_calls_and_free_text(network, trie.clone(), free_texts)
        });
        if let Ok(automaton) = lazy {
            return Ok(Compiled {
                automaton,
                stats,
                warnings: network.warnings,
            });
        }
        let (dfa, warnings) = stats.time("byte DFA", || self.byte_dfa_of(tag))?;
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

impl StructuralTagCompiler {
    /// The lazy compile of a tag that limits tokens: the DFA of its markings (the
    /// segments' products with token counters, `crate::tokens`) composed on demand with
    /// the marked vocabulary, whose token ids are the vocabulary's.
    fn compile_lazy_counted(
        &self,
        tag: &StructuralTag,
        trie: &VocabTrie,
    ) -> Result<Compiled<LazyAutomaton>, TagsError> {
        let mut stats = CompileStats::new();
        let (dfa, warnings) = stats.time("byte DFA of the markings", || self.markings(tag))?;
        stats.set_count("byte DFA states", dfa.num_states());
        let marked = stats.time("marked vocabulary", || tokens::marked_trie_shared(trie));
        let automaton = stats
            .time("lazy automaton", || LazyAutomaton::new(&dfa, marked))
            .map_err(|e| TagsError::at("", format!("the automaton could not be built: {e}")))?;
        Ok(Compiled {
            automaton,
            stats,
            warnings,
        })
    }
}

/// `automaton`, composed with a vocabulary derived from the caller's (marked, or with
/// markers for named tokens), with the caller's fingerprint: its token ids are the
/// caller's vocabulary's, and the file says so.
fn restamped(automaton: TokenAutomaton, fingerprint: u64) -> Result<TokenAutomaton, TagsError> {
    let mut parts = automaton.to_class_parts();
    parts.vocab_fingerprint = fingerprint;
    TokenAutomaton::from_class_parts(parts)
        .map_err(|e| TagsError::at("", format!("the automaton could not be built: {e}")))
}

/// A composition error, without the generated pattern.
fn compose_error(error: &BuildError) -> TagsError {
    let message = match error.kind() {
        BuildErrorKind::Compose { error, .. } => error.to_string(),
        _ => error.to_string(),
    };
    TagsError::at("", format!("the automaton could not be built: {message}"))
}
