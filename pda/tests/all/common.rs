//! Helpers shared by the tests: a walker written from the token PDA contract alone, run
//! side by side with fstc-core's `PdaWalker` (through `Matcher`) on the compiler's parts,
//! and tokenizations.

use fstc_core::glr_walker::GlrWalker;
use fstc_core::matcher::Matcher;
use fstc_core::parts::{PdaParts, NO_CLASS};
use fstc_core::pda_walker::PdaWalker;
use fstc_core::sample::SplitMix64;
use fstc_core::token_pda::TokenPda;
use fstc_core::vocab::VocabTrie;
use fstc_core::{ByteVocabulary, TokenVocabulary};
use fstc_pda::{GrammarCompiler, Pda};

/// The contract's semantics, directly: a configuration is a node and a stack; a token is
/// allowed at the first node of the pop chain that has an edge for its class, unless it
/// would leave more than `limit` symbols on the stack; EOS where the chain empties the
/// stack at an accepting node. For a nondeterministic PDA, by brute force: every
/// configuration (node, explicit stack), every chain node, every edge of the class.
#[derive(Clone, Debug)]
pub struct RefWalker<'p> {
    parts: &'p PdaParts,
    configs: Vec<(u32, Vec<u32>)>,
    finished: bool,
    limit: usize,
    deterministic: bool,
}

