//! Helpers shared by the tests: a walker written from the token PDA contract alone, run
//! side by side with fstc-core's `PdaWalker` (through `Matcher`) on the compiler's parts,
//! and tokenizations.

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
/// stack at an accepting node.
#[derive(Clone, Debug)]
pub struct RefWalker<'p> {
    parts: &'p PdaParts,
    node: u32,
    stack: Vec<u32>,
    finished: bool,
    limit: usize,
}

impl<'p> RefWalker<'p> {
    pub fn new(parts: &'p PdaParts) -> RefWalker<'p> {
        RefWalker {
            parts,
            node: parts.start,
            stack: Vec::new(),
            finished: false,
            limit: fstc_core::pda_walker::DEFAULT_STACK_LIMIT,
        }
    }

    /// The stack depth now.
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// The pop chain: `(symbols popped, node)`.
    fn chain(&self) -> Vec<(usize, u32)> {
        let mut out = vec![(0, self.node)];
        let mut node = self.node;
        for (k, sym) in self.stack.iter().rev().enumerate() {
            let pops = &self.parts.pops[node as usize];
            match pops.iter().find(|p| p.0 == *sym) {
                Some(&(_, next)) => {
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
            && self
                .chain()
                .iter()
                .any(|&(k, n)| k == self.stack.len() && self.parts.accepting[n as usize])
    }

    /// The edge a text token takes: symbols popped, target, push sequence.
    fn edge(&self, token: u32) -> Option<(usize, u32, u32)> {
        let class = *self.parts.class_of_token.get(token as usize)?;
        if self.finished || class == NO_CLASS {
            return None;
        }
        let (k, target, push) = self.chain().into_iter().find_map(|(k, n)| {
            let e = self.parts.edges[n as usize]
                .iter()
                .find(|e| e.class == class)?;
            Some((k, e.target, e.push))
        })?;
        let depth = self.stack.len() - k + self.parts.push_seqs[push as usize].len();
        (depth <= self.limit).then_some((k, target, push))
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
        // Per class: whether its first chain node takes it within the limit.
        let mut classes = vec![None; self.parts.num_classes as usize];
        for (k, n) in self.chain() {
            for e in &self.parts.edges[n as usize] {
                let depth = self.stack.len() - k + self.parts.push_seqs[e.push as usize].len();
                classes[e.class as usize].get_or_insert(depth <= self.limit);
            }
        }
        let eos = self.eos_allowed();
        (0..self.parts.vocab_size)
            .filter(|&t| {
                let c = self.parts.class_of_token[t as usize];
                if self.is_eos(t) {
                    eos
                } else {
                    c != NO_CLASS && classes[c as usize] == Some(true)
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
        let Some((k, target, push)) = self.edge(token) else {
            return false;
        };
        self.stack.truncate(self.stack.len() - k);
        self.stack
            .extend_from_slice(&self.parts.push_seqs[push as usize]);
        self.node = target;
        true
    }

    fn finished(&self) -> bool {
        self.finished
    }
}

/// The allowed tokens of a matcher, from its mask (sorted).
pub fn matcher_allowed(m: &impl Matcher) -> Vec<u32> {
    let mut mask = vec![u32::MAX; m.mask_words() + 1];
    m.fill_mask(&mut mask).unwrap();
    (0..mask.len() as u32 * 32)
        .filter(|&t| mask[t as usize / 32] >> (t % 32) & 1 == 1)
        .collect()
}

/// The reference walker and fstc-core's walker in lockstep: every step checks that both
/// allow the same tokens and take or refuse the token alike.
#[derive(Clone)]
pub struct Both<'p> {
    pub reference: RefWalker<'p>,
    pub matcher: PdaWalker<'p>,
}

impl<'p> Both<'p> {
    pub fn new(parts: &'p PdaParts, pda: &'p TokenPda) -> Both<'p> {
        Both {
            reference: RefWalker::new(parts),
            matcher: PdaWalker::new(pda),
        }
    }

    /// Both walkers with at most `limit` stack symbols.
    pub fn with_stack_limit(self, limit: usize) -> Both<'p> {
        Both {
            reference: RefWalker {
                limit,
                ..self.reference
            },
            matcher: self.matcher.with_stack_limit(limit),
        }
    }
}

impl Walk for Both<'_> {
    /// Also checks the first forced token (exactly when the reference allows one token,
    /// not EOS) and `only_eos_allowed` (exactly when every allowed token is EOS).
    fn allowed(&self) -> Vec<u32> {
        let allowed = self.reference.allowed();
        assert_eq!(
            matcher_allowed(&self.matcher),
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
            .unwrap(),
    )
}

pub fn token_pda(text: &str, vocab: &impl TokenVocabulary) -> Compiled {
    compile(&pda_of(text), vocab)
}
