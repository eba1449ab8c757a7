//! Walking a nondeterministic token PDA: a set of configurations over one shared,
//! graph-structured stack (GLR-style).
//!
//! A grammar whose conflicts one byte of lookahead does not decide compiles to a token PDA
//! whose node may have several edges of one class ([`TokenPda::is_deterministic`] is
//! false). A [`GlrWalker`] keeps every way: its position is a set of configurations `(node,
//! top)`, where `top` is a vertex of a graph-structured stack. A vertex is a symbol with a
//! set of parents (vertices, or the bottom), so it stands for every stack its parents
//! stand for with the symbol on top; configurations that reach the same node with the same
//! top symbol in one step share one vertex (their parents merged), and equal configurations
//! merge, so ambiguity costs a few configurations, not exponentially many stacks.
//!
//! Each configuration is read as [`PdaWalker`](crate::pda_walker::PdaWalker) reads its one:
//! the pop chain (the node, then the node popping each top symbol leads to, through every
//! parent), a token allowed where a chain node has an edge of its class, EOS where a chain
//! reaches the bottom at an accepting node. The mask is the union over configurations;
//! consuming follows every edge of the token's class at every chain point. The stack limit
//! applies to a vertex's shallowest stack (merged stacks keep the smallest depth). The
//! number of live configurations is bounded ([`GlrWalkerOf::with_config_limit`]): a token
//! that would leave more is refused with [`MatchErrorKind::ConfigLimit`], a resource limit
//! of the walker and not part of the language, so the mask does not reflect it. Vertices
//! are only appended (each distinct one once, see `gss`); each consumed token records the
//! configurations before it and the arena lengths, so a rollback is a truncation.
//!
//! The chain points of the live configurations are derived once per position, when a
//! token is consumed (the next step needs them anyway), with the distinct nodes whose
//! masks apply: `fill_mask` then copies one dense mask and ORs the others, without walking
//! the stack or allocating.

mod gss;
mod seen;

use std::collections::HashMap;
use std::ops::Deref;

use crate::matcher::{stack_limit_error, History, MatchError, MatchErrorKind};
use crate::parts::StateId;
use crate::pda_walker::DEFAULT_STACK_LIMIT;
use crate::push_dag::{PushDag, ROOT};
use crate::token_pda::TokenPda;
use gss::{Gss, View, BOTTOM};
use seen::Seen;

/// Default most live configurations of a [`GlrWalker`].
pub const DEFAULT_CONFIG_LIMIT: usize = 1024;

/// A configuration: a node and the top vertex of its stacks ([`BOTTOM`]: empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Config {
    node: StateId,
    top: u32,
}

/// What the masks of a set of configurations read, derived once per position: its chain
/// points, the distinct nodes whose whole masks apply, the points near the stack limit
/// (their edges checked one by one) and whether EOS is allowed.
#[derive(Clone, Debug, Default)]
struct Chains {
    points: Vec<Config>,
    /// Each node once, a dense-masked one first if any, so a mask starts with a copy.
    nodes: Vec<StateId>,
    near: Vec<Config>,
    eos: bool,
}

/// What one consumed token recorded, which rolling it back restores.
#[derive(Clone, Debug)]
struct Undo {
    before: Vec<Config>,
    lengths: (usize, usize),
}

/// Buffers a step fills and empties, kept between steps for their capacity.
#[derive(Clone, Debug, Default)]
struct Scratch {
    /// `(target, push, vertex below)` of the results laid one by one.
    results: Vec<(StateId, u32, u32)>,
    /// Tops before merging, as `merge` reads them.
    tops: Vec<(StateId, u32, Top)>,
    parents: Vec<u32>,
    /// The vertices of a DAG being laid.
    laid: Vec<u32>,
    /// `(edge, vertex)` of the chain points whose edge's push DAG is laid, so each DAG is
    /// laid once over all the vertices it goes on.
    dags: Vec<(usize, u32)>,
    /// The vertices one DAG is laid on.
    bases: Vec<u32>,
}

/// Where a token leads from a set of configurations.
enum Next {
    To(Vec<Config>),
    Eos,
}

