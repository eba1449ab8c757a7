//! Walking a token PDA at decode time: the stack, masks, consuming tokens, rolling back.
//!
//! A [`PdaWalker`] is a token PDA's [`Matcher`](crate::matcher::Matcher): a node and a stack of return addresses.
//! The stack lives in an arena of `(symbol, parent)` entries, so a configuration is a
//! node and the index of its top entry: pushing appends entries, popping follows parent
//! links, and each consumed token records the configuration before it plus the arena
//! length, so rolling back `n` tokens is `n` steps and a truncation, never a copy of the
//! stack. A token is looked up along the *pop chain* (see [`PdaParts`]): the current
//! node, then the node reached by popping the top symbol, and so on; the mask is the OR
//! of the chain nodes' class masks, plus EOS where the chain empties the stack at an
//! accepting node. `fill_mask` reads that OR off the PDA's pop closure
//! (`pop_closure.rs`): the chain is followed through a table, and the state it
//! ends in carries the union (one dense copy, or a few class words).
//!
//! [`PdaParts`]: crate::parts::PdaParts

use std::ops::Deref;

use crate::matcher::{stack_limit_error, History, MatchError};
use crate::parts::StateId;
use crate::pop_closure::NO_STATE;
use crate::token_pda::TokenPda;

/// Default most stack symbols a walker holds: a push past it is an error.
pub const DEFAULT_STACK_LIMIT: usize = 10_000;

/// Arena index meaning "no entry": the bottom of the stack.
const BOTTOM: u32 = u32::MAX;

/// A configuration: a node and the top of its stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Config {
    node: StateId,
    /// Arena index of the top symbol, [`BOTTOM`] for an empty stack.
    top: u32,
    /// Number of symbols on the stack.
    depth: u32,
}

/// What one consumed token recorded: the configuration before it and the arena length,
/// which rolling it back restores.
#[derive(Clone, Copy, Debug)]
struct Undo {
    before: Config,
    arena_len: u32,
}

/// Where a token leads from a configuration.
enum Found {
    /// Pop to the stack whose top is `top` (`pops` symbols), push `push`, go to `target`.
    Edge {
        pops: u32,
        top: u32,
        target: StateId,
        push: u32,
    },
    Eos,
}

/// A position in a token PDA with its stack and the history needed to roll back; `A`
/// holds the PDA: a reference ([`PdaWalker`]) or an `Arc` ([`OwnedPdaWalker`]).
#[derive(Clone, Debug)]
pub struct PdaWalkerOf<A> {
    pda: A,
    config: Config,
    /// Stack entries `(symbol, arena index of the entry below)`; entries of popped
    /// symbols stay until a rollback or reset truncates past them.
    arena: Vec<(u32, u32)>,
    history: History<Undo>,
    stack_limit: usize,
}

crate::matcher::walker_holders!(PdaWalkerOf, TokenPda, PdaWalker, OwnedPdaWalker);