impl<'p> RefWalker<'p> {
    pub fn new(parts: &'p PdaParts) -> RefWalker<'p> {
        RefWalker {
            parts,
            configs: vec![(parts.start, Vec::new())],
            finished: false,
            limit: fstc_core::pda_walker::DEFAULT_STACK_LIMIT,
            deterministic: parts.is_deterministic(),
        }
    }

    /// The configurations `(node, stack)` now, sorted.
    pub fn configs(&self) -> &[(u32, Vec<u32>)] {
        &self.configs
    }

    /// The deepest stack now.
    pub fn depth(&self) -> usize {
        self.configs.iter().map(|c| c.1.len()).max().unwrap_or(0)
    }

    /// The pop chain of a configuration: `(symbols popped, node)`.
    fn chain(&self, node: u32, stack: &[u32]) -> Vec<(usize, u32)> {
        let mut out = vec![(0, node)];
        let mut node = node;
        for (k, sym) in stack.iter().rev().enumerate() {
            match self.parts.pop_target(node, *sym) {
                Some(next) => {
                    node = next;
                    out.push((k + 1, node));
                }
                None => break,
            }
        }
        out
    }

    fn eos_allowed(&self) -> bool {
        !self.finished
            && self.configs.iter().any(|(node, stack)| {
                self.chain(*node, stack)
                    .iter()
                    .any(|&(k, n)| k == stack.len() && self.parts.accepting[n as usize])
            })
    }

    /// The configurations a text token leads to (sorted, distinct; empty if refused).
    fn results(&self, token: u32) -> Vec<(u32, Vec<u32>)> {
        let Some(&class) = self.parts.class_of_token.get(token as usize) else {
            return Vec::new();
        };
        if self.finished || class == NO_CLASS {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (node, stack) in &self.configs {
            for (k, n) in self.chain(*node, stack) {
                let edges: Vec<_> = self.parts.edges[n as usize]
                    .iter()
                    .filter(|e| e.class == class)
                    .collect();
                for e in &edges {
                    let mut next = stack[..stack.len() - k].to_vec();
                    next.extend_from_slice(&self.parts.push_seqs[e.push as usize]);
                    if next.len() <= self.limit {
                        out.push((e.target, next));
                    }
                }
                // A deterministic PDA's first chain node with the class decides.
                if self.deterministic && !edges.is_empty() {
                    break;
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    pub fn is_eos(&self, token: u32) -> bool {
        self.parts.eos_ids.contains(&token)
    }
}

/// What the tests need of a walker.
pub trait Walk {
    /// The allowed token ids, sorted, EOS included where allowed.
    fn allowed(&self) -> Vec<u32>;
    /// Consumes `token`; `false` (and no change) when it is not allowed.
    fn step(&mut self, token: u32) -> bool;
    /// Whether EOS was consumed.
    fn finished(&self) -> bool;
}

impl Walk for RefWalker<'_> {
    fn allowed(&self) -> Vec<u32> {
        if self.finished {
            return Vec::new();
        }
        let eos = self.eos_allowed();
        (0..self.parts.vocab_size)
            .filter(|&t| {
                if self.is_eos(t) {
                    eos
                } else {
                    !self.results(t).is_empty()
                }
            })
            .collect()
    }

    fn step(&mut self, token: u32) -> bool {
        if self.is_eos(token) {
            if !self.eos_allowed() {
                return false;
            }
            self.finished = true;
            return true;
        }
        let next = self.results(token);
        if next.is_empty() {
            return false;
        }
        self.configs = next;
        true
    }

    fn finished(&self) -> bool {
        self.finished
    }
}

/// The allowed tokens of a matcher, from its mask (sorted).
pub fn matcher_allowed(m: &(impl Matcher + ?Sized)) -> Vec<u32> {
    let mut mask = vec![u32::MAX; m.mask_words() + 1];
    m.fill_mask(&mut mask).unwrap();
    (0..mask.len() as u32 * 32)
        .filter(|&t| mask[t as usize / 32] >> (t % 32) & 1 == 1)
        .collect()
}

/// The reference walker and fstc-core's walker in lockstep: every step checks that both
/// allow the same tokens and take or refuse the token alike.
pub struct Both<'p> {
    pub reference: RefWalker<'p>,
    /// fstc-core's walker of the PDA's kind: a `PdaWalker`, or a `GlrWalker` for a
    /// nondeterministic PDA.
    pub matcher: Box<dyn Matcher + 'p>,
}

impl<'p> Both<'p> {
    pub fn new(parts: &'p PdaParts, pda: &'p TokenPda) -> Both<'p> {
        Both::limited(parts, pda, fstc_core::pda_walker::DEFAULT_STACK_LIMIT)
    }

    /// Both walkers with at most `limit` stack symbols.
    pub fn limited(parts: &'p PdaParts, pda: &'p TokenPda, limit: usize) -> Both<'p> {
        assert_eq!(pda.is_deterministic(), parts.is_deterministic());
        let matcher: Box<dyn Matcher + 'p> = if pda.is_deterministic() {
            Box::new(PdaWalker::new(pda).with_stack_limit(limit))
        } else {
            Box::new(GlrWalker::new(pda).with_stack_limit(limit))
        };
        Both {
            reference: RefWalker {
                limit,
                ..RefWalker::new(parts)
            },
            matcher,
        }
    }
}

impl Walk for Both<'_> {
    /// Also checks the first forced token (exactly when the reference allows one token,
    /// not EOS) and `only_eos_allowed` (exactly when every allowed token is EOS).
    fn allowed(&self) -> Vec<u32> {
        let allowed = self.reference.allowed();
        assert_eq!(
            matcher_allowed(&*self.matcher),
            allowed,
            "fstc-core's walker and the reference disagree"
        );
        let single = match allowed[..] {
            [t] if !self.reference.is_eos(t) => Some(t),
            _ => None,
        };
        assert_eq!(
            self.matcher.forced_tokens().first().copied(),
            single,
            "forced token against {allowed:?}"
        );
        let only_eos = !allowed.is_empty() && allowed.iter().all(|&t| self.reference.is_eos(t));
        assert_eq!(
            self.matcher.only_eos_allowed(),
            only_eos,
            "only_eos_allowed against {allowed:?}"
        );
        allowed
    }

    fn step(&mut self, token: u32) -> bool {
        let taken = self.reference.step(token);
        assert_eq!(self.matcher.is_allowed(token), taken, "token {token}");
        assert_eq!(self.matcher.consume(token).is_ok(), taken, "token {token}");
        taken
    }