/// A position in a nondeterministic token PDA: a set of configurations over a shared
/// stack, with the history needed to roll back. `A` holds the PDA: a reference
/// ([`GlrWalker`]) or an `Arc` ([`OwnedGlrWalker`]). It walks deterministic PDAs too
/// (with one configuration), though [`PdaWalker`](crate::pda_walker::PdaWalker) is faster there.
#[derive(Clone, Debug)]
pub struct GlrWalkerOf<A> {
    pda: A,
    configs: Vec<Config>,
    /// The chains of `configs`, which masks and the next step read.
    here: Chains,
    gss: Gss,
    history: History<Undo>,
    stack_limit: usize,
    config_limit: usize,
    /// Chain points and nodes found, kept between steps for its capacity.
    seen: Seen,
    scratch: Scratch,
}

crate::matcher::walker_holders!(GlrWalkerOf, TokenPda, GlrWalker, OwnedGlrWalker);

impl<W, A> GlrWalkerOf<A>
where
    W: AsRef<[u32]>,
    A: Deref<Target = TokenPda<W>>,
{
    fn at_start(pda: A) -> GlrWalkerOf<A> {
        let mut w = GlrWalkerOf {
            pda,
            configs: Vec::new(),
            here: Chains::default(),
            gss: Gss::default(),
            history: History::default(),
            stack_limit: DEFAULT_STACK_LIMIT,
            config_limit: DEFAULT_CONFIG_LIMIT,
            seen: Seen::default(),
            scratch: Scratch::default(),
        };
        w.reset();
        w
    }

    /// The same walker with at most `limit` stack symbols (on a configuration's shallowest
    /// stack), as [`PdaWalker::with_stack_limit`](crate::pda_walker::PdaWalker::with_stack_limit).
    pub fn with_stack_limit(mut self, limit: usize) -> GlrWalkerOf<A> {
        self.stack_limit = limit;
        self.derive_here();
        self
    }

    /// The same walker with at most `limit` live configurations (at least 1): a token that
    /// would leave more is refused with [`MatchErrorKind::ConfigLimit`].
    pub fn with_config_limit(mut self, limit: usize) -> GlrWalkerOf<A> {
        self.config_limit = limit.max(1);
        self
    }

    /// The PDA being walked.
    pub fn pda(&self) -> &A {
        &self.pda
    }

    /// Number of live configurations (after merging).
    pub fn num_configurations(&self) -> usize {
        self.configs.len()
    }

    /// Number of chain points of the live configurations (each configuration and the points
    /// its pop chains reach), what a step's work is proportional to: for tools and benches.
    pub fn num_chain_points(&self) -> usize {
        self.here.points.len()
    }

    /// Back to the start with an empty stack and nothing consumed.
    pub fn reset(&mut self) {
        self.configs = vec![Config {
            node: self.pda.start(),
            top: BOTTOM,
        }];
        self.gss.clear();
        self.history.clear();
        self.derive_here();
    }

    /// Number of tokens consumed since the start, EOS included.
    pub fn num_consumed(&self) -> usize {
        self.history.len()
    }

    /// Whether EOS has been consumed.
    pub fn is_finished(&self) -> bool {
        self.history.finished
    }

    /// Recomputes `here` from `configs`, reusing its buffers.
    fn derive_here(&mut self) {
        let mut here = std::mem::take(&mut self.here);
        let mut seen = std::mem::take(&mut self.seen);
        self.chains(&View::new(&self.gss), &self.configs, &mut seen, &mut here);
        self.here = here;
        self.seen = seen;
    }

    /// The chains of `configs` into `out` (see [`Chains`]), `seen` a scratch set.
    fn chains(&self, view: &View<'_>, configs: &[Config], seen: &mut Seen, out: &mut Chains) {
        self.points(view, configs, seen, &mut out.points);
        out.nodes.clear();
        out.near.clear();
        out.eos = false;
        let max_push = self.pda.max_push();
        for &c in &out.points {
            if view.depth(c.top) as usize + max_push > self.stack_limit {
                out.near.push(c);
            } else if seen.first_node(c.node) {
                out.nodes.push(c.node);
            }
            out.eos |= c.top == BOTTOM && self.pda.is_accepting(c.node);
        }
        let dense = out
            .nodes
            .iter()
            .position(|&n| self.pda.dense_node_mask(n).is_some());
        if let Some(i) = dense {
            out.nodes.swap(0, i);
        }
    }

    /// Every chain point `(node, vertex)` of `configs` into `out`: each configuration,
    /// then, while the node has a pop edge for the vertex's symbol, its target at each
    /// parent. Each point once, in the order found.
    fn points(&self, view: &View<'_>, configs: &[Config], seen: &mut Seen, out: &mut Vec<Config>) {
        seen.start();
        out.clear();
        for &c in configs {
            seen.insert(out, c);
        }
        // `out` is its own work list: each point's successors are appended after it.
        let mut i = 0;
        while let Some(&c) = out.get(i) {
            i += 1;
            if c.top == BOTTOM {
                continue;
            }
            if let Some(next) = self.pda.pop_target(c.node, view.vertex(c.top).symbol) {
                for &p in view.parents(c.top) {
                    seen.insert(out, Config { node: next, top: p });
                }
            }
        }
    }

    /// Whether `push` at chain point `c` stays within the stack limit.
    fn fits(&self, view: &View<'_>, c: Config, push: u32) -> bool {
        view.depth(c.top) as usize + self.pda.push_seq(push).len() <= self.stack_limit
    }

    /// Whether EOS may be consumed here (or was): a chain empties the stack at an
    /// accepting node.
    pub fn is_accepting(&self) -> bool {
        self.history.finished || self.here.eos
    }

    /// Whether EOS is the only choice: EOS is allowed and no chain point has a token
    /// edge within the stack limit.
    pub fn only_eos_allowed(&self) -> bool {
        if self.history.finished || !self.here.eos {
            return false;
        }
        let view = View::new(&self.gss);
        !self.here.points.iter().any(|&c| {
            self.pda
                .edges(c.node)
                .any(|(_, _, push)| self.fits(&view, c, push))
        })
    }

    /// Writes the allowed tokens into `mask`: the union of the chain nodes' class masks
    /// (each node once, the first dense one copied), edges past the stack limit left out
    /// near it, plus EOS where a chain accepts. Reads what the last step derived; does not
    /// allocate.
    pub fn fill_mask(&self, mask: &mut [u32]) -> Result<(), MatchError> {
        let need = crate::matcher::mask_width(mask, self.pda.vocab_size())?;
        if self.history.finished {
            mask.fill(0);
            return Ok(());
        }
        let (mask, rest) = mask.split_at_mut(need);
        rest.fill(0);
        let nodes = &self.here.nodes;
        let first_dense = nodes.first().and_then(|&n| self.pda.dense_node_mask(n));
        let nodes = match first_dense {
            Some(dense) => {
                let n = dense.len().min(mask.len());
                mask[..n].copy_from_slice(&dense[..n]);
                mask[n..].fill(0);
                &nodes[1..]
            }
            None => {
                mask.fill(0);
                &nodes[..]
            }
        };
        for &node in nodes {
            self.pda.or_node_mask(node, mask);
        }
        if !self.here.near.is_empty() {
            self.or_near(mask);
        }
        if self.here.eos {
            for &e in self.pda.eos_ids() {
                mask[(e / 32) as usize] |= 1 << (e % 32);
            }
        }
        Ok(())
    }

    /// ORs the tokens of the chain points near the stack limit whose edges fit it.
    fn or_near(&self, mask: &mut [u32]) {
        let view = View::new(&self.gss);
        for &c in &self.here.near {
            for (class, _, push) in self.pda.edges(c.node) {
                if self.fits(&view, c, push) {
                    for pair in self.pda.class_mask_words(class).chunks_exact(2) {
                        if let Some(slot) = mask.get_mut(pair[0] as usize) {
                            *slot |= pair[1];
                        }
                    }
                }
            }
        }
    }

    /// Whether `token` may come next (within the stack limit, as the mask says).
    pub fn is_allowed(&self, token: u32) -> bool {
        if self.history.finished {
            return false;
        }
        let view = View::new(&self.gss);
        match self.pda.token_class(token) {
            Some(class) => self.here.points.iter().any(|&c| {
                self.pda
                    .edge_results(c.node, class)
                    .any(|(_, push)| self.fits(&view, c, push))
            }),
            None => self.pda.is_eos(token) && self.here.eos,
        }
    }

    /// Where `token` leads from the configurations whose chains are `here`, new vertices
    /// going to `view`: every edge of its class at every chain point within the stack
    /// limit, the results merged by node and top symbol. Refused (not allowed, the stack
    /// limit, the configuration limit) with the error `consume` reports.
    fn step(
        &self,
        view: &mut View<'_>,
        here: &Chains,
        token: u32,
        scratch: &mut Scratch,
    ) -> Result<Next, MatchError> {
        let Some(class) = self.pda.token_class(token) else {
            if self.pda.is_eos(token) && here.eos {
                return Ok(Next::Eos);
            }
            return Err(self.not_allowed(token));
        };
        let Scratch {
            results,
            tops,
            parents,
            laid,
            dags,
            bases,
        } = scratch;
        results.clear();
        tops.clear();
        dags.clear();
        let mut out = Vec::new();
        let mut too_deep = None;
        for &c in &here.points {
            let Some((e, first)) = self.pda.class_edge(c.node, class) else {
                continue;
            };
            let depth = view.depth(c.top) as usize;
            if let Some(dag) = self.pda.edge_dag(e) {
                if depth + dag.max_len <= self.stack_limit {
                    dags.push((e, c.top));
                    continue;
                }
            }
            for (target, push) in self.pda.results_of_edge(e, first) {
                if self.fits(view, c, push) {
                    results.push((target, push, c.top));
                } else {
                    too_deep = Some(depth + self.pda.push_seq(push).len());
                }
            }
        }
        // Points at one node share its DAG: laid once, its bottom vertices over all of
        // their vertices (the same stacks as one copy per point, merged).
        dags.sort_unstable();
        for group in dags.chunk_by(|a, b| a.0 == b.0) {
            bases.clear();
            bases.extend(group.iter().map(|&(_, v)| v));
            bases.dedup();
            let dag = self.pda.edge_dag(group[0].0).expect("an edge with a DAG");
            lay_dag(view, dag, bases, (laid, parents), tops, &mut out);
        }
        if results.is_empty() && tops.is_empty() && out.is_empty() {
            return Err(match too_deep {
                Some(depth) => self.too_deep(token, depth),
                None => self.not_allowed(token),
            });
        }
        results.sort_unstable();
        results.dedup();
        let next = self.merge(view, results, tops, parents, out);
        if next.len() > self.config_limit {
            return Err(MatchError::new(
                MatchErrorKind::ConfigLimit,
                format!(
                    "token {token} would leave {} live configurations of the nondeterministic \
                     token PDA, past the walker's configuration limit of {} (see \
                     with_config_limit)",
                    next.len(),
                    self.config_limit
                ),
            ));
        }
        Ok(Next::To(next))
    }

    /// The configurations of `results` (`(target, push, vertex below)`) and of the tops
    /// and configurations laid from DAGs: pushes laid on their vertex; results with the
    /// same target and top symbol share one top vertex whose parents are all of theirs (a
    /// result that pushed nothing alone keeps its own).
    fn merge(
        &self,
        view: &mut View<'_>,
        results: &[(StateId, u32, u32)],
        // (target, top symbol, its own vertex or the vertex below a new symbol).
        tops: &mut Vec<(StateId, u32, Top)>,
        parents: &mut Vec<u32>,
        mut out: Vec<Config>,
    ) -> Vec<Config> {
        let mut laid = Laid::default();
        for &(target, push, below) in results {
            let seq = self.pda.push_seq(push);
            let Some((&last, rest)) = seq.split_last() else {
                if below == BOTTOM {
                    out.push(Config {
                        node: target,
                        top: BOTTOM,
                    });
                } else {
                    tops.push((target, view.vertex(below).symbol, Top::Own(below)));
                }
                continue;
            };
            let at = laid.lay(view, below, push, rest);
            tops.push((target, last, Top::On(at)));
        }
        tops.sort_unstable();
        tops.dedup();
        for group in tops.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
            let (target, symbol) = (group[0].0, group[0].1);
            let top = match group {
                [(_, _, Top::Own(v))] => *v,
                _ => {
                    parents.clear();
                    for (_, _, top) in group {
                        match *top {
                            Top::Own(v) => parents.extend_from_slice(view.parents(v)),
                            Top::On(p) => parents.push(p),
                        }
                    }
                    parents.sort_unstable();
                    parents.dedup();
                    view.push(symbol, parents)
                }
            };
            out.push(Config { node: target, top });
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Consumes one token along every way it may be read, or finishes on an allowed EOS.
    /// A refused token is an error and changes nothing.
    pub fn consume(&mut self, token: u32) -> Result<(), MatchError> {
        self.history.check_open(token, String::new)?;
        let lengths = self.gss.lengths();
        let mut view = View::owning(std::mem::take(&mut self.gss));
        let mut scratch = std::mem::take(&mut self.scratch);
        let next = self.step(&mut view, &self.here, token, &mut scratch);
        self.scratch = scratch;
        self.gss = view.into_gss();
        let next = next.inspect_err(|_| self.gss.truncate(lengths))?;
        match next {
            Next::Eos => {
                let before = self.configs.clone();
                self.history.push(Undo { before, lengths }, true);
            }
            Next::To(configs) => {
                let before = std::mem::replace(&mut self.configs, configs);
                self.history.push(Undo { before, lengths }, false);
                self.derive_here();
            }
        }
        Ok(())
    }

    fn too_deep(&self, token: u32, depth: usize) -> MatchError {
        stack_limit_error(token, "", depth, self.stack_limit)
    }

    fn not_allowed(&self, token: u32) -> MatchError {
        let place = format!("in any of {} configurations", self.configs.len());
        self.pda.refusal(token, &place)
    }

    /// Consumes all of `tokens` or, if one is refused, none of them; the error names the
    /// position of the first refused token.
    pub fn consume_tokens(&mut self, tokens: &[u32]) -> Result<(), MatchError> {
        crate::matcher::consume_all(self, tokens)
    }

    /// How many leading tokens of `tokens` would be accepted from here, without moving.
    pub fn validate_tokens(&self, tokens: &[u32]) -> usize {
        if self.history.finished {
            return 0;
        }
        let mut view = View::new(&self.gss);
        let mut here = self.here.clone();
        let (mut seen, mut scratch) = (Seen::default(), Scratch::default());
        for (i, &t) in tokens.iter().enumerate() {
            match self.step(&mut view, &here, t, &mut scratch) {
                Ok(Next::To(next)) => self.chains(&view, &next, &mut seen, &mut here),
                Ok(Next::Eos) => return i + 1,
                Err(_) => return i,
            }
        }
        tokens.len()
    }

    /// Undoes the last `n` consumed tokens (EOS included) in O(n). Fails, changing
    /// nothing, if fewer than `n` were consumed.
    pub fn rollback(&mut self, n: usize) -> Result<(), MatchError> {
        // Undoing only EOS leaves the configurations (and their chains) as they are.
        let only_eos = self.history.finished && n == 1;
        if let Some(undo) = self.history.rollback(n)? {
            self.gss.truncate(undo.lengths);
            if !only_eos {
                self.configs = undo.before;
                self.derive_here();
            }
        }
        Ok(())
    }

    /// The tokens the constraint forces from here: while EOS is not allowed and exactly
    /// one token is, that token. Bounded by the number of nodes plus the stack limit.
    pub fn forced_tokens(&self) -> Vec<u32> {
        let mut out = Vec::new();
        if self.history.finished {
            return out;
        }
        let mut view = View::new(&self.gss);
        let mut here = self.here.clone();
        let (mut seen, mut scratch) = (Seen::default(), Scratch::default());
        let bound = self.pda.num_nodes() as usize + self.stack_limit;
        for _ in 0..bound {
            let Some(token) = self.single_allowed_token(&view, &here) else {
                break;
            };
            match self.step(&mut view, &here, token, &mut scratch) {
                Ok(Next::To(next)) => self.chains(&view, &next, &mut seen, &mut here),
                _ => break,
            }
            out.push(token);
        }
        out
    }

    /// The only token allowed at the chains `here`, if exactly one is and EOS is not.
    fn single_allowed_token(&self, view: &View<'_>, here: &Chains) -> Option<u32> {
        if here.eos {
            return None;
        }
        let mut single: Option<u32> = None;
        for &c in &here.points {
            for (class, _, push) in self.pda.edges(c.node) {
                if single == Some(class) || !self.fits(view, c, push) {
                    continue;
                }
                if single.is_some() || self.pda.class_size(class) != 1 {
                    return None;
                }
                single = Some(class);
            }
        }
        single.and_then(|class| self.pda.class_tokens(class).next())
    }
}

/// Lays `dag` on the vertices `below` (sorted): its vertices through `view` (a vertex over
/// the DAG's root has all of `below` among its parents), its tops into `tops` and its
/// results that push nothing into `tops` or (on the bottom) `out`, as `merge` reads them.
fn lay_dag(
    view: &mut View<'_>,
    dag: &PushDag,
    below: &[u32],
    (laid, parents): (&mut Vec<u32>, &mut Vec<u32>),
    tops: &mut Vec<(StateId, u32, Top)>,
    out: &mut Vec<Config>,
) {
    laid.clear();
    for (symbol, of) in &dag.vertices {
        parents.clear();
        for &p in of {
            match p {
                ROOT => parents.extend_from_slice(below),
                _ => parents.push(laid[p as usize]),
            }
        }
        parents.sort_unstable();
        parents.dedup();
        laid.push(view.push(*symbol, parents));
    }
    for (target, symbol, of) in &dag.tops {
        for &p in of {
            match p {
                ROOT => tops.extend(below.iter().map(|&b| (*target, *symbol, Top::On(b)))),
                _ => tops.push((*target, *symbol, Top::On(laid[p as usize]))),
            }
        }
    }
    for &target in &dag.stays {
        for &b in below {
            match b {
                BOTTOM => out.push(Config {
                    node: target,
                    top: BOTTOM,
                }),
                _ => tops.push((target, view.vertex(b).symbol, Top::Own(b))),
            }
        }
    }
}

/// The vertices of the push sequences last laid on each vertex, so a step whose results
/// push many sequences with common beginnings (a token opening several groups, each of
/// which may start more than one way) lays each common part once instead of looking it up
/// symbol by symbol. The vertex of a prefix over a vertex is unique, so reusing it is exact.
#[derive(Default)]
struct Laid {
    /// `(vertex below, push sequence, the vertices of its symbols but the last)`.
    last: Vec<(u32, u32, Vec<u32>)>,
    /// The index in `last` of each vertex below: a step may lay on thousands of vertices,
    /// and a search of `last` for each result made such a step quadratic (a fuzzed grammar's
    /// walk took minutes per token).
    slot_of: HashMap<u32, usize>,
}

impl Laid {
    /// The vertex under the last symbol of push sequence `push` (whose other symbols are
    /// `rest`) laid on `below`.
    fn lay(&mut self, view: &mut View<'_>, below: u32, push: u32, rest: &[u32]) -> u32 {
        let slot = *self.slot_of.entry(below).or_insert_with(|| {
            self.last.push((below, 0, Vec::new()));
            self.last.len() - 1
        });
        let (_, prev_push, chain) = &mut self.last[slot];
        let common = if *prev_push == push && chain.len() == rest.len() {
            rest.len()
        } else {
            // The previous sequence's symbols are its vertices' symbols.
            chain
                .iter()
                .zip(rest)
                .take_while(|(&v, &s)| view.vertex(v).symbol == s)
                .count()
        };
        chain.truncate(common);
        let mut at = chain.last().copied().unwrap_or(below);
        for &symbol in &rest[common..] {
            at = view.push(symbol, &[at]);
            chain.push(at);
        }
        *prev_push = push;
        at
    }
}

/// The top of a result before merging: a vertex of its own (it pushed nothing), or a new
/// symbol on vertex `On(below)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Top {
    Own(u32),
    On(u32),
}

// The decoding interface, by the inherent methods above.
crate::matcher::matcher_by_inherent_methods!(GlrWalkerOf, TokenPda, pda);