impl<W, A> PdaWalkerOf<A>
where
    W: AsRef<[u32]>,
    A: Deref<Target = TokenPda<W>>,
{
    fn at_start(pda: A) -> PdaWalkerOf<A> {
        let node = pda.start();
        PdaWalkerOf {
            pda,
            config: Config {
                node,
                top: BOTTOM,
                depth: 0,
            },
            arena: Vec::new(),
            history: History::default(),
            stack_limit: DEFAULT_STACK_LIMIT,
        }
    }

    /// The same walker with at most `limit` stack symbols: a token that would push past
    /// it is not in the mask, and consuming it is refused with
    /// [`MatchErrorKind::StackLimit`](crate::matcher::MatchErrorKind::StackLimit). The limit is part of the language, like a depth
    /// bound.
    pub fn with_stack_limit(mut self, limit: usize) -> PdaWalkerOf<A> {
        self.stack_limit = limit;
        self
    }

    /// The PDA being walked.
    pub fn pda(&self) -> &A {
        &self.pda
    }

    /// The current node.
    pub fn node(&self) -> StateId {
        self.config.node
    }

    /// The stack, bottom to top (allocates; for tests and tools).
    pub fn stack(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.config.depth as usize);
        let mut at = self.config.top;
        while at != BOTTOM {
            let (symbol, parent) = self.arena[at as usize];
            out.push(symbol);
            at = parent;
        }
        out.reverse();
        out
    }

    /// Back to the start with an empty stack and nothing consumed.
    pub fn reset(&mut self) {
        self.config = Config {
            node: self.pda.start(),
            top: BOTTOM,
            depth: 0,
        };
        self.arena.clear();
        self.history.clear();
    }

    /// Number of tokens consumed since the start, EOS included.
    pub fn num_consumed(&self) -> usize {
        self.history.len()
    }

    /// Whether EOS has been consumed.
    pub fn is_finished(&self) -> bool {
        self.history.finished
    }

    /// Whether EOS may be consumed here (or was): the pop chain empties the stack at an
    /// accepting node.
    pub fn is_accepting(&self) -> bool {
        self.history.finished || self.eos_allowed(self.config, &|i| self.arena[i as usize])
    }

    /// Whether EOS is the only choice: EOS is allowed and no node of the pop chain has a
    /// token edge (the mask is the OR of their edges) that the stack limit lets through.
    /// Walks the chain once, no mask.
    pub fn only_eos_allowed(&self) -> bool {
        if self.history.finished || !self.is_accepting() {
            return false;
        }
        let config = self.config;
        let entry = |i: u32| self.arena[i as usize];
        let near_limit = config.depth as usize + self.pda.max_push() > self.stack_limit;
        // Near the limit a class counts where its first chain node lets it through.
        let allowed_edge = |k, node, _| {
            self.pda
                .edges(node)
                .find(|&(class, _, push)| {
                    !near_limit
                        || !(self.too_deep_edge(config, k, push)
                            || self.earlier_edge(config, &entry, k, class))
                })
                .map(|_| ())
        };
        self.walk_chain(config, &entry, allowed_edge).is_none()
    }

    /// The pop chain of `config`: calls `visit(k, node, top)` for each chain node `n_k`
    /// (`top` the stack top after `k` pops) until it returns `Some`, and returns that;
    /// `None` when the chain ends first.
    fn walk_chain<T>(
        &self,
        config: Config,
        entry: &impl Fn(u32) -> (u32, u32),
        mut visit: impl FnMut(u32, StateId, u32) -> Option<T>,
    ) -> Option<T> {
        let (mut node, mut top) = (config.node, config.top);
        for k in 0..=config.depth {
            if let Some(found) = visit(k, node, top) {
                return Some(found);
            }
            if top == BOTTOM {
                break;
            }
            let (symbol, parent) = entry(top);
            node = self.pda.pop_target(node, symbol)?;
            top = parent;
        }
        None
    }

    /// Whether the pop chain of `config` pops every symbol and ends at an accepting node.
    fn eos_allowed(&self, config: Config, entry: &impl Fn(u32) -> (u32, u32)) -> bool {
        self.walk_chain(config, entry, |k, node, _| {
            (k == config.depth && self.pda.is_accepting(node)).then_some(())
        })
        .is_some()
    }

    /// Where `token` leads from `config` (the stack read through `entry`), if allowed.
    fn find(
        &self,
        config: Config,
        entry: &impl Fn(u32) -> (u32, u32),
        token: u32,
    ) -> Option<Found> {
        match self.pda.token_class(token) {
            Some(class) => self.walk_chain(config, entry, |k, node, top| {
                let (target, push) = self.pda.edge(node, class)?;
                Some(Found::Edge {
                    pops: k,
                    top,
                    target,
                    push,
                })
            }),
            None if self.pda.is_eos(token) && self.eos_allowed(config, entry) => Some(Found::Eos),
            None => None,
        }
    }

    /// Writes the allowed tokens into `mask` (at least `vocab_size` bits; every word is
    /// written, bits past the vocabulary stay 0, nothing after EOS). The pop chain is
    /// followed through the PDA's pop closure to a state carrying the OR of the chain's
    /// masks: a few table hops and one mask copy (or a few class words), without
    /// allocating. Exact at the stack limit: near it (depth plus the longest push past
    /// the limit), tokens that would push past it are cleared.
    pub fn fill_mask(&self, mask: &mut [u32]) -> Result<(), MatchError> {
        let need = crate::matcher::mask_width(mask, self.pda.vocab_size())?;
        if self.history.finished {
            mask.fill(0);
            return Ok(());
        }
        let (mask, rest) = mask.split_at_mut(need);
        rest.fill(0);
        let entry = |i: u32| self.arena[i as usize];
        let end = self.chain_end(self.config, &entry);
        if !self.pda.closure().write_mask(&*self.pda, end.state, mask) {
            mask.fill(0);
        }
        if let Some(rest) = end.rest {
            self.walk_chain::<()>(rest, &entry, |_, node, _| {
                self.pda.or_node_mask(node, mask);
                None
            });
        }
        if self.config.depth as usize + self.pda.max_push() > self.stack_limit {
            self.clear_too_deep(self.config, &entry, mask);
        }
        if end.pops == self.config.depth && self.pda.is_accepting(end.node) {
            for &e in self.pda.eos_ids() {
                mask[(e / 32) as usize] |= 1 << (e % 32);
            }
        }
        Ok(())
    }

    /// Follows the pop chain of `config` to its end: the last node, the symbols popped to
    /// reach it, the pop-closure state of the chain's head (`NO_STATE` if none) and the
    /// rest of the chain past that head, if any.
    fn chain_end(&self, config: Config, entry: &impl Fn(u32) -> (u32, u32)) -> ChainEnd {
        let closure = self.pda.closure();
        let (mut node, mut top) = (config.node, config.top);
        let mut state = closure.start(node);
        let mut rest = (state == NO_STATE).then_some(config);
        let mut pops = 0;
        while top != BOTTOM {
            let (symbol, parent) = entry(top);
            let Some((i, next)) = self.pda.pop_edge(node, symbol) else {
                break;
            };
            (node, top, pops) = (next, parent, pops + 1);
            if rest.is_none() {
                match closure.next(state, i) {
                    NO_STATE => {
                        rest = Some(Config {
                            node,
                            top,
                            depth: config.depth - pops,
                        })
                    }
                    s => state = s,
                }
            }
        }
        ChainEnd {
            node,
            pops,
            state,
            rest,
        }
    }

    /// Whether the token edge for `class` at `node` (chain node `k` of `config`) is refused
    /// by the stack limit: it would leave more symbols than the limit allows.
    fn too_deep_edge(&self, config: Config, k: u32, push: u32) -> bool {
        (config.depth - k) as usize + self.pda.push_seq(push).len() > self.stack_limit
    }

    /// Clears from `mask` the tokens whose edge (at the first chain node with their class)
    /// would push past the stack limit: the slow path of [`fill_mask`](Self::fill_mask).
    fn clear_too_deep(&self, config: Config, entry: &impl Fn(u32) -> (u32, u32), mask: &mut [u32]) {
        self.walk_chain::<()>(config, entry, |k, node, _| {
            for (class, _, push) in self.pda.edges(node) {
                if self.too_deep_edge(config, k, push)
                    && !self.earlier_edge(config, entry, k, class)
                {
                    for pair in self.pda.class_mask_words(class).chunks_exact(2) {
                        if let Some(slot) = mask.get_mut(pair[0] as usize) {
                            *slot &= !pair[1];
                        }
                    }
                }
            }
            None
        });
    }

    /// Whether a chain node before node `k` of `config`'s chain has an edge for `class`
    /// (and so decides its tokens).
    fn earlier_edge(
        &self,
        config: Config,
        entry: &impl Fn(u32) -> (u32, u32),
        k: u32,
        class: u32,
    ) -> bool {
        self.walk_chain(config, entry, |j, node, _| {
            if j == k {
                Some(false)
            } else {
                self.pda.edge(node, class).map(|_| true)
            }
        })
        .unwrap_or(false)
    }

    /// Whether `token` may come next (within the stack limit, as the mask says).
    pub fn is_allowed(&self, token: u32) -> bool {
        if self.history.finished {
            return false;
        }
        match self.find(self.config, &|i| self.arena[i as usize], token) {
            Some(Found::Edge { pops, push, .. }) => {
                let depth = (self.config.depth - pops) as usize;
                depth + self.pda.push_seq(push).len() <= self.stack_limit
            }
            Some(Found::Eos) => true,
            None => false,
        }
    }

    /// Consumes one token: pops, pushes and moves as the PDA says, or finishes on an
    /// allowed EOS. A refused token (not allowed, out of the vocabulary, or a push past
    /// the stack limit) is an error and changes nothing.
    pub fn consume(&mut self, token: u32) -> Result<(), MatchError> {
        let node = self.config.node;
        self.history
            .check_open(token, || format!(" at node {node}"))?;
        let found = self.find(self.config, &|i| self.arena[i as usize], token);
        let undo = Undo {
            before: self.config,
            arena_len: self.arena.len() as u32,
        };
        match found {
            None => Err(self.not_allowed(token)),
            Some(Found::Eos) => {
                self.history.push(undo, true);
                Ok(())
            }
            Some(Found::Edge {
                pops,
                top,
                target,
                push,
            }) => {
                let seq = self.pda.push_seq(push);
                let depth = (self.config.depth - pops) as usize + seq.len();
                if depth > self.stack_limit {
                    return Err(self.too_deep(token, depth));
                }
                let mut top = top;
                for &symbol in seq {
                    self.arena.push((symbol, top));
                    top = self.arena.len() as u32 - 1;
                }
                self.history.push(undo, false);
                self.config = Config {
                    node: target,
                    top,
                    depth: depth as u32,
                };
                Ok(())
            }
        }
    }

    fn too_deep(&self, token: u32, depth: usize) -> MatchError {
        let at = format!(" at node {}", self.config.node);
        stack_limit_error(token, &at, depth, self.stack_limit)
    }

    fn not_allowed(&self, token: u32) -> MatchError {
        let (node, depth) = (self.config.node, self.config.depth);
        (self.pda).refusal(token, &format!("at node {node} with {depth} stack symbols"))
    }

    /// Consumes all of `tokens` or, if one is refused, none of them; the error names the
    /// position of the first refused token.
    pub fn consume_tokens(&mut self, tokens: &[u32]) -> Result<(), MatchError> {
        crate::matcher::consume_all(self, tokens)
    }

    /// How many leading tokens of `tokens` would be accepted from here, without moving:
    /// pushes go to a lookahead overlay past the arena, which stays untouched.
    pub fn validate_tokens(&self, tokens: &[u32]) -> usize {
        if self.history.finished {
            return 0;
        }
        let mut look = Lookahead::new(&self.arena);
        let mut config = self.config;
        for (i, &t) in tokens.iter().enumerate() {
            match self.step_ahead(&mut look, config, t) {
                Ahead::To(next) => config = next,
                Ahead::Eos => return i + 1,
                Ahead::Refused => return i,
            }
        }
        tokens.len()
    }

    /// Where `token` leads from `config` in the lookahead `look`, pushing there.
    fn step_ahead(&self, look: &mut Lookahead<'_>, config: Config, token: u32) -> Ahead {
        let (pops, mut top, target, push) = match self.find(config, &|i| look.entry(i), token) {
            Some(Found::Edge {
                pops,
                top,
                target,
                push,
            }) => (pops, top, target, push),
            Some(Found::Eos) => return Ahead::Eos,
            None => return Ahead::Refused,
        };
        let seq = self.pda.push_seq(push);
        let depth = (config.depth - pops) as usize + seq.len();
        if depth > self.stack_limit {
            return Ahead::Refused;
        }
        for &symbol in seq {
            top = look.push((symbol, top));
        }
        Ahead::To(Config {
            node: target,
            top,
            depth: depth as u32,
        })
    }

    /// Undoes the last `n` consumed tokens (EOS included) in O(n). Fails, changing
    /// nothing, if fewer than `n` were consumed.
    pub fn rollback(&mut self, n: usize) -> Result<(), MatchError> {
        if let Some(undo) = self.history.rollback(n)? {
            self.config = undo.before;
            self.arena.truncate(undo.arena_len as usize);
        }
        Ok(())
    }

    /// The tokens the constraint forces from here: while EOS is not allowed and exactly
    /// one token is, that token. Bounded by the number of nodes plus the stack limit, so
    /// a forced cycle stays finite.
    pub fn forced_tokens(&self) -> Vec<u32> {
        let mut out = Vec::new();
        if self.history.finished {
            return out;
        }
        let mut look = Lookahead::new(&self.arena);
        let mut config = self.config;
        let bound = self.pda.num_nodes() as usize + self.stack_limit;
        for _ in 0..bound {
            let Some(token) = self.single_allowed_token(&look, config) else {
                break;
            };
            match self.step_ahead(&mut look, config, token) {
                Ahead::To(next) => config = next,
                _ => break,
            }
            out.push(token);
        }
        out
    }

    /// The only token allowed at `config`, if exactly one is and EOS is not: the classes
    /// of the chain are counted once each (a class on two chain nodes is decided by the
    /// first), and those refused by the stack limit not at all.
    fn single_allowed_token(&self, look: &Lookahead<'_>, config: Config) -> Option<u32> {
        let entry = |i: u32| look.entry(i);
        if self.eos_allowed(config, &entry) {
            return None;
        }
        let mut single: Option<(u32, u32)> = None;
        let many = self.walk_chain(config, &entry, |k, node, _| {
            for (class, _, push) in self.pda.edges(node) {
                if single.is_some_and(|(c, _)| c == class)
                    || self.too_deep_edge(config, k, push)
                    || (k > 0 && self.earlier_edge(config, &entry, k, class))
                {
                    continue;
                }
                match (self.pda.class_size(class), single) {
                    (1, None) => single = self.pda.class_tokens(class).next().map(|t| (class, t)),
                    _ => return Some(()),
                }
            }
            None
        });
        single.filter(|_| many.is_none()).map(|(_, t)| t)
    }
}