    fn finished(&self) -> bool {
        assert_eq!(self.matcher.is_finished(), self.reference.finished());
        self.reference.finished()
    }
}

/// The runtime token PDA of `parts` (checked and laid out by fstc-core).
pub fn runtime(parts: &PdaParts) -> TokenPda {
    TokenPda::from_parts(parts.clone()).unwrap()
}

/// The compiler's parts and fstc-core's token PDA of them, built once.
pub struct Compiled {
    pub parts: PdaParts,
    pub rt: TokenPda,
}

impl Compiled {
    pub fn new(parts: PdaParts) -> Compiled {
        let rt = runtime(&parts);
        Compiled { parts, rt }
    }

    pub fn walker(&self) -> Both<'_> {
        Both::new(&self.parts, &self.rt)
    }

    /// Both walkers with at most `limit` stack symbols.
    pub fn walker_limited(&self, limit: usize) -> Both<'_> {
        Both::limited(&self.parts, &self.rt, limit)
    }
}

impl std::ops::Deref for Compiled {
    type Target = PdaParts;

    fn deref(&self) -> &PdaParts {
        &self.parts
    }
}

/// Runs `tokens` then EOS with both walkers; `true` when every token is taken and the
/// walk finishes. At every step, checks that the allowed set says exactly what `step`
/// does for the ids below `probe`, and that `validate_tokens` (no mutation) agrees.
pub fn run_tokens(tpda: &Compiled, probe: u32, tokens: &[u32]) -> bool {
    let all: Vec<u32> = tokens.iter().chain(tpda.eos_ids.first()).copied().collect();
    let mut w = tpda.walker();
    let valid = w.matcher.validate_tokens(&all);
    for (i, &t) in all.iter().enumerate() {
        let allowed = w.allowed();
        for id in 0..probe {
            let mut copy = w.reference.clone();
            assert_eq!(
                copy.step(id),
                allowed.contains(&id),
                "allowed set and step disagree on token {id}"
            );
        }
        if !w.step(t) {
            assert_eq!(valid, i, "validate_tokens");
            return false;
        }
    }
    assert_eq!(valid, all.len(), "validate_tokens");
    w.finished()
}

/// A random tokenization of `text`: at each position, a random token that fits. Panics
/// when no token fits, so give `vocab` every single byte the texts use.
pub fn random_tokenization(vocab: &ByteVocabulary, text: &[u8], rng: &mut SplitMix64) -> Vec<u32> {
    let mut ids = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let fits: Vec<u32> = (0..vocab.len() as u32)
            .filter(|&id| {
                vocab
                    .token_bytes(id)
                    .is_some_and(|t| !t.is_empty() && text[pos..].starts_with(t))
            })
            .collect();
        assert!(!fits.is_empty(), "no token spells the text at byte {pos}");
        let id = fits[rng.index(fits.len())];
        ids.push(id);
        pos += vocab.token_bytes(id).unwrap().len();
    }
    ids
}

/// The paper's Figure 6 grammar as printed: a^n b^n, n >= 1.
pub const ANBN: &str = r#"S -> "ab" | "a" S "b" ;"#;

/// The paper's Figure 7 vocabulary; `from_strs` adds EOS as id 4.
pub fn figure7_vocab() -> ByteVocabulary {
    ByteVocabulary::from_strs(&["a", "b", "bb", "aaab"])
}

pub fn pda_of(text: &str) -> Pda {
    Pda::from_gbnf(text).unwrap()
}

pub fn compile(pda: &Pda, vocab: &impl TokenVocabulary) -> Compiled {
    Compiled::new(
        GrammarCompiler::new()
            .compose(pda, &VocabTrie::new(vocab))
            .unwrap()
            .automaton,
    )
}

pub fn token_pda(text: &str, vocab: &impl TokenVocabulary) -> Compiled {
    compile(&pda_of(text), vocab)
}