/// The end of a pop chain (see [`PdaWalkerOf::fill_mask`]).
struct ChainEnd {
    node: StateId,
    pops: u32,
    /// The closure state of the chain's head.
    state: u32,
    /// The chain past the head, when the head does not cover it all.
    rest: Option<Config>,
}

/// Where a token leads in a lookahead.
enum Ahead {
    To(Config),
    Eos,
    Refused,
}

/// The walker's stack arena seen through an overlay: entries pushed while looking ahead
/// go past its end, leaving the arena untouched.
struct Lookahead<'a> {
    arena: &'a [(u32, u32)],
    extra: Vec<(u32, u32)>,
}

impl<'a> Lookahead<'a> {
    fn new(arena: &'a [(u32, u32)]) -> Lookahead<'a> {
        Lookahead {
            arena,
            extra: Vec::new(),
        }
    }

    fn entry(&self, i: u32) -> (u32, u32) {
        let i = i as usize;
        match self.arena.get(i) {
            Some(&e) => e,
            None => self.extra[i - self.arena.len()],
        }
    }

    /// Pushes an entry and returns its index.
    fn push(&mut self, entry: (u32, u32)) -> u32 {
        self.extra.push(entry);
        (self.arena.len() + self.extra.len() - 1) as u32
    }
}

// The decoding interface, by the inherent methods above.
crate::matcher::matcher_by_inherent_methods!(PdaWalkerOf, TokenPda, pda);
